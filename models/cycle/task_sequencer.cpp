#include "models/cycle/task_sequencer.hpp"

#include <algorithm>
#include <sstream>

#include "models/prefetch.hpp"
#include "sim/fault_config.hpp"

namespace torus {

TaskSequencer::TaskSequencer(NodeContext& context, const RollPolicy& policy,
                             std::function<void(std::uint32_t, std::uint32_t, Cycle)> post_send)
    : context_(context),
      whole_blocks_(policy.waits_for_whole_blocks()),
      finals_release_sends_(policy.release(BlockRole::Accumulator) == SendRelease::WordFinal ||
                            policy.release(BlockRole::Operand) == SendRelease::WordFinal ||
                            policy.release(BlockRole::Coefficient) == SendRelease::WordFinal),
      post_send_(std::move(post_send)) {}

void TaskSequencer::start() {
  task_count_ = static_cast<std::uint32_t>(context_.node->tasks.size());
  tracing_ = !context_.trace.empty();
  if (task_count_ > 0) next_kind_ = context_.task(0).kind;
}

std::uint32_t TaskSequencer::current_compute() const {
  for (std::uint32_t i = next_; i < context_.node->tasks.size(); ++i)
    if (context_.task(i).kind == TaskKind::Compute) return i;
  return no_task;
}

std::pair<std::size_t, std::size_t> TaskSequencer::compute_progress() const {
  const std::uint32_t c = current_compute();
  if (c == no_task) return {0, 0};
  return {c == next_ ? instruction_ : 0, context_.run->micro[context_.detail(c).kernel].instructions.size()};
}

std::size_t TaskSequencer::issue(Cycle cycle, Blocked& blocked) {
  std::size_t issued = 0;
  cycle_ = cycle;
  replacing_ = no_buffer;
  while (next_ < task_count_) {
    if (next_kind_ == TaskKind::Fft) {
      if (!step_fft(cycle, blocked, issued)) break;
      continue;
    }
    if (next_kind_ != TaskKind::Compute) {
      if (!pass_non_compute(cycle, blocked)) break;
      continue;
    }
    if (!context_.pipeline->has_slot(cycle)) break;
    if (!entered_ && !enter(cycle, blocked)) break;
    if (!started_) {
      if (!gate_open()) {
        blocked = Blocked::Data;
        break;
      }
      started_ = true;
      context_.gate.fill(no_task);
    }
    if (!ready_to_issue(cycle, blocked)) break;
    issue_one(cycle);
    ++issued;
    if (++instruction_ == current_.count) finish(cycle);
  }
  return issued;
}

bool TaskSequencer::enter_ahead(Cycle cycle) {
  if (!whole_blocks_ || next_ >= task_count_ || next_kind_ != TaskKind::Compute || entered_) return false;
  if (!context_.pipeline->has_slot(cycle)) return false;
  cycle_ = cycle;
  replacing_ = no_buffer;
  Blocked blocked = Blocked::None;
  return !enter(cycle, blocked) || !gate_open();
}

Cycle TaskSequencer::replaceable_at(Cycle cycle) const {
  if (next_ >= task_count_) return never;
  const Task& task = context_.task(next_);
  if (task.kind == TaskKind::Fft) return entered_ ? never : fft_replaceable_at(cycle);
  const bool overwrites = task.kind == TaskKind::Load || (task.kind == TaskKind::Compute && !entered_);
  if (!overwrites || context_.memory.replaceable(task.buffer, cycle)) return never;
  const BufferState& buffer = context_.memory.buffer(task.buffer);
  return buffer.owed_words == 0 && buffer.busy_until != never ? buffer.busy_until + 1 : never;
}

bool TaskSequencer::pass_non_compute(Cycle cycle, Blocked& blocked) {
  const Task& task = context_.task(next_);
  if (task.kind == TaskKind::Load) {
    if (!context_.memory.replaceable(task.buffer, cycle)) {  // an earlier send still needs the old words
      blocked = Blocked::Data;
      replacing_ = task.buffer;
      return false;
    }
    load(task, cycle);
  } else if (task.kind == TaskKind::Send && next_ >= posted_until_) {
    post_send_(next_, last_compute_, cycle);
  }
  advance();  // a receive is posted by being passed
  context_.send_state_changed = true;
  return true;
}

void TaskSequencer::load(const Task& task, Cycle cycle) {
  const TaskDetail& d = context_.node->detail(task);
  context_.datapath->load(task.buffer, d.source);
  context_.memory.place(task.buffer, context_.info[next_], cycle, d.tag);
  const HostArray& array = context_.program().host_arrays[d.source.array];
  if (context_.corrupt_bit >= 0 && context_.fault_record.empty() && array.matrix) {
    const std::complex<double> value = context_.datapath->read(task.buffer, 0);
    context_.datapath->write(task.buffer, 0, {with_bit_flipped(value.real(), context_.corrupt_bit), value.imag()});
    std::ostringstream record;
    record << "flipped bit " << context_.corrupt_bit << " of word 0 of coefficient block "
           << context_.program().describe(d.tag) << " in node " << context_.program().describe_node(context_.index)
           << ": " << describe_flip(value.real(), context_.datapath->read(task.buffer, 0).real());
    context_.fault_record = record.str();
  }
}

bool TaskSequencer::enter(Cycle cycle, Blocked& blocked) {
  const Task& task = context_.task(next_);
  const TaskDetail& d = context_.detail(next_);
  const ComputeFlow& flow = context_.computes[context_.info[next_]];
  BufferState& acc = context_.memory.buffer(task.buffer);
  if (!context_.memory.replaceable(task.buffer, cycle)) {  // an earlier send has not yet taken the old words
    blocked = Blocked::Data;
    replacing_ = task.buffer;
    return false;
  }
  if (task.zero_accumulator) {
    context_.datapath->zero(task.buffer);
    context_.memory.place(task.buffer, flow.accumulator_generation, cycle, d.tag);
  }
  // Blocks already held are checked now; arriving ones as they land (against their message).
  const std::array<std::pair<std::uint32_t, const DataTag*>, 3> inputs{
      {{task.buffer, &d.tag}, {d.operand, &d.operand_tag}, {d.coefficient, &d.coefficient_tag}}};
  for (std::size_t role = 0; role < 3; ++role)
    if (flow.filled_by[role] == no_task && context_.memory.buffer(inputs[role].first).tag != *inputs[role].second)
      context_.fail("task " + std::to_string(next_) + " needs " + context_.program().describe(*inputs[role].second) +
                    " but holds " + context_.program().describe(context_.memory.buffer(inputs[role].first).tag));
  micro_ = &context_.run->micro[d.kernel];
  const std::span<NarrowCycle> components = context_.memory.component_ready(task.buffer);
  current_ = {micro_->instructions.data(),
              micro_->instructions.size(),
              acc.words.data(),
              context_.memory.buffer(d.operand).words.data(),
              context_.memory.buffer(d.coefficient).words.data(),
              components.empty() ? nullptr : components.data(),
              context_.memory.expect_updates(task.buffer, micro_->updates_per_word),
              task.buffer,
              d.operand,
              d.coefficient};
  extent_ = {static_cast<std::uint32_t>(context_.program().kernels[d.kernel].operand_words()),  // the block's words lead the buffer
             static_cast<std::uint32_t>(context_.program().kernels[d.kernel].coefficient_words()),
             flow.accumulator_generation,
             flow.operand_generation,
             flow.coefficient_generation};
  entered_ = true;
  instruction_ = 0;
  last_compute_ = context_.info[next_];
  if (whole_blocks_)
    for (std::size_t role = 0; role < 3; ++role) {
      context_.gate[role] = flow.filled_by[role];
      context_.gate_words[role] = flow.filled_by[role] == no_task ? 0 : context_.words_of(flow.filled_by[role]);
    }
  step_ = task.label.global_step;
  post_following_sends(cycle);
  blocked = Blocked::None;
  return true;
}

void TaskSequencer::post_following_sends(Cycle cycle) {
  posted_until_ = next_ + 1;
  while (posted_until_ < context_.node->tasks.size() && context_.task(posted_until_).kind == TaskKind::Send)
    post_send_(posted_until_++, last_compute_, cycle);
  context_.send_state_changed = true;
}

bool TaskSequencer::gate_open() const {
  if (!whole_blocks_) return true;
  const Cycle open = context_.gate_opens_at();
  return open != never ? open <= cycle_ : std::all_of(context_.gate.begin(), context_.gate.end(), [](std::uint32_t r) { return r == no_task; });
}

NarrowCycle& TaskSequencer::target_ready(const FmaInstruction& instruction) {
  if (!current_.component_ready) return current_.accumulator[instruction.accumulator].ready;
  return current_.component_ready[micro_->target(instruction)];
}

bool TaskSequencer::ready_to_issue(Cycle cycle, Blocked& blocked) const {
  const Current& c = current_;
  const FmaInstruction& i = c.instructions[instruction_];
  const WordState& acc = c.accumulator[i.accumulator];
  const WordState& operand = c.operand[i.operand];
  const WordState& coefficient = c.coefficient[i.coefficient];
  // With whole blocks the gate has already seen every arriving word; otherwise each fma waits
  // for the words it reads.
  if (!whole_blocks_ && (acc.generation != extent_.accumulator_generation || operand.generation != extent_.operand_generation ||
                         coefficient.generation != extent_.coefficient_generation)) {
    blocked = Blocked::Data;
    return false;
  }
  if (!usable_by(i, cycle)) {
    blocked = Blocked::Dependency;  // present, but a result still in this node's pipeline
    return false;
  }
  return true;
}

// Whether the words the fma reads, and the one it adds to, are usable at `cycle`.
bool TaskSequencer::usable_by(const FmaInstruction& i, Cycle cycle) const {
  const Current& c = current_;
  const Cycle target = c.component_ready ? c.component_ready[micro_->target(i)] : c.accumulator[i.accumulator].ready;
  return c.operand[i.operand].ready <= cycle && c.coefficient[i.coefficient].ready <= cycle && target <= cycle;
}

// The datapath computes the value now; the pipeline says when it may be used.
void TaskSequencer::issue_one(Cycle cycle) {
  const Current& c = current_;
  if (instruction_ == 0) first_cycle_ = cycle;
  const FmaInstruction& i = c.instructions[instruction_];
  context_.datapath->fma(i, c.accumulator_buffer, c.operand_buffer, c.coefficient_buffer);
  const Cycle result = context_.pipeline->issue(cycle);
  context_.steps.issued(step_, 1, cycle);
  if (tracing_) context_.trace_run(next_, 1, cycle, cycle);  // the trace's own line is not read otherwise
  target_ready(i) = result;
  WordState& word = c.accumulator[i.accumulator];
  if (c.component_ready) word.ready = std::max(c.component_ready[2 * i.accumulator], c.component_ready[2 * i.accumulator + 1]);
  last_result_ = result;
  // Only a send released word by word reads the count (a line of its own a node-cycle otherwise).
  if (finals_release_sends_ && --c.writes_left[i.accumulator] == 0) context_.send_state_changed = true;  // final: it may leave now
}

void TaskSequencer::finish(Cycle) {
  context_.compute_done[last_compute_] = last_result_;
  context_.steps.done(step_, last_result_);
  if (!context_.trace.empty()) context_.trace[next_].last = last_result_;
  context_.send_state_changed = true;
  advance();
  entered_ = false;
  started_ = false;
  instruction_ = 0;
}

bool TaskSequencer::can_fast_forward() const {
  if (in_fft()) return fft_left() > 1;
  return whole_blocks_ && started_ && next_ < task_count_ && instruction_ + 1 < micro_->instructions.size();
}

// Times the run first (which cycle each fma issues at and when its result is usable), then
// computes its values in one call: values do not depend on time, and per accumulator word the
// updates keep their micro-program order.
Cycle TaskSequencer::fast_forward(Cycle cycle, Cycle limit) {
  if (in_fft()) return fast_forward_fft(cycle, limit);
  const std::size_t first = instruction_;
  RunTiming run;
  prefetch_inputs();
  if (whole_run_fits(cycle, limit)) place_whole_run(run);
  else if (current_.component_ready) time_run<true>(cycle, limit, run);
  else time_run<false>(cycle, limit, run);
  const std::size_t count = instruction_ - first;
  if (count == 0) return cycle;
  context_.datapath->fma_run(current_.instructions + first, count, current_.accumulator_buffer, current_.operand_buffer,
                             current_.coefficient_buffer);
  last_result_ = run.last + context_.pipeline->latency();
  return account_run(cycle, count, run);
}

// What a run issued ahead counts, as stepping through its cycles would have: each cycle with an
// fma busy, each without a dependency stall. Returns the cycle the ordinary issue resumes at.
Cycle TaskSequencer::account_run(Cycle cycle, std::size_t count, const RunTiming& run) {
  context_.pipeline->issue_run(count, run.cycles, run.last);
  context_.steps.issued(step_, count, run.first);
  context_.trace_run(next_, count, run.first, run.last);
  context_.stats.fast_forwarded_fma += count;
  context_.stats.busy_cycles += run.cycles;
  context_.stats.dependency_stalls += (run.last + 1 - cycle) - run.cycles;
  context_.last_progress = std::max(context_.last_progress, run.last);
  return run.last + 1;
}

// The compute's words, which the run reads and writes, asked for at once (models/prefetch.hpp).
void TaskSequencer::prefetch_inputs() const {
  const Current& c = current_;
  const std::size_t accumulator_words = context_.run->schedules[context_.detail(next_).kernel].ready_before_last.size();
  prefetch_span<true>(c.accumulator, accumulator_words);
  if (finals_release_sends_) prefetch_span<true>(c.writes_left, accumulator_words);
  prefetch_span(c.operand, extent_.operand_words);
  prefetch_span(c.coefficient, extent_.coefficient_words);
  context_.datapath->prefetch(c.accumulator_buffer, 0, accumulator_words, true);
  context_.datapath->prefetch(c.operand_buffer, 0, extent_.operand_words, false);
  context_.datapath->prefetch(c.coefficient_buffer, 0, extent_.coefficient_words, false);
}

// The kernel's schedule holds when the run starts right after the compute's first fma, no
// sooner than the schedule's second issue, every input is usable by then, nothing is due
// before the run ends, and the compute's last fma issues after the run's last cycle.
bool TaskSequencer::whole_run_fits(Cycle cycle, Cycle limit) const {
  const ComputeSchedule& s = context_.run->schedules[context_.detail(next_).kernel];
  if (s.issue.empty() || s.last_shares_cycle || instruction_ != 1 || current_.component_ready) return false;
  const std::size_t last = current_.count - 1;
  const Cycle start = first_cycle_ + s.issue[1];
  if (cycle > start || first_cycle_ + s.issue[last - 1] >= limit) return false;
  const auto usable = [start](const WordState* words, std::size_t n, std::uint32_t except) {
    for (std::size_t w = 0; w < n; ++w)
      if (w != except && words[w].ready > start) return false;
    return true;
  };
  const std::uint32_t first_target = current_.instructions[0].accumulator;
  return usable(current_.accumulator, s.ready_before_last.size(), first_target) &&
         usable(current_.operand, extent_.operand_words, no_buffer) &&
         usable(current_.coefficient, extent_.coefficient_words, no_buffer);
}

// The whole run (every fma but the first and the last) at the schedule's cycles.
void TaskSequencer::place_whole_run(RunTiming& run) {
  const ComputeSchedule& s = context_.run->schedules[context_.detail(next_).kernel];
  const std::size_t last = current_.count - 1;
  for (std::size_t w = 0; w < s.ready_before_last.size(); ++w) {
    if (s.ready_before_last[w] != never) current_.accumulator[w].ready = first_cycle_ + s.ready_before_last[w];
    current_.writes_left[w] = s.left_before_last[w];
  }
  if (s.some_final_before_last && finals_release_sends_) context_.send_state_changed = true;
  run = {first_cycle_ + s.issue[1], first_cycle_ + s.issue[last - 1], s.run_cycles};
  instruction_ = last;
}

// Whether the fma from `from` to the compute's last would all issue in `cycle`: each has its
// inputs by then and a slot, and none adds to what another of them adds to (the later would
// wait for the earlier's result). A run issued ahead then ends before `from`, so that the
// ordinary issue takes that whole cycle: it ends with the compute's last fma.
bool TaskSequencer::last_joins(std::size_t from, Cycle cycle) const {
  const std::size_t last = current_.count - 1;
  if (last + 1 - from > context_.pipeline->per_cycle()) return false;
  for (std::size_t k = from; k <= last; ++k) {
    const FmaInstruction& i = current_.instructions[k];
    if (!usable_by(i, cycle)) return false;
    for (std::size_t j = from; j < k; ++j)
      if (current_.component_ready ? micro_->target(current_.instructions[j]) == micro_->target(i)
                                   : current_.instructions[j].accumulator == i.accumulator)
        return false;
  }
  return true;
}

// The issue cycle of each fma of the run, up to (not including) the compute's last: the
// cycle of the fma before while it has a slot and the inputs are usable, else the first later
// cycle at which they are. The run stops at `limit` and before a cycle the last would share
// (last_joins).
template <bool split>
void TaskSequencer::time_run(Cycle cycle, Cycle limit, RunTiming& run) {
  const std::size_t last = current_.count - 1;
  const Cycle latency = context_.pipeline->latency();
  const unsigned width = context_.pipeline->per_cycle();
  const FmaInstruction* const instructions = current_.instructions;
  WordState* const accumulator = current_.accumulator;
  Cycle t = cycle;        // the cycle of the fma before (the run's first cycle has issued none)
  unsigned in_cycle = 0;  // fma issued in it
  while (instruction_ < last) {
    const FmaInstruction& i = instructions[instruction_];
    NarrowCycle& target = split ? current_.component_ready[micro_->target(i)] : accumulator[i.accumulator].ready;
    Cycle earliest = std::max<Cycle>({t, target, current_.operand[i.operand].ready, current_.coefficient[i.coefficient].ready});
    if (earliest == t && in_cycle == width) earliest = t + 1;
    if (earliest >= limit) break;
    if (earliest != t || in_cycle == 0) {  // the first fma of a cycle
      if (width > 1 && last_joins(instruction_, earliest)) break;
      t = earliest;
      in_cycle = 0;
      ++run.cycles;
    }
    ++in_cycle;
    if (run.first == never) run.first = earliest;
    run.last = earliest;
    target = earliest + latency;
    WordState& word = accumulator[i.accumulator];
    if constexpr (split)
      word.ready = std::max(current_.component_ready[2 * i.accumulator], current_.component_ready[2 * i.accumulator + 1]);
    if (finals_release_sends_ && --current_.writes_left[i.accumulator] == 0) context_.send_state_changed = true;
    ++instruction_;
  }
}

}  // namespace torus
