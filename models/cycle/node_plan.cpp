#include "models/cycle/node_plan.hpp"

#include <algorithm>

namespace torus {
namespace {

std::size_t hash_plan(const NodePlan& plan) {
  std::size_t h = plan.info.size() * 0x9e3779b97f4a7c15ull ^ plan.computes.size();
  for (const std::uint32_t v : plan.info) h = (h ^ v) * 0x100000001b3ull;
  for (const ComputeFlow& c : plan.computes) h = (h ^ c.task ^ (std::size_t{c.accumulator_generation} << 32)) * 0x100000001b3ull;
  return h;
}

std::size_t fft_bytes(const FftDataflow& f) {
  return (f.input_generations.capacity() + f.filled_by.capacity() + f.output_generations.capacity()) * sizeof(std::uint32_t);
}

}  // namespace

NodePlan plan_node(const NodeProgram& node, const std::vector<FftSpec>& ffts) {
  NodeDataflow dataflow = analyse_dataflow(node, ffts);
  const std::vector<TaskDataflow>& flow = dataflow.tasks;
  NodePlan plan;
  plan.ffts = std::move(dataflow.ffts);
  plan.info.resize(flow.size());
  for (std::uint32_t i = 0; i < flow.size(); ++i) {
    const Task& t = node.tasks[i];
    plan.steps = std::max(plan.steps, t.label.global_step + 1);
    if (t.kind == TaskKind::Fft) {
      plan.info[i] = flow[i].fft;
    } else if (t.kind != TaskKind::Compute) {
      plan.info[i] = flow[i].generation;
    } else {
      plan.info[i] = static_cast<std::uint32_t>(plan.computes.size());
      plan.computes.push_back({i, flow[i].generation, flow[i].operand_generation, flow[i].coefficient_generation, flow[i].filled_by});
    }
  }
  plan.computes.shrink_to_fit();
  return plan;
}

std::size_t NodePlan::bytes() const {
  std::size_t total = sizeof(NodePlan) + info.capacity() * sizeof(std::uint32_t) + computes.capacity() * sizeof(ComputeFlow) +
                      ffts.capacity() * sizeof(FftDataflow);
  for (const FftDataflow& f : ffts) total += fft_bytes(f);
  return total;
}

NodePlans::NodePlans(const Program& program) {
  of_node_.reserve(program.nodes.size());
  for (const NodeProgram& node : program.nodes) of_node_.push_back(&intern(plan_node(node, program.ffts)));
}

const NodePlan& NodePlans::intern(NodePlan plan) {
  const std::size_t h = hash_plan(plan);
  const auto [first, last] = plans_.equal_range(h);
  for (auto it = first; it != last; ++it)
    if (*it->second.plan == plan) {
      ++it->second.users;
      return *it->second.plan;
    }
  return *plans_.emplace(h, Entry{std::make_unique<NodePlan>(std::move(plan)), 1})->second.plan;
}

std::size_t NodePlans::share_bytes(const NodePlan& plan) const {
  const auto [first, last] = plans_.equal_range(hash_plan(plan));
  for (auto it = first; it != last; ++it)
    if (it->second.plan.get() == &plan) return plan.bytes() / it->second.users;
  return plan.bytes();
}

}  // namespace torus
