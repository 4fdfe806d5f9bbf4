// The seam between the simulated protocol (sim/: SimGrid actors, no tensors) and the learning
// computation. The protocol moves opaque payloads and charges their sizes and FLOPs in simulated
// time; a back-end computes them: LibTorch (real training, torch_backend.hpp) or timing only
// (sizes and FLOPs, no tensors: timing_backend.hpp). Nothing here sees SimGrid.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace edgetrain::backend {

// What the protocol charges for the model: its size and its training FLOPs. With model.cost_as
// these are the catalogued model's, whatever is trained.
struct ModelCost {
  std::string name;    // what is charged, e.g. "mlp" or "resnet152"
  int64_t params = 0;  // values in one dense update
  double step_flops_per_sample = 0;
  int64_t dense_bytes() const { return 4 * params; }  // a dense fp32 payload
};

// A model as a device receives it; the protocol reads only its size.
struct ModelPayload {
  std::shared_ptr<const std::vector<float>> params;  // the dense model (real training; null otherwise)
  std::optional<std::vector<uint8_t>> delta;         // or the encoded delta to the device's copy
  int64_t bytes = 0;                                 // wire size of the payload
  int64_t version = 0;  // updates the store had applied (the downlink's compression context)
};

// One device's update as it travels; the protocol reads only its size and its index sets' size.
struct UpdatePayload {
  std::vector<uint8_t> encoded;               // the real encoding (empty in timing-only mode)
  int64_t bytes = 0;                          // wire size of the payload
  bool compressed = true;                     // false: dense fp32 (ScaDLES's adaptive switch chose not to compress)
  std::vector<std::vector<int64_t>> indices;  // sparse schemes: the index sets sent (staleness rule)
  int64_t step = 0;                           // the device's encode counter (compression context)
};

struct Evaluation {
  double accuracy = 0, loss = 0;
  std::optional<double> model_spread;  // gossip: mean L2 distance of the devices' models to their average
};

// The learning side of one device. The protocol calls receive, then per local step start_step
// (when its simulated compute starts) and finish_step (when it ends), then finish_update; one
// device's calls never overlap. A step runs on the worker pool meanwhile.
class DeviceLearner {
 public:
  virtual ~DeviceLearner() = default;
  // The model the next update starts from.
  virtual void receive(const ModelPayload& model) = 0;
  // Starts one step on `batch` (dataset indices): from the received model, or in mode local-sgd
  // from the local model the previous steps left.
  virtual void start_step(std::vector<int64_t> batch) = 0;
  // Waits for the step; its loss (0 when nothing is trained).
  virtual double finish_step() = 0;
  // The update of the steps since receive (the gradient, or local-sgd's model delta), encoded
  // for the uplink with the device's compressor; frees the update's working memory.
  virtual UpdatePayload finish_update() = 0;
  // A fault ended the update in progress: its step (if running) is waited for and dropped.
  virtual void abandon() = 0;
  // ScaDLES adaptive compression: updates sent compressed so far (-1: not adaptive).
  virtual int64_t compressed_updates() const = 0;
};

// The model an aggregator keeps: what it sends, how it applies what arrives, its evaluation.
class ModelStore {
 public:
  virtual ~ModelStore() = default;
  // The current model for member `member` (its index in the aggregator's member list): dense,
  // or the compressed delta to that member's copy.
  virtual ModelPayload payload_for(size_t member) = 0;
  // The dense model (pull replies of asynchronous aggregation).
  virtual ModelPayload dense_payload() = 0;
  // Round-based aggregation: adds weight x the decoded update of `member`, as it arrives.
  virtual void accumulate(const UpdatePayload& update, size_t member, double weight) = 0;
  // Applies the accumulated sum / total_weight with step size lr and starts a new sum. False
  // when the model (or a loss given) is no longer finite.
  virtual bool apply_accumulated(double lr, double total_weight) = 0;
  // Asynchronous aggregation (FedBuff's buffer; plain async is a buffer of one): adds the decoded
  // update of `member`, scaled by the staleness rule for `staleness` versions, to the buffer.
  virtual void buffer(const UpdatePayload& update, size_t member, int64_t staleness) = 0;
  // Applies the buffer's average (sum / count) with step size lr as one new version, and starts
  // an empty buffer. False when the model is no longer finite.
  virtual bool apply_buffer(double lr, int64_t count) = 0;
  // Gossip: replaces the model by the weighted sum of `models` (dense payloads; the weights sum to
  // 1). False when the result is no longer finite.
  virtual bool mix(const std::vector<std::pair<ModelPayload, double>>& models) = 0;
  // Gossip: the L2 distance between the current model and the dense payload `other` (0 when
  // nothing is trained).
  virtual double distance(const ModelPayload& other) const = 0;
  // Evaluates the current model on the test set (on the pool, on a snapshot); nothing when
  // `cancelled` says so between batches. Only when trains() is true.
  virtual std::optional<Evaluation> evaluate(const std::function<bool()>& cancelled) = 0;
};

// The store of a site aggregator (topology.kind hierarchical): a round-based store over the site's
// members that also takes the model the cloud sends and reports how far its rounds moved it.
class SiteStore : public ModelStore {
 public:
  // Sets the site's model to `model` (the cloud's dense model): the point delta_since_adopt measures from.
  virtual void adopt(const ModelPayload& model) = 0;
  // The site's change since the last adopt, adopted - current (a step to subtract, like a local-sgd
  // delta), encoded for the site -> cloud link with the site's compressor (topology.site_compression).
  virtual UpdatePayload delta_since_adopt() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const ModelCost& cost() const = 0;
  // Real training: steps on real samples, and evaluation. False in timing-only mode: no
  // accuracy, and which samples a batch holds does not matter, only how many.
  virtual bool trains() const = 0;
  virtual DeviceLearner& device(size_t index) = 0;
  // The model store of an aggregator serving `members` (scenario device indices).
  virtual std::unique_ptr<ModelStore> make_store(const std::vector<size_t>& members) = 0;
  // Hierarchical aggregation: the store of site `site` (topology.sites order) serving `members`, its
  // compressor seeded per site (util::derive_seed(seed, "site-uplink", site)).
  virtual std::unique_ptr<SiteStore> make_site_store(const std::vector<size_t>& members, size_t site) = 0;
  // The cloud's store over `sites` sites: accumulate decodes site s's delta with that site's
  // compressor and seed; apply_accumulated applies x <- x - sum_s w_s d_s / sum_s w_s plainly (its
  // lr is ignored: no momentum, weight decay or step size, which the sites already applied).
  virtual std::unique_ptr<ModelStore> make_cloud_store(size_t sites) = 0;
  // The simulation ended: steps still on the pool (devices killed mid-step) finish and are
  // dropped, so that nothing changes while the results are written.
  virtual void quiesce() {}
  // Sizes taken from a declared ratio rather than computed: key -> ratio (timing-only runs).
  virtual std::vector<std::pair<std::string, double>> declared_sizes() const { return {}; }
};

}  // namespace edgetrain::backend
