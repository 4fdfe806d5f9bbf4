// The learning side of a run set up in one call: the data's shape, the model as charged, the
// memory estimate (refused before anything large is allocated), then the data, the model, each
// device's partition and the back-end (LibTorch, or timing-only: sizes and FLOPs, no data read).
// The simulator calls it once the platform is loaded; what it needs of the simulator comes in the
// request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "backend/backend.hpp"
#include "backend/charged_model.hpp"
#include "backend/memory_estimate.hpp"
#include "learn/dataset.hpp"
#include "learn/model.hpp"
#include "learn/partition.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::backend {

struct LearningRequest {
  size_t threads = 1;                    // workers that run the training steps
  // The devices run as activities (scenario/device_path.hpp): no actor stacks per device.
  bool devices_as_activities = false;
  TopologyMemory topology_memory;        // what the topology's aggregators hold
  std::optional<DeltaLink> delta_link;   // the link the topology's stores send deltas over
  // Called once the memory estimate allows the run, before anything is loaded (the simulator's
  // own checks of what it builds).
  std::function<void(const ChargedModel&)> once_allowed;
  // Real training: where the devices' learners run. Given the LibTorch back-end once built, returns the one the
  // run uses (MPI workers: src/mpi/worker_group.hpp). Empty: in this process.
  std::function<std::unique_ptr<Backend>(std::unique_ptr<Backend>, const MemoryEstimate&)> place_learners;
  LearnerPlacement placement;  // what the memory estimate counts for this process under MPI
};

// Not moved once made: the back-end refers to the data and the model.
struct Learning {
  Learning() = default;
  Learning(const Learning&) = delete;
  Learning& operator=(const Learning&) = delete;
  learn::DatasetShape shape;
  int64_t raw_sample_bytes = 0;  // one sample as stored on a device
  ChargedModel charged;
  MemoryEstimate memory;
  learn::DatasetPair data;              // real training only
  std::unique_ptr<learn::Model> model;  // real training only
  learn::DeviceParts parts;
  std::unique_ptr<Backend> backend;  // last: destroyed first, it refers to the model and the data
};

// Each phase's failure is one line naming it (MemoryError for an allocation, the input's own
// error for bad data).
std::unique_ptr<Learning> prepare_learning(const scenario::Scenario& scenario, const LearningRequest& request);

}  // namespace edgetrain::backend
