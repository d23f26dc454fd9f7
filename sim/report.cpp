#include "sim/report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/matmul_report.hpp"

namespace torus {

std::string error_text(const ErrorReport& e) {
  return fmt::format("max abs error {:.3e}, max rel error {:.3e}, worst error / bound {:.3f} (bound factor {:.3e}) {}",
                     e.max_abs_error, e.max_rel_error, e.max_bound_ratio, e.tolerance_factor,
                     e.within_tolerance() ? "PASS" : "FAIL");
}

namespace {

// The paper's counts hold for the orbital schedule with b x b x b blocks on P x P x P nodes; in
// general the report compares with what the Program promises and with N1 N2 N3 (N1+N2+N3).
bool paper_formulas(const RunReport& r) { return r.uniform_cube && r.algorithm == "orbital"; }

std::string multiply_adds_formula(const RunReport& r) {
  if (r.n[0] == r.n[1] && r.n[1] == r.n[2]) return "3N^4";
  return "N1 N2 N3 (N1+N2+N3)";
}

std::uint64_t multiply_adds_per_transform(const RunReport& r) {
  return static_cast<std::uint64_t>(r.n[0]) * r.n[1] * r.n[2] * (r.n[0] + r.n[1] + r.n[2]);
}

std::string extents_or_edge(const std::array<int, 3>& e) {
  if (e[0] == e[1] && e[1] == e[2]) return std::to_string(e[0]);
  return fmt::format("{}x{}x{}", e[0], e[1], e[2]);
}

double percent(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// The rest of the wall time, outside every phase: validating and describing the run, the
// analytic model. Not clamped: the phases never overlap, so it is never negative.
double other_seconds(const RunReport& r) { return r.wall_seconds - r.phases.total_seconds(); }

// "time by phase: program 0.012 s, ..., other 0.001 s", in the order the run went through them.
std::string phases_text(const RunReport& r) {
  std::string out = "time by phase:";
  for (const auto& [name, seconds] : r.phases.ran_phases()) out += fmt::format(" {} {:.3f} s,", name, seconds);
  return out + fmt::format(" other {:.3f} s\n", other_seconds(r));
}

nlohmann::json phases_json(const RunReport& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, seconds] : r.phases.ran_phases()) j[std::string(name)] = seconds;
  j["other"] = other_seconds(r);
  return j;
}

std::string timing_text(const RunReport& r, const TimingReport& t) {
  std::string out = "cycle-accurate timing:\n  machine:";
  for (const auto& [key, value] : r.machine)
    if (key != "engine") out += " " + key + "=" + value;
  out += "\n";
  out += fmt::format("  total cycles: {} = {:.6g} s at {:.6g} Hz\n", t.total_cycles, t.seconds(), t.clock_hz);
  if (t.analytic) {
    const auto& a = *t.analytic;
    out += fmt::format("  analytic model: {} cycles, difference {:+} ({}); {}\n", a.cycles,
                       static_cast<std::int64_t>(t.total_cycles) - static_cast<std::int64_t>(a.cycles),
                       a.exact ? "exact regime" : "approximate here", a.regime);
  }
  static const std::array<const char*, 3> roman = {"I", "II", "III"};
  out += "  cycles per stage:";
  for (const StageTiming& s : t.stages)
    out += fmt::format(" {} {} {};", s.direction, roman[static_cast<std::size_t>(s.stage - 1)], s.end - s.start);
  out += "\n  cycles per step (min/max over nodes, xK = K steps in a row):";
  for (std::size_t i = 0; i < t.steps.size();) {
    std::size_t same = 1;
    while (i + same < t.steps.size() && t.steps[i + same].min_cycles == t.steps[i].min_cycles &&
           t.steps[i + same].max_cycles == t.steps[i].max_cycles)
      ++same;
    out += fmt::format(" {}/{}", t.steps[i].min_cycles, t.steps[i].max_cycles) + (same > 1 ? fmt::format(" x{}", same) : "");
    i += same;
  }
  out += "\n";
  std::uint64_t butterflies = 0;
  for (const TransformOutcome& o : r.transforms) butterflies += o.expected.fft_butterflies;
  if (butterflies > 0)
    out += fmt::format("  fma issued: {} (expected: the Program's mode products x {} + its {} butterflies x fma_per_butterfly = {}) {}\n",
                       t.fma_issued, r.fma_per_multiply_add, butterflies, t.fma_expected,
                       t.fma_issued == t.fma_expected ? "OK" : "MISMATCH");
  else
    out += fmt::format("  fma issued: {} (expected {} x {} x {} = {}) {}\n", t.fma_issued, multiply_adds_formula(r),
                       r.fma_per_multiply_add, r.transforms.size(), t.fma_expected, t.fma_issued == t.fma_expected ? "OK" : "MISMATCH");
  out += fmt::format("  fma-unit utilisation: {:.1f}%\n", 100.0 * t.utilisation());
  const std::uint64_t all = t.total_cycles * t.nodes;
  out += fmt::format("  node-cycles: busy {:.1f}%, dependency stall {:.1f}%, waiting for operands {:.1f}%, link back-pressure "
                     "{:.1f}%, idle {:.1f}%\n",
                     percent(t.cycles.busy, all), percent(t.cycles.dependency, all), percent(t.cycles.operand, all),
                     percent(t.cycles.backpressure, all), percent(t.cycles.idle, all));
  out += "  words sent per link direction:";
  std::uint64_t peak = 0;
  for (const LinkTraffic& l : t.links) {
    out += fmt::format(" {} {};", l.direction, l.words);
    peak = std::max(peak, l.peak_occupancy);
  }
  out += fmt::format(" peak receive-buffer occupancy {} words\n", peak);
  std::uint64_t waited = 0;
  for (const LinkTraffic& l : t.links) waited += l.wait_cycles;
  out += fmt::format("  link waits: {} cycles, summed over messages and hops, from asking for a link to the first word leaving "
                     "on it (held by another message, or no credit)\n",
                     waited);
  out += fmt::format("  words held per node: {} allocated ({} = {}, plus {} in second buffers for rolled blocks), "
                     "plus {} in link receive buffers\n",
                     t.words_allocated, paper_formulas(r) ? "4b^3+3b^2" : "one block of each kind", t.words_paper,
                     t.words_second_buffers, t.words_link_buffers);
  const std::string activations =
      (t.node_activations == 0 ? "" : fmt::format("; SystemC ran the nodes {} times", t.node_activations)) +
      (t.stepping_threads > 1 ? fmt::format(" on {} host threads", t.stepping_threads) : "");
  if (t.fast_forward_note.empty())
    out += fmt::format("  fast-forward: {} of {} fma issued ahead{}\n", t.fast_forwarded_fma, t.fma_issued, activations);
  else
    out += fmt::format("  fast-forward: {} fma issued ahead ({}){}\n", t.fast_forwarded_fma, t.fast_forward_note, activations);
  out += fmt::format("  simulation: {:.3f} s, {:.3g} node-cycles per second, peak memory {:.1f} MiB (engine state {:.1f} KiB "
                     "per node, Program {:.1f} MiB)\n",
                     t.simulation_seconds, t.node_cycles_per_second(), static_cast<double>(t.peak_memory_bytes) / (1024.0 * 1024.0),
                     static_cast<double>(t.engine_bytes_per_node) / 1024.0, static_cast<double>(t.program_bytes) / (1024.0 * 1024.0));
  if (t.nodes_timed != t.nodes)
    out += fmt::format("  symmetry: {} timed, standing for all {} (every node runs the same task list, so every node "
                       "sees the same cycles; symmetry: off times each one)\n",
                       t.nodes_timed == 1 ? "1 node" : fmt::format("{} nodes", t.nodes_timed), t.nodes);
  return out;
}

// Messages and their routes: one hop each on a torus; a roll across a mesh edge takes P_a - 1.
std::string hops_line(const ScheduleCounts& e) {
  return fmt::format("  messages {}, hops {} (per message {} to {})\n", e.messages, e.hops, e.messages == 0 ? 0 : 1, e.max_hops);
}

// The counts against the paper's formulas (orbital schedule, b x b x b blocks, P x P x P nodes).
std::string paper_counts(const RunReport& r, const TransformOutcome& t) {
  const auto& m = t.measured;
  const std::size_t p = static_cast<std::size_t>(r.p[0]), n = r.n[0], b = n / p;
  std::string out = fmt::format("  steps {} (3P = {}), block multiply-adds {} (3P^4 = {})\n", m.steps, 3 * p,
                                m.block_multiply_adds, 3ull * p * p * p * p);
  out += fmt::format("  scalar multiply-adds {} (3N^4 = {}), real fma {} (x{} per multiply-add)\n", m.scalar_multiply_adds,
                     3ull * n * n * n * n, m.scalar_multiply_adds * r.fma_per_multiply_add, r.fma_per_multiply_add);
  const auto& moved = m.words_moved_per_node_step;
  out += fmt::format("  words moved per node per step: stage I {}, II {}, III {} (b^3+b^2 = {}, 2b^3 = {}{})\n", moved[0],
                     moved[1], moved[2], b * b * b + b * b, 2 * b * b * b, p == 1 && r.timing ? "; P = 1 moves nothing" : "");
  out += fmt::format("  words held per node: {} (4b^3+3b^2 = {})\n", m.words_held_per_node, 4 * b * b * b + 3 * b * b);
  if (t.expected.hops != t.expected.messages) out += hops_line(t.expected);
  return out;
}

// Memory per node and words moved per step of an algorithm that generates its coefficients
// locally, next to what the orbital schedule (seed 000) needs for blocks of the same size:
// 4 tensor blocks and 3 coefficient blocks, second buffers for X', X'', Y and C3 (when P > 1),
// b^3 + b^2 words moved in its light stage and 2 b^3 in the others.
std::string local_coefficient_lines(const RunReport& r, const TransformOutcome& t) {
  const Extents3& e = r.largest_block;
  const std::uint64_t block = e[0] * e[1] * e[2], c3 = e[2] * e[2], coefficients = e[0] * e[0] + e[1] * e[1] + c3;
  const bool moves = r.nodes() > 1;
  const std::uint64_t orbital_words = 4 * block + coefficients + (moves ? 3 * block + c3 : 0);
  const std::size_t real_bytes = r.scalar.precision == Precision::Single ? 4 : 8;
  const std::size_t word_bytes = real_bytes * (r.scalar.domain == Domain::Complex ? 2 : 1);
  const std::uint64_t own = t.measured.words_held_per_node * word_bytes + r.tables.values * real_bytes;
  std::string out = fmt::format(
      "  memory per node: {} words ({} bytes) + coefficient tables of {} values ({}) = {} bytes; the orbital schedule "
      "(seed 000) at these blocks: {} words = {} bytes\n",
      t.measured.words_held_per_node, t.measured.words_held_per_node * word_bytes, r.tables.values,
      r.tables.description.empty() ? "none" : r.tables.description, own, orbital_words, orbital_words * word_bytes);
  out += fmt::format("  words moved per node per step: one data block, at most {}; the orbital schedule at these blocks: "
                     "{} (b^3+b^2) and {} (2b^3), its coefficient block in flight\n",
                     moves ? block : 0, moves ? block + c3 : 0, moves ? 2 * block : 0);
  return out;
}

// The counts against what the Program promises, for other algorithms, shapes and uneven blocks.
std::string program_counts(const RunReport& r, const TransformOutcome& t) {
  const auto& m = t.measured;
  const auto& e = t.expected;
  std::string out = fmt::format("  steps {} (the Program's {}), block multiply-adds {} (the Program's {})\n", m.steps, e.steps,
                                m.block_multiply_adds, e.block_multiply_adds);
  out += fmt::format("  scalar multiply-adds {} ({} = {}), real fma {} (x{} per multiply-add)\n", m.scalar_multiply_adds,
                     multiply_adds_formula(r), multiply_adds_per_transform(r), m.scalar_multiply_adds * r.fma_per_multiply_add,
                     r.fma_per_multiply_add);
  if (m.fft_butterflies > 0 || e.fft_butterflies > 0)
    out += fmt::format("  FFT butterflies {} (the Program's {})\n", m.fft_butterflies, e.fft_butterflies);
  const auto& moved = m.words_moved_per_node_step;
  out += fmt::format("  words moved per node per step (largest over nodes and steps): stage I {}, II {}, III {}{}\n", moved[0],
                     moved[1], moved[2], r.nodes() == 1 && r.timing ? "; one node moves nothing" : "");
  out += fmt::format("  words held per node: {} (largest over nodes: every buffer, sized for the largest block it holds)\n",
                     m.words_held_per_node);
  out += hops_line(e);
  if (r.coefficients_local) out += local_coefficient_lines(r, t);
  return out;
}

std::string engine_title(const std::string& engine) {
  if (engine == "systemc") return "cycle-accurate (SystemC)";
  if (engine == "event") return "cycle-exact (event engine)";
  return "functional";
}

std::string transform_text(const RunReport& r) {
  std::string out;
  out += fmt::format("torus-sim {} run: N={} P={}{} b={} ({} nodes), {}transform {}, alpha {}, {}\n", engine_title(r.engine),
                     extents_text(r.n), extents_or_edge(r.p), r.boundary == "torus" ? "" : " (" + r.boundary + ")", r.b, r.nodes(),
                     r.algorithm == "orbital" ? "" : "algorithm " + r.algorithm + ", ", r.transform, r.alpha, to_string(r.scalar));
  if (r.node_memory) out += fmt::format("node memory: {}\n", r.node_memory->describe());
  if (!r.fits()) return out;  // nothing else to say: format_text gives the verdict
  out += fmt::format("input: {}\n", r.input);
  for (const TransformOutcome& t : r.transforms) {
    out += fmt::format("{}:\n", to_string(t.direction));
    const char* verified = t.verified == "quotient" ? "verified as a translation quotient (node (0,0,0)'s task list; symmetry: off "
                                                       "proves the whole schedule)"
                                                     : "verified";
    out += fmt::format("  schedule: {} ({} violations){}\n", t.schedule_violations == 0 ? verified : "INVALID",
                       t.schedule_violations, t.first_violation.empty() ? "" : ": " + t.first_violation);
    out += paper_formulas(r) ? paper_counts(r, t) : program_counts(r, t);
    out += r.values ? fmt::format("  golden check: {}\n", error_text(t.error))
                    : "  golden check: none: values off, no value was computed or checked\n";
    if (!t.mismatch.empty()) out += "  " + t.mismatch + "\n";
  }
  if (r.round_trip) out += fmt::format("round trip inverse(forward(x)) vs x: {}\n", error_text(*r.round_trip));
  return out;
}


}  // namespace

std::string format_text(const RunReport& r) {
  std::string out;
  if (r.matmul) {
    out += fmt::format("torus-sim {} run, {}\ninput: {}\n", engine_title(r.engine), matmul_title(r), r.input);
    out += matmul_text(r);
  } else {
    out += transform_text(r);
  }
  // Not simulated: no timing, no checks, and no PASS after the verdict.
  if (!r.fits()) return out + phases_text(r) + fmt::format("result: DOES NOT FIT: not simulated ({:.3f} s)\n", r.wall_seconds);
  if (r.timing) out += timing_text(r, *r.timing);
  if (!r.fault.empty()) out += "injected fault: " + r.fault + "\n";
  out += phases_text(r);
  out += fmt::format("result: {}{} ({:.3f} s)\n", r.passed() ? "PASS" : "FAIL",
                     r.values ? "" : ", counts only: values off, nothing computed or checked", r.wall_seconds);
  return out;
}


nlohmann::json to_json(const ErrorReport& e) {
  return {{"max_abs_error", e.max_abs_error},
          {"max_rel_error", e.max_rel_error},
          {"max_error_over_bound", e.max_bound_ratio},
          {"bound_factor", e.tolerance_factor},
          {"worst_element", e.worst_element},
          {"within_tolerance", e.within_tolerance()},
          {"first_failure", e.has_failure ? nlohmann::json(e.first_failure) : nlohmann::json(nullptr)}};
}

nlohmann::json to_json(const TimingReport& t) {
  nlohmann::json j{{"total_cycles", t.total_cycles},
                   {"seconds", t.seconds()},
                   {"clock_hz", t.clock_hz},
                   {"fma_issued", t.fma_issued},
                   {"fma_expected", t.fma_expected},
                   {"fast_forwarded_fma", t.fast_forwarded_fma},
                   {"fast_forward_note", t.fast_forward_note},
                   {"stepping_threads", t.stepping_threads},
                   {"node_activations", t.node_activations},
                   {"nodes_timed", t.nodes_timed},
                   {"utilisation", t.utilisation()},
                   {"node_cycles", {{"busy", t.cycles.busy}, {"dependency", t.cycles.dependency}, {"operand", t.cycles.operand},
                                    {"backpressure", t.cycles.backpressure}, {"idle", t.cycles.idle}}},
                   {"words_per_node", {{"allocated", t.words_allocated}, {"paper", t.words_paper},
                                       {"second_buffers", t.words_second_buffers},
                                       {"link_buffers", t.words_link_buffers}}},
                   {"memory", {{"engine_bytes_per_node", t.engine_bytes_per_node}, {"program_bytes", t.program_bytes},
                               {"estimate_bytes", t.memory_estimate_bytes}}},
                   {"simulation_seconds", t.simulation_seconds},
                   {"peak_memory_bytes", t.peak_memory_bytes},
                   {"node_cycles_per_second", t.node_cycles_per_second()}};
  for (const StageTiming& s : t.stages)
    j["stages"].push_back({{"transform", s.transform}, {"direction", s.direction}, {"stage", s.stage}, {"start", s.start},
                           {"end", s.end}, {"cycles", s.end - s.start}});
  for (const StepTiming& s : t.steps)
    j["steps"].push_back({{"global_step", s.global_step}, {"stage", s.stage}, {"step", s.step}, {"min_cycles", s.min_cycles},
                          {"max_cycles", s.max_cycles}});
  for (const LinkTraffic& l : t.links)
    j["links"].push_back({{"direction", l.direction}, {"words", l.words}, {"active_cycles", l.active_cycles},
                          {"peak_occupancy", l.peak_occupancy}, {"wait_cycles", l.wait_cycles}});
  if (!t.link_active_cycles.empty()) j["link_active_cycles"] = t.link_active_cycles;
  if (t.analytic)
    j["analytic"] = {{"cycles", t.analytic->cycles}, {"exact", t.analytic->exact}, {"regime", t.analytic->regime},
                     {"difference", static_cast<std::int64_t>(t.total_cycles) - static_cast<std::int64_t>(t.analytic->cycles)}};
  return j;
}

namespace {

// What every report carries after its task's own figures.
nlohmann::json with_run_figures(const RunReport& r, nlohmann::json j) {
  j["engine"] = r.engine;
  j["values"] = r.values ? "on" : "off";
  j["phase_seconds"] = phases_json(r);  // where wall_seconds went
  if (!r.fault.empty()) j["fault"] = r.fault;
  if (!r.machine.empty()) {
    nlohmann::json machine = nlohmann::json::object();
    for (const auto& [key, value] : r.machine) machine[key] = value;
    j["machine"] = machine;
  }
  if (r.timing) j["timing"] = to_json(*r.timing);
  return j;
}

}  // namespace

nlohmann::json to_json(const RunReport& r) {
  if (r.matmul) return with_run_figures(r, {{"task", "matmul"}, {"algorithm", r.algorithm}, {"nodes", r.nodes()},
                                             {"boundary", r.boundary}, {"element_type", to_string(r.scalar)},
                                             {"input", r.input}, {"seed", r.seed}, {"passed", r.passed()},
                                             {"wall_seconds", r.wall_seconds}, {"matmul", matmul_json(r)}});
  const bool cubic_n = r.n[0] == r.n[1] && r.n[1] == r.n[2], cubic_p = r.p[0] == r.p[1] && r.p[1] == r.p[2];
  // One number when every axis agrees (as before shapes existed), else "AxBxC".
  nlohmann::json j{{"N", cubic_n ? nlohmann::json(r.n[0]) : nlohmann::json(extents_text(r.n))},
                   {"P", cubic_p ? nlohmann::json(r.p[0]) : nlohmann::json(extents_or_edge(r.p))},
                   {"b", r.uniform_cube ? nlohmann::json(r.n[0] / static_cast<std::size_t>(r.p[0])) : nlohmann::json(r.b)},
                   {"nodes", r.nodes()},
                   {"boundary", r.boundary},
                   {"algorithm", r.algorithm},
                   {"transform", r.transform},
                   {"alpha", r.alpha},
                   {"normalisation", r.normalisation},
                   {"element_type", to_string(r.scalar)},
                   {"input", r.input},
                   {"seed", r.seed},
                   {"inverse_defects", r.inverse_defects},
                   {"passed", r.fits() ? nlohmann::json(r.passed()) : nlohmann::json(nullptr)},
                   {"fits", r.fits()},
                   {"wall_seconds", r.wall_seconds},
                   {"transforms", nlohmann::json::array()}};
  for (const TransformOutcome& t : r.transforms) {
    const auto& m = t.measured;
    j["transforms"].push_back(
        {{"direction", to_string(t.direction)},
         {"schedule_violations", t.schedule_violations},
         {"verified", t.verified},
         {"steps", m.steps},
         {"block_multiply_adds", m.block_multiply_adds},
         {"scalar_multiply_adds", m.scalar_multiply_adds},
         {"real_fma", m.scalar_multiply_adds * r.fma_per_multiply_add},
         {"words_moved_per_node_step", m.words_moved_per_node_step},
         {"words_moved_per_node_step_min", m.words_moved_per_node_step_min},
         {"words_held_per_node", m.words_held_per_node},
         {"expected", {{"steps", t.expected.steps},
                       {"block_multiply_adds", t.expected.block_multiply_adds},
                       {"scalar_multiply_adds", t.expected.scalar_multiply_adds},
                       {"words_held_per_node", t.expected.words_held_per_node},
                       {"messages", t.expected.messages},
                       {"hops", t.expected.hops},
                       {"max_hops_per_message", t.expected.max_hops}}},
         {"golden", r.values ? to_json(t.error) : nlohmann::json(nullptr)},
         {"mismatch", t.mismatch}});
    if (m.fft_butterflies > 0 || t.expected.fft_butterflies > 0) {  // only runs with FFT tasks say so
      j["transforms"].back()["fft_butterflies"] = m.fft_butterflies;
      j["transforms"].back()["expected"]["fft_butterflies"] = t.expected.fft_butterflies;
    }
  }
  if (r.round_trip) j["round_trip"] = to_json(*r.round_trip);
  if (r.node_memory) j["node_memory"] = r.node_memory->to_json();
  if (r.coefficients_local) j["coefficient_tables"] = {{"values", r.tables.values}, {"description", r.tables.description}};
  return with_run_figures(r, std::move(j));
}
}  // namespace torus
