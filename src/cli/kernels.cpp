// See kernels.hpp. The names are those Debian 12's libraries accept: ATen 1.13 reads
// ATEN_CPU_CAPABILITY (default, avx2, avx512) at its first dispatch and does not check the CPU;
// OpenBLAS 0.3.21 (DYNAMIC_ARCH) reads OPENBLAS_CORETYPE at load and silently ignores a name it does
// not know; oneDNN 2.6 reads ONEDNN_MAX_CPU_ISA, else DNNL_MAX_CPU_ISA, at its first primitive (a
// ceiling: never above the CPU). OpenBLAS and oneDNN come with the LibTorch module, which the process
// loads after main: a setting made here reaches them (blas_core() is null until then).
#include "cli/kernels.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace edgetrain::cli {
namespace {

struct Pin {
  const char* name;
  const char* aten;
  const char* blas;
  const char* dnnl;
  const char* needs;  // what the CPU must have (ATen would crash on a CPU without it)
  bool (*has)();
};

// avx2: every Intel CPU since Haswell (2013) and AMD since Excavator; sse4: any x86-64 with SSE4.1
// (OpenBLAS's Prescott kernels need SSE3).
const Pin kPins[] = {
    {"avx2", "avx2", "Haswell", "AVX2", "AVX2 and FMA",
     [] { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }},
    {"sse4", "default", "Prescott", "SSE41", "SSE4.1", [] { return __builtin_cpu_supports("sse4.1") != 0; }},
};

// The kernels OpenBLAS chose when it was loaded, or nullptr when the BLAS is another library.
const char* blas_core() {
  using Corename = char* (*)();
  auto* name = reinterpret_cast<Corename>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return name ? name() : nullptr;
}

}  // namespace

std::string pin_kernels(char** argv) {
  const char* asked = std::getenv("EDGETRAIN_KERNELS");
  if (!asked || !*asked || std::strcmp(asked, "native") == 0) return "";
  const Pin* pin = nullptr;
  for (const Pin& p : kPins)
    if (std::strcmp(asked, p.name) == 0) pin = &p;
  if (!pin) return std::string("EDGETRAIN_KERNELS=") + asked + ": expected avx2, sse4 or native";
  if (!pin->has()) return std::string("EDGETRAIN_KERNELS=") + asked + ": this CPU lacks " + pin->needs;
  setenv("ATEN_CPU_CAPABILITY", pin->aten, 1);
  setenv("DNNL_MAX_CPU_ISA", pin->dnnl, 1);
  setenv("ONEDNN_MAX_CPU_ISA", pin->dnnl, 1);  // read before DNNL_'s: one left in the environment would win
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  if (set && strcasecmp(set, pin->blas) != 0) {
    std::fprintf(stderr,
                 "edgetrain: EDGETRAIN_KERNELS=%s: OPENBLAS_CORETYPE=%s is set by the environment and kept, so "
                 "BLAS kernels are not pinned\n",
                 asked, set);
    return "";
  }
  if (set) return "";
  setenv("OPENBLAS_CORETYPE", pin->blas, 1);
  // OpenBLAS reads it once, when it is loaded: mostly later, with the LibTorch module (dlopen); if some
  // library brought it in before main with other kernels, the process starts again with it set.
  const char* core = blas_core();
  if (!core || strcasecmp(core, pin->blas) == 0) return "";
  execv("/proc/self/exe", argv);  // returns only on failure
  return std::string("EDGETRAIN_KERNELS=") + asked + ": cannot restart with OPENBLAS_CORETYPE=" + pin->blas +
         " (" + std::strerror(errno) + ")";
}

}  // namespace edgetrain::cli
