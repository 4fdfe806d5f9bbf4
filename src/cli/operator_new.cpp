// The throwing global operator new, over malloc. mimalloc, the process's allocator (CMakeLists.txt),
// also replaces operator new, but its build aborts when an allocation fails instead of throwing
// std::bad_alloc: running out of memory must stay one line naming the phase (exit 2), as on glibc.
// Only the throwing forms are replaced here; the nothrow forms and every operator delete stay
// mimalloc's, which frees what its malloc gave.
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

void* allocate(std::size_t size, std::size_t alignment) {
  if (size == 0) size = 1;
  while (true) {
    void* p = nullptr;
    if (alignment <= alignof(std::max_align_t)) {
      p = std::malloc(size);
    } else if (posix_memalign(&p, alignment, size) != 0) {
      p = nullptr;
    }
    if (p) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size, 0); }
void* operator new[](std::size_t size) { return allocate(size, 0); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  return allocate(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return allocate(size, static_cast<std::size_t>(alignment));
}
