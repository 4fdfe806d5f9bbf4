// See staleness.hpp.
#include "backend/staleness.hpp"

#include <algorithm>
#include <stdexcept>

namespace edgetrain::backend {

StalenessRule::StalenessRule(std::string rule, size_t params, size_t history)
    : rule_(std::move(rule)), params_(params), history_(history) {
  if (rule_ != "none" && rule_ != "inverse" && rule_ != "adacomp") {
    throw std::invalid_argument("training.staleness_lr: unknown rule \"" + rule_ + "\"");
  }
}

void StalenessRule::scale(int64_t staleness, const std::vector<int64_t>& indices, std::vector<float>& step) const {
  if (rule_ == "none" || staleness <= 1) return;
  if (rule_ == "inverse") {
    const float factor = 1.0f / static_cast<float>(staleness);
    for (float& v : step) v *= factor;
    return;
  }
  // adacomp: count, for each coordinate, the updates since the pull that touched it.
  std::vector<int32_t> sigma(params_, 0);
  const auto d = static_cast<size_t>(staleness);
  const size_t known = std::min(d, recent_.size());
  int32_t everywhere = static_cast<int32_t>(d - known);  // beyond the history: assume dense
  for (size_t u = 0; u < known; ++u) {
    if (recent_[u].empty()) {
      ++everywhere;
    } else {
      for (int64_t k : recent_[u]) ++sigma[static_cast<size_t>(k)];
    }
  }
  auto scale_one = [&](size_t k) { step[k] *= 1.0f / static_cast<float>(std::max(1, sigma[k] + everywhere)); };
  if (indices.empty()) {
    for (size_t k = 0; k < params_; ++k) scale_one(k);
  } else {
    for (int64_t k : indices) scale_one(static_cast<size_t>(k));
  }
}

void StalenessRule::applied(std::vector<int64_t> indices) {
  if (history_ == 0 || rule_ != "adacomp") return;
  recent_.push_front(std::move(indices));
  if (recent_.size() > history_) recent_.pop_back();
}

}  // namespace edgetrain::backend
