#include "sim/lockstep_plan.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace torus {
namespace {

// Groups: a group ends before a task that needs a message sent within it, so every message a
// group takes was sent in an earlier group (on another thread, maybe) and every node's group
// runs on its own words alone. Which messages a task takes is the same on every node.
// The buffers a task touches: its own and, for a compute, the operand and the coefficient.
std::array<std::uint32_t, 3> buffers_of(const NodeProgram& node, const Task& t) {
  if (t.kind != TaskKind::Compute) return {t.buffer, no_buffer, no_buffer};
  return {t.buffer, node.detail(t).operand, node.detail(t).coefficient};
}

void plan_groups(const Program& q, LockstepPlan& plan) {
  const std::vector<Task>& tasks = q.nodes.front().tasks;
  std::vector<std::uint32_t> pending(q.nodes.front().buffers.size(), no_message);
  std::size_t start = 0;
  plan.group_start = {0};
  plan.start_of.assign(tasks.size(), 0);
  const auto touch = [&](std::size_t k, std::uint32_t buffer) {
    const std::uint32_t m = pending[buffer];
    pending[buffer] = no_message;
    const std::uint32_t sent = m == no_message ? no_message : plan.sent_at[m];
    if (sent == no_message || sent < start || sent >= k) return;  // late: the executor names it
    start = k;
    plan.group_start.push_back(k);
  };
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const Task& t = tasks[k];
    const std::array<std::uint32_t, 3> touched = buffers_of(q.nodes.front(), t);
    if (t.kind == TaskKind::Compute) {
      for (const std::uint32_t b : touched) touch(k, b);
    } else if (t.buffer != no_buffer) {
      touch(k, t.buffer);
    }
    plan.start_of[k] = static_cast<std::uint32_t>(start);
    for (const std::uint32_t b : touched)
      if (b != no_buffer && t.kind != TaskKind::Receive) {
        plan.touched.resize(plan.group_start.size());
        plan.touched.back().push_back(b);
      }
    if (t.kind == TaskKind::Receive && t.buffer != no_buffer && !(plan.sent_at[t.message] < start)) pending[t.buffer] = t.message;
  }
  plan.group_start.push_back(tasks.size());
}

// Per message: the group where its receiver takes its copy (as the executor does: a receive of
// a copy sent before its group takes it at once, else the next task touching the buffer or the
// list's end does), or the number of groups if that is the list's end or never.
std::vector<std::size_t> take_groups(const Program& q, const LockstepPlan& plan, const std::vector<std::size_t>& group_of) {
  const std::vector<Task>& tasks = q.nodes.front().tasks;
  const std::size_t groups = plan.group_start.size() - 1;
  std::vector<std::size_t> take(q.messages.size(), groups);
  std::vector<std::uint32_t> pending(q.nodes.front().buffers.size(), no_message);
  const auto touch = [&](std::uint32_t buffer, std::size_t g) {
    if (buffer == no_buffer || pending[buffer] == no_message) return;
    take[pending[buffer]] = g;
    pending[buffer] = no_message;
  };
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const Task& t = tasks[k];
    for (const std::uint32_t b : buffers_of(q.nodes.front(), t)) touch(b, group_of[k]);
    if (t.kind != TaskKind::Receive || t.buffer == no_buffer) continue;
    if (plan.sent_at[t.message] < plan.start_of[k]) take[t.message] = group_of[k];
    else pending[t.buffer] = t.message;
  }
  return take;
}

// A message's copy holds its slot from its send's group to its take's group, both included.
void assign_slots(const LockstepPlan& plan, const std::vector<std::size_t>& group_of, const std::vector<std::size_t>& take,
                  LockstepPlan& out) {
  std::vector<std::uint32_t> by_send;
  for (std::uint32_t m = 0; m < plan.sent_at.size(); ++m)
    if (plan.sent_at[m] != no_message && !plan.dropped[m]) by_send.push_back(m);
  std::sort(by_send.begin(), by_send.end(), [&](std::uint32_t a, std::uint32_t b) { return plan.sent_at[a] < plan.sent_at[b]; });
  std::vector<std::size_t> last_take;  // per slot
  out.slot.assign(plan.sent_at.size(), 0);
  for (const std::uint32_t m : by_send) {
    const std::size_t sent = group_of[plan.sent_at[m]];
    auto free = std::find_if(last_take.begin(), last_take.end(), [&](std::size_t t) { return t < sent; });
    if (free == last_take.end()) free = last_take.insert(last_take.end(), 0);
    *free = take[m];
    out.slot[m] = static_cast<std::uint32_t>(free - last_take.begin());
  }
  out.slots = static_cast<std::uint32_t>(last_take.size());
}

// The components of the nodes under the displacements: each node's representative.
std::vector<std::uint32_t> components(const TorusShape& shape, const std::vector<NodeCoord>& displacements) {
  std::vector<std::uint32_t> parent(shape.node_count());
  std::iota(parent.begin(), parent.end(), 0u);
  const auto root = [&](std::uint32_t n) {
    while (parent[n] != n) n = parent[n] = parent[parent[n]];
    return n;
  };
  const auto wrap = [](int v, int p) { return v >= p ? v - p : v; };
  for (const NodeCoord& d : displacements)
    for (std::uint32_t n = 0; n < parent.size(); ++n) {
      const NodeCoord c = shape.coord_of(n);
      const auto to = static_cast<std::uint32_t>(shape.index_of({wrap(c.q + d.q, shape.p1), wrap(c.r + d.r, shape.p2), wrap(c.s + d.s, shape.p3)}));
      parent[root(n)] = root(to);
    }
  for (std::uint32_t n = 0; n < parent.size(); ++n) parent[n] = root(n);
  return parent;
}

std::size_t count_roots(const std::vector<std::uint32_t>& rep) {
  std::size_t count = 0;
  for (std::uint32_t n = 0; n < rep.size(); ++n) count += rep[n] == n;
  return count;
}

// Enough components to share evenly among the threads, two at least per thread (the cosets are
// all the same size).
bool enough(std::size_t components, unsigned threads) {
  return components >= 2 * std::size_t{threads} && (components % threads == 0 || components >= 8 * std::size_t{threads});
}

LockstepPhase component_phase(std::size_t first, std::size_t end, const std::vector<std::uint32_t>& rep) {
  LockstepPhase phase{first, end, {}, {}};
  std::vector<std::uint32_t> nodes(rep.size());
  std::iota(nodes.begin(), nodes.end(), 0u);
  std::stable_sort(nodes.begin(), nodes.end(), [&](std::uint32_t a, std::uint32_t b) { return rep[a] < rep[b]; });
  phase.order = nodes;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (i == 0 || rep[nodes[i]] != rep[nodes[i - 1]]) phase.unit_start.push_back(i);
  phase.unit_start.push_back(nodes.size());
  return phase;
}

// Phases, greedily as long as they can be: a phase takes the next group while the components of
// the displacements of every message sent within it are still enough. Every copy sent in a phase
// then stays in its component, so each node's mailbox is written by its own component alone, in
// the order of the groups (which the slots assume), whichever groups other components are at.
void plan_phases(const Program& q, const std::vector<std::size_t>& group_of, unsigned threads, LockstepPlan& plan) {
  const std::size_t groups = plan.group_start.size() - 1;
  std::vector<std::vector<NodeCoord>> sent_in(groups);  // per group: the displacements of its messages
  for (std::uint32_t m = 0; m < plan.sent_at.size(); ++m) {
    if (plan.sent_at[m] == no_message || plan.dropped[m]) continue;
    std::vector<NodeCoord>& d = sent_in[group_of[plan.sent_at[m]]];
    if (std::find(d.begin(), d.end(), plan.reach[m]) == d.end()) d.push_back(plan.reach[m]);
  }
  for (std::size_t first = 0; first < groups;) {
    std::vector<NodeCoord> displacements = sent_in[first];
    std::vector<std::uint32_t> rep;
    std::size_t end = first + 1;
    for (; end < groups; ++end) {
      std::vector<NodeCoord> wider = displacements;
      for (const NodeCoord& d : sent_in[end])
        if (std::find(wider.begin(), wider.end(), d) == wider.end()) wider.push_back(d);
      if (wider.size() == displacements.size() && !rep.empty()) continue;
      std::vector<std::uint32_t> wider_rep = components(q.shape, wider);
      if (!enough(count_roots(wider_rep), threads)) break;
      displacements = std::move(wider);
      rep = std::move(wider_rep);
    }
    if (end - first >= 2) plan.phases.push_back(component_phase(first, end, rep));
    else plan.phases.push_back(LockstepPhase{first, end, {}, {}});
    first = end;
  }
}

}  // namespace

LockstepPlan plan_lockstep(const Program& q, unsigned threads) {
  if (!q.translation_quotient || q.nodes.size() != 1) throw std::logic_error("execute_quotient needs a translation quotient");
  const std::vector<Task>& tasks = q.nodes.front().tasks;
  LockstepPlan plan;
  plan.sent_at.assign(q.messages.size(), no_message);
  plan.dropped.assign(q.messages.size(), false);
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const Task& t = tasks[k];
    if (t.kind == TaskKind::Send) plan.sent_at[t.message] = static_cast<std::uint32_t>(k);
    if (t.kind == TaskKind::Receive && t.buffer == no_buffer) plan.dropped[t.message] = true;
  }
  for (const Message& m : q.messages) {
    NodeCoord at{0, 0, 0};
    for (const Direction d : q.route(m)) at = q.shape.ring_neighbour(at, d);
    plan.reach.push_back(at);
  }
  plan_groups(q, plan);
  std::vector<std::size_t> group_of(tasks.size());
  for (std::size_t g = 0; g + 1 < plan.group_start.size(); ++g)
    std::fill(group_of.begin() + static_cast<std::ptrdiff_t>(plan.group_start[g]),
              group_of.begin() + static_cast<std::ptrdiff_t>(plan.group_start[g + 1]), g);
  const std::vector<std::size_t> take = take_groups(q, plan, group_of);
  assign_slots(plan, group_of, take, plan);
  plan_phases(q, group_of, std::max(1u, threads), plan);
  return plan;
}

}  // namespace torus
