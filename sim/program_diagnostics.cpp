#include "sim/program_diagnostics.hpp"

#include <optional>
#include <vector>

namespace torus {
namespace verifier {

std::string ProgramNames::node(std::size_t n) const {
  return n < p_.shape.node_count() ? p_.describe_node(n) : fmt::format("#{}", n);
}
std::string ProgramNames::buffer(std::size_t n, std::uint32_t b) const {
  const auto& buffers = p_.nodes[n].buffers;
  const std::uint16_t kind = b < buffers.size() ? buffers[b].kind : std::uint16_t{0};
  if (b >= buffers.size() || kind >= p_.tag_kinds.size()) return fmt::format("b{}", b);
  return fmt::format("b{} ({})", b, p_.tag_kinds[kind].name);
}
std::string ProgramNames::message(std::uint32_t m) const {
  const Message& msg = p_.messages[m];
  return fmt::format("message {} ({} from {} to {})", m, p_.describe(msg.tag), node(msg.source), node(msg.destination));
}
std::string ProgramNames::task(std::size_t n, std::uint32_t k) const {
  const Task& t = p_.nodes[n].tasks[k];
  const TaskDetail* d = detail_of(n, t);
  const std::string block = d ? p_.describe(d->tag) : fmt::format("detail {} missing", t.detail);
  switch (t.kind) {
    case TaskKind::Load: return fmt::format("task {} (load {})", k, block);
    case TaskKind::Compute: return fmt::format("task {} (compute {})", k, block);
    case TaskKind::Send: return fmt::format("task {} (send of message {})", k, t.message);
    case TaskKind::Receive: return fmt::format("task {} (receive of message {})", k, t.message);
    case TaskKind::Fft: return fmt::format("task {} (fft into {})", k, block);
  }
  return fmt::format("task {}", k);
}

namespace {

void follow_route(const Program& program, std::uint32_t m, std::size_t node, std::size_t task, const ProgramNames& names, ViolationLog& log) {
  const Message& msg = program.messages[m];
  NodeCoord at = program.shape.coord_of(msg.source);
  const std::span<const Direction> route = program.route(msg);
  for (std::size_t h = 0; h < route.size(); ++h) {
    const std::optional<NodeCoord> next = program.shape.neighbour(at, route[h]);
    if (!next) {
      log.fail(node, task, [&] {
        return fmt::format("{}: hop {} ({}) from node {} leaves the mesh", names.message(m), h, to_string(route[h]), to_string(at));
      });
      return;
    }
    at = *next;
  }
  // In a quotient the copy that arrives is the neighbour's: any chain of links will do.
  if (!program.translation_quotient && program.shape.index_of(at) != msg.destination)
    log.fail(node, task, [&] {
      return fmt::format("{}: its route is not a chain of links to the destination; it ends at node {}", names.message(m), to_string(at));
    });
}

std::size_t waiting_task(const Program& program, std::span<const NodeState> nodes, std::span<const MessageState> messages,
                         std::size_t n) {
  if (nodes[n].pc < program.nodes[n].tasks.size()) return nodes[n].pc;
  const MessageState& m = messages[nodes[n].waiting];
  return m.receiver == n ? m.receive_task : whole_program;
}

// `holder`: per message, the node whose pending task sends it.
std::string wait_chain(const Program& program, std::span<const NodeState> nodes, std::span<const MessageState> messages,
                       const ProgramNames& names, std::size_t first, const std::vector<std::uint32_t>& holder) {
  constexpr std::size_t shown = 12;
  std::vector<std::uint32_t> seen(nodes.size(), none);
  std::string text = "deadlock, no node can progress: node " + names.node(first);
  for (std::size_t n = first, links = 0;; ++links) {
    seen[n] = static_cast<std::uint32_t>(links);
    const std::uint32_t m = nodes[n].waiting, from = holder[m];
    const std::size_t task = waiting_task(program, nodes, messages, n);
    const std::string where = task == whole_program ? "at its end" : "at " + names.task(n, static_cast<std::uint32_t>(task));
    if (links < shown)
      text += fmt::format(" {} waits for message {} from node {}", where, m, names.node(from == none ? program.messages[m].source : from));
    else if (links == shown) text += " ...";
    if (from == none) return text + ", which never sends it";
    if (seen[from] != none) return text + ": a cycle of " + plural(links + 1 - seen[from], "waiting node");
    if (links + 1 < shown) text += ", which";
    n = from;
  }
}

}  // namespace

void check_message(const Program& program, std::uint32_t m, const MessageState& s, const ProgramNames& names, ViolationLog& log) {
  ++log.result().messages_checked;
  const Message& msg = program.messages[m];
  const std::size_t node = s.sender != none ? s.sender : msg.source < program.nodes.size() ? msg.source : whole_program;
  const std::size_t task = s.sender != none ? s.send_task : whole_program;
  if (s.sender == none) log.fail(node, task, [&] { return names.message(m) + " is never sent"; });
  else if (s.sender != msg.source)
    log.fail(node, task, [&] { return fmt::format("{} is sent here, but its source is node {}", names.message(m), names.node(msg.source)); });
  if (s.receiver == none) log.fail(node, task, [&] { return names.message(m) + " is never received"; });
  else if (s.receiver != msg.destination)
    log.fail(s.receiver, s.receive_task,
         [&] { return fmt::format("{} is received here, but its destination is node {}", names.message(m), names.node(msg.destination)); });
  if (msg.words != program.words_of(msg.tag))
    log.fail(node, task, [&] { return fmt::format("{} carries {} words; its block has {}", names.message(m), msg.words, program.words_of(msg.tag)); });
  const std::size_t count = program.nodes.size();
  if (std::size_t{msg.route_begin} + msg.hops > program.routes.size())
    log.fail(node, task, [&] {
      return fmt::format("{}: its {} hops from {} run past the Program's {} route hops", names.message(m), msg.hops,
                         msg.route_begin, program.routes.size());
    });
  else if (program.translation_quotient && msg.hops == 0)
    log.fail(node, task, [&] { return names.message(m) + " has an empty route in a translation quotient (each copy must move)"; });
  else if (msg.source >= count || msg.destination >= count)
    log.fail(node, task, [&] { return fmt::format("{}: the array has {}", names.message(m), plural(count, "node")); });
  else if (msg.hops == 0 && msg.source != msg.destination)
    log.fail(node, task, [&] { return names.message(m) + " has an empty route between different nodes"; });
  else
    follow_route(program, m, node, task, names, log);
}

void report_deadlock(const Program& program, std::span<const NodeState> nodes, std::span<const MessageState> messages,
                     const ProgramNames& names, ViolationLog& log) {
  std::vector<std::uint32_t> holder(messages.size(), none);
  for (std::size_t n = 0; n < nodes.size(); ++n)
    for (std::size_t k = nodes[n].pc; k < program.nodes[n].tasks.size(); ++k) {
      const Task& t = program.nodes[n].tasks[k];
      if (t.kind == TaskKind::Send && t.message < holder.size() && holder[t.message] == none)
        holder[t.message] = static_cast<std::uint32_t>(n);
    }
  std::size_t first = 0;
  while (nodes[first].done) ++first;
  log.fail(first, waiting_task(program, nodes, messages, first),
           [&] { return wait_chain(program, nodes, messages, names, first, holder); });
}

}  // namespace verifier

std::string to_string(const Program& program, const ProgramViolation& v) {
  if (v.node >= program.nodes.size()) return "program: " + v.message;
  std::string where = "node " + (v.node < program.shape.node_count() ? program.describe_node(v.node) : fmt::format("#{}", v.node));
  const auto& tasks = program.nodes[v.node].tasks;
  if (v.task < tasks.size()) {
    const TaskLabel& l = tasks[v.task].label;
    const bool known = tasks[v.task].kind <= TaskKind::Fft;
    where += fmt::format(", task {} ({}, transform {} stage {} step {})", v.task, known ? to_string(tasks[v.task].kind) : "?",
                         l.transform, l.stage, l.step);
  }
  return where + ": " + v.message;
}

}  // namespace torus
