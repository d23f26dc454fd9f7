#include "models/chrome_trace.hpp"

#include <nlohmann/json.hpp>

#include "kernels/output_file.hpp"

namespace torus {

void write_chrome_trace(const std::string& path, const Program& program, const StepRecords& steps, double clock_hz) {
  static const std::array<const char*, 3> roman = {"I", "II", "III"};
  const double microseconds_per_cycle = 1e6 / clock_hz;
  nlohmann::json events = nlohmann::json::array();
  const auto span = [&](const std::string& name, const char* category, std::size_t node, Cycle from, Cycle to) {
    events.push_back({{"name", name}, {"cat", category}, {"ph", "X"}, {"pid", 0}, {"tid", node},
                      {"ts", static_cast<double>(from) * microseconds_per_cycle},
                      {"dur", static_cast<double>(to - from) * microseconds_per_cycle}});
  };
  for (std::size_t i = 0; i < program.node_count(); ++i) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", i},
                      {"args", {{"name", "node " + program.describe_node(i)}}}});
    std::size_t global = 0;
    for (const StageInfo& stage : program.stages)
      for (std::uint32_t k = 0; k < stage.steps; ++k, ++global) {
        const std::string label = program.transforms[stage.transform] + " " + roman[stage.stage - 1] + "." + std::to_string(k);
        if (steps.start[i][global] != never) span(label + " compute", "compute", i, steps.start[i][global], steps.done[i][global]);
        if (steps.first_send[i][global] != never)
          span(label + " roll", "roll", i, steps.first_send[i][global], steps.last_send[i][global] + 1);
      }
  }
  const nlohmann::json trace{{"traceEvents", events}, {"displayTimeUnit", "ns"},
                             {"otherData", {{"clock_hz", clock_hz}, {"nodes", program.node_count()}}}};
  write_file_atomically(path, trace.dump() + "\n");
}

}  // namespace torus
