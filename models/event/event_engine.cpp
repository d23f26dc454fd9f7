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
    if (msg.route.empty()) fail(msg.source, "message " + std::to_string(m) + " has no route (a node sending to itself)");
    messages_[m].words = msg.words;
    messages_[m].hops = static_cast<std::uint16_t>(msg.route.size());
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

// Whatever waits on node n (itself, its messages in and out) may be able to move on.
void EventEngine::touch_node(std::size_t n) {
  const auto push = [this](std::size_t item) {
    if (queued_[item]) return;
    queued_[item] = true;
    work_.push_back(item);
  };
  push(n);
  for (const std::uint32_t m : nodes_[n].active) push(nodes_.size() + m);
}

// Whatever may wait on message m: the nodes on its route, the messages behind it on each link
// of its route (credits), and the links its nodes may give next.
void EventEngine::touch_message(std::uint32_t m) {
  const Message& msg = program_.messages[m];
  touch_node(msg.source);
  touch_node(msg.destination);
  touch_link(links_[first_link(m)]);
  for (std::uint32_t h = 1; h < hop_count(m); ++h) {  // a word passing a node makes room for its receives too
    const HopState& hop = hops_[messages_[m].through + h - 1];
    touch_node(hop.link / direction_count);
    touch_link(links_[hop.link]);
  }
  mark_route(m);
}

void EventEngine::touch_link(const LinkState& link) {
  for (std::size_t k = link.head; k < link.queue.size(); ++k) {
    const std::size_t item = nodes_.size() + message_of(link.queue[k]);
    if (queued_[item]) continue;
    queued_[item] = true;
    work_.push_back(item);
  }
}

void EventEngine::forget_active(std::size_t n, std::uint32_t m) {
  auto& active = nodes_[n].active;
  const auto it = std::find(active.begin(), active.end(), m);
  if (it != active.end()) active.erase(it);
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
