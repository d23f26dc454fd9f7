#include "tests/model/program_bench.hpp"

#include "models/event/event_engine.hpp"
#include "models/simulation.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/roll_policy.hpp"

namespace torus::bench {

nlohmann::json time_program(const Program& program, const Machine& machine) {
  return run_isolated([&] { return time_program_here(program, machine); });
}

namespace {

HostData<double> ones(const Program& program) {
  // Identity matrices, for Programs that load coefficient blocks (the orbital one).
  std::array<Matrix<double>, 3> identity;
  for (std::size_t a = 0; a < 3; ++a) {
    const auto n = static_cast<Eigen::Index>(program.grid.axis[a].n);
    identity[a] = Matrix<double>::Identity(n, n);
  }
  return HostData<double>{Tensor3<double>(program.grid.tensor_extents(), 1.0),
                          std::vector<std::array<Matrix<double>, 3>>(program.transforms.size(), identity)};
}

template <class Spans>
nlohmann::json spans_json(const Spans& spans) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& r : spans)
    tasks.push_back({{"first", r.first == never ? -1 : static_cast<std::int64_t>(r.first)},
                     {"last", r.last == never ? -1 : static_cast<std::int64_t>(r.last)},
                     {"count", r.count}});
  return tasks;
}

}  // namespace

nlohmann::json time_program_event(const Program& program, const Machine& machine) {
  const HostData<double> host = ones(program);
  event::Params params;
  params.fma_latency = machine.fma_latency;
  params.link_latency = machine.link_latency;
  params.rate = machine.link_rate;
  params.buffer_words = machine.link_buffer_words;
  params.trace_tasks = true;
  const auto micro = make_micro_schedule(machine.micro);
  const auto policy = make_roll_policy(machine.policy);
  params.whole_blocks = policy->waits_for_whole_blocks();
  event::EventEngine engine(program, params, *micro, *policy, [&](std::size_t node) { return make_datapath(program, node, host); });
  try {
    engine.run();
  } catch (const StallError& e) {
    return nlohmann::json{{"completed", false}, {"stall", e.what()}};
  }
  const EngineRecords records = engine.records();
  nlohmann::json nodes = nlohmann::json::array();
  Cycle total = 0;
  for (std::size_t n = 0; n < program.node_count(); ++n) {
    total = std::max(total, records.nodes[n].finish_cycle);
    nodes.push_back({{"tasks", spans_json(engine.task_trace(n))}, {"finish", records.nodes[n].finish_cycle}});
  }
  return nlohmann::json{{"total", total}, {"completed", true}, {"nodes", nodes}};
}

nlohmann::json time_program_here(const Program& program, const Machine& machine) {
  require_fresh_systemc_kernel();
  {
    const HostData<double> host = ones(program);
    TopConfig config;
    config.fma_latency = machine.fma_latency;
    config.link_latency = machine.link_latency;
    config.link_rate = machine.link_rate;
    config.link_buffer_words = machine.link_buffer_words;
    config.watchdog_cycles = 1000;
    config.trace_tasks = true;
    const auto micro = make_micro_schedule(machine.micro);
    const auto policy = make_roll_policy(machine.policy);
    TorusTop top("torus", config, program, *micro, *policy, false,
                 [&](std::size_t node) { return make_datapath(program, node, host); });
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_start();
    nlohmann::json nodes = nlohmann::json::array();
    for (const Node& node : top.nodes)
      nodes.push_back({{"tasks", spans_json(node.task_trace())}, {"forwarded", node.stats().words_forwarded},
                       {"finish", node.stats().finish_cycle}});
    return nlohmann::json{{"total", top.completion_cycle()}, {"completed", top.completed()}, {"nodes", nodes},
                          {"stall", top.stall_report()}, {"chain", top.wait_chain()}};
  }
}

}  // namespace torus::bench
