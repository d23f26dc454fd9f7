// The heap prepared for huge pages: blocks allocated afterwards lie in a mapping the kernel has
// marked for them (its VmFlags carry `hg`), whatever the kernel then grants. Each test case runs
// in a process of its own (ctest), so the allocator settings it changes end with it.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/host_heap.hpp"
#include "tests/address_sanitizer.hpp"

using namespace torus;

namespace {

// The VmFlags line of the mapping of /proc/self/smaps that holds `address`, or "" if none does.
std::string vm_flags_of(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t low = 0, high = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> low >> dash >> high && dash == '-') {  // a mapping's first line
      inside = low <= at && at < high;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

// Prepares `prepared` bytes, then allocates a block above the allocator's own mapping threshold
// (from the heap only now) and reads the flags of the mapping that holds it.
void check_marked_after(std::size_t prepared) {
  constexpr std::size_t block_bytes = std::size_t{16} << 20;
  if (built_with_address_sanitizer || !kernel_grants_huge_pages()) {
    // The sanitizer's allocator maps blocks of its own; a kernel without the pages grants none.
    CHECK_FALSE(prepare_huge_heap(prepared));
    return;
  }
  REQUIRE(prepare_huge_heap(prepared));
  void* block = std::malloc(block_bytes);
  REQUIRE(block != nullptr);
  std::memset(block, 1, block_bytes);
  const std::string middle = vm_flags_of(static_cast<char*>(block) + block_bytes / 2);
  INFO(middle);
  CHECK(middle.find(" hg") != std::string::npos);
  std::free(block);
}

}  // namespace

TEST_CASE("blocks allocated after the heap is prepared lie in a mapping marked for huge pages", "[host][memory]") {
  check_marked_after(std::size_t{64} << 20);
}

// Address space only: the prepared range is never touched but for the block's 16 MiB.
TEST_CASE("a prepared heap of 3 GiB stays marked once its block is given back", "[host][memory]") {
  check_marked_after(std::size_t{3} << 30);
}

TEST_CASE("a heap that cannot hold the request is not prepared", "[host][memory][errors]") {
  if (built_with_address_sanitizer) {
    SUCCEED("the sanitizer's allocator stops the process on such a request rather than failing it");
    return;
  }
  CHECK_FALSE(prepare_huge_heap(std::size_t{1} << 62));  // no host lends 4 EiB: the run goes on with small pages
}
