// The typed, validated scenario: what a run simulates. Produced by load_scenario() from the
// user's JSON (plus --set overrides), with every default filled in and every unit resolved
// to SI (seconds, bytes, flops, bits per second). Nothing here knows SimGrid or LibTorch.
//
// The members hold no defaults: each is filled from its schema row (scenario/keys/), which
// declares the default once. A scalar's `{}` only keeps a struct built by hand from holding
// garbage; build one with typed_defaults() (load.hpp) to get the schema's defaults.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compress/config.hpp"
#include "fleet/draw.hpp"
#include "util/boxed.hpp"

namespace edgetrain::platform {
struct PlatformInfo;
}

namespace edgetrain::scenario {

struct PartitionSpec {
  std::string kind;             // iid | shards | dirichlet | natural
  int64_t labels_per_device{};  // shards: k distinct labels per device
  double alpha{};               // dirichlet concentration
  int64_t users_per_device{};   // natural: users of the data set per device
  bool shuffle_users{};         // natural: users dealt in a seeded order, not file order
  std::optional<int64_t> parts;  // the parts made, device d holding part d mod parts; empty: one per device
};

// npz: the names of the four arrays in the archive.
struct DatasetArrays {
  std::string x_train, y_train, x_test, y_test;
  std::string users;  // each training sample's user (natural partition)
};

struct DatasetSpec {
  // fashion-mnist | mnist | synthetic | npz | images | leaf | fedscale; empty: none (timing-only runs)
  std::string name;
  std::filesystem::path path;  // IDX, image, LEAF or FedScale folder (absolute after loading); empty otherwise
  std::filesystem::path file;  // npz: the archive
  DatasetArrays arrays;        // npz
  std::string channels_at;     // npz 4-D arrays: first | last; empty: undeclared
  std::string layout;          // images: "class" (train/<class>/) | "user/class" (train/<user>/<class>/)
  int64_t train_samples{};     // 0 = the whole training set (files); synthetic: how many
  // Synthetic (and leaf: empty = inferred): sample shape; synthetic, npz, leaf, fedscale: class count
  // (0 = the largest label + 1); synthetic: the spread of each class cluster.
  std::vector<int64_t> shape;
  int64_t classes{};
  double noise{};
  PartitionSpec partition;
};

struct ModelSpec {
  std::string name;                    // mlp | cnn | torchscript | a catalogue model (timing-only runs)
  std::filesystem::path file;          // torchscript: the archive (absolute after loading)
  std::vector<int64_t> hidden;         // hidden widths; empty = model default
  std::vector<int64_t> conv_channels;  // cnn only
  int64_t conv_kernel{};               // cnn only: square kernel side
  std::string conv_padding;            // cnn only: valid | same
  std::string cost_as;  // mlp, cnn: a catalogue model whose FLOPs and message sizes are charged; empty = none
};

// How fast data arrives at a device (samples per simulated second). Presets S1, S2, S10, S20
// are resolved by the loader into their distributions (the ScaDLES paper's rate sets). Filled as
// one value (keys/stream.cpp); its initialisers are those of a rate's object forms, not key
// defaults.
struct RateSpec {
  std::string dist = "constant";  // constant | uniform | normal | list
  double value = 0;               // constant
  double mean = 0, spread = 0;    // uniform on [mean - spread, mean + spread]; normal: mean
  double std = 0;                 // normal
  std::vector<double> values;     // list: device i gets values[i % size]
  std::string preset;             // "S10" etc. when the rate was given as a preset name, else empty
};

struct BufferSpec {
  std::string policy;          // persistence | truncation | drop-oldest | drop-newest
  int64_t capacity_samples{};  // drop-oldest / drop-newest: the bound (> 0); else 0
  double window_s{};           // truncation: keep the newest ceil(rate * window_s) samples
};

struct StreamSpec {
  RateSpec rate;
  std::string arrivals;         // fluid | poisson
  std::filesystem::path trace;  // CSV time_s,rate (absolute); empty = none. Overrides `rate`.
  BufferSpec buffer;
  int64_t sample_bytes{};  // 0 = the dataset's raw sample size
  std::string while_off;   // buffer | lose: what arrives while the device is off
};

struct InjectionSpec {
  double alpha{};  // fraction of devices that share each step
  double beta{};   // fraction of its batch a sharing device shares
};

// Client selection in synchronous rounds: every device, a seeded uniform sample each round (of
// every device, or of the available ones), or Oort's guided selection (sim/selection.hpp).
// A policy written in Python (docs/how-to/python-policies.md): "FILE.py:CLASS", the file made absolute, and the
// constructor's keyword arguments.
struct PythonClass {
  std::filesystem::path file;
  std::string name;
  nlohmann::json settings = nlohmann::json::object();
  bool given() const { return !name.empty(); }
};

struct SelectionSpec {
  std::string kind;         // all | random | available | oort | python
  PythonClass python;       // kind python
  int64_t per_round{};      // devices per round (0: from fraction; both 0: every available device)
  double fraction{};        // share of devices per round (0: per_round given)
  double over_selection{};  // selects ceil(K (1 + over_selection)), aggregates the first K
  // Oort: the share of picks that go to never-picked devices, the straggler penalty's exponent and
  // the preferred round duration (empty: the median of the last round's times).
  double exploration{};
  double alpha{};
  std::optional<double> preferred_round_s;
  // A round applies only when at least this many updates arrived (empty: whatever arrived); below it at
  // its timeout it waits on ("extend") or closes applying nothing ("skip").
  std::optional<int64_t> min_updates;
  std::string below_min;  // extend | skip
};

// The one rule of rounds against arrival: mode async, and local-sgd with aggregation async, apply
// each update on arrival; sync, scadles and local-sgd with aggregation sync run rounds. Every other
// place asks this (TrainingSpec::applies_on_arrival, and keys::applies_on_arrival on a resolved document).
inline bool applies_on_arrival(std::string_view mode, std::string_view aggregation) {
  return mode == "async" || (mode == "local-sgd" && aggregation == "async");
}

struct TrainingSpec {
  std::string compute;  // real (LibTorch steps on data) | timing-only (no tensors, no data)
  bool timing_only() const { return compute == "timing-only"; }
  // What a step costs in simulated time: empty = FLOPs / host speed; a device class of src/compute
  // (its roofline profile); "host" = each device host's `compute_profile` property names one.
  std::string compute_profile;
  std::filesystem::path compute_profile_file;  // or a profile file (calibrate-compute's); empty = none
  std::string mode;  // sync | scadles | async | local-sgd
  int64_t batch_size{};
  double lr{};
  double momentum{};
  double weight_decay{};
  // ScaDLES (mode scadles): b_i = clip(round(S_i * window_s), batch_min, batch_max).
  double window_s{};
  int64_t batch_min{}, batch_max{};
  int64_t base_global_batch{};  // 0 = batch_size x number of devices
  std::string weighting;        // batch (b_i / sum b) | uniform (1 / n)
  std::string lr_scaling;       // linear (lr * sum b / base_global_batch) | none
  std::optional<InjectionSpec> injection;
  // Asynchronous parameter server (mode async, local-sgd with aggregation async).
  std::string staleness_lr;  // none | inverse | adacomp
  std::optional<int64_t> max_staleness;
  std::string staleness_policy;  // drop | hold (SSP)
  int64_t buffer_size{};         // pushes per model version (FedBuff)
  int64_t staleness_history{};
  double start_jitter_s{};
  // Local SGD (FedAvg-style, mode local-sgd): local steps per push, how pushes are aggregated
  // (sync rounds or async on arrival), and the server's step size on the averaged model delta.
  int64_t local_steps{};
  std::string aggregation;  // sync | async
  bool applies_on_arrival() const { return scenario::applies_on_arrival(mode, aggregation); }
  double server_lr{};
  SelectionSpec selection;
  // Synchronous rounds under faults: aggregate what arrived by then (empty = wait for all).
  std::optional<double> round_timeout_s;
  std::string deadline;  // fixed (round_timeout_s) | fedbalancer (predicted from past round times) | python
  PythonClass deadline_policy;  // deadline python
};

struct EvalSpec {
  double every_s{};
  int64_t test_samples{};
};

struct StopSpec {
  std::optional<int64_t> rounds;
  std::optional<double> sim_time_s;
  std::optional<double> target_accuracy;
  std::optional<double> epsilon;  // privacy.dp: no round that would take epsilon above this
};

// One direction's compressor: its settings as the compressors read them (the kinds in
// src/compress/kinds.hpp).
using CompressorSpec = compress::Config;

// ScaDLES adaptive compression: send compressed when the smoothed norm gap <= delta.
struct AdaptiveSpec {
  double delta{};
  double smoothing{};  // EWMA weight of the past
};

struct CompressionSpec {
  CompressorSpec uplink;                   // device -> server (the `compression` keys themselves)
  std::optional<AdaptiveSpec> adaptive;    // topk uplink only
  std::optional<CompressorSpec> downlink;  // server -> device model deltas; empty = dense model
};

struct DeviceSpec {
  std::string name;  // unique device id (defaults to the host name)
  std::string host;  // platform host it runs on
  // The device's stream: the global `stream` section merged with the device's own `stream`
  // overrides. Empty when the scenario has no stream (static partitions, always available).
  util::Boxed<StreamSpec> stream;  // on the heap: a population's million devices have none
};

// A time interval [off_s, on_s) during which a device or link is off.
struct OffInterval {
  double off_s = 0, on_s = 0;
};

// Availability of devices: fixed off intervals, or failures drawn (seeded) with exponential
// times between failures (mean mtbf_s) and repair times (mean mttr_s).
struct DeviceFaultSpec {
  std::string device;  // a device name, or "*": every device not named in another entry
  std::vector<OffInterval> off;
  std::optional<double> mtbf_s, mttr_s;  // both set, or neither (then `off` is used)
};

// A link's bandwidth over time (CSV time_s,bandwidth_bps) and its outages.
struct LinkFaultSpec {
  std::string link;             // platform link name (SPLITDUPLEX: "<id>_UP" / "<id>_DOWN")
  std::filesystem::path trace;  // absolute; empty = constant bandwidth
  std::vector<OffInterval> off;
};

struct FaultsSpec {
  std::vector<DeviceFaultSpec> devices;
  std::vector<LinkFaultSpec> links;
  double retry_s{};  // a device waits this long after a failed transfer before trying again
};

// Device traces (traces.*, docs/how-to/device-traces.md): CSV files of when each device is on and
// of its compute and bandwidth, and how their rows meet the scenario's devices.
struct TracesSpec {
  std::filesystem::path availability;  // absolute; empty = none (rows device,start_s,end_s)
  std::filesystem::path capacity;      // absolute; empty = none (rows device,compute_ms_per_sample,bandwidth_kbps)
  std::string assign;                  // name | order | random | most-data-fastest | most-data-slowest
  std::string reference_model;         // the catalogue model the trace's ms per sample were measured on
};

// How the flow model times transfers (docs/explanation/fidelity.md).
struct NetworkSpec {
  std::string model = "tcp";          // "tcp": the slow-start TCP model (packet/tcp_model.hpp); "cm02": CM02 as it is
  std::filesystem::path calibration;  // `edgetrain calibrate`'s file (absolute); empty = the model uncalibrated
};

struct ReportSpec {
  double buffer_every_s{};  // buffers.csv: at most one row per device per this interval
};

// One platform what-if applied (summary.json's platform_overrides): the key, the value as the
// scenario gave it, and the platform's value before (as the file or the description wrote it).
struct PlatformOverride {
  std::string key;  // "platform.links.cloud-ingress.bandwidth"
  nlohmann::json value;
  nlohmann::json before;
};

// A what-if on one direction of a SPLITDUPLEX link ("<id>_UP"), which the platform's XML cannot
// express: applied through SimGrid once the platform is loaded. SI units.
struct LinkDirectionSetting {
  std::string link;
  std::optional<double> bandwidth_bps, latency_s;
};

// How devices reach the model (topology.*). Hierarchical: each site's aggregator host and its
// members (scenario device indices, in device order), sites ordered by host name.
struct SiteSpec {
  std::string host;
  std::vector<size_t> members;
};
// Client-level differential privacy (DP-FedAvg, docs/explanation/privacy.md): each update clipped to
// L2 norm `clip`, Gaussian noise of standard deviation noise_multiplier x clip on a round's sum, added
// where `placement` says and in the order with compression that `order` says.
struct DpSpec {
  std::string placement;  // central (the aggregator) | distributed (each device, a share) | local (each device, all)
  double clip{};
  double noise_multiplier{};
  double delta{};
  std::string order;     // clip_compress_noise | clip_noise_compress
  std::string sampling;  // what the accountant assumes of random selection: fixed_size | poisson
  bool noise_on_devices() const { return placement != "central"; }
  bool noise_before_compression() const { return order == "clip_noise_compress"; }
};

// Secure aggregation (docs/explanation/secure-aggregation.md): each round's updates quantised to
// Z_{2^field_bits}, masked and summed by the protocol of Bonawitz et al. (secagg) or Bell et al. (secagg+).
struct SecureAggregationSpec {
  std::string kind;                  // secagg | secagg+
  std::optional<int64_t> threshold;  // shares that recover a secret; empty: a majority (secagg+: of a neighbourhood)
  std::optional<int64_t> neighbours;  // secagg+: the masking graph's degree; empty: O(log n)
  int64_t field_bits{};
  std::optional<double> range;            // values clipped to [-range, range]; empty: privacy.dp.clip, else 1
  std::optional<double> phase_timeout_s;  // key and unmasking phases close then; empty: once every live client answered
  bool plus() const { return kind == "secagg+"; }
};

struct PrivacySpec {
  std::optional<DpSpec> dp;  // empty: no differential privacy
  std::optional<SecureAggregationSpec> secure_aggregation;  // empty: the aggregator sees every update
};

// The server's side of federated learning (`strategy`, docs/explanation/strategies.md): how a round's
// averaged model delta moves the model (FedAvg's step, FedAvgM's momentum, FedOpt's adaptive steps of
// Reddi et al. 2021) and what the devices add to their local steps (FedProx's proximal term).
struct StrategySpec {
  std::string kind;  // fedavg | fedavgm | fedadam | fedyogi | fedadagrad | fedprox | scaffold | feddyn | qfedavg | fedper | fedrep | fedbn | ditto | splitfed | python
  PythonClass python;  // kind python
  // The adaptive server optimisers of Reddi et al. (FedOpt).
  bool fedopt() const { return kind == "fedadam" || kind == "fedyogi" || kind == "fedadagrad"; }
  double server_lr{};        // fedadam, fedyogi, fedadagrad: eta (fedavg-like kinds use training.server_lr)
  double server_momentum{};  // fedavgm
  double beta1{}, beta2{}, tau{};  // the FedOpt kinds
  double mu{};                      // fedprox: the proximal term's weight
  double alpha{};                   // feddyn: the dynamic regulariser's weight
  double q{}, qffl_lr{};            // qfedavg: the fairness exponent q and the step 1/L of q-FFL
  // Personalisation: a part of the model (fedper, fedrep: the head; fedbn: the normalisation layers) or a
  // whole personal model (ditto) stays on each device.
  bool personalised() const { return kind == "fedper" || kind == "fedrep" || kind == "fedbn" || kind == "ditto"; }
  int64_t head_layers{};              // fedper, fedrep: the model's last modules that stay on each device
  std::optional<int64_t> head_steps;  // fedrep: the local steps that train the head alone (empty: half)
  double lambda{};                    // ditto: the personal model's pull towards the global one
  // Personalisation (and fedavg, when given): test samples per device for its personalised accuracy.
  std::optional<int64_t> personal_test_samples;
  // Each device's accuracy is measured (personalised kinds, and fedavg's baseline).
  bool evaluates_devices() const { return personal_test_samples.has_value(); }
  // Training passes a local step makes (ditto trains its personal model on the same batch: two).
  int64_t passes_per_step() const { return kind == "ditto" ? 2 : 1; }
  // Split learning (splitfed): the model's first modules, which run on each device; the server runs the rest.
  bool split() const { return kind == "splitfed"; }
  int64_t cut_layers{};
};

// A robust aggregation rule (`defence`) in place of the round's weighted mean.
struct DefenceSpec {
  std::string kind;                  // median | trimmed-mean | krum | multikrum | bulyan | norm-bound
  std::optional<int64_t> byzantine;  // f; empty: the attackers' share of each round's updates
  double trim{};                     // trimmed-mean: the share cut at each end
  std::optional<int64_t> multikrum_m;  // multikrum: updates averaged; empty: n - f
  double norm_bound{};               // norm-bound: each update's L2 norm at most this
};

// Attackers among the devices (`attack`): which, and what they do to their updates or their data.
struct AttackSpec {
  std::string kind;               // sign-flip | scale | noise | label-flip | backdoor
  std::optional<double> fraction;  // a seeded share of the devices ...
  std::string devices;            // ... or those whose names match this glob ...
  std::vector<std::string> named;  // ... or these (a host selector's devices: a class or a site of the fleet)
  double scale{};                 // sign-flip, scale: the factor
  double stddev{};                // noise: the Gaussian's standard deviation
  int64_t target_class{};         // backdoor: the label the trigger leads to
  double poison_fraction{};       // backdoor: the share of an attacker's samples stamped
};

struct TopologySpec {
  std::string kind;  // flat | hierarchical | gossip
  bool hierarchical() const { return kind == "hierarchical"; }
  bool gossip() const { return kind == "gossip"; }
  std::string graph;  // gossip: ring | torus | random-k | complete | platform-neighbours
  int64_t degree{};   // gossip random-k: links each device draws
  std::vector<SiteSpec> sites;
  int64_t site_rounds{};
  std::string cloud_aggregation;  // sync (cloud rounds) | async (each site's delta on arrival)
  bool cloud_async() const { return cloud_aggregation == "async"; }
  CompressorSpec site_compression;  // site -> cloud deltas; kind none = dense fp32
};

// population.hosts "slots" (docs/how-to/populations.md): a fleet description's devices kept as records,
// placed on host slots of their site when a round selects them. Made once by load_scenario and shared,
// never copied (fleet.spec points at spec).
struct Population {
  fleet::FleetSpec spec;
  fleet::Fleet fleet;
  std::vector<size_t> slots_per_site;  // per fleet.sites entry
  // The most devices with an update in progress at once: a round's picks, twice that when devices of
  // earlier rounds may still be at work (over-selection, round timeouts), at most the slots.
  size_t most_at_work = 0;
  size_t slots() const {
    size_t n = 0;
    for (size_t k : slots_per_site) n += k;
    return n;
  }
  Population() = default;
  Population(const Population&) = delete;
  Population& operator=(const Population&) = delete;
};

struct Scenario {
  std::string name;
  uint64_t seed{};
  std::filesystem::path file;      // the scenario file (absolute)
  std::filesystem::path platform;  // absolute: the XML file, or the fleet description
  // The platform text to simulate when the scenario changed it (what-ifs) or generated it (a
  // fleet description); empty: the file as it is.
  std::string platform_xml;
  bool platform_generated = false;  // `platform` is a fleet description: platform_xml was generated from it
  std::vector<PlatformOverride> platform_overrides;   // in the order applied
  std::vector<LinkDirectionSetting> link_directions;  // applied after loading
  // The platform as checked by load_scenario (set when it had to read it: what-ifs, a fleet, a
  // device selector), so the run does not check it again.
  std::shared_ptr<const platform::PlatformInfo> platform_info;
  std::string population_hosts;                   // population.hosts: per-device | slots
  std::shared_ptr<const Population> population;  // slots: the fleet's records (null: a host per device)
  std::optional<int64_t> slots_per_site;         // population.slots_per_site; empty: the most a round picks
  std::string server;
  std::vector<DeviceSpec> devices;
  DatasetSpec dataset;
  ModelSpec model;
  TrainingSpec training;
  EvalSpec eval;
  StopSpec stop;
  ReportSpec report;
  NetworkSpec network;
  CompressionSpec compression;
  TopologySpec topology;
  PrivacySpec privacy;
  std::optional<StrategySpec> strategy;  // empty: FedAvg at training.server_lr
  bool strategy_is(std::string_view kind) const { return strategy && strategy->kind == kind; }
  std::optional<DefenceSpec> defence;    // empty: the weighted mean
  std::optional<AttackSpec> attack;      // empty: every device honest
  std::optional<FaultsSpec> faults;  // empty: no churn, no link faults
  std::optional<TracesSpec> traces;  // empty: the platform's speeds and links, always on
  nlohmann::json resolved;           // the whole scenario with defaults filled in (written as scenario.json)
};

}  // namespace edgetrain::scenario
