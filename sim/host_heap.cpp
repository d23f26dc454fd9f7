#include "sim/host_heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>

namespace torus {

bool prepare_huge_heap(std::size_t bytes) {
  constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;
  // Every block from the heap, and its top kept once freed: what is marked below stays the heap's.
  if (mallopt(M_MMAP_MAX, 0) == 0 || mallopt(M_TRIM_THRESHOLD, INT_MAX) == 0) return false;
  void* block = std::malloc(bytes);  // grows the heap's break by about `bytes`, touching only its header
  if (!block) return false;
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const auto begin = reinterpret_cast<std::uintptr_t>(block);
  // An allocator that does not grow the break (a sanitizer's, or the break blocked by a mapping)
  // handed out memory elsewhere: nothing here is the heap's to mark.
  if (end <= begin || end - begin > bytes + huge_page * 32) {
    std::free(block);
    return false;
  }
  const std::uintptr_t first = (begin + huge_page - 1) / huge_page * huge_page;  // whole huge pages inside
  const std::uintptr_t last = end / huge_page * huge_page;
  const bool marked = last > first && madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) == 0;
  std::free(block);
  return marked;
}

}  // namespace torus
