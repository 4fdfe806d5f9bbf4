// A Python selection (edgetrain.policies.SelectionPolicy) and deadline (edgetrain.policies.DeadlinePolicy).
// What the devices did is kept here and handed over in one call before the next decision, so a policy over a
// million devices costs a few Python calls a round. Rounds are passed as Flower counts them, from 1.
#include "policy/python/selection.hpp"

#include <cmath>

namespace edgetrain::policy {
namespace {

constexpr const char* kBase = "edgetrain.policies";

struct Report {
  size_t device;
  double round_time_s;
  bool aggregated;
  int64_t samples;
  double loss;
};

class PythonSelection final : public DevicePicker {
 public:
  explicit PythonSelection(LoadedClass cls) : cls_(std::move(cls)), feedback_(cls_.overrides("feedback", kBase, "SelectionPolicy")) {}

  void pick(const std::vector<size_t>& pool, size_t count, int64_t round, std::vector<bool>& chosen) override {
    run_python(cls_.source, "select", [&] {
      if (feedback_ && !reports_.empty()) {
        const py::object make = py::module_::import(kBase).attr("Report");
        py::list reports;
        for (const Report& r : reports_) reports.append(make(r.device, r.round_time_s, r.aggregated, r.samples, r.loss));
        cls_.instance.attr("feedback")(round + 1, reports);
      }
      reports_.clear();
      const py::object picked = cls_.instance.attr("select")(round + 1, index_array(pool), count);
      const auto devices = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(picked);
      if (!devices || devices.ndim() != 1) throw PolicyError(cls_.source.key + ": select must return a sequence of device indices");
      if (static_cast<size_t>(devices.size()) > count)
        throw PolicyError(cls_.source.key + ": select returned " + std::to_string(devices.size()) + " devices, more than num_clients " +
                          std::to_string(count) + " (server_round " + std::to_string(round + 1) + ")");
      const std::vector<bool> candidate = members_of(pool, chosen.size());
      for (py::ssize_t k = 0; k < devices.size(); ++k) {
        const int64_t d = devices.at(k);
        if (d < 0 || static_cast<size_t>(d) >= candidate.size() || !candidate[static_cast<size_t>(d)])
          throw PolicyError(cls_.source.key + ": select returned device " + std::to_string(d) + ", which is not a candidate (server_round " +
                            std::to_string(round + 1) + ")");
        if (chosen[static_cast<size_t>(d)]) throw PolicyError(cls_.source.key + ": select returned device " + std::to_string(d) + " twice");
        chosen[static_cast<size_t>(d)] = true;
      }
    });
  }
  void delivered(size_t member, double round_time_s) override {
    if (feedback_) reports_.push_back({member, round_time_s, false, 0, 0.0});
  }
  void aggregated(size_t member, int64_t samples, double loss, double round_time_s) override {
    if (feedback_) reports_.push_back({member, round_time_s, true, samples, loss});
  }

 private:
  LoadedClass cls_;
  bool feedback_;  // the class overrides feedback: reports are kept for it
  std::vector<Report> reports_;
};

class PythonDeadline final : public DeadlinePolicy {
 public:
  explicit PythonDeadline(LoadedClass cls) : cls_(std::move(cls)), observes_(cls_.overrides("observed", kBase, "DeadlinePolicy")) {}

  std::optional<double> deadline(int64_t round, const std::vector<size_t>& picked) override {
    std::optional<double> out;
    run_python(cls_.source, "deadline", [&] {
      if (observes_ && !seen_.empty()) {
        const py::object make = py::module_::import(kBase).attr("Observation");
        py::list observations;
        for (const auto& [device, time] : seen_) observations.append(make(device, time));
        cls_.instance.attr("observed")(observations);
      }
      seen_.clear();
      const py::object value = cls_.instance.attr("deadline")(round + 1, index_array(picked));
      if (!value.is_none()) out = value.cast<double>();
    });
    if (out && !(std::isfinite(*out) && *out > 0))
      throw PolicyError(cls_.source.key + ": deadline returned " + std::to_string(*out) + " (server_round " + std::to_string(round + 1) +
                        "): seconds > 0, or None");
    return out;
  }
  void observed(size_t device, double round_time_s) override {
    if (observes_) seen_.emplace_back(device, round_time_s);
  }

 private:
  LoadedClass cls_;
  bool observes_;
  std::vector<std::pair<size_t, double>> seen_;
};

}  // namespace

std::shared_ptr<DevicePicker> make_python_selection(LoadedClass cls) { return std::make_shared<PythonSelection>(std::move(cls)); }

std::shared_ptr<DeadlinePolicy> make_python_deadline(LoadedClass cls) { return std::make_shared<PythonDeadline>(std::move(cls)); }

}  // namespace edgetrain::policy
