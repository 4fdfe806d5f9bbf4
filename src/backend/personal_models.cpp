// See personal_models.hpp.
#include "backend/personal_models.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <numeric>

#include "util/seed.hpp"

namespace edgetrain::backend {

PersonalModels::PersonalModels(size_t devices, const TravellingPart* part, const learn::Dataset& test, int64_t samples,
                               uint64_t seed)
    : part_(part),
      test_(test),
      samples_(samples),
      seed_(seed),
      by_class_(static_cast<size_t>(test.classes)),
      values_(devices),
      trained_(devices) {
  for (int64_t i = 0; i < test.size(); ++i) by_class_.at(static_cast<size_t>(test.labels[static_cast<size_t>(i)])).push_back(i);
}

void PersonalModels::publish(size_t device, std::shared_ptr<const std::vector<float>> values,
                             const std::vector<int64_t>& labels) {
  values_.at(device) = std::move(values);
  std::vector<int64_t>& counts = trained_.at(device);
  if (counts.empty()) counts.assign(by_class_.size(), 0);
  // A training label outside the test set's classes has no test samples to stand for it.
  for (int64_t y : labels)
    if (y >= 0 && static_cast<size_t>(y) < counts.size()) ++counts[static_cast<size_t>(y)];
}

std::vector<int64_t> PersonalModels::test_indices(size_t device) const {
  const std::vector<int64_t>& counts = trained_[device];
  const double total = static_cast<double>(std::accumulate(counts.begin(), counts.end(), int64_t{0}));
  std::vector<int64_t> quota(counts.size(), 0);
  std::vector<std::pair<double, size_t>> remainders;
  int64_t given = 0;
  for (size_t c = 0; c < counts.size(); ++c) {
    if (by_class_[c].empty()) continue;  // a class the test set lacks
    const double exact = static_cast<double>(samples_) * static_cast<double>(counts[c]) / total;
    quota[c] = static_cast<int64_t>(std::floor(exact));
    given += quota[c];
    if (counts[c] > 0) remainders.emplace_back(exact - std::floor(exact), c);
  }
  std::stable_sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < samples_ && k < remainders.size(); ++k, ++given) ++quota[remainders[k].second];
  std::vector<int64_t> out;
  for (size_t c = 0; c < counts.size(); ++c) {
    const std::vector<int64_t>& pool = by_class_[c];
    if (pool.empty()) continue;
    const uint64_t start = util::mix64(util::derive_seed(seed_, "personal-test", device) + c) % pool.size();
    for (int64_t k = 0; k < quota[c]; ++k) out.push_back(pool[(start + static_cast<uint64_t>(k)) % pool.size()]);
  }
  return out;
}

std::optional<PersonalAccuracy> PersonalModels::evaluate(const std::shared_ptr<const std::vector<float>>& global,
                                                         WorkerPool& pool,
                                                         const std::function<learn::Workspace&(size_t)>& workspace,
                                                         const std::function<bool()>& cancelled) const {
  std::vector<size_t> trained;
  for (size_t d = 0; d < values_.size(); ++d)
    if (!trained_[d].empty()) trained.push_back(d);
  if (trained.empty()) return std::nullopt;
  // The global model's running statistics, estimated once: those a personalised model is evaluated with
  // (exact when its own tensors come after every normalisation layer, as fedper's and fedrep's heads do).
  std::shared_ptr<const learn::NormStatistics> statistics;
  WorkerPool::Ticket estimated = pool.submit([&](size_t worker) { statistics = workspace(worker).norm_statistics(*global); });
  pool.wait(estimated);
  // One job per device, each writing its own result: the same figures whatever the pool's threads.
  std::vector<std::optional<learn::EvalResult>> results(trained.size());
  std::vector<WorkerPool::Ticket> tickets;
  for (size_t k = 0; k < trained.size(); ++k) {
    const size_t d = trained[k];
    tickets.push_back(pool.submit([&, k, d, values = values_[d]](size_t worker) {
      // FedAvg's baseline (no values): the global model; else the device's own (staying) tensors.
      std::vector<float> params = part_ || !values ? *global : *values;
      if (part_ && values) part_->copy_staying(*values, params);
      const learn::Dataset data = learn::subset(test_, test_indices(d));
      results[k] = workspace(worker).evaluate(params, data, 0, cancelled, statistics.get());
    }));
  }
  // Every job waited for before anything is rethrown: they write to `results`.
  std::exception_ptr failed;
  for (auto& t : tickets) {
    try {
      pool.wait(t);
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
  std::vector<double> accuracy;
  for (const auto& r : results) {
    if (!r) return std::nullopt;
    accuracy.push_back(r->accuracy);
  }
  PersonalAccuracy out;
  out.devices = static_cast<int64_t>(accuracy.size());
  out.mean = std::accumulate(accuracy.begin(), accuracy.end(), 0.0) / static_cast<double>(accuracy.size());
  std::sort(accuracy.begin(), accuracy.end());
  // The 10th percentile, the nearest rank (the value at least 10% of the devices are at or below).
  const auto rank = static_cast<size_t>(std::ceil(0.1 * static_cast<double>(accuracy.size())));
  out.p10 = accuracy[std::max<size_t>(rank, 1) - 1];
  return out;
}

}  // namespace edgetrain::backend
