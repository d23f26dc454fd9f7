#pragma once
// Matrix multiplication on the torus (task: matmul): C = A B with A m x k and B k x n on an
// Nr x Nc processor array laid on one Q x R plane of the torus (node (l, m) of the array is
// torus node (Q, R, S) = (l, m, 0)). Its own extension point: one Program generator per
// algorithm (sim/algorithms/), registered by name in sim/matmul.cpp and selected with
// `algorithm`. A block product is a mode-3 product: C(l,m) (mb x 1 x nb) += A(l,v)
// (mb x 1 x kb) x3 B(v,m) (kb x nb), so the engines run it like any other Program.

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/accuracy.hpp"
#include "sim/algorithm.hpp"
#include "sim/program.hpp"

namespace torus {

struct MatmulProblem {
  TorusShape shape;  // Nr x Nc x 1
  std::size_t m = 1, k = 1, n = 1;
  // The ring algorithms' (sim/algorithms/ring_matmul.hpp): hypersystolic's K (0: the divisor
  // of p nearest sqrt(p) from below) and the mapping, "ring" or "plane".
  std::size_t stride = 0;
  std::string mapping = "ring";
  int rows() const { return shape.p1; }     // Nr
  int columns() const { return shape.p2; }  // Nc
};

// Names of what a matmul Program declares, shared by every matmul generator: tag kinds
// (C 0, A 1, B 2, and "one" 3 where a Program adds blocks), host arrays (A 0, B 1, one 2) and
// the one output.
inline constexpr std::uint16_t matmul_c = 0, matmul_a = 1, matmul_b = 2, matmul_one = 3;
inline constexpr const char* matmul_output = "C";

// How a matmul Program cuts C (row_parts x column_parts blocks; A into row_parts x k_parts, B
// into k_parts x column_parts) and which block of C each node ends with: (row block, column
// block). With `adds`, the Program also declares the 1 x 1 block "one" of the host's third
// operand (the scalar 1): a mode-2 product acc (mb x 1 x nb) += X (mb x 1 x nb) x2 one is
// acc += X, one multiply-add per word, how a partial sum of C is added to another.
struct MatmulLayout {
  std::size_t row_parts = 1, column_parts = 1, k_parts = 1;
  std::function<std::array<std::int32_t, 2>(std::size_t node)> c_block;
  bool adds = false;
};
// A Program with C cut as `layout` says (Program::grid is m x 1 x n, C(i,0,j)), A(i,0,v) and
// B(v,j); no node holds a task yet.
Program matmul_skeleton(const MatmulProblem& problem, const MatmulLayout& layout, const std::string& algorithm);
// C cut m x n over Nr x Nc with C(l,0,m) at node (l,m), and k into `k_parts` blocks.
Program matmul_skeleton(const MatmulProblem& problem, std::size_t k_parts, const std::string& algorithm);

// Counts read off a matmul Program (no arithmetic), machine-independent. A node's alignment
// (or pre-shift) is every send of a block it loaded and never reads itself; a shift of an
// operand is a step in which the node sends blocks of it that it has read (or summed). A relay
// (a send of a block the node received and never reads, at a dateline) belongs to the phase of
// the message it passes on: its words and hops count there, but not its step.
struct MatmulCounts {
  std::size_t compute_steps = 0;        // distinct steps with a block product
  std::size_t block_products = 0;       // compute tasks, all nodes
  std::size_t scalar_multiply_adds = 0; // m k n when every product is done once
  std::size_t block_adds = 0;           // compute tasks adding a partial sum of C (x2 one), all nodes
  std::size_t scalar_adds = 0;          // their words
  std::size_t a_shifts = 0, b_shifts = 0, c_shifts = 0;          // per node, the most over nodes
  std::size_t a_shifts_min = 0, b_shifts_min = 0, c_shifts_min = 0;  // per node, the fewest over nodes
  std::size_t a_shift_words = 0, b_shift_words = 0, c_shift_words = 0;  // all nodes
  std::size_t a_shift_words_per_node = 0, b_shift_words_per_node = 0, c_shift_words_per_node = 0;  // the most over nodes
  std::size_t alignment_phases = 0;  // 1 when blocks move before their first use (a pre-shift), else 0
  std::size_t max_shift_hops = 0;   // the longest shift message (a stride-K shift on a ring: K)
  // Shift operations as Lippert et al. count them: the alignment (pre-shift) as one, and
  // every node's shifts of A, B and C (the most over nodes).
  std::size_t total_shifts() const { return alignment_phases + a_shifts + b_shifts + c_shifts; }
  std::size_t alignment_messages = 0, alignment_hops = 0, alignment_max_hops = 0;
  std::size_t alignment_words_per_node = 0;  // sent, the most over nodes
  std::size_t words_held_per_node = 0;       // buffers declared, the most over nodes
  std::size_t words_sent = 0, words_sent_per_node = 0;  // every send (alignment, shifts, relays): all, the most over nodes
};
MatmulCounts count_matmul(const Program& program);

// The matmul proof every generator's check() runs: at every node (l, m) the computes are
// C(l,0,m) += A(l,0,v) x B(v,m) for every v of 0..k_parts-1 exactly once, the first zeroing
// C. With the generic verifier (each buffer holds the block its tag says), this proves C = A B.
AlgorithmCheck prove_block_products(const Program& program);

// The proof for Programs that sum parts of C away from its home and add them up on the way
// back (the ring algorithms): follows which inner blocks v each buffer of C sums, for which
// C(i,0,j), through block products, adds (x2 one) and messages, in task order; a receive fills
// its buffer once the message is sent. Checks that every product adds A(i,0,v) x B(v,j) into a
// buffer summing C(i,0,j), every add joins sums of the same block, and every node's output
// ends with its block of C summing each v of 0..k_parts-1 exactly once.
AlgorithmCheck prove_partial_sums(const Program& program);

// Contract: build() returns a Program that the generic verifier accepts, whose output "C"
// holds C(l,0,m) at node (l, m); it throws std::invalid_argument naming the parameter when the
// problem does not suit the algorithm. check() runs the algorithm's own proofs on it.
class MatmulAlgorithm {
 public:
  virtual ~MatmulAlgorithm() = default;
  virtual std::string name() const = 0;
  // Throws std::invalid_argument naming the parameter when the problem does not suit it.
  virtual void require(const MatmulProblem& problem) const = 0;
  virtual Program build(const MatmulProblem& problem) const = 0;
  virtual AlgorithmCheck check(const MatmulProblem& problem) const = 0;
};

// What the generators on the Nr x Nc array (C cut Nr x Nc) ask of a problem: m >= Nr, n >= Nc,
// k >= k_least (k_text says why), and a torus on Q and R (`rings` says what runs on them);
// throws std::invalid_argument naming the parameter, the value and what is allowed.
void require_on_array(const MatmulProblem& problem, const std::string& algorithm, std::size_t k_least,
                      const std::string& k_text, const std::string& rings);

std::unique_ptr<MatmulAlgorithm> make_matmul_algorithm(const std::string& name);
std::vector<std::string> matmul_algorithm_names();
// What algorithm: auto runs for `problem` (sim/algorithms/auto_matmul.cpp): a_stationary when
// m >= 8 n, b_stationary when n >= 16 m, else systolic.
std::string chosen_matmul_algorithm(const MatmulProblem& problem);

// What a matmul run reports beyond the timing.
struct MatmulOutcome {
  MatmulProblem problem;
  MatmulCounts counts;
  std::string chosen;      // the algorithm that ran (auto: the one the library rule chose)
  std::size_t stride = 0;  // the ring algorithms' K (systolic_ring: 1); 0 for the others
  std::string mapping;     // theirs: "ring" or "plane"
  std::size_t violations = 0;  // the algorithm's proofs and the generic verifier
  std::string first_violation;
  ErrorReport error;     // against the Eigen product
  std::string mismatch;  // the first block beyond its bound, if any
};

}  // namespace torus
