#pragma once
// What the dataflow analysis fixes for a node before it runs (sim/dataflow.hpp), kept only as
// far as the engine reads it: per task its generation (or its index among the computes or the
// FFT tasks), per compute the generations it reads and the receives it waits for. In a torus
// running one schedule most nodes get the same plan, so the nodes of a run share one copy of
// each distinct plan instead of holding their own (a node's plan is as large as its scoreboard
// at P = 16).

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/dataflow.hpp"
#include "sim/program.hpp"

namespace torus {

// Per compute task, in list order: the generations it reads and the receive tasks (accumulator,
// operand, coefficient) whose words it must wait for, or no_task.
struct ComputeFlow {
  std::uint32_t task = 0;
  std::uint32_t accumulator_generation = 0, operand_generation = 0, coefficient_generation = 0;
  std::array<std::uint32_t, 3> filled_by{};
  bool operator==(const ComputeFlow&) const = default;
};

struct NodePlan {
  // Per task: load, receive, send: the buffer generation it writes or sends; compute: its index
  // in `computes`; FFT: its index in `ffts`.
  std::vector<std::uint32_t> info;
  std::vector<ComputeFlow> computes;
  std::vector<FftDataflow> ffts;  // per FFT task, in list order
  std::uint32_t steps = 0;        // global step labels the list reaches
  bool operator==(const NodePlan&) const = default;
  std::size_t bytes() const;
};

NodePlan plan_node(const NodeProgram& node, const std::vector<FftSpec>& ffts);

// The distinct plans of one run's nodes, and which one each node uses. All are made before the
// first node is built, so that the analysis's temporaries, and the copies found equal to one
// already kept, leave no holes between the nodes' own allocations.
class NodePlans {
 public:
  NodePlans() = default;
  explicit NodePlans(const Program& program);
  const NodePlan& of(std::size_t node) const { return *of_node_[node]; }
  // A node's share of its plan's bytes: the plan over the nodes that use it.
  std::size_t share_bytes(const NodePlan& plan) const;

 private:
  struct Entry {
    std::unique_ptr<NodePlan> plan;
    std::size_t users = 0;
  };
  // The shared copy equal to `plan` (kept until the run ends).
  const NodePlan& intern(NodePlan plan);

  std::unordered_multimap<std::size_t, Entry> plans_;  // by a hash of the plan
  std::vector<const NodePlan*> of_node_;
};

}  // namespace torus
