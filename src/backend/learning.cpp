// See learning.hpp. The order reports the cheapest errors first: the data's headers and the
// model's configuration, the memory estimate, then what takes memory and time.
#include "backend/learning.hpp"

#include "backend/learning_setup.hpp"
#include "backend/timing_backend.hpp"
#include "backend/torch_backend.hpp"
#include "util/memory.hpp"

namespace edgetrain::backend {

std::unique_ptr<Learning> prepare_learning(const scenario::Scenario& scenario, const LearningRequest& request) {
  auto made = std::make_unique<Learning>();
  Learning& l = *made;
  const bool timing_only = scenario.training.timing_only();
  if (timing_only) {
    const learn::KnownData known = known_data(scenario);
    l.shape = known.shape;
    l.raw_sample_bytes = known.raw_sample_bytes;
  } else {
    l.shape = data_shape(scenario);
  }
  l.charged = charged_model(scenario, l.shape);
  l.memory = estimate_memory(scenario, l.shape,
                             timing_only ? learn::ModelShape{} : learn::model_shape(model_config(scenario, l.shape)),
                             request.topology_memory, request.placement, request.devices_as_activities,
                             request.threads);
  check_memory(l.memory, util::memory_for_this_process());
  if (request.once_allowed) request.once_allowed(l.charged);
  if (timing_only) {
    l.parts = during("partitioning the data", [&] { return partition_counts(scenario, l.shape); });
    l.backend = during("setting up the devices", [&] {
      return std::make_unique<TimingBackend>(scenario, l.charged, request.delta_link);
    });
    return made;
  }
  l.data = during("loading the dataset", [&] { return load_data(scenario); });
  l.raw_sample_bytes = l.data.train.raw_sample_bytes;
  l.model = during("building the model",
                   [&] { return std::make_unique<learn::Model>(model_config(scenario, learn::shape_of(l.data))); });
  l.parts = during("partitioning the data", [&] { return partition_data(scenario, l.data.train); });
  l.backend = during("initialising the model", [&] {
    return std::make_unique<TorchBackend>(scenario, *l.model, l.data, request.threads, l.charged, request.delta_link);
  });
  if (request.place_learners) l.backend = request.place_learners(std::move(l.backend), l.memory);
  return made;
}

}  // namespace edgetrain::backend
