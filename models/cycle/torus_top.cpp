#include "models/cycle/torus_top.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

namespace torus {
namespace {

// Which links each node's traffic uses: a message's hop h leaves its h-th node on route[h]
// and enters the next one on the opposite port.
struct Traffic {
  std::vector<std::uint8_t> out, in;
  std::vector<bool> passes;
};

Traffic traffic_of(const Program& program) {
  const std::size_t count = program.node_count();
  Traffic t{std::vector<std::uint8_t>(count, 0), std::vector<std::uint8_t>(count, 0), std::vector<bool>(count, false)};
  for (const Message& m : program.messages) {
    NodeCoord at = program.shape.coord_of(m.source);
    const std::span<const Direction> route = program.route(m);
    for (std::size_t h = 0; h < route.size(); ++h) {
      const Direction d = route[h];
      const std::size_t from = program.shape.index_of(at);
      at = *program.shape.neighbour(at, d);
      const std::size_t to = program.shape.index_of(at);
      t.out[from] |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(d));
      t.in[to] |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(opposite(d)));
      if (h + 1 < route.size()) t.passes[to] = true;
    }
  }
  return t;
}

}  // namespace

TorusTop::TorusTop(const sc_core::sc_module_name& name, const TopConfig& config, const Program& program,
                   const MicroSchedule& micro_schedule, const RollPolicy& policy, bool split_complex,
                   const DatapathFactory& make_datapath)
    : sc_core::sc_module(name),
      wake_calendar("wake_calendar", period_ticks()),
      nodes("node"), config_(config) {
  shared_.program = &program;
  shared_.receive_of = receive_tasks(program);
  for (const KernelSpec& k : program.kernels) {
    shared_.micro.push_back(micro_schedule.build(k, split_complex));
    shared_.schedules.push_back(schedule_compute(shared_.micro.back(), config.fma_latency, config.fma_per_cycle));
  }
  shared_.policy = &policy;
  shared_.message_startup = config.message_startup;
  shared_.fma_per_butterfly = config.fma_per_butterfly;
  shared_.split_complex = split_complex;
  shared_.scratch = &scratch_;
  plans_ = NodePlans(program);
  shared_.plans = &plans_;
  const TorusShape& shape = program.shape;
  const std::size_t count = shape.node_count();
  const Traffic traffic = traffic_of(program);
  const auto finished = [this](std::size_t, Cycle cycle) {
    completion_cycle_ = std::max(completion_cycle_, cycle);
    if (++finished_nodes_ == nodes.size()) sc_core::sc_stop();
  };
  const auto settings_of = [&](std::size_t i) {
    const bool stepping = std::find(config.stepping_nodes.begin(), config.stepping_nodes.end(), i) != config.stepping_nodes.end();
    return NodeSettings{period_ticks(),  config.fma_latency, config.fma_per_cycle,
                        config.fast_forward && !stepping, traffic.out[i], traffic.in[i],
                        traffic.passes[i], config.trace_tasks, config.step_spans};
  };
  std::size_t stepping = 0;
  for (std::size_t i = 0; i < count; ++i) stepping += Node::fast_forward_refusal(settings_of(i), policy).empty() ? 0 : 1;
  if (stepping > 0) clock = std::make_unique<sc_core::sc_clock>("clock", sc_core::sc_time(1, sc_core::SC_NS));
  // Threads only when every node steps on the clock: a node that sleeps runs in its own process
  // and may send words ahead, which the links' staging does not cover.
  const std::size_t parts = stepping == count ? std::clamp<std::size_t>(config.threads, 1, count) : 1;
  step_totals_.assign(parts, StepTotals{});
  for (StepTotals& totals : step_totals_) totals.resize(program.global_steps());
  shared_.step_totals = step_totals_.data();
  shared_.step_parts = parts;
  shared_.node_count = count;
  nodes.init(count, [&](const char* node_name, std::size_t i) {
    return new Node(node_name, i, shared_, settings_of(i), make_datapath(i), clock != nullptr, wake_calendar, finished);
  });
  if (clock) {
    for (std::size_t i = 0; i < count; ++i)
      if (!Node::fast_forward_refusal(settings_of(i), policy).empty()) clocked_.push_back(&nodes[i]);
    sc_core::sc_spawn_options on_edge;
    on_edge.spawn_method();
    on_edge.dont_initialize();  // cycle 0 is each node's own first activation
    on_edge.set_sensitivity(&clock->posedge_event());
    sc_core::sc_spawn([this] { step_clocked(); }, "stepper", &on_edge);
  }
  std::vector<Wakeable*> woken(count);
  for (std::size_t i = 0; i < count; ++i) woken[i] = &nodes[i];
  wake_calendar.attach(std::move(woken), Node::hot_bytes());
  sc_core::sc_spawn_options options;
  options.spawn_method();  // first at cycle 0, then at the cycles watch() asks for
  sc_core::sc_spawn([this] { watch(); }, "watchdog", &options);
  std::vector<bool> used(count * direction_count, false);
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t d = 0; d < direction_count; ++d) used[i * direction_count + d] = (traffic.out[i] >> d) & 1u;
  if (config.fault == FaultKind::BitFlip || config.fault == FaultKind::DropWord)
    used[config.fault_node * direction_count + static_cast<std::size_t>(config.fault_link)] = true;
  links_ = std::make_unique<LinkSet>("links", used, config, nodes[0].datapath().value_parts());
  // One loop wires the torus: the link node i drives in direction d ends at the neighbour in
  // direction d, which receives it on its port facing back, opposite(d). Nodes have ports only
  // where their traffic goes, and the two ends of a link agree (Traffic marks both); a link that
  // carries no traffic (on a mesh axis, the wrap-around link: the verified routes never use it)
  // is the shared idle channel, bound to no port.
  for (std::size_t i = 0; i < count; ++i)
    for (Direction d : all_directions) {
      LinkChannel& channel = (*links_)[i * direction_count + static_cast<std::size_t>(d)];
      if (auto* port = nodes[i].out_port(static_cast<std::size_t>(d))) (*port)(channel);
      Node& neighbour = nodes[shape.index_of(shape.ring_neighbour(shape.coord_of(i), d))];
      if (auto* port = neighbour.in_port(static_cast<std::size_t>(opposite(d)))) (*port)(channel);
    }
  inject_fault();
  if (parts > 1) stage_links_for_threads();
}

// Each node defers to its partition's calls, and each link stages between its two ends'.
void TorusTop::stage_links_for_threads() {
  const std::size_t count = nodes.size(), parts = step_totals_.size();
  // step_clocked partitions clocked_, the calls below partition the nodes: the same only so.
  if (clocked_.size() != count) throw std::logic_error("torus: threads step the nodes only when every node steps on the clock");
  deferred_ = std::vector<DeferredCalls>(parts);
  for (std::size_t p = 0; p < parts; ++p) {
    deferred_[p].part = static_cast<std::uint32_t>(p);
    deferred_[p].updates_to.resize(parts);
  }
  for (std::size_t i = 0; i < count; ++i) nodes[i].defer_to(&deferred_[partition_of(i, count, parts)]);
  const TorusShape& shape = program().shape;
  for (std::size_t i = 0; i < count; ++i)
    for (Direction d : all_directions) {
      const std::size_t k = i * direction_count + static_cast<std::size_t>(d);
      if (!links_->used(k)) continue;
      const std::size_t to = shape.index_of(shape.ring_neighbour(shape.coord_of(i), d));
      (*links_)[k].stage_for_threads(&deferred_[partition_of(i, count, parts)], &deferred_[partition_of(to, count, parts)]);
    }
  threads_ = std::make_unique<StepThreads>(parts);
  update_phase_ = std::make_unique<LinkUpdatePhase>("link_updates", deferred_, *threads_);
}

StepTotals TorusTop::step_totals() const {
  StepTotals totals = step_totals_.front();
  for (std::size_t p = 1; p < step_totals_.size(); ++p) totals.merge(step_totals_[p]);
  return totals;
}

LinkSet::LinkSet(const sc_core::sc_module_name& name, const std::vector<bool>& used, const TopConfig& config,
                 std::size_t value_parts)
    : sc_core::sc_module(name) {
  const auto make = [&](const std::string& link_name) {
    auto link = std::make_unique<LinkChannel>(link_name.c_str(), config.link_latency, config.link_rate, config.link_buffer_words,
                                              value_parts);
    link->join_update_chain(&chain_);
    return link;
  };
  // The idle link first: made last, it would be the entry moved into the first link's place
  // at teardown, and every other link would then be searched for from the front (~LinkSet).
  idle_ = make("idle");
  links_.resize(used.size());
  for (std::size_t k = 0; k < used.size(); ++k)
    if (used[k]) links_[k] = make("link_" + std::to_string(k));
}

LinkSet::~LinkSet() {
  std::size_t first = 0;
  while (first < links_.size() && !links_[first]) ++first;
  if (first < links_.size()) links_[first].reset();
  for (std::size_t k = links_.size(); k-- > first + 1;) links_[k].reset();
  idle_.reset();
}

void TorusTop::inject_fault() {
  const TorusShape& shape = program().shape;
  switch (config_.fault) {
    case FaultKind::None: return;
    case FaultKind::BitFlip:
    case FaultKind::DropWord:
      (*links_)[config_.fault_node * direction_count + static_cast<std::size_t>(config_.fault_link)].inject(
          {config_.fault == FaultKind::DropWord, config_.fault_bit, config_.fault_cycle,
           to_string(shape.coord_of(config_.fault_node)) + " " + to_string(config_.fault_link)});
      return;
    case FaultKind::StuckNode: nodes[config_.fault_node].inject_stuck(config_.fault_cycle); return;
    case FaultKind::CorruptCoefficient: nodes[config_.fault_node].inject_corrupt_coefficient(config_.fault_bit); return;
  }
}

std::string TorusTop::fault_record() const {
  if (config_.fault == FaultKind::None) return "";
  if (config_.fault != FaultKind::BitFlip && config_.fault != FaultKind::DropWord) return nodes[config_.fault_node].fault_record();
  const LinkChannel& link = (*links_)[config_.fault_node * direction_count + static_cast<std::size_t>(config_.fault_link)];
  const LinkFaultRecord& r = link.fault_record();
  if (!r.fired) return "";
  const std::string what = fmt::format("word {} of {} (message {}) on link {} at cycle {}", r.word.index,
                                       program().describe(program().messages[r.word.message].tag), r.word.message, link.fault()->label, r.cycle);
  if (link.fault()->drop) return "dropped " + what;
  return fmt::format("flipped bit {} of {}: {} became {}", link.fault()->bit, what, r.word.value.real(), r.became);
}

// The nodes that step every cycle, in node order. Asking for the next nodes' state ahead here,
// as the calendar does for the nodes it wakes, made 512 and 4,096 nodes slower (their objects
// alone are about 43 lines each, and stepping nodes find most of them still in cache).
void TorusTop::step_clocked() {
  const Cycle cycle = sc_core::sc_time_stamp().value() / period_ticks();
  const std::size_t count = clocked_.size();
  if (!threads_) return step_range(0, count, cycle);
  for (DeferredCalls& calls : deferred_) calls.collecting = true;
  const std::function<void(std::size_t)> job = [&](std::size_t p) {
    const auto [first, last] = partition_range(count, deferred_.size(), p);
    step_range(first, last, cycle);
  };
  try {
    threads_->run(job);
  } catch (...) {
    for (DeferredCalls& calls : deferred_) calls.clear();
    throw;
  }
  update_phase_->request_if_asked();
  for (DeferredCalls& calls : deferred_) {
    calls.collecting = false;
    for (const DeferredCalls::NodeCall& call : calls.nodes) call.node->complete_deferred(call);
    calls.nodes.clear();
  }
}

void TorusTop::step_range(std::size_t first, std::size_t last, Cycle cycle) {
  for (std::size_t k = first; k < last; ++k) {
    if (k + 2 < last) clocked_[k + 2]->prefetch_cycle_state();
    if (k + 1 < last) clocked_[k + 1]->prefetch_cycle_words();
    clocked_[k]->step_on_clock(cycle);
  }
}

// Runs at cycles that are multiples of 64: every one when a progress display listens, else
// only at the first that could see a stall. The run stalls at the first multiple of 64 that is
// at least watchdog_cycles and at least watchdog_cycles after the last progress; since progress
// only grows, no multiple before the deadline computed from the progress known so far can be
// that one, and looking only there finds the same cycle.
void TorusTop::watch() {
  constexpr Cycle every = 64;
  const Cycle cycle = sc_core::sc_time_stamp().value() / period_ticks();
  if (completed()) return;
  if (config_.on_progress) config_.on_progress(cycle);
  if (cycle >= watch_deadline_) {
    Cycle last_progress = 0;
    // Indices, not a range loop: sc_vector's iterator comparison is ambiguous under C++20's
    // reversed operators (clang warns).
    for (std::size_t i = 0; i < nodes.size(); ++i) last_progress = std::max(last_progress, nodes[i].last_progress());
    const Cycle due = std::max<Cycle>(config_.watchdog_cycles, last_progress + config_.watchdog_cycles);
    watch_deadline_ = (due + every - 1) / every * every;
  }
  if (cycle < watch_deadline_) {
    const Cycle next = config_.on_progress ? cycle + every : watch_deadline_;
    next_trigger(sc_core::sc_time::from_value((next - cycle) * period_ticks()));
    return;
  }
  watchdog_fired_ = true;
  // The nodes that got least far come first: the cause of a stall is usually among them.
  std::vector<const Node*> waiting;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!nodes[i].finished()) waiting.push_back(&nodes[i]);
  std::stable_sort(waiting.begin(), waiting.end(), [](const Node* a, const Node* b) { return a->progress() < b->progress(); });
  for (const Node* node : waiting)
    stall_report_.push_back("node " + program().describe_node(node->index()) + ": " + node->waiting_for(cycle));
  if (!waiting.empty()) wait_chain_ = chain_of_waits(waiting.front()->index(), cycle);
  sc_core::sc_stop();
}

bool TorusTop::sent_in_full(std::uint32_t message) const {
  const Message& m = program().messages[message];
  // Asked only after a stall: a scan of the source's list, not a table per message kept all run.
  const std::vector<Task>& tasks = program().nodes[m.source].tasks;
  for (std::size_t t = 0; t < tasks.size(); ++t)
    if (tasks[t].kind == TaskKind::Send && tasks[t].message == message) return nodes[m.source].words_done(static_cast<std::uint32_t>(t)) == m.words;
  return false;
}

// Follows "waits on" from the least advanced node until a node repeats (a cycle of waits) or
// the chain ends at a node that waits on nothing outside itself.
std::string TorusTop::chain_of_waits(std::size_t first, Cycle cycle) const {
  std::vector<std::size_t> seen;
  std::string text;
  std::size_t at = first;
  while (std::find(seen.begin(), seen.end(), at) == seen.end()) {
    seen.push_back(at);
    const auto [next, why] = nodes[at].waits_on(cycle);
    text += program().describe_node(at);
    if (next == Node::no_node) return "chain of waits: " + text + (nodes[at].finished() ? " (finished)" : " (waits on nothing outside itself)");
    text += " waits for " + why + " from ";
    const std::uint32_t message = nodes[at].awaited_message();
    if (message != no_task && sent_in_full(message))
      return "chain of waits: " + text + program().describe_node(next) +
             ", which has sent all its words: lost on the way, or held up in a link buffer behind other words";
    at = next;
  }
  return "cycle of waits: " + text + program().describe_node(at);
}

}  // namespace torus
