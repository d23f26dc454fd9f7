#include "models/chrome_trace.hpp"

#include <nlohmann/json.hpp>

#include "kernels/npy.hpp"

namespace torus {

void write_chrome_trace(const std::string& path, const TorusTop& top, double clock_hz) {
  static const std::array<const char*, 3> roman = {"I", "II", "III"};
  const double microseconds_per_cycle = 1e6 / clock_hz;
  nlohmann::json events = nlohmann::json::array();
  const auto span = [&](const std::string& name, const char* category, std::size_t node, Cycle from, Cycle to) {
    events.push_back({{"name", name}, {"cat", category}, {"ph", "X"}, {"pid", 0}, {"tid", node},
                      {"ts", static_cast<double>(from) * microseconds_per_cycle},
                      {"dur", static_cast<double>(to - from) * microseconds_per_cycle}});
  };
  for (const Node& node : top.nodes) {
    const std::size_t i = node.index();
    const NodeCoord c = top.sequencer.schedules().front().shape.coord_of(i);
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", i},
                      {"args", {{"name", "node " + to_string(c)}}}});
    for (std::size_t s = 0; s < top.sequencer.step_count(); ++s) {
      const StepPlan& plan = top.sequencer.plan(s);
      const auto [stage, step] = top.sequencer.stage_and_step(s);
      const std::string label = to_string(top.sequencer.schedules()[plan.transform].direction) + " " +
                                roman[stage - 1] + "." + std::to_string(step);
      if (node.step_start_cycles()[s] != never)
        span(label + " compute", "compute", i, node.step_start_cycles()[s], node.compute_done_cycles()[s]);
      if (node.first_send_cycles()[s] != never)
        span(label + " roll", "roll", i, node.first_send_cycles()[s], node.last_send_cycles()[s] + 1);
    }
  }
  const nlohmann::json trace{{"traceEvents", events}, {"displayTimeUnit", "ns"},
                             {"otherData", {{"clock_hz", clock_hz}, {"nodes", top.nodes.size()}}}};
  write_file_atomically(path, trace.dump() + "\n");
}

}  // namespace torus
