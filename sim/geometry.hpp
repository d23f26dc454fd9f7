#pragma once
// Torus geometry: node coordinates (Q, R, S), the six link directions and neighbour
// arithmetic with wrap-around. A mesh (no wrap-around) exists only so the schedule verifier
// can show why the orbital schedule needs the torus.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace torus {

enum class Axis : std::uint8_t { Q = 0, R = 1, S = 2 };

// Link directions; the enum value indexes a node's six ports.
enum class Direction : std::uint8_t { PlusQ = 0, MinusQ, PlusR, MinusR, PlusS, MinusS };
inline constexpr std::size_t direction_count = 6;
inline constexpr std::array<Direction, direction_count> all_directions = {
    Direction::PlusQ, Direction::MinusQ, Direction::PlusR,
    Direction::MinusR, Direction::PlusS, Direction::MinusS};

Direction direction_along(Axis axis, int sign);  // sign is +1 or -1
Axis axis_of(Direction direction);
int sign_of(Direction direction);
Direction opposite(Direction direction);
std::string to_string(Axis axis);
std::string to_string(Direction direction);  // "+Q", "-S", ...

struct NodeCoord {
  int q = 0;
  int r = 0;
  int s = 0;
  int operator[](Axis axis) const { return axis == Axis::Q ? q : axis == Axis::R ? r : s; }
  int& operator[](Axis axis) { return axis == Axis::Q ? q : axis == Axis::R ? r : s; }
  friend bool operator==(const NodeCoord&, const NodeCoord&) = default;
  friend auto operator<=>(const NodeCoord&, const NodeCoord&) = default;
};
std::string to_string(const NodeCoord& node);  // "(q,r,s)"

enum class Topology : std::uint8_t { Torus, Mesh };

// P1 x P2 x P3 nodes. The orbital schedule itself needs P1 = P2 = P3; the shape type is
// general so rectangular arrays can be added without changing node addressing.
struct TorusShape {
  int p1 = 1;
  int p2 = 1;
  int p3 = 1;
  Topology topology = Topology::Torus;

  static TorusShape cube(int p, Topology topology = Topology::Torus) { return {p, p, p, topology}; }
  int extent(Axis axis) const { return axis == Axis::Q ? p1 : axis == Axis::R ? p2 : p3; }
  bool is_cube() const { return p1 == p2 && p2 == p3; }
  std::size_t node_count() const {
    return static_cast<std::size_t>(p1) * static_cast<std::size_t>(p2) * static_cast<std::size_t>(p3);
  }
  // Q fastest: index = q + P1 (r + P2 s).
  std::size_t index_of(const NodeCoord& node) const {
    return static_cast<std::size_t>(node.q + p1 * (node.r + p2 * node.s));
  }
  NodeCoord coord_of(std::size_t index) const;
  bool contains(const NodeCoord& node) const;
  // The node one hop away; empty on a mesh when the hop would leave the array.
  std::optional<NodeCoord> neighbour(const NodeCoord& node, Direction direction) const;
};

// Throws std::invalid_argument naming the parameter when an extent is below 1.
void validate(const TorusShape& shape);

}  // namespace torus
