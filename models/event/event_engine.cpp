#include "models/event/event_engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/simulation.hpp"

namespace torus::event {

EventEngine::EventEngine(const Program& program, const Params& params, const MicroSchedule& micro, const RollPolicy& policy,
                         const DatapathFactory& make_datapath)
    : program_(program),
      params_(params),
      policy_(policy),
      micro_schedule_(micro),
      micro_(program.kernels.size()),
      schedules_(params.fma_latency, params.per_cycle),
      blocks_(params.fma_latency, params.per_cycle) {
  closed_forms_ = !params.per_word && (micro.name() == "interleaved" || micro.name() == "chained");
  chained_ = micro.name() == "chained";
  receive_task_of_ = receive_tasks(program);
  messages_.resize(program.messages.size());
  for (std::size_t m = 0; m < messages_.size(); ++m) {
    const Message& msg = program.messages[m];
    if (msg.hops == 0) fail(msg.source, "message " + std::to_string(m) + " has no route (a node sending to itself)");
    messages_[m].words = msg.words;
    messages_[m].hops = static_cast<std::uint16_t>(msg.hops);
  }
  links_.resize(program.node_count() * direction_count);
  plan_routes();
  nodes_.resize(program.node_count());
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    NodeState& node = nodes_[n];
    const NodeProgram& np = program.nodes[n];
    NodeDataflow flow = analyse_dataflow(np, program.ffts);
    node.flow = std::move(flow.tasks);
    node.fft_flow = std::move(flow.ffts);
    node.info.resize(np.tasks.size());
    std::uint32_t steps = 0;
    for (std::uint32_t i = 0; i < np.tasks.size(); ++i) {
      steps = std::max(steps, np.tasks[i].label.global_step + 1);
      if (np.tasks[i].kind == TaskKind::Fft) {
        node.info[i] = node.flow[i].fft;
        continue;
      }
      if (np.tasks[i].kind != TaskKind::Compute) {
        node.info[i] = node.flow[i].generation;
        continue;
      }
      node.info[i] = static_cast<std::uint32_t>(node.compute_task.size());
      node.compute_task.push_back(i);
    }
    node.compute_done.assign(node.compute_task.size(), never);
    node.steps.assign(steps, StepRecord{});
    node.buffers.resize(np.buffers.size());
    for (std::size_t b = 0; b < np.buffers.size(); ++b) node.buffers[b].allocate(np.buffers[b].words, params.split, !params.per_word);
    node.datapath = make_datapath(n);
    node.record.computes_done.assign(program.transforms.size(), 0);
    node.record.fft_fma.assign(program.transforms.size(), 0);
    node.record.fft_butterflies.assign(program.transforms.size(), 0);
    if (params.trace_tasks) node.trace.assign(np.tasks.size(), TaskSpan{});
  }
  queued_.assign(nodes_.size() + messages_.size(), false);
  credits_may_wait_ = closed_forms_ && params.whole_blocks && every_send_after_its_read();
}

void EventEngine::run() {
  for (std::size_t n = 0; n < nodes_.size(); ++n) touch_node(n);
  do {
    while (!work_.empty()) {
      const std::size_t item = work_.front();
      work_.pop_front();
      queued_[item] = false;
      if (item < nodes_.size()) {
        if (!advance_node(item)) continue;
        touch_node(item);
        mark_arbiters(item);
      } else {
        const auto m = static_cast<std::uint32_t>(item - nodes_.size());
        if (advance_message(m)) touch_message(m);
      }
    }
  } while (decide_grants());
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    if (nodes_[n].walk.passed_all == never) stall();
  for (const MessageState& s : messages_)
    if (!s.complete()) stall();
  for (std::size_t n = 0; n < nodes_.size(); ++n) classify_waits(n);
}

void EventEngine::push_work(std::size_t item) {
  if (queued_[item]) return;
  queued_[item] = true;
  work_.push_back(item);
}

// Whatever waits on node n (itself, its messages in and out) may be able to move on.
void EventEngine::touch_node(std::size_t n) {
  push_work(n);
  for (const std::uint32_t m : nodes_[n].active) push_work(nodes_.size() + m);
}

// Whatever may wait on message m, and nothing else (an all-to-all has thousands of messages
// active per node, so waking a node's every message on each word of one would be quadratic):
// the walks of its source (words its sends owe) and destination (words its receives take);
// the receives into the buffer it leaves (their places owe its words) and the sends from the
// buffer it fills (they wait for its words); on each link of its route, the messages behind it
// (credits, and their words queued behind its words in the far end's buffer); the links its
// nodes may give next.
void EventEngine::touch_message(std::uint32_t m) {
  const Message& msg = program_.messages[m];
  const MessageState& s = messages_[m];
  push_work(msg.source);
  push_work(msg.destination);
  for (const std::uint32_t r : nodes_[msg.source].buffers[s.buffer].active_receives) push_work(nodes_.size() + r);
  if (s.into != no_buffer)
    for (const std::uint32_t t : nodes_[msg.destination].buffers[s.into].active_sends) push_work(nodes_.size() + t);
  touch_link(links_[first_link(m)]);
  for (std::uint32_t h = 1; h < hop_count(m); ++h) touch_link(links_[hops_[messages_[m].through + h - 1].link]);
  mark_route(m);
}

// The two messages on the link that may move on when its words move: the one holding it (it
// waits for credits, returned as the far end takes words) and the first whose words have not
// all been taken at the far end (the others wait behind its words in that buffer, in order).
void EventEngine::touch_link(LinkState& link) {
  const auto count = static_cast<std::uint32_t>(messages_.size());
  while (link.taken_head < link.head) {
    const std::uint32_t ref = link.queue[link.taken_head];
    const std::uint64_t base = ref < count ? messages_[ref].link_base : hops_[ref - count].link_base;
    if (link.pops.count() < base + messages_[message_of(ref)].words) break;
    ++link.taken_head;
  }
  if (link.taken_head < link.queue.size()) {
    const std::uint32_t ref = link.queue[link.taken_head], m = message_of(ref);
    push_work(nodes_.size() + m);
    // Its words lead the far end's buffer: the hop after this link may take its own link.
    const std::uint32_t next = ref < count ? messages_[m].through : ref - count + 1;
    if (next < hops_.size() && hops_[next].message == m && (ref < count || hops_[next].hop == hops_[ref - count].hop + 1))
      list_if_front(next);
  }
  if (link.head < link.queue.size()) push_work(nodes_.size() + message_of(link.queue[link.head]));
}

void EventEngine::forget_active(std::size_t n, std::uint32_t m) {
  auto& active = nodes_[n].active;
  const auto it = std::find(active.begin(), active.end(), m);
  if (it != active.end()) active.erase(it);
}

// Message m's receive at node n has stored its every word.
void EventEngine::receive_done(std::size_t n, std::uint32_t m) {
  forget_active(n, m);
  const MessageState& s = messages_[m];
  if (s.into == no_buffer) return;
  BufferTimes& buffer = nodes_[n].buffers[s.into];
  std::erase(buffer.active_receives, m);
  buffer.last_store = std::max(buffer.last_store, s.last_store);
}

void EventEngine::fail(std::size_t n, const std::string& what) const {
  throw std::logic_error("node " + program_.describe_node(n) + ": " + what);
}

void EventEngine::stall() const {
  std::string text = "the Program cannot finish: no node or message can move on; waiting (the first 8):";
  std::size_t shown = 0;
  for (std::size_t n = 0; n < nodes_.size() && shown < 8; ++n) {
    const Walk& w = nodes_[n].walk;
    if (w.passed_all != never) continue;
    const Task& task = program_.nodes[n].tasks[w.next];
    text += "\n  node " + program_.describe_node(n) + ": task " + std::to_string(w.next) + " (" + to_string(task.kind) +
            ", global step " + std::to_string(task.label.global_step) + ") since cycle " + std::to_string(w.at);
    if (task.kind == TaskKind::Compute) text += ", fma " + std::to_string(w.fma);
    ++shown;
  }
  for (std::size_t m = 0; m < messages_.size() && shown < 8; ++m) {
    const MessageState& s = messages_[m];
    if (s.complete()) continue;
    text += "\n  message " + std::to_string(m) + " (" + program_.describe(program_.messages[m].tag) + "): " +
            std::to_string(s.sent) + " words left its source, " + std::to_string(s.taken) + " stored of " +
            std::to_string(program_.messages[m].words) + (s.receive_posted ? "" : ", receive not posted");
    for (std::uint32_t h = 1; h < hop_count(static_cast<std::uint32_t>(m)); ++h) {
      const HopState& hop = hops_[s.through + h - 1];
      text += "; " + std::to_string(hop.sent) + " left node " + program_.describe_node(hop.link / direction_count) +
              (hop.granted_at == never ? " (waiting for its link)" : "");
    }
    ++shown;
  }
  throw StallError(text);
}

}  // namespace torus::event
