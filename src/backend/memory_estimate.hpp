// Estimates the memory a scenario needs before anything is loaded or built, and refuses a
// scenario that needs more than the machine has available: a clear refusal up front instead of
// an out-of-memory abort halfway through setting up. No LibTorch or SimGrid here: the estimate
// works from the scenario, the dataset's headers and the model's configuration.
#pragma once

#include <algorithm>
#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "learn/dataset.hpp"
#include "learn/model_shape.hpp"
#include "scenario/scenario.hpp"
#include "util/input_error.hpp"

namespace edgetrain::backend {

// Not enough memory for the scenario (refused by the estimate, or an allocation that failed
// while setting it up): bad input, exit status 2.
class MemoryError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

// How many model-sized fp32 vectors each device holds while training: its update (the gradient,
// on a worker while the step runs, then its encoding until it is delivered; the received model is
// a snapshot shared by every device), plus the local model (local-sgd), the compressor's residual
// (error feedback, adacomp-bins) and the downlink replica. Reported as model_memory_bytes.
int64_t model_memory_vectors(const scenario::Scenario& sc);

// What a topology's own aggregators hold (sim's Topology::memory): model-sized vectors beyond the
// devices' and the server's, and other bytes, named for the estimate's description.
struct TopologyMemory {
  double model_vectors = 0;
  double other_bytes = 0;
  std::string other_what;  // what they are, as the description names them
};

// Where the devices' learners run (MPI workers, src/mpi): rank 0 then holds none of their training state,
// only the snapshots it mirrors per worker; each worker rank holds its share of the devices (device d on
// rank 1 + d % workers), the snapshots it keeps and its workspaces, beside its own copy of the data.
struct LearnerPlacement {
  int workers = 0;    // worker ranks; 0: the devices learn in this process
  int rank = 0;       // this process's rank (0: the simulation)
  int snapshots = 0;  // model-sized snapshots a worker keeps (rank 0 mirrors as many per worker)
  // The worker rank that holds device `device` among `workers`: the one rule rank 0 places devices by.
  static int owner(size_t device, int workers) { return 1 + static_cast<int>(device % static_cast<size_t>(workers)); }
};

struct MemoryEstimate {
  double params = 0;
  double model_vectors = 0;     // model-sized fp32 vectors: every device's, the server's, LibTorch's
  double model_bytes = 0;       // params x model_vectors x 4
  double data_bytes = 0;        // features, labels and sample indices of both splits
  double read_bytes = 0;        // what reading the data holds beside it, freed before the rest is made
  double device_bytes = 0;      // timing-only: each device's records, stream and actor stacks
  double activation_bytes = 0;  // the largest training batch, or an evaluation chunk
  double runtime_bytes = 0;     // the program and its libraries, measured
  double topology_bytes = 0;    // the topology's other bytes (TopologyMemory)
  std::string topology_what;
  std::string where;            // under MPI: whose estimate it is ("MPI rank 0", "MPI worker rank 2, 4 devices")
  double secure_bytes = 0;      // secure aggregation: every participant's state about each peer it shares with
  bool streams = false;         // stream buffers are not counted: they fill as the simulation goes
  std::string way_out;          // what a refusal suggests: the setting that needs less memory
  // The data is loaded before the model, the devices' state and the rest are made (learning.cpp): the peak
  // holds what reading took or what came after, not both.
  double total() const {
    return runtime_bytes + data_bytes +
           std::max(read_bytes, model_bytes + device_bytes + activation_bytes + topology_bytes + secure_bytes);
  }
  // "about 41.2 GB (model 1e+09 parameters x 12 vectors: 40 GB; data 1.1 GB; ...)"
  std::string describe() const;
};

// `topology`: what the run's topology adds (none by default). `devices_as_activities`: the run's devices
// are activities, not actors (scenario/device_path.hpp). `threads`: the workers that run training steps (--threads).
MemoryEstimate estimate_memory(const scenario::Scenario& sc, const learn::DatasetShape& data,
                               const learn::ModelShape& model, const TopologyMemory& topology = {},
                               const LearnerPlacement& placement = {}, bool devices_as_activities = false,
                               size_t threads = 1);

// Throws MemoryError when the estimate exceeds `available` (under MPI, naming more ranks as the way out).
void check_memory(const MemoryEstimate& estimate, std::optional<double> available);

// Runs one set-up phase; an allocation that fails in it (the estimate is only an estimate) ends
// the run with one line naming the phase.
template <class F>
auto during(const char* phase, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw MemoryError(std::string("out of memory while ") + phase);
  }
}

}  // namespace edgetrain::backend
