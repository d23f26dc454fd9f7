#pragma once
// Asking for a range of memory before a loop walks it. A node's state is touched a few
// times per step, by loops of a few dozen instructions per word; at thousands of nodes it
// is no longer in the cache when the node wakes, and such a loop reaches its next cache line
// only after the last one has come: the lines come one after another, a memory latency each.
// Asked for at once, they come together. A hint only: nothing read or written changes.

#include <cstddef>
#include <cstdint>

namespace torus {

inline constexpr std::size_t cache_line_bytes = 64;
// More lines than the processor can have in flight would only queue behind the first.
inline constexpr std::size_t prefetch_line_limit = 16;

// The lines of `bytes` bytes from `first` (the first `line_limit` of them), to be read
// (`for_write`: to be written).
template <bool for_write = false>
inline void prefetch_bytes(const void* first, std::size_t bytes, std::size_t line_limit = prefetch_line_limit) {
  const auto at = reinterpret_cast<std::uintptr_t>(first);
  const std::uintptr_t begin = at & ~std::uintptr_t{cache_line_bytes - 1};
  std::uintptr_t end = at + bytes;
  if (end - begin > line_limit * cache_line_bytes) end = begin + line_limit * cache_line_bytes;
  for (std::uintptr_t line = begin; line < end; line += cache_line_bytes)
    __builtin_prefetch(reinterpret_cast<const void*>(line), for_write ? 1 : 0);
}

// The lines of `count` elements from `first`.
template <bool for_write = false, class T>
inline void prefetch_span(const T* first, std::size_t count) {
  if (first && count > 0) prefetch_bytes<for_write>(first, count * sizeof(T));
}

}  // namespace torus
