// Error feedback (the sender remembers what compression dropped and adds it to the next update)
// and ScaDLES's norm-gap criterion, which decides per step whether top-k compression loses
// little enough of the update to be used. Neither produces a payload.
#include <cmath>
#include <string>
#include <vector>

#include "compress/compressor.hpp"
#include "compress/family.hpp"
#include "compress/select.hpp"

namespace edgetrain::compress {

namespace {

void check_same_size(size_t got, size_t residual, const char* what) {
  if (got != residual) {
    throw CompressError(std::string("error feedback: ") + what + " has " + std::to_string(got) +
                        " entries, the residual " + std::to_string(residual));
  }
}

// Sum of the k largest squares among x (the squared norm of Top_k(x)), added in position order
// (ties do not matter here). The selection's scratch is per thread: senders may run in parallel.
double top_k_square_sum(std::span<const float> x, int64_t k) {
  thread_local detail::TopKSelector selector;
  thread_local std::vector<int64_t> kept;
  selector.select(x, k, kept);
  double sum = 0;
  for (int64_t i : kept) sum += static_cast<double>(x[static_cast<size_t>(i)]) * x[static_cast<size_t>(i)];
  return sum;
}

}  // namespace

std::span<const float> ErrorFeedback::correct(std::span<const float> update) {
  check_same_size(update.size(), residual_.size(), "the update");
  for (size_t i = 0; i < residual_.size(); ++i) residual_[i] = update[i] + residual_[i];
  return residual_;
}

void ErrorFeedback::remember(const Compressor& compressor, std::span<const uint8_t> payload, const Context& context) {
  check_same_size(static_cast<size_t>(compressor.size()), residual_.size(), "the compressor's layout");
  compressor.subtract_decoded(payload, context, residual_);  // residual_ holds p
}

double topk_norm_gap(std::span<const float> update, const std::vector<Layer>& layers, double ratio,
                     const std::string& scope) {
  detail::check_ratio(ratio);
  detail::check_scope(scope);
  const int64_t size = detail::layout_size(layers);
  detail::check_update_size(update.size(), size);
  double total = 0;
  for (float v : update) total += static_cast<double>(v) * v;
  if (total == 0) return 0;
  double kept = 0;
  if (scope == "global") {
    kept = top_k_square_sum(update, detail::keep_count(ratio, size));
  } else {
    for (const Layer& l : layers) {
      kept += top_k_square_sum(update.subspan(l.offset, l.numel), detail::keep_count(ratio, l.numel));
    }
  }
  const double norm = std::sqrt(total);
  return std::fabs(norm - std::sqrt(kept)) / norm;
}

}  // namespace edgetrain::compress
