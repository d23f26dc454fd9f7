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

// Cycles of the phases, from the stages' first fma: before the first block product (alignment
// or pre-shift), the block products with their shifts (stage 1), the back-shift (stage 2).
std::array<std::uint64_t, 3> phase_cycles(const TimingReport& t) {
  std::array<std::uint64_t, 3> out{};
  if (t.stages.empty()) return out;
  out[0] = t.stages[0].start;
  out[1] = t.stages[0].end - t.stages[0].start;
  if (t.stages.size() > 1) out[2] = t.stages[1].end - t.stages[1].start;
  return out;
}

// The ring algorithms' lines: Lippert et al.'s T = K + K~ - 1 shifts against p - 1.
std::string ring_text(const MatmulOutcome& o) {
  const MatmulCounts& c = o.counts;
  const MatmulProblem& q = o.problem;
  const std::size_t p = q.shape.node_count(), k = o.stride, kt = p / o.stride;
  std::string out = fmt::format("  compute steps: {} (p = {}), {} block products, {} multiply-adds (m k n = {}); {} block adds of "
                                "partial sums ({} words, (K - 1) m n = {})\n", c.compute_steps, p, c.block_products,
                                c.scalar_multiply_adds, q.m * q.k * q.n, c.block_adds, c.scalar_adds, (k - 1) * q.m * q.n);
  out += fmt::format("  shifts: pre-shift {}, A {} of stride K = {} (K~ - 1 = {}), C back-shift {} (K - 1 = {}): T = {} (K + K~ - 1 "
                     "= {}; systolic ring p - 1 = {}), {} mapping, longest shift {} hops\n", c.alignment_phases, c.a_shifts, k,
                     kt - 1, c.c_shifts, k - 1, c.total_shifts(), k + kt - 1, p - 1, o.mapping, c.max_shift_hops);
  out += fmt::format("  words sent in shifts (relays at the dateline included): A {} in all, at most {} per node; C {} in all, at "
                     "most {} per node\n", c.a_shift_words, c.a_shift_words_per_node, c.c_shift_words, c.c_shift_words_per_node);
  out += fmt::format("  pre-shift of B: {} messages, {} hops (longest {}), at most {} words sent per node\n", c.alignment_messages,
                     c.alignment_hops, c.alignment_max_hops, c.alignment_words_per_node);
  return out;
}

// The systolic algorithm's lines, against Mathur and Johnsson's counts.
std::string systolic_text(const MatmulOutcome& o) {
  const MatmulCounts& c = o.counts;
  const MatmulProblem& q = o.problem;
  const auto nr = static_cast<std::size_t>(q.rows()), nc = static_cast<std::size_t>(q.columns());
  const std::array<std::size_t, 2> paper = paper_shift_words(q);
  std::string out = fmt::format("  compute steps: {} (lcm(Nr, Nc) = {}), {} block products, {} multiply-adds (m k n = {})\n",
                                c.compute_steps, std::lcm(nr, nc), c.block_products, c.scalar_multiply_adds, q.m * q.k * q.n);
  out += fmt::format("  shifts per node: A {} (Nc - 1 = {}), B {} (Nr - 1 = {})\n", c.a_shifts, nc - 1, c.b_shifts, nr - 1);
  out += fmt::format("  words shifted: A {} in all ((Nc - 1) m k = {}), at most {} per node (paper: {}); B {} in all ((Nr - 1) k n "
                     "= {}), at most {} per node (paper: {})\n", c.a_shift_words, (nc - 1) * q.m * q.k, c.a_shift_words_per_node,
                     paper[0], c.b_shift_words, (nr - 1) * q.k * q.n, c.b_shift_words_per_node, paper[1]);
  out += fmt::format("  alignment: {} messages, {} hops (longest {}), at most {} words sent per node\n", c.alignment_messages,
                     c.alignment_hops, c.alignment_max_hops, c.alignment_words_per_node);
  return out;
}

// The stationary algorithms' figures: which operand moves, and the paper's words per node
// (section 4.1: the all-to-all broadcast of the moving operand along one axis of the array, the
// all-to-all reduction of C along the other), with N = Nr Nc.
struct StationaryFigures {
  bool a_stays;
  std::size_t spread_line, reduce_line;  // the array's extents along the spread and the reduction
  std::size_t spread_sends, spread_words_all, spread_words;  // the Program's, per node at most
  std::size_t reduce_shifts, reduce_shifts_min, reduce_words_all, reduce_words;
  double paper_spread_words, paper_reduce_words;
};

StationaryFigures stationary_figures(const MatmulOutcome& o) {
  const MatmulCounts& c = o.counts;
  const MatmulProblem& q = o.problem;
  const bool a = o.chosen == "a_stationary";
  const auto nr = static_cast<std::size_t>(q.rows()), nc = static_cast<std::size_t>(q.columns());
  const double nodes = static_cast<double>(nr * nc);
  const std::size_t spread = a ? nr : nc, reduce = a ? nc : nr;
  const double moving = static_cast<double>(a ? q.k * q.n : q.m * q.k);
  return {a, spread, reduce, a ? c.b_shifts : c.a_shifts, a ? c.b_shift_words : c.a_shift_words,
          a ? c.b_shift_words_per_node : c.a_shift_words_per_node, c.c_shifts, c.c_shifts_min, c.c_shift_words,
          c.c_shift_words_per_node, moving * static_cast<double>(spread - 1) / nodes,
          static_cast<double>(q.m * q.n) * static_cast<double>(reduce - 1) / nodes};
}

std::string stationary_text(const MatmulOutcome& o) {
  const MatmulCounts& c = o.counts;
  const MatmulProblem& q = o.problem;
  const StationaryFigures f = stationary_figures(o);
  const char* moving = f.a_stays ? "B down the columns" : "A along the rows";
  std::string out = fmt::format("  compute steps: {} ({} = {}), {} block products, {} multiply-adds (m k n = {})\n", c.compute_steps,
                                f.a_stays ? "Nc" : "Nr", f.reduce_line, c.block_products, c.scalar_multiply_adds, q.m * q.k * q.n);
  out += fmt::format("  spread of {} (pipelines of {} - 1 = {} hops per block): at most {} sends per node ({} - floor({} / {}) = {}), "
                     "{} words in all, at most {} per node (paper {} (N{} - 1) / N = {:.6g})\n", moving, f.a_stays ? "Nr" : "Nc",
                     f.spread_line - 1, f.spread_sends, f.a_stays ? "Nc" : "Nr", f.a_stays ? "Nc" : "Nr", f.a_stays ? "Nr" : "Nc",
                     f.reduce_line - f.reduce_line / f.spread_line, f.spread_words_all, f.spread_words, f.a_stays ? "k n" : "m k",
                     f.a_stays ? "r" : "c", f.paper_spread_words);
  out += fmt::format("  reduction of C round the {}: {} shifts per node ({} - 1 = {}), {} words in all, at most {} per node (paper m n "
                     "(N{} - 1) / N = {:.6g}); no alignment\n", f.a_stays ? "rows" : "columns", f.reduce_shifts,
                     f.a_stays ? "Nc" : "Nr", f.reduce_line - 1, f.reduce_words_all, f.reduce_words, f.a_stays ? "c" : "r",
                     f.paper_reduce_words);
  return out;
}

bool is_stationary(const MatmulOutcome& o) { return o.chosen == "a_stationary" || o.chosen == "b_stationary"; }

}  // namespace

std::string matmul_title(const RunReport& r) {
  const MatmulProblem& q = r.matmul->problem;
  return fmt::format("task matmul: C = A B, A {}x{}, B {}x{} ({}), array {}x{} on torus {}x{}x1{} ({} nodes), algorithm {}{}", q.m,
                     q.k, q.k, q.n, to_string(r.scalar), q.rows(), q.columns(), q.rows(), q.columns(),
                     r.boundary == "torus" ? "" : " (" + r.boundary + ")", r.nodes(), r.algorithm,
                     r.matmul->chosen == r.algorithm ? "" : " (chose " + r.matmul->chosen + ")");
}

std::string matmul_text(const RunReport& r) {
  const MatmulOutcome& o = *r.matmul;
  std::string out = fmt::format("program: {} ({} violations){}\n", o.violations == 0 ? "verified" : "INVALID", o.violations,
                                o.first_violation.empty() ? "" : ": " + o.first_violation);
  out += o.stride > 0 ? ring_text(o) : is_stationary(o) ? stationary_text(o) : systolic_text(o);
  if (r.timing) {
    const std::array<std::uint64_t, 3> phases = phase_cycles(*r.timing);
    out += fmt::format("  cycles per phase (first fma of each stage on any node; nodes overlap phases): before the first block "
                       "product {}, block products and shifts {}, back-shift {}\n", phases[0], phases[1], phases[2]);
  }
  out += r.values ? fmt::format("golden check against Eigen's product: {}\n", error_text(o.error))
                  : "golden check: none: values off, no value was computed or checked\n";
  if (!o.mismatch.empty()) out += "  " + o.mismatch + "\n";
  return out;
}

nlohmann::json matmul_json(const RunReport& r) {
  const MatmulOutcome& o = *r.matmul;
  const MatmulCounts& c = o.counts;
  const std::array<std::size_t, 2> paper = paper_shift_words(o.problem);
  nlohmann::json out = {{"m", o.problem.m},
          {"k", o.problem.k},
          {"n", o.problem.n},
          {"array", {o.problem.rows(), o.problem.columns()}},
          {"violations", o.violations},
          {"first_violation", o.first_violation},
          {"compute_steps", c.compute_steps},
          {"block_products", c.block_products},
          {"scalar_multiply_adds", c.scalar_multiply_adds},
          {"block_adds", c.block_adds},
          {"scalar_adds", c.scalar_adds},
          {"shifts", {{"a", c.a_shifts}, {"b", c.b_shifts}, {"c", c.c_shifts}, {"a_min", c.a_shifts_min},
                      {"b_min", c.b_shifts_min}, {"c_min", c.c_shifts_min}, {"alignment", c.alignment_phases},
                      {"total", c.total_shifts()}, {"max_hops", c.max_shift_hops}}},
          {"shift_words", {{"a", c.a_shift_words}, {"b", c.b_shift_words}, {"c", c.c_shift_words},
                           {"a_per_node", c.a_shift_words_per_node}, {"b_per_node", c.b_shift_words_per_node},
                           {"c_per_node", c.c_shift_words_per_node}, {"paper_a_per_node", paper[0]},
                           {"paper_b_per_node", paper[1]}}},
          {"alignment", {{"messages", c.alignment_messages}, {"hops", c.alignment_hops}, {"max_hops", c.alignment_max_hops},
                         {"words_per_node", c.alignment_words_per_node}}},
          {"words_held_per_node", c.words_held_per_node},
          {"words_sent", c.words_sent},
          {"words_sent_per_node", c.words_sent_per_node},
          {"golden", r.values ? to_json(o.error) : nlohmann::json(nullptr)},
          {"mismatch", o.mismatch}};
  out["chosen_algorithm"] = o.chosen;
  if (is_stationary(o)) {
    const StationaryFigures f = stationary_figures(o);
    out["stationary"] = {{"operand", f.a_stays ? "A" : "B"}, {"spread_sends_per_node", f.spread_sends},
                         {"spread_words", f.spread_words_all}, {"spread_words_per_node", f.spread_words},
                         {"paper_spread_words_per_node", f.paper_spread_words}, {"reduction_shifts", f.reduce_shifts},
                         {"reduction_shifts_min", f.reduce_shifts_min}, {"reduction_words", f.reduce_words_all},
                         {"reduction_words_per_node", f.reduce_words}, {"paper_reduction_words_per_node", f.paper_reduce_words}};
  }
  if (o.stride > 0) {
    const std::size_t p = o.problem.shape.node_count();
    out["ring"] = {{"k", o.stride}, {"k_tilde", p / o.stride}, {"mapping", o.mapping},
                   {"paper_shifts", o.stride + p / o.stride - 1}, {"systolic_ring_shifts", p - 1}};
  }
  if (r.timing) {
    const std::array<std::uint64_t, 3> phases = phase_cycles(*r.timing);
    out["phases"] = {{"alignment", phases[0]}, {"products", phases[1]}, {"back_shift", phases[2]}};
  }
  return out;
}

}  // namespace torus
