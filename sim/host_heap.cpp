#include "sim/host_heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace torus {

namespace {

constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;

// The C library's default limits (mallopt(3)), put back when the heap could not be prepared (their
// adjustment to the blocks freed, which any mallopt of them ends, stays off).
void restore_allocator() {
  mallopt(M_MMAP_MAX, 65536);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
}

}  // namespace

bool kernel_grants_huge_pages() {
  std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  return static_cast<bool>(std::getline(setting, text)) && text.find("[never]") == std::string::npos;
}

bool prepare_huge_heap(std::size_t bytes) {
  if (!kernel_grants_huge_pages()) return false;  // nothing changed: no page would come huge
  // Every block from the heap, and the heap's top never given back: a top given back and taken
  // again would come unmarked (at a top of 2 GiB or more under any finite threshold).
  if (mallopt(M_MMAP_MAX, 0) == 0 || mallopt(M_TRIM_THRESHOLD, -1) == 0) {
    restore_allocator();
    return false;
  }
  void* block = std::malloc(bytes);  // grows the heap's break by about `bytes`, touching only its header
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const auto begin = reinterpret_cast<std::uintptr_t>(block);
  // An allocator that does not grow the break (a sanitizer's, or the break blocked by a mapping)
  // handed out memory elsewhere: nothing there is the heap's to mark.
  const bool from_break = block != nullptr && end > begin && end - begin <= bytes + huge_page * 32;
  const std::uintptr_t first = (begin + huge_page - 1) / huge_page * huge_page;  // whole huge pages inside
  const std::uintptr_t last = end / huge_page * huge_page;
  const bool marked = from_break && last > first && madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) == 0;
  std::free(block);
  if (!marked) restore_allocator();
  return marked;
}

}  // namespace torus
