#pragma once
// How ring_block_fft (sim/algorithms/ring_block_fft.cpp) cuts the b1 x b2 x b3 block each node
// of a P1 x P2 x P3 torus holds (the orbital layout of seed 000: block (q,r,s) on node (q,r,s)).
//
// For the transform of axis a, the P_a nodes of each ring along a share the ring's cross-section
// lines: the two other axes x, y are cut into split[a][x] x split[a][y] = P_a shares, and ring
// node m gets share m (all N_a elements of each of its lines). Pieces move whole, one per
// message, and a local FFT task reads and writes slices along one axis only, so the pieces
// between two phases are blocks of one grid (pieces()): along axis x, each node's b_x elements
// cut into as many parts as the share counts of the two phases beside it ask for. The ring of
// the next axis must then cut the third axis as the ring before it did (the chain rule below),
// else a piece one ring hands on would be split across the next ring's shares.

#include <array>
#include <cstddef>

#include "sim/algorithm.hpp"

namespace torus {

struct RingBlockPlan {
  std::array<std::size_t, 3> p{1, 1, 1}, b{1, 1, 1};  // torus extents and block extents per axis
  std::array<int, 3> order{3, 1, 2};  // forward: the axes in the order they are transformed (seed 000's stages)
  // split[a][x]: into how many shares the rings along axis a + 1 cut their lines' extent along
  // axis x + 1 (split[a][a] = 1, the product over x is P_{a+1}). Chain rule: for consecutive
  // axes a, a' of `order` and the third axis z, split[a][z] == split[a'][z].
  std::array<std::array<std::size_t, 3>, 3> split{};

  // The grid of the pieces entering phase k = 0..2 (k = 3: leaving the last) of a transform
  // whose axes run in `axes` (order, or reversed for the inverse).
  BlockGrid pieces(const std::array<int, 3>& axes, std::size_t k, const Extents3& n) const;
  // Messages each node sends per transform: per phase (P_a - 1) partners, one message per
  // piece, pieces per partner the cut of axis a in the grids before and after the phase.
  std::size_t messages_per_node() const;
};

// The plan for the problem: the share counts with the fewest messages that obey the chain
// rule. Throws std::invalid_argument naming the parameter when the problem does not fit: a mesh
// boundary, blocks of different sizes, or a ring with more nodes than its cross-section has
// lines to share (b^2 < P on a P x P x P torus).
RingBlockPlan plan_ring_block(const TransformProblem& problem);

// The Program of the plan for the problem (sim/algorithms/ring_block_fft.cpp): every direction
// in order, each output listing the pieces every node ends with. Throws std::invalid_argument
// naming local_kernel when it asks for FFT tasks on an axis whose DFT has no power-of-two length.
Program build_ring_block_program(const RingBlockPlan& plan, const TransformProblem& problem);

}  // namespace torus
