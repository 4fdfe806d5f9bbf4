// Staleness-aware step sizes of the asynchronous parameter server. A push computed on the model
// of version j and applied at version i has staleness d = i - j. The rules:
//   none:    step unchanged;
//   inverse: step / max(1, d) (Zhang et al. 2016);
//   adacomp: per coordinate k, step / max(1, sigma_k), sigma_k = how many of the d updates
//            applied since the pull touched k (Hardy et al. 2017). Needs the index sets of the
//            updates, kept for the last `history` updates; an update older than that, or a
//            dense one, counts as touching every coordinate.
// Pure C++, unit-tested without a simulator.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace edgetrain::backend {

class StalenessRule {
 public:
  StalenessRule(std::string rule, size_t params, size_t history);
  // Scales `step`, a push of staleness `d` touching `indices` (empty = dense), in place: only
  // the touched coordinates change.
  void scale(int64_t staleness, const std::vector<int64_t>& indices, std::vector<float>& step) const;
  // The per-coordinate factors scale() applies (1 where it changes nothing).
  std::vector<float> factors(int64_t staleness, const std::vector<int64_t>& indices) const {
    std::vector<float> f(params_, 1.0f);
    scale(staleness, indices, f);
    return f;
  }
  // Records an applied update (its index set; empty = dense) as the newest in the history,
  // which only the adacomp rule reads.
  void applied(std::vector<int64_t> indices);

 private:
  std::string rule_;
  size_t params_, history_;
  std::deque<std::vector<int64_t>> recent_;  // newest first; empty vector = dense update
};

}  // namespace edgetrain::backend
