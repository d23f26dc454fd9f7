#pragma once
// The random case builder shared by the random and the symmetric hand-built Programs
// (random_programs.cpp, symmetric_programs.cpp): a seeded generator of shapes, routes and
// machines, and the builder of random phases of loads, computes, sends and receives. Only
// those two files include it.

#include <algorithm>
#include <functional>
#include <random>

#include "tests/model/random_programs.hpp"

namespace torus::bench::cases {


// Per node: the coefficient block loaded at the start, tensor blocks, coefficient blocks.
inline constexpr std::uint32_t coefficient = 0, first_block = 1, blocks = 6, first_matrix = first_block + blocks, matrices = 3;
inline constexpr std::uint32_t buffer_count = first_matrix + matrices;
inline constexpr std::uint16_t tensor_kind = 0, matrix_kind = 2;

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
  bool chance(int percent) { return pick(1, 100) <= percent; }
  template <class T>
  const T& choose(const std::vector<T>& values) {
    return values[static_cast<std::size_t>(pick(0, static_cast<int>(values.size()) - 1))];
  }

  // 4 to 12 nodes, some pair of them at least two hops apart.
  TorusShape shape() {
    for (;;) {
      const Topology boundary = chance(25) ? Topology::Mesh : Topology::Torus;
      const TorusShape s{pick(1, 4), pick(1, 4), pick(1, 3), {boundary, boundary, boundary}};
      int farthest = 0;
      for (const Axis axis : {Axis::Q, Axis::R, Axis::S})
        farthest += s.wraps(axis) ? s.extent(axis) / 2 : s.extent(axis) - 1;
      if (s.node_count() >= 4 && s.node_count() <= 12 && farthest >= 2) return s;
    }
  }

  // Dimension order: Q, then R, then S, each the shortest way round (either way on a tie).
  std::vector<Direction> route(const TorusShape& shape, std::size_t from, std::size_t to) {
    const NodeCoord a = shape.coord_of(from), b = shape.coord_of(to);
    std::vector<Direction> hops;
    const std::array<std::pair<Direction, Direction>, 3> axes{
        {{Direction::PlusQ, Direction::MinusQ}, {Direction::PlusR, Direction::MinusR}, {Direction::PlusS, Direction::MinusS}}};
    for (std::size_t i = 0; i < 3; ++i) {
      const Axis axis = static_cast<Axis>(i);
      const int extent = shape.extent(axis), delta = b[axis] - a[axis];
      int ahead = ((delta % extent) + extent) % extent, back = (extent - ahead) % extent;
      if (!shape.wraps(axis)) ahead = std::max(delta, 0), back = std::max(-delta, 0);
      const bool forward = ahead != 0 && (back == 0 || ahead < back || (ahead == back && chance(50)));
      hops.insert(hops.end(), static_cast<std::size_t>(forward ? ahead : back), forward ? axes[i].first : axes[i].second);
    }
    return hops;
  }

 private:
  std::mt19937_64 rng_;
};

// What a node's buffer holds at the current point of its task list.
struct Held {
  DataTag tag;
  bool written = false;    // loaded, computed or received
  bool arriving = false;   // received, and not read or sent since: it may not be replaced yet
  bool used = false;       // taken in the current phase
};

// One node's tasks of one phase, built apart and put together in the order the case chose.
struct Entry {
  Task task;
  TaskDetail detail;  // loads, computes and FFTs
};
struct PhaseTasks {
  std::vector<Entry> receives, sends, computes;
};

class CaseBuilder {
 public:
  explicit CaseBuilder(std::uint64_t seed) : g_(seed) {}

  Program program() {
    const auto b = static_cast<std::size_t>(g_.choose(std::vector<int>{1, 2, 2, 3}));
    b_ = b;
    Program p = empty_program(g_.shape(), b, 0);
    p.tag_kinds.push_back({"C", 2, 1, {}});
    p.host_arrays.push_back({"C1", true, 1, 0, {}, 0});
    const auto cube = static_cast<std::uint32_t>(b * b * b), square = static_cast<std::uint32_t>(b * b);
    for (NodeProgram& node : p.nodes)
      for (std::uint32_t buffer = 0; buffer < buffer_count; ++buffer)
        node.buffers.push_back({buffer == coefficient || buffer >= first_matrix ? square : cube, 0});
    held_.assign(p.node_count(), std::vector<Held>(buffer_count));
    for (std::size_t n = 0; n < p.node_count(); ++n) {
      Task l = make_task(TaskKind::Load, {});
      l.buffer = coefficient;
      TaskDetail d;
      d.tag = tag(matrix_kind, 0);
      d.source = {1, {0, 0, 0}};
      p.nodes[n].add(l, d);
      held_[n][coefficient] = {d.tag, true, false, false};
    }
    const int phases = g_.pick(1, 3);
    p.stages = {{0, 1, 1, "random", static_cast<std::uint32_t>(phases)}};
    for (int k = 0; k < phases; ++k) phase(p, static_cast<std::uint32_t>(k));
    return p;
  }

  void machine(Machine& m) {
    m.link_latency = static_cast<Cycle>(g_.choose(std::vector<int>{1, 1, 2, 3, 5, 8}));
    m.link_rate = g_.choose(std::vector<Rational>{{1, 1}, {2, 1}, {1, 2}, {2, 3}, {1, 8}, {3, 2}});
    m.link_buffer_words = static_cast<std::uint64_t>(g_.choose(std::vector<int>{1, 2, 3, 4, 8, 64}));
    m.fma_latency = static_cast<Cycle>(g_.pick(1, 4));
    m.fma_per_cycle = static_cast<unsigned>(g_.pick(1, 2));
    m.policy = g_.chance(50) ? "after_compute" : "overlapped";
    m.micro_schedule = g_.chance(70) ? "interleaved" : "chained";
    m.fast_forward = g_.chance(70) ? "on" : "off";
    m.message_startup = static_cast<Cycle>(g_.choose(std::vector<int>{0, 0, 0, 1, 4, 15}));
  }

 private:
  Entry labelled(Task task, const TaskDetail& detail = {}) const {
    task.label.step = task.label.global_step = phase_;
    return {task, detail};
  }
  DataTag fresh() { return tag(tensor_kind, ++tags_); }

  // A buffer of `node` among [first, first + count) free in this phase and free to replace.
  std::uint32_t free_buffer(std::size_t node, std::uint32_t first, std::uint32_t count) {
    std::vector<std::uint32_t> free;
    for (std::uint32_t w = first; w < first + count; ++w)
      if (!held_[node][w].used && !held_[node][w].arriving) free.push_back(w);
    if (free.empty()) return no_buffer;
    const std::uint32_t w = g_.choose(free);
    held_[node][w].used = true;
    return w;
  }
  // A buffer of `node` among [first, first + count) holding a block, not used in this phase.
  std::uint32_t held_buffer(std::size_t node, std::uint32_t first, std::uint32_t count) {
    std::vector<std::uint32_t> held;
    for (std::uint32_t w = first; w < first + count; ++w)
      if (!held_[node][w].used && held_[node][w].written) held.push_back(w);
    if (held.empty()) return no_buffer;
    const std::uint32_t w = g_.choose(held);
    held_[node][w].used = true;
    return w;
  }

  Entry load_task(std::size_t node, std::uint32_t w) {
    Task l = make_task(TaskKind::Load, {});
    l.buffer = w;
    TaskDetail d;
    d.tag = fresh();
    d.source = {0, {0, 0, 0}};
    held_[node][w] = {d.tag, true, false, true};
    return labelled(l, d);
  }

  // acc = op x coef (acc zeroed first); reading op and coef ends their wait for arriving words.
  Entry compute_task(std::size_t node, std::uint32_t acc, std::uint32_t op, std::uint32_t coef) {
    Task t = make_task(TaskKind::Compute, {});
    t.buffer = acc;
    t.zero_accumulator = true;
    TaskDetail d;
    d.operand = op;
    d.coefficient = coef;
    d.tag = fresh();
    d.operand_tag = held_[node][op].tag;
    d.coefficient_tag = held_[node][coef].tag;
    held_[node][acc] = {d.tag, true, false, true};
    held_[node][op].arriving = held_[node][coef].arriving = false;
    return labelled(t, d);
  }

  // The b x b x b block in `in` transformed along a random axis into `out`.
  Entry fft_task(Program& p, std::size_t node, std::uint32_t in, std::uint32_t out) {
    FftSpec spec;
    spec.axis = g_.pick(1, 3);
    spec.name = "fft" + std::to_string(spec.axis);
    spec.whole = {b_, b_, b_};
    spec.inverse = g_.chance(50);
    spec.scale = spec.inverse ? 1.0 / static_cast<double>(b_) : 1.0;
    p.ffts.push_back(spec);
    Task t = make_task(TaskKind::Fft, {});
    TaskDetail d;
    d.kernel = static_cast<std::uint32_t>(p.ffts.size() - 1);
    d.operand = in;
    d.operand_tag = held_[node][in].tag;
    t.buffer = out;
    d.tag = fresh();
    held_[node][in].arriving = false;  // read: whatever arrives into it has landed
    held_[node][out] = {d.tag, true, false, true};
    return labelled(t, d);
  }

  void phase(Program& p, std::uint32_t k) {
    phase_ = k;
    for (auto& node : held_)
      for (Held& h : node) h.used = false;
    std::vector<PhaseTasks> tasks(p.node_count());
    std::vector<int> receiving(p.node_count(), 0);
    for (std::size_t n = 0; n < p.node_count(); ++n) {
      const int sends = g_.choose(std::vector<int>{0, 1, 1, 2, 2});
      for (int i = 0; i < sends; ++i) send_group(p, n, receiving, tasks);
    }
    for (std::size_t n = 0; n < p.node_count(); ++n) {
      PhaseTasks& t = tasks[n];
      if (g_.chance(25)) std::swap(t.receives, t.sends);  // receives posted only after the sends
      for (const auto* part : {&t.receives, &t.sends, &t.computes})
        for (const Entry& e : *part) p.nodes[n].add(e.task, e.detail);
    }
  }

  // One message from node n, with the loads and compute it needs, and its receive.
  void send_group(Program& p, std::size_t n, std::vector<int>& receiving, std::vector<PhaseTasks>& tasks) {
    std::vector<std::size_t> targets;
    for (std::size_t t = 0; t < p.node_count(); ++t)
      if (t != n && receiving[t] < 3) targets.push_back(t);
    if (targets.empty()) return;
    const std::size_t to = g_.choose(targets);
    std::vector<Entry>& mine = tasks[n].sends;
    std::uint32_t sent = no_buffer;
    switch (g_.pick(0, b_ <= 2 ? 4 : 3)) {
      case 0: {  // a loaded block
        sent = free_buffer(n, first_block, blocks);
        if (sent != no_buffer) mine.push_back(load_task(n, sent));
        break;
      }
      case 1: {  // a compute's accumulator, operand or coefficient, sent as the compute runs
        const std::uint32_t op = free_buffer(n, first_block, blocks), acc = free_buffer(n, first_block, blocks);
        if (acc == no_buffer) break;
        const std::uint32_t held = held_buffer(n, first_matrix, matrices), coef = held == no_buffer ? coefficient : held;
        mine.push_back(load_task(n, op));
        mine.push_back(compute_task(n, acc, op, coef));
        sent = g_.choose(std::vector<std::uint32_t>{acc, acc, op, coef});
        break;
      }
      case 2:  // a block it holds: loaded, computed or received earlier
        sent = held_buffer(n, first_block, blocks);
        break;
      case 3:  // a coefficient block: its own or one it received
        sent = g_.chance(50) ? coefficient : held_buffer(n, first_matrix, matrices);
        break;
      default: {  // an FFT's output (b a power of two) of a block held or loaded, in place or not
        const std::uint32_t held = g_.chance(50) ? held_buffer(n, first_block, blocks) : no_buffer;
        const std::uint32_t in = held != no_buffer ? held : free_buffer(n, first_block, blocks);
        const std::uint32_t out = g_.chance(50) ? in : free_buffer(n, first_block, blocks);
        if (in == no_buffer || out == no_buffer) break;
        if (held == no_buffer) mine.push_back(load_task(n, in));
        mine.push_back(fft_task(p, n, in, out));
        sent = out;
        break;
      }
    }
    if (sent == no_buffer) return;
    message_of(p, n, to, sent, tasks);
    ++receiving[to];
  }

  void message_of(Program& p, std::size_t from, std::size_t to, std::uint32_t w, std::vector<PhaseTasks>& tasks) {
    const bool matrix = w == coefficient || w >= first_matrix;
    const std::uint32_t into = matrix ? free_buffer(to, first_matrix, matrices) : free_buffer(to, first_block, blocks);
    if (into == no_buffer) return;
    const std::uint32_t id =
        p.add_message(from, to, g_.route(p.shape, from, to), p.nodes[from].buffers[w].words, held_[from][w].tag);
    held_[from][w].arriving = false;  // sending it waits for whatever still arrives
    Task send = make_task(TaskKind::Send, {});
    send.buffer = w;
    send.message = id;
    tasks[from].sends.push_back(labelled(send));
    Task receive = make_task(TaskKind::Receive, {});
    receive.buffer = into;
    receive.message = id;
    tasks[to].receives.push_back(labelled(receive));
    held_[to][into] = {held_[from][w].tag, true, true, true};
    if (!g_.chance(50)) return;  // half the blocks received are computed with in the same phase
    const std::uint32_t acc = free_buffer(to, first_block, blocks);
    if (acc == no_buffer) return;
    if (!matrix) {
      tasks[to].computes.push_back(compute_task(to, acc, into, coefficient));
      return;
    }
    const std::uint32_t op = free_buffer(to, first_block, blocks);
    if (op == no_buffer) return;
    tasks[to].computes.push_back(load_task(to, op));
    tasks[to].computes.push_back(compute_task(to, acc, op, into));
  }

  Generator g_;
  std::vector<std::vector<Held>> held_;  // per node and buffer
  std::uint32_t phase_ = 0;
  int tags_ = 0;
  std::size_t b_ = 1;
};

}  // namespace torus::bench::cases
