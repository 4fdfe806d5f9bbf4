// See timing_backend.hpp.
#include "backend/timing_backend.hpp"

#include "backend/travelling_part.hpp"
#include "compress/kinds.hpp"
#include "compress/size.hpp"

namespace edgetrain::backend {

int64_t timing_payload_bytes(const scenario::CompressorSpec& spec, const std::vector<compress::Layer>& layers,
                             const std::string& section, std::vector<std::pair<std::string, double>>& declared) {
  std::optional<int64_t> bytes;
  try {
    bytes = compress::planned_payload_bytes(spec, layers);
  } catch (const compress::ConfigError& e) {
    throw compress::ConfigError(e.setting(), e.detail(), section);
  }
  if (!bytes) {
    throw compress::ConfigError("timing_ratio",
                                "a " + spec.kind +
                                    " payload's size depends on the data: declare it as a "
                                    "fraction of the dense update for timing-only runs",
                                section);
  }
  if (!compress::kind_named(spec.kind).payload_bytes) declared.emplace_back(section + ".timing_ratio", *spec.timing_ratio);
  return *bytes;
}

namespace {

int64_t adaptive_payload_bytes(const scenario::CompressorSpec& spec, const std::vector<compress::Layer>& layers) {
  if (!spec.timing_ratio) {
    throw compress::ConfigError("timing_ratio",
                                "adaptive compression decides per update from the data: declare the "
                                "message size as a fraction of the dense update for timing-only runs");
  }
  return compress::declared_payload_bytes(layers, *spec.timing_ratio);
}

// Every role of model_store.hpp, as sizes: adopting changes nothing that sizes depend on.
class TimingStore : public StoreOfEveryRole {
 public:
  TimingStore(const TimingBackend& owner, size_t members) : owner_(owner), sent_(members, false) {}
  void adopt(const ModelPayload&) override {}
  UpdatePayload delta_since_adopt() override {
    UpdatePayload out;
    out.bytes = owner_.delta_bytes();
    out.step = deltas_++;
    return out;
  }
  ModelPayload payload_for(size_t member) override {
    // Downlink compression: the dense model first, then deltas (downlink.hpp).
    if (owner_.downlink_delta_bytes() == 0 || !sent_.at(member)) {
      sent_.at(member) = true;
      return dense_payload();
    }
    ModelPayload out;
    out.bytes = owner_.downlink_delta_bytes() + owner_.control_bytes();
    return out;
  }
  ModelPayload dense_payload() override {
    ModelPayload out;
    out.bytes = owner_.model_bytes() + owner_.control_bytes();
    return out;
  }
  void accumulate(const UpdatePayload&, size_t, double) override {}
  bool apply_accumulated(double, double) override { return true; }
  void accumulate_sum(std::span<const double>, int64_t) override {}
  void discard_accumulated() override {}
  void buffer(const UpdatePayload&, size_t, int64_t) override {}
  bool apply_buffer(double, int64_t) override { return true; }
  bool mix(const std::vector<std::pair<ModelPayload, double>>&) override { return true; }
  double distance(const ModelPayload&) const override { return 0.0; }
  std::optional<Evaluation> evaluate(const std::function<bool()>&) override { return std::nullopt; }

 private:
  const TimingBackend& owner_;
  std::vector<bool> sent_;
  int64_t deltas_ = 0;
};

}  // namespace

TimingBackend::TimingBackend(const scenario::Scenario& scenario, const ChargedModel& charged,
                             const std::optional<DeltaLink>& deltas)
    : cost_(charged.cost), adaptive_(scenario.compression.adaptive.has_value()) {
  const auto& compression = scenario.compression;
  const std::vector<compress::Layer>& layers = charged.layers;
  // What travels: the model, or personalisation's shared part.
  std::optional<TravellingPart> part;
  if (!charged.stays.empty()) part.emplace(layers, charged.stays);
  const std::vector<compress::Layer>& sent = part ? part->layout() : layers;
  model_bytes_ = cost_.dense_update_bytes();
  if (adaptive_) {
    uplink_bytes_ = adaptive_payload_bytes(compression.uplink, sent);
    declared_.emplace_back("compression.timing_ratio", *compression.uplink.timing_ratio);
  } else {
    uplink_bytes_ = timing_payload_bytes(compression.uplink, sent, "compression", declared_);
  }
  // Devices that noise their decoded update after compression send it dense (update_privacy.hpp).
  if (const auto& dp = scenario.privacy.dp; dp && dp->noise_on_devices() && !dp->noise_before_compression()) {
    uplink_bytes_ = model_bytes_;
  }
  if (compression.downlink) {
    downlink_delta_bytes_ = timing_payload_bytes(*compression.downlink, layers, "compression.downlink", declared_);
  }
  if (deltas) delta_bytes_ = timing_payload_bytes(deltas->compressor, layers, deltas->key, declared_);
  if (scenario.strategy_is("qfedavg")) uplink_bytes_ += kQfflBytes;  // h_k beside the update
  // SCAFFOLD: the control variate's change goes up compressed like the update, c down dense beside the model.
  if (scenario.strategy_is("scaffold")) {
    uplink_bytes_ *= 2;
    control_bytes_ = cost_.dense_bytes();
  }
  devices_.reserve(scenario.devices.size());
  for (size_t i = 0; i < scenario.devices.size(); ++i) devices_.emplace_back(this);
}

UpdatePayload TimingBackend::Device::finish_update() {
  UpdatePayload out;
  out.bytes = owner_->uplink_bytes_;
  out.step = encoded_++;
  return out;
}

int64_t TimingBackend::Device::compressed_updates() const { return owner_->adaptive_ ? encoded_ : -1; }

std::unique_ptr<ModelStore> TimingBackend::make_store(const std::vector<size_t>& members) {
  return std::make_unique<TimingStore>(*this, members.size());
}

std::unique_ptr<ModelStore> TimingBackend::make_adopting_store(const std::vector<size_t>& members, size_t) {
  return std::make_unique<TimingStore>(*this, members.size());
}

std::unique_ptr<ModelStore> TimingBackend::make_delta_store(size_t count) {
  return std::make_unique<TimingStore>(*this, count);
}

}  // namespace edgetrain::backend
