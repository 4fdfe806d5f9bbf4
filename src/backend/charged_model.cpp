// See charged_model.hpp.
#include "backend/charged_model.hpp"

#include <cmath>

#include "backend/learning_setup.hpp"
#include "backend/uplink.hpp"
#include "compress/size.hpp"
#include "learn/catalogue.hpp"
#include "learn/model_shape.hpp"
#include "strategy/personal_layers.hpp"

namespace edgetrain::backend {

namespace {

// The tensors that do not travel: splitfed's server part (with the cut, and the device's share of the step),
// or personalisation's.
void split_off(ChargedModel& out, const scenario::Scenario& scenario, const std::vector<learn::LayerInfo>& tensors) {
  out.device_cost = out.cost;
  if (!scenario.strategy || !scenario.strategy->split()) {
    out.stays = strategy::kept_on_device(scenario, tensors);
    return;
  }
  out.split = strategy::split_plan(scenario.strategy->cut_layers, tensors, out.cost.compute_layers, out.cost.name);
  out.device_cost = {out.cost.name, out.split->device_params, 3.0 * out.split->device_forward_flops,
                     out.split->device_layers};
  out.stays = out.split->server_tensors;
}

// The values that travel, when some stay.
int64_t travelling_params(const std::vector<learn::LayerInfo>& tensors, const std::vector<bool>& stays) {
  int64_t n = 0;
  for (size_t i = 0; i < stays.size(); ++i)
    if (!stays[i]) n += tensors[i].numel;
  return n;
}

}  // namespace

ChargedModel charged_model(const scenario::Scenario& scenario, const learn::DatasetShape& shape) {
  ChargedModel out;
  const std::string& catalogued = scenario.training.timing_only() && learn::find_model(scenario.model.name)
                                      ? scenario.model.name
                                      : scenario.model.cost_as;
  if (const learn::CatalogueModel* m = catalogued.empty() ? nullptr : learn::find_model(catalogued)) {
    out.cost = {m->name, m->params, m->step_flops_per_sample(), m->compute_layers};
    out.layers = compress_layers(m->layers);
    out.catalogued = true;
    split_off(out, scenario, m->layers);
    out.cost.travelling_params = travelling_params(m->layers, out.stays);
    return out;
  }
  const learn::ModelShape s = learn::model_shape(model_config(scenario, shape));
  out.cost = {scenario.model.name, static_cast<int64_t>(s.params), 3.0 * s.forward_flops_per_sample, s.compute_layers};
  out.layers = compress_layers(s.layers);
  split_off(out, scenario, s.layers);
  out.cost.travelling_params = travelling_params(s.layers, out.stays);
  return out;
}

ChargedSizes::ChargedSizes(const scenario::CompressorSpec& spec, int64_t trained_params, const ChargedModel& charged,
                           const std::string& section)
    : trained_dense_(4 * trained_params), charged_dense_(charged.cost.dense_bytes()) {
  try {
    formula_ = compress::formula_payload_bytes(spec, charged.layers);
  } catch (const compress::ConfigError& e) {
    throw compress::ConfigError(e.setting(), e.detail(), section);
  }
}

int64_t ChargedSizes::charge(int64_t real_bytes, bool dense) const {
  if (dense) return charged_dense_;
  if (formula_) return *formula_;
  return std::llround(static_cast<double>(real_bytes) * static_cast<double>(charged_dense_) /
                      static_cast<double>(trained_dense_));
}

}  // namespace edgetrain::backend
