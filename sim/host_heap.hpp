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

// Whether the kernel hands out transparent huge pages for a range marked for them: its setting
// exists and is not `never`.
bool kernel_grants_huge_pages();

// Prepares `bytes` of heap for 2 MiB pages. From then on the C library takes every block of this
// thread's heap from it and never gives its top back (for the rest of the process: a later
// run's blocks come from the same marked range). False when nothing was prepared (the kernel
// grants no huge pages, the heap could not grow, madvise failed), with the library's limits as
// they were by default; the run goes on with small pages then, as it would have.
bool prepare_huge_heap(std::size_t bytes);

}  // namespace torus
