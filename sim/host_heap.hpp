#pragma once
// Backs the C library's heap with 2 MiB pages for a large run. At thousands of nodes the
// engine reads small pieces scattered over hundreds of MiB, and with 4 KiB pages most of them
// also cost a walk of the page tables (README, "Speed"). The heap is grown once by the run's
// estimated memory, that range is marked for huge pages (madvise, which Debian's default
// transparent_hugepage setting `madvise` honours), and given back to the allocator untouched:
// the run's blocks are then cut from it and its pages come huge as they are first touched. Every
// block is taken from the heap from then on (none from a mapping of its own), so that the large
// ones land in the marked range too. Changes where memory comes from, never what is computed.

#include <cstddef>

namespace torus {

// Bytes of estimated memory from which huge_pages `auto` prepares the heap of a cycle-engine
// run: below it a run's state stays in the caches' reach, and clearing whole 2 MiB pages on
// first touch costs more than the page walks it saves (README, "Speed").
inline constexpr std::size_t huge_heap_auto_bytes = std::size_t{256} << 20;

// Prepares `bytes` of heap for 2 MiB pages. False when the host refused (the heap could not
// grow, or madvise failed: a kernel without transparent huge pages); the run goes on with
// small pages then, as it would have.
bool prepare_huge_heap(std::size_t bytes);

}  // namespace torus
