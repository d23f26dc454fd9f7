#pragma once
// What the parts of one node share: its slice of the Program, the scoreboard, the datapath,
// the fma unit, its link ports and what it has counted. The parts (task sequencer, link
// ports, node module) each own their own logic and reach the shared state through this.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "models/cycle/datapath.hpp"
#include "models/cycle/fma_pipeline.hpp"
#include "models/cycle/link_channel.hpp"
#include "models/cycle/node_memory.hpp"
#include "sim/dataflow.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/roll_policy.hpp"

namespace torus {

struct NodeStats {
  std::uint64_t busy_cycles = 0;          // at least one fma issued
  std::uint64_t dependency_stalls = 0;    // waiting for an earlier fma's result (pipeline latency)
  std::uint64_t operand_stalls = 0;       // waiting for words still on their way
  std::uint64_t backpressure_stalls = 0;  // waiting for words while an outgoing link has no credit
  std::uint64_t words_received = 0;       // stored or dropped by this node's receives
  std::uint64_t words_sent = 0;           // of this node's own messages
  std::uint64_t words_forwarded = 0;      // of other nodes' messages passing through
  std::uint64_t fast_forwarded_fma = 0;   // issued ahead by fast-forward (the rest stepped cycle by cycle)
  Cycle finish_cycle = never;             // first cycle with nothing left to do
};

// Per task: compute: first fma, cycle its last result is usable, fma issued; send: first and
// last word's cycle, words sent; receive: words stored (first and last cycle).
struct TaskRecord {
  Cycle first = never;
  Cycle last = never;
  std::uint32_t count = 0;
};

// What the engine shares by all nodes of one run.
struct RunShared {
  const Program* program = nullptr;
  std::vector<std::uint32_t> receive_task_of;  // per message: its receive in the destination's list
  std::vector<std::uint32_t> send_task_of;     // per message: its send in the source's list
  std::vector<MicroProgram> micro;             // per kernel
  const RollPolicy* policy = nullptr;
  bool split_complex = false;
};

struct NodeContext {
  std::size_t index = 0;
  const RunShared* run = nullptr;
  const NodeProgram* node = nullptr;
  std::vector<TaskDataflow> flow;
  std::vector<TaskRecord> records;
  NodeMemory memory;
  std::unique_ptr<NodeDatapath> datapath;
  FmaPipeline* pipeline = nullptr;
  std::array<LinkSendIf*, direction_count> out{};
  std::array<LinkReceiveIf*, direction_count> in{};
  NodeStats stats;
  std::uint64_t incoming_left = 0;  // words this node's receives still have to take
  Cycle last_progress = 0;          // last cycle an fma issued or a word moved
  // Set by whoever changes what may leave (a word stored, a compute finished, a send posted),
  // so the ports re-check queue heads they had found blocked.
  bool send_state_changed = true;
  std::string fault_record;
  int corrupt_bit = -1;  // flip this bit of the first coefficient word loaded

  const Task& task(std::uint32_t i) const { return node->tasks[i]; }
  const Program& program() const { return *run->program; }
  [[noreturn]] void fail(const std::string& what) const;
};

}  // namespace torus
