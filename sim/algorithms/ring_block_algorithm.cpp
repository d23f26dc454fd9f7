// The algorithm ring_block_fft as the registry sees it (sim/algorithms/factories.hpp): its
// name, the Program sim/algorithms/ring_block_fft.cpp builds, and its check, which adds to the
// transpose family's proof that every output ends home. Apart from the builder, as
// transpose_algorithm.cpp is from transpose_fft.cpp: the check reads a finished Program and
// needs none of the builder's state.

#include <set>

#include <fmt/format.h>

#include "sim/algorithms/factories.hpp"
#include "sim/algorithms/ring_block_plan.hpp"
#include "sim/algorithms/transpose_fft.hpp"

namespace torus {
namespace {

// Beyond the family's proof: each output's entries tile every node's own block of seed 000's
// layout (inside it, every element once), so the result is where orbital leaves its blocks.
void check_outputs_home(const Program& program, const BlockGrid& blocks, AlgorithmCheck& out) {
  for (const ProgramOutput& output : program.outputs) {
    std::vector<std::size_t> words(program.node_count(), 0);
    std::set<DataTag> seen;
    for (std::size_t i = 0; i < output.entries(); ++i) {
      const std::size_t node = output.node_of(i);
      const NodeCoord c = program.shape.coord_of(node);
      const std::array<std::int32_t, 3> home{c.q, c.r, c.s};
      const Extents3 e = program.extents_of(output.tag[i]), o = program.origin_of(output.tag[i]);
      const Extents3 be = blocks.extents(home), bo = blocks.origin(home);
      bool inside = seen.insert(output.tag[i]).second;
      for (std::size_t x = 0; x < 3; ++x) inside = inside && o[x] >= bo[x] && o[x] + e[x] <= bo[x] + be[x];
      if (!inside) out.add(output.name + ": " + program.describe(output.tag[i]) + " on node " + program.describe_node(node) +
                           " is not a new piece of its block");
      words[node] += e[0] * e[1] * e[2];
    }
    for (std::size_t node = 0; node < words.size(); ++node) {
      const NodeCoord c = program.shape.coord_of(node);
      if (words[node] != blocks.words({c.q, c.r, c.s}))
        out.add(fmt::format("{}: node {} ends with {} of its block's {} elements", output.name, program.describe_node(node),
                            words[node], blocks.words({c.q, c.r, c.s})));
    }
  }
}

class RingBlockFft final : public Algorithm {
 public:
  std::string name() const override { return "ring_block_fft"; }
  Program build(const TransformProblem& problem) const override {
    const RingBlockPlan plan = plan_ring_block(problem);
    return build_ring_block_program(plan, problem);
  }
  // The transpose family's proof (every piece of each stage made once, from whole lines), and
  // the outputs home.
  AlgorithmCheck check(const TransformProblem& problem) const override {
    const Program program = build(problem);
    AlgorithmCheck out = prove_transpose_program(program);
    check_outputs_home(program, problem.grid, out);
    return out;
  }
  bool coefficients_local() const override { return true; }
  // Messages per node and step grow with the ring (17.7 GB measured against an estimate of
  // 404 MiB from the orbital counts, N = 64 on 16^3 nodes with dense local kernels).
  bool memory_from_program() const override { return true; }
};

}  // namespace

std::unique_ptr<Algorithm> make_ring_block_fft() { return std::make_unique<RingBlockFft>(); }

}  // namespace torus
