#include "sim/geometry.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace torus {

Direction direction_along(Axis axis, int sign) {
  const int base = 2 * static_cast<int>(axis);
  return static_cast<Direction>(sign >= 0 ? base : base + 1);
}

Axis axis_of(Direction direction) { return static_cast<Axis>(static_cast<int>(direction) / 2); }

int sign_of(Direction direction) { return static_cast<int>(direction) % 2 == 0 ? +1 : -1; }

Direction opposite(Direction direction) { return direction_along(axis_of(direction), -sign_of(direction)); }

std::string to_string(Axis axis) {
  static const std::array<const char*, 3> names = {"Q", "R", "S"};
  return names[static_cast<std::size_t>(axis)];
}

std::string to_string(Direction direction) {
  return fmt::format("{}{}", sign_of(direction) > 0 ? '+' : '-', to_string(axis_of(direction)));
}

std::string to_string(const NodeCoord& node) {
  return fmt::format("({},{},{})", node.q, node.r, node.s);
}

NodeCoord TorusShape::coord_of(std::size_t index) const {
  const auto i = static_cast<int>(index);
  return {i % p1, (i / p1) % p2, i / (p1 * p2)};
}

bool TorusShape::contains(const NodeCoord& node) const {
  return node.q >= 0 && node.q < p1 && node.r >= 0 && node.r < p2 && node.s >= 0 && node.s < p3;
}

std::optional<NodeCoord> TorusShape::neighbour(const NodeCoord& node, Direction direction) const {
  const Axis axis = axis_of(direction);
  const int extent_along = extent(axis);
  NodeCoord next = node;
  const int moved = node[axis] + sign_of(direction);
  if (topology == Topology::Mesh && (moved < 0 || moved >= extent_along)) return std::nullopt;
  next[axis] = ((moved % extent_along) + extent_along) % extent_along;
  return next;
}

void validate(const TorusShape& shape) {
  for (Axis axis : {Axis::Q, Axis::R, Axis::S})
    if (shape.extent(axis) < 1)
      throw std::invalid_argument("P" + std::to_string(static_cast<int>(axis) + 1) + ": " +
                                  std::to_string(shape.extent(axis)) +
                                  " nodes is not allowed; each torus extent must be at least 1");
}

}  // namespace torus
