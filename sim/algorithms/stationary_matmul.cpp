// The Program of a_stationary and b_stationary: see sim/algorithms/stationary_matmul.hpp.

#include "sim/algorithms/stationary_matmul.hpp"

#include <map>
#include <utility>

#include <fmt/format.h>

#include "sim/algorithms/matmul_tasks.hpp"

namespace torus {
namespace {

namespace mt = matmul_tasks;

class StationaryBuilder {
 public:
  StationaryBuilder(const MatmulProblem& q, std::uint16_t stationary, const std::string& algorithm)
      : q_(q), a_stays_(stationary == matmul_a), reduce_(a_stays_ ? Axis::R : Axis::Q), spread_(a_stays_ ? Axis::Q : Axis::R),
        steps_(static_cast<std::size_t>(q.shape.extent(reduce_))), line_(static_cast<std::size_t>(q.shape.extent(spread_))),
        algorithm_(algorithm) {}

  Program build() {
    p_ = matmul_skeleton(q_, steps_, algorithm_);
    const char* moving = a_stays_ ? "B(c,f) down column c" : "A(f,r) along row r";
    p_.stages = {{0, 1, 3,
                  fmt::format("C += A x3 B with {} stationary: {} spread, the sums of C reduced round the {} ({} steps)",
                              a_stays_ ? "A" : "B", moving, a_stays_ ? "rows" : "columns", steps_),
                  static_cast<std::uint32_t>(steps_)}};
    buffers_.resize(p_.nodes.size());
    for (std::size_t node = 0; node < p_.nodes.size(); ++node) declare(node);
    for (std::size_t t = 0; t < steps_; ++t)
      for (std::size_t node = 0; node < p_.nodes.size(); ++node) step(node, t);
    return std::move(p_);
  }

 private:
  struct Buffers {
    std::uint32_t out = 0, stays = 0;
    std::array<std::uint32_t, 2> moving{}, sums{};  // by step parity
  };

  // ---- index algebra ----
  std::size_t at(std::size_t node, Axis axis) const { return static_cast<std::size_t>(q_.shape.coord_of(node)[axis]); }
  // The block of C (its reduce-axis index) node `node` works on at step t.
  std::size_t block(std::size_t node, std::size_t t) const { return (at(node, reduce_) + 2 * steps_ - 1 - t) % steps_; }
  // The node whose load starts the spread of block f in its line: spread coordinate f mod line.
  bool home(std::size_t node, std::size_t f) const { return at(node, spread_) == f % line_; }
  bool last(std::size_t node, std::size_t f) const { return (at(node, spread_) + 1) % line_ == f % line_; }
  std::size_t along(std::size_t node, Axis axis, int sign) const {
    NodeCoord c = q_.shape.coord_of(node);
    const int e = q_.shape.extent(axis);
    c[axis] = (c[axis] + sign + e) % e;
    return q_.shape.index_of(c);
  }
  DataTag stays_tag(std::size_t node) const {
    const auto s = static_cast<std::int32_t>(at(node, spread_)), r = static_cast<std::int32_t>(at(node, reduce_));
    return a_stays_ ? DataTag{matmul_a, {s, 0, r}} : DataTag{matmul_b, {r, s, 0}};
  }
  DataTag moving_tag(std::size_t node, std::size_t f) const {
    const auto inner = static_cast<std::int32_t>(at(node, reduce_)), g = static_cast<std::int32_t>(f);
    return a_stays_ ? DataTag{matmul_b, {inner, g, 0}} : DataTag{matmul_a, {g, 0, inner}};
  }
  DataTag sum_tag(std::size_t node, std::size_t f) const {
    NodeCoord c = q_.shape.coord_of(node);
    c[reduce_] = static_cast<int>(f);
    return {matmul_c, {c.q, 0, c.r}};
  }
  static TaskLabel label(std::size_t t) { return {0, 1, static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(t)}; }

  // Buffer 0 is the output C; one buffer for the stationary block, two (by step parity) for the
  // moving blocks and for the running sums passed on.
  void declare(std::size_t node) {
    Buffers& b = buffers_[node];
    b.out = mt::add_buffer(p_, node, matmul_c);
    mt::hold(p_, node, b.out, sum_tag(node, at(node, reduce_)));
    b.stays = mt::add_buffer(p_, node, a_stays_ ? matmul_a : matmul_b);
    mt::load(p_, node, b.stays, stays_tag(node), label(0));
    for (std::size_t i = 0; i < std::min<std::size_t>(steps_, 2); ++i) {
      b.moving[i] = mt::add_buffer(p_, node, a_stays_ ? matmul_b : matmul_a);
      b.sums[i] = steps_ > 1 ? mt::add_buffer(p_, node, matmul_c) : b.out;
    }
  }

  // The single-hop message of `key` (kind, sender, step): created by whichever end asks first.
  std::uint32_t message(bool sum, std::size_t from, std::size_t t) {
    const auto key = std::make_tuple(sum, from, t);
    if (const auto found = messages_.find(key); found != messages_.end()) return found->second;
    const Axis axis = sum ? reduce_ : spread_;
    const std::size_t f = block(from, t);
    const DataTag tag = sum ? sum_tag(from, f) : moving_tag(from, f);
    return messages_[key] = mt::message(p_, from, along(from, axis, 1),
                                        ring_route(q_.shape, q_.shape.coord_of(from), direction_along(axis, 1)), tag);
  }

  // The moving block of step t: loaded at its home, else received from the previous node of
  // the line; passed on at once unless the next node is its home (the line's last user). Its
  // tasks carry step t's label even when posted a step ahead, so a spread counts in its step.
  void spread(std::size_t node, std::size_t t) {
    const std::size_t f = block(node, t);
    const std::uint32_t buffer = buffers_[node].moving[t % 2];
    if (home(node, f)) mt::load(p_, node, buffer, moving_tag(node, f), label(t));
    else mt::transfer(p_, TaskKind::Receive, node, buffer, message(false, along(node, spread_, -1), t), label(t));
    if (!last(node, f)) mt::transfer(p_, TaskKind::Send, node, buffer, message(false, node, t), label(t));
  }
  std::uint32_t sum_buffer(std::size_t node, std::size_t t) const {
    return t + 1 == steps_ ? buffers_[node].out : buffers_[node].sums[t % 2];
  }

  // Step t: the next step's moving block and running sum are posted ahead (so their words may
  // land while this step computes), then the block product into the running sum, then its send.
  void step(std::size_t node, std::size_t t) {
    if (t == 0) spread(node, 0);
    if (t + 1 < steps_) {
      spread(node, t + 1);
      mt::transfer(p_, TaskKind::Receive, node, sum_buffer(node, t + 1), message(true, along(node, reduce_, -1), t), label(t));
    }
    const std::size_t f = block(node, t);
    const Buffers& b = buffers_[node];
    const std::uint32_t moving = b.moving[t % 2];
    const DataTag stays = stays_tag(node), moves = moving_tag(node, f);
    if (a_stays_) mt::product(p_, node, label(t), sum_buffer(node, t), sum_tag(node, f), b.stays, stays, moving, moves, t == 0);
    else mt::product(p_, node, label(t), sum_buffer(node, t), sum_tag(node, f), moving, moves, b.stays, stays, t == 0);
    if (t + 1 < steps_) mt::transfer(p_, TaskKind::Send, node, sum_buffer(node, t), message(true, node, t), label(t));
  }

  const MatmulProblem& q_;
  bool a_stays_;
  Axis reduce_, spread_;
  std::size_t steps_, line_;
  std::string algorithm_;
  Program p_;
  std::vector<Buffers> buffers_;
  std::map<std::tuple<bool, std::size_t, std::size_t>, std::uint32_t> messages_;  // (sum, sender, step)
};

}  // namespace

void StationaryMatmul::require(const MatmulProblem& problem) const {
  const bool a = stationary_ == matmul_a;
  const std::size_t parts = static_cast<std::size_t>(a ? problem.columns() : problem.rows());
  require_on_array(problem, name_, parts,
                   fmt::format("{} = {} (k is cut into {} blocks, one per processor {})", a ? "Nc" : "Nr", parts, parts,
                               a ? "column" : "row"),
                   "the spread and the reduction run on rings");
}

Program build_stationary_matmul(const MatmulProblem& problem, std::uint16_t stationary, const std::string& algorithm) {
  return StationaryBuilder(problem, stationary, algorithm).build();
}

}  // namespace torus
