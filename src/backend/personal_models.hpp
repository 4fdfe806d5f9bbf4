// Personalisation's models on the devices (strategy.kind fedper, fedrep, fedbn, ditto), as each device last
// published them (at the end of every update it completes: a fault drops what the update trained), with the
// classes it has trained on; and their evaluation. A device's personalised model is the global model with
// its own staying tensors (fedper, fedrep, fedbn) or its own whole model (ditto); it is evaluated on test
// samples drawn in the proportions of its classes (as PFLlib evaluates each client on its own test split,
// and FedRep's paper on test data of the client's distribution). Plain C++ with learn's Workspace.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "backend/learner.hpp"
#include "backend/travelling_part.hpp"
#include "backend/worker_pool.hpp"
#include "learn/dataset.hpp"
#include "learn/model.hpp"

namespace edgetrain::backend {

class PersonalModels {
 public:
  // `part`: what travels (null: the personal model is whole, ditto); `samples`: test samples per device;
  // `seed`: of the draws.
  PersonalModels(size_t devices, const TravellingPart* part, const learn::Dataset& test, int64_t samples, uint64_t seed);

  // Device `device`'s personal values (the model's size; only the staying tensors are read when a part
  // travels; null: fedavg's baseline, the global model) and the labels of the samples its completed update
  // trained on.
  void publish(size_t device, std::shared_ptr<const std::vector<float>> values, const std::vector<int64_t>& labels);
  // The device's last published values (null before its first update).
  const std::shared_ptr<const std::vector<float>>& values(size_t device) const { return values_.at(device); }

  // Every device that has trained, evaluated on the pool against `global`; nothing when `cancelled` says so,
  // or when no device has trained yet. `workspace(worker)`: the worker's network.
  std::optional<PersonalAccuracy> evaluate(const std::shared_ptr<const std::vector<float>>& global, WorkerPool& pool,
                                           const std::function<learn::Workspace&(size_t)>& workspace,
                                           const std::function<bool()>& cancelled) const;

 private:
  // The device's test samples: per class, a share of `samples_` as large as the class's in its training
  // (largest remainders), taken in order from a seeded place in the class's test samples (wrapping round).
  std::vector<int64_t> test_indices(size_t device) const;

  const TravellingPart* part_;
  const learn::Dataset& test_;
  int64_t samples_;
  uint64_t seed_;
  std::vector<std::vector<int64_t>> by_class_;  // the test set's indices of each class
  std::vector<std::shared_ptr<const std::vector<float>>> values_;
  std::vector<std::vector<int64_t>> trained_;  // per device, samples trained on per class
};

}  // namespace edgetrain::backend
