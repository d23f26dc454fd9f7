// Systolic matrix multiplication with C stationary on an Nr x Nc array (Mathur and Johnsson,
// "Multiplication of matrices of arbitrary shape on a data parallel computer", section 4.2 and
// the appendix). With g = gcd(Nr, Nc) and L = lcm(Nr, Nc) = Nr Nc / g, the inner axis k is cut
// into L blocks v (the first k mod L one element larger). Node (l, m) keeps C(l, m) and, at
// step s = 0..L-1, adds A(l, v) B(v, m) with
//     v = (start(l, m) + s) mod L,   start(l, m) = (ra m + rb l) mod L,   ra = Nr / g, rb = Nc / g.
// So the node holds a window of ra consecutive blocks of A (window w = s div ra holds
// start + ra w .. start + ra w + ra - 1) and one of rb blocks of B. Window w + 1 of node (l, m)
// is window w of node (l, m + 1), since start(l, m + 1) = start(l, m) + ra: once its last block
// is used, the window goes one hop to (l, m - 1), so A shifts Nc - 1 times in L steps (the
// Nc-th shift would only bring it home); B likewise goes to (l - 1, m), Nr - 1 times. Every row's windows start at the same residue mod ra (and
// every column's at the same residue mod rb), so the shifts of a row (column) stay in step.
// The alignment first brings block v of row l from its home, node (l, v div ra), to the node
// whose window holds it, (x div ra) with x = (v - rb l) mod L, by messages along +R through the
// routers (B: from (v div rb, m) along +Q), relayed by the ring's last node when they would
// cross the wrap-around link (a dateline). Alignments go along +R / +Q and shifts along -R / -Q,
// so the two never share a link: a shift that waits at a node for its receive can never hold up
// an alignment message behind it; and every alignment message ends in a receive posted before
// the first block product, so none waits for a receive.

#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "sim/algorithms/factories.hpp"
#include "sim/algorithms/matmul_tasks.hpp"
#include "sim/matmul.hpp"

namespace torus {
namespace {

struct Operand {
  std::uint16_t kind;   // matmul_a or matmul_b
  Axis axis;            // the axis its shifts and alignment run along
  std::size_t window;   // blocks per window: ra for A, rb for B
  std::size_t windows;  // windows per run: Nc for A, Nr for B
};

struct NodeBuffers {
  std::uint32_t c = 0;
  std::array<std::array<std::vector<std::uint32_t>, 2>, 3> sets;  // per tag kind: two window sets
};

// A block the last node of a ring passes on across the wrap-around link.
struct Relay {
  std::size_t at;         // the relaying node
  std::uint32_t message;  // the message that brings it there
  std::size_t to, position;
};

class SystolicBuilder {
 public:
  explicit SystolicBuilder(const MatmulProblem& problem)
      : q_(problem),
        g_(static_cast<std::size_t>(std::gcd(problem.rows(), problem.columns()))),
        rows_(static_cast<std::size_t>(problem.rows())),
        columns_(static_cast<std::size_t>(problem.columns())),
        l_(rows_ * columns_ / g_),
        a_{matmul_a, Axis::R, rows_ / g_, columns_},
        b_{matmul_b, Axis::Q, columns_ / g_, rows_} {}

  Program build() {
    p_ = matmul_skeleton(q_, l_, "systolic");
    p_.stages = {{0, 1, 3, fmt::format("C(l,m) += A(l,v) x3 B(v,m), v = ({} m + {} l + s) mod {}", a_.window, b_.window, l_),
                  static_cast<std::uint32_t>(l_)}};
    declare_buffers();
    for (const Operand& op : {a_, b_})
      for (std::size_t node = 0; node < p_.nodes.size(); ++node) send_home_blocks(op, node);
    for (std::size_t node = 0; node < p_.nodes.size(); ++node) relay(node);
    for (const Operand& op : {a_, b_})
      for (std::size_t node = 0; node < p_.nodes.size(); ++node) receive_aligned(op, node);
    for (std::size_t s = 0; s < l_; ++s)
      for (std::size_t node = 0; node < p_.nodes.size(); ++node) step(node, s);
    return std::move(p_);
  }

 private:
  // ---- index algebra ----
  int row(std::size_t node) const { return p_.shape.coord_of(node).q; }
  int column(std::size_t node) const { return p_.shape.coord_of(node).r; }
  std::size_t start(std::size_t node) const {
    return (a_.window * static_cast<std::size_t>(column(node)) + b_.window * static_cast<std::size_t>(row(node))) % l_;
  }
  // The inner block of window w, position i, of node `node` for `op`.
  std::size_t block(const Operand& op, std::size_t node, std::size_t w, std::size_t i) const {
    return (start(node) + op.window * w + i) % l_;
  }
  DataTag tag(const Operand& op, std::size_t node, std::size_t v) const {
    const auto inner = static_cast<std::int32_t>(v);
    if (op.kind == matmul_a) return {matmul_a, {row(node), 0, inner}};
    return {matmul_b, {inner, column(node), 0}};
  }
  // The node `steps` nodes on from `node` along op's axis (negative: back), on the ring.
  std::size_t along(const Operand& op, std::size_t node, std::ptrdiff_t steps) const {
    NodeCoord c = p_.shape.coord_of(node);
    const auto extent = static_cast<std::ptrdiff_t>(op.windows);
    c[op.axis] = static_cast<int>(((c[op.axis] + steps) % extent + extent) % extent);
    return p_.shape.index_of(c);
  }
  // Where block v of op (at home in the ring of `node`) is after the alignment: node, position.
  std::pair<std::size_t, std::size_t> aligned(const Operand& op, std::size_t node, std::size_t v) const {
    const std::size_t other = op.kind == matmul_a ? b_.window * static_cast<std::size_t>(row(node))
                                                  : a_.window * static_cast<std::size_t>(column(node));
    const std::size_t x = (v + l_ - other % l_) % l_;
    NodeCoord c = p_.shape.coord_of(node);
    c[op.axis] = static_cast<int>(x / op.window);
    return {p_.shape.index_of(c), x % op.window};
  }

  // ---- buffers ----
  std::uint32_t add_buffer(std::size_t node, std::uint16_t kind) { return matmul_tasks::add_buffer(p_, node, kind); }
  void hold(std::size_t node, std::uint32_t buffer, const DataTag& t) { matmul_tasks::hold(p_, node, buffer, t); }
  void declare_buffers() {
    buffers_.resize(p_.nodes.size());
    for (std::size_t node = 0; node < p_.nodes.size(); ++node) {
      NodeBuffers& nb = buffers_[node];
      nb.c = add_buffer(node, matmul_c);
      hold(node, nb.c, {matmul_c, {row(node), 0, column(node)}});
      for (const Operand& op : {a_, b_})
        for (std::size_t set = 0; set < (op.windows > 1 ? 2u : 1u); ++set)
          for (std::size_t i = 0; i < op.window; ++i) nb.sets[op.kind][set].push_back(add_buffer(node, op.kind));
    }
  }
  std::uint32_t window_buffer(const Operand& op, std::size_t node, std::size_t w, std::size_t i) const {
    return buffers_[node].sets[op.kind][w % 2][i];
  }

  // ---- tasks ----
  static TaskLabel label(std::size_t s) {
    return {0, 1, static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(s)};
  }
  void load(std::size_t node, std::uint32_t buffer, const DataTag& t) { matmul_tasks::load(p_, node, buffer, t, label(0)); }
  std::uint32_t message(std::size_t from, std::size_t to, std::vector<Direction> route, const DataTag& t) {
    return matmul_tasks::message(p_, from, to, std::move(route), t);
  }
  void send(std::size_t node, std::uint32_t buffer, std::uint32_t id, std::size_t s) {
    matmul_tasks::transfer(p_, TaskKind::Send, node, buffer, id, label(s));
  }
  void receive(std::size_t node, std::uint32_t buffer, std::uint32_t id, std::size_t s) {
    matmul_tasks::transfer(p_, TaskKind::Receive, node, buffer, id, label(s));
  }

  // Alignment, at the source: a home block that stays is loaded where its window needs it;
  // one that moves is loaded into a buffer of its own and sent along +axis. A route that would
  // cross the wrap-around link from the last node of the ring to the first ends at the last
  // node, which passes the block on (a dateline: no alignment message holds a link while it
  // waits for one further round the ring, so the rotation cannot deadlock however small the
  // link buffers).
  void send_home_blocks(const Operand& op, std::size_t node) {
    const NodeCoord at = p_.shape.coord_of(node);
    const int extent = static_cast<int>(op.windows);
    for (std::size_t i = 0; i < op.window; ++i) {
      const std::size_t v = static_cast<std::size_t>(at[op.axis]) * op.window + i;
      const DataTag t = tag(op, node, v);
      const auto [to, position] = aligned(op, node, v);
      if (to == node) {
        load(node, window_buffer(op, node, 0, position), t);
        continue;
      }
      const std::uint32_t buffer = add_buffer(node, op.kind);
      load(node, buffer, t);
      const int hops = (p_.shape.coord_of(to)[op.axis] - at[op.axis] + extent) % extent;
      const bool wraps = at[op.axis] + hops >= extent && at[op.axis] != extent - 1;
      const std::size_t first_stop = wraps ? along(op, node, extent - 1 - at[op.axis]) : to;
      const std::uint32_t id = message(node, first_stop, route(op, wraps ? extent - 1 - at[op.axis] : hops), t);
      if (wraps) relays_.push_back({first_stop, id, to, position});
      else alignment_[{to, op.kind, position}] = id;
      send(node, buffer, id, 0);
    }
  }
  // At the last node of a ring: receive each block whose route crosses the wrap-around link and
  // send it on, across that link, to the node whose window holds it.
  void relay(std::size_t node) {
    for (const Relay& r : relays_) {
      if (r.at != node) continue;
      const DataTag t = p_.messages[r.message].tag;
      const Operand& op = t.kind == matmul_a ? a_ : b_;
      const std::uint32_t buffer = add_buffer(node, op.kind);
      receive(node, buffer, r.message, 0);
      const int hops = p_.shape.coord_of(r.to)[op.axis] + 1;
      const std::uint32_t id = message(node, r.to, route(op, hops), t);
      alignment_[{r.to, op.kind, r.position}] = id;
      send(node, buffer, id, 0);
    }
  }
  static std::vector<Direction> route(const Operand& op, int hops) {
    return std::vector<Direction>(static_cast<std::size_t>(hops), direction_along(op.axis, 1));
  }
  void receive_aligned(const Operand& op, std::size_t node) {
    for (std::size_t i = 0; i < op.window; ++i) {
      const auto found = alignment_.find({node, op.kind, i});
      if (found != alignment_.end()) receive(node, window_buffer(op, node, 0, i), found->second, 0);
    }
  }

  // The shift of op's block at window w, position i, from `from` to its -axis neighbour.
  std::uint32_t shift_message(const Operand& op, std::size_t from, std::size_t w, std::size_t i) {
    const auto key = std::make_tuple(from, op.kind, w * op.window + i);
    const auto found = shifts_.find(key);
    if (found != shifts_.end()) return found->second;
    const std::size_t to = along(op, from, -1);
    const std::uint32_t id = message(from, to, ring_route(p_.shape, p_.shape.coord_of(from), direction_along(op.axis, -1)),
                                     tag(op, from, block(op, from, w, i)));
    shifts_[key] = id;
    return id;
  }

  // Step s: the receives of the next window when a window begins, the block product, and,
  // when a window ends (unless it is the last), its shift: all its blocks, as the paper moves
  // an entire submatrix once every operation needing it is done.
  void step(std::size_t node, std::size_t s) {
    for (const Operand& op : {a_, b_}) {
      const std::size_t w = s / op.window;
      if (s % op.window != 0 || w + 1 >= op.windows) continue;
      for (std::size_t i = 0; i < op.window; ++i)
        receive(node, window_buffer(op, node, w + 1, i), shift_message(op, along(op, node, 1), w, i), s);
    }
    const std::size_t v = block(a_, node, 0, s);
    const DataTag a = tag(a_, node, v), b = tag(b_, node, v);
    matmul_tasks::product(p_, node, label(s), buffers_[node].c, {matmul_c, {row(node), 0, column(node)}},
                          window_buffer(a_, node, s / a_.window, s % a_.window), a,
                          window_buffer(b_, node, s / b_.window, s % b_.window), b, s == 0);
    for (const Operand& op : {a_, b_}) {
      const std::size_t w = s / op.window;
      if (s % op.window + 1 != op.window || w + 1 >= op.windows) continue;
      for (std::size_t i = 0; i < op.window; ++i) send(node, window_buffer(op, node, w, i), shift_message(op, node, w, i), s);
    }
  }

  const MatmulProblem& q_;
  std::size_t g_, rows_, columns_, l_;
  Operand a_, b_;
  Program p_;
  std::vector<NodeBuffers> buffers_;
  std::map<std::tuple<std::size_t, std::uint16_t, std::size_t>, std::uint32_t> alignment_;  // (node, kind, position)
  std::vector<Relay> relays_;
  std::map<std::tuple<std::size_t, std::uint16_t, std::size_t>, std::uint32_t> shifts_;     // (sender, kind, window slot)
};

class Systolic final : public MatmulAlgorithm {
 public:
  std::string name() const override { return "systolic"; }
  Program build(const MatmulProblem& problem) const override {
    require(problem);
    return SystolicBuilder(problem).build();
  }
  AlgorithmCheck check(const MatmulProblem& problem) const override { return prove_block_products(build(problem)); }

  // Every node holds at least one row of A and C, one column of B and C, and one inner index
  // per step; alignments and shifts run on rings (the wrap-around links of Q and R).
  void require(const MatmulProblem& problem) const override {
    const auto steps = static_cast<std::size_t>(std::lcm(problem.rows(), problem.columns()));
    require_on_array(problem, "systolic", steps, fmt::format("lcm(Nr, Nc) = {} (one inner index per step)", steps),
                     "the shifts and alignments run on rings");
  }
};

}  // namespace

std::unique_ptr<MatmulAlgorithm> make_systolic() { return std::make_unique<Systolic>(); }

}  // namespace torus
