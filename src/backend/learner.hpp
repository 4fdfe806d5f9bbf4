// The seam between the simulated protocol (sim/: SimGrid actors, no tensors) and the learning
// computation. The protocol moves opaque payloads and charges their sizes and FLOPs in simulated
// time; a back-end (backend.hpp) computes them: LibTorch (real training, torch_backend.hpp) or
// timing only (sizes and FLOPs, no tensors: timing_backend.hpp). Here: the payloads, and the
// learning side of one device; the aggregators' side is model_store.hpp. Nothing here sees SimGrid.
#pragma once

#include <cstdint>
#include <span>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "learn/layer_cost.hpp"

namespace edgetrain::backend {

// What the protocol charges for the model: its size and its training FLOPs. With model.cost_as
// these are the catalogued model's, whatever is trained.
struct ModelCost {
  std::string name;    // what is charged, e.g. "mlp" or "resnet152"
  int64_t params = 0;  // values in one dense update
  double step_flops_per_sample = 0;
  learn::LayerCosts compute_layers;  // what the compute model (training.compute_profile) charges
  int64_t dense_bytes() const { return 4 * params; }  // a dense fp32 payload
  // The values an update carries (personalisation, splitfed: the part that travels; 0: every parameter), and
  // what they weigh dense: what an update's compression is measured against.
  int64_t travelling_params = 0;
  int64_t dense_update_bytes() const { return 4 * (travelling_params > 0 ? travelling_params : params); }
};

// A model as a device receives it; the protocol reads only its size.
struct ModelPayload {
  std::shared_ptr<const std::vector<float>> params;  // the dense model (real training; null otherwise)
  std::optional<std::vector<uint8_t>> delta;         // or the encoded delta to the device's copy
  int64_t bytes = 0;                                 // wire size of the payload
  int64_t version = 0;  // updates the store had applied (the downlink's compression context)
  // SCAFFOLD (strategy.kind scaffold): the server's control variate c, sent dense beside the model.
  std::shared_ptr<const std::vector<float>> control;
};

// qfedavg: h_k, one double, beside each update.
inline constexpr int64_t kQfflBytes = 8;

// One device's update as it travels; the protocol reads only its size and its index sets' size.
struct UpdatePayload {
  std::vector<uint8_t> encoded;               // the real encoding (empty in timing-only mode)
  int64_t bytes = 0;                          // wire size of the payload
  bool compressed = true;                     // false: dense fp32 (ScaDLES's adaptive switch chose not to compress)
  std::vector<std::vector<int64_t>> indices;  // sparse schemes: the index sets sent (staleness rule)
  int64_t step = 0;                           // the device's encode counter (compression context)
  // SCAFFOLD: the change of the device's control variate, encoded like the update by an encoder of its own
  // (its bytes are in `bytes`: the upload doubles).
  std::vector<uint8_t> control;
  bool control_compressed = true;
  // Split learning (splitfed): the server's part of the delta, raw. The server computed it from the device's
  // activations, so it never crosses the network and `bytes` does not count it (empty otherwise).
  std::vector<float> server_part;
  // qfedavg: h_k, the device's share of the step's normaliser (8 bytes on the wire, counted in `bytes`).
  double qffl_h = 0;
};

// Personalisation: each device's personalised model on its own test samples, over the devices that trained.
struct PersonalAccuracy {
  double mean = 0, p10 = 0;
  int64_t devices = 0;
};

struct Evaluation {
  double accuracy = 0, loss = 0;
  std::optional<double> model_spread;  // an average of mixed models: their mean L2 distance to it
  std::optional<double> attack_success;  // attack backdoor: the stamped test samples classified as its target
  // Personalisation: the devices' personalised models (personal_models.hpp); empty before any device trained.
  std::optional<PersonalAccuracy> personal;
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
  // Secure aggregation: the last update as the aggregator would have decoded it (after compression and
  // the device's noise), which the protocol quantises and masks; empty for a learner that trains nothing.
  virtual std::span<const float> secure_input() const { return {}; }
};

}  // namespace edgetrain::backend
