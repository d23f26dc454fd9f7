#pragma once
// The orbital schedule as inspectable data: for every stage, step and node, the block
// multiply-add it performs and the blocks every node rolls afterwards. The generator, the
// verifier, the functional executor and the SystemC sequencer all read this one structure.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/block_grid.hpp"
#include "sim/geometry.hpp"
#include "sim/scheduling_vector.hpp"

namespace torus {

// X input/output, Xdot and Xddot the partial results after one and two stages (the paper's
// dotted X), Y the transform, CoefA the b x b coefficient block of axis A's matrix.
enum class BlockKind : std::uint8_t { X = 0, Xdot, Xddot, Y, Coef1, Coef2, Coef3 };
inline constexpr std::size_t block_kind_count = 7;
std::string to_string(BlockKind kind);  // "X", "X'", "X''", "Y", "C1", "C2", "C3"
bool is_coefficient(BlockKind kind);
BlockKind coefficient_kind(int axis);  // axis 1..3
// b^3 for tensor blocks, b^2 for coefficient blocks: words_in the block `block` of `grid`
// (a coefficient block (n, k) of axis a: size(n) x size(k) of axis a), and the largest such.
struct BlockId;
std::size_t words_in(const BlockId& block, const BlockGrid& grid);
std::size_t largest_words_in(BlockKind kind, const BlockGrid& grid);
int axis_of(BlockKind kind);  // coefficient kinds: 1..3; tensor kinds: 0

// A tensor block is named by its block coordinates (i1, i2, i3); a coefficient block by
// (input block, output block) in index[0], index[1] (index[2] = 0).
struct BlockId {
  BlockKind kind = BlockKind::X;
  std::array<int, 3> index{0, 0, 0};
  friend bool operator==(const BlockId&, const BlockId&) = default;
  friend auto operator<=>(const BlockId&, const BlockId&) = default;
};
std::string to_string(const BlockId& block);  // "X'(0,1,2)", "C3(2,1)"

struct Placement {
  NodeCoord node;
  BlockId block;
};

// accumulator += operand x_mode coefficient, performed by `node`.
struct BlockMultiplyAdd {
  NodeCoord node;
  BlockId accumulator;
  BlockId operand;
  BlockId coefficient;
  int mode = 1;
};

// After the step's compute, every node sends its block of `kind` one hop along `direction`.
struct Roll {
  BlockKind kind;
  Direction direction;
};

struct ScheduleStep {
  std::vector<BlockMultiplyAdd> ops;
  std::vector<Roll> rolls;
};

struct ScheduleStage {
  int number = 1;  // 1, 2, 3 (I, II, III)
  int mode = 1;
  std::string summary;               // e.g. "n3 -> k3: X'(Q,R,k) += X(Q,R,S) x3 C3(S,k)"
  std::vector<Placement> created;    // accumulators, zero, placed at the stage's start
  std::vector<ScheduleStep> steps;   // P steps
};

enum class TransformDirection : std::uint8_t { Forward, Inverse };
std::string to_string(TransformDirection direction);

struct Schedule {
  TorusShape shape;
  BlockGrid grid;  // blocks along each axis: P of them, sizes differing by at most one
  SchedulingVector alpha;
  TransformDirection direction = TransformDirection::Forward;
  BlockKind input_kind = BlockKind::X;
  BlockKind output_kind = BlockKind::Y;
  std::vector<Placement> initial;  // input blocks and every coefficient block, before stage I
  std::vector<ScheduleStage> stages;

  int p() const { return shape.p1; }
};

// Which nodes a generated schedule lists: all, or only node (0,0,0). Every node runs the same
// stage forms (only the block indices differ), so node (0,0,0) alone stands for the torus when
// only the shape of the work matters (sim/algorithms/orbital.cpp, the translation quotient).
enum class ScheduleNodes : std::uint8_t { All, FirstOnly };

// The schedule of shared algebra for one direction; throws std::invalid_argument naming the
// parameter when the shape is not a cube (the schedule maps node coordinates onto other tensor
// axes, see the message) or the grid does not cut every axis into P blocks. Blocks may differ
// in size: the index algebra does not depend on it.
Schedule generate_schedule(const TorusShape& shape, const BlockGrid& grid, const SchedulingVector& alpha,
                           TransformDirection direction, ScheduleNodes nodes = ScheduleNodes::All);
// b x b x b blocks (N = b P).
Schedule generate_schedule(const TorusShape& shape, std::size_t block_size, const SchedulingVector& alpha,
                           TransformDirection direction, ScheduleNodes nodes = ScheduleNodes::All);

// Node `node`'s share of generate_schedule(..., All), without the steps: what it holds at the
// start (its entries of Schedule::initial, in that order) and the accumulator each stage
// creates on it. The shape and grid must be ones generate_schedule accepts.
struct NodePlacements {
  BlockKind input_kind{};
  std::vector<BlockId> initial;
  std::array<BlockId, 3> created{};
};
NodePlacements node_placements(const TorusShape& shape, const SchedulingVector& alpha, TransformDirection direction,
                               std::size_t node);

// Where a block of `kind` sits at the start (or end) of the schedule: the node of each
// initial placement / of each stage-III accumulator after its final roll.
std::vector<Placement> final_layout(const Schedule& schedule);

// Counts read off the schedule alone (no arithmetic): the figures the paper derives in its
// complexity analysis (3P steps, b^4 fma per step, b^3 + b^2 or 2 b^3 words moved, 4 b^3 + 3 b^2 held).
struct StageCounts {
  std::size_t words_moved_per_node_step = 0;  // sum of rolled block sizes (the largest, over nodes and steps)
};
struct ScheduleCounts {
  std::size_t steps = 0;
  std::size_t block_multiply_adds = 0;
  std::size_t scalar_multiply_adds = 0;   // b^4 per block multiply-add of b x b x b blocks
  std::size_t words_held_per_node = 0;    // peak over nodes, before receive buffers
  std::array<StageCounts, 3> stage{};
  // Read off a Program: its messages, their hops in all and the most of one message.
  std::size_t messages = 0, hops = 0, max_hops = 0;
  std::size_t fft_butterflies = 0;  // of the Program's FFT tasks
};
ScheduleCounts count(const Schedule& schedule);

std::string format_text(const Schedule& schedule);  // compact, one line per node-step
nlohmann::json to_json(const Schedule& schedule);

}  // namespace torus
