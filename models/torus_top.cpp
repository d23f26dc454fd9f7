#include "models/torus_top.hpp"

#include <algorithm>

namespace torus {

TorusTop::TorusTop(const sc_core::sc_module_name& name, const TopConfig& config, std::vector<Schedule> schedules,
                   const MicroSchedule& micro_schedule, const RollPolicy& policy, bool split_complex,
                   const DatapathFactory& make_datapath)
    : sc_core::sc_module(name),
      clock("clock", sc_core::sc_time(1, sc_core::SC_NS)),
      sequencer("sequencer", std::move(schedules), micro_schedule, split_complex),
      links("link"),
      nodes("node"),
      config_(config) {
  const TorusShape& shape = config.shape;
  const std::size_t count = shape.node_count();
  links.init(count * direction_count, [&](const char* link_name, std::size_t) {
    return new LinkChannel(link_name, config.link_latency, config.link_rate, config.link_buffer_words);
  });
  const NodeObserver observer{[this](std::size_t, Cycle cycle) {
    completion_cycle_ = std::max(completion_cycle_, cycle);
    if (++finished_nodes_ == nodes.size()) sc_core::sc_stop();
  }};
  const Cycle period = clock.period().value();
  nodes.init(count, [&](const char* node_name, std::size_t i) {
    return new Node(node_name, i, period, config.fma_latency, config.fma_per_cycle, policy, make_datapath(), observer,
                    config.fast_forward);
  });
  // One loop wires the torus: the link node i drives in direction d ends at the neighbour in
  // direction d, which receives it on its port facing back, opposite(d).
  for (std::size_t i = 0; i < count; ++i) {
    nodes[i].clock(clock);
    nodes[i].feed(sequencer);
    for (Direction d : all_directions) {
      LinkChannel& channel = links[i * direction_count + static_cast<std::size_t>(d)];
      const std::size_t neighbour = shape.index_of(*shape.neighbour(shape.coord_of(i), d));
      nodes[i].out[static_cast<std::size_t>(d)](channel);
      nodes[neighbour].in[static_cast<std::size_t>(opposite(d))](channel);
    }
  }
  inject_fault();
  sc_core::sc_spawn_options options;
  options.spawn_method();
  options.dont_initialize();
  options.set_sensitivity(&clock.posedge_event());
  sc_core::sc_spawn([this] { watch(); }, "watchdog", &options);
}

void TorusTop::inject_fault() {
  const TorusShape& shape = config_.shape;
  switch (config_.fault) {
    case FaultKind::None: return;
    case FaultKind::BitFlip:
    case FaultKind::DropWord:
      links[config_.fault_node * direction_count + static_cast<std::size_t>(config_.fault_link)].inject(
          {config_.fault == FaultKind::DropWord, config_.fault_bit, config_.fault_cycle,
           to_string(shape.coord_of(config_.fault_node)) + " " + to_string(config_.fault_link)});
      return;
    case FaultKind::StuckNode: nodes[config_.fault_node].inject_stuck(config_.fault_cycle); return;
    case FaultKind::CorruptCoefficient: nodes[config_.fault_node].inject_corrupt_coefficient(config_.fault_bit); return;
  }
}

std::string TorusTop::fault_record() const {
  if (config_.fault == FaultKind::BitFlip || config_.fault == FaultKind::DropWord)
    return links[config_.fault_node * direction_count + static_cast<std::size_t>(config_.fault_link)].fault_record();
  if (config_.fault == FaultKind::None) return "";
  return nodes[config_.fault_node].fault_record();
}

void TorusTop::watch() {
  const Cycle cycle = sc_core::sc_time_stamp().value() / period_ticks();
  // Look at the nodes only now and then: progress is rare to lose and costly to poll.
  if (completed() || cycle % 64 != 0 || cycle < config_.watchdog_cycles) return;
  Cycle last_progress = 0;
  for (const Node& node : nodes) last_progress = std::max(last_progress, node.last_progress());
  if (cycle < last_progress + config_.watchdog_cycles) return;
  watchdog_fired_ = true;
  // The nodes that got least far come first: the cause of a stall is usually among them.
  std::vector<const Node*> waiting;
  for (const Node& node : nodes)
    if (!node.finished()) waiting.push_back(&node);
  std::stable_sort(waiting.begin(), waiting.end(), [](const Node* a, const Node* b) { return a->progress() < b->progress(); });
  for (const Node* node : waiting)
    stall_report_.push_back("node " + to_string(config_.shape.coord_of(node->index())) + ": " + node->waiting_for(cycle));
  sc_core::sc_stop();
}

}  // namespace torus
