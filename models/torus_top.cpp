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
  sc_core::sc_spawn_options options;
  options.spawn_method();
  options.dont_initialize();
  options.set_sensitivity(&clock.posedge_event());
  sc_core::sc_spawn([this] { watch(); }, "watchdog", &options);
}

void TorusTop::watch() {
  const Cycle cycle = sc_core::sc_time_stamp().value() / period_ticks();
  // Look at the nodes only now and then: progress is rare to lose and costly to poll.
  if (completed() || cycle % 1024 != 0 || cycle < config_.watchdog_cycles) return;
  Cycle last_progress = 0;
  for (const Node& node : nodes) last_progress = std::max(last_progress, node.last_progress());
  if (cycle < last_progress + config_.watchdog_cycles) return;
  watchdog_fired_ = true;
  for (const Node& node : nodes)
    if (!node.finished()) stall_report_.push_back(node.waiting_for(cycle));
  sc_core::sc_stop();
}

}  // namespace torus
