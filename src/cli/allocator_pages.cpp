// See allocator_pages.hpp. A large fleet's actors each get a stack that SimGrid zeroes (calloc), and
// a round's transfers allocate and free by the hundred thousand: on 4 KiB pages the kernel's page
// faults and mimalloc's returns of freed pages took a third of a timing-only run of 100,000 devices.
// Real training commits as it goes: LibTorch's tensors leave much of a segment untouched, and 5,000
// devices peaked 0.5 GB higher with whole segments (docs/reference/benchmarks.md, "The allocator").
// Results do not depend on either.
#include "cli/allocator_pages.hpp"

#include <mimalloc.h>

#include <cstdlib>

namespace edgetrain::cli {

void use_large_pages(bool whole_segments) {
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) mi_option_enable(mi_option_large_os_pages);
  if (std::getenv("MIMALLOC_EAGER_COMMIT") == nullptr) mi_option_set_enabled(mi_option_eager_commit, whole_segments);
}

}  // namespace edgetrain::cli
