// A Python strategy (edgetrain.strategy.Strategy's methods, Flower's names) behind policy::StrategyPolicy, and
// its configure_fit as a selection policy.
#include "policy/python/strategy.hpp"

#include <cmath>
#include <numeric>


namespace edgetrain::policy {
namespace {

// Flower counts server rounds from 1; edgetrain's rounds (rounds.csv, policy_metrics.csv) from 0: each call
// passes round + 1.

constexpr const char* kBase = "edgetrain.strategy";

// aggregate_fit's and evaluate's metrics, the numbers among them, as rows of policy_metrics.csv.
void record_metrics(py::handle metrics, int64_t round, const char* source, std::vector<MetricRow>& rows) {
  if (metrics.is_none() || !py::isinstance<py::dict>(metrics)) return;
  for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(metrics)) {
    if (!py::isinstance<py::int_>(value) && !py::isinstance<py::float_>(value)) continue;  // text is not a figure
    rows.push_back({round, source, py::str(key).cast<std::string>(), value.cast<double>()});
  }
}

// A ClientManager of the devices `devices` (indices into `names`), drawing with the strategy's generator.
py::object client_manager(const LoadedClass& cls, const std::vector<std::string>& names, const std::vector<size_t>& devices) {
  const py::module_ base = py::module_::import(kBase);
  py::list clients;
  for (size_t d : devices) clients.append(base.attr("ClientProxy")(names[d], d));
  return base.attr("ClientManager")(clients, cls.instance.attr("rng"));
}

// configure_fit picks the round's devices among those available (a ClientManager of them).
class ConfigureFit final : public DevicePicker {
 public:
  ConfigureFit(const LoadedClass& cls, const std::vector<std::string>& names, const StrategyModel& model)
      : cls_(cls), names_(names), model_(model) {}

  void pick(const std::vector<size_t>& pool, size_t, int64_t round, std::vector<bool>& chosen) override {
    run_python(cls_.source, "configure_fit", [&] {
      const py::object picked =
          cls_.instance.attr("configure_fit")(round + 1, model_.parameters(), client_manager(cls_, names_, pool));
      const std::vector<bool> candidate = members_of(pool, chosen.size());
      for (const py::handle pair : picked) {
        const py::tuple entry = py::reinterpret_borrow<py::object>(pair);
        if (entry.size() != 2) throw PolicyError(cls_.source.key + ": configure_fit must return (ClientProxy, FitIns) pairs");
        const auto device = entry[0].attr("index").cast<int64_t>();
        if (device < 0 || static_cast<size_t>(device) >= candidate.size() || !candidate[static_cast<size_t>(device)])
          throw PolicyError(cls_.source.key + ": configure_fit picked device " + std::to_string(device) +
                            ", which is not among the round's available devices");
        const py::object config = entry[1].attr("config");
        if (py::len(config) != 0)
          throw PolicyError(cls_.source.key + ": configure_fit's FitIns.config must be empty (edgetrain's devices train as "
                            "the scenario says: training.local_steps, training.lr), got " + py::str(config).cast<std::string>());
        chosen[static_cast<size_t>(device)] = true;
      }
    });
  }

 private:
  const LoadedClass& cls_;
  const std::vector<std::string>& names_;
  const StrategyModel& model_;
};

}  // namespace

py::object StrategyModel::parameters() const {
  if (!model) return py::none();
  return py::module_::import(kBase).attr("Parameters")(layer_views(model, layers));
}

PythonStrategy::PythonStrategy(LoadedClass cls, std::vector<compress::Layer> layers, std::vector<std::string> names,
                               std::shared_ptr<std::vector<MetricRow>> metrics, int64_t params)
    : cls_(std::move(cls)), names_(std::move(names)), metrics_(std::move(metrics)), params_(params) {
  model_.layers = std::move(layers);
  run_python(cls_.source, "message_bytes", [&] {
    const py::tuple sizes = cls_.instance.attr("message_bytes")(params_);
    const auto down = sizes[0].cast<int64_t>(), up = sizes[1].cast<int64_t>();
    constexpr int64_t kMax = int64_t{1} << 40;  // a terabyte beside each message is a mistake
    if (down < 0 || up < 0 || down > kMax || up > kMax)
      throw PolicyError(cls_.source.key + ": message_bytes returned (" + std::to_string(down) + ", " + std::to_string(up) +
                        "): each must be in [0, 2^40]");
    model_bytes_ = down;
    update_bytes_ = up;
  });
  if (cls_.overrides("configure_fit", kBase, "Strategy")) configure_ = std::make_shared<ConfigureFit>(cls_, names_, model_);
  evaluates_ = cls_.overrides("evaluate", kBase, "Strategy");
  declares_flops_ = cls_.overrides("server_flops", kBase, "Strategy");
}

void PythonStrategy::initial_model(std::vector<float>& model) {
  run_python(cls_.source, "initialize_parameters", [&] {
    std::vector<size_t> everyone(names_.size());
    std::iota(everyone.begin(), everyone.end(), size_t{0});
    const py::object given = cls_.instance.attr("initialize_parameters")(client_manager(cls_, names_, everyone));
    if (!given.is_none()) copy_model(given, model_.layers, cls_.source.key + ": initialize_parameters", model);
  });
}

bool PythonStrategy::aggregate(int64_t round, std::vector<ArrivedUpdate> updates,
                               const std::shared_ptr<const std::vector<float>>& received, std::vector<float>& model) {
  bool changed = false;
  run_python(cls_.source, "aggregate_fit", [&] {
    const py::module_ base = py::module_::import(kBase);
    const py::list received_views = layer_views(received, model_.layers);
    py::list results;
    for (const ArrivedUpdate& u : updates) {
      const UpdateFacts& f = u.facts;
      py::dict metrics;
      metrics["loss"] = f.loss;
      const py::object fit = base.attr("FitRes")(layer_views(u.delta, model_.layers), received_views, f.samples, metrics,
                                                 f.weight, f.staleness, f.arrival_s, f.round_time_s, f.bytes);
      results.append(py::make_tuple(base.attr("ClientProxy")(names_[f.device], f.device), fit));
    }
    const py::object out = cls_.instance.attr("aggregate_fit")(round + 1, results, py::list());
    py::object parameters = out;
    if (py::isinstance<py::tuple>(out)) {  // Flower's (parameters, metrics); a bare model is taken too
      const py::tuple pair = out;
      if (pair.size() != 2) throw PolicyError(cls_.source.key + ": aggregate_fit must return (parameters, metrics)");
      parameters = pair[0];
      record_metrics(pair[1], round, "aggregate_fit", *metrics_);
    }
    if (parameters.is_none()) return;
    copy_model(parameters, model_.layers, cls_.source.key + ": aggregate_fit", model);
    changed = true;
    if (!evaluates_) return;
    const auto next = std::make_shared<const std::vector<float>>(model);
    const py::object result = cls_.instance.attr("evaluate")(round + 1, base.attr("Parameters")(layer_views(next, model_.layers)));
    if (result.is_none()) return;
    const py::tuple pair = result;
    if (pair.size() != 2) throw PolicyError(cls_.source.key + ": evaluate must return (loss, metrics) or None");
    metrics_->push_back({round, "evaluate", "loss", pair[0].cast<double>()});
    record_metrics(pair[1], round, "evaluate", *metrics_);
  });
  return changed;
}

double PythonStrategy::server_flops(int64_t round, int64_t updates, int64_t params) {
  if (!declares_flops_) return 0.0;  // the base class's 0: no Python call a round
  double flops = 0;
  run_python(cls_.source, "server_flops", [&] { flops = cls_.instance.attr("server_flops")(round + 1, updates, params).cast<double>(); });
  if (!std::isfinite(flops) || flops < 0)
    throw PolicyError(cls_.source.key + ": server_flops returned " + std::to_string(flops) + " (server_round " +
                      std::to_string(round + 1) + "): FLOPs are a finite number >= 0");
  return flops;
}

}  // namespace edgetrain::policy
