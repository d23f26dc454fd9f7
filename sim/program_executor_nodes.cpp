#include "sim/program_executor_nodes.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace torus::executor {

ProgramExecutionCounts& counts_of(NodeState& node, std::uint32_t transform) {
  std::vector<ProgramExecutionCounts>& counts = node.counts;
  if (transform >= counts.size()) counts.resize(transform + 1, fresh_execution_counts());
  return counts[transform];
}

void open_step(NodeState& node, const TaskLabel& label) {
  close_step(node);
  node.in_step = true;
  node.step = label;
  node.sent = 0;
  node.steps_opened.push_back({label.global_step, label.transform});
}

void close_step(NodeState& node) {
  if (!node.in_step) return;
  node.in_step = false;
  if (node.step.stage < 1 || node.step.stage > 3) return;
  const std::size_t stage = node.step.stage - 1;
  if (node.step.transform >= node.counts.size()) node.counts.resize(node.step.transform + 1, fresh_execution_counts());
  ProgramExecutionCounts& c = node.counts[node.step.transform];
  c.words_sent_per_node_step[stage] = std::max(c.words_sent_per_node_step[stage], node.sent);
  c.words_sent_per_node_step_min[stage] = std::min(c.words_sent_per_node_step_min[stage], node.sent);
}

MergedCounts merge_counts(const std::vector<NodeState>& nodes, std::size_t transforms, std::size_t words_held) {
  for (const NodeState& node : nodes) transforms = std::max(transforms, node.counts.size());
  std::vector<ProgramExecutionCounts> per_transform(transforms, fresh_execution_counts());
  ProgramExecutionCounts total = fresh_execution_counts();
  std::vector<std::uint8_t> seen;
  for (const NodeState& node : nodes) {
    for (std::size_t t = 0; t < node.counts.size(); ++t) {
      add_counts(per_transform[t], node.counts[t]);
      add_counts(total, node.counts[t]);
    }
    for (const auto& [global, transform] : node.steps_opened) {
      if (global >= seen.size()) seen.resize(global + 1, 0);
      if (seen[global]) continue;
      seen[global] = 1;
      ++per_transform[transform].steps;
      ++total.steps;
    }
  }
  settle_counts(total, words_held);
  for (ProgramExecutionCounts& c : per_transform) settle_counts(c, words_held);
  return {total, std::move(per_transform)};
}

std::string deadlock(const Program& program, const std::vector<NodeState>& nodes) {
  std::string text;
  std::size_t waiting = 0;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].done || waiting++ >= 8) continue;
    const Message& m = program.messages[nodes[n].waiting];
    const std::size_t pc = nodes[n].pc;
    text += fmt::format("\n  node {} at {} waits for message {} ({} from {}), never sent",
                        program.describe_node(n), pc < program.nodes[n].tasks.size() ? fmt::format("task {}", pc) : "the end of its list",
                        nodes[n].waiting, program.describe(m.tag), program.describe_node(m.source));
  }
  return fmt::format("the Program cannot progress: {} node{} wait for messages no node can send{}{}", waiting,
                     waiting == 1 ? "" : "s", text, waiting > 8 ? "\n  ..." : "");
}

}  // namespace torus::executor
