// The memory pages the process's allocator (mimalloc) asks the kernel for.
#pragma once

namespace edgetrain::cli {

// Asks mimalloc for 2 MiB pages where the kernel grants them (transparent huge pages set to
// "madvise" or "always"; elsewhere nothing changes), unless MIMALLOC_LARGE_OS_PAGES says otherwise.
void use_large_pages();

}  // namespace edgetrain::cli
