// The event engine's FFT tasks (docs/timing-model.md, "FFT tasks"): once its inputs' times and
// its outputs' last leaving cycles are known, the whole task follows in closed form, pass by
// pass: pass 0 takes the free slots from the entry cycle on, every later pass starts L cycles
// after the last fma of the one before.

#include <algorithm>

#include "models/event/event_engine.hpp"

namespace torus::event {

bool EventEngine::pass_fft(std::size_t n, const Task& task) {
  const TaskDetail& d = program_.nodes[n].detail(task);
  NodeState& node = nodes_[n];
  Walk& w = node.walk;
  const FftSpec& spec = program_.ffts[d.kernel];
  const FftDataflow& flow = node.fft_flow[node.info[w.next]];
  const NodeProgram& list = program_.nodes[n];
  Cycle at = w.at;
  for (std::uint32_t i = 0; i < spec.outputs; ++i) {  // replaceable once every owed word has left
    const BufferTimes& out = node.buffers[fft_output(list, task, spec, i)];
    if (!replaceable(out, true)) return false;
    at = std::max(at, free_from(out));
  }
  // Until every input word is stored (and the outputs replaceable) the node waits for words;
  // from then until the last is usable, for its own pipeline (dependency).
  Cycle stored = at;
  const Extents3 in = spec.input_extents();
  const std::size_t input_words = in[0] * in[1] * in[2];
  for (std::uint32_t i = 0; i < spec.inputs; ++i) {
    const BufferTimes& input = node.buffers[fft_input(list, task, i)];
    if (!input.holds(flow.input_generations[i], input_words)) return false;
    stored = std::max(stored, input.latest_since(input_words));
    at = std::max(at, input.latest(input_words));
    const DataTag want = slice_tag(d.operand_tag, spec.input_cut, i);
    if (flow.filled_by[i] == no_task && input.tag != want)
      fail(n, "task " + std::to_string(w.next) + " needs " + program_.describe(want) + " but holds " + program_.describe(input.tag));
  }
  if (at == w.last_issue && w.issued_then >= params_.per_cycle) ++at;  // no fma slot left in that cycle
  for (std::uint32_t i = 0; i < spec.outputs; ++i) check_replaced(n, fft_output(list, task, spec, i), at);
  stored = std::min(stored, at);
  classify_wait(node, w.at, stored);
  classify_dependency(node, stored, at);
  const unsigned taken = at == w.last_issue ? w.issued_then : 0;  // slots of `at` the task before took
  node.datapath->fft(list, task);
  // The passes: c_0 = at + floor((P - 1 + o)/f), c_k = c_{k-1} + L + floor((P - 1)/f).
  const std::uint64_t passes = spec.passes(), f = params_.per_cycle;
  const std::uint64_t per_pass = passes == 0 ? 0 : spec.butterflies() * params_.fma_per_butterfly / passes;
  Cycle last = at, usable = at;
  StepRecord& step = node.steps[task.label.global_step];
  if (passes > 0) {
    last = at + (per_pass - 1 + taken) / f;
    classify_busy_range(node, at, last);
    for (std::uint64_t k = 1; k < passes; ++k) {
      const Cycle start = last + params_.fma_latency;
      classify_dependency(node, last + 1, start);
      last = start + (per_pass - 1) / f;
      classify_busy_range(node, start, last);
    }
    // The slots of the last cycle taken: the last pass's stream (after the `taken` slots when it
    // is pass 0) ends at slot index `tail`, in its last cycle's slot tail mod f.
    const std::uint64_t tail = passes == 1 ? per_pass - 1 + taken : per_pass - 1;
    w.issued_then = static_cast<unsigned>(tail % f + 1);
    w.last_issue = last;
    usable = last + params_.fma_latency;
    if (step.start == never) step.start = at;
    step.fma += static_cast<std::uint32_t>(per_pass * passes);
    node.record.fma_issued += per_pass * passes;
    if (!node.trace.empty()) {
      node.trace[w.next].first = at;
      node.trace[w.next].count = static_cast<std::uint32_t>(per_pass * passes);
    }
  }
  for (std::uint32_t i = 0; i < spec.outputs; ++i) {
    BufferTimes& out = node.buffers[fft_output(list, task, spec, i)];
    out.place_result(flow.output_generations[i], at, usable);
    out.tag = slice_tag(d.tag, spec.output_cut, i);
  }
  step.done = step.done == never ? usable : std::max(step.done, usable);
  const std::uint32_t transform = task.label.transform;
  if (transform < node.record.fft_fma.size()) {
    node.record.fft_fma[transform] += per_pass * passes;
    node.record.fft_butterflies[transform] += spec.butterflies();
  }
  if (!node.trace.empty()) node.trace[w.next].last = usable;
  w.last_result = std::max(w.last_result, usable);
  w.compute = no_task;  // the sends after it wait for no compute: only for their words
  w.at = at;
  w.posted_until = w.next + 1;
  const auto& tasks = program_.nodes[n].tasks;
  while (w.posted_until < tasks.size() && tasks[w.posted_until].kind == TaskKind::Send) post_send(n, w.posted_until++, at);
  w.at = last;  // passed in the cycle of its last fma
  ++w.next;
  return true;
}

void EventEngine::classify_busy_range(NodeState& node, Cycle first, Cycle last) {
  first = std::max(first, node.accounted_until);
  if (first > last) return;
  node.record.busy += last - first + 1;
  node.accounted_until = last + 1;
}

}  // namespace torus::event
