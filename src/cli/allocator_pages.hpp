// The memory pages the process's allocator (mimalloc) asks the kernel for.
#pragma once

namespace edgetrain::cli {

// mimalloc asks for 2 MiB pages where the kernel grants them (transparent huge pages set to
// "madvise" or "always"; elsewhere nothing changes). With whole_segments it commits what it maps a
// segment at a time, the fewest page faults; without, as the memory is used. For the memory mapped
// from then on; MIMALLOC_LARGE_OS_PAGES and MIMALLOC_EAGER_COMMIT, when set, win.
void use_large_pages(bool whole_segments);

}  // namespace edgetrain::cli
