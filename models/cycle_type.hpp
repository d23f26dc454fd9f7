#pragma once
// Time in whole clock cycles, shared by every engine; `never` marks an event that has not
// happened (or cannot).

#include <cstdint>

namespace torus {

using Cycle = std::uint64_t;
inline constexpr Cycle never = ~Cycle{0};

}  // namespace torus
