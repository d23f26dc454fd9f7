// The orbital ("compute-and-roll") schedule of Sedukhin, "Co-design of Extremely Scalable
// Algorithms/Architecture for 3-Dimensional Linear Transforms", as a Program. The index
// algebra lives in sim/schedule_generator.cpp; this file turns its steps into task lists:
// per step and node, the receives of the blocks the next step needs (into the second buffer
// of each rolled kind), the block multiply-add, then the rolls.

#include <map>
#include <optional>
#include <stdexcept>

#include "sim/algorithms/factories.hpp"
#include "sim/verifier.hpp"

namespace torus {
namespace {

std::vector<Schedule> schedules_of(const TransformProblem& problem, ScheduleNodes nodes = ScheduleNodes::All) {
  if (problem.directions.empty()) throw std::invalid_argument("direction: at least one transform is needed");
  std::vector<Schedule> out;
  for (const TransformDirection d : problem.directions)
    out.push_back(generate_schedule(problem.shape, problem.grid, problem.alpha, d, nodes));
  return out;
}

// The host array a block of `kind` is loaded from: the input, or transform t's matrix of its axis.
std::uint16_t host_array(std::size_t transform, BlockKind kind) {
  if (!is_coefficient(kind)) return 0;
  return static_cast<std::uint16_t>(1 + 3 * transform + (static_cast<std::size_t>(kind) - static_cast<std::size_t>(BlockKind::Coef1)));
}

DataTag real_tag(const BlockId& block) {
  return {static_cast<std::uint16_t>(block.kind), {block.index[0], block.index[1], block.index[2]}};
}

// Builds the Program step by step, keeping per node which block each buffer holds (so every
// message carries the tag of what it really moves). As a translation quotient it builds node
// (0,0,0) alone from a schedule listing only that node: every node's stage forms, buffers and
// rolls are the same, so its list is every node's up to block indices, which it leaves out.
class OrbitalBuilder {
 public:
  OrbitalBuilder(const TransformProblem& problem, std::vector<Schedule> schedules, bool quotient = false)
      : problem_(problem), schedules_(std::move(schedules)), quotient_(quotient) {}

  Program build() {
    declare();
    reserve();
    std::size_t global = 0;
    for (std::size_t t = 0; t < schedules_.size(); ++t)
      for (std::size_t st = 0; st < 3; ++st)
        for (std::size_t step = 0; step < schedules_[t].stages[st].steps.size(); ++step) emit_step(t, st, step, global++);
    declare_outputs();
    return std::move(program_);
  }

 private:
  const TorusShape& shape() const { return problem_.shape; }
  std::size_t node_count() const { return quotient_ ? 1 : shape().node_count(); }
  DataTag tag_of(const BlockId& block) const {
    if (quotient_) return {static_cast<std::uint16_t>(block.kind), {0, 0, 0}};
    return real_tag(block);
  }
  std::size_t receiver(std::size_t node, Direction direction) const {
    if (quotient_) return node;  // its neighbour's copy of the message arrives here
    return shape().index_of(shape().ring_neighbour(shape().coord_of(node), direction));
  }
  const BlockGrid& grid() const { return problem_.grid; }
  std::uint32_t buffer_id(BlockKind kind, int which) const {
    return which == 0 ? static_cast<std::uint32_t>(kind) : second_[static_cast<std::size_t>(kind)];
  }
  std::uint32_t current(BlockKind kind) const { return buffer_id(kind, which_[static_cast<std::size_t>(kind)]); }
  bool moves(const Roll& roll) const {
    const NodeCoord origin{0, 0, 0};
    return shape().ring_neighbour(origin, roll.direction) != origin;  // P = 1: the block stays
  }

  void declare() {
    program_.algorithm = "orbital";
    program_.byte_budget = problem_.max_program_bytes;
    program_.shape = shape();
    program_.translation_quotient = quotient_;
    program_.grid = grid();
    std::string dirs;
    for (const Schedule& s : schedules_) {
      program_.transforms.push_back(to_string(s.direction));
      dirs += (dirs.empty() ? "" : "+") + to_string(s.direction);
    }
    program_.description = "orbital schedule, N=" + extents_text(grid().tensor_extents()) + " P=" +
                           std::to_string(schedules_[0].p()) + " b=" + grid().describe_blocks() + " alpha=" +
                           problem_.alpha.to_string() + ", " + dirs + (quotient_ ? ", translation quotient" : "");
    for (std::size_t k = 0; k < block_kind_count; ++k) {
      const auto kind = static_cast<BlockKind>(k);
      program_.tag_kinds.push_back({to_string(kind), is_coefficient(kind) ? 2 : 3, axis_of(kind), {}});
    }
    // With b x b x b blocks the three kernels in mode order; otherwise each as a step needs it.
    if (grid().uniform_cube())
      for (int mode = 1; mode <= 3; ++mode) program_.kernels.push_back(cube_kernel(mode, grid().axis[0].largest()));
    program_.host_arrays.push_back({"input", false, 0, 0, {}, 0, false});
    for (std::size_t t = 0; t < schedules_.size(); ++t)
      for (int axis = 1; axis <= 3; ++axis)
        program_.host_arrays.push_back({to_string(schedules_[t].direction) + (t == 0 ? " C" : " D") + std::to_string(axis),
                                        true, axis, t, {}, 0, false});
    // First buffers: one per kind, as large as the largest block of that kind. Second buffers
    // only for kinds that roll: the next block arrives there while the current one is used or
    // still leaving.
    std::vector<BufferSpec> buffers;
    for (std::size_t k = 0; k < block_kind_count; ++k)
      buffers.push_back({static_cast<std::uint32_t>(largest_words_in(static_cast<BlockKind>(k), grid())), static_cast<std::uint16_t>(k)});
    second_.fill(no_buffer);
    for (const Schedule& s : schedules_)
      for (const ScheduleStage& stage : s.stages)
        for (const Roll& roll : stage.steps.front().rolls) {
          const auto k = static_cast<std::size_t>(roll.kind);
          if (!moves(roll) || second_[k] != no_buffer) continue;
          second_[k] = static_cast<std::uint32_t>(buffers.size());
          buffers.push_back(buffers[k]);
        }
    program_.nodes.assign(node_count(), NodeProgram{buffers, {}, {}, {}});
    held_.assign(node_count(), std::vector<std::optional<DataTag>>(buffers.size()));
    for (const Schedule& s : schedules_)
      for (int st = 0; st < 3; ++st)
        program_.stages.push_back({static_cast<std::uint32_t>(program_.stages.size() / 3),
                                   static_cast<std::uint32_t>(s.stages[static_cast<std::size_t>(st)].number),
                                   s.stages[static_cast<std::size_t>(st)].mode, s.stages[static_cast<std::size_t>(st)].summary,
                                   static_cast<std::uint32_t>(s.stages[static_cast<std::size_t>(st)].steps.size())});
  }

  // Every list at its final size up front: grown by doubling, the pooled messages and routes and
  // each node's tasks would hold up to three times their size while they move (reserving them
  // cut a P = 60 run's peak from 19.0 to 17.0 GiB). emit_step adds per step and node one
  // compute, and per moving roll one send and one receive; the first step of a transform adds
  // the loads of its initial placements.
  void reserve() {
    std::size_t messages = 0, hops = 0, per_node_tasks = 0, per_node_details = 0;
    std::map<Direction, std::size_t> hops_per_roll;  // summed over the nodes
    std::vector<std::size_t> loads(node_count(), 0);
    for (std::size_t t = 0; t < schedules_.size(); ++t) {
      for (const Placement& p : schedules_[t].initial)
        if (t == 0 || p.block.kind != schedules_[t].input_kind) ++loads[quotient_ ? 0 : shape().index_of(p.node)];
      for (const ScheduleStage& stage : schedules_[t].stages)
        for (const ScheduleStep& step : stage.steps) {
          ++per_node_tasks;
          ++per_node_details;
          for (const Roll& roll : step.rolls) {
            if (!moves(roll)) continue;
            per_node_tasks += 2;
            messages += node_count();
            auto [at, added] = hops_per_roll.try_emplace(roll.direction, node_count());  // the quotient's: one hop
            if (added && !quotient_) at->second = ring_roll_hops(shape(), roll.direction);
            hops += at->second;
          }
        }
    }
    program_.messages.reserve(messages);
    program_.routes.reserve(hops);
    for (std::size_t n = 0; n < node_count(); ++n) {
      program_.nodes[n].tasks.reserve(per_node_tasks + loads[n]);
      program_.nodes[n].details.reserve(per_node_details + loads[n]);
    }
  }

  // The kinds the step after `global` creates afresh (their arriving words are dead).
  std::array<bool, block_kind_count> created_next(std::size_t t, std::size_t st, std::size_t step) const {
    std::array<bool, block_kind_count> created{};
    std::size_t nt = t, nst = st, nstep = step + 1;
    if (nstep == schedules_[t].stages[st].steps.size()) {
      nstep = 0;
      if (++nst == 3) {
        nst = 0;
        ++nt;
      }
    }
    if (nt < schedules_.size() && nstep == 0)
      for (const Placement& p : schedules_[nt].stages[nst].created) created[static_cast<std::size_t>(p.block.kind)] = true;
    return created;
  }

  void emit_step(std::size_t t, std::size_t st, std::size_t step, std::size_t global) {
    const Schedule& schedule = schedules_[t];
    const ScheduleStage& stage = schedule.stages[st];
    const ScheduleStep& plan = stage.steps[step];
    const TaskLabel label{static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(stage.number),
                          static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(global)};
    const std::size_t count = node_count();
    // Kept across steps (cleared, not freed): a step would otherwise allocate four lists per node.
    for (auto* lists : {&loads_, &receives_, &computes_, &sends_}) {
      lists->resize(count);
      for (std::vector<Entry>& list : *lists) list.clear();
    }
    auto &loads = loads_, &receives = receives_, &computes = computes_, &sends = sends_;
    if (st == 0 && step == 0)
      for (const Placement& p : schedule.initial) {
        if (t > 0 && p.block.kind == schedule.input_kind) continue;  // the previous transform's output
        const std::size_t node = shape().index_of(p.node);
        Entry load{make_task(TaskKind::Load, label), {}};
        load.task.buffer = current(p.block.kind);
        load.detail.tag = tag_of(p.block);
        load.detail.source = {host_array(t, p.block.kind), {p.block.index[0], p.block.index[1], p.block.index[2]}};
        held_[node][load.task.buffer] = load.detail.tag;
        loads[node].push_back(load);
      }
    for (std::size_t node = 0; node < count; ++node) {
      const BlockMultiplyAdd& op = plan.ops[node];
      Entry compute{make_task(TaskKind::Compute, label), {}};
      TaskDetail& d = compute.detail;
      compute.task.buffer = current(op.accumulator.kind);
      d.operand = current(op.operand.kind);
      d.coefficient = current(op.coefficient.kind);
      compute.task.zero_accumulator = step == 0;
      d.tag = tag_of(op.accumulator);
      d.operand_tag = tag_of(op.operand);
      d.coefficient_tag = tag_of(op.coefficient);
      d.kernel = program_.kernel_for(op.mode, program_.extents_of(d.tag), program_.extents_of(d.operand_tag));
      if (compute.task.zero_accumulator) held_[node][compute.task.buffer] = d.tag;
      computes[node].push_back(compute);
    }
    const std::array<bool, block_kind_count> dead = created_next(t, st, step);
    std::vector<std::pair<std::size_t, std::pair<std::uint32_t, DataTag>>> arrivals;  // node, (buffer, tag)
    for (const Roll& roll : plan.rolls) {
      if (!moves(roll)) continue;
      const auto k = static_cast<std::size_t>(roll.kind);
      const std::uint32_t from = current(roll.kind);
      const std::uint32_t into = dead[k] ? no_buffer : buffer_id(roll.kind, which_[k] ^ 1);
      for (std::size_t node = 0; node < count; ++node) {
        const std::size_t to = receiver(node, roll.direction);
        const DataTag carried = *held_[node][from];
        // On a mesh axis the roll across the edge goes the long way round (sim/geometry.hpp).
        const std::vector<Direction> route = quotient_ ? std::vector<Direction>{roll.direction}
                                                       : ring_route(shape(), shape().coord_of(node), roll.direction);
        const std::uint32_t message = program_.add_message(node, to, route, program_.words_of(carried), carried);
        Entry send{make_task(TaskKind::Send, label), {}};
        send.task.buffer = from;
        send.task.message = message;
        sends[node].push_back(send);
        Entry receive{make_task(TaskKind::Receive, label), {}};
        receive.task.buffer = into;
        receive.task.message = message;
        receives[to].push_back(receive);
        if (into != no_buffer) arrivals.push_back({to, {into, program_.messages.back().tag}});
      }
      which_[k] ^= 1;
    }
    for (const auto& [node, arrival] : arrivals) held_[node][arrival.first] = arrival.second;
    for (std::size_t node = 0; node < count; ++node) {
      // Receives first: the next step's blocks may arrive while this step computes.
      NodeProgram& into = program_.nodes[node];
      for (auto* list : {&loads[node], &receives[node], &computes[node], &sends[node]})
        for (const Entry& e : *list) into.add(e.task, e.detail);
    }
  }

  void declare_outputs() {
    const std::size_t count = node_count();
    auto add = [&](const std::string& name, std::size_t t, std::uint32_t stage, BlockKind kind) {
      ProgramOutput out{name, static_cast<std::uint32_t>(t), stage, {}, {}, {}};
      const std::uint32_t buffer = current(kind);
      for (std::size_t node = 0; node < count; ++node) {
        out.buffer.push_back(buffer);
        out.tag.push_back(held_[node][buffer].value_or(DataTag{}));
      }
      program_.outputs.push_back(std::move(out));
    };
    static const std::array<const char*, 3> roman = {"I", "II", "III"};
    for (std::size_t t = 0; t < schedules_.size(); ++t)
      add(to_string(schedules_[t].direction), t, 3, schedules_[t].output_kind);
    // The last transform's stage results survive to the end: the golden check uses them to
    // find the first wrong stage.
    const std::size_t last = schedules_.size() - 1;
    for (std::size_t st = 0; st < 2; ++st)
      add(to_string(schedules_[last].direction) + " stage " + roman[st], last, static_cast<std::uint32_t>(st + 1),
          schedules_[last].stages[st].created.front().block.kind);
  }

  const TransformProblem& problem_;
  std::vector<Schedule> schedules_;
  bool quotient_ = false;
  Program program_;
  std::array<std::uint32_t, block_kind_count> second_{};
  std::array<int, block_kind_count> which_{};
  std::vector<std::vector<std::optional<DataTag>>> held_;
  struct Entry {
    Task task;
    TaskDetail detail;  // loads and computes
  };
  std::vector<std::vector<Entry>> loads_, receives_, computes_, sends_;  // per node, the step being built
};

class Orbital final : public Algorithm {
 public:
  std::string name() const override { return "orbital"; }
  Program build(const TransformProblem& problem) const override {
    return OrbitalBuilder(problem, schedules_of(problem)).build();
  }
  // Blocks of one size on a torus: every node's list is node (0,0,0)'s up to block indices.
  bool translation_invariant(const TransformProblem& problem) const override {
    return problem.grid.even() && problem.shape.torus();
  }
  Program build_quotient(const TransformProblem& problem) const override {
    return OrbitalBuilder(problem, schedules_of(problem, ScheduleNodes::FirstOnly), true).build();
  }
  // A node's loads are its placements at the start of each transform (the input only for the
  // first), as emit_step lists them; its outputs are the accumulators its stages create, which
  // check() proves are home again when each stage ends.
  bool quotient_values(const TransformProblem& problem) const override { return translation_invariant(problem); }
  QuotientNodeBlocks node_blocks(const TransformProblem& problem, std::size_t node) const override {
    QuotientNodeBlocks out;
    std::array<BlockId, 3> last_created{};
    for (std::size_t t = 0; t < problem.directions.size(); ++t) {
      const NodePlacements placed = node_placements(problem.shape, problem.alpha, problem.directions[t], node);
      for (const BlockId& block : placed.initial)
        if (t == 0 || block.kind != placed.input_kind)
          out.loads.push_back({host_array(t, block.kind), {block.index[0], block.index[1], block.index[2]}});
      out.outputs.push_back(real_tag(placed.created[2]));
      last_created = placed.created;
    }
    out.outputs.push_back(real_tag(last_created[0]));
    out.outputs.push_back(real_tag(last_created[1]));
    return out;
  }
  AlgorithmCheck check(const TransformProblem& problem) const override {
    AlgorithmCheck out;
    for (const Schedule& schedule : schedules_of(problem)) {
      const VerificationReport report = verify_schedule(schedule, 4);
      out.violation_count += report.violation_count;
      for (const Violation& v : report.violations) out.violations.push_back(to_string(schedule.direction) + ": " + to_string(v));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Algorithm> make_orbital() { return std::make_unique<Orbital>(); }

}  // namespace torus
