// Spearman's rank correlation: how well one list of figures orders things as another does (1: the
// same order, -1: reversed), whatever their scales. The compute model's page reports it per device
// class, predicted step times against published ones across models, as simulators of GPU training
// report theirs.
#pragma once

#include <optional>
#include <vector>

namespace edgetrain::compute {

// The ranks of `x` from 1, ties sharing the mean of the ranks they span ({3, 1, 3} -> {2.5, 1, 2.5}).
std::vector<double> ranks(const std::vector<double>& x);

// Pearson's correlation of the two lists' ranks; none with fewer than 3 pairs, lists of unequal
// length, or a list whose values are all equal (no order to compare).
std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace edgetrain::compute
