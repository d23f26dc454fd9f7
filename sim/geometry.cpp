#include "sim/geometry.hpp"

#include <charconv>
#include <cstdlib>
#include <cstdint>
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

std::string to_string(Topology topology) { return topology == Topology::Torus ? "torus" : "mesh"; }

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
  if (!wraps(axis) && (moved < 0 || moved >= extent_along)) return std::nullopt;
  next[axis] = ((moved % extent_along) + extent_along) % extent_along;
  return next;
}

NodeCoord TorusShape::ring_neighbour(const NodeCoord& node, Direction direction) const {
  const Axis axis = axis_of(direction);
  const int extent_along = extent(axis);
  NodeCoord next = node;
  next[axis] = ((node[axis] + sign_of(direction)) % extent_along + extent_along) % extent_along;
  return next;
}

std::vector<Direction> ring_route(const TorusShape& shape, const NodeCoord& from, Direction direction) {
  if (shape.neighbour(from, direction)) return {direction};
  return std::vector<Direction>(static_cast<std::size_t>(shape.extent(axis_of(direction)) - 1), opposite(direction));
}

std::size_t ring_roll_hops(const TorusShape& shape, Direction direction) {
  std::size_t hops = 0;
  for (std::size_t n = 0; n < shape.node_count(); ++n) hops += ring_route(shape, shape.coord_of(n), direction).size();
  return hops;
}

std::vector<Direction> shortest_route(const TorusShape& shape, const NodeCoord& from, const NodeCoord& to) {
  std::vector<Direction> route;
  for (const Axis axis : {Axis::Q, Axis::R, Axis::S}) {
    const int p = shape.extent(axis);
    int delta = to[axis] - from[axis];
    if (shape.wraps(axis)) {
      delta = ((delta % p) + p) % p;
      if (2 * delta > p) delta -= p;
    }
    route.insert(route.end(), static_cast<std::size_t>(std::abs(delta)), direction_along(axis, delta >= 0 ? +1 : -1));
  }
  return route;
}

std::vector<Direction> forward_route(const TorusShape& shape, const NodeCoord& delta) {
  std::vector<Direction> route;
  for (const Axis axis : {Axis::Q, Axis::R, Axis::S}) {
    const int p = shape.extent(axis);
    route.insert(route.end(), static_cast<std::size_t>(((delta[axis] % p) + p) % p), direction_along(axis, +1));
  }
  return route;
}

std::vector<NodeCoord> snake_order(const TorusShape& shape) {
  std::vector<NodeCoord> order;
  order.reserve(shape.node_count());
  for (int s = 0; s < shape.p3; ++s)
    for (int i = 0; i < shape.p2; ++i) {
      const int r = s % 2 == 0 ? i : shape.p2 - 1 - i;
      const int row = s * shape.p2 + i;  // rows visited so far decide the Q direction
      for (int j = 0; j < shape.p1; ++j) order.push_back({row % 2 == 0 ? j : shape.p1 - 1 - j, r, s});
    }
  return order;
}

std::array<Topology, 3> parse_boundary(std::string_view text, std::size_t nodes) {
  const std::invalid_argument bad("boundary: '" + std::string(text) +
                                  "' is not allowed; allowed: torus, mesh, one per axis Q,R,S such as torus,mesh,mesh, "
                                  "or torus_from:K (K a whole number of nodes from 1 to 68719476736)");
  constexpr std::string_view rule = "torus_from:";
  if (text.starts_with(rule)) {
    const std::string_view digits = text.substr(rule.size());
    std::uint64_t from = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), from);
    if (error != std::errc() || end != digits.data() + digits.size() || from < 1 || from > (std::uint64_t{1} << 36)) throw bad;
    const Topology all = nodes >= from ? Topology::Torus : Topology::Mesh;
    return {all, all, all};
  }
  const auto one = [&bad](std::string_view word) {
    if (word == "torus") return Topology::Torus;
    if (word == "mesh") return Topology::Mesh;
    throw bad;
  };
  std::vector<std::string_view> words;
  for (std::size_t from = 0;;) {
    const std::size_t comma = text.find(',', from);
    words.push_back(text.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from));
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  if (words.size() == 1) return {one(words[0]), one(words[0]), one(words[0])};
  if (words.size() != 3) throw bad;
  return {one(words[0]), one(words[1]), one(words[2])};
}

std::string boundary_text(const TorusShape& shape) {
  if (shape.boundary[0] == shape.boundary[1] && shape.boundary[1] == shape.boundary[2]) return to_string(shape.boundary[0]);
  return to_string(shape.boundary[0]) + "," + to_string(shape.boundary[1]) + "," + to_string(shape.boundary[2]);
}

void validate(const TorusShape& shape) {
  for (Axis axis : {Axis::Q, Axis::R, Axis::S})
    if (shape.extent(axis) < 1)
      throw std::invalid_argument("P" + std::to_string(static_cast<int>(axis) + 1) + ": " +
                                  std::to_string(shape.extent(axis)) +
                                  " nodes is not allowed; each torus extent must be at least 1");
}

}  // namespace torus
