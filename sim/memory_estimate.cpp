#include "sim/memory_estimate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/algorithm.hpp"
#include "sim/geometry.hpp"
#include "sim/program.hpp"
#include "sim/rational.hpp"

namespace torus {
namespace {

std::string human(double bytes) {
  if (bytes >= 1024.0 * 1024.0 * 1024.0) return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

// MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
double available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024.0;
  return 0;
}

// Reading --input holds the file's data bytes and every value as complex<double> at once.
double input_read_bytes(const RunConfig& run) {
  if (run.input.empty()) return 0;
  std::error_code error;
  const std::uintmax_t file = std::filesystem::file_size(run.input, error);
  const Extents3 n = run.tensor_extents();
  return (error ? 0.0 : static_cast<double>(file)) + 16.0 * static_cast<double>(n[0] * n[1] * n[2]);
}

// Why engine event would keep times per word or per fma with values off (empty: closed forms
// cover every compute and message, docs/timing-model.md): what forces the per-word rules.
std::string per_word_reason(const RunConfig& run, const MachineConfig& machine, double largest_block) {
  const Extents3 extents = run.tensor_extents();
  const std::array<std::int64_t, 3> parts = run.torus_extents();
  const TorusShape shape = run.torus_shape();
  // A compute that starts in the cycle the one before ended in, or reads the words the one
  // before wrote, has closed forms when its targets (at least the smallest block's words) fill
  // L f issue slots (docs/timing-model.md).
  double smallest_block = 1;
  bool uneven = false;
  for (std::size_t a = 0; a < 3; ++a) {
    smallest_block *= static_cast<double>(extents[a] / static_cast<std::size_t>(parts[a]));
    uneven = uneven || extents[a] % static_cast<std::size_t>(parts[a]) != 0;
  }
  const bool filled = smallest_block >= static_cast<double>(machine.fma_latency * machine.fma_per_cycle);
  // The smallest block takes at least a credit's round trip (2 link latencies) on its link.
  const Rational rate = machine.link_rate();
  const bool streams = smallest_block * static_cast<double>(rate.den) >= 2.0 * static_cast<double>(machine.link_latency * rate.num);
  // Blocks of two sizes: closed for the local-coefficient Program, on tori and meshes alike,
  // when blocks fill L f issue slots (a compute that reads the block the one before wrote in
  // another shape then never waits for a word) and rolls do not wait for credits past their
  // words' slots (not covered yet): a node with smaller blocks gets ahead of its neighbour by
  // the difference every step, so the largest block must be within 20% of the smallest and take
  // at least a credit's round trip (2 link latencies) on its link. That bound is measured, not
  // derived: every one of several hundred random configurations inside it was closed, tori and
  // meshes of more than two nodes per axis (rolls through routers), a few outside were not
  // (tests/scenario/test_closed_forms.cpp checks a sample). Messages stored while the one before
  // is still in the link's buffer, over places that held blocks of other sizes, and ones whose
  // credits are not known yet (routed or not) or come back just in time, are closed
  // (docs/timing-model.md).
  const std::string uneven_reason = "blocks of two sizes (N not a multiple of P)";
  if (uneven && run.algorithm != "orbital_local_coefficients") return uneven_reason + " with algorithm " + run.algorithm;
  if (uneven && !filled) return uneven_reason + " with blocks of fewer than fma_latency x fma_per_cycle words";
  if (uneven && !streams) return uneven_reason + " with blocks that leave faster than two link latencies";
  if (uneven && 5 * (largest_block - smallest_block) > smallest_block) return uneven_reason + " more than 20% apart";
  if (machine.roll_policy != "after_compute") return "roll_policy " + machine.roll_policy;
  if (machine.micro_schedule != "interleaved") return "micro_schedule " + machine.micro_schedule;
  if (machine.fma_per_cycle > 1 && !filled)
    return "fma_per_cycle " + std::to_string(machine.fma_per_cycle) + " with blocks of fewer than fma_latency x fma_per_cycle words";
  // On a mesh axis of more than two nodes the roll across the edge is routed through others:
  // forwarded whole where nothing else asks for the links it passes, which holds for the one
  // roll per step of the local-coefficient Program (the orbital one rolls three blocks per
  // step, whose routed rolls may wait for each other).
  for (std::size_t a = 0; a < 3; ++a)
    if (shape.boundary[a] == Topology::Mesh && parts[a] > 2 && run.algorithm != "orbital_local_coefficients")
      return "boundary mesh with algorithm " + run.algorithm + " (messages through routers that may wait for each other)";
  if (machine.link_buffer_words != "auto" && static_cast<double>(machine.link_buffer(0)) <= largest_block)
    return "link_buffer_words " + machine.link_buffer_words + " (not above the block's words)";
  if (machine.event_closed_forms == "off") return "event_closed_forms off";
  return "";
}

}  // namespace

std::string MemoryEstimate::describe() const {
  return fmt::format("{} (nodes {}, schedules {}, tensors {})", human(total()), human(nodes_bytes), human(schedule_bytes),
                     human(tensors_bytes));
}

namespace {

// Algorithms that cut the tensor their own way (the transpose FFTs): read off their Program,
// built here (its size is a small part of the run's): the Program itself; per buffer word and
// per word a message carries, the times an engine keeps (every node timed, the all-to-alls'
// routed messages word by word: engine event 48 and 120 bytes, engine systemc its per-word
// scoreboard); the micro-programs of its dense kernels (none for FFT tasks); and the tensors
// as for every run, with values off only the coefficient matrices of dense kernels. Engine
// event with values off, closed forms on, after_compute and link buffers auto (two blocks, more
// than any message) sends, forwards and stores every message whole: a few times per message
// and hop, whatever the words (measured: 1.4 GB at 2048^2 on 8x8x8, 2.75 million hops, the
// Program included; 0.6 KiB per hop is an upper bound over 128 to 512 nodes).
MemoryEstimate estimate_own_cut(const RunConfig& run, const MachineConfig& machine, bool complex_data) {
  // The estimate counts the Program twice (schedule_bytes below): one that passes half the
  // limit while it is built is refused then, before it takes the rest.
  TransformProblem problem = problem_of(run);
  problem.max_program_bytes = program_budget(run.max_memory);
  const Program program = make_algorithm(run.algorithm)->build(problem);
  double buffer_words = 0, message_words = 0, tasks = 0, buffers = 0;
  for (const NodeProgram& node : program.nodes) {
    buffers += static_cast<double>(node.buffers.size());
    for (const BufferSpec& b : node.buffers) buffer_words += b.words;
    tasks += static_cast<double>(node.tasks.size());
  }
  double hops = 0;
  for (const Message& m : program.messages) {
    message_words += static_cast<double>(m.words) * static_cast<double>(m.hops);
    hops += static_cast<double>(m.hops);
  }
  const double value_bytes = complex_data ? 16.0 : 8.0;
  const bool values = run.computes_values();
  MemoryEstimate e;
  const bool split = complex_data && machine.complex_cost() == 4;
  // Engine systemc: per buffer word its scoreboard (models/cycle/node_memory.hpp: 8 bytes; where
  // the buffer is both received into and sent from, 2 for the cycle the word left, 4 more once
  // those spread too wide for 16 bits; 2 for the updates a compute still owes it, kept for the
  // largest accumulator; 4 for each part's ready cycle when a complex word's parts are issued
  // apart) and its value; per buffer its record (96 bytes), the datapath's vector of values (24)
  // and that vector's heap block (16 of header, 24 of rounding at most); per task 48 bytes of the
  // node's plan and records (measured: 44 a task, 176 KiB a node, for ring_block_fft with dense
  // local kernels at N = 32 on 8^3 nodes: 3,970 tasks a node, most of them loads of coefficient
  // blocks).
  if (machine.engine == "systemc")
    e.nodes_bytes = static_cast<double>(program.nodes.size()) * 40.0 * 1024 +
                    buffer_words * (8 + 2 + 4 + 2 + (split ? 8 : 0) + (values ? value_bytes : 0)) + buffers * 160 +
                    message_words * 8 + tasks * 48 + 1.5 * 1024 * 1024;
  else if (!values && machine.event_closed_forms == "on" && machine.roll_policy == "after_compute" &&
           machine.link_buffer_words == "auto")
    e.nodes_bytes = static_cast<double>(program.nodes.size()) * 16384.0 + hops * 600;
  else
    e.nodes_bytes = static_cast<double>(program.nodes.size()) * 16384.0 + buffer_words * (48 + (values ? value_bytes : 0)) +
                    message_words * 120;
  double kernel_fma = 0;
  for (const KernelSpec& k : program.kernels) kernel_fma += static_cast<double>(k.multiply_adds()) * (split ? 4 : 1);
  e.schedule_bytes = static_cast<double>(bytes(program)) * 2 + (machine.engine == "functional" ? 0 : kernel_fma * (3 * 16 + 5 * 8));
  const Extents3 n = run.tensor_extents();
  const double elements = static_cast<double>(n[0]) * static_cast<double>(n[1]) * static_cast<double>(n[2]);
  const double largest = static_cast<double>(std::max({n[0], n[1], n[2]}));
  e.tensors_bytes = values ? 12 * elements * value_bytes + input_read_bytes(run)
                           : (program.kernels.empty() ? 0 : 12 * largest * largest * value_bytes);
  return e;
}

}  // namespace

MemoryEstimate estimate_memory(const RunConfig& run, const MachineConfig& machine, bool complex_data) {
  const std::vector<std::string> names = algorithm_names();
  if (!run.is_matmul() && std::find(names.begin(), names.end(), run.algorithm) != names.end() &&
      make_algorithm(run.algorithm)->memory_from_program())
    return estimate_own_cut(run, machine, complex_data);
  // In double: N and P may be up to 4096, whose powers overflow any integer check. For shapes
  // and uneven blocks: b is the largest block edge (an upper bound of every block), n^3 the
  // tensor's elements and n^2 the largest matrix, P the largest torus edge (steps per stage).
  const Extents3 extents = run.tensor_extents();
  const double n1 = static_cast<double>(extents[0]), n2 = static_cast<double>(extents[1]), n3 = static_cast<double>(extents[2]);
  const double n = std::max({n1, n2, n3}), elements = n1 * n2 * n3;
  const std::array<std::int64_t, 3> parts = run.torus_extents();
  double b = 1, p = 1, rolls = 0;
  for (std::size_t a = 0; a < 3; ++a) {
    b = std::max(b, std::ceil(static_cast<double>(extents[a]) / static_cast<double>(parts[a])));
    p = std::max(p, static_cast<double>(parts[a]));
    rolls += static_cast<double>(parts[a]);
  }
  // Timed on one node and computing no values: nothing per node of the torus is held.
  const double nodes = times_translation_quotient(run, machine) && !run.computes_values() ? 1.0 : static_cast<double>(run.node_count());
  const double transforms = run.direction == "both" ? 2.0 : 1.0;
  const double value_bytes = complex_data ? 16.0 : 8.0;
  MemoryEstimate e;
  const double steps = transforms * rolls;  // per node: P1 + P2 + P3 steps per transform (3P on a cube)
  if (machine.engine == "systemc") {
    const double words = 4 * b * b * b + 3 * b * b;  // one block of every kind
    // The values only when they are computed (the engine holds none with values off).
    const double per_word = 24 + 8 * (complex_data ? 2 : 1) + 2 + (run.computes_values() ? value_bytes : 0.0);
    // Node module, links and ports (11 KiB: the engine's 8-byte scoreboard words, link queues of
    // runs, windowed task counts and ports only where traffic goes left about 19 KiB of state a
    // node at b = 4, with SystemC's records of it); per step: the words sent, task counters and
    // the receive of each message (24 bytes; the step log adds the rest to totals per step); and
    // once SystemC's own simulation context (about 1.5 MiB more than a run without). Fitted to
    // measured peaks at b = 4 on 64 to 4,096 nodes (estimate / peak 1.2 to 1.5 before this fit,
    // 1.51 at 4,096 nodes with values off).
    e.nodes_bytes = nodes * (11.0 * 1024 + 2 * words * per_word + steps * 24) + 1.5 * 1024 * 1024;
  } else {
    e.nodes_bytes = nodes * (1024.0 + 2 * (4 * b * b * b + 3 * b * b) * value_bytes);
  }
  const bool one_node = times_translation_quotient(run, machine);
  const bool quotient_values =
      one_node && run.computes_values() && make_algorithm(run.algorithm)->quotient_values(problem_of(run));
  const double largest_block = std::ceil(n1 / static_cast<double>(parts[0])) * std::ceil(n2 / static_cast<double>(parts[1])) *
                               std::ceil(n3 / static_cast<double>(parts[2]));
  // Engine event with values off and closed forms for every compute and message: a few times
  // per buffer and message, no block of values, no micro-program: per node 20 KB and per step
  // 0.4 KB with one roll (local coefficients), 1 KB with three (orbital), beside the Program
  // counted below (fitted to measured peaks with every node timed, 32 to 4,096 nodes, even and
  // uneven blocks, tori and meshes; one node: a few MiB at any b). 16 KB a node fitted Blue
  // Gene/P's 256-node mesh to within 1%, below the peak in some runs: 20 KB keeps a margin.
  const std::string reason = machine.engine == "event" ? per_word_reason(run, machine, largest_block) : "";
  if (machine.engine == "event" && !run.computes_values()) e.per_word_because = reason;
  // The timed nodes hold values (every node timed, values on): their messages go word by word
  // and the micro-program's instructions are run; one node timed computes no values itself.
  const bool timed_values = run.computes_values() && !one_node;
  const bool eligible = machine.engine == "event" && reason.empty();
  const bool closed = eligible && !run.computes_values();
  if (closed) {
    e.nodes_bytes = nodes * (20480.0 + steps * (run.algorithm == "orbital_local_coefficients" ? 400 : 1000));
  } else if (machine.engine == "event" && !one_node) {
    // Every node timed: per word of its buffers the times it keeps, per link the recent word
    // times (up to about 2 (B + b^3) of them), and per node and step the state of the
    // messages it sends. Fitted to measured peaks at b = 4, P = 8 and 16.
    e.nodes_bytes += nodes * ((p > 1 ? 1100 : 500) * b * b * b + 8192 + steps * 800);
  } else if (one_node && run.computes_values() && !quotient_values) {
    // Values computed beside the one timed node: per node and step the messages in flight,
    // the steps it opened and its counts.
    e.nodes_bytes += nodes * steps * 220;
  } else if (quotient_values) {
    // Values from the quotient on every node: per node its blocks, coordinates and pending
    // receives (sim/quotient_executor.hpp); the blocks in flight are in the words above.
    e.nodes_bytes += nodes * 1024.0;
  }
  // The orbital schedule (3P steps of P^3 block multiply-adds) and the Program: per node and
  // step a compute (with its detail), two sends and two receives, and per send a message with
  // its route (a hop or, on a mesh axis, a few). Values from the quotient build neither: one
  // node's list and no schedule proof.
  const double listed = quotient_values ? 1 : nodes;
  const double program =
      listed * steps * (5 * static_cast<double>(sizeof(Task)) + sizeof(TaskDetail) + 2 * (sizeof(Message) + 4.0));
  e.schedule_bytes = (quotient_values ? 0 : steps * nodes * 100.0) + program;
  // Shared by all nodes: the micro-program of each of the three kernels (16 bytes per fma) and
  // the fma schedules cached for whole computes (8 bytes per fma each). A kernel has b^4 fma,
  // four times as many for complex data on a real unit. Measured peaks per kernel fma: engine
  // event 56 (P = 1) and 82 (P = 4, more cached schedules), engine systemc 74 (real) and 47
  // (complex); b = 128 would need 25 GiB. The functional engine uses dense products instead.
  // Uneven blocks make more kernels: per mode one for each combination of the accumulator's
  // sizes along the three axes and the operand's along the mode (at most 16 instead of 1).
  const bool split = complex_data && machine.complex_cost() == 4;
  const double fma_per_kernel = b * b * b * b * (split ? 4 : 1);
  const double schedules = machine.engine == "systemc" ? (split ? 1 : 4) : machine.engine == "event" ? (p > 1 ? 5 : 2) : 0;
  std::array<double, 3> sizes{};  // distinct block sizes along each axis
  for (std::size_t a = 0; a < 3; ++a) sizes[a] = extents[a] % static_cast<std::size_t>(parts[a]) == 0 ? 1 : 2;
  const double kernels = sizes[0] * sizes[1] * sizes[2] * (sizes[0] + sizes[1] + sizes[2]);
  // With closed forms for every compute, engine event keeps no fma schedule, and lists the
  // instructions only for timed nodes that hold values.
  const double per_fma = eligible ? (timed_values ? 3 * 16 : 0) : 3 * 16 + schedules * 8;
  if (machine.engine != "functional") e.schedule_bytes += kernels / 3 * fma_per_kernel * per_fma;
  // Values off: no tensors, only the coefficient matrices (and their inverses' work).
  e.tensors_bytes = run.computes_values() ? 12 * elements * value_bytes + input_read_bytes(run) : 12 * n * n * value_bytes;
  // Engine event with values off holds no coefficient matrix, only the nodes' coefficient tables
  // of a few N values (measured: 12 MiB in all at N = 1600 and 3200).
  if (machine.engine == "event" && !run.computes_values()) e.tensors_bytes = 8 * n * value_bytes;
  return e;
}

std::size_t memory_limit(std::int64_t max_memory) {
  return max_memory > 0 ? static_cast<std::size_t>(max_memory) : static_cast<std::size_t>(available_memory());
}

std::size_t program_budget(std::int64_t max_memory) {
  const std::size_t limit = memory_limit(max_memory);
  return limit == 0 ? 0 : std::max<std::size_t>(1, limit / 2);
}

void check_memory(const MemoryEstimate& estimate, std::int64_t max_memory, std::string_view smaller) {
  const bool set = max_memory > 0;
  const auto limit = static_cast<double>(memory_limit(max_memory));
  if (limit > 0 && estimate.total() > limit)
    throw std::invalid_argument(fmt::format("memory: this {} needs about {} but {} allows {}; allowed: {}, or a larger max_memory",
                                            estimate.what, estimate.describe(), set ? "max_memory" : "the available memory",
                                            human(limit), smaller));
}

MemoryEstimate check_memory(const RunConfig& run, const MachineConfig& machine, bool complex_data) {
  const MemoryEstimate estimate = estimate_memory(run, machine, complex_data);
  const std::string smaller = estimate.per_word_because.empty()
                                  ? "a smaller N or P"
                                  : "a smaller N or P; engine event keeps times per word and per fma here because of " +
                                        estimate.per_word_because +
                                        " (closed forms need: values off, N a multiple of P (or orbital_local_coefficients with blocks of at "
                                        "least fma_latency x fma_per_cycle words within 20% of each other taking two link latencies "
                                        "on a link), roll_policy after_compute, "
                                        "micro_schedule interleaved, fma_per_cycle 1 or blocks of at least fma_latency x fma_per_cycle "
                                        "words, boundary torus (mesh: only for orbital_local_coefficients or axes of at most 2 nodes), "
                                        "link_buffer_words auto or above a block)";
  check_memory(estimate, run.max_memory, smaller);
  return estimate;
}

MemoryEstimate estimate_schedule_command(std::string_view command, std::string_view format, std::int64_t p,
                                         std::size_t directions) {
  // Peak bytes per P^4 and direction, measured with /usr/bin/time at P = 12 to 24 and raised by
  // half like the run's estimate: a proof keeps one schedule and its bookkeeping; a schedule's
  // text and JSON are built whole before they are printed (JSON as a tree of objects first); a
  // Program is written as it is made (write_text, write_json), so it is held once: 1.1 KB per P^4
  // and direction for the orbital Program at P = 20, either format.
  const bool json = format == "json";
  const double per_p4 = command == "verify" ? 450 : command == "schedule" ? (json ? 12000 : 800) : 1700;
  const double p4 = std::pow(static_cast<double>(p), 4);
  MemoryEstimate e;
  e.what = "torus-sim " + std::string(command);
  e.schedule_bytes = per_p4 * p4 * static_cast<double>(command == "verify" ? 1 : directions);
  return e;
}

}  // namespace torus
