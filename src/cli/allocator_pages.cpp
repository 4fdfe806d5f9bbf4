// See allocator_pages.hpp. A large fleet's actors each get a stack that SimGrid zeroes (calloc), and
// a round's transfers allocate and free by the hundred thousand: on 4 KiB pages the kernel's page
// faults and mimalloc's returns of freed pages took a third of a timing-only run of 100,000 devices.
// LibTorch's tensors are another matter: 5,000 devices training for real peaked 0.5 GB higher on
// 2 MiB pages (docs/reference/benchmarks.md, "The allocator"). Results do not depend on it.
#include "cli/allocator_pages.hpp"

#include <mimalloc.h>

#include <cstdlib>

namespace edgetrain::cli {

void use_large_pages(bool on) {
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) mi_option_set_enabled(mi_option_large_os_pages, on);
}

}  // namespace edgetrain::cli
