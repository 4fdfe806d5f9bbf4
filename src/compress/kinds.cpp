// The kinds table (see kinds.hpp) and the factory that builds from it. Rows are in the order the
// scenario's key table lists the kinds.
#include "compress/kinds.hpp"

#include <algorithm>

namespace edgetrain::compress {

const std::vector<Kind>& kinds() {
  using enum Setting;
  static const std::vector<Kind> table = {
      {.name = "none", .description = "dense fp32", .make = make_none, .payload_bytes = none_bytes},
      {.name = "fp16", .description = "half-precision values", .make = make_fp16, .payload_bytes = fp16_bytes},
      {.name = "topk",
       .description = "largest |g| entries, value + index",
       .make = make_topk,
       .payload_bytes = topk_bytes,
       .settings = {Ratio, Scope, IndexBits},
       .sends_indices = true},
      {.name = "randomk",
       .description = "seeded random entries, values only",
       .make = make_randomk,
       .payload_bytes = randomk_bytes,
       .settings = {Ratio},
       .sends_indices = true},
      {.name = "threshold",
       .description = "|g| > `threshold`, value + index",
       .make = make_threshold,
       .settings = {IndexBits, Threshold},
       .sends_indices = true},
      {.name = "qsgd",
       .description = "stochastic quantisation to `levels` levels",
       .make = make_qsgd,
       .payload_bytes = qsgd_bytes,
       .settings = {Levels}},
      {.name = "terngrad",
       .description = "ternary {-1, 0, 1} x scale",
       .make = make_terngrad,
       .payload_bytes = terngrad_bytes},
      {.name = "signsgd",
       .description = "scaled sign (use with error_feedback)",
       .make = make_signsgd,
       .payload_bytes = signsgd_bytes,
       .feedback_by_default = true},
      {.name = "onebit",
       .description = "1-bit with two reconstruction means (Seide)",
       .make = make_onebit,
       .payload_bytes = onebit_bytes,
       .feedback_by_default = true},
      {.name = "powersgd",
       .description = "rank-`rank` P·Qᵀ per matrix, one power iteration, warm start",
       .make = make_powersgd,
       .payload_bytes = powersgd_bytes,
       .settings = {Rank},
       .feedback_by_default = true},
      {.name = "adacomp",
       .description = "Hardy et al. 2017 per-layer top-c (value + index), no residual",
       .make = make_adacomp,
       .payload_bytes = adacomp_bytes,
       .settings = {Ratio, IndexBits},
       .sends_indices = true},
      {.name = "adacomp-bins",
       .description = "Chen et al. 2018 binned residual scheme",
       .make = make_adacomp_bins,
       .settings = {IndexBits, BinSize},
       .sends_indices = true,
       .state_vectors = 1},
  };
  return table;
}

bool Kind::reads(Setting s) const { return std::find(settings.begin(), settings.end(), s) != settings.end(); }

const Kind& kind_named(const std::string& name) {
  for (const Kind& k : kinds()) {
    if (k.name == name) return k;
  }
  throw ConfigError("kind", "unknown compressor \"" + name + "\"");
}

namespace {

template <typename Keep>
std::vector<std::string> names_where(Keep keep) {
  std::vector<std::string> names;
  for (const Kind& k : kinds()) {
    if (keep(k)) names.push_back(k.name);
  }
  return names;
}

}  // namespace

std::vector<std::string> kind_names() {
  return names_where([](const Kind&) { return true; });
}

std::vector<std::string> kinds_reading(Setting s) {
  return names_where([s](const Kind& k) { return k.reads(s); });
}

std::vector<std::string> kinds_with_feedback_by_default() {
  return names_where([](const Kind& k) { return k.feedback_by_default; });
}

std::string kind_legend() {
  std::string legend;
  for (const Kind& k : kinds()) legend += (legend.empty() ? "" : "; ") + k.name + " = " + k.description;
  return legend;
}

std::unique_ptr<Compressor> make_compressor(const Config& c, const std::vector<Layer>& layers) {
  return kind_named(c.kind).make(c, layers);
}

}  // namespace edgetrain::compress
