#include "sim/block_grid.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace torus {

std::size_t AxisSplit::block_of(std::size_t i) const {
  const std::size_t q = n / parts, r = n % parts;
  const std::size_t in_large = r * (q + 1);  // elements held by the larger blocks
  return i < in_large ? i / (q + 1) : r + (i - in_large) / q;
}

BlockGrid BlockGrid::cube(std::size_t b, std::size_t parts) {
  const AxisSplit split{b * parts, parts};
  return {{split, split, split}};
}

BlockGrid BlockGrid::make(const Extents3& n, const std::array<std::size_t, 3>& parts) {
  BlockGrid grid;
  for (std::size_t a = 0; a < 3; ++a) {
    if (parts[a] < 1 || n[a] < parts[a])
      throw std::invalid_argument(fmt::format(
          "P: {} nodes along axis {} but N = {} has {} elements there; allowed: at most as many nodes as elements along "
          "each axis (every node holds at least one element)",
          parts[a], a + 1, extents_text(n), n[a]));
    grid.axis[a] = {n[a], parts[a]};
  }
  return grid;
}

Extents3 BlockGrid::extents(const std::array<std::int32_t, 3>& index) const {
  Extents3 e{};
  for (std::size_t a = 0; a < 3; ++a) e[a] = axis[a].size(static_cast<std::size_t>(index[a]));
  return e;
}

Extents3 BlockGrid::origin(const std::array<std::int32_t, 3>& index) const {
  Extents3 o{};
  for (std::size_t a = 0; a < 3; ++a) o[a] = axis[a].offset(static_cast<std::size_t>(index[a]));
  return o;
}

std::size_t BlockGrid::words(const std::array<std::int32_t, 3>& index) const {
  const Extents3 e = extents(index);
  return e[0] * e[1] * e[2];
}

bool BlockGrid::uniform_cube() const {
  return even() && axis[0].largest() == axis[1].largest() && axis[1].largest() == axis[2].largest();
}

std::string BlockGrid::describe_blocks() const {
  if (uniform_cube()) return std::to_string(axis[0].largest());
  std::string out;
  for (std::size_t a = 0; a < 3; ++a) {
    const AxisSplit& s = axis[a];
    if (a > 0) out += "x";
    out += s.even() ? std::to_string(s.largest()) : fmt::format("{}-{}", s.n / s.parts, s.largest());
  }
  return out;
}

std::string extents_text(const Extents3& e) {
  if (e[0] == e[1] && e[1] == e[2]) return std::to_string(e[0]);
  return fmt::format("{}x{}x{}", e[0], e[1], e[2]);
}

}  // namespace torus
