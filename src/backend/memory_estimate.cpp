// See memory_estimate.hpp. The estimate counts what grows with the scenario: model-sized
// vectors, the dataset, one batch's activations; plus a measured constant for the program.
// Stream buffers are not counted: how full they get depends on the simulation itself.
#include "backend/memory_estimate.hpp"

#include <algorithm>
#include <cstdio>

#include "backend/mode.hpp"
#include "backend/secure_round.hpp"
#include "compress/kinds.hpp"
#include "scenario/population.hpp"
#include "util/memory.hpp"

namespace edgetrain::backend {
namespace {

constexpr double kFloat = 4, kIndex = 8;  // fp32 values; int64 labels and sample indices
// The program (LibTorch, SimGrid, Open MPI's and Python's libraries, its own code and heap), measured with
// getrusage on Debian 12's packages: the smallest scenario peaks at 231 MB, 10 MB of it estimated. Set so that
// the estimate is within 10% of the peaks of the smallest scenario, the quickstart and benchmark 3's CNN, in
// one process and on each MPI rank (tests/mpi/memory_test.py; docs/reference/limits.md).
constexpr double kRuntimeBytes = 215e6;
// The process of a timing-only run: LibTorch is never loaded there.
constexpr double kTimingRuntimeBytes = 45e6;
// Timing-only runs, a host per device: scenario::kHostDeviceBytes a device.
using scenario::kHostDeviceBytes;
// A population on host slots (population.hosts "slots"): per device scenario::kPopulationDeviceBytes; per
// slot its host, links, courier and lane, and the actor of a device placed there. Fitted on tools/bench's
// population benchmark (100,000 to 10,000,000 devices, 3,900 slots, 1 to 100 rounds): within 8% of the
// peak (mimalloc as the allocator).
using scenario::kPopulationDeviceBytes;
constexpr double kSlotBytes = 33e3;
// Values LibTorch keeps per activation value of a training step: the forward outputs the
// backward pass needs, their gradients, and temporaries.
constexpr double kTrainingActivationCopies = 3;
constexpr int64_t kEvalChunk = 1000;  // Model::evaluate's chunk of test samples

// What the federated algorithms keep at the server: FedAvgM's momentum, FedOpt's two moments (in
// double: four vectors), SCAFFOLD's c, its snapshot and the round's sum of changes (in double), and a
// defence's or a Python strategy's copy of each update of the round (the Python strategy's own state is its
// own: not counted).
double strategy_vectors(const scenario::Scenario& sc) {
  double v = 0;
  if (const auto& s = sc.strategy) {
    if (s->kind == "fedavgm") v += 1;
    if (s->fedopt()) v += 4;
    if (s->kind == "scaffold") v += 4;
    if (s->kind == "feddyn") v += 2;  // its drift, in double
  }
  if (sc.defence || sc.strategy_is("python"))
    v += static_cast<double>(scenario::most_picked(sc.training.selection, sc.devices.size()));
  return v;
}

// The server's model-sized vectors: the global model, LibTorch's parameters and gradients
// (the scratch network of evaluation), the decoded update, the momentum buffer, the sync
// average and the snapshot sent to devices, one downlink replica per device, adacomp's
// history of index sets; and the strategy's state (strategy_vectors).
double server_vectors(const scenario::Scenario& sc) {
  const auto& t = sc.training;
  const double devices = static_cast<double>(sc.devices.size());
  const bool on_arrival = backend::Mode(t, sc.devices.size()).applies_on_arrival();
  double v = 1 + 2 + 1;
  if (t.momentum != 0) v += 1;
  if (!on_arrival) v += 2;
  if (sc.compression.downlink) v += devices;
  if (on_arrival && t.staleness_lr == "adacomp" &&
      compress::kind_named(sc.compression.uplink.kind).indices_sized_by_ratio()) {
    v += static_cast<double>(t.staleness_history) * sc.compression.uplink.ratio * kIndex / kFloat;
  }
  return v + strategy_vectors(sc);
}

int64_t largest_batch(const scenario::Scenario& sc) {
  return backend::Mode(sc.training, sc.devices.size()).batch_from_stream_rate()
             ? std::max(sc.training.batch_size, sc.training.batch_max)
             : sc.training.batch_size;
}

// What a device's learner keeps between its updates: error feedback memory or its compressor's own
// state, and its model copy under downlink compression; SCAFFOLD's c_i and its own encoder's state;
// personalisation's own model.
int64_t kept_vectors(const scenario::Scenario& sc) {
  const auto& up = sc.compression.uplink;
  // The schema refuses error feedback beside a kind's own state (adacomp-bins' residual).
  const int64_t encoder = (up.error_feedback ? 1 : 0) + compress::kind_named(up.kind).state_vectors;
  int64_t vectors = encoder;
  if (sc.compression.downlink) vectors += 1;
  if (sc.strategy_is("scaffold")) vectors += 1 + encoder;
  if (sc.strategy_is("feddyn")) vectors += 1;  // its gradient state
  if (sc.strategy && sc.strategy->personalised()) vectors += 1;  // its own model (fedper's: a whole copy, its head read)
  return vectors;
}

// The model-sized vectors of every device: a population's devices hold their update's working memory
// only while at work, and their kept state once they have taken part: at most every device, or with
// stop.rounds as many as the rounds can pick.
double devices_vectors(const scenario::Scenario& sc) {
  const auto devices = static_cast<double>(sc.devices.size());
  if (!sc.population) return static_cast<double>(model_memory_vectors(sc)) * devices;
  const auto kept = static_cast<double>(kept_vectors(sc));
  double took_part = devices;
  if (sc.stop.rounds) {
    const auto picks = static_cast<double>(scenario::most_picked(sc.training.selection, sc.devices.size()));
    took_part = std::min(devices, static_cast<double>(*sc.stop.rounds) * picks);
  }
  return (static_cast<double>(model_memory_vectors(sc)) - kept) * static_cast<double>(sc.population->most_at_work) +
         kept * took_part;
}

// A population's records and host slots (whatever the compute).
double population_bytes(const scenario::Population& population) {
  return static_cast<double>(population.slots()) * kSlotBytes +
         static_cast<double>(population.fleet.devices.size()) * kPopulationDeviceBytes;
}

}  // namespace

int64_t model_memory_vectors(const scenario::Scenario& sc) {
  int64_t vectors = 1;
  if (backend::Mode(sc.training, sc.devices.size()).local_sgd()) vectors += 1;
  return vectors + kept_vectors(sc);
}

namespace {

// Secure aggregation's state grows with the pairs of a round's participants that share secrets: every
// pair under SecAgg (n^2), a neighbourhood under SecAgg+ (n k). Fitted on secagg-phones.json, timing-only,
// one round: 2,000 and 5,000 phones peak 23 MB and 182 MB above the rest of the estimate.
constexpr double kSecurePairBytes = 7.5;

double secure_state_bytes(const scenario::Scenario& sc, double params) {
  if (!sc.privacy.secure_aggregation) return 0;
  const size_t n = scenario::planned_round_size(sc.training.selection, sc.devices.size());
  if (n < 2) return 0;  // refused by the set-up with its own message
  const SecureSettings s = secure_settings(sc, n, std::max<int64_t>(1, static_cast<int64_t>(params)));  // the state does not depend on it
  const double peers = s.config.neighbours > 0 ? s.config.neighbours : static_cast<double>(n - 1);
  return kSecurePairBytes * static_cast<double>(n) * peers;
}

}  // namespace

namespace {

// The devices worker rank `rank` of `workers` owns (LearnerPlacement::owner).
int64_t devices_on_rank(size_t devices, int workers, int rank) {
  int64_t mine = 0;
  for (size_t d = 0; d < devices; ++d) mine += LearnerPlacement::owner(d, workers) == rank ? 1 : 0;
  return mine;
}

// Under MPI, the model-sized vectors of this rank in place of the devices' and the server's of one process:
// rank 0 the server's and its mirrors of the workers' snapshots; a worker its devices', its snapshots, the
// initial model and a workspace's parameters and gradients.
double placed_vectors(const scenario::Scenario& sc, const LearnerPlacement& p, double topology_vectors,
                      std::string& where) {
  if (p.rank == 0) {
    where = "MPI rank 0";
    return server_vectors(sc) + topology_vectors + static_cast<double>(p.snapshots) * p.workers;
  }
  const int64_t mine = devices_on_rank(sc.devices.size(), p.workers, p.rank);
  where = "MPI worker rank " + std::to_string(p.rank) + ", " + std::to_string(mine) + " devices";
  return static_cast<double>(model_memory_vectors(sc) * mine) + p.snapshots + 3;
}

}  // namespace

MemoryEstimate estimate_memory(const scenario::Scenario& sc, const learn::DatasetShape& data,
                               const learn::ModelShape& model, const TopologyMemory& topology,
                               const LearnerPlacement& placement, bool devices_as_activities, size_t threads) {
  MemoryEstimate e;
  e.secure_bytes = secure_state_bytes(sc, model.params);
  e.topology_bytes = topology.other_bytes;
  e.topology_what = topology.other_what;
  e.params = model.params;
  e.model_vectors = devices_vectors(sc) + server_vectors(sc) + topology.model_vectors;
  e.model_bytes = e.params * e.model_vectors * kFloat;
  const double train = static_cast<double>(data.train_samples), test = static_cast<double>(data.test_samples);
  const double features = static_cast<double>(data.sample_floats());
  // Values and labels (fp32 features, or one-byte codes for uint8 images); the partition's indices and each
  // device's sample order (about 3 per sample). Apart: what reading holds besides (the loader's read_bytes: a
  // gzipped IDX file's compressed bytes, npz arrays, synthetic data's class centres).
  const double value_bytes = static_cast<double>(data.value_bytes);
  e.data_bytes = (train + test) * (features * value_bytes + kIndex) + 3 * train * kIndex;
  if (sc.training.timing_only()) {
    // Nothing is loaded: the balanced labels the partition is made from, the partition and each
    // device's sample order; per device its records, stream and the stacks of its two actors (as
    // activities: its records, host and links only).
    // (Counted as a data set of at least a sample per device: learning_setup.cpp's partition_counts.)
    const auto devices = static_cast<double>(sc.devices.size());
    e.data_bytes = 3 * std::max(train, devices) * kIndex;
    const double per_device = devices_as_activities ? scenario::kActivityDeviceBytes : kHostDeviceBytes;
    e.device_bytes = sc.population ? population_bytes(*sc.population) : devices * per_device;
    e.model_vectors = 0;
    e.model_bytes = 0;
    e.runtime_bytes = kTimingRuntimeBytes;
    if (!sc.population)
      e.way_out = "population.hosts \"slots\" keeps the devices as records of about " +
                  util::format_bytes(scenario::kPopulationDeviceBytes) +
                  " each, with hosts only for a round's devices (docs/how-to/populations.md)";
    return e;
  }
  e.read_bytes = data.read_bytes;
  if (placement.workers > 0) e.model_vectors = placed_vectors(sc, placement, topology.model_vectors, e.where);
  // Each worker thread beyond the first that trains holds a network of its own (LibTorch's gradients and the
  // step's output) and its step's activations; rank 0 under MPI trains nothing.
  const bool trains = placement.workers == 0 || placement.rank > 0;
  const double more_threads = trains && threads > 1 ? static_cast<double>(threads - 1) : 0;
  e.model_vectors += 2 * more_threads;
  e.model_bytes = e.params * e.model_vectors * kFloat;
  const double activations = model.activation_floats_per_sample * kFloat;
  const double batch = static_cast<double>(largest_batch(sc));
  const double eval = static_cast<double>(std::min({sc.eval.test_samples, data.test_samples, kEvalChunk}));
  // An MPI worker rank trains and never evaluates.
  const double training = batch * activations * kTrainingActivationCopies;
  e.activation_bytes =
      (placement.rank > 0 ? training : std::max(training, eval * activations * 2)) + training * more_threads;
  e.runtime_bytes = kRuntimeBytes;
  if (sc.population) e.device_bytes = population_bytes(*sc.population);
  e.streams = std::any_of(sc.devices.begin(), sc.devices.end(), [](const auto& d) { return d.stream.has_value(); });
  e.way_out = "training.compute \"timing-only\" charges the same times and bytes without tensors "
              "(docs/how-to/timing-only.md), or MPI worker ranks on more nodes hold the devices' training "
              "(docs/how-to/mpi.md)";
  return e;
}

std::string MemoryEstimate::describe() const {
  char vectors[32], count[32];
  std::snprintf(vectors, sizeof vectors, "%.4g", model_vectors);
  std::snprintf(count, sizeof count, "%.4g", params);
  return "about " + util::format_bytes(total()) + " (model " + count + " parameters x " + vectors +
         " vectors: " + util::format_bytes(model_bytes) + "; data " + util::format_bytes(data_bytes) +
         (read_bytes > 0 ? " (" + util::format_bytes(read_bytes) + " more while it is read, before the rest)" : "") +
         (device_bytes > 0 ? "; devices " + util::format_bytes(device_bytes) : "") + "; activations " +
         util::format_bytes(activation_bytes) + "; program " + util::format_bytes(runtime_bytes) +
         (topology_bytes > 0 ? "; " + topology_what + " " + util::format_bytes(topology_bytes) : "") +
         (secure_bytes > 0 ? "; secure aggregation " + util::format_bytes(secure_bytes) : "") +
         (streams ? "; stream buffers not counted" : "") + ")";
}

void check_memory(const MemoryEstimate& estimate, std::optional<double> available) {
  if (!available || estimate.total() <= *available) return;
  if (!estimate.where.empty()) {  // under MPI: more worker ranks (on more nodes) hold fewer devices each
    throw MemoryError("scenario needs " + estimate.describe() + " on " + estimate.where + " but " +
                      util::format_bytes(*available) + " are available; more worker ranks (mpirun -np, on more " +
                      "nodes) hold fewer devices each");
  }
  throw MemoryError("scenario needs " + estimate.describe() + " but " + util::format_bytes(*available) +
                    " are available" + (estimate.way_out.empty() ? "" : "; " + estimate.way_out));
}

}  // namespace edgetrain::backend
