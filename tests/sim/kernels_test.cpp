// EDGETRAIN_KERNELS (src/cli/kernels.cpp): a pinned run gives the same bytes whatever kernels the
// libraries would have picked (emulated by forcing others first), an OPENBLAS_CORETYPE set by the
// environment is kept, and a bad value is one line, exit 2.
#include <doctest/doctest.h>

#include <cstdlib>

#include "cli_helpers.hpp"

using namespace test;

namespace {

const std::string kAsync =
    "--set training.mode=async --set stop.rounds=40 --set training.momentum=0.5 --set eval.every_s=0.05";

std::string outputs(const fs::path& out) {
  return slurp(out / "metrics.csv") + slurp(out / "devices.csv") + slurp(out / "staleness.csv");
}

}  // namespace

TEST_CASE("kernels: EDGETRAIN_KERNELS=avx2 gives the same bytes whatever the libraries would pick") {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return;  // nothing to pin to
  if (std::getenv("OPENBLAS_CORETYPE")) return;  // set by the environment: kept (next test)
  setenv("EDGETRAIN_KERNELS", "avx2", 1);
  const std::string pinned = outputs(run_ok("two-devices.json", kAsync, "kernels-avx2"));
  // Another CPU's kernels, as far as ATen and oneDNN go: they change the bytes, and the pin overrides them.
  setenv("ATEN_CPU_CAPABILITY", "default", 1);
  setenv("DNNL_MAX_CPU_ISA", "SSE41", 1);
  CHECK(outputs(run_ok("two-devices.json", kAsync, "kernels-avx2-over-sse")) == pinned);
  unsetenv("EDGETRAIN_KERNELS");
  CHECK(outputs(run_ok("two-devices.json", kAsync, "kernels-sse")) != pinned);
  // The pin is exactly these three settings (OpenBLAS's read before main: the process restarts).
  setenv("ATEN_CPU_CAPABILITY", "avx2", 1);
  setenv("DNNL_MAX_CPU_ISA", "AVX2", 1);
  setenv("OPENBLAS_CORETYPE", "Haswell", 1);
  CHECK(outputs(run_ok("two-devices.json", kAsync, "kernels-by-hand")) == pinned);
}

TEST_CASE("kernels: an OPENBLAS_CORETYPE set by the environment is kept, with a note") {
  if (!__builtin_cpu_supports("sse4.1")) return;
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  const std::string kept = set ? set : "Nehalem";  // not the pin's Prescott
  setenv("OPENBLAS_CORETYPE", kept.c_str(), 1);
  setenv("EDGETRAIN_KERNELS", "sse4", 1);
  const fs::path out = fresh_dir("kernels-kept");
  const Result r =
      run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + out.string() + " " + kAsync, "kept");
  REQUIRE(r.status == 0);
  CHECK(r.err.find("EDGETRAIN_KERNELS=sse4: OPENBLAS_CORETYPE=" + kept +
                   " is set by the environment and kept, so BLAS kernels are not pinned") != std::string::npos);
  // ATen and oneDNN pinned, BLAS as set: the same bytes as those settings by hand.
  unsetenv("EDGETRAIN_KERNELS");
  setenv("ATEN_CPU_CAPABILITY", "default", 1);
  setenv("DNNL_MAX_CPU_ISA", "SSE41", 1);
  const std::string pinned = outputs(out);
  CHECK(outputs(run_ok("two-devices.json", kAsync, "kernels-kept-aten")) == pinned);
}

TEST_CASE("kernels: a bad EDGETRAIN_KERNELS is one line naming it, exit 2") {
  setenv("EDGETRAIN_KERNELS", "avx9", 1);
  const Result r = run_cli("validate " + (kData / "two-devices.json").string(), "kernels-bad");
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain: EDGETRAIN_KERNELS=avx9: expected avx2, sse4 or native\n");
}
