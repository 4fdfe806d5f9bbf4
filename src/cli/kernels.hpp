// EDGETRAIN_KERNELS: the opt-in that pins LibTorch's, OpenBLAS's and oneDNN's kernels to one
// instruction set, so that results are the same on every CPU that has it (docs/explanation/determinism.md).
// Unset (or "native"), each library picks the kernels of the CPU it runs on.
#pragma once

#include <string>

namespace edgetrain::cli {

// Applies EDGETRAIN_KERNELS before any library chose its kernels: sets ATEN_CPU_CAPABILITY,
// DNNL_MAX_CPU_ISA and ONEDNN_MAX_CPU_ISA, and OPENBLAS_CORETYPE unless the environment set it already
// (some processors need theirs: it is never overridden). OpenBLAS reads it when it is loaded, with the
// LibTorch module after main; were it loaded already with other kernels, the process executes itself
// again with it set. Returns an error message (empty when all is well); a note for the user goes to
// stderr.
std::string pin_kernels(char** argv);

}  // namespace edgetrain::cli
