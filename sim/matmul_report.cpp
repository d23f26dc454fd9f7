#include "sim/matmul_report.hpp"

#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/report.hpp"

namespace torus {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The paper's words per node for the shifts of the multiplication phase (section 4.3):
// ceil(m/Nr) ceil(k/Nc) (Nc - 1) of A and ceil(k/Nr) ceil(n/Nc) (Nr - 1) of B.
std::array<std::size_t, 2> paper_shift_words(const MatmulProblem& q) {
  const auto nr = static_cast<std::size_t>(q.rows()), nc = static_cast<std::size_t>(q.columns());
  return {ceil_div(q.m, nr) * ceil_div(q.k, nc) * (nc - 1), ceil_div(q.k, nr) * ceil_div(q.n, nc) * (nr - 1)};
}

}  // namespace

std::string matmul_title(const RunReport& r) {
  const MatmulProblem& q = r.matmul->problem;
  return fmt::format("task matmul: C = A B, A {}x{}, B {}x{} ({}), array {}x{} on torus {}x{}x1{} ({} nodes), algorithm {}", q.m,
                     q.k, q.k, q.n, to_string(r.scalar), q.rows(), q.columns(), q.rows(), q.columns(),
                     r.boundary == "torus" ? "" : " (" + r.boundary + ")", r.nodes(), r.algorithm);
}

std::string matmul_text(const RunReport& r) {
  const MatmulOutcome& o = *r.matmul;
  const MatmulCounts& c = o.counts;
  const MatmulProblem& q = o.problem;
  const auto nr = static_cast<std::size_t>(q.rows()), nc = static_cast<std::size_t>(q.columns());
  const std::array<std::size_t, 2> paper = paper_shift_words(q);
  std::string out = fmt::format("program: {} ({} violations){}\n", o.violations == 0 ? "verified" : "INVALID", o.violations,
                                o.first_violation.empty() ? "" : ": " + o.first_violation);
  out += fmt::format("  compute steps: {} (lcm(Nr, Nc) = {}), {} block products, {} multiply-adds (m k n = {})\n", c.compute_steps,
                     std::lcm(nr, nc), c.block_products, c.scalar_multiply_adds, q.m * q.k * q.n);
  out += fmt::format("  shifts per node: A {} (Nc - 1 = {}), B {} (Nr - 1 = {})\n", c.a_shifts, nc - 1, c.b_shifts, nr - 1);
  out += fmt::format("  words shifted: A {} in all ((Nc - 1) m k = {}), at most {} per node (paper: {}); B {} in all ((Nr - 1) k n "
                     "= {}), at most {} per node (paper: {})\n", c.a_shift_words, (nc - 1) * q.m * q.k, c.a_shift_words_per_node,
                     paper[0], c.b_shift_words, (nr - 1) * q.k * q.n, c.b_shift_words_per_node, paper[1]);
  out += fmt::format("  alignment: {} messages, {} hops (longest {}), at most {} words sent per node\n", c.alignment_messages,
                     c.alignment_hops, c.alignment_max_hops, c.alignment_words_per_node);
  out += r.values ? fmt::format("golden check against Eigen's product: {}\n", error_text(o.error))
                  : "golden check: none: values off, no value was computed or checked\n";
  if (!o.mismatch.empty()) out += "  " + o.mismatch + "\n";
  return out;
}

nlohmann::json matmul_json(const RunReport& r) {
  const MatmulOutcome& o = *r.matmul;
  const MatmulCounts& c = o.counts;
  const std::array<std::size_t, 2> paper = paper_shift_words(o.problem);
  return {{"m", o.problem.m},
          {"k", o.problem.k},
          {"n", o.problem.n},
          {"array", {o.problem.rows(), o.problem.columns()}},
          {"violations", o.violations},
          {"first_violation", o.first_violation},
          {"compute_steps", c.compute_steps},
          {"block_products", c.block_products},
          {"scalar_multiply_adds", c.scalar_multiply_adds},
          {"shifts", {{"a", c.a_shifts}, {"b", c.b_shifts}, {"a_min", c.a_shifts_min}, {"b_min", c.b_shifts_min}}},
          {"shift_words", {{"a", c.a_shift_words}, {"b", c.b_shift_words}, {"a_per_node", c.a_shift_words_per_node},
                           {"b_per_node", c.b_shift_words_per_node}, {"paper_a_per_node", paper[0]},
                           {"paper_b_per_node", paper[1]}}},
          {"alignment", {{"messages", c.alignment_messages}, {"hops", c.alignment_hops}, {"max_hops", c.alignment_max_hops},
                         {"words_per_node", c.alignment_words_per_node}}},
          {"words_held_per_node", c.words_held_per_node},
          {"golden", r.values ? to_json(o.error) : nlohmann::json(nullptr)},
          {"mismatch", o.mismatch}};
}

}  // namespace torus
