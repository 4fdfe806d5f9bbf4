// The memory pages the process's allocator (mimalloc) asks the kernel for.
#pragma once

namespace edgetrain::cli {

// Whether mimalloc asks for 2 MiB pages, where the kernel grants them (transparent huge pages set to
// "madvise" or "always"; elsewhere nothing changes), for the memory it maps from then on.
// MIMALLOC_LARGE_OS_PAGES, when set, wins.
void use_large_pages(bool on);

}  // namespace edgetrain::cli
