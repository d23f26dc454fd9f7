#pragma once
// How an N1 x N2 x N3 tensor is cut into blocks: along axis a, N_a elements into parts_a
// blocks, the first N_a mod parts_a of them one element larger, the way MPI codes distribute
// data over a process grid. A square coefficient matrix of axis a is cut the same way along
// both its rows and its columns, so block (n, k) of it is size(n) x size(k).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/tensor3.hpp"

namespace torus {

struct AxisSplit {
  std::size_t n = 1;      // elements
  std::size_t parts = 1;  // blocks, at most n
  std::size_t size(std::size_t block) const { return n / parts + (block < n % parts ? 1 : 0); }
  std::size_t offset(std::size_t block) const { return block * (n / parts) + std::min(block, n % parts); }
  std::size_t largest() const { return n / parts + (n % parts != 0 ? 1 : 0); }
  bool even() const { return n % parts == 0; }
  // The block holding element i.
  std::size_t block_of(std::size_t i) const;
  friend bool operator==(const AxisSplit&, const AxisSplit&) = default;
};

struct BlockGrid {
  std::array<AxisSplit, 3> axis;

  // The cube of b x b x b blocks of an N x N x N tensor (N = b * parts).
  static BlockGrid cube(std::size_t b, std::size_t parts);
  // Throws std::invalid_argument naming N and P when an axis has fewer elements than blocks.
  static BlockGrid make(const Extents3& n, const std::array<std::size_t, 3>& parts);

  Extents3 tensor_extents() const { return {axis[0].n, axis[1].n, axis[2].n}; }
  // Extents and first element of tensor block (i1, i2, i3).
  Extents3 extents(const std::array<std::int32_t, 3>& index) const;
  Extents3 origin(const std::array<std::int32_t, 3>& index) const;
  std::size_t words(const std::array<std::int32_t, 3>& index) const;
  // Words of the largest tensor block.
  std::size_t largest_words() const { return axis[0].largest() * axis[1].largest() * axis[2].largest(); }
  // Every block of the tensor has the same extents.
  bool even() const { return axis[0].even() && axis[1].even() && axis[2].even(); }
  // Every block is b x b x b with the same b.
  bool uniform_cube() const;
  // "4" (b x b x b), "4x5x3" (one size per axis), "2-3x3-4x5" (uneven axes give their range).
  std::string describe_blocks() const;
  friend bool operator==(const BlockGrid&, const BlockGrid&) = default;
};

// "16" or "16x8x4"
std::string extents_text(const Extents3& extents);

}  // namespace torus
