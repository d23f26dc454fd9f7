#include "models/sequencer.hpp"

#include <stdexcept>

namespace torus {

Sequencer::Sequencer(const sc_core::sc_module_name& name, std::vector<Schedule> schedules,
                     const MicroSchedule& micro_schedule, bool split_complex)
    : sc_core::sc_module(name), schedules_(std::move(schedules)), split_complex_(split_complex) {
  if (schedules_.empty()) throw std::invalid_argument("sequencer needs at least one schedule");
  for (int mode = 1; mode <= 3; ++mode)
    programs_[static_cast<std::size_t>(mode - 1)] = micro_schedule.build(mode, schedules_.front().block_size, split_complex);
  build_plans();
  build_loads();
}

const BlockMultiplyAdd& Sequencer::op(std::size_t node, std::size_t step) const {
  const StepRef& r = refs_[step];
  return schedules_[r.schedule].stages[r.stage].steps[r.step].ops[node];
}

const BlockId& Sequencer::created(std::size_t node, std::size_t step) const {
  const StepRef& r = refs_[step];
  return schedules_[r.schedule].stages[r.stage].created[node].block;
}

std::pair<std::size_t, std::size_t> Sequencer::stage_and_step(std::size_t step) const {
  return {refs_[step].stage + 1, refs_[step].step};
}

void Sequencer::build_plans() {
  std::array<int, block_kind_count> buffer{};
  std::array<bool, block_kind_count> rolled_before{};
  const std::size_t b = schedules_.front().block_size;
  for (std::size_t si = 0; si < schedules_.size(); ++si) {
    const Schedule& schedule = schedules_[si];
    for (std::size_t st = 0; st < schedule.stages.size(); ++st) {
      const ScheduleStage& stage = schedule.stages[st];
      for (std::size_t t = 0; t < stage.steps.size(); ++t) {
        const ScheduleStep& step = stage.steps[t];
        // The schedule lists ops in node order; the nodes rely on it.
        for (std::size_t n = 0; n < step.ops.size(); ++n)
          if (step.ops[n].node != schedule.shape.coord_of(n))
            throw std::logic_error("schedule ops are not in node order");
        const BlockMultiplyAdd& first = step.ops.front();
        StepPlan plan;
        plan.transform = si;
        plan.stage = stage.number;
        plan.mode = first.mode;
        plan.transform_start = st == 0 && t == 0;
        plan.accumulator = first.accumulator.kind;
        plan.operand = first.operand.kind;
        plan.coefficient = first.coefficient.kind;
        plan.program = &programs_[static_cast<std::size_t>(first.mode - 1)];
        if (t == 0)
          for (const Placement& c : stage.created) plan.created[static_cast<std::size_t>(c.block.kind)] = true;
        for (std::size_t k = 0; k < block_kind_count; ++k) plan.arrives[k] = rolled_before[k] && !plan.created[k];
        plan.buffer = buffer;
        rolled_before.fill(false);
        for (const Roll& roll : step.rolls) {
          const NodeCoord origin{0, 0, 0};
          if (*schedule.shape.neighbour(origin, roll.direction) == origin) continue;  // P = 1: the block stays
          plan.rolls.push_back(roll);
          const auto k = static_cast<std::size_t>(roll.kind);
          plan.rolled[k] = true;
          rolled_before[k] = true;
          buffer[k] ^= 1;
          incoming_words_ += words_in(roll.kind, b);
        }
        plans_.push_back(std::move(plan));
        refs_.push_back({si, st, t});
      }
    }
  }
  final_buffer_ = buffer;
}

void Sequencer::build_loads() {
  const TorusShape& shape = schedules_.front().shape;
  loads_.assign(schedules_.size(), std::vector<std::vector<Placement>>(shape.node_count()));
  for (std::size_t si = 0; si < schedules_.size(); ++si)
    for (const Placement& p : schedules_[si].initial) {
      if (si > 0 && p.block.kind == schedules_[si].input_kind) continue;
      loads_[si][shape.index_of(p.node)].push_back(p);
    }
}

}  // namespace torus
