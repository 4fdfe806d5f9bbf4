// See trace_assign.hpp.
#include "scenario/trace_assign.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "input/text.hpp"
#include "scenario/error.hpp"
#include "util/seed.hpp"

namespace edgetrain::scenario {
namespace {

std::vector<std::optional<size_t>> by_name(const AssignInput& in) {
  std::map<std::string, size_t> device_index;
  for (size_t i = 0; i < in.devices.size(); ++i) device_index.emplace(in.devices[i], i);
  std::vector<std::optional<size_t>> out(in.devices.size());
  for (size_t t = 0; t < in.trace->size(); ++t) {
    const input::TraceDevice& d = (*in.trace)[t];
    const auto it = device_index.find(d.name);
    if (it == device_index.end()) {
      std::string msg = in.where + ":" + std::to_string(d.line) + ": no device named " +
                        input::text::show(nlohmann::json(d.name)) + " in the scenario (traces.assign name)";
      if (auto near = input::text::closest(d.name, in.devices)) msg += "; did you mean \"" + *near + "\"?";
      throw ScenarioError(msg);
    }
    out[it->second] = t;
  }
  return out;
}

// A seeded draw of `n` of the trace's devices without replacement (a partial Fisher-Yates shuffle
// with the draws made explicit, so that it does not depend on the library's distributions).
std::vector<size_t> seeded_draw(size_t m, size_t n, uint64_t seed) {
  std::vector<size_t> idx(m);
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::mt19937_64 rng(seed);
  for (size_t k = 0; k < n; ++k) {
    const uint64_t span = m - k;
    const size_t j = k + static_cast<size_t>(rng() % span);  // bias < span / 2^64: negligible
    std::swap(idx[k], idx[j]);
  }
  idx.resize(n);
  return idx;
}

}  // namespace

std::vector<std::optional<size_t>> assign_trace(const AssignInput& in) {
  if (in.assign == "name") return by_name(in);
  const size_t n = in.devices.size(), m = in.trace->size();
  if (m < n) {
    throw ScenarioError(in.where + ": " + std::to_string(m) + (m == 1 ? " device" : " devices") +
                        " in the trace, fewer than the scenario's " + std::to_string(n) + " (traces.assign " +
                        in.assign + " gives each device its own)");
  }
  std::vector<std::optional<size_t>> out(n);
  if (in.assign == "order") {
    for (size_t i = 0; i < n; ++i) out[i] = i;
    return out;
  }
  std::vector<size_t> picked = seeded_draw(m, n, util::derive_seed(in.seed, in.seed_tag));
  if (in.assign == "random") {
    for (size_t i = 0; i < n; ++i) out[i] = picked[i];
    return out;
  }
  const bool fastest = in.assign == "most-data-fastest";
  if (!fastest && in.assign != "most-data-slowest") throw ScenarioError("traces.assign: unknown \"" + in.assign + "\"");
  // The picked trace devices best first (or worst first), ties in file order.
  std::sort(picked.begin(), picked.end());
  std::stable_sort(picked.begin(), picked.end(),
                   [&](size_t a, size_t b) { return fastest ? in.merit[a] > in.merit[b] : in.merit[a] < in.merit[b]; });
  // The devices by training samples, most first, ties in scenario order.
  std::vector<size_t> devices(n);
  std::iota(devices.begin(), devices.end(), size_t{0});
  std::stable_sort(devices.begin(), devices.end(), [&](size_t a, size_t b) { return in.samples[a] > in.samples[b]; });
  for (size_t k = 0; k < n; ++k) out[devices[k]] = picked[k];
  return out;
}

}  // namespace edgetrain::scenario
