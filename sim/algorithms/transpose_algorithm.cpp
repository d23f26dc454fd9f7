#include "sim/algorithms/transpose_fft.hpp"

#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

// The transpose family's own check of its Programs, and the Algorithm that wraps a plan.
namespace torus {
namespace {

// The algorithm's proofs: in every stage, each block of the stage's piece grid is made on one
// node only, from pieces that agree with it off the stage's axis and whose extents along it sum
// to the axis length, each piece once, each with the coefficient block of its rows and columns.
class TransposeProof {
 public:
  explicit TransposeProof(const Program& program) : p_(program) {}

  AlgorithmCheck run() {
    for (std::uint32_t s = 0; s < p_.stages.size(); ++s) check_stage(p_.stages[s]);
    return std::move(out_);
  }

 private:
  void fail(const std::string& what) { out_.add(what); }

  void check_stage(const StageInfo& stage) {
    const std::string name = p_.transforms[stage.transform] + " stage " + std::to_string(stage.stage);
    const auto x = static_cast<std::size_t>(stage.mode - 1);
    const std::size_t length = p_.grid.tensor_extents()[x];
    std::map<DataTag, std::pair<std::size_t, std::size_t>> made;  // block: (node, words along the axis)
    std::map<DataTag, std::set<std::int32_t>> reduced;
    for (std::size_t n = 0; n < p_.nodes.size(); ++n)
      for (const Task& task : p_.nodes[n].tasks) {
        if (task.label.transform != stage.transform || task.label.stage != stage.stage) continue;
        if (task.kind == TaskKind::Fft) {
          check_fft(name, stage, n, p_.nodes[n].detail(task), made);
          continue;
        }
        if (task.kind != TaskKind::Compute) continue;
        const TaskDetail& t = p_.nodes[n].detail(task);
        const Extents3 acc = p_.extents_of(t.tag), in = p_.extents_of(t.operand_tag);
        const Extents3 acc_at = p_.origin_of(t.tag), in_at = p_.origin_of(t.operand_tag);
        bool fits = p_.kernels[t.kernel].mode == stage.mode;
        for (std::size_t a = 0; a < 3; ++a) fits = fits && (a == x || (acc[a] == in[a] && acc_at[a] == in_at[a]));
        const Extents3 c = p_.extents_of(t.coefficient_tag), c_at = p_.origin_of(t.coefficient_tag);
        fits = fits && p_.tag_kinds[t.coefficient_tag.kind].axis == stage.mode && c[0] == in[x] && c[1] == acc[x] &&
               c_at[0] == in_at[x] && c_at[1] == acc_at[x];
        if (!fits) fail(name + ": " + p_.describe(t.tag) + " += " + p_.describe(t.operand_tag) + " x" + std::to_string(stage.mode) +
                        " " + p_.describe(t.coefficient_tag) + " does not fit");
        auto [it, fresh] = made.try_emplace(t.tag, n, 0);
        if (!fresh && it->second.first != n) fail(name + ": " + p_.describe(t.tag) + " is made on two nodes");
        if (!reduced[t.tag].insert(static_cast<std::int32_t>(in_at[x])).second)
          fail(name + ": " + p_.describe(t.tag) + " gets " + p_.describe(t.operand_tag) + " twice");
        it->second.second += in[x];
      }
    std::size_t words = 0;
    for (const auto& [tag, where] : made) {
      if (where.second != length)
        fail(fmt::format("{}: {} sums {} of the {} elements along axis {}", name, p_.describe(tag), where.second, length, stage.mode));
      words += p_.words_of(tag);
    }
    const Extents3 e = p_.grid.tensor_extents();
    if (words != e[0] * e[1] * e[2]) fail(fmt::format("{}: its blocks hold {} of the tensor's {} elements", name, words, e[0] * e[1] * e[2]));
  }

  // An FFT task makes each of its output pieces from whole lines along the stage's axis.
  void check_fft(const std::string& name, const StageInfo& stage, std::size_t n, const TaskDetail& t,
                 std::map<DataTag, std::pair<std::size_t, std::size_t>>& made) {
    const FftSpec& f = p_.ffts.at(t.kernel);
    const auto x = static_cast<std::size_t>(stage.mode - 1);
    if (f.axis != stage.mode || f.whole[x] != p_.grid.tensor_extents()[x])
      fail(name + ": FFT " + f.name + " does not transform whole lines along axis " + std::to_string(stage.mode));
    for (std::uint32_t i = 0; i < f.outputs; ++i) {
      const DataTag tag = slice_tag(t.tag, f.output_cut, i);
      if (!made.try_emplace(tag, n, f.whole[x]).second) fail(name + ": " + p_.describe(tag) + " is made twice");
    }
  }

  const Program& p_;
  AlgorithmCheck out_;
};

}  // namespace

AlgorithmCheck prove_transpose_program(const Program& program) { return TransposeProof(program).run(); }

namespace {

class TransposeAlgorithm final : public Algorithm {
 public:
  TransposeAlgorithm(std::string name, std::function<TransposePlan(const TransformProblem&)> plan)
      : name_(std::move(name)), plan_(std::move(plan)) {}
  std::string name() const override { return name_; }
  Program build(const TransformProblem& problem) const override {
    const TransposePlan plan = plan_(problem);
    return build_transpose_program(plan, problem);
  }
  AlgorithmCheck check(const TransformProblem& problem) const override { return prove_transpose_program(build(problem)); }
  bool coefficients_local() const override { return true; }
  bool blocks_per_node() const override { return false; }

 private:
  std::string name_;
  std::function<TransposePlan(const TransformProblem&)> plan_;
};

}  // namespace

std::unique_ptr<Algorithm> make_transpose_algorithm(std::string name,
                                                    std::function<TransposePlan(const TransformProblem&)> plan) {
  return std::make_unique<TransposeAlgorithm>(std::move(name), std::move(plan));
}

}  // namespace torus
