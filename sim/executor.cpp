#include "sim/executor.hpp"

#include <algorithm>
#include <complex>
#include <stdexcept>

#include "kernels/mode_product.hpp"

namespace torus {
namespace {

template <class T>
struct HeldBlock {
  BlockId id;
  Tensor3<T> tensor;   // tensor blocks
  Matrix<T> matrix;    // coefficient blocks
  std::size_t words() const { return is_coefficient(id.kind) ? static_cast<std::size_t>(matrix.size()) : tensor.size(); }
};

template <class T>
using NodeMemory = std::array<std::optional<HeldBlock<T>>, block_kind_count>;

template <class T>
class ScheduleMachine {
 public:
  ScheduleMachine(const Schedule& schedule, const Tensor3<T>& input, const std::array<Matrix<T>, 3>& coefficients)
      : schedule_(schedule), input_(input), coefficients_(coefficients), memory_(schedule.shape.node_count()) {
    const Extents3 n = schedule.grid.tensor_extents();
    if (input.extents() != n) throw std::invalid_argument("input tensor is not " + extents_text(n) + " (N)");
    for (std::size_t a = 0; a < 3; ++a)
      if (static_cast<std::size_t>(coefficients[a].rows()) != n[a] || static_cast<std::size_t>(coefficients[a].cols()) != n[a])
        throw std::invalid_argument("coefficient matrix of axis " + std::to_string(a + 1) + " is not N_a x N_a with N_a = " +
                                    std::to_string(n[a]));
  }

  ExecutionResult<T> run() {
    for (const Placement& p : schedule_.initial) hold(p, load(p.block));
    for (const ScheduleStage& stage : schedule_.stages) {
      for (const Placement& p : stage.created) hold(p, zero_block(p.block));
      auto& moved = counts_.words_moved_per_node_step[static_cast<std::size_t>(stage.number - 1)];
      auto& moved_min = counts_.words_moved_per_node_step_min[static_cast<std::size_t>(stage.number - 1)];
      moved_min = static_cast<std::size_t>(-1);
      for (const ScheduleStep& step : stage.steps) {
        for (const BlockMultiplyAdd& op : step.ops) multiply_add(op);
        std::vector<std::size_t> sent(memory_.size(), 0);
        for (const Roll& roll : step.rolls) apply_roll(roll, sent);
        moved = std::max(moved, *std::max_element(sent.begin(), sent.end()));
        moved_min = std::min(moved_min, *std::min_element(sent.begin(), sent.end()));
        ++counts_.steps;
      }
      if (stage.steps.empty()) moved_min = 0;
    }
    return gather();
  }

 private:
  HeldBlock<T> load(const BlockId& id) const {
    HeldBlock<T> block{id, {}, {}};
    if (is_coefficient(id.kind)) {
      const auto a = static_cast<std::size_t>(axis_of(id.kind) - 1);
      const AxisSplit& split = schedule_.grid.axis[a];
      const auto at = [&](int index) { return static_cast<Eigen::Index>(split.offset(static_cast<std::size_t>(index))); };
      const auto size = [&](int index) { return static_cast<Eigen::Index>(split.size(static_cast<std::size_t>(index))); };
      block.matrix = coefficients_[a].block(at(id.index[0]), at(id.index[1]), size(id.index[0]), size(id.index[1]));
    } else {
      block.tensor = input_.block(origin(id), extents(id));
    }
    return block;
  }

  HeldBlock<T> zero_block(const BlockId& id) const { return {id, Tensor3<T>(extents(id)), {}}; }

  Extents3 origin(const BlockId& id) const { return schedule_.grid.origin({id.index[0], id.index[1], id.index[2]}); }
  Extents3 extents(const BlockId& id) const { return schedule_.grid.extents({id.index[0], id.index[1], id.index[2]}); }

  void hold(const Placement& p, HeldBlock<T> block) {
    const std::size_t node = schedule_.shape.index_of(p.node);
    auto& slot = memory_[node][static_cast<std::size_t>(p.block.kind)];
    if (slot) throw std::logic_error("node " + to_string(p.node) + " already holds " + to_string(slot->id));
    slot = std::move(block);
    std::size_t held = 0;
    for (const auto& s : memory_[node])
      if (s) held += s->words();
    counts_.words_held_per_node = std::max(counts_.words_held_per_node, held);
  }

  HeldBlock<T>& at(const NodeCoord& node, const BlockId& id) {
    auto& slot = memory_[schedule_.shape.index_of(node)][static_cast<std::size_t>(id.kind)];
    if (!slot || slot->id != id)
      throw std::logic_error("node " + to_string(node) + " does not hold " + to_string(id) + " (unverified schedule?)");
    return *slot;
  }

  void multiply_add(const BlockMultiplyAdd& op) {
    HeldBlock<T>& acc = at(op.node, op.accumulator);
    const HeldBlock<T>& operand = at(op.node, op.operand);
    const HeldBlock<T>& coefficient = at(op.node, op.coefficient);
    mode_product_accumulate(acc.tensor, operand.tensor, coefficient.matrix, op.mode);
    ++counts_.block_multiply_adds;
    counts_.scalar_multiply_adds += acc.tensor.size() * static_cast<std::size_t>(coefficient.matrix.rows());
  }

  void apply_roll(const Roll& roll, std::vector<std::size_t>& sent) {
    const std::size_t kind = static_cast<std::size_t>(roll.kind);
    std::vector<std::optional<HeldBlock<T>>> arriving(memory_.size());
    for (std::size_t i = 0; i < memory_.size(); ++i) {
      auto& slot = memory_[i][kind];
      if (!slot) throw std::logic_error("node " + to_string(schedule_.shape.coord_of(i)) + " has no " + to_string(roll.kind) + " to roll");
      const NodeCoord to = schedule_.shape.ring_neighbour(schedule_.shape.coord_of(i), roll.direction);
      sent[i] += slot->words();
      arriving[schedule_.shape.index_of(to)] = std::move(slot);
      slot.reset();
    }
    for (std::size_t i = 0; i < memory_.size(); ++i) memory_[i][kind] = std::move(arriving[i]);
  }

  ExecutionResult<T> gather() {
    ExecutionResult<T> result;
    result.canonical = Tensor3<T>(schedule_.grid.tensor_extents());
    result.node_output.resize(memory_.size());
    for (std::size_t i = 0; i < memory_.size(); ++i) {
      const auto& slot = memory_[i][static_cast<std::size_t>(schedule_.output_kind)];
      if (!slot) throw std::logic_error("node " + to_string(schedule_.shape.coord_of(i)) + " ends without an output block");
      result.canonical.set_block(origin(slot->id), slot->tensor);
      result.layout.push_back({schedule_.shape.coord_of(i), slot->id});
      result.node_output[i] = slot->tensor;
    }
    result.counts = counts_;
    return result;
  }

  const Schedule& schedule_;
  const Tensor3<T>& input_;
  const std::array<Matrix<T>, 3>& coefficients_;
  std::vector<NodeMemory<T>> memory_;
  ExecutionCounts counts_;
};

}  // namespace

template <class T>
ExecutionResult<T> execute_schedule(const Schedule& schedule, const Tensor3<T>& input,
                                    const std::array<Matrix<T>, 3>& coefficients) {
  return ScheduleMachine<T>(schedule, input, coefficients).run();
}

template ExecutionResult<float> execute_schedule(const Schedule&, const Tensor3<float>&, const std::array<Matrix<float>, 3>&);
template ExecutionResult<double> execute_schedule(const Schedule&, const Tensor3<double>&, const std::array<Matrix<double>, 3>&);
template ExecutionResult<std::complex<float>> execute_schedule(const Schedule&, const Tensor3<std::complex<float>>&,
                                                               const std::array<Matrix<std::complex<float>>, 3>&);
template ExecutionResult<std::complex<double>> execute_schedule(const Schedule&, const Tensor3<std::complex<double>>&,
                                                                const std::array<Matrix<std::complex<double>>, 3>&);

}  // namespace torus
