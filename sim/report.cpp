#include "sim/report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace torus {
namespace {

std::string error_line(const ErrorReport& e) {
  return fmt::format("max abs error {:.3e}, max rel error {:.3e}, worst error / bound {:.3f} (bound factor {:.3e}) {}",
                     e.max_abs_error, e.max_rel_error, e.max_bound_ratio, e.tolerance_factor,
                     e.within_tolerance() ? "PASS" : "FAIL");
}

}  // namespace

std::string format_text(const RunReport& r) {
  std::string out;
  out += fmt::format("torus-sim functional run: N={} P={} b={} ({} nodes), transform {}, alpha {}, {}\n", r.n, r.p, r.b,
                     static_cast<std::size_t>(r.p) * r.p * r.p, r.transform, r.alpha, to_string(r.scalar));
  out += fmt::format("input: {}\n", r.input);
  for (const TransformOutcome& t : r.transforms) {
    const auto& m = t.measured;
    out += fmt::format("{}:\n", to_string(t.direction));
    out += fmt::format("  schedule: {} ({} violations){}\n", t.schedule_violations == 0 ? "verified" : "INVALID",
                       t.schedule_violations, t.first_violation.empty() ? "" : ": " + t.first_violation);
    out += fmt::format("  steps {} (3P = {}), block multiply-adds {} (3P^4 = {})\n", m.steps, 3 * r.p,
                       m.block_multiply_adds, 3ull * r.p * r.p * r.p * r.p);
    out += fmt::format("  scalar multiply-adds {} (3N^4 = {}), real fma {} (x{} per multiply-add)\n", m.scalar_multiply_adds,
                       3ull * r.n * r.n * r.n * r.n, m.scalar_multiply_adds * r.real_fma_per_multiply_add(),
                       r.real_fma_per_multiply_add());
    out += fmt::format("  words moved per node per step: stage I {}, II {}, III {} (b^3+b^2 = {}, 2b^3 = {})\n",
                       m.words_moved_per_node_step[0], m.words_moved_per_node_step[1], m.words_moved_per_node_step[2],
                       r.b * r.b * r.b + r.b * r.b, 2 * r.b * r.b * r.b);
    out += fmt::format("  words held per node: {} (4b^3+3b^2 = {})\n", m.words_held_per_node,
                       4 * r.b * r.b * r.b + 3 * r.b * r.b);
    out += fmt::format("  golden check: {}\n", error_line(t.error));
    if (!t.mismatch.empty()) out += "  " + t.mismatch + "\n";
  }
  if (r.round_trip) out += fmt::format("round trip inverse(forward(x)) vs x: {}\n", error_line(*r.round_trip));
  out += fmt::format("result: {} ({:.3f} s)\n", r.passed() ? "PASS" : "FAIL", r.wall_seconds);
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

nlohmann::json to_json(const RunReport& r) {
  nlohmann::json j{{"N", r.n},
                   {"P", r.p},
                   {"b", r.b},
                   {"nodes", static_cast<std::size_t>(r.p) * r.p * r.p},
                   {"transform", r.transform},
                   {"alpha", r.alpha},
                   {"normalisation", r.normalisation},
                   {"element_type", to_string(r.scalar)},
                   {"input", r.input},
                   {"seed", r.seed},
                   {"inverse_defects", r.inverse_defects},
                   {"passed", r.passed()},
                   {"wall_seconds", r.wall_seconds},
                   {"transforms", nlohmann::json::array()}};
  for (const TransformOutcome& t : r.transforms) {
    const auto& m = t.measured;
    j["transforms"].push_back(
        {{"direction", to_string(t.direction)},
         {"schedule_violations", t.schedule_violations},
         {"steps", m.steps},
         {"block_multiply_adds", m.block_multiply_adds},
         {"scalar_multiply_adds", m.scalar_multiply_adds},
         {"real_fma", m.scalar_multiply_adds * r.real_fma_per_multiply_add()},
         {"words_moved_per_node_step", m.words_moved_per_node_step},
         {"words_moved_per_node_step_min", m.words_moved_per_node_step_min},
         {"words_held_per_node", m.words_held_per_node},
         {"expected", {{"steps", t.expected.steps},
                       {"block_multiply_adds", t.expected.block_multiply_adds},
                       {"scalar_multiply_adds", t.expected.scalar_multiply_adds},
                       {"words_held_per_node", t.expected.words_held_per_node}}},
         {"golden", to_json(t.error)},
         {"mismatch", t.mismatch}});
  }
  if (r.round_trip) j["round_trip"] = to_json(*r.round_trip);
  return j;
}

}  // namespace torus
