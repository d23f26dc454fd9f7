// The Program of the ring algorithms: see sim/algorithms/ring_matmul.hpp for the schedule.

#include "sim/algorithms/ring_matmul.hpp"

#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

namespace torus {

namespace {

// The direction of the link from `from` to its neighbour `to` (the wrap-around link only
// where the two are at the ends of an axis longer than 2).
Direction link_between(const TorusShape& shape, const NodeCoord& from, const NodeCoord& to) {
  for (const Axis axis : {Axis::Q, Axis::R}) {
    const int d = to[axis] - from[axis];
    if (d == 0) continue;
    const bool forward = d == 1 || d == 1 - shape.extent(axis);
    return direction_along(axis, forward ? 1 : -1);
  }
  throw std::logic_error("ring positions that are not neighbours");
}

class RingBuilder {
 public:
  RingBuilder(const MatmulProblem& q, const RingPlan& plan, const std::string& algorithm)
      : q_(q), p_count_(q.shape.node_count()), k_(plan.stride), kt_(p_count_ / plan.stride), plane_(plan.plane),
        algorithm_(algorithm) {
    if (plane_)
      for (std::size_t x = 0; x < p_count_; ++x) nodes_.push_back(x);
    else
      for (const NodeCoord& c : hamiltonian_ring(q.rows(), q.columns())) nodes_.push_back(q.shape.index_of(c));
    position_.resize(p_count_);
    for (std::size_t x = 0; x < p_count_; ++x) position_[nodes_[x]] = x;
  }

  Program build() {
    MatmulLayout layout{1, p_count_, p_count_, [this](std::size_t node) {
                          return std::array<std::int32_t, 2>{0, static_cast<std::int32_t>(position_[node])};
                        }, k_ > 1};
    p_ = matmul_skeleton(q_, layout, algorithm_);
    p_.description += fmt::format(", K = {}, K~ = {}, {} mapping", k_, kt_, plane_ ? "plane" : "ring");
    p_.stages = {{0, 1, 3, fmt::format("C^l(x - l) += A(x + {} r) x3 B(x + {} r, x - l), l < {}, r < {}", k_, k_, k_, kt_),
                  static_cast<std::uint32_t>(p_count_)}};
    if (k_ > 1) p_.stages.push_back({0, 2, 2, "back-shift: C^(l-1) += C^l from x + 1", static_cast<std::uint32_t>(k_ - 1)});
    buffers_.resize(p_count_);
    for (std::size_t x = 0; x < p_count_; ++x) declare(x);
    relays_.resize(kt_);
    for (std::size_t r = 0; r + 1 < kt_; ++r)
      for (std::size_t x = 0; x < p_count_; ++x)
        moves_[{r + 1, x, 0}] = chain(x, -1, plane_, plane_ ? 1 : k_, a_tag(step(x, 0, static_cast<std::ptrdiff_t>(r))), r + 1);
    for (std::size_t x = 0; x < p_count_; ++x) pre_shift_out(x);
    for (std::size_t x = 0; x < p_count_; ++x) pre_shift_in(x);
    for (std::size_t r = 0; r < kt_; ++r)
      for (std::size_t x = 0; x < p_count_; ++x) round(x, r);
    for (std::size_t t = k_ - 1; t >= 1; --t)
      for (std::size_t x = 0; x < p_count_; ++x) back_shift(x, t);
    return std::move(p_);
  }

 private:
  struct Buffers {
    std::vector<std::uint32_t> c, a, received, b;  // b: K r + l
    std::uint32_t one = no_buffer;
  };

  // ---- positions: offsets l + K r, in Z_p (ring) or Z_K x Z_K~ (plane) ----
  std::size_t step(std::size_t x, std::ptrdiff_t ones, std::ptrdiff_t strides) const {
    const auto wrap = [](std::ptrdiff_t v, std::size_t n) {
      const auto m = static_cast<std::ptrdiff_t>(n);
      return static_cast<std::size_t>((v % m + m) % m);
    };
    const auto k = static_cast<std::ptrdiff_t>(k_);
    if (!plane_) return wrap(static_cast<std::ptrdiff_t>(x) + ones + k * strides, p_count_);
    return wrap(static_cast<std::ptrdiff_t>(x % k_) + ones, k_) + k_ * wrap(static_cast<std::ptrdiff_t>(x / k_) + strides, kt_);
  }
  // ---- tags, buffers, tasks ----
  static DataTag c_tag(std::size_t j) { return {matmul_c, {0, 0, static_cast<std::int32_t>(j)}}; }
  static DataTag a_tag(std::size_t v) { return {matmul_a, {0, 0, static_cast<std::int32_t>(v)}}; }
  static DataTag b_tag(std::size_t v, std::size_t j) {
    return {matmul_b, {static_cast<std::int32_t>(v), static_cast<std::int32_t>(j), 0}};
  }
  std::uint32_t add_buffer(std::size_t x, std::uint16_t kind) {
    auto& buffers = p_.nodes[nodes_[x]].buffers;
    buffers.push_back({0, kind});
    return static_cast<std::uint32_t>(buffers.size() - 1);
  }
  void hold(std::size_t x, std::uint32_t buffer, const DataTag& t) {
    BufferSpec& spec = p_.nodes[nodes_[x]].buffers[buffer];
    spec.words = std::max<std::uint32_t>(spec.words, static_cast<std::uint32_t>(p_.words_of(t)));
  }
  // C^0 first: it is the output (buffer 0).
  void declare(std::size_t x) {
    Buffers& b = buffers_[x];
    for (std::size_t l = 0; l < k_; ++l) b.c.push_back(add_buffer(x, matmul_c));
    const bool all = upfront(x);
    for (std::size_t i = 0; i < (all ? kt_ : std::min<std::size_t>(kt_, 2)); ++i) b.a.push_back(add_buffer(x, matmul_a));
    for (std::size_t i = 0; i < (all ? k_ - 1 : std::min<std::size_t>(k_ - 1, 2)); ++i) b.received.push_back(add_buffer(x, matmul_c));
    for (std::size_t i = 0; i < p_count_; ++i) b.b.push_back(add_buffer(x, matmul_b));
    if (k_ > 1) {
      b.one = add_buffer(x, matmul_one);
      load(x, b.one, {matmul_one, {0, 0, 0}}, 2);
    }
    load(x, b.a[0], a_tag(x), 0);
  }
  TaskLabel label(std::size_t global) const {
    const bool back = global >= p_count_;
    return {0, back ? 2u : 1u, static_cast<std::uint32_t>(back ? global - p_count_ : global), static_cast<std::uint32_t>(global)};
  }
  void push(std::size_t x, Task task) { p_.nodes[nodes_[x]].add(task); }
  void push(std::size_t x, Task task, const TaskDetail& detail) { p_.nodes[nodes_[x]].add(task, detail); }
  void load(std::size_t x, std::uint32_t buffer, const DataTag& t, std::uint16_t array) {
    Task task = make_task(TaskKind::Load, label(0));
    task.buffer = buffer;
    TaskDetail d;
    d.tag = t;
    d.source = {array, t.index};
    hold(x, buffer, t);
    push(x, task, d);
  }
  std::uint32_t message(std::size_t from, std::size_t to, const std::vector<Direction>& hops, const DataTag& t) {
    return p_.add_message(nodes_[from], nodes_[to], hops, p_.words_of(t), t);
  }
  void transfer(TaskKind kind, std::size_t x, std::uint32_t buffer, std::uint32_t id, std::size_t global) {
    Task task = make_task(kind, label(global));
    task.buffer = buffer;
    task.message = id;
    if (kind == TaskKind::Receive) hold(x, buffer, p_.messages[id].tag);
    push(x, task);
  }
  void compute(std::size_t x, std::size_t global, std::uint32_t acc, const DataTag& c, std::uint32_t operand,
               const DataTag& operand_tag, std::uint32_t coefficient, const DataTag& coefficient_tag, bool zero) {
    const bool add = coefficient_tag.kind == matmul_one;
    Task task = make_task(TaskKind::Compute, label(global));
    task.buffer = acc;
    task.zero_accumulator = zero;
    TaskDetail d;
    d.operand = operand;
    d.coefficient = coefficient;
    d.kernel = p_.kernel_for(add ? 2 : 3, p_.extents_of(c), p_.extents_of(operand_tag));
    d.tag = c;
    d.operand_tag = operand_tag;
    d.coefficient_tag = coefficient_tag;
    hold(x, acc, c);
    push(x, task, d);
  }

  // ---- messages: routes cut at a dateline ----
  // Messages of several hops that all go the same way round a ring can hold each other's links
  // in a cycle (docs/timing-model.md, "Routers"). So no message passes through a dateline
  // node (position 0 of the ring; on the plane, the node of each column with a = 0, for the
  // pre-shift's runs along Q): one that would ends there, and that node sends it on. With no
  // link waiting on the next one across the dateline, the waits cannot close a cycle.
  struct Relay {
    std::size_t at;
    std::uint32_t in, out;
    std::size_t need;  // the pre-shift's: the step whose product uses the block
  };
  static constexpr std::size_t any_step = ~std::size_t{0};
  struct Move {
    std::uint32_t first = 0, last = 0;  // the sender's message and the receiver's
  };
  bool dateline(std::size_t x) const { return plane_ ? x % k_ == 0 : x == 0; }
  // `t` from x by `count` steps of +-1 (along_k: of +-K on the plane), in legs, for `phase`.
  Move chain(std::size_t x, std::ptrdiff_t sign, bool along_k, std::size_t count, const DataTag& t, std::size_t phase,
             std::size_t need = 0) {
    Move move;
    const std::size_t from = x;
    std::size_t start = x;
    std::vector<Direction> hops;
    for (std::size_t i = 1; i <= count; ++i) {
      const std::size_t next = along_k ? step(x, 0, sign) : step(x, sign, 0);
      hops.push_back(link_between(q_.shape, q_.shape.coord_of(nodes_[x]), q_.shape.coord_of(nodes_[next])));
      x = next;
      if (i < count && !dateline(x)) continue;
      const std::uint32_t id = message(start, x, std::move(hops), t);
      hops.clear();
      if (start == from) move.first = id;
      else relays_[phase].push_back({start, move.last, id, need});
      move.last = id;
      start = x;
    }
    return move;
  }
  // A dateline node's part in `phase`: its receives (posted with its own), then its sends
  // (those of the blocks used at step `need`, or all).
  void relay(TaskKind kind, std::size_t x, std::size_t phase, std::size_t global, std::size_t need = any_step) {
    std::size_t index = 0;
    for (const Relay& r : relays_[phase]) {
      if (r.at != x) continue;
      const std::uint32_t buffer = relay_buffer(x, p_.messages[r.in].tag.kind, phase, index++);
      if (need == any_step || r.need == need) transfer(kind, x, buffer, kind == TaskKind::Receive ? r.in : r.out, global);
    }
  }
  // Relay buffers alternate between two sets by phase, like the A buffers (one set per phase
  // where every receive is posted ahead).
  std::uint32_t relay_buffer(std::size_t x, std::uint16_t kind, std::size_t phase, std::size_t index) {
    const auto key = std::make_tuple(x, upfront(x) ? phase : phase % 2, index);
    if (const auto found = relay_buffers_.find(key); found != relay_buffers_.end()) return found->second;
    return relay_buffers_[key] = add_buffer(x, kind);
  }

  // On the ring mapping with K > 1 messages pass through nodes, and a word for a node waits at
  // the front of its input link while its receive is not posted or its buffer still owes a
  // word to a send (docs/timing-model.md, "Cycles"), holding up every message behind it: with
  // the dateline that is the one wait left that could close a cycle. So there every node posts
  // all its receives before its first block product, each into a buffer of its own (K~ blocks
  // of A, K - 1 of C, the relays'): memory the plane mapping and the systolic ring, whose
  // shifts pass through no node, do without (two buffers of A suffice there).
  bool upfront(std::size_t) const { return !plane_ && k_ > 1; }
  std::uint32_t received_buffer(std::size_t x, std::size_t t) const {
    const std::vector<std::uint32_t>& r = buffers_[x].received;
    return upfront(x) ? r[t - 1] : r[t % r.size()];
  }
  // The receive of the A block for round r, with this node's relays of that shift.
  void receive_a(std::size_t x, std::size_t r, std::size_t global) {
    const Buffers& b = buffers_[x];
    transfer(TaskKind::Receive, x, b.a[r % b.a.size()], moves_.at({r, step(x, 0, 1), 0}).last, global);
    relay(TaskKind::Receive, x, r, global);
  }

  // ---- the algorithm ----
  // B(v,x) goes to x + l (v - x = l + K r), into that node's buffer K r + l. The blocks are
  // loaded first and sent a round before their receivers use them (pre_shift_round): posted
  // all at once, a node's own messages (the oldest requests) would take its links ahead of
  // every message passing through, and with small link buffers the ring's messages would wait
  // for each other in one chain round the ring; posted a step ahead, each would pay its
  // start-up in the products' way.
  void pre_shift_out(std::size_t x) {
    pre_shift_sends_.emplace_back(p_count_, std::make_pair(no_buffer, std::uint32_t{0}));
    for (std::size_t slot = 0; slot < p_count_; ++slot) {
      const std::size_t l = slot % k_, r = slot / k_, v = step(x, static_cast<std::ptrdiff_t>(l), static_cast<std::ptrdiff_t>(r));
      const DataTag t = b_tag(v, x);
      if (l == 0) {
        load(x, buffers_[x].b[k_ * r], t, 1);
        continue;
      }
      const std::uint32_t buffer = add_buffer(x, matmul_b);
      load(x, buffer, t, 1);
      const Move move = chain(x, 1, false, l, t, 0, slot);
      moves_[{0, x, v}] = move;
      pre_shift_sends_[x][slot] = {buffer, move.first};
    }
  }
  // The node's pre-shift sends, and as a dateline its relays, of the blocks used in round r.
  void pre_shift_round(std::size_t x, std::size_t r, std::size_t global) {
    for (std::size_t slot = k_ * r; slot < k_ * (r + 1); ++slot) {
      const auto [buffer, id] = pre_shift_sends_[x][slot];
      if (buffer != no_buffer) transfer(TaskKind::Send, x, buffer, id, global);
    }
    for (std::size_t slot = k_ * r; slot < k_ * (r + 1); ++slot) relay(TaskKind::Send, x, 0, global, slot);
  }
  // Every receive of the pre-shift is posted before any relay waits for its message: a message
  // for this node waiting at the front of a link must never hold up one the node passes on.
  void pre_shift_in(std::size_t x) {
    relay(TaskKind::Receive, x, 0, 0);
    for (std::size_t r = 0; r < kt_; ++r)
      for (std::size_t l = 1; l < k_; ++l) {
        const std::size_t from = step(x, -static_cast<std::ptrdiff_t>(l), 0), v = step(x, 0, static_cast<std::ptrdiff_t>(r));
        transfer(TaskKind::Receive, x, buffers_[x].b[k_ * r + l], moves_.at({0, from, v}).last, 0);
      }
    if (upfront(x)) {
      for (std::size_t r = 1; r < kt_; ++r) receive_a(x, r, 0);
      for (std::size_t t = k_ - 1; t >= 1; --t)
        transfer(TaskKind::Receive, x, received_buffer(x, t), back_shift_message(step(x, 1, 0), t), 0);
    }
  }
  // Back-shift t of node `from`: its C^t, one hop back (no relay: nothing passes through).
  std::uint32_t back_shift_message(std::size_t from, std::size_t t) {
    const auto key = std::make_tuple(kt_ + t, from, std::size_t{0});
    if (const auto found = moves_.find(key); found != moves_.end()) return found->second.first;
    return (moves_[key] = chain(from, -1, false, 1, c_tag(step(from, -static_cast<std::ptrdiff_t>(t), 0)), 0)).first;
  }
  void round(std::size_t x, std::size_t r) {
    const std::size_t first = k_ * r, last = first + k_ - 1;
    const Buffers& b = buffers_[x];
    if (r + 1 < kt_ && !upfront(x)) receive_a(x, r + 1, first);
    if (r == 0) pre_shift_round(x, 0, first);
    if (r + 1 < kt_) pre_shift_round(x, r + 1, first);
    const std::size_t v = step(x, 0, static_cast<std::ptrdiff_t>(r));
    for (std::size_t l = 0; l < k_; ++l) {
      const std::size_t j = step(x, -static_cast<std::ptrdiff_t>(l), 0);
      compute(x, first + l, b.c[l], c_tag(j), b.a[r % b.a.size()], a_tag(v), b.b[first + l], b_tag(v, j), r == 0);
    }
    if (r + 1 < kt_) {
      transfer(TaskKind::Send, x, b.a[r % b.a.size()], moves_.at({r + 1, x, 0}).first, last);
      relay(TaskKind::Send, x, r + 1, last);
    }
  }
  // Back-shift step t = K-1 .. 1: C^t (the sum of column x - t) goes to x - 1, where it is
  // added to C^(t-1), the sum of the same column.
  void back_shift(std::size_t x, std::size_t t) {
    const std::size_t global = p_count_ + (k_ - 1 - t);
    const Buffers& b = buffers_[x];
    transfer(TaskKind::Send, x, b.c[t], back_shift_message(x, t), global);
    const std::uint32_t received = received_buffer(x, t);
    if (!upfront(x)) transfer(TaskKind::Receive, x, received, back_shift_message(step(x, 1, 0), t), global);
    const DataTag sum = c_tag(step(x, -static_cast<std::ptrdiff_t>(t - 1), 0));
    compute(x, global, b.c[t - 1], sum, received, sum, b.one, {matmul_one, {0, 0, 0}}, false);
  }

  const MatmulProblem& q_;
  std::size_t p_count_, k_, kt_;
  bool plane_;
  std::string algorithm_;
  std::vector<std::size_t> nodes_;     // by position
  std::vector<std::size_t> position_;  // by node
  Program p_;
  std::vector<Buffers> buffers_;
  // (phase, sender, slot): phase 0 the pre-shift (slot: the B block's v), 1 + r the shift of A
  // after round r, K~ + t back-shift t.
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, Move> moves_;
  std::vector<std::vector<Relay>> relays_;  // by phase
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> pre_shift_sends_;  // per node, per slot: buffer, message
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::uint32_t> relay_buffers_;  // (node, set, index)
};

}  // namespace

Program build_ring_matmul(const MatmulProblem& problem, const RingPlan& plan, const std::string& algorithm) {
  return RingBuilder(problem, plan, algorithm).build();
}

}  // namespace torus
