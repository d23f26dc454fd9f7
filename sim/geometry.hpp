#pragma once
// Torus geometry: node coordinates (Q, R, S), the six link directions and neighbour
// arithmetic. Each axis is a torus (with the wrap-around link) or a mesh (without it: the
// smaller partitions of real machines); an algorithm's rings still close on a mesh axis, by a
// route the long way round through the routers (ring_route).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
std::string to_string(Topology topology);  // "torus", "mesh"

// P1 x P2 x P3 nodes, each axis a torus or a mesh.
struct TorusShape {
  int p1 = 1;
  int p2 = 1;
  int p3 = 1;
  std::array<Topology, 3> boundary{Topology::Torus, Topology::Torus, Topology::Torus};  // per axis Q, R, S

  static TorusShape cube(int p, Topology topology = Topology::Torus) { return {p, p, p, {topology, topology, topology}}; }
  int extent(Axis axis) const { return axis == Axis::Q ? p1 : axis == Axis::R ? p2 : p3; }
  bool is_cube() const { return p1 == p2 && p2 == p3; }
  bool wraps(Axis axis) const { return boundary[static_cast<std::size_t>(axis)] == Topology::Torus; }
  bool torus() const { return wraps(Axis::Q) && wraps(Axis::R) && wraps(Axis::S); }
  std::size_t node_count() const {
    return static_cast<std::size_t>(p1) * static_cast<std::size_t>(p2) * static_cast<std::size_t>(p3);
  }
  // Q fastest: index = q + P1 (r + P2 s).
  std::size_t index_of(const NodeCoord& node) const {
    return static_cast<std::size_t>(node.q + p1 * (node.r + p2 * node.s));
  }
  NodeCoord coord_of(std::size_t index) const;
  bool contains(const NodeCoord& node) const;
  // The node one link away; empty on a mesh axis when the hop would leave the array.
  std::optional<NodeCoord> neighbour(const NodeCoord& node, Direction direction) const;
  // The next node of the ring along `direction`, wrapping on every axis (an algorithm's rings).
  NodeCoord ring_neighbour(const NodeCoord& node, Direction direction) const;
};

// The route from `from` to its ring neighbour in `direction`: that one link, or on a mesh axis
// where the wrap-around link does not exist, P_a - 1 hops the other way through the routers.
std::vector<Direction> ring_route(const TorusShape& shape, const NodeCoord& from, Direction direction);
// The hops of a whole roll: every node's ring_route in `direction`, summed (to size the Program's
// pooled routes before it is built).
std::size_t ring_roll_hops(const TorusShape& shape, Direction direction);

// The route from `from` to `to` one axis at a time (Q, then R, then S), each the short way
// round on a torus axis (the + way on a tie) and straight across on a mesh axis: the
// dimension-order routing of the transpose algorithms' all-to-all messages.
std::vector<Direction> shortest_route(const TorusShape& shape, const NodeCoord& from, const NodeCoord& to);
// The route that moves a node by `delta` links along each axis in the + direction (Q, then R,
// then S), wrapping round: a translation of the whole torus, as a SIMD machine shifts data.
std::vector<Direction> forward_route(const TorusShape& shape, const NodeCoord& delta);
// The nodes in boustrophedon order (Q fastest, reversing direction on every other R row and
// every other S layer): consecutive nodes are neighbours, a Hamiltonian path of the array.
std::vector<NodeCoord> snake_order(const TorusShape& shape);

// One word when every axis agrees ("torus", "mesh"), else one per axis: "torus,mesh,mesh".
std::string boundary_text(const TorusShape& shape);
// "torus", "mesh" (every axis) or three separated by commas; throws std::invalid_argument
// naming `boundary`, the value and what is allowed.
// `torus_from:K` is every axis a torus on a torus of at least K nodes (`nodes`), else every
// axis a mesh, as the partitions of a Blue Gene/P: 512 nodes and more are tori.
std::array<Topology, 3> parse_boundary(std::string_view text, std::size_t nodes = 1);

// Throws std::invalid_argument naming the parameter when an extent is below 1.
void validate(const TorusShape& shape);

}  // namespace torus
