#pragma once
// Scheduling vectors alpha = (aQ, aR, aS) in {+1,-1}^3 and the time function
// T(Q,R,S) = (aQ Q + aR R + aS S) mod P that places every block in the orbit.

#include <array>
#include <string>
#include <string_view>

#include "sim/geometry.hpp"

namespace torus {

struct SchedulingVector {
  std::array<int, 3> sign{+1, +1, +1};  // aQ, aR, aS

  int along(Axis axis) const { return sign[static_cast<std::size_t>(axis)]; }
  // T(node) in [0, p).
  int time_of(const NodeCoord& node, int p) const {
    const int t = sign[0] * node.q + sign[1] * node.r + sign[2] * node.s;
    return ((t % p) + p) % p;
  }
  std::string to_string() const;  // "+-+"
  // Accepts "+-+" or "1,-1,1"; throws std::invalid_argument naming the value otherwise.
  static SchedulingVector parse(std::string_view text);
  friend bool operator==(const SchedulingVector&, const SchedulingVector&) = default;
};

// All eight vectors, "+++" first.
const std::array<SchedulingVector, 8>& all_scheduling_vectors();

}  // namespace torus
