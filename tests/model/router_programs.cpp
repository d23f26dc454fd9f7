// Hand-built Programs for the router (docs/timing-model.md, "Routers"); the cycles each one must
// give are derived by hand in tests/model/test_router.cpp, and both engines must give them.

#include "tests/model/program_bench.hpp"

namespace torus::bench {

namespace {

constexpr Direction plus_q = Direction::PlusQ, minus_q = Direction::MinusQ, plus_r = Direction::PlusR;

std::size_t node_at(const Program& p, int q, int r) { return p.shape.index_of({q, r, 0}); }

}  // namespace

// Node 1's own message M2 (to node 2) and M1 from node 0, passing node 1 on its way to node 2,
// both want node 1's +Q link.
Program contending_pair() {
  Program p = empty_program(TorusShape{3, 1, 1}, 2, 2);
  load(p, 0, 0, tag(0, 1));
  load(p, 1, 0, tag(1, 2));
  message(p, 0, 0, {plus_q, plus_q}, 0, tag(0, 1));  // M1: node 0 -> 2
  message(p, 1, 0, {plus_q}, 1, tag(1, 2));          // M2: node 1 -> 2
  return p;
}

// Ring of 3. Node 1 sends Mb1 and Mb2 (+Q, posted at once), Ma (-Q), then reloads Ma's buffer,
// which waits for Ma's last word, and only then reaches its send of M2 (+Q), whose block was
// loaded at cycle 0. M1 from node 0 passes node 1 for node 2 and waits for node 1's +Q link.
Program late_posted_contender() {
  Program p = empty_program(TorusShape{3, 1, 1}, 2, 4);
  load(p, 0, 0, tag(0, 1));
  message(p, 0, 0, {plus_q, plus_q}, 0, tag(0, 1));  // M1: node 0 -> 2, through node 1
  for (std::uint32_t b = 0; b < 4; ++b) load(p, 1, b, tag(0, static_cast<int>(10 + b)));
  message(p, 1, 2, {plus_q}, 1, tag(0, 12));   // Mb1
  message(p, 1, 3, {plus_q}, 2, tag(0, 13));   // Mb2
  message(p, 1, 0, {minus_q}, 1, tag(0, 10));  // Ma: node 1 -> 0
  load(p, 1, 0, tag(0, 14));                   // waits until Ma's words have left
  message(p, 1, 1, {plus_q}, 3, tag(0, 11));   // M2: posted only now
  return p;
}

// A 3 x 2 torus. Node (0,0) sends T1 then T2 through node (1,0): one goes on along +Q to (2,0),
// the other turns to +R for (1,1); `first_turns` says which. Node (1,0)'s own message X holds
// T1's next link for its 8 words, so T1 waits in (1,0)'s input buffer and T2 queues behind it.
Program turn_behind(bool first_turns) {
  Program p = empty_program(TorusShape{3, 2, 1}, 2, 3);
  const std::vector<Direction> straight{plus_q, plus_q}, turning{plus_q, plus_r};
  const std::size_t a = node_at(p, 0, 0), b = node_at(p, 1, 0);
  load(p, a, 0, tag(0, 1));
  load(p, a, 1, tag(0, 2));
  message(p, a, 0, first_turns ? turning : straight, 0, tag(0, 1));  // T1
  message(p, a, 1, first_turns ? straight : turning, 1, tag(0, 2));  // T2
  load(p, b, 0, tag(1, 3));
  message(p, b, 0, {first_turns ? plus_r : plus_q}, 2, tag(1, 3));  // X
  return p;
}

// turn_behind(true) with a second message X2 of node (1,0) on +R after X, and its message Y on
// +Q (T2's next link), the accumulator of a compute released when the compute is done (cycle
// 16): after T2's first word has arrived but before it reaches the front of its input buffer.
Program blocked_head_of_line() {
  Program p = empty_program(TorusShape{3, 2, 1}, 2, 5);
  const std::size_t a = node_at(p, 0, 0), b = node_at(p, 1, 0);
  load(p, a, 0, tag(0, 1));
  load(p, a, 1, tag(0, 2));
  message(p, a, 0, {plus_q, plus_r}, 0, tag(0, 1));  // T1: to (1,1)
  message(p, a, 1, {plus_q, plus_q}, 1, tag(0, 2));  // T2: to (2,0)
  load(p, b, 0, tag(1, 3));
  load(p, b, 1, tag(1, 4));
  load(p, b, 2, tag(0, 5));
  load(p, b, 3, tag(1, 6));
  message(p, b, 0, {plus_r}, 2, tag(1, 3));  // X1: to (1,1)
  message(p, b, 1, {plus_r}, 3, tag(1, 4));  // X2: to (1,1)
  compute(p, b, 4, 2, 3, tag(0, 7), tag(0, 5), tag(1, 6));
  message(p, b, 4, {plus_q}, 2, tag(0, 7));  // Y: to (2,0)
  return p;
}

// Every node of a 4-ring sends its 8-word block two hops along +Q. Each takes its own +Q link at
// cycle 0, so the message it passes on waits for that link in its input buffer; with buffers of
// at most 8 words that message can move on only into the next node's buffer, which the next
// node's own message fills: a cycle of waits (wormhole deadlock).
Program wormhole_ring() {
  Program p = empty_program(TorusShape{4, 1, 1}, 2, 2);
  for (std::size_t n = 0; n < 4; ++n) load(p, n, 0, tag(0, static_cast<int>(n)));
  for (std::size_t n = 0; n < 4; ++n) message(p, n, 0, {plus_q, plus_q}, 1, tag(0, static_cast<int>(n)));
  return p;
}

// Ring of 3. M1 goes from node 0 through node 1 to node 2; node 1's own message M2 (to node 2)
// is the accumulator of a compute done at cycle 16 (16 fma, latency 1).
Program startup_contender() {
  Program p = empty_program(TorusShape{3, 1, 1}, 2, 3);
  load(p, 0, 0, tag(0, 1));
  message(p, 0, 0, {plus_q, plus_q}, 0, tag(0, 1));  // M1
  load(p, 1, 0, tag(0, 2));
  load(p, 1, 1, tag(1, 3));
  compute(p, 1, 2, 0, 1, tag(0, 4), tag(0, 2), tag(1, 3));
  message(p, 1, 2, {plus_q}, 1, tag(0, 4));  // M2
  return p;
}

}  // namespace torus::bench
