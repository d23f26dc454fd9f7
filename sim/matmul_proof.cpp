// prove_partial_sums: a symbolic run of a matmul Program over the sums each buffer of C holds.

#include <algorithm>

#include <fmt/format.h>

#include "sim/matmul.hpp"

namespace torus {
namespace {

// Which C block a buffer sums and how often each inner block v is in the sum.
struct Sum {
  DataTag block;
  std::vector<int> uses;
  bool known = false;
};

class PartialSums {
 public:
  explicit PartialSums(const Program& p)
      : p_(p), parts_(p.tag_kinds.at(matmul_a).cut->axis[2].parts), messages_(p.messages.size()),
        sent_(p.messages.size(), false) {
    for (const NodeProgram& node : p.nodes) {
      buffers_.emplace_back(node.buffers.size());
      pending_.emplace_back(node.buffers.size(), none);
    }
    pc_.assign(p.nodes.size(), 0);
  }

  AlgorithmCheck run() {
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t n = 0; n < p_.nodes.size(); ++n)
        while (pc_[n] < p_.nodes[n].tasks.size() && step(n, p_.nodes[n].tasks[pc_[n]])) {
          ++pc_[n];
          progress = true;
        }
    }
    for (std::size_t n = 0; n < p_.nodes.size(); ++n) {
      if (pc_[n] < p_.nodes[n].tasks.size())
        fail(fmt::format("node {}: task {} waits for a message never sent", p_.describe_node(n), pc_[n]));
      check_output(n);
    }
    return check_;
  }

 private:
  static constexpr std::uint32_t none = ~std::uint32_t{0};

  void fail(std::string text) {
    if (check_.violations.size() < 8) check_.violations.push_back(std::move(text));
    ++check_.violation_count;
  }

  // A buffer a task touches: false while its posted receive waits for a message not yet sent.
  bool ready(std::size_t n, std::uint32_t b) {
    if (b >= pending_[n].size() || pending_[n][b] == none) return true;
    if (!sent_[pending_[n][b]]) return false;
    buffers_[n][b] = messages_[pending_[n][b]];
    pending_[n][b] = none;
    return true;
  }

  bool step(std::size_t n, const Task& t) {
    const bool compute = t.kind == TaskKind::Compute;
    const TaskDetail* d = compute ? &p_.nodes[n].detail(t) : nullptr;
    for (const std::uint32_t b : {t.buffer, compute ? d->operand : no_buffer, compute ? d->coefficient : no_buffer})
      if (b != no_buffer && !ready(n, b)) return false;
    switch (t.kind) {
      case TaskKind::Load: buffers_[n][t.buffer] = Sum{}; break;
      case TaskKind::Send:
        messages_[t.message] = buffers_[n][t.buffer];
        sent_[t.message] = true;
        break;
      case TaskKind::Receive:
        if (t.buffer != no_buffer) pending_[n][t.buffer] = t.message;
        break;
      case TaskKind::Compute:
        if (d->coefficient_tag.kind == matmul_one) add(n, t, *d);
        else product(n, t, *d);
        break;
      case TaskKind::Fft:
        fail(fmt::format("node {}: an FFT task has no place in a matrix product", p_.describe_node(n)));
        break;
    }
    return true;
  }

  Sum& accumulator(std::size_t n, const Task& task, const TaskDetail& t) {
    Sum& acc = buffers_[n][task.buffer];
    if (task.zero_accumulator) acc = {t.tag, std::vector<int>(parts_, 0), true};
    if (!acc.known || acc.block != t.tag) {
      fail(fmt::format("node {}: adds into {}, which does not hold a sum of that block", p_.describe_node(n), p_.describe(t.tag)));
      acc = {t.tag, std::vector<int>(parts_, 0), true};
    }
    return acc;
  }

  void product(std::size_t n, const Task& task, const TaskDetail& t) {
    Sum& acc = accumulator(n, task, t);
    const DataTag &a = t.operand_tag, &b = t.coefficient_tag;
    const bool fits = t.tag.kind == matmul_c && a.kind == matmul_a && b.kind == matmul_b && a.index[0] == t.tag.index[0] &&
                      b.index[1] == t.tag.index[2] && a.index[2] == b.index[0] && a.index[2] >= 0 &&
                      static_cast<std::size_t>(a.index[2]) < parts_;
    if (!fits) {
      fail(fmt::format("node {}: computes {} += {} x {}; it must be C(i,0,j) += A(i,0,v) x B(v,j)", p_.describe_node(n),
                       p_.describe(t.tag), p_.describe(a), p_.describe(b)));
      return;
    }
    ++acc.uses[static_cast<std::size_t>(a.index[2])];
  }

  void add(std::size_t n, const Task& task, const TaskDetail& t) {
    Sum& acc = accumulator(n, task, t);
    const Sum& x = buffers_[n][t.operand];
    if (!x.known || x.block != t.tag) {
      fail(fmt::format("node {}: adds to {} a buffer that does not sum that block", p_.describe_node(n), p_.describe(t.tag)));
      return;
    }
    for (std::size_t v = 0; v < parts_; ++v) acc.uses[v] += x.uses[v];
  }

  void check_output(std::size_t n) {
    const ProgramOutput& out = *p_.output(matmul_output);
    const Sum& c = buffers_[n][out.buffer[n]];
    if (!c.known || c.block != out.tag[n]) {
      fail(fmt::format("node {}: its output does not sum {}", p_.describe_node(n), p_.describe(out.tag[n])));
      return;
    }
    for (std::size_t v = 0; v < parts_; ++v)
      if (c.uses[v] != 1)
        fail(fmt::format("node {}: {} sums the product with inner block {} {} times; once is right", p_.describe_node(n),
                         p_.describe(out.tag[n]), v, c.uses[v]));
  }

  const Program& p_;
  std::size_t parts_;
  std::vector<std::vector<Sum>> buffers_;
  std::vector<std::vector<std::uint32_t>> pending_;
  std::vector<Sum> messages_;
  std::vector<bool> sent_;
  std::vector<std::size_t> pc_;
  AlgorithmCheck check_;
};

}  // namespace

AlgorithmCheck prove_partial_sums(const Program& program) { return PartialSums(program).run(); }

}  // namespace torus
