// Built only when the program links jemalloc (cmake/Dependencies.cmake). jemalloc reads its
// settings from this symbol before its first allocation.
//
// "thp:always": every mapping it makes is marked for transparent huge pages, which Debian
// leaves to each program to ask for (/sys/kernel/mm/transparent_hugepage/enabled is
// "madvise"). At thousands of nodes the cycle engine's state spans hundreds of MiB, read in
// small pieces scattered over it: with 4 KiB pages nearly every piece also costs a walk of
// the page tables, with 2 MiB pages the whole of it fits the processor's translation cache
// (README, "Speed"). Values, cycles and every report field but the host's are the same with
// any allocator.

extern "C" {
const char* malloc_conf = "thp:always,metadata_thp:auto";
}
