// The task sequencer's FFT tasks (docs/timing-model.md, "FFT tasks"): entered when its inputs
// are all present and its outputs replaceable, then passes of equal size issued cycle by cycle,
// each waiting for the last result of the pass before.

#include "models/cycle/task_sequencer.hpp"

namespace torus {

bool TaskSequencer::step_fft(Cycle cycle, Blocked& blocked, std::size_t& issued) {
  if (!context_.pipeline->has_slot(cycle)) return false;
  if (!entered_ && !enter_fft(cycle, blocked)) return false;
  if (fft_.pass == fft_.passes) {  // length 1: nothing to issue
    finish_fft(cycle);
    return true;
  }
  if (cycle < fft_.pass_start) {
    blocked = Blocked::Dependency;  // the pass before is still in the pipeline
    return false;
  }
  const std::uint32_t task = next_;
  while (fft_.issued < fft_.per_pass && context_.pipeline->has_slot(cycle)) {
    fft_.last_result = context_.pipeline->issue(cycle);
    context_.steps.issued(step_, 1, cycle);
    context_.trace_run(task, 1, cycle, cycle);
    ++fft_.issued;
    ++issued;
  }
  if (fft_.issued < fft_.per_pass) return false;  // the unit is full in this cycle
  if (++fft_.pass == fft_.passes) {
    finish_fft(fft_.last_result);
    return true;
  }
  fft_.issued = 0;
  fft_.pass_start = fft_.last_result;
  return false;
}

bool TaskSequencer::enter_fft(Cycle cycle, Blocked& blocked) {
  const Task& task = context_.task(next_);
  const FftSpec& spec = context_.program().ffts[context_.node->detail(task).kernel];
  const FftDataflow& flow = context_.ffts[context_.info[next_]];
  for (std::uint32_t i = 0; i < spec.outputs; ++i)
    if (!context_.memory.replaceable(fft_output(*context_.node, task, spec, i), cycle)) {  // an earlier send still needs the old words
      blocked = Blocked::Data;
      replacing_ = fft_output(*context_.node, task, spec, i);
      return false;
    }
  // Words still on their way (a receive not complete, or a word not landed) are waits for
  // words; words landed but still in this node's pipeline are a dependency.
  const Extents3 in = spec.input_extents();
  const std::size_t input_words = in[0] * in[1] * in[2];
  Blocked waiting = Blocked::None;
  for (std::uint32_t i = 0; i < spec.inputs; ++i) {
    const BufferState& buffer = context_.memory.buffer(fft_input(*context_.node, task, i));
    if (flow.filled_by[i] != no_task && !context_.complete_by(flow.filled_by[i], cycle)) waiting = Blocked::Data;
    for (std::size_t w = 0; w < input_words && waiting != Blocked::Data; ++w)
      if (buffer.words[w].generation != flow.input_generations[i]) waiting = Blocked::Data;
      else if (buffer.words[w].ready > cycle) waiting = Blocked::Dependency;
  }
  if (waiting != Blocked::None) {
    blocked = waiting;
    return false;
  }
  for (std::uint32_t i = 0; i < spec.inputs; ++i) {
    const BufferState& buffer = context_.memory.buffer(fft_input(*context_.node, task, i));
    const DataTag want = slice_tag(context_.node->detail(task).operand_tag, spec.input_cut, i);
    if (flow.filled_by[i] == no_task && buffer.tag != want)
      context_.fail("task " + std::to_string(next_) + " needs " + context_.program().describe(want) + " but holds " +
                    context_.program().describe(buffer.tag));
  }
  context_.datapath->fft(*context_.node, task);
  for (std::uint32_t i = 0; i < spec.outputs; ++i) {  // not usable before the results are
    context_.memory.place(fft_output(*context_.node, task, spec, i), flow.output_generations[i], never, slice_tag(context_.node->detail(task).tag, spec.output_cut, i));
  }
  fft_ = {spec.butterflies() * context_.run->fma_per_butterfly / std::max<std::uint64_t>(spec.passes(), 1), spec.passes(),
          0, 0, cycle, cycle};
  entered_ = true;
  last_compute_ = no_task;  // the sends after it wait for no compute: only for their words
  step_ = task.label.global_step;
  post_following_sends(cycle);
  blocked = Blocked::None;
  return true;
}

// Every output word is usable from `usable`; the pointer moves on.
void TaskSequencer::finish_fft(Cycle usable) {
  const Task& task = context_.task(next_);
  const FftSpec& spec = context_.program().ffts[context_.node->detail(task).kernel];
  for (std::uint32_t i = 0; i < spec.outputs; ++i) {
    const std::uint32_t output = fft_output(*context_.node, task, spec, i);
    for (WordState& w : context_.memory.buffer(output).words) w.ready = usable;
    std::ranges::fill(context_.memory.component_ready(output), usable);
  }
  last_result_ = std::max(last_result_, usable);
  NodeStats& stats = context_.stats;
  const std::uint32_t transform = task.label.transform;
  if (stats.fft_fma.size() <= transform) stats.fft_fma.resize(transform + 1, 0), stats.fft_butterflies.resize(transform + 1, 0);
  stats.fft_fma[transform] += spec.butterflies() * context_.run->fma_per_butterfly;
  stats.fft_butterflies[transform] += spec.butterflies();
  context_.steps.done(step_, usable);
  if (!context_.trace.empty()) context_.trace[next_].last = usable;
  context_.send_state_changed = true;
  advance();
  entered_ = false;
}

// Pass by pass, each from the later of `t` and the pass's start, the unit's full width a cycle,
// up to the limit, keeping the FFT's last cycle (its last fma) for the ordinary issue, which
// passes the task.
Cycle TaskSequencer::fast_forward_fft(Cycle cycle, Cycle limit) {
  const Cycle latency = context_.pipeline->latency();
  const std::uint64_t width = context_.pipeline->per_cycle();
  RunTiming run;
  Cycle t = cycle;
  std::uint64_t count = 0;
  while (fft_.pass < fft_.passes) {  // the last pass always keeps its last cycle: a guard only
    const std::uint64_t in_pass = fft_.per_pass - fft_.issued;
    const Cycle start = std::max(t, fft_.pass_start);
    std::uint64_t cycles = (in_pass + width - 1) / width;
    if (in_pass == fft_left()) --cycles;  // the last pass: its last cycle is the ordinary issue's
    cycles = std::min<std::uint64_t>(cycles, limit > start ? limit - start : 0);
    if (cycles == 0) break;
    const std::uint64_t n = std::min(in_pass, cycles * width);
    if (run.first == never) run.first = start;
    run.last = start + cycles - 1;
    run.cycles += cycles;
    count += n;
    t = run.last + 1;
    fft_.issued += n;
    fft_.last_result = run.last + latency;
    if (fft_.issued == fft_.per_pass) {
      ++fft_.pass;
      fft_.issued = 0;
      fft_.pass_start = fft_.last_result;
    }
  }
  if (count == 0) return cycle;
  return account_run(cycle, count, run);
}

// The first cycle every output may be replaced if nothing else is sent from them (never while
// a word of one is still owed).
Cycle TaskSequencer::fft_replaceable_at(Cycle cycle) const {
  const Task& task = context_.task(next_);
  Cycle at = never;
  bool waits = false;
  const FftSpec& spec = context_.program().ffts[context_.node->detail(task).kernel];
  for (std::uint32_t i = 0; i < spec.outputs; ++i) {
    const std::uint32_t b = fft_output(*context_.node, task, spec, i);
    if (context_.memory.replaceable(b, cycle)) continue;
    const BufferState& buffer = context_.memory.buffer(b);
    if (buffer.owed_words > 0 || buffer.busy_until == never) return never;
    at = waits ? std::max(at, buffer.busy_until + 1) : buffer.busy_until + 1;
    waits = true;
  }
  return at;
}

}  // namespace torus
