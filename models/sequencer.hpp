#pragma once
// The sequencer feeds every node the orbital schedule generated in sim/: for each global step
// (transforms run back to back, 3P steps each) the multiply-add each node performs, the blocks
// rolled afterwards and the micro-program of fma that carries it out. It derives everything
// from the Schedule data; it holds no schedule logic of its own.

#include <array>
#include <memory>
#include <vector>

#include "models/systemc.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/schedule.hpp"

namespace torus {

// What every node does in one global step (the same for all nodes; only block names differ).
struct StepPlan {
  std::size_t transform = 0;
  int stage = 1;
  int mode = 1;
  bool transform_start = false;  // the host loads this transform's blocks before the step
  BlockKind accumulator = BlockKind::X;
  BlockKind operand = BlockKind::X;
  BlockKind coefficient = BlockKind::Coef1;
  const MicroProgram* program = nullptr;
  std::vector<Roll> rolls;                          // real moves only: none when P = 1
  std::array<bool, block_kind_count> created{};     // zeroed accumulators at this step
  std::array<bool, block_kind_count> arrives{};     // received by a roll at the end of the previous step
  std::array<bool, block_kind_count> rolled{};      // rolled at the end of this step
  std::array<int, block_kind_count> buffer{};       // which of each kind's two buffers the step uses
};

// Contract: plans and ops are fixed at construction; step indices run 0 .. step_count() - 1.
class ScheduleFeedIf : public virtual sc_core::sc_interface {
 public:
  virtual std::size_t step_count() const = 0;
  virtual const StepPlan& plan(std::size_t step) const = 0;
  virtual const BlockMultiplyAdd& op(std::size_t node, std::size_t step) const = 0;
  // The zero accumulator a node creates at `step` (plan(step).created[kind]).
  virtual const BlockId& created(std::size_t node, std::size_t step) const = 0;
  // Blocks the host places in a node when `transform` starts (inputs of later transforms
  // excepted: they are the previous transform's outputs, already in place).
  virtual const std::vector<Placement>& loads(std::size_t node, std::size_t transform) const = 0;
  virtual std::size_t incoming_words_per_node() const = 0;
  // Stage (1..3) and step within the stage of a global step, for diagnostics.
  virtual std::pair<std::size_t, std::size_t> stage_and_step(std::size_t step) const = 0;
  // Which buffer each kind ends in, after the last step's rolls.
  virtual int final_buffer(BlockKind kind) const = 0;
  virtual std::size_t block_size() const = 0;
  virtual bool split_complex() const = 0;
};

class Sequencer : public sc_core::sc_module, public ScheduleFeedIf {
 public:
  // `schedules` run in order; each must be verified. split_complex: complex data on a real unit.
  Sequencer(const sc_core::sc_module_name& name, std::vector<Schedule> schedules, const MicroSchedule& micro_schedule,
            bool split_complex);

  std::size_t step_count() const override { return plans_.size(); }
  const StepPlan& plan(std::size_t step) const override { return plans_[step]; }
  const BlockMultiplyAdd& op(std::size_t node, std::size_t step) const override;
  const BlockId& created(std::size_t node, std::size_t step) const override;
  const std::vector<Placement>& loads(std::size_t node, std::size_t transform) const override {
    return loads_[transform][node];
  }
  std::size_t incoming_words_per_node() const override { return incoming_words_; }
  std::size_t block_size() const override { return schedules_.front().block_size; }
  bool split_complex() const override { return split_complex_; }

  const std::vector<Schedule>& schedules() const { return schedules_; }
  std::pair<std::size_t, std::size_t> stage_and_step(std::size_t step) const override;
  int final_buffer(BlockKind kind) const override { return final_buffer_[static_cast<std::size_t>(kind)]; }

 private:
  struct StepRef {
    std::size_t schedule, stage, step;
  };
  void build_plans();
  void build_loads();

  std::vector<Schedule> schedules_;
  bool split_complex_;
  std::array<MicroProgram, 3> programs_;  // per mode
  std::vector<StepPlan> plans_;
  std::vector<StepRef> refs_;
  std::vector<std::vector<std::vector<Placement>>> loads_;  // [transform][node]
  std::size_t incoming_words_ = 0;
  std::array<int, block_kind_count> final_buffer_{};
};

}  // namespace torus
