#include "sim/verifier.hpp"

#include <map>
#include <optional>
#include <set>

namespace torus {

std::string to_string(const Violation& v) {
  static const std::array<const char*, 4> roman = {"", "I", "II", "III"};
  std::string where = v.stage == 0 ? "before stage I"
                      : v.stage > 3 ? "after stage III"
                                    : "stage " + std::string(roman[static_cast<std::size_t>(v.stage)]);
  if (v.stage >= 1 && v.stage <= 3) where += v.step >= 0 ? ", step " + std::to_string(v.step) : ", stage boundary";
  return where + ", node " + to_string(v.node) + (v.block.empty() ? "" : ", block " + v.block) + ": " + v.message;
}

namespace {

using Holdings = std::vector<std::array<std::optional<BlockId>, block_kind_count>>;

// Which step performed each (accumulator block, reduction block) multiply-add of a stage: P^4
// of them (13 million a stage at P = 60, where a tree of them took about a gigabyte), so kept
// dense, one int per pair of an accumulator kind whose indices lie on the torus; any other pair
// (a broken schedule's) in a map.
class PerformedSteps {
 public:
  explicit PerformedSteps(std::size_t p) : p_(p) {}

  // Records step t for the pair unless a step already did it: then returns that step and false.
  std::pair<int, bool> emplace(const BlockId& accumulator, int reduction, int t) {
    if (!on_torus(accumulator, reduction)) {
      const auto [it, inserted] = others_.emplace(std::make_pair(accumulator, reduction), t);
      return {it->second, inserted};
    }
    const auto k = static_cast<std::size_t>(accumulator.kind);
    if (dense_[k].empty()) dense_[k].assign(p_ * p_ * p_ * p_, not_yet);
    std::size_t at = static_cast<std::size_t>(reduction);
    for (const int i : accumulator.index) at = at * p_ + static_cast<std::size_t>(i);
    int& step = dense_[k][at];
    if (step != not_yet) return {step, false};
    step = t;
    ++dense_count_;
    return {t, true};
  }
  std::size_t size() const { return dense_count_ + others_.size(); }

 private:
  static constexpr int not_yet = -1;
  bool on_torus(const BlockId& block, int reduction) const {
    const auto in = [this](int i) { return i >= 0 && static_cast<std::size_t>(i) < p_; };
    return in(reduction) && in(block.index[0]) && in(block.index[1]) && in(block.index[2]);
  }
  std::size_t p_;
  std::array<std::vector<int>, block_kind_count> dense_;
  std::size_t dense_count_ = 0;
  std::map<std::pair<BlockId, int>, int> others_;
};

class Replay {
 public:
  Replay(const Schedule& schedule, std::size_t max_reported)
      : schedule_(schedule), max_reported_(max_reported), held_(schedule.shape.node_count()) {}

  VerificationReport run() {
    for (const Placement& p : schedule_.initial) {
      place(p, "initial");
      complete_.insert(p.block);
    }
    for (const ScheduleStage& stage : schedule_.stages) run_stage(stage);
    check_output();
    return std::move(report_);
  }

 private:
  void fail(int stage, int step, const NodeCoord& node, const std::string& block, const std::string& message) {
    ++report_.violation_count;
    if (report_.violations.size() < max_reported_) report_.violations.push_back({stage, step, node, block, message});
  }

  std::optional<BlockId>& slot(const NodeCoord& node, BlockKind kind) {
    return held_[schedule_.shape.index_of(node)][static_cast<std::size_t>(kind)];
  }

  void place(const Placement& p, const char* what) {
    if (!schedule_.shape.contains(p.node)) {
      fail(stage_, -1, p.node, to_string(p.block), std::string(what) + " placement on a node outside the torus");
      return;
    }
    auto& s = slot(p.node, p.block.kind);
    if (s) fail(stage_, -1, p.node, to_string(p.block), "node already holds " + to_string(*s) + " of the same kind");
    s = p.block;
  }

  void run_stage(const ScheduleStage& stage) {
    stage_ = stage.number;
    const std::size_t p = static_cast<std::size_t>(schedule_.p());
    if (stage.steps.size() != p)
      fail(stage_, -1, {}, "", "has " + std::to_string(stage.steps.size()) + " steps; P = " + std::to_string(p) + " needed");
    for (const Placement& c : stage.created) place(c, "accumulator");
    const Holdings at_start = held_;
    PerformedSteps performed(p);
    std::map<BlockId, std::size_t> contributions;
    std::set<BlockKind> rolled;
    for (std::size_t t = 0; t < stage.steps.size(); ++t) {
      const ScheduleStep& step = stage.steps[t];
      check_ops(stage, static_cast<int>(t), step, performed, contributions);
      for (const Roll& roll : step.rolls) {
        apply_roll(static_cast<int>(t), roll);
        rolled.insert(roll.kind);
      }
    }
    check_home(at_start, rolled);
    check_coverage(stage, performed, contributions);
  }

  void check_ops(const ScheduleStage& stage, int t, const ScheduleStep& step,
                 PerformedSteps& performed, std::map<BlockId, std::size_t>& contributions) {
    std::vector<int> ops_per_node(schedule_.shape.node_count(), 0);
    for (const BlockMultiplyAdd& op : step.ops) {
      ++report_.block_multiply_adds_checked;
      if (!schedule_.shape.contains(op.node)) {
        fail(stage_, t, op.node, to_string(op.accumulator), "multiply-add on a node outside the torus");
        continue;
      }
      ++ops_per_node[schedule_.shape.index_of(op.node)];
      check_form(stage, t, op);
      for (const BlockId* block : {&op.accumulator, &op.operand, &op.coefficient}) {
        const auto& s = slot(op.node, block->kind);
        if (!s) fail(stage_, t, op.node, to_string(*block), "needed but the node holds no " + to_string(block->kind) + " block");
        else if (*s != *block) fail(stage_, t, op.node, to_string(*block), "needed but the node holds " + to_string(*s));
      }
      if (!complete_.count(op.operand))
        fail(stage_, t, op.node, to_string(op.operand), "used as operand before its accumulation is complete");
      if (complete_.count(op.accumulator))
        fail(stage_, t, op.node, to_string(op.accumulator), "accumulated into after it was complete");
      const int reduction = op.operand.index[static_cast<std::size_t>(stage.mode - 1)];
      const auto [earlier, inserted] = performed.emplace(op.accumulator, reduction, t);
      if (!inserted)
        fail(stage_, t, op.node, to_string(op.accumulator),
             "multiply-add with reduction block " + std::to_string(reduction) + " already done at step " + std::to_string(earlier));
      ++contributions[op.accumulator];
    }
    for (std::size_t i = 0; i < ops_per_node.size(); ++i)
      if (ops_per_node[i] != 1)
        fail(stage_, t, schedule_.shape.coord_of(i), "",
             "performs " + std::to_string(ops_per_node[i]) + " block multiply-adds; exactly 1 per step is required");
  }

  // acc(.., k_m, ..) += operand(.., n_m, ..) x_m Coef_m(n_m, k_m): the blocks must fit together.
  void check_form(const ScheduleStage& stage, int t, const BlockMultiplyAdd& op) {
    const auto m = static_cast<std::size_t>(stage.mode - 1);
    std::string problem;
    if (op.mode != stage.mode) problem = "mode " + std::to_string(op.mode) + " differs from the stage's mode " + std::to_string(stage.mode);
    else if (op.coefficient.kind != coefficient_kind(stage.mode)) problem = "coefficient " + to_string(op.coefficient) + " is not of axis " + std::to_string(stage.mode);
    else if (is_coefficient(op.accumulator.kind) || is_coefficient(op.operand.kind) || op.accumulator.kind == op.operand.kind)
      problem = "accumulator and operand must be tensor blocks of different kinds";
    else if (op.coefficient.index[0] != op.operand.index[m] || op.coefficient.index[1] != op.accumulator.index[m])
      problem = "coefficient " + to_string(op.coefficient) + " does not map " + to_string(op.operand) + " into " + to_string(op.accumulator);
    else
      for (std::size_t a = 0; a < 3; ++a)
        if (a != m && op.accumulator.index[a] != op.operand.index[a])
          problem = to_string(op.operand) + " and " + to_string(op.accumulator) + " differ on axis " + std::to_string(a + 1) + ", which mode " + std::to_string(stage.mode) + " does not contract";
    if (!problem.empty()) fail(stage_, t, op.node, to_string(op.accumulator), problem);
  }

  void apply_roll(int t, const Roll& roll) {
    ++report_.rolls_checked;
    const std::size_t kind = static_cast<std::size_t>(roll.kind);
    // Only the rolled kind moves: its blocks gather here, and the other kinds' stay in place
    // (a copy of every node's holdings per roll moved 35 MB at P = 60).
    arriving_.assign(held_.size(), std::nullopt);
    for (std::size_t i = 0; i < held_.size(); ++i) {
      const NodeCoord from = schedule_.shape.coord_of(i);
      const auto& block = held_[i][kind];
      if (!block) {
        fail(stage_, t, from, "", "has no " + to_string(roll.kind) + " block to roll " + to_string(roll.direction));
        continue;
      }
      // The next node of the ring (on a mesh axis the Program routes the roll the long way).
      const NodeCoord to = schedule_.shape.ring_neighbour(from, roll.direction);
      auto& target = arriving_[schedule_.shape.index_of(to)];
      if (target) fail(stage_, t, to, to_string(*block), "arrives at a node that already holds " + to_string(*target));
      target = block;
    }
    for (std::size_t i = 0; i < held_.size(); ++i) held_[i][kind] = arriving_[i];
  }

  void check_home(const Holdings& at_start, const std::set<BlockKind>& rolled) {
    for (BlockKind kind : rolled)
      for (std::size_t i = 0; i < held_.size(); ++i) {
        const auto& now = held_[i][static_cast<std::size_t>(kind)];
        const auto& then = at_start[i][static_cast<std::size_t>(kind)];
        if (now != then)
          fail(stage_, -1, schedule_.shape.coord_of(i), then ? to_string(*then) : "",
               "rolled block is not home at the end of the stage (node holds " + (now ? to_string(*now) : std::string("nothing")) + ")");
      }
  }

  void check_coverage(const ScheduleStage& stage, const PerformedSteps& performed,
                      const std::map<BlockId, std::size_t>& contributions) {
    const std::size_t p = static_cast<std::size_t>(schedule_.p());
    for (const Placement& c : stage.created) {
      const auto it = contributions.find(c.block);
      const std::size_t got = it == contributions.end() ? 0 : it->second;
      if (got != p)
        fail(stage_, -1, c.node, to_string(c.block),
             "received " + std::to_string(got) + " block multiply-adds; P = " + std::to_string(p) + " needed");
      else complete_.insert(c.block);
    }
    if (performed.size() != p * p * p * p)
      fail(stage_, -1, {}, "", "performed " + std::to_string(performed.size()) + " distinct block multiply-adds; P^4 = " +
                                    std::to_string(p * p * p * p) + " needed");
  }

  void check_output() {
    std::set<BlockId> seen;
    for (std::size_t i = 0; i < held_.size(); ++i) {
      const auto& block = held_[i][static_cast<std::size_t>(schedule_.output_kind)];
      if (!block) fail(4, -1, schedule_.shape.coord_of(i), "", "ends without an output block");
      else if (!complete_.count(*block)) fail(4, -1, schedule_.shape.coord_of(i), to_string(*block), "output block is incomplete");
      else seen.insert(*block);
    }
    if (seen.size() != schedule_.shape.node_count())
      fail(4, -1, {}, "", "the output has " + std::to_string(seen.size()) + " distinct complete blocks; P^3 = " +
                              std::to_string(schedule_.shape.node_count()) + " needed");
  }

  const Schedule& schedule_;
  std::size_t max_reported_;
  Holdings held_;
  std::vector<std::optional<BlockId>> arriving_;  // apply_roll's, kept between rolls
  std::set<BlockId> complete_;
  VerificationReport report_;
  int stage_ = 0;
};

}  // namespace

VerificationReport verify_schedule(const Schedule& schedule, std::size_t max_reported) {
  return Replay(schedule, max_reported).run();
}

}  // namespace torus
