#include "sim/matmul.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/algorithms/factories.hpp"
#include "sim/registry.hpp"

namespace torus {
namespace {

const Registry<MatmulAlgorithm>& matmul_algorithms() {
  static const Registry<MatmulAlgorithm> table(
      "algorithm", {{"systolic", make_systolic}, {"systolic_ring", make_systolic_ring}, {"hypersystolic", make_hypersystolic},
                    {"a_stationary", make_a_stationary}, {"b_stationary", make_b_stationary}, {"auto", make_auto_matmul}});
  return table;
}

std::size_t as_size(std::int32_t i) { return static_cast<std::size_t>(i); }

}  // namespace

std::unique_ptr<MatmulAlgorithm> make_matmul_algorithm(const std::string& name) { return matmul_algorithms().make(name); }
std::vector<std::string> matmul_algorithm_names() { return matmul_algorithms().names(); }

void require_on_array(const MatmulProblem& problem, const std::string& algorithm, std::size_t k_least,
                      const std::string& k_text, const std::string& rings) {
  if (problem.m < static_cast<std::size_t>(problem.rows()))
    throw std::invalid_argument(fmt::format("m: {} is not allowed with array {}x{}; allowed: at least Nr = {} (a row of A per "
                                            "processor row)", problem.m, problem.rows(), problem.columns(), problem.rows()));
  if (problem.n < static_cast<std::size_t>(problem.columns()))
    throw std::invalid_argument(fmt::format("n: {} is not allowed with array {}x{}; allowed: at least Nc = {} (a column of B "
                                            "per processor column)", problem.n, problem.rows(), problem.columns(), problem.columns()));
  if (problem.k < k_least)
    throw std::invalid_argument(fmt::format("k: {} is not allowed with array {}x{} and algorithm {}; allowed: at least {}",
                                            problem.k, problem.rows(), problem.columns(), algorithm, k_text));
  if (!problem.shape.wraps(Axis::Q) || !problem.shape.wraps(Axis::R))
    throw std::invalid_argument(fmt::format("boundary: '{}' is not allowed with algorithm {}; allowed: torus on Q and R ({}): "
                                            "torus, torus,torus,mesh, or torus_from:K with K at most Nr Nc = {}",
                                            boundary_text(problem.shape), algorithm, rings, problem.rows() * problem.columns()));
}

Program matmul_skeleton(const MatmulProblem& problem, const MatmulLayout& layout, const std::string& algorithm) {
  Program p;
  p.algorithm = algorithm;
  p.shape = problem.shape;
  p.grid = BlockGrid::make({problem.m, 1, problem.n}, {layout.row_parts, 1, layout.column_parts});
  const BlockGrid a = BlockGrid::make({problem.m, 1, problem.k}, {layout.row_parts, 1, layout.k_parts});
  const BlockGrid b = BlockGrid::make({problem.k, problem.n, 1}, {layout.k_parts, layout.column_parts, 1});
  p.tag_kinds = {{"C", 3, 0, p.grid}, {"A", 3, 0, a}, {"B", 2, 0, b}};
  p.host_arrays = {{"A", false, 0, 0, a, 0}, {"B", false, 0, 0, b, 1}};
  if (layout.adds) {
    const BlockGrid one = BlockGrid::make({1, 1, 1}, {1, 1, 1});
    p.tag_kinds.push_back({"one", 2, 0, one});
    p.host_arrays.push_back({"one", false, 0, 0, one, 2, false});
  }
  p.transforms = {"matmul"};
  p.description = fmt::format("C = A B, A {}x{}, B {}x{}, on a {}x{} array", problem.m, problem.k, problem.k, problem.n,
                              problem.rows(), problem.columns());
  p.nodes.resize(problem.shape.node_count());
  ProgramOutput out{matmul_output, 0, 1, {}, {}, {}};
  for (std::size_t node = 0; node < p.nodes.size(); ++node) {
    const std::array<std::int32_t, 2> c = layout.c_block(node);
    out.buffer.push_back(0);
    out.tag.push_back({matmul_c, {c[0], 0, c[1]}});
  }
  p.outputs.push_back(out);
  return p;
}

Program matmul_skeleton(const MatmulProblem& problem, std::size_t k_parts, const std::string& algorithm) {
  const TorusShape shape = problem.shape;
  return matmul_skeleton(problem,
                         {static_cast<std::size_t>(problem.rows()), static_cast<std::size_t>(problem.columns()), k_parts,
                          [shape](std::size_t node) {
                            const NodeCoord c = shape.coord_of(node);
                            return std::array<std::int32_t, 2>{c.q, c.r};
                          },
                          false},
                         algorithm);
}

namespace {

// One operand's shifts at one node: the steps it sends blocks in after the first compute, and
// their words; folded over nodes into the counts' most, fewest and sum.
struct ShiftTally {
  std::set<std::uint32_t> steps;
  std::size_t words = 0;
  void fold(std::size_t& most, std::size_t& fewest, std::size_t& all, std::size_t& most_words) const {
    most = std::max(most, steps.size());
    fewest = std::min(fewest, steps.size());
    all += words;
    most_words = std::max(most_words, words);
  }
};

}  // namespace

namespace {

// Buffers a compute of the node reads or writes.
std::set<std::uint32_t> computed_with(const NodeProgram& node) {
  std::set<std::uint32_t> used;
  for (const Task& t : node.tasks)
    if (t.kind == TaskKind::Compute) used.insert({t.buffer, node.detail(t).operand, node.detail(t).coefficient});
  return used;
}

// The sends of a node that pass on a block it received and never reads (a relay at a
// dateline): task index -> the message it passes on.
std::map<std::size_t, std::uint32_t> relays_of(const NodeProgram& node) {
  const std::set<std::uint32_t> read = computed_with(node);
  std::map<std::uint32_t, std::uint32_t> received;  // buffer -> the last message into it
  std::map<std::size_t, std::uint32_t> relays;
  for (std::size_t k = 0; k < node.tasks.size(); ++k) {
    const Task& t = node.tasks[k];
    if (t.kind == TaskKind::Receive) received[t.buffer] = t.message;
    if (t.kind == TaskKind::Load) received.erase(t.buffer);
    if (t.kind == TaskKind::Send && !read.contains(t.buffer) && received.contains(t.buffer)) relays[k] = received[t.buffer];
  }
  return relays;
}

// Per message: part of the alignment (its first sender loaded the block and never read it), so
// that a relay belongs to the phase of what it passes on.
std::vector<bool> alignment_messages(const Program& program, const std::vector<std::map<std::size_t, std::uint32_t>>& relays) {
  std::vector<int> aligned(program.messages.size(), -1);
  for (std::size_t n = 0; n < program.nodes.size(); ++n) {
    const std::set<std::uint32_t> used = computed_with(program.nodes[n]);
    const auto& tasks = program.nodes[n].tasks;
    for (std::size_t k = 0; k < tasks.size(); ++k)
      if (tasks[k].kind == TaskKind::Send && !relays[n].contains(k)) aligned[tasks[k].message] = used.contains(tasks[k].buffer) ? 0 : 1;
  }
  for (bool changed = true; changed;) {  // relays of relays: one pass per relay on a route
    changed = false;
    for (std::size_t n = 0; n < program.nodes.size(); ++n)
      for (const auto& [k, in] : relays[n]) {
        const std::uint32_t out = program.nodes[n].tasks[k].message;
        if (aligned[out] < 0 && aligned[in] >= 0) {
          aligned[out] = aligned[in];
          changed = true;
        }
      }
  }
  std::vector<bool> out(aligned.size());
  for (std::size_t m = 0; m < aligned.size(); ++m) out[m] = aligned[m] == 1;
  return out;
}

}  // namespace

MatmulCounts count_matmul(const Program& program) {
  MatmulCounts c;
  c.a_shifts_min = c.b_shifts_min = c.c_shifts_min = ~std::size_t{0};
  std::vector<std::map<std::size_t, std::uint32_t>> relays;
  for (const NodeProgram& node : program.nodes) relays.push_back(relays_of(node));
  const std::vector<bool> aligned_message = alignment_messages(program, relays);
  std::set<std::uint32_t> steps;
  for (std::size_t n = 0; n < program.nodes.size(); ++n) {
    const NodeProgram& node = program.nodes[n];
    std::size_t declared = 0, aligned = 0, sent = 0;
    for (const BufferSpec& b : node.buffers) declared += b.words;
    c.words_held_per_node = std::max(c.words_held_per_node, declared);
    std::array<ShiftTally, 3> shifts;  // by tag kind: C, A, B
    for (std::size_t k = 0; k < node.tasks.size(); ++k) {
      const Task& task = node.tasks[k];
      if (task.kind == TaskKind::Compute) {
        const TaskDetail& d = node.detail(task);
        const std::size_t work = program.kernels[d.kernel].multiply_adds();
        if (d.coefficient_tag.kind == matmul_one) {
          ++c.block_adds;
          c.scalar_adds += work;
          continue;
        }
        steps.insert(task.label.global_step);
        ++c.block_products;
        c.scalar_multiply_adds += work;
      }
      if (task.kind != TaskKind::Send) continue;
      const Message& m = program.messages[task.message];
      sent += m.words;
      const bool relay = relays[n].contains(k);  // words and hops count, its step is its sender's
      if (aligned_message[task.message]) {
        aligned += m.words;
        ++c.alignment_messages;
        c.alignment_hops += m.hops;
        c.alignment_max_hops = std::max<std::size_t>(c.alignment_max_hops, m.hops);
      } else if (m.tag.kind <= matmul_b) {
        if (!relay) shifts[m.tag.kind].steps.insert(task.label.global_step);
        shifts[m.tag.kind].words += m.words;
        c.max_shift_hops = std::max<std::size_t>(c.max_shift_hops, m.hops);
      }
    }
    c.alignment_words_per_node = std::max(c.alignment_words_per_node, aligned);
    c.words_sent += sent;
    c.words_sent_per_node = std::max(c.words_sent_per_node, sent);
    shifts[matmul_a].fold(c.a_shifts, c.a_shifts_min, c.a_shift_words, c.a_shift_words_per_node);
    shifts[matmul_b].fold(c.b_shifts, c.b_shifts_min, c.b_shift_words, c.b_shift_words_per_node);
    shifts[matmul_c].fold(c.c_shifts, c.c_shifts_min, c.c_shift_words, c.c_shift_words_per_node);
  }
  c.compute_steps = steps.size();
  c.alignment_phases = c.alignment_messages > 0 ? 1 : 0;
  if (program.nodes.empty()) c.a_shifts_min = c.b_shifts_min = c.c_shifts_min = 0;
  return c;
}

AlgorithmCheck prove_block_products(const Program& program) {
  AlgorithmCheck check;
  const auto fail = [&check](std::string text) {
    if (check.violations.size() < 8) check.violations.push_back(std::move(text));
    ++check.violation_count;
  };
  const std::size_t parts = program.tag_kinds.at(matmul_a).cut->axis[2].parts;
  for (std::size_t node = 0; node < program.nodes.size(); ++node) {
    const NodeCoord at = program.shape.coord_of(node);
    const DataTag c{matmul_c, {at.q, 0, at.r}};
    std::vector<int> done(parts, 0);
    bool first = true;
    for (const Task& task : program.nodes[node].tasks) {
      if (task.kind != TaskKind::Compute) continue;
      const TaskDetail& t = program.nodes[node].detail(task);
      const DataTag& a = t.operand_tag;
      const DataTag& b = t.coefficient_tag;
      const bool fits = t.tag == c && task.zero_accumulator == first && a.kind == matmul_a && b.kind == matmul_b &&
                        a.index[0] == at.q && a.index[1] == 0 && b.index[1] == at.r && b.index[2] == 0 &&
                        a.index[2] == b.index[0] && a.index[2] >= 0 && as_size(a.index[2]) < parts;
      if (!fits) {
        fail(fmt::format("node {}: computes {} += {} x {}{}; it must add A(l,0,v) x B(v,m) into its own C(l,0,m), zeroing it "
                         "first", program.describe_node(node), program.describe(t.tag), program.describe(a), program.describe(b),
                         task.zero_accumulator ? " (zeroing)" : ""));
        continue;
      }
      first = false;
      ++done[as_size(a.index[2])];
    }
    for (std::size_t v = 0; v < parts; ++v)
      if (done[v] != 1)
        fail(fmt::format("node {}: the block product with inner block {} is done {} times; once is right",
                         program.describe_node(node), v, done[v]));
  }
  return check;
}

}  // namespace torus
