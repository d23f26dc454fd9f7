#include "tests/model/program_bench.hpp"

#include "sim/micro_schedule.hpp"
#include "sim/roll_policy.hpp"

namespace torus::bench {

nlohmann::json time_program(const Program& program, const Machine& machine) {
  return run_isolated([&] { return time_program_here(program, machine); });
}

nlohmann::json time_program_here(const Program& program, const Machine& machine) {
  require_fresh_systemc_kernel();
  {
    const std::size_t b = program.block_size;
    const std::size_t n = b * static_cast<std::size_t>(std::max({program.shape.p1, program.shape.p2, program.shape.p3}));
    HostData<double> host{Tensor3<double>(n, n, n, 1.0), {}, b};
    TopConfig config;
    config.fma_latency = machine.fma_latency;
    config.link_latency = machine.link_latency;
    config.link_rate = machine.link_rate;
    config.link_buffer_words = machine.link_buffer_words;
    config.watchdog_cycles = 1000;
    config.trace_tasks = true;
    const auto micro = make_micro_schedule("interleaved");
    const auto policy = make_roll_policy(machine.policy);
    TorusTop top("torus", config, program, *micro, *policy, false,
                 [&](std::size_t node) { return make_datapath(program, node, host); });
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_start();
    nlohmann::json nodes = nlohmann::json::array();
    for (const Node& node : top.nodes) {
      nlohmann::json tasks = nlohmann::json::array();
      for (const TaskRecord& r : node.task_trace())
        tasks.push_back({{"first", r.first == never ? -1 : static_cast<std::int64_t>(r.first)},
                         {"last", r.last == never ? -1 : static_cast<std::int64_t>(r.last)},
                         {"count", r.count}});
      nodes.push_back({{"tasks", tasks}, {"forwarded", node.stats().words_forwarded}, {"finish", node.stats().finish_cycle}});
    }
    return nlohmann::json{{"total", top.completion_cycle()}, {"completed", top.completed()}, {"nodes", nodes},
                          {"stall", top.stall_report()}, {"chain", top.wait_chain()}};
  }
}

}  // namespace torus::bench
