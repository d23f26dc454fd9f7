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

}  // namespace

TEST_CASE("blocks allocated after the heap is prepared lie in a mapping marked for huge pages", "[host][memory]") {
  constexpr std::size_t prepared = std::size_t{64} << 20, block_bytes = std::size_t{16} << 20;
  if (built_with_address_sanitizer) {  // its allocator maps blocks of its own: nothing is marked, and it says so
    CHECK_FALSE(prepare_huge_heap(prepared));
    return;
  }
  REQUIRE(prepare_huge_heap(prepared));
  void* block = std::malloc(block_bytes);  // above the allocator's own mapping threshold: from the heap only now
  REQUIRE(block != nullptr);
  std::memset(block, 1, block_bytes);
  const std::string middle = vm_flags_of(static_cast<char*>(block) + block_bytes / 2);
  INFO(middle);
  CHECK(middle.find(" hg") != std::string::npos);
  std::free(block);
}

TEST_CASE("a heap that cannot hold the request is not prepared", "[host][memory][errors]") {
  if (built_with_address_sanitizer) {
    SUCCEED("the sanitizer's allocator stops the process on such a request rather than failing it");
    return;
  }
  CHECK_FALSE(prepare_huge_heap(std::size_t{1} << 62));  // no host lends 4 EiB: the run goes on with small pages
}
