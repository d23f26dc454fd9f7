#include <algorithm>
#include <functional>
#include <sstream>

#include "tests/model/case_builder.hpp"
#include "tests/model/random_programs.hpp"

// In the builder's namespace for its generator, constants and machine: a using-directive here
// would reach every later file of a unity batch that uses torus::bench.
namespace torus::bench::cases {
namespace {

// Node `node`'s task list of a symmetric case; `message(i)` is the message it sends along route
// i, `received(i)` the one it receives by route i.
using MessageOf = std::function<std::uint32_t(std::uint32_t)>;
// With `ffted[i]` the block loaded for route i is transformed in place by the Program's FFT 0.
void symmetric_tasks(Program& p, std::size_t node, std::size_t routes, const std::vector<bool>& computed,
                     const std::vector<bool>& ffted, const MessageOf& message, const MessageOf& received) {
  const DataTag block = tag(tensor_kind, 0), matrix = tag(matrix_kind, 0);
  NodeProgram& tasks = p.nodes[node];
  Task l = make_task(TaskKind::Load, {});
  l.buffer = coefficient;
  TaskDetail coefficient_load;
  coefficient_load.tag = matrix;
  coefficient_load.source = {1, {0, 0, 0}};
  tasks.add(l, coefficient_load);
  const auto compute = [&](std::uint32_t acc, std::uint32_t op) {
    Task t = make_task(TaskKind::Compute, {});
    t.buffer = acc;
    t.zero_accumulator = true;
    TaskDetail d;
    d.operand = op;
    d.coefficient = coefficient;
    d.tag = d.operand_tag = block;
    d.coefficient_tag = matrix;
    tasks.add(t, d);
  };
  for (std::uint32_t i = 0; i < routes; ++i) {
    Task r = make_task(TaskKind::Receive, {});
    r.buffer = first_block + 2 + i;
    r.message = received(i);
    tasks.add(r);
  }
  for (std::uint32_t i = 0; i < routes; ++i) {
    Task load = make_task(TaskKind::Load, {});
    load.buffer = first_block;
    TaskDetail loaded;
    loaded.tag = block;
    loaded.source = {0, {0, 0, 0}};
    tasks.add(load, loaded);
    if (ffted[i]) {
      Task fft = make_task(TaskKind::Fft, {});
      fft.buffer = first_block;
      TaskDetail d;
      d.operand = first_block;
      d.operand_tag = d.tag = block;
      tasks.add(fft, d);
    }
    if (computed[i]) compute(first_block + 1, first_block);
    Task send = make_task(TaskKind::Send, {});
    send.buffer = computed[i] ? first_block + 1 : first_block;
    send.message = message(i);
    tasks.add(send);
  }
  for (std::uint32_t i = 0; i < routes; ++i) compute(first_matrix, first_block + 2 + i);
}

SymmetricCase build_symmetric_case(std::uint64_t seed) {
  Generator g(seed);
  SymmetricCase c;
  const TorusShape shape{g.pick(2, 4), g.pick(1, 4), g.pick(1, 2), {Topology::Torus, Topology::Torus, Topology::Torus}};
  const auto b = static_cast<std::size_t>(g.pick(1, 2));
  const auto routes = static_cast<std::size_t>(g.pick(1, 3));
  std::vector<std::vector<Direction>> route(routes);
  std::vector<bool> computed(routes), ffted(routes);
  for (std::size_t i = 0; i < routes; ++i) {
    do route[i] = g.route(shape, 0, static_cast<std::size_t>(g.pick(1, static_cast<int>(shape.node_count()) - 1)));
    while (route[i].empty());
    computed[i] = g.chance(50);
    ffted[i] = g.chance(30);
  }
  const int fft_axis = g.pick(1, 3);
  for (Program* p : {&c.whole, &c.quotient}) {
    *p = empty_program(shape, b, 0);
    p->tag_kinds.push_back({"C", 2, 1, {}});
    p->host_arrays.push_back({"C1", true, 1, 0, {}, 0});
    p->nodes.resize(p == &c.quotient ? 1 : shape.node_count());
    if (std::find(ffted.begin(), ffted.end(), true) != ffted.end())
      p->ffts = {FftSpec{"fft" + std::to_string(fft_axis), fft_axis, {b, b, b}, 1, 1, 1, 1, false, 1.0}};
    for (NodeProgram& node : p->nodes) {
      node.buffers.clear();
      for (std::uint32_t buffer = 0; buffer < first_matrix + 1; ++buffer)
        node.buffers.push_back({static_cast<std::uint32_t>(buffer == coefficient ? b * b : b * b * b), 0});
    }
  }
  const auto words = static_cast<std::uint32_t>(b * b * b);
  c.quotient.translation_quotient = true;
  for (std::size_t i = 0; i < routes; ++i) c.quotient.add_message(0, 0, route[i], words, tag(tensor_kind, 0));
  const auto own = [](std::uint32_t i) { return i; };
  symmetric_tasks(c.quotient, 0, routes, computed, ffted, own, own);
  // The whole Program: node n sends message n * routes + i along route i and receives the one
  // the node `route i` behind it sent.
  const auto walk = [&](std::size_t from, const std::vector<Direction>& hops, bool back) {
    NodeCoord at = shape.coord_of(from);
    for (const Direction d : hops) at = *shape.neighbour(at, back ? opposite(d) : d);
    return shape.index_of(at);
  };
  for (std::size_t n = 0; n < shape.node_count(); ++n)
    for (std::size_t i = 0; i < routes; ++i)
      c.whole.add_message(n, walk(n, route[i], false), route[i], words, tag(tensor_kind, 0));
  for (std::size_t n = 0; n < shape.node_count(); ++n)
    symmetric_tasks(
        c.whole, n, routes, computed, ffted, [&](std::uint32_t i) { return static_cast<std::uint32_t>(n * routes + i); },
        [&](std::uint32_t i) { return static_cast<std::uint32_t>(walk(n, route[i], true) * routes + i); });
  CaseBuilder(seed).machine(c.machine);
  std::ostringstream text;
  text << "symmetric seed " << seed << ": " << shape.p1 << "x" << shape.p2 << "x" << shape.p3 << " torus, b " << b << ", routes";
  for (const auto& r : route) {
    text << " ";
    for (const Direction d : r) text << to_string(d);
  }
  text << "; link latency " << c.machine.link_latency << ", " << c.machine.link_rate.num << "/" << c.machine.link_rate.den
       << " words per cycle, buffers " << c.machine.link_buffer_words << ", " << c.machine.policy;
  c.summary = text.str();
  return c;
}

}  // namespace
}  // namespace torus::bench::cases

namespace torus::bench {

SymmetricCase symmetric_case(std::uint64_t seed) { return cases::build_symmetric_case(seed); }

}  // namespace torus::bench
