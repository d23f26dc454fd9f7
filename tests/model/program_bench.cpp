#include "tests/model/program_bench.hpp"

#include <functional>
#include <memory>

#include "models/engine.hpp"
#include "models/event/event_engine.hpp"
#include "models/simulation.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/roll_policy.hpp"

namespace torus::bench {

nlohmann::json time_program(const Program& program, const Machine& machine) {
  return run_isolated([&] { return time_program_here(program, machine); });
}

namespace {

// An input tensor of ones and, for Programs that load coefficient blocks, identity matrices.
template <class T = double>
HostData<T> ones(const Program& program, const Tensor3<T>* input = nullptr) {
  std::array<Matrix<T>, 3> identity;
  for (std::size_t a = 0; a < 3; ++a) {
    const auto n = static_cast<Eigen::Index>(program.grid.axis[a].n);
    identity[a] = Matrix<T>::Identity(n, n);
  }
  return HostData<T>{input ? *input : Tensor3<T>(program.grid.tensor_extents(), T(1)),
                     std::vector<std::array<Matrix<T>, 3>>(program.transforms.size(), identity), {}};
}

// Datapaths holding the values of ones: real, or complex for a Program with FFT tasks (whose
// DFT is complex). The host data lives as long as the factory.
std::function<std::unique_ptr<NodeDatapath>(std::size_t)> datapaths(const Program& program) {
  if (program.ffts.empty()) {
    auto host = std::make_shared<HostData<double>>(ones(program));
    return [&program, host](std::size_t node) { return make_datapath(program, node, *host); };
  }
  auto host = std::make_shared<HostData<std::complex<double>>>(ones<std::complex<double>>(program));
  return [&program, host](std::size_t node) { return make_datapath(program, node, *host); };
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

// The machine parameters as the run driver holds them.
MachineConfig machine_config(const Machine& machine) {
  MachineConfig config;
  config.fma_latency = static_cast<std::int64_t>(machine.fma_latency);
  config.fma_per_cycle = machine.fma_per_cycle;
  config.link_latency = static_cast<std::int64_t>(machine.link_latency);
  config.link_words_per_cycle = std::to_string(machine.link_rate.num) + "/" + std::to_string(machine.link_rate.den);
  config.link_buffer_words = std::to_string(machine.link_buffer_words);
  config.message_startup_cycles = static_cast<std::int64_t>(machine.message_startup);
  config.fma_per_butterfly = static_cast<std::int64_t>(machine.fma_per_butterfly);
  config.roll_policy = machine.policy;
  config.micro_schedule = machine.micro_schedule;
  config.fast_forward = machine.fast_forward;
  config.threads = static_cast<std::int64_t>(machine.threads);
  config.symmetry = "off";
  return config;
}

// Everything an engine measured, but what describes the host (memory) or the engine itself
// (fast-forward figures).
nlohmann::json records_json(const EngineRecords& r) {
  nlohmann::json nodes = nlohmann::json::array(), links = nlohmann::json::array();
  for (const NodeRecord& n : r.nodes)
    nodes.push_back({{"busy", n.busy}, {"dependency", n.dependency}, {"operand", n.operand}, {"backpressure", n.backpressure},
                     {"fma", n.fma_issued}, {"finish", n.finish_cycle}, {"computes", n.computes_done},
                     {"fft_fma", n.fft_fma}, {"fft_butterflies", n.fft_butterflies},
                     {"words", n.allocated_words}});
  for (const LinkRecord& l : r.links) links.push_back({l.words, l.active_cycles, l.peak_occupancy, l.wait_cycles});
  const StepRecords& s = r.steps;
  const StepTotals& t = r.step_totals;
  return {{"nodes", nodes}, {"links", links}, {"copies", r.copies}, {"fma_per_cycle", r.fma_per_cycle},
          {"steps", {{"start", s.start}, {"done", s.done}, {"first_send", s.first_send}, {"last_send", s.last_send},
                     {"fma", s.fma}, {"words_sent", s.words_sent}}},
          {"step_totals", {{"start_min", t.start_min}, {"start_max", t.start_max}, {"length_min", t.length_min},
                           {"length_max", t.length_max}, {"fma", t.fma}, {"words_min", t.words_min}, {"words_max", t.words_max}}}};
}

nlohmann::json records_here(const Program& program, const Machine& machine, const std::string& engine) {
  const auto with_values = datapaths(program);
  const RunConfig run;
  const MachineConfig config = machine_config(machine);
  const FaultConfig fault;
  // "event_no_values": the event engine with a datapath that holds no values (values off),
  // where whole messages and buffers take their closed forms.
  const bool values = engine != "event_no_values";
  const EngineInputs inputs{run, config, fault, program, false,
                            [&](std::size_t node) {
                              return values ? with_values(node) : make_null_datapath(program, node, sizeof(double));
                            },
                            {},
                            true};  // every record compared, the per-step spans too
  try {
    const std::unique_ptr<EngineRun> timed = engine == "systemc" ? run_cycle_engine(inputs) : run_event_engine(inputs);
    return {{"completed", true}, {"records", records_json(timed->records())}, {"note", timed->records().fast_forward_note}};
  } catch (const StallError& e) {
    return {{"completed", false}, {"stall", e.what()}};
  }
}

std::pair<std::size_t, std::size_t> task_of(const Program& program, std::uint32_t m, TaskKind kind) {
  const Message& msg = program.messages.at(m);
  const std::size_t node = kind == TaskKind::Receive ? msg.destination : msg.source;
  const auto& tasks = program.nodes[node].tasks;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].kind == kind && tasks[i].message == m) return {node, i};
  throw std::logic_error("message " + std::to_string(m) + " has no such task at node " + std::to_string(node));
}

}  // namespace

std::pair<std::size_t, std::size_t> receive_of(const Program& program, std::uint32_t m) {
  return task_of(program, m, TaskKind::Receive);
}

std::pair<std::size_t, std::size_t> send_of(const Program& program, std::uint32_t m) { return task_of(program, m, TaskKind::Send); }

nlohmann::json engine_records(const Program& program, const Machine& machine, const std::string& engine) {
  nlohmann::json out = engine == "systemc" ? run_isolated([&] { return records_here(program, machine, engine); })
                                           : records_here(program, machine, engine);
  out.erase("note");  // describes the engine, not the machine
  return out;
}

std::string closed_form_note(const Program& program, const Machine& machine) {
  const nlohmann::json out = records_here(program, machine, "event_no_values");
  return out.value("note", std::string{});
}

ComplexBuffers engine_buffers(const Program& program, const Machine& machine, const std::string& engine,
                              const Tensor3<std::complex<double>>& input, std::size_t node) {
  const auto body = [&] {
    const HostData<std::complex<double>> host = ones<std::complex<double>>(program, &input);
    const RunConfig run;
    const MachineConfig config = machine_config(machine);
    const FaultConfig fault;
    const EngineInputs inputs{run, config, fault, program, false,
                              [&](std::size_t n) { return make_datapath(program, n, host); }, {}, false};
    const std::unique_ptr<EngineRun> timed = engine == "systemc" ? run_cycle_engine(inputs) : run_event_engine(inputs);
    nlohmann::json buffers = nlohmann::json::array();
    for (std::uint32_t b = 0; b < program.nodes[node].buffers.size(); ++b) {
      nlohmann::json words = nlohmann::json::array();
      for (std::uint32_t w = 0; w < program.nodes[node].buffers[b].words; ++w) {
        const std::complex<double> v = timed->datapath(node).read(b, w);
        words.push_back({v.real(), v.imag()});
      }
      buffers.push_back(words);
    }
    return buffers;
  };
  const nlohmann::json buffers = engine == "systemc" ? run_isolated(body) : body();
  ComplexBuffers out;
  for (const auto& words : buffers) {
    out.emplace_back();
    for (const auto& w : words) out.back().emplace_back(w[0].get<double>(), w[1].get<double>());
  }
  return out;
}

nlohmann::json time_program_event(const Program& program, const Machine& machine) {
  const auto with_values = datapaths(program);
  event::Params params;
  params.fma_latency = machine.fma_latency;
  params.per_cycle = machine.fma_per_cycle;
  params.link_latency = machine.link_latency;
  params.rate = machine.link_rate;
  params.buffer_words = machine.link_buffer_words;
  params.message_startup = machine.message_startup;
  params.fma_per_butterfly = machine.fma_per_butterfly;
  params.trace_tasks = true;
  const auto micro = make_micro_schedule(machine.micro_schedule);
  const auto policy = make_roll_policy(machine.policy);
  params.whole_blocks = policy->waits_for_whole_blocks();
  event::EventEngine engine(program, params, *micro, *policy, with_values);
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
    const auto with_values = datapaths(program);
    TopConfig config;
    config.fma_latency = machine.fma_latency;
    config.fma_per_cycle = machine.fma_per_cycle;
    config.fast_forward = machine.fast_forward == "on";
    config.threads = machine.threads;
    config.link_latency = machine.link_latency;
    config.link_rate = machine.link_rate;
    config.link_buffer_words = machine.link_buffer_words;
    config.message_startup = machine.message_startup;
    config.fma_per_butterfly = machine.fma_per_butterfly;
    config.watchdog_cycles = 1000;
    config.trace_tasks = true;
    const auto micro = make_micro_schedule(machine.micro_schedule);
    const auto policy = make_roll_policy(machine.policy);
    TorusTop top("torus", config, program, *micro, *policy, false, with_values);
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_start();
    nlohmann::json nodes = nlohmann::json::array(), activations = nlohmann::json::array();
    for (std::size_t i = 0; i < top.nodes.size(); ++i) {  // sc_vector: no range loop (see torus_top.cpp)
      const Node& node = top.nodes[i];
      const NodeStats& stats = node.stats();
      nodes.push_back({{"tasks", spans_json(node.task_trace())}, {"forwarded", stats.words_forwarded},
                       {"finish", stats.finish_cycle},
                       {"stalls", {stats.operand_stalls, stats.backpressure_stalls, stats.dependency_stalls}}});
      activations.push_back(stats.activations);
    }
    return nlohmann::json{{"total", top.completion_cycle()}, {"completed", top.completed()}, {"nodes", nodes},
                          {"stall", top.stall_report()}, {"chain", top.wait_chain()}, {"clock", top.clock != nullptr},
                          {"ended_at", sc_core::sc_time_stamp().value() / TorusTop::period_ticks()},
                          {"activations", activations}, {"stepping_threads", top.stepping_threads()}};
  }
}

}  // namespace torus::bench
