// The orbital transform as its MPI implementation runs it (Lirkov, Sedukhin et al., "Performance
// analysis of a scalable algorithm for 3D linear transforms"): no coefficient block is in
// flight. Every node generates the coefficient block each step needs from a local table, and
// only one data block rolls per step, on any P1 x P2 x P3 torus:
//   stage I,   P3 steps: X'(Q,R,S) += X(Q,R,j) x3 C3(j,S),   then X rolls along S;
//   stage II,  P1 steps: X''(j,R,S) += X'(Q,R,S) x1 C1(Q,j), then X'' rolls along Q;
//   stage III, P2 steps: Y(Q,j,S) += X''(Q,R,S) x2 C2(R,j),  then Y rolls along R;
// with j = (c - a t) mod P_A at step t, c the node's coordinate along the stage's axis A and a
// the scheduling vector's sign for A (rolls go from c to c + a). A stationary block is the
// node's own (Q,R,S); a moving one has label j and, after P_A rolls, is home again. So every
// layout is canonical: node (Q,R,S) holds input block (Q,R,S) and, at the end, output block
// (Q,R,S); the inverse runs the same three forms with D = C^-1 on the way back (Y -> X'' -> X'
// -> X), so forward/inverse loops chain with no redistribution.

#include <map>
#include <set>
#include <stdexcept>

#include "sim/algorithms/factories.hpp"

namespace torus {
namespace {

using K = BlockKind;

struct LocalStageForm {
  int mode;  // the contracted mode; the stage rolls along the same axis (1: Q, 2: R, 3: S)
  const char* summary;
  BlockKind accumulator, operand;
  bool accumulator_moves;  // else the operand moves
};

constexpr std::array<LocalStageForm, 3> local_forward_forms = {{
    {3, "n3 -> k3: X'(Q,R,S) += X(Q,R,j) x3 C3(j,S), X rolls along S", K::Xdot, K::X, false},
    {1, "n1 -> k1: X''(j,R,S) += X'(Q,R,S) x1 C1(Q,j), X'' rolls along Q", K::Xddot, K::Xdot, true},
    {2, "n2 -> k2: Y(Q,j,S) += X''(Q,R,S) x2 C2(R,j), Y rolls along R", K::Y, K::Xddot, true},
}};
constexpr std::array<LocalStageForm, 3> local_inverse_forms = {{
    {3, "k3 -> n3: X''(Q,R,S) += Y(Q,R,j) x3 D3(j,S), Y rolls along S", K::Xddot, K::Y, false},
    {1, "k1 -> n1: X'(j,R,S) += X''(Q,R,S) x1 D1(Q,j), X' rolls along Q", K::Xdot, K::Xddot, true},
    {2, "k2 -> n2: X(Q,j,S) += X'(Q,R,S) x2 D2(R,j), X rolls along R", K::X, K::Xdot, true},
}};

const std::array<LocalStageForm, 3>& forms_of(TransformDirection d) {
  return d == TransformDirection::Forward ? local_forward_forms : local_inverse_forms;
}
Axis axis_of_mode(int mode) { return static_cast<Axis>(mode - 1); }
BlockKind moving_kind(const LocalStageForm& f) { return f.accumulator_moves ? f.accumulator : f.operand; }

// Builds the Program step by step. As a translation quotient it builds node (0,0,0) alone, with
// block kinds only (tags without indices) and every message stored back into node 0.
class LocalCoefficientBuilder {
 public:
  LocalCoefficientBuilder(const TransformProblem& problem, bool quotient) : problem_(problem), quotient_(quotient) {}

  Program build() {
    if (problem_.directions.empty()) throw std::invalid_argument("direction: at least one transform is needed");
    validate(problem_.shape);
    declare();
    reserve_messages();
    std::uint32_t global = 0;
    for (std::size_t t = 0; t < problem_.directions.size(); ++t)
      for (std::size_t st = 0; st < 3; ++st)
        for (int step = 0; step < steps_of(forms_of(problem_.directions[t])[st]); ++step) emit_step(t, st, step, global++);
    declare_outputs();
    program_.shrink_to_fit();
    return std::move(program_);
  }

 private:
  const TorusShape& shape() const { return problem_.shape; }
  std::size_t node_count() const { return quotient_ ? 1 : shape().node_count(); }
  // The messages and their hops exactly: the pooled lists would otherwise grow by doubling and
  // hold up to three times their size while they move.
  void reserve_messages() {
    std::size_t messages = 0, hops = 0;
    for (const TransformDirection d : problem_.directions)
      for (const LocalStageForm& f : forms_of(d)) {
        if (!rolls(f)) continue;
        const Axis axis = axis_of_mode(f.mode);
        const Direction direction = direction_along(axis, problem_.alpha.along(axis));
        const std::size_t per_step = quotient_ ? node_count() : ring_roll_hops(shape(), direction);
        messages += node_count() * static_cast<std::size_t>(steps_of(f));
        hops += per_step * static_cast<std::size_t>(steps_of(f));
      }
    program_.messages.reserve(messages);
    program_.routes.reserve(hops);
  }

  int steps_of(const LocalStageForm& f) const { return shape().extent(axis_of_mode(f.mode)); }
  bool rolls(const LocalStageForm& f) const { return steps_of(f) > 1; }  // P_A = 1: the block stays

  // The block of `kind` that `node` works on at `step` of a stage of form `f`: its own
  // coordinates, with the label j along the stage's mode when the block moves.
  DataTag tag(const LocalStageForm& f, BlockKind kind, const NodeCoord& node, int step) const {
    if (quotient_) return {static_cast<std::uint16_t>(kind), {0, 0, 0}};
    std::array<std::int32_t, 3> index{node.q, node.r, node.s};
    if (kind == moving_kind(f)) index[static_cast<std::size_t>(f.mode - 1)] = label(f, node, step);
    return {static_cast<std::uint16_t>(kind), index};
  }
  int label(const LocalStageForm& f, const NodeCoord& node, int step) const {
    const Axis axis = axis_of_mode(f.mode);
    const int p = shape().extent(axis);
    return ((node[axis] - problem_.alpha.along(axis) * step) % p + p) % p;
  }
  std::uint32_t buffer_id(BlockKind kind, int which) const {
    return which == 0 ? static_cast<std::uint32_t>(kind) : second_[static_cast<std::size_t>(kind)];
  }
  std::uint32_t current(BlockKind kind) const { return buffer_id(kind, which_[static_cast<std::size_t>(kind)]); }

  void declare() {
    program_.algorithm = "orbital_local_coefficients";
    program_.byte_budget = problem_.max_program_bytes;
    program_.shape = shape();
    program_.grid = problem_.grid;
    program_.translation_quotient = quotient_;
    program_.coefficients_local = true;
    std::string dirs;
    for (const TransformDirection d : problem_.directions) {
      program_.transforms.push_back(to_string(d));
      dirs += (dirs.empty() ? "" : "+") + to_string(d);
    }
    program_.description = "orbital schedule with local coefficients, N=" + extents_text(problem_.grid.tensor_extents()) +
                           " P=" + std::to_string(shape().p1) + "x" + std::to_string(shape().p2) + "x" +
                           std::to_string(shape().p3) + " b=" + problem_.grid.describe_blocks() +
                           " alpha=" + problem_.alpha.to_string() + ", " + dirs + (quotient_ ? ", translation quotient" : "");
    for (std::size_t k = 0; k < block_kind_count; ++k) {
      const auto kind = static_cast<BlockKind>(k);
      program_.tag_kinds.push_back({to_string(kind), is_coefficient(kind) ? 2 : 3, axis_of(kind), {}});
    }
    program_.host_arrays.push_back({"input", false, 0, 0, {}, 0, false});
    for (std::size_t t = 0; t < problem_.directions.size(); ++t)
      for (int axis = 1; axis <= 3; ++axis)
        program_.host_arrays.push_back({to_string(problem_.directions[t]) + (t == 0 ? " C" : " D") + std::to_string(axis), true,
                                        axis, t, {}, 0, false});
    // One buffer per kind at its largest block (a coefficient buffer holds the block generated
    // for the step), and a second one for each kind that rolls: the next block arrives there.
    std::vector<BufferSpec> buffers;
    for (std::size_t k = 0; k < block_kind_count; ++k)
      buffers.push_back({static_cast<std::uint32_t>(largest_words_in(static_cast<BlockKind>(k), problem_.grid)),
                         static_cast<std::uint16_t>(k)});
    second_.fill(no_buffer);
    for (const TransformDirection d : problem_.directions)
      for (const LocalStageForm& f : forms_of(d)) {
        const auto k = static_cast<std::size_t>(moving_kind(f));
        if (!rolls(f) || second_[k] != no_buffer) continue;
        second_[k] = static_cast<std::uint32_t>(buffers.size());
        buffers.push_back(buffers[k]);
      }
    program_.nodes.assign(node_count(), NodeProgram{buffers, {}, {}, {}});
    for (std::size_t t = 0; t < problem_.directions.size(); ++t)
      for (std::size_t st = 0; st < 3; ++st) {
        const LocalStageForm& f = forms_of(problem_.directions[t])[st];
        program_.stages.push_back({static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(st + 1), f.mode, f.summary,
                                   static_cast<std::uint32_t>(steps_of(f))});
      }
  }

  void emit_step(std::size_t t, std::size_t st, int step, std::uint32_t global) {
    const LocalStageForm& f = forms_of(problem_.directions[t])[st];
    const TaskLabel label{static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(st + 1), static_cast<std::uint32_t>(step),
                          global};
    const std::size_t count = node_count();
    // The moving block leaves for the +a neighbour after the compute; the neighbour's receive
    // (into the kind's other buffer) is posted before its own compute: the next block may
    // arrive while this one is used.
    std::vector<std::vector<Task>> receives(count), sends(count);
    const BlockKind moving = moving_kind(f);
    if (rolls(f)) {
      const Axis axis = axis_of_mode(f.mode);
      const Direction direction = direction_along(axis, problem_.alpha.along(axis));
      for (std::size_t n = 0; n < count; ++n) {
        const NodeCoord node = shape().coord_of(n);
        const std::size_t to = quotient_ ? n : shape().index_of(shape().ring_neighbour(node, direction));
        const DataTag carried = tag(f, moving, node, step);
        // On a mesh axis the roll across the edge goes the long way round (sim/geometry.hpp).
        const std::vector<Direction> route = quotient_ ? std::vector<Direction>{direction} : ring_route(shape(), node, direction);
        const std::uint32_t message = program_.add_message(n, to, route, program_.words_of(carried), carried);
        Task send = make_task(TaskKind::Send, label);
        send.buffer = current(moving);
        send.message = message;
        sends[n].push_back(send);
        Task receive = make_task(TaskKind::Receive, label);
        receive.buffer = buffer_id(moving, which_[static_cast<std::size_t>(moving)] ^ 1);
        receive.message = message;
        receives[to].push_back(receive);
      }
    }
    for (std::size_t n = 0; n < count; ++n) {
      const NodeCoord node = shape().coord_of(n);
      NodeProgram& into = program_.nodes[n];
      std::vector<Task>& tasks = into.tasks;
      if (t == 0 && st == 0 && step == 0) load(into, label, f.operand, 0, tag(f, f.operand, node, 0));
      tasks.insert(tasks.end(), receives[n].begin(), receives[n].end());
      const DataTag acc = tag(f, f.accumulator, node, step), operand = tag(f, f.operand, node, step);
      const auto m = static_cast<std::size_t>(f.mode - 1);
      // Generated from the node's table for this step: a load, no link traffic.
      const DataTag coefficient{static_cast<std::uint16_t>(coefficient_kind(f.mode)), {operand.index[m], acc.index[m], 0}};
      load(into, label, coefficient_kind(f.mode), static_cast<std::uint16_t>(1 + 3 * t + m), coefficient);
      compute(into, label, f, acc, operand, coefficient, step == 0);
      tasks.insert(tasks.end(), sends[n].begin(), sends[n].end());
    }
    if (rolls(f)) which_[static_cast<std::size_t>(moving)] ^= 1;
  }

  void load(NodeProgram& node, const TaskLabel& label, BlockKind kind, std::uint16_t array, const DataTag& block) {
    Task task = make_task(TaskKind::Load, label);
    task.buffer = current(kind);
    TaskDetail d;
    d.tag = block;
    d.source = {array, block.index};
    if (quotient_) d.source.index = {0, 0, 0};
    node.add(task, d);
  }

  void compute(NodeProgram& node, const TaskLabel& label, const LocalStageForm& f, const DataTag& acc, const DataTag& operand,
               const DataTag& coefficient, bool zero) {
    Task task = make_task(TaskKind::Compute, label);
    task.buffer = current(f.accumulator);
    task.zero_accumulator = zero;
    TaskDetail d;
    d.operand = current(f.operand);
    d.coefficient = current(coefficient_kind(f.mode));
    d.tag = acc;
    d.operand_tag = operand;
    d.coefficient_tag = coefficient;
    d.kernel = program_.kernel_for(f.mode, program_.extents_of(acc), program_.extents_of(operand));
    node.add(task, d);
  }

  // Canonical layouts: node (Q,R,S) holds block (Q,R,S) of each transform's output and, for the
  // last transform, of its stage I and II results (which later stages only read).
  void declare_outputs() {
    const auto add = [&](const std::string& name, std::size_t t, std::uint32_t stage, BlockKind kind) {
      ProgramOutput out{name, static_cast<std::uint32_t>(t), stage, {}, {}, {}};
      for (std::size_t n = 0; n < node_count(); ++n) {
        const NodeCoord c = shape().coord_of(n);
        out.buffer.push_back(current(kind));
        out.tag.push_back({static_cast<std::uint16_t>(kind), quotient_ ? std::array<std::int32_t, 3>{0, 0, 0}
                                                                       : std::array<std::int32_t, 3>{c.q, c.r, c.s}});
      }
      program_.outputs.push_back(std::move(out));
    };
    for (std::size_t t = 0; t < problem_.directions.size(); ++t)
      add(to_string(problem_.directions[t]), t, 3, forms_of(problem_.directions[t])[2].accumulator);
    const std::size_t last = problem_.directions.size() - 1;
    const auto& forms = forms_of(problem_.directions[last]);
    add(to_string(problem_.directions[last]) + " stage I", last, 1, forms[0].accumulator);
    add(to_string(problem_.directions[last]) + " stage II", last, 2, forms[1].accumulator);
  }

  const TransformProblem& problem_;
  bool quotient_ = false;
  Program program_;
  std::array<std::uint32_t, block_kind_count> second_{};
  std::array<int, block_kind_count> which_{};
};

// The algorithm's own proofs, read off its Program: each stage has P_A steps of one block
// multiply-add per node; every (accumulator block, reduction block) pair exactly once, with
// blocks that fit the mode; every rolled block home at the stage's end; outputs canonical.
class LocalCoefficientsProof {
 public:
  explicit LocalCoefficientsProof(const Program& program) : p_(program) {}

  AlgorithmCheck run() {
    for (const StageInfo& stage : p_.stages) check_stage(stage);
    for (const ProgramOutput& output : p_.outputs)
      for (std::size_t n = 0; n < output.tag.size(); ++n) {
        const NodeCoord c = p_.shape.coord_of(n);
        if (output.tag[n].index != std::array<std::int32_t, 3>{c.q, c.r, c.s})
          fail(output.name + ": node " + to_string(c) + " ends with " + p_.describe(output.tag[n]) + ", not its own block");
      }
    return std::move(out_);
  }

 private:
  void fail(const std::string& what) { out_.add(what); }

  void check_stage(const StageInfo& stage) {
    const std::string name = p_.transforms[stage.transform] + " stage " + std::to_string(stage.stage);
    const auto m = static_cast<std::size_t>(stage.mode - 1);
    std::set<std::uint32_t> steps;
    std::map<std::array<std::int32_t, 4>, int> done;  // (accumulator block, reduction block)
    for (std::size_t n = 0; n < p_.nodes.size(); ++n) {
      std::map<std::uint32_t, int> computes;  // per step
      std::map<std::uint16_t, DataTag> first, last_in;  // per moving kind: used at step 0, received last
      for (const Task& task : p_.nodes[n].tasks) {
        if (task.label.transform != stage.transform || task.label.stage != stage.stage) continue;
        steps.insert(task.label.global_step);
        if (task.kind == TaskKind::Receive) last_in[p_.messages[task.message].tag.kind] = p_.messages[task.message].tag;
        if (task.kind != TaskKind::Compute) continue;
        ++computes[task.label.global_step];
        const TaskDetail& t = p_.nodes[n].detail(task);
        if (task.label.step == 0)
          for (const DataTag* block : {&t.tag, &t.operand_tag}) first[block->kind] = *block;
        check_form(name, t, m);
        if (++done[{t.tag.index[0], t.tag.index[1], t.tag.index[2], t.operand_tag.index[m]}] > 1)
          fail(name + ": " + p_.describe(t.tag) + " gets reduction block " + std::to_string(t.operand_tag.index[m]) + " twice");
        coverage_[{t.tag.index[0], t.tag.index[1], t.tag.index[2]}].insert(t.operand_tag.index[m]);
      }
      for (const auto& [step, count] : computes)
        if (count != 1) fail(name + ": node " + p_.describe_node(n) + " does " + std::to_string(count) + " multiply-adds in a step");
      for (const auto& [kind, tag] : last_in)
        if (first.count(kind) && first[kind] != tag)
          fail(name + ": node " + p_.describe_node(n) + " ends the stage with " + p_.describe(tag) + ", not its " +
               p_.describe(first[kind]));
    }
    if (steps.size() != stage.steps) fail(name + ": " + std::to_string(steps.size()) + " steps; P_A = " + std::to_string(stage.steps));
    const std::size_t reductions = p_.grid.axis[m].parts;
    if (coverage_.size() != p_.shape.node_count()) fail(name + ": " + std::to_string(coverage_.size()) + " accumulator blocks");
    for (const auto& [block, reduced] : coverage_)
      if (reduced.size() != reductions)
        fail(name + ": an accumulator block gets " + std::to_string(reduced.size()) + " of " + std::to_string(reductions) +
             " reduction blocks");
    coverage_.clear();
  }

  // acc(.., k_m, ..) += operand(.., n_m, ..) x_m C_m(n_m, k_m): the blocks fit together.
  void check_form(const std::string& name, const TaskDetail& t, std::size_t m) {
    bool ok = p_.tag_kinds[t.coefficient_tag.kind].axis == static_cast<int>(m + 1) &&
              t.coefficient_tag.index[0] == t.operand_tag.index[m] && t.coefficient_tag.index[1] == t.tag.index[m];
    for (std::size_t a = 0; a < 3; ++a) ok = ok && (a == m || t.tag.index[a] == t.operand_tag.index[a]);
    if (!ok)
      fail(name + ": " + p_.describe(t.tag) + " += " + p_.describe(t.operand_tag) + " x" + std::to_string(m + 1) + " " +
           p_.describe(t.coefficient_tag) + " does not fit");
  }

  const Program& p_;
  AlgorithmCheck out_;
  std::map<std::array<std::int32_t, 3>, std::set<std::int32_t>> coverage_;  // accumulator block: its reduction blocks
};

class OrbitalLocalCoefficients final : public Algorithm {
 public:
  std::string name() const override { return "orbital_local_coefficients"; }
  Program build(const TransformProblem& problem) const override { return LocalCoefficientBuilder(problem, false).build(); }
  bool translation_invariant(const TransformProblem& problem) const override {
    return problem.grid.even() && problem.shape.torus();
  }
  Program build_quotient(const TransformProblem& problem) const override {
    return LocalCoefficientBuilder(problem, true).build();
  }
  AlgorithmCheck check(const TransformProblem& problem) const override { return LocalCoefficientsProof(build(problem)).run(); }
  bool coefficients_local() const override { return true; }
};

}  // namespace

std::unique_ptr<Algorithm> make_orbital_local_coefficients() { return std::make_unique<OrbitalLocalCoefficients>(); }

AlgorithmCheck prove_local_coefficients(const Program& program) { return LocalCoefficientsProof(program).run(); }

}  // namespace torus
