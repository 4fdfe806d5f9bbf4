// The timing-only back-end: no tensors, no data, no accuracy. Steps cost their FLOPs (charged by
// the protocol from cost()); every message costs the byte size its compressor would produce,
// from the compressor's formula where the size does not depend on the data, and from the
// declared compression.*.timing_ratio where it does (threshold, adacomp-bins, ScaDLES's adaptive
// top-k, which is then taken to compress every update). Memory per device is a few counters, so
// fleets of 100,000 devices fit.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "backend/backend.hpp"
#include "backend/charged_model.hpp"
#include "compress/compressor.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::backend {

class TimingBackend : public Backend {
 public:
  // `charged`: the charged model (the compressors' sizes depend on its layout; personalisation and
  // splitfed send only the tensors that do not stay). `deltas`: the delta link, if the topology has one.
  TimingBackend(const scenario::Scenario& scenario, const ChargedModel& charged, const std::optional<DeltaLink>& deltas);

  const ModelCost& cost() const override { return cost_; }
  bool trains() const override { return false; }
  DeviceLearner& device(size_t index) override { return devices_.at(index); }
  std::unique_ptr<ModelStore> make_store(const std::vector<size_t>& members) override;
  std::unique_ptr<ModelStore> make_adopting_store(const std::vector<size_t>& members, size_t index) override;
  std::unique_ptr<ModelStore> make_delta_store(size_t count) override;
  std::vector<std::pair<std::string, double>> declared_sizes() const override { return declared_; }

  // What one model delta weighs on the downlink (0: no downlink compression, always dense).
  int64_t downlink_delta_bytes() const { return downlink_delta_bytes_; }
  // What one delta weighs on the delta link (0: no delta link).
  int64_t delta_bytes() const { return delta_bytes_; }
  int64_t control_bytes() const { return control_bytes_; }  // SCAFFOLD: c beside each model sent
  int64_t model_bytes() const { return model_bytes_; }      // the dense model sent (personalisation, splitfed: the part that travels)

 private:
  class Device : public DeviceLearner {
   public:
    explicit Device(const TimingBackend* owner = nullptr) : owner_(owner) {}
    void receive(const ModelPayload&) override {}
    void start_step(std::vector<int64_t>) override {}
    double finish_step() override { return 0.0; }
    UpdatePayload finish_update() override;
    void abandon() override {}
    int64_t compressed_updates() const override;

   private:
    const TimingBackend* owner_;
    int64_t encoded_ = 0;
  };
  ModelCost cost_;
  int64_t uplink_bytes_ = 0, downlink_delta_bytes_ = 0, delta_bytes_ = 0, control_bytes_ = 0, model_bytes_ = 0;
  bool adaptive_ = false;
  std::vector<std::pair<std::string, double>> declared_;
  std::vector<Device> devices_;
};

// Payload size of one update under `spec` on `layers`: the formula, or the declared ratio
// (spec.timing_ratio) for data-dependent kinds. `section` names the key in errors.
// Adds "SECTION.timing_ratio" to `declared` when the ratio was used.
int64_t timing_payload_bytes(const scenario::CompressorSpec& spec, const std::vector<compress::Layer>& layers,
                             const std::string& section, std::vector<std::pair<std::string, double>>& declared);

}  // namespace edgetrain::backend
