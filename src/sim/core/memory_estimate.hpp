// Estimates the memory a scenario needs before anything is loaded or built, and refuses a
// scenario that needs more than the machine has available: a clear refusal up front instead of
// an out-of-memory abort halfway through setting up. No LibTorch or SimGrid here: the estimate
// works from the scenario, the dataset's headers and the model's configuration.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "learn/dataset.hpp"
#include "learn/model_shape.hpp"
#include "scenario/scenario.hpp"
#include "util/input_error.hpp"

namespace edgetrain::sim {

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

struct MemoryEstimate {
  double params = 0;
  double model_vectors = 0;     // model-sized fp32 vectors: every device's, the server's, LibTorch's
  double model_bytes = 0;       // params x model_vectors x 4
  double data_bytes = 0;        // features, labels and sample indices of both splits
  double activation_bytes = 0;  // the largest training batch, or an evaluation chunk
  double runtime_bytes = 0;     // the program and its libraries, measured
  double exchange_bytes = 0;    // gossip: one courier actor per direction of each edge, measured
  bool streams = false;         // stream buffers are not counted: they fill as the simulation goes
  double total() const { return model_bytes + data_bytes + activation_bytes + runtime_bytes + exchange_bytes; }
  // "about 41.2 GB (model 1e+09 parameters x 12 vectors: 40 GB; data 1.1 GB; ...)"
  std::string describe() const;
};

// `gossip_edges`: the edges of a gossip run's graph (gossip_edges in gossip.hpp), 0 otherwise.
MemoryEstimate estimate_memory(const scenario::Scenario& sc, const learn::DatasetShape& data,
                               const learn::ModelShape& model, double gossip_edges = 0);

// What this process can still allocate: MemAvailable from /proc/meminfo, lowered to what the
// memory cgroup (v2 memory.max or v1 memory.limit_in_bytes) leaves, if a limit applies. Empty
// when neither can be read (the check is then skipped).
std::optional<double> available_memory();

// Throws MemoryError when the estimate exceeds `available`.
void check_memory(const MemoryEstimate& estimate, std::optional<double> available);

// "1.5 GB", "640 MB": decimal units, three significant digits.
std::string format_bytes(double bytes);

}  // namespace edgetrain::sim
