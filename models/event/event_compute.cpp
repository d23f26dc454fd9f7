// The event engine's whole computes (docs/timing-model.md, "The fma unit" and "Closed forms of a
// whole compute"): when every word a compute reads is usable by its first cycle, and its
// accumulator's targets are usable too or as the last whole compute left them, the whole
// compute is timed at once: by a closed form (block_schedule.hpp) where one covers it, which
// needs neither the micro-program's instructions nor per-instruction times, else by the
// per-instruction schedule (fma_schedule.hpp).

#include <algorithm>

#include "models/event/event_engine.hpp"

namespace torus::event {

const MicroProgram& EventEngine::micro(std::uint32_t kernel) {
  std::unique_ptr<MicroProgram>& built = micro_[kernel];
  if (!built) built = std::make_unique<MicroProgram>(micro_schedule_.build(program_.kernels[kernel], params_.split));
  return *built;
}

const std::vector<std::uint32_t>& EventEngine::position_of(const std::vector<std::uint32_t>* order) {
  const auto [it, added] = positions_.try_emplace(order);
  if (added) {
    it->second.assign(order->size(), 0);
    for (std::uint32_t k = 0; k < order->size(); ++k) it->second[(*order)[k]] = k;
  }
  return it->second;
}

// The whole compute at once, when every word it reads is usable by its first cycle and the
// accumulator's targets are either usable too or as the last whole compute left them.
bool EventEngine::issue_whole(std::size_t n, const Task& task) {
  const TaskDetail& d = program_.nodes[n].detail(task);
  NodeState& node = nodes_[n];
  Walk& w = node.walk;
  Cycle start = w.at;
  if (start == w.last_issue && w.issued_then >= params_.per_cycle) ++start;
  if (w.last_issue != never && start < w.last_issue) return false;
  // Fma of the compute before issued in the start cycle (it ended mid-cycle): only the closed
  // forms cover the slots left in it.
  const unsigned offset = w.last_issue != never && start == w.last_issue ? w.issued_then : 0;
  const TaskDataflow& flow = node.flow[w.next];
  BufferTimes& acc = node.buffers[task.buffer];
  const KernelSpec& kernel = program_.kernels[d.kernel];
  const std::size_t acc_words = kernel.accumulator_words();
  const BufferTimes& op = node.buffers[d.operand];
  const BufferTimes& coef = node.buffers[d.coefficient];
  if (!op.holds(flow.operand_generation, kernel.operand_words()) || !coef.holds(flow.coefficient_generation, kernel.coefficient_words()))
    return false;
  // Inputs still in the pipeline (the compute before wrote them) can be timed in closed form only.
  const Cycle inputs = std::max(op.latest(kernel.operand_words()), coef.latest(kernel.coefficient_words()));
  if (inputs > start && !closed_forms_) return false;
  // Without whole blocks a wait for a word not yet stored counts as a wait for words, not as
  // dependency: the closed form's stalls are all dependency only if every input was stored by the start.
  if (inputs > start && !params_.whole_blocks &&
      std::max(op.latest_since(kernel.operand_words()), coef.latest_since(kernel.coefficient_words())) > start)
    return false;
  const bool continues = acc.schedule != FmaSchedules::none || acc.closed_form;
  if (!continues) {
    if (!acc.usable_by(flow.generation, start, acc_words)) return false;
    if (params_.split && !acc.compact)  // compact: both parts of a word are usable together
      for (std::size_t t = 0; t < 2 * acc_words; ++t)
        if (acc.component_ready[t] > start) return false;
  } else if (acc.compact) {
    if (!acc.holds(flow.generation, acc_words)) return false;
  } else {
    for (std::size_t word = 0; word < acc_words; ++word)
      if (acc.generation[word] != flow.generation) return false;
  }
  const std::uint64_t components = params_.split ? 2 : 1;
  const BlockShape shape{acc_words * components, kernel.reduction() * components, chained_, params_.split};
  std::optional<BlockTiming> closed;
  // Every target usable by the start (blocks of two sizes: the compute before on this
  // accumulator may have had fewer or more targets): nothing of the compute before matters.
  const bool settled = acc.closed_form && acc.compact && acc.latest(acc_words) <= start;
  const bool after_form = acc.closed_form && !settled;
  if (closed_forms_ && acc.schedule == FmaSchedules::none)
    closed = blocks_.time(shape, after_form ? &acc.pattern : nullptr, after_form ? start - acc.schedule_start : 0, offset);
  if (offset != 0 && !closed) return false;
  if (inputs > start && (!closed || !inputs_in_time(kernel, op, coef, shape, *closed, start, inputs))) return false;
  WholeCompute whole;
  if (closed) {
    whole = {closed->first, closed->last, closed->busy, closed->in_last_cycle, offset != 0 ? Cycle{1} : Cycle{0}};
    acc.closed_form = true;
    acc.pattern = closed->ready;
    ++closed_computes_;
  } else {
    const MicroProgram& micro = this->micro(d.kernel);
    std::uint32_t id = 0;
    if (acc.closed_form) {  // the closed form left the targets' times; the per-instruction rule goes on from them
      std::vector<Cycle> ready(shape.targets);
      for (std::uint64_t t = 0; t < shape.targets; ++t) {
        const Cycle r = acc.schedule_start + acc.pattern.at(t, params_.per_cycle);
        ready[t] = r > start ? r - start : 0;
      }
      id = schedules_.from(micro, std::move(ready));
    } else {
      id = schedules_.find(d.kernel, micro, acc.schedule, acc.schedule == FmaSchedules::none ? 0 : start - acc.schedule_start);
    }
    const FmaSchedule& s = schedules_[id];
    whole = {s.issue.front(), s.last(), s.busy, s.in_last_cycle};
    acc.forget_schedule();
    acc.schedule = id;
  }
  acc.schedule_start = start;
  time_whole(n, task, start, whole);
  return true;
}

// Whether no fma of the closed-form compute `timing`, started at `start`, issues before the
// operand and coefficient words it reads are usable: only those issued before `inputs` (the
// latest of them) need a look, a few latencies' worth at most when the compute before wrote them.
bool EventEngine::inputs_in_time(const KernelSpec& kernel, const BufferTimes& op, const BufferTimes& coef,
                                 const BlockShape& shape, const BlockTiming& timing, Cycle start, Cycle inputs) const {
  constexpr std::uint64_t most = std::uint64_t{1} << 16;  // beyond: the per-instruction rule
  const std::uint64_t count = shape.targets * shape.updates;
  for (std::uint64_t i = 0; i < count; ++i) {
    const Cycle at = start + blocks_.issue_of(shape, timing, i);
    if (at >= inputs) return true;
    if (i == most) return false;
    const FmaPlace place = blocks_.place_of(shape, i);
    if (op.ready_at(operand_word(kernel, place.word, place.reduction)) > at ||
        coef.ready_at(coefficient_word(kernel, place.word, place.reduction)) > at)
      return false;
  }
  return true;
}

// Hands a whole compute's times to the node: its counts, its fma unit, its accumulator's words.
void EventEngine::time_whole(std::size_t n, const Task& task, Cycle start, const WholeCompute& whole) {
  const TaskDetail& d = program_.nodes[n].detail(task);
  NodeState& node = nodes_[n];
  Walk& w = node.walk;
  BufferTimes& acc = node.buffers[task.buffer];
  const std::size_t count = program_.kernels[d.kernel].multiply_adds() * (params_.split ? 4 : 1);
  node.record.busy += whole.busy;
  node.record.dependency += whole.last + 1 - whole.counted - whole.busy;
  node.accounted_until = start + whole.last + 1;
  w.last_issue = start + whole.last;
  w.issued_then = whole.in_last_cycle;
  w.last_result = w.last_issue + params_.fma_latency;
  const auto target = [&](std::uint64_t t) {
    return start + (acc.closed_form ? acc.pattern.at(t, params_.per_cycle) : schedules_[acc.schedule].target_ready[t]);
  };
  const std::size_t words = program_.kernels[d.kernel].accumulator_words();
  if (acc.compact && acc.closed_form) {  // the block's words follow the compute's form
    acc.set(words, [&](Segment& s) {
      s.ready.kind = TimeForm::Kind::Compute;
      s.ready.start = start;
      s.ready.pattern = acc.pattern;
      s.ready.split = params_.split;
      s.ready.per_cycle = params_.per_cycle;
    });
    acc.compact_writes_left = 0;
  } else if (params_.split) {
    acc.expand();
    for (std::size_t t = 0; t < 2 * words; ++t) acc.component_ready[t] = target(t);
    for (std::size_t word = 0; word < words; ++word)
      acc.ready[word] = std::max(acc.component_ready[2 * word], acc.component_ready[2 * word + 1]);
  } else {
    acc.expand();
    for (std::size_t t = 0; t < words; ++t) acc.ready[t] = target(t);
  }
  acc.set_writes_left(0);
  // The first fma may wait for its target: the compute before it on this accumulator may still
  // be finishing it.
  const Cycle first = start + whole.first;
  StepRecord& step = node.steps[task.label.global_step];
  if (step.start == never) step.start = first;
  step.fma += static_cast<std::uint32_t>(count);
  if (!node.trace.empty()) {
    node.trace[w.next].note(first);
    node.trace[w.next].count += static_cast<std::uint32_t>(count - 1);
    node.trace[w.next].last = w.last_issue;
  }
  node.record.fma_issued += count;
  if (node.datapath->holds_values())
    node.datapath->fma_run(micro(d.kernel).instructions.data(), count, task.buffer, d.operand, d.coefficient);
  w.fma = count;
}

}  // namespace torus::event
