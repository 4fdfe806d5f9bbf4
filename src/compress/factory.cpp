// Maps a compressor kind to its implementation (one file per family).
#include "compress/compressor.hpp"
#include "compress/kinds.hpp"

namespace edgetrain::compress {

std::unique_ptr<Compressor> make_compressor(const Config& c, const std::vector<Layer>& layers) {
  if (c.kind == "none") return make_none(c, layers);
  if (c.kind == "fp16") return make_fp16(c, layers);
  if (c.kind == "topk") return make_topk(c, layers);
  if (c.kind == "randomk") return make_randomk(c, layers);
  if (c.kind == "threshold") return make_threshold(c, layers);
  if (c.kind == "adacomp") return make_adacomp(c, layers);
  if (c.kind == "adacomp-bins") return make_adacomp_bins(c, layers);
  if (c.kind == "qsgd") return make_qsgd(c, layers);
  if (c.kind == "terngrad") return make_terngrad(c, layers);
  if (c.kind == "signsgd") return make_signsgd(c, layers);
  if (c.kind == "onebit") return make_onebit(c, layers);
  if (c.kind == "powersgd") return make_powersgd(c, layers);
  throw ConfigError("kind", "unknown compressor \"" + c.kind + "\"");
}

}  // namespace edgetrain::compress
