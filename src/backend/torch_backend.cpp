// See torch_backend.hpp.
#include "backend/torch_backend.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "backend/downlink.hpp"
#include "backend/mode.hpp"
#include "backend/personal_models.hpp"
#include "backend/split_parts.hpp"
#include "backend/staleness.hpp"
#include "backend/travelling_part.hpp"
#include "backend/update_privacy.hpp"
#include "backend/uplink.hpp"
#include "learn/sgd.hpp"
#include "scenario/population.hpp"
#include "strategy/attack.hpp"
#include "strategy/defence.hpp"
#include "strategy/server_optimizer.hpp"
#include "util/seed.hpp"

namespace edgetrain::backend {

struct TorchBackend::Shared {
  const scenario::Scenario& scenario;
  const learn::Model& model;
  const learn::DatasetPair& data;
  Mode mode;  // read once from the scenario
  std::vector<compress::Layer> layers;
  WorkerPool pool;
  // A dense model as sent: what travels of it (personalisation and splitfed send a part; SCAFFOLD's c, never
  // with them, is the whole model's size).
  int64_t charged_dense_bytes = 0;
  std::optional<DeltaLink> deltas;
  // model.cost_as: the catalogued model's sizes, charged in place of the real ones.
  std::optional<ChargedSizes> uplink_charge, downlink_charge, delta_charge;
  std::vector<float> initial;  // the seeded initial model
  // attack: per device, whether it attacks; the attackers' training set (label-flip, backdoor); a
  // backdoor's stamped test set (its accuracy is the attack success rate).
  std::vector<bool> attackers;
  double attacker_share = 0;
  std::optional<learn::Dataset> poisoned_train, backdoor_test;
  // Personalisation: the part of the model that travels (fedper, fedrep, fedbn: the rest stays on each
  // device) and the devices' personal models.
  std::optional<TravellingPart> travelling = std::nullopt;
  std::optional<PersonalModels> personal = std::nullopt;
  // One workspace and one gradient buffer per worker, made by that worker on first use: they are
  // only ever used by the thread of their index, and a step's gradient lives only while its job runs.
  std::vector<std::unique_ptr<learn::Workspace>> workspaces =
      std::vector<std::unique_ptr<learn::Workspace>>(pool.threads());
  std::vector<std::vector<float>> gradients = std::vector<std::vector<float>>(pool.threads());
  std::optional<SplitParts> split = std::nullopt;  // splitfed: the devices' part and the server's
  std::shared_ptr<policy::StrategyPolicy> python = nullptr;  // strategy.kind python: aggregate_fit in place of the mean

  learn::Workspace& workspace(size_t worker) {
    auto& w = workspaces.at(worker);
    if (!w) w = std::make_unique<learn::Workspace>(model, &data.train);
    return *w;
  }
  std::vector<float>& gradient(size_t worker) {
    auto& g = gradients.at(worker);
    if (g.empty()) g.resize(static_cast<size_t>(model.num_params()));
    return g;
  }
  // The layout updates travel in: the travelling part's, or the model's.
  const std::vector<compress::Layer>& uplink_layers() const { return travelling ? travelling->layout() : layers; }
  uint64_t uplink_seed(size_t device) const { return util::derive_seed(scenario.seed, "uplink", device); }
  uint64_t downlink_seed(size_t device) const { return util::derive_seed(scenario.seed, "downlink", device); }
  uint64_t privacy_seed(size_t device) const { return util::derive_seed(scenario.seed, "dp-noise", device); }
  uint64_t control_seed(size_t device) const { return util::derive_seed(scenario.seed, "scaffold-uplink", device); }
  uint64_t attack_seed(size_t device) const { return util::derive_seed(scenario.seed, "attack", device); }
  uint64_t delta_seed(size_t index) const { return util::derive_seed(scenario.seed, deltas->seed_name, index); }
  // The delta link's compressor, as an uplink without adaptive switching.
  scenario::CompressionSpec delta_compression() const {
    scenario::CompressionSpec spec;
    spec.uplink = deltas->compressor;
    return spec;
  }
};

namespace {

// An encoded update as it travels, its wire size charged as the catalogued model's with model.cost_as;
// `step` is its encoder's counter (the decoder's context).
UpdatePayload travelling(EncodedUpdate encoded, const std::optional<ChargedSizes>& charge, int64_t step) {
  UpdatePayload out;
  out.bytes = static_cast<int64_t>(encoded.payload.size());
  if (charge) out.bytes = charge->charge(out.bytes, !encoded.compressed);
  out.encoded = std::move(encoded.payload);
  out.compressed = encoded.compressed;
  out.indices = std::move(encoded.indices);
  out.step = step;
  return out;
}

bool all_finite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

class TorchDevice : public DeviceLearner {
 public:
  TorchDevice(TorchBackend::Shared& shared, size_t index)
      : shared_(shared),
        index_(index),
        training_(shared.scenario.training),
        local_sgd_(shared.mode.local_sgd()),
        steps_per_update_(shared.mode.steps_per_update()),
        encoder_(shared.scenario.compression, shared.uplink_layers(), shared.uplink_seed(index)),
        attack_(shared.attackers.empty() || !shared.attackers[index] ? nullptr : &*shared.scenario.attack),
        train_(attack_ && shared.poisoned_train ? *shared.poisoned_train : shared.data.train) {
    if (shared.scenario.strategy_is("fedprox")) proximal_mu_ = static_cast<float>(shared.scenario.strategy->mu);
    if (shared.scenario.strategy_is("feddyn")) dyn_alpha_ = static_cast<float>(shared.scenario.strategy->alpha);
    if (shared.scenario.strategy_is("qfedavg")) qffl_ = true;
    if (shared.travelling) part_ = &*shared.travelling;
    if (shared.scenario.strategy && shared.scenario.strategy->personalised()) {
      personalised_ = true;
      if (shared.scenario.strategy_is("fedrep"))
        head_steps_ = shared.scenario.strategy->head_steps.value_or(std::max<int64_t>(1, steps_per_update_ / 2));
      if (shared.scenario.strategy_is("ditto")) ditto_lambda_ = static_cast<float>(shared.scenario.strategy->lambda);
    }
    if (shared.scenario.strategy_is("scaffold")) control_encoder_.emplace(shared.scenario.compression, shared.layers, shared.control_seed(index));
    if (const auto& down = shared.scenario.compression.downlink) {
      replica_.emplace(*down, shared.layers, shared.downlink_seed(index));
    }
    if (const auto& dp = shared.scenario.privacy.dp) {
      privacy_.emplace(*dp, scenario::device_noise_stddev(shared.scenario), shared.privacy_seed(index));
    }
    // Noise after compression, and secure aggregation, need what the aggregator would decode.
    secure_ = shared.scenario.privacy.secure_aggregation.has_value();
    if ((privacy_ && privacy_->noises_decoded()) || secure_) own_decoder_.emplace(shared.scenario.compression, shared.uplink_layers());
  }

  void receive(const ModelPayload& model) override {
    if (replica_) {
      if (model.delta) {
        replica_->apply_delta(*model.delta, model.version);
      } else {
        replica_->set(*model.params);
      }
      base_ = nullptr;
    } else {
      base_ = model.params;
    }
    server_control_ = model.control;
    if (shared_.personal) mine_ = shared_.personal->values(index_);
    steps_ = 0;
  }

  // The update's last step also encodes it, on the worker: the gradient (and the local model)
  // live only while the job runs, and what waits for the simulated compute to end is the
  // encoded payload alone. A step that a fault cuts still runs to its end, so the device's
  // compression memory then holds it, as it holds an update lost on the wire.
  void start_step(std::vector<int64_t> batch) override {
    const int64_t step = steps_;
    const bool first = steps_ == 0, last = ++steps_ == steps_per_update_;
    // The job owns its batch and writes only this learner's state; nobody reads it until
    // finish_step has waited for it.
    ticket_ = shared_.pool.submit([this, step, first, last, batch = std::move(batch)](size_t worker) {
      std::vector<float>& gradient = shared_.gradient(worker);
      if (local_sgd_ && first) start_local();
      const std::vector<float>& from = local_sgd_ ? local_ : base();
      loss_ = shared_.workspace(worker).gradient(from, train_, batch, gradient);
      if (first) first_loss_ = loss_;  // at the received model
      if (proximal_mu_ > 0 && !first) add_proximal(gradient);
      if (dyn_alpha_ > 0) add_dynamic(gradient);
      if (control_encoder_) correct_drift(gradient);
      if (head_steps_ > 0) freeze_for(step, gradient);
      if (local_sgd_) local_optimizer_.step(local_, gradient, training_.lr);
      if (shared_.personal) {
        for (int64_t i : batch) labels_.push_back(train_.labels[static_cast<size_t>(i)]);
        if (ditto_lambda_ >= 0) ditto_step(shared_.workspace(worker), batch, gradient);
      }
      if (last) encode(gradient);
    });
  }

  double finish_step() override {
    shared_.pool.wait(ticket_);
    return loss_;
  }

  UpdatePayload finish_update() override {
    shared_.pool.wait(ticket_);
    UpdatePayload out = std::move(pending_);
    pending_ = UpdatePayload{};
    if (shared_.personal) {  // what the update trained of the device's own model, evaluated from now on
      shared_.personal->publish(index_, std::move(personal_done_), labels_);
      personal_done_ = nullptr;
    }
    labels_.clear();
    mine_ = nullptr;
    if (out.compressed && encoder_.adaptive()) ++compressed_updates_;
    base_ = nullptr;  // the snapshot may go once no device trains on it
    steps_ = 0;
    return out;
  }

  void abandon() override {
    try {
      shared_.pool.wait(ticket_);
    } catch (...) {
      // The step's own failure does not matter any more: its update is dropped.
    }
    std::vector<float>().swap(local_);
    std::vector<float>().swap(ditto_);
    pending_ = UpdatePayload{};
    personal_done_ = nullptr;
    labels_.clear();
    mine_ = nullptr;
    base_ = nullptr;
    steps_ = 0;
  }

  int64_t compressed_updates() const override { return encoder_.adaptive() ? compressed_updates_ : -1; }
  std::span<const float> secure_input() const override { return secure_input_; }

 private:
  const std::vector<float>& base() const { return replica_ ? replica_->params() : *base_; }
  // The local model starts from the received one; personalisation's staying tensors from the device's own.
  void start_local() {
    local_ = base();
    if (part_ && mine_) part_->copy_staying(*mine_, local_);
    if (ditto_lambda_ >= 0) ditto_ = mine_ ? *mine_ : base();
  }
  // FedRep: the head's steps move the head alone, the body's the body alone.
  void freeze_for(int64_t step, std::vector<float>& gradient) const {
    if (step < head_steps_) {
      part_->zero_travelling(gradient);
    } else {
      part_->zero_staying(gradient);
    }
  }
  // Ditto: the personal model v takes a step on the same batch, on F(v) + lambda/2 |v - w_received|^2
  // (the global model's gradient, already applied, makes way for v's).
  void ditto_step(learn::Workspace& workspace, const std::vector<int64_t>& batch, std::vector<float>& gradient) {
    workspace.gradient(ditto_, train_, batch, gradient);
    const std::vector<float>& received = base();
    for (size_t k = 0; k < gradient.size(); ++k) gradient[k] += ditto_lambda_ * (ditto_[k] - received[k]);
    personal_optimizer_.step(ditto_, gradient, training_.lr);
  }
  // SCAFFOLD: the local step follows g - c_i + c (Karimireddy et al. 2020, Algorithm 1).
  void correct_drift(std::vector<float>& gradient) const {
    const std::vector<float>& c = *server_control_;
    if (own_control_.empty()) {  // c_i is 0 until the device's first round ends
      for (size_t k = 0; k < gradient.size(); ++k) gradient[k] += c[k];
      return;
    }
    for (size_t k = 0; k < gradient.size(); ++k) gradient[k] += c[k] - own_control_[k];
  }
  // SCAFFOLD's option II, from the round's delta x - y_i (`update`): c_i+ = c_i - c + (x - y_i) / (K lr). The
  // change c_i+ - c_i, encoded for the uplink; c_i becomes c_i+.
  EncodedUpdate control_change(const std::vector<float>& update) {
    const std::vector<float>& c = *server_control_;
    if (own_control_.empty()) own_control_.assign(update.size(), 0.0f);
    const auto per_step = static_cast<float>(1.0 / (static_cast<double>(steps_per_update_) * training_.lr));
    std::vector<float> change(update.size());
    for (size_t k = 0; k < change.size(); ++k) {
      change[k] = update[k] * per_step - c[k];
      own_control_[k] += change[k];
    }
    return control_encoder_->encode(change, encoded_);
  }
  // FedDyn (Acar et al., ICLR 2021, Algorithm 1): the local loss L(w) - <g_i, w> + alpha/2 |w - w_received|^2,
  // g_i the device's gradient state (0 until its first update ends).
  void add_dynamic(std::vector<float>& gradient) const {
    const std::vector<float>& received = base();
    for (size_t k = 0; k < gradient.size(); ++k) gradient[k] += dyn_alpha_ * (local_[k] - received[k]);
    if (!dyn_state_.empty())
      for (size_t k = 0; k < gradient.size(); ++k) gradient[k] -= dyn_state_[k];
  }
  // g_i <- g_i - alpha (w_trained - w_received) = g_i + alpha `delta` (received - trained, before anything else
  // is done to it).
  void move_dynamic(const std::vector<float>& delta) {
    if (dyn_state_.empty()) dyn_state_.assign(delta.size(), 0.0f);
    for (size_t k = 0; k < delta.size(); ++k) dyn_state_[k] += dyn_alpha_ * delta[k];
  }
  // q-FFL (Li et al., ICLR 2020, Algorithm 2), with F the loss at the received model (the first step's batch)
  // and L = 1 / qffl_lr: the update becomes F^q L delta, and h = q F^(q-1) |L delta|^2 + L F^q is returned.
  double weigh_fairly(std::vector<float>& update) const {
    const auto& s = *shared_.scenario.strategy;
    const double f = std::max(first_loss_, 1e-10), lipschitz = 1.0 / s.qffl_lr;
    double squares = 0;
    for (float v : update) squares += (lipschitz * v) * (lipschitz * v);
    const double fq = std::pow(f, s.q);
    for (float& v : update) v = static_cast<float>(fq * lipschitz * v);
    return s.q * std::pow(f, s.q - 1) * squares + lipschitz * fq;
  }
  // Personalisation: the device's own model as this update leaves it (published by finish_update).
  void keep_personal() {
    if (part_) {
      personal_done_ = std::make_shared<const std::vector<float>>(local_);  // its staying tensors are read
    } else {
      personal_done_ = std::make_shared<const std::vector<float>>(std::move(ditto_));
      ditto_ = {};
    }
  }
  // The travelling part of a full-size update, in the device's own buffer.
  std::vector<float>& gathered(const std::vector<float>& update) {
    part_update_.resize(static_cast<size_t>(part_->size()));
    part_->gather(update, part_update_);
    return part_update_;
  }
  // FedProx: the gradient of mu/2 |local - received|^2 (zero at a round's first step).
  void add_proximal(std::vector<float>& gradient) const {
    const std::vector<float>& received = base();
    for (size_t k = 0; k < gradient.size(); ++k) gradient[k] += proximal_mu_ * (local_[k] - received[k]);
  }
  // On the worker, after the last step: the update (the gradient in `update`, or local-sgd's
  // delta, written there) encoded into pending_; the local model freed.
  void encode(std::vector<float>& update) {
    if (local_sgd_) {
      // The delta pulled - local: applied by the server like a gradient (FedAvg at server_lr 1).
      const std::vector<float>& pulled = base();
      for (size_t k = 0; k < local_.size(); ++k) update[k] = pulled[k] - local_[k];
    }
    if (personalised_) keep_personal();
    if (dyn_alpha_ > 0) move_dynamic(update);
    const double qffl_h = qffl_ ? weigh_fairly(update) : 0.0;
    std::vector<float>& sent = part_ ? gathered(update) : update;
    std::optional<EncodedUpdate> control;
    if (control_encoder_) control = control_change(update);
    // An attacker changes its update before anything else a device does to it.
    if (attack_ && strategy::attacks_updates(*attack_))
      strategy::attack_update(*attack_, util::mix64(shared_.attack_seed(index_) + static_cast<uint64_t>(encoded_)), sent);
    if (privacy_) privacy_->before_encoding(sent, encoded_);
    EncodedUpdate encoded = encoder_.encode(sent, encoded_);
    if (own_decoder_) {
      own_decoder_->decode_into(encoded.payload, encoded.compressed, shared_.uplink_seed(index_), encoded_, sent);
      if (privacy_ && privacy_->noises_decoded()) {
        // Noise after compression: what the server would decode, noised here, goes dense.
        privacy_->noise_decoded(sent, encoded_);
        encoded = encoder_.encode_dense(sent, encoded_);
      }
      if (secure_) secure_input_ = sent;  // masked and summed by the protocol instead of sent
    }
    pending_ = travelling(std::move(encoded), shared_.uplink_charge, encoded_);
    if (shared_.split) pending_.server_part = shared_.split->server_values(update);
    if (qffl_) {
      pending_.qffl_h = qffl_h;
      pending_.bytes += kQfflBytes;
    }
    if (control) {
      const UpdatePayload c = travelling(std::move(*control), shared_.uplink_charge, encoded_);
      pending_.bytes += c.bytes;
      pending_.control = std::move(c.encoded);
      pending_.control_compressed = c.compressed;
    }
    ++encoded_;
    std::vector<float>().swap(local_);
  }

  TorchBackend::Shared& shared_;
  size_t index_;
  const scenario::TrainingSpec& training_;
  bool local_sgd_;
  int64_t steps_per_update_;
  UplinkEncoder encoder_;
  std::optional<DownlinkReplica> replica_;  // the device's own copy under downlink compression
  std::optional<DevicePrivacy> privacy_;     // privacy.dp: clipping and the device's noise
  std::optional<UplinkDecoder> own_decoder_;  // noise after compression, secure aggregation: its encodings decoded
  const scenario::AttackSpec* attack_;          // this device's attack; null: honest
  const learn::Dataset& train_;                 // what it learns from (an attacker's may be poisoned)
  float proximal_mu_ = 0;                       // strategy fedprox: mu
  float dyn_alpha_ = 0;                         // strategy feddyn: alpha
  bool qffl_ = false;                           // strategy qfedavg
  double first_loss_ = 0;                       // the update's first step's loss (qfedavg's F)
  std::vector<float> dyn_state_;                // feddyn: the device's gradient state g_i (empty: 0)
  std::optional<UplinkEncoder> control_encoder_;  // SCAFFOLD: the control variate's change, compressed like updates
  std::shared_ptr<const std::vector<float>> server_control_;  // SCAFFOLD: c, as received
  std::vector<float> own_control_;                             // SCAFFOLD: c_i (empty: zero, never sent)
  bool personalised_ = false;                 // a personalised strategy: the device keeps a model of its own
  const TravellingPart* part_ = nullptr;      // fedper, fedrep, fedbn: what travels (the rest is the device's own)
  int64_t head_steps_ = 0;                      // fedrep: the first steps of an update, which train the head alone
  float ditto_lambda_ = -1;                     // ditto: lambda (negative: not ditto)
  std::shared_ptr<const std::vector<float>> mine_;           // personalisation: the device's own model, as published
  std::shared_ptr<const std::vector<float>> personal_done_;  // ... and as this update leaves it
  std::vector<float> ditto_;                                 // ditto: the personal model, while an update trains it
  std::vector<float> part_update_;                           // the travelling part of the update
  std::vector<int64_t> labels_;                              // personalisation: the labels this update trained on
  learn::Sgd personal_optimizer_{0.0, training_.weight_decay};
  bool secure_ = false;                       // privacy.secure_aggregation
  std::vector<float> secure_input_;           // secure aggregation: the last update, decoded
  int64_t encoded_ = 0;                     // updates encoded (the uplink's context)
  std::shared_ptr<const std::vector<float>> base_;
  std::vector<float> local_;  // local-sgd: the local model, only while an update is in progress
  learn::Sgd local_optimizer_{0.0, training_.weight_decay};
  int64_t steps_ = 0;  // of the update in progress
  double loss_ = 0;
  UpdatePayload pending_;  // the encoded update, from its last step to finish_update
  int64_t compressed_updates_ = 0;
  WorkerPool::Ticket ticket_;
};

// What a store decodes and how it applies it: a store over devices decodes their updates and takes
// SGD steps (and, adopting, encodes its own delta); a delta store decodes the deltas of the adopting
// stores below it and applies them plainly.
struct StoreConfig {
  std::vector<size_t> devices;         // the member devices (none for a delta store)
  scenario::CompressionSpec decoding;  // the members' compressor
  std::vector<uint64_t> seeds;         // per member: its encoder's seed
  bool plain = false;                  // a delta store: x <- x - sum / total, in double
  std::optional<size_t> adopting;      // an adopting store: its index (its delta's encoder)
};

// Every role of model_store.hpp, on the flat parameter vector.
class TorchStore : public StoreOfEveryRole {
 public:
  TorchStore(TorchBackend::Shared& shared, StoreConfig config)
      : shared_(shared),
        config_(std::move(config)),
        params_(std::make_shared<std::vector<float>>(shared.initial)),
        optimizer_(strategy::make_server_optimizer(shared.scenario)),
        part_(config_.plain || !shared.travelling ? nullptr : &*shared.travelling),
        decoder_(config_.decoding, part_ ? part_->layout() : shared.layers),
        rule_(shared.scenario.training.staleness_lr, shared.initial.size(),
              static_cast<size_t>(shared.scenario.training.staleness_history)) {
    if (const auto& down = shared.scenario.compression.downlink) {
      for (size_t device : config_.devices) downlinks_.emplace_back(*down, shared.layers, shared.downlink_seed(device));
    }
    if (const auto& dp = shared.scenario.privacy.dp) privacy_.emplace(*dp, util::derive_seed(shared.scenario.seed, "dp-noise-sum"));
    if (!config_.plain && shared.scenario.defence) defence_ = &*shared.scenario.defence;
    if (!config_.plain) python_ = shared.python;
    if (python_) python_->model_is(params_);
    qffl_ = !config_.plain && shared.scenario.strategy_is("qfedavg");
    if (!config_.plain && shared.scenario.strategy_is("scaffold"))
      control_ = std::make_shared<std::vector<float>>(shared.initial.size(), 0.0f);
    if (config_.adopting) {
      delta_encoder_.emplace(shared.delta_compression(), shared.layers, shared.delta_seed(*config_.adopting));
    }
  }

  void adopt(const ModelPayload& model) override {
    adopted_ = model.params;
    params_ = std::make_shared<std::vector<float>>(*model.params);
    ++version_;  // the model changed: the downlink's compression context moves on
  }

  UpdatePayload delta_since_adopt() override {
    std::vector<float> delta(params_->size());
    for (size_t k = 0; k < delta.size(); ++k) delta[k] = (*adopted_)[k] - (*params_)[k];
    UpdatePayload out = travelling(delta_encoder_->encode(delta, deltas_), shared_.delta_charge, deltas_);
    ++deltas_;
    return out;
  }

  ModelPayload payload_for(size_t member) override {
    if (downlinks_.empty()) return dense_payload();
    ModelPayload out;
    out.delta = downlinks_.at(member).next(*params_, version_);
    if (!out.delta) return dense_payload();
    out.bytes = static_cast<int64_t>(out.delta->size());
    if (shared_.downlink_charge) out.bytes = shared_.downlink_charge->charge(out.bytes, false);
    out.version = version_;
    return with_control(std::move(out));
  }

  ModelPayload dense_payload() override {
    ModelPayload out;
    out.params = params_;
    out.bytes = shared_.charged_dense_bytes;
    out.version = version_;
    return with_control(std::move(out));
  }

  void note_arrival(const policy::UpdateFacts& facts) override { arriving_ = facts; }

  void accumulate(const UpdatePayload& update, size_t member, double weight) override {
    std::vector<float>& g = decode(update, member);
    if (python_) {  // aggregate_fit takes the round's updates whole, each its own vector (Python's arrays keep it)
      python_round_.push_back({arriving_, std::make_shared<const std::vector<float>>(std::move(g))});  // no copy: the
      g = std::vector<float>();  // next decode makes a new buffer
      accumulated_ += 1;
      return;
    }
    if (qffl_) {  // q-FFL: the updates summed alike, normalised by the sum of their h
      weight = 1.0;
      qffl_h_sum_ += update.qffl_h;
    }
    if (privacy_) {
      privacy_->bound(g);
      weight = 1.0;  // each update counts the same: one device moves the sum by at most the clip
    }
    accumulated_ += 1;
    if (config_.plain) {
      // In double: with one member, x - (w d) / w is x - d exactly, so the store takes its member's model.
      if (plain_sum_.empty()) plain_sum_.assign(g.size(), 0.0);
      for (size_t k = 0; k < g.size(); ++k) plain_sum_[k] += weight * static_cast<double>(g[k]);
      return;
    }
    if (control_) add_control_change(update, member);
    if (defence_) {  // a robust rule compares the round's updates: each kept whole
      kept_.push_back(g);
      kept_weights_.push_back(weight);
      return;
    }
    if (sum_.empty()) sum_.assign(g.size(), 0.0f);
    const auto w = static_cast<float>(weight);
    for (size_t k = 0; k < g.size(); ++k) sum_[k] += w * g[k];
  }

  void accumulate_sum(std::span<const double> sum, int64_t count) override {
    if (sum_.empty()) sum_.assign(sum.size(), 0.0f);
    for (size_t k = 0; k < sum.size(); ++k) sum_[k] += static_cast<float>(sum[k]);
    accumulated_ += count;
  }

  void discard_accumulated() override {
    std::fill(plain_sum_.begin(), plain_sum_.end(), 0.0);
    std::fill(sum_.begin(), sum_.end(), 0.0f);
    accumulated_ = 0;
    qffl_h_sum_ = 0;
    kept_.clear();
    kept_weights_.clear();
    control_sum_.clear();
    python_round_.clear();
  }

  bool apply_accumulated(double lr, double total_weight) override {
    if (config_.plain) {
      std::vector<float>& x = writable();
      for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(x[k] - plain_sum_[k] / total_weight);
      std::fill(plain_sum_.begin(), plain_sum_.end(), 0.0);
      ++version_;
      return all_finite(x);
    }
    if (control_) apply_control_changes();
    if (defence_) return apply_robust(lr);
    if (python_) return apply_python();
    if (privacy_) {
      privacy_->noise_sum(sum_, version_);
      total_weight = static_cast<double>(accumulated_);
    }
    if (qffl_) {
      total_weight = qffl_h_sum_;
      qffl_h_sum_ = 0;
    }
    optimizer_->round_of(accumulated_);
    accumulated_ = 0;
    const auto scale = static_cast<float>(1.0 / total_weight);
    for (float& v : sum_) v *= scale;
    optimizer_->step(writable(), sum_, lr);
    std::fill(sum_.begin(), sum_.end(), 0.0f);
    ++version_;
    return all_finite(*params_);
  }

  void buffer(const UpdatePayload& update, size_t member, int64_t staleness) override {
    std::vector<float>& g = decode(update, member);
    // The touched coordinates: the sparse index sets, or every coordinate for a dense push.
    std::vector<int64_t> touched;
    for (const auto& layer : update.indices) touched.insert(touched.end(), layer.begin(), layer.end());
    rule_.scale(staleness, touched, g);
    // The version touches the union of its pushes' index sets (adacomp's history), or everything.
    if (buffered_ == 0) {
      buffer_ = g;  // a copy, not 0 + g: a buffer of one applies exactly the push
      buffer_touched_ = std::move(touched);
      buffer_dense_ = buffer_touched_.empty();
    } else {
      for (size_t k = 0; k < g.size(); ++k) buffer_[k] += g[k];
      buffer_dense_ = buffer_dense_ || touched.empty();
      if (!buffer_dense_) buffer_touched_.insert(buffer_touched_.end(), touched.begin(), touched.end());
    }
    ++buffered_;
  }

  bool apply_buffer(double lr, int64_t count) override {
    const auto scale = static_cast<float>(1.0 / static_cast<double>(count));
    for (float& v : buffer_) v *= scale;
    optimizer_->round_of(count);
    optimizer_->step(writable(), buffer_, lr);
    if (buffer_dense_) buffer_touched_.clear();
    std::sort(buffer_touched_.begin(), buffer_touched_.end());
    buffer_touched_.erase(std::unique(buffer_touched_.begin(), buffer_touched_.end()), buffer_touched_.end());
    rule_.applied(std::move(buffer_touched_));
    buffer_touched_ = {};
    buffered_ = 0;
    ++version_;
    return all_finite(*params_);
  }

  // Summed in double so that the weights' order matters only below float precision.
  bool mix(const std::vector<std::pair<ModelPayload, double>>& models) override {
    std::vector<double> sum(params_->size(), 0.0);
    for (const auto& [model, weight] : models) {
      const std::vector<float>& x = *model.params;
      for (size_t k = 0; k < sum.size(); ++k) sum[k] += weight * static_cast<double>(x[k]);
    }
    auto mixed = std::make_shared<std::vector<float>>(sum.size());
    for (size_t k = 0; k < sum.size(); ++k) (*mixed)[k] = static_cast<float>(sum[k]);
    params_ = std::move(mixed);  // a new vector: the payloads already sent keep the old one
    ++version_;
    return all_finite(*params_);
  }

  double distance(const ModelPayload& other) const override {
    const std::vector<float>& x = *other.params;
    double squares = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      const double d = static_cast<double>((*params_)[k]) - static_cast<double>(x[k]);
      squares += d * d;
    }
    return std::sqrt(squares);
  }

  std::optional<Evaluation> evaluate(const std::function<bool()>& cancelled) override {
    const std::shared_ptr<const std::vector<float>> snapshot = params_;
    const std::optional<learn::EvalResult> result = evaluate_on(snapshot, shared_.data.test, cancelled);
    if (!result) return std::nullopt;
    Evaluation out{result->accuracy, result->loss, std::nullopt, std::nullopt, std::nullopt};
    if (shared_.backdoor_test) {
      const std::optional<learn::EvalResult> stamped = evaluate_on(snapshot, *shared_.backdoor_test, cancelled);
      if (!stamped) return std::nullopt;
      out.attack_success = stamped->accuracy;
    }
    if (shared_.personal) {
      const std::optional<PersonalAccuracy> personal =
          shared_.personal->evaluate(snapshot, shared_.pool, [this](size_t w) -> learn::Workspace& { return shared_.workspace(w); }, cancelled);
      if (cancelled()) return std::nullopt;
      out.personal = personal;
    }
    return out;
  }

 private:
  // `snapshot` evaluated on `data` on the pool (nothing when `cancelled` says so between batches).
  std::optional<learn::EvalResult> evaluate_on(const std::shared_ptr<const std::vector<float>>& snapshot,
                                               const learn::Dataset& data, const std::function<bool()>& cancelled) {
    std::optional<learn::EvalResult> result;
    const int64_t limit = shared_.scenario.eval.test_samples;
    WorkerPool::Ticket ticket = shared_.pool.submit([&, snapshot](size_t worker) {
      result = shared_.workspace(worker).evaluate(*snapshot, data, limit, cancelled);
    });
    shared_.pool.wait(ticket);
    return result;
  }
  // SCAFFOLD: c travels dense beside every model the store sends.
  ModelPayload with_control(ModelPayload out) const {
    if (!control_) return out;
    out.control = control_;
    out.bytes += shared_.charged_dense_bytes;
    return out;
  }
  // SCAFFOLD: a member's control change, decoded into a buffer of its own (decoded_ holds its update), summed.
  void add_control_change(const UpdatePayload& update, size_t member) {
    control_decoded_.resize(shared_.initial.size());
    decoder_.decode_into(update.control, update.control_compressed, shared_.control_seed(config_.devices.at(member)),
                         update.step, control_decoded_);
    if (control_sum_.empty()) control_sum_.assign(control_decoded_.size(), 0.0);
    for (size_t k = 0; k < control_decoded_.size(); ++k) control_sum_[k] += control_decoded_[k];
  }
  // c <- c + sum of the round's changes / N (N: the store's devices), a new vector: the models sent keep theirs.
  void apply_control_changes() {
    if (control_sum_.empty()) return;
    auto next = std::make_shared<std::vector<float>>(*control_);
    const auto n = static_cast<double>(config_.devices.size());
    for (size_t k = 0; k < next->size(); ++k) (*next)[k] = static_cast<float>((*next)[k] + control_sum_[k] / n);
    control_ = std::move(next);
    control_sum_.clear();
  }
  // aggregate_fit's new model in place of the mean and its step (None: the model stays).
  bool apply_python() {
    const int64_t round = python_round_.front().facts.round;
    const std::shared_ptr<const std::vector<float>> received = params_;
    std::vector<policy::ArrivedUpdate> updates = std::move(python_round_);
    python_round_.clear();
    accumulated_ = 0;
    std::vector<float> next;
    if (python_->aggregate(round, std::move(updates), received, next)) {
      params_ = std::make_shared<std::vector<float>>(std::move(next));  // a new vector: the payloads sent keep theirs
      ++version_;
      python_->model_is(params_);
    }
    return all_finite(*params_);
  }
  // A robust rule's aggregate of the kept updates, stepped like the mean (no central noise: refused).
  bool apply_robust(double lr) {
    const auto n = static_cast<int64_t>(kept_.size());
    strategy::RoundUpdates round{kept_, kept_weights_, strategy::assumed_byzantine(*defence_, shared_.attacker_share, n)};
    strategy::defence_kind(defence_->kind).aggregate(*defence_, round, sum_);
    kept_.clear();
    kept_weights_.clear();
    accumulated_ = 0;
    optimizer_->round_of(n);
    optimizer_->step(writable(), sum_, lr);
    std::fill(sum_.begin(), sum_.end(), 0.0f);
    ++version_;
    return all_finite(*params_);
  }
  // The decoded update, in the store's own buffer (valid until the next decode).
  std::vector<float>& decode(const UpdatePayload& update, size_t member) {
    decoded_.resize(shared_.initial.size());
    if (part_) {  // the travelling part, the rest left as it is (0), or splitfed's server part beside it
      part_decoded_.resize(static_cast<size_t>(part_->size()));
      decoder_.decode_into(update.encoded, update.compressed, config_.seeds.at(member), update.step, part_decoded_);
      if (shared_.split) {
        shared_.split->join(*part_, part_decoded_, update.server_part, decoded_, scratch_);
      } else {
        part_->scatter(part_decoded_, decoded_);
      }
      return decoded_;
    }
    decoder_.decode_into(update.encoded, update.compressed, config_.seeds.at(member), update.step, decoded_);
    return decoded_;
  }
  // The model to change in place: copied first while devices still train on this version.
  std::vector<float>& writable() {
    if (params_.use_count() > 1) params_ = std::make_shared<std::vector<float>>(*params_);
    return *params_;
  }

  TorchBackend::Shared& shared_;
  StoreConfig config_;
  std::shared_ptr<std::vector<float>> params_;
  std::shared_ptr<const std::vector<float>> adopted_;  // adopting: the upstream model it last adopted
  std::optional<UplinkEncoder> delta_encoder_;         // adopting: its delta's compressor
  int64_t deltas_ = 0;                                 // adopting: deltas encoded (the compressor's context)
  std::vector<double> plain_sum_;                      // a delta store: the weighted sum of its members' deltas
  std::unique_ptr<strategy::ServerOptimizer> optimizer_;  // the strategy's (FedAvg's SGD by default)
  const scenario::DefenceSpec* defence_ = nullptr;        // a robust rule in place of the mean; null: the mean
  std::vector<std::vector<float>> kept_;                   // defence: the round's decoded updates ...
  std::vector<double> kept_weights_;                       // ... and their weights
  std::shared_ptr<policy::StrategyPolicy> python_;         // strategy.kind python (null: the built-in strategy)
  policy::UpdateFacts arriving_;                           // python: the facts of the update accumulated next
  std::vector<policy::ArrivedUpdate> python_round_;        // python: the round's decoded updates
  std::shared_ptr<std::vector<float>> control_;  // SCAFFOLD: the server's control variate c (null: not SCAFFOLD)
  std::vector<double> control_sum_;              // SCAFFOLD: the round's control changes, summed
  std::vector<float> control_decoded_;           // SCAFFOLD: the control change being added
  const TravellingPart* part_;                   // personalisation: what the members send (null: the model)
  std::vector<float> part_decoded_;              // ... decoded
  UplinkDecoder decoder_;
  std::optional<AggregatePrivacy> privacy_;  // privacy.dp: updates bounded, weighted alike, the sum noised
  int64_t accumulated_ = 0;                  // updates in the round's sum
  bool qffl_ = false;                        // strategy qfedavg
  double qffl_h_sum_ = 0;                    // qfedavg: the round's sum of h_k
  StalenessRule rule_;
  std::vector<DownlinkEncoder> downlinks_;  // per member, when the downlink is compressed
  int64_t version_ = 0;                     // updates applied
  std::vector<float> sum_;                  // round-based aggregation: the weighted sum so far
  std::vector<float> decoded_;              // the update being applied
  std::vector<float> scratch_;  // splitfed: join's buffer
  // Asynchronous aggregation: the staleness-scaled sum of the pushes buffered since the last
  // version, how many, and the coordinates they touched (buffer_dense_: every coordinate).
  std::vector<float> buffer_;
  int64_t buffered_ = 0;
  std::vector<int64_t> buffer_touched_;
  bool buffer_dense_ = false;
};

}  // namespace

TorchBackend::TorchBackend(const scenario::Scenario& scenario, const learn::Model& model,
                           const learn::DatasetPair& data, size_t threads, const ChargedModel& charged,
                           const std::optional<DeltaLink>& deltas)
    : shared_(new Shared{scenario,
                         model,
                         data,
                         Mode(scenario.training, scenario.devices.size()),
                         compress_layers(model.layers()),
                         WorkerPool(threads),
                         charged.cost.dense_update_bytes(),
                         deltas,
                         {},
                         {},
                         {},
                         {},
                         {},
                         0,
                         {},
                         {}}),
      cost_(charged.cost) {
  if (charged.catalogued) {
    shared_->uplink_charge.emplace(scenario.compression.uplink, model.num_params(), charged, "compression");
    if (const auto& down = scenario.compression.downlink)
      shared_->downlink_charge.emplace(*down, model.num_params(), charged, "compression.downlink");
    if (deltas) shared_->delta_charge.emplace(deltas->compressor, model.num_params(), charged, deltas->key);
  }
  shared_->initial = model.init_params(util::derive_seed(scenario.seed, "model-init"));
  // splitfed: the server's part of each delta rides beside the device's (travelling) part, uncharged.
  if (charged.split) shared_->split.emplace(shared_->layers, charged.split->server_tensors);
  if (scenario.attack) {
    shared_->attackers = strategy::attackers(scenario);
    shared_->attacker_share = strategy::attacker_share(shared_->attackers);
    shared_->poisoned_train = strategy::poisoned_train(*scenario.attack, data.train, util::derive_seed(scenario.seed, "poison"));
    shared_->backdoor_test = strategy::backdoor_test(*scenario.attack, data.test, data.train);
  }
  if (!charged.stays.empty()) shared_->travelling.emplace(shared_->layers, charged.stays);
  if (scenario.strategy && scenario.strategy->evaluates_devices()) {
    shared_->personal.emplace(scenario.devices.size(), shared_->travelling ? &*shared_->travelling : nullptr, data.test,
                              *scenario.strategy->personal_test_samples, util::derive_seed(scenario.seed, "personal"));
  }
  devices_.resize(scenario.devices.size());
}

DeviceLearner& TorchBackend::device(size_t index) {
  std::unique_ptr<DeviceLearner>& d = devices_.at(index);
  if (!d) d = std::make_unique<TorchDevice>(*shared_, index);  // its state depends on its index alone
  return *d;
}

// A device killed by a fault or by the end of the run may leave a step on the pool: it must
// finish before the learners it writes to go.
TorchBackend::~TorchBackend() { quiesce(); }

void TorchBackend::use_strategy(std::shared_ptr<policy::StrategyPolicy> strategy) {
  shared_->python = std::move(strategy);
  if (shared_->python) shared_->python->initial_model(shared_->initial);
}

void TorchBackend::quiesce() {
  for (auto& d : devices_)
    if (d) d->abandon();
}

namespace {
StoreConfig devices_config(const TorchBackend::Shared& shared, const std::vector<size_t>& members) {
  StoreConfig config{members, shared.scenario.compression, {}, false, std::nullopt};
  for (size_t device : members) config.seeds.push_back(shared.uplink_seed(device));
  return config;
}
}  // namespace

std::unique_ptr<ModelStore> TorchBackend::make_store(const std::vector<size_t>& members) {
  return std::make_unique<TorchStore>(*shared_, devices_config(*shared_, members));
}

std::unique_ptr<ModelStore> TorchBackend::make_adopting_store(const std::vector<size_t>& members, size_t index) {
  StoreConfig config = devices_config(*shared_, members);
  config.adopting = index;
  return std::make_unique<TorchStore>(*shared_, std::move(config));
}

std::unique_ptr<ModelStore> TorchBackend::make_delta_store(size_t count) {
  StoreConfig config{{}, shared_->delta_compression(), {}, true, std::nullopt};
  for (size_t s = 0; s < count; ++s) config.seeds.push_back(shared_->delta_seed(s));
  return std::make_unique<TorchStore>(*shared_, std::move(config));
}

}  // namespace edgetrain::backend
