// The model an aggregator keeps, split by role: each operation an aggregation style needs is a
// small interface of its own (what the store sends, round aggregation, buffered aggregation,
// mixing, adopting an upstream model, evaluation), and each actor holds only the roles it uses
// (role<R>(store)). A back-end's store implements every role, so a new way of aggregating adds a
// role here and its two implementations (torch_backend.cpp, timing_backend.cpp), and no other
// aggregator sees it. Nothing here sees SimGrid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/learner.hpp"
#include "policy/policy.hpp"

namespace edgetrain::backend {

// One aggregator's model, owned by whoever set the aggregator up; its roles are reached through role<R>.
class ModelStore {
 public:
  virtual ~ModelStore() = default;
};

// The model it sends.
class ModelSource {
 public:
  static constexpr const char* kRole = "a model source";
  // The current model for member `member` (its index in the aggregator's member list): dense,
  // or the compressed delta to that member's copy.
  virtual ModelPayload payload_for(size_t member) = 0;
  // The dense model (pull replies of asynchronous aggregation, models sent onwards).
  virtual ModelPayload dense_payload() = 0;

 protected:
  ~ModelSource() = default;
};

// Round-based aggregation: the updates of a round summed as they arrive, then applied at once.
class RoundAggregation {
 public:
  static constexpr const char* kRole = "round aggregation";
  // What the server knows of the update accumulate() takes next (a Python strategy receives it).
  virtual void note_arrival(const policy::UpdateFacts& /*facts*/) {}
  // Adds weight x the decoded update of `member`, as it arrives.
  virtual void accumulate(const UpdatePayload& update, size_t member, double weight) = 0;
  // Applies the accumulated sum / total_weight with step size lr and starts a new sum. False
  // when the model (or a loss given) is no longer finite.
  virtual bool apply_accumulated(double lr, double total_weight) = 0;
  // Adds the sum of `count` updates (secure aggregation: what the protocol unmasked), each of weight 1.
  virtual void accumulate_sum(std::span<const double> sum, int64_t count) = 0;
  // Drops what was accumulated since the last apply (a round below training.selection.min_updates).
  virtual void discard_accumulated() = 0;

 protected:
  ~RoundAggregation() = default;
};

// Asynchronous aggregation (FedBuff's buffer; plain async is a buffer of one).
class BufferedAggregation {
 public:
  static constexpr const char* kRole = "buffered aggregation";
  // Adds the decoded update of `member`, scaled by the staleness rule for `staleness` versions,
  // to the buffer.
  virtual void buffer(const UpdatePayload& update, size_t member, int64_t staleness) = 0;
  // Applies the buffer's average (sum / count) with step size lr as one new version, and starts
  // an empty buffer. False when the model is no longer finite.
  virtual bool apply_buffer(double lr, int64_t count) = 0;

 protected:
  ~BufferedAggregation() = default;
};

// Mixing models: the store's model replaced by a weighted average of whole models.
class ModelMixing {
 public:
  static constexpr const char* kRole = "model mixing";
  // Replaces the model by the weighted sum of `models` (dense payloads; the weights sum to 1).
  // False when the result is no longer finite.
  virtual bool mix(const std::vector<std::pair<ModelPayload, double>>& models) = 0;
  // The L2 distance between the current model and the dense payload `other` (0 when nothing is
  // trained).
  virtual double distance(const ModelPayload& other) const = 0;

 protected:
  ~ModelMixing() = default;
};

// Adopting a model from upstream and sending back how far the store's own rounds moved it.
class ModelAdoption {
 public:
  static constexpr const char* kRole = "model adoption";
  // Sets the model to `model` (a dense payload): the point delta_since_adopt measures from.
  virtual void adopt(const ModelPayload& model) = 0;
  // The change since the last adopt, adopted - current (a step to subtract, like a local-sgd
  // delta), encoded with the delta link's compressor (DeltaLink, backend.hpp).
  virtual UpdatePayload delta_since_adopt() = 0;

 protected:
  ~ModelAdoption() = default;
};

// Evaluation of the current model on the test set.
class ModelEvaluation {
 public:
  static constexpr const char* kRole = "model evaluation";
  // Evaluates on the pool, on a snapshot; nothing when `cancelled` says so between batches. Only
  // when the back-end trains.
  virtual std::optional<Evaluation> evaluate(const std::function<bool()>& cancelled) = 0;

 protected:
  ~ModelEvaluation() = default;
};

// A store in every role above: what each back-end implements (a new role joins this list).
class StoreOfEveryRole : public ModelStore,
                         public ModelSource,
                         public RoundAggregation,
                         public BufferedAggregation,
                         public ModelMixing,
                         public ModelAdoption,
                         public ModelEvaluation {};

// `store` in role R; a logic_error naming the role when its store does not implement it.
template <class R>
R& role(ModelStore& store) {
  if (auto* r = dynamic_cast<R*>(&store)) return *r;
  throw std::logic_error(std::string("this model store does not implement ") + R::kRole);
}

}  // namespace edgetrain::backend
