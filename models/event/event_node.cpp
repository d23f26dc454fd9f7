// The event engine's walk of one node through its task list (docs/timing-model.md,
// "Programs"): the same rules as the SystemC node, applied to whole tasks. The walk stops
// where it needs a time not yet known (words not yet stored, a send not yet gone) and
// resumes there when the engine touches the node again.

#include <algorithm>

#include "models/event/event_engine.hpp"
#include "models/send_order.hpp"

namespace torus::event {

bool EventEngine::advance_node(std::size_t n) {
  NodeState& node = nodes_[n];
  Walk& w = node.walk;
  const auto& tasks = program_.nodes[n].tasks;
  bool progress = false;
  while (w.next < tasks.size()) {
    const Task& task = tasks[w.next];
    if (task.kind == TaskKind::Load) {
      if (!pass_load(n, task)) break;
    } else if (task.kind == TaskKind::Receive) {
      MessageState& s = messages_[task.message];
      s.receive_posted = true;
      s.receive_posted_at = w.at;
      s.into = task.buffer;
      s.into_generation = node.info[w.next];
      s.receive_task = w.next;
      node.active.push_back(task.message);
      if (task.buffer != no_buffer) node.buffers[task.buffer].active_receives.push_back(task.message);
      ++w.next;
    } else if (task.kind == TaskKind::Send) {
      if (w.next >= w.posted_until) post_send(n, w.next, w.at);
      ++w.next;
    } else if (task.kind == TaskKind::Fft) {
      if (!pass_fft(n, task)) break;
    } else {
      const bool entered = w.entered;
      const std::size_t issued = w.fma;
      const bool passed = (w.entered || enter_compute(n, task)) && (w.started || open_gate(n)) && issue(n, task);
      // Entering a compute posts the sends after it and issuing part of it finishes accumulator
      // words: under overlapped rolls either lets words leave before the compute passes, so
      // whatever waits on this node must be woken (a send left unwoken asked a router late).
      progress = progress || w.entered != entered || w.fma != issued;
      if (!passed) break;
      finish_compute(n, task);
    }
    progress = true;
  }
  if (w.next == tasks.size() && w.passed_all == never) {
    w.passed_all = w.at;
    progress = true;
  }
  return progress;
}

// Whether a send posted from `buffer` of a generation below `below_generation` has yet to take
// `word` (its leaving cycle is not known yet). A send takes the buffer's first `words` words;
// a word beyond them (an older, smaller block) is not owed.
bool EventEngine::owes(const BufferTimes& buffer, std::uint32_t word, std::uint32_t below_generation) const {
  for (const std::uint32_t m : buffer.active_sends) {
    const MessageState& s = messages_[m];
    if (s.generation < below_generation && word < s.words && (s.position ? (*s.position)[word] : word) >= s.sent)
      return true;
  }
  return false;
}

// Whether a send posted from `buffer` of a generation below `below_generation` has yet to take any word.
bool EventEngine::owes_any(const BufferTimes& buffer, std::uint32_t below_generation) const {
  return std::any_of(buffer.active_sends.begin(), buffer.active_sends.end(),
                     [&](std::uint32_t m) { return messages_[m].generation < below_generation; });
}

// Whether a task may replace the buffer's content (a load, a zeroing compute, an FFT's output)
// now that its times are known: no earlier send still owes one of its words and, unless the
// task keeps the content (`after_receives` false: a compute that accumulates onto a block it
// receives), no earlier receive still has words to store in it. Those words land before the
// replacement in cycle order (a block no task reads, such as a forward transform's last roll
// before the inverse, lands steps earlier), but the engine learns their cycles only as their
// messages move: stored after the new content was placed, they would overwrite it.
bool EventEngine::replaceable(const BufferTimes& buffer, bool after_receives) {
  return buffer.active_sends.empty() && (!after_receives || buffer.active_receives.empty());
}

// The cycle after the buffer's last owed word left, from which it may be replaced.
Cycle EventEngine::free_from(const BufferTimes& buffer) { return buffer.busy_until == never ? 0 : buffer.busy_until + 1; }

// Node n replaces the buffer's content at cycle `at`. A word of an earlier receive stored after
// `at` would land over the new content (docs/timing-model.md, "Programs"): a Program that does
// not order them is refused.
void EventEngine::check_replaced(std::size_t n, std::uint32_t b, Cycle at) const {
  const Cycle landed = nodes_[n].buffers[b].last_store;
  if (landed > at)
    fail(n, "task " + std::to_string(nodes_[n].walk.next) + " replaces buffer " + std::to_string(b) + " at cycle " +
                std::to_string(at) + ", before a word of an earlier receive lands in it at cycle " + std::to_string(landed));
}

// A load replaces the buffer once every word an earlier send owes has left (from the next cycle).
bool EventEngine::pass_load(std::size_t n, const Task& task) {
  const TaskDetail& d = program_.nodes[n].detail(task);
  NodeState& node = nodes_[n];
  Walk& w = node.walk;
  BufferTimes& buffer = node.buffers[task.buffer];
  if (!replaceable(buffer, true)) return false;
  const Cycle at = std::max(w.at, free_from(buffer));
  check_replaced(n, task.buffer, at);
  classify_wait(node, w.at, at);
  node.datapath->load(task.buffer, d.source);
  buffer.place(node.info[w.next], at);
  buffer.tag = d.tag;
  w.at = at;
  ++w.next;
  return true;
}

bool EventEngine::enter_compute(std::size_t n, const Task& task) {
  const TaskDetail& d = program_.nodes[n].detail(task);
  NodeState& node = nodes_[n];
  Walk& w = node.walk;
  BufferTimes& acc = node.buffers[task.buffer];
  if (!replaceable(acc, task.zero_accumulator)) return false;
  Cycle at = std::max(w.at, free_from(acc));
  if (at == w.last_issue && w.issued_then >= params_.per_cycle) ++at;  // no fma slot left in that cycle
  if (task.zero_accumulator) check_replaced(n, task.buffer, at);
  classify_wait(node, w.at, at);
  w.at = at;
  const TaskDataflow& flow = node.flow[w.next];
  if (task.zero_accumulator) {
    node.datapath->zero(task.buffer);
    acc.place(flow.generation, at);
    acc.tag = d.tag;
  }
  const std::array<std::pair<std::uint32_t, const DataTag*>, 3> inputs{
      {{task.buffer, &d.tag}, {d.operand, &d.operand_tag}, {d.coefficient, &d.coefficient_tag}}};
  for (std::size_t role = 0; role < 3; ++role)
    if (flow.filled_by[role] == no_task && node.buffers[inputs[role].first].tag != *inputs[role].second)
      fail(n, "task " + std::to_string(w.next) + " needs " + program_.describe(*inputs[role].second) + " but holds " +
                  program_.describe(node.buffers[inputs[role].first].tag));
  const KernelSpec& kernel = program_.kernels[d.kernel];
  acc.set_writes_left(static_cast<std::uint16_t>(kernel.reduction() * (params_.split ? 4 : 1)));
  w.compute = node.info[w.next];
  w.entered = true;
  w.fma = 0;
  w.posted_until = w.next + 1;
  const auto& tasks = program_.nodes[n].tasks;
  while (w.posted_until < tasks.size() && tasks[w.posted_until].kind == TaskKind::Send) post_send(n, w.posted_until++, at);
  return true;
}

// With whole blocks, the compute starts once every block it receives is stored in full.
bool EventEngine::open_gate(std::size_t n) {
  NodeState& node = nodes_[n];
  Walk& w = node.walk;
  Cycle gate = w.at;
  if (params_.whole_blocks)
    for (const std::uint32_t receive : node.flow[w.next].filled_by) {
      if (receive == no_task) continue;
      const MessageState& s = messages_[program_.nodes[n].tasks[receive].message];
      if (s.taken < s.words) return false;
      if (s.words > 0) gate = std::max(gate, s.last_store);
    }
  classify_wait(node, w.at, gate);
  w.at = gate;
  w.started = true;
  return true;
}

// Issues the compute's fma in micro-program order, each at the first cycle (from the previous
// issue on, within the unit's slots) at which the words it reads are usable. Returns false
// when an fma needs a word whose storing cycle is not known yet (words used as they arrive).
bool EventEngine::issue(std::size_t n, const Task& task) {
  const TaskDetail& d = program_.nodes[n].detail(task);
  NodeState& node = nodes_[n];
  Walk& w = node.walk;
  if (w.fma == 0 && issue_whole(n, task)) return true;
  for (const std::uint32_t b : {task.buffer, d.operand, d.coefficient}) node.buffers[b].expand();
  const TaskDataflow& flow = node.flow[w.next];
  BufferTimes& acc = node.buffers[task.buffer];
  const BufferTimes& op = node.buffers[d.operand];
  const BufferTimes& coef = node.buffers[d.coefficient];
  StepRecord& step = node.steps[task.label.global_step];
  const MicroProgram& micro = this->micro(d.kernel);
  acc.forget_schedule();
  const std::size_t first = w.fma, count = micro.instructions.size();
  while (w.fma < count) {
    const FmaInstruction& i = micro.instructions[w.fma];
    if (acc.generation[i.accumulator] != flow.generation || op.generation[i.operand] != flow.operand_generation ||
        coef.generation[i.coefficient] != flow.coefficient_generation)
      break;
    Cycle t = w.fma == 0 ? w.at : w.last_issue;
    if (t == w.last_issue && w.issued_then >= params_.per_cycle) ++t;
    const std::uint32_t target = micro.target(i);
    Cycle& target_ready = params_.split ? acc.component_ready[target] : acc.ready[i.accumulator];
    const Cycle at = std::max({t, target_ready, op.ready[i.operand], coef.ready[i.coefficient]});
    // Waiting for a word not yet stored counts as operands; for a result in the pipeline, as dependency.
    const Cycle stored = params_.whole_blocks ? 0 : std::max({acc.since[i.accumulator], op.since[i.operand], coef.since[i.coefficient]});
    const Cycle split_at = std::min(at, std::max(t, stored));
    classify_wait(node, t, split_at);
    classify_dependency(node, split_at, at);
    classify_busy(node, at);
    if (at == w.last_issue) ++w.issued_then;
    else {
      w.last_issue = at;
      w.issued_then = 1;
    }
    target_ready = at + params_.fma_latency;
    if (params_.split)
      acc.ready[i.accumulator] = std::max(acc.component_ready[2 * i.accumulator], acc.component_ready[2 * i.accumulator + 1]);
    --acc.writes_left[i.accumulator];
    w.last_result = target_ready;
    if (step.start == never) step.start = at;
    ++step.fma;
    if (!node.trace.empty()) node.trace[w.next].note(at);
    ++w.fma;
  }
  const std::size_t issued = w.fma - first;
  node.record.fma_issued += issued;
  if (issued > 0) node.datapath->fma_run(micro.instructions.data() + first, issued, task.buffer, d.operand, d.coefficient);
  return w.fma == count;
}

// The pointer passes the compute in the cycle its last fma issues.
void EventEngine::finish_compute(std::size_t n, const Task& task) {
  NodeState& node = nodes_[n];
  Walk& w = node.walk;
  node.compute_done[w.compute] = w.last_result;
  ++computes_;
  StepRecord& step = node.steps[task.label.global_step];
  step.done = step.done == never ? w.last_result : std::max(step.done, w.last_result);
  ++node.record.computes_done[task.label.transform];
  if (!node.trace.empty()) node.trace[w.next].last = w.last_result;
  w.at = w.last_issue;
  ++w.next;
  w.entered = false;
  w.started = false;
}

// Queues a send on the port of its hop; the words it takes are owed from now on.
void EventEngine::post_send(std::size_t n, std::uint32_t task_index, Cycle at) {
  NodeState& node = nodes_[n];
  const Task& t = program_.nodes[n].tasks[task_index];
  const Message& m = program_.messages[t.message];
  MessageState& s = messages_[t.message];
  s.compute = node.walk.compute;
  const NodeComputes computes{&program_.nodes[n], node.compute_task.size(),
                              [&node](std::uint32_t c) {
                                const TaskDataflow& f = node.flow[node.compute_task[c]];
                                return ComputeReads{node.compute_task[c], f.operand_generation, f.coefficient_generation};
                              },
                              [this](std::uint32_t kernel) -> const MicroProgram& { return micro(kernel); }};
  const SendOrder order = send_order(computes, policy_, task_index, node.info[task_index], s.words, s.compute);
  s.release = order.release;
  s.order = order.order;
  s.position = s.order ? &position_of(s.order) : nullptr;
  s.posted = true;
  s.posted_at = at;
  s.buffer = t.buffer;
  s.generation = node.info[task_index];
  s.step = t.label.global_step;
  s.send_task = task_index;
  const auto d = static_cast<std::size_t>(program_.route(m).front());
  LinkState& link = links_[n * direction_count + d];
  if (link.arbiter == no_arbiter) {  // nothing else asks for the link: it serves the node's messages as posted
    s.link_base = link.words_posted;
    link.words_posted += s.words;
    link.queue.push_back(t.message);
  } else {
    arbiters_[link.arbiter].own.push_back(t.message);
    mark_arbiters(n);
  }
  node.buffers[t.buffer].active_sends.push_back(t.message);
  node.active.push_back(t.message);
  node.sends_by_direction[d].push_back(t.message);
}

void EventEngine::classify_busy(NodeState& node, Cycle cycle) {
  if (cycle < node.accounted_until) return;
  ++node.record.busy;
  node.accounted_until = cycle + 1;
}

void EventEngine::classify_dependency(NodeState& node, Cycle from, Cycle to) {
  from = std::max(from, node.accounted_until);
  if (from >= to) return;
  node.record.dependency += to - from;
  node.accounted_until = to;
}

// Cycles spent waiting for words: operand or back-pressure, told apart once every link's
// times are known (classify_waits).
void EventEngine::classify_wait(NodeState& node, Cycle from, Cycle to) {
  from = std::max(from, node.accounted_until);
  if (from >= to) return;
  if (!node.waits.empty() && node.waits.back().second == from) node.waits.back().second = to;
  else node.waits.push_back({from, to});
  node.accounted_until = to;
}

}  // namespace torus::event
