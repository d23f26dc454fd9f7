#pragma once
// What the parts of one node share: its slice of the Program, the scoreboard, the datapath,
// the fma unit, its link ports and what it has counted. The parts (task sequencer, link
// ports, node module) each own their own logic and reach the shared state through this.

#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/cycle/compute_schedule.hpp"
#include "models/datapath.hpp"
#include "models/cycle/fma_pipeline.hpp"
#include "models/cycle/link_channel.hpp"
#include "models/cycle/node_memory.hpp"
#include "models/cycle/node_plan.hpp"
#include "models/cycle/step_log.hpp"
#include "models/cycle/step_threads.hpp"
#include "models/cycle/task_window.hpp"
#include "models/engine_records.hpp"
#include "sim/dataflow.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/roll_policy.hpp"

namespace torus {

// The first eight fields (64 bytes) are read or counted in every stepped cycle: NodeContext keeps
// them right after its own hot fields, in the same two cache lines.
struct NodeStats {
  std::uint64_t activations = 0;          // cycles at which SystemC ran the node (what fast-forward saves)
  Cycle finish_cycle = never;             // first cycle with nothing left to do
  std::uint64_t busy_cycles = 0;          // at least one fma issued
  std::uint64_t dependency_stalls = 0;    // waiting for an earlier fma's result (pipeline latency)
  std::uint64_t operand_stalls = 0;       // waiting for words still on their way
  std::uint64_t words_received = 0;       // stored or dropped by this node's receives
  std::uint64_t words_sent = 0;           // of this node's own messages
  std::uint64_t words_forwarded = 0;      // of other nodes' messages passing through
  std::uint64_t backpressure_stalls = 0;  // waiting for words while an outgoing link has no credit
  std::uint64_t fast_forwarded_fma = 0;   // issued ahead by fast-forward (the rest stepped cycle by cycle)
  // Per outgoing link: cycles messages waited from asking for it to their first word leaving
  // (links held by others, credits), over every message and hop that took it.
  std::array<std::uint64_t, direction_count> link_wait{};
  std::vector<std::uint64_t> fft_fma, fft_butterflies;  // per transform, of the FFT tasks passed
};

// Per task, kept only when asked (tests of hand-built Programs): compute: first fma, cycle its
// last result is usable, fma issued; send: first and last word's cycle, words sent; receive:
// first and last word stored, words stored.
struct TaskRecord {
  Cycle first = never;
  Cycle last = never;
  std::uint32_t count = 0;
};

// Working space for a node's batched sends, shared by the nodes of one run (SystemC runs one
// process at a time, and no node keeps it across calls).
struct LinkScratch {
  std::vector<std::complex<double>> values;
  std::vector<Cycle> leave;
};

// What the engine shares by all nodes of one run.
struct RunShared {
  const Program* program = nullptr;
  // Per message: its receive in the destination's list (no_task: none). The buffer it lands in
  // and its words are read from the Program: looked up once per message arriving, they are not
  // worth 8 more bytes a message (about 190 messages a node at P = 16).
  std::vector<std::uint32_t> receive_of;
  std::vector<MicroProgram> micro;             // per kernel
  std::vector<ComputeSchedule> schedules;      // per kernel, for fast-forward
  const RollPolicy* policy = nullptr;
  Cycle message_startup = 0;  // message_startup_cycles (docs/timing-model.md, "Links")
  std::uint64_t fma_per_butterfly = 8;  // docs/timing-model.md, "FFT tasks"
  bool split_complex = false;
  LinkScratch* scratch = nullptr;
  // The nodes add theirs (StepLog): one set per partition of nodes stepped on a thread of its
  // own (models/cycle/step_threads.hpp), `step_parts` of them from `step_totals`.
  StepTotals* step_totals = nullptr;
  std::size_t step_parts = 1;
  std::size_t node_count = 1;
  StepTotals& totals_of(std::size_t node) const {
    return step_parts == 1 ? step_totals[0] : step_totals[partition_of(node, node_count, step_parts)];
  }
  NodePlans* plans = nullptr;  // the nodes' plans, shared where equal
  std::size_t bytes() const;   // of the tables above (the plans count with their nodes)
};

struct NodeContext {
  std::size_t index = 0;
  const RunShared* run = nullptr;
  const NodeProgram* node = nullptr;
  // The node's plan (shared with the nodes that have the same), seen through its parts.
  const NodePlan* plan = nullptr;
  std::span<const std::uint32_t> info;      // NodePlan::info
  std::span<const ComputeFlow> computes;    // NodePlan::computes
  std::span<const FftDataflow> ffts;        // NodePlan::ffts
  std::vector<NarrowCycle> compute_done;    // per compute: the cycle its last result is usable
  std::vector<TaskRecord> trace;     // per task, when asked
  // Each of the next two in one cache line (the context is aligned and the fields above fill
  // two lines): every fma notes its step, every word its task.
  StepLog steps;                     // per global step label
  // Per receive and send still in play: words stored or sent (TaskWindow; the others are not
  // counted, they are known by the sequencer's pointer).
  TaskWindow counts;
  // Receives completed ahead of time by words taken at commit (LinkPorts::take): the cycle their
  // last word arrives. Until then they count as incomplete. Added only through add_completion,
  // which keeps completions_pending (in the hot lines below) true while any is held.
  std::vector<std::pair<std::uint32_t, Cycle>> completions;
  void add_completion(std::uint32_t receive, Cycle at) {
    completions.push_back({receive, at});
    completions_pending = true;
  }
  bool complete_by(std::uint32_t receive, Cycle cycle) const {
    if (words_done(receive) < words_of(receive)) return false;
    for (const auto& [task, at] : completions)
      if (task == receive) return at <= cycle;
    return true;
  }
  Cycle next_completion() const {
    Cycle next = never;
    for (const auto& c : completions) next = std::min(next, c.second);
    return next;
  }
  void forget_completions(Cycle cycle) {
    if (!completions_pending) return;  // asked every stepped cycle: the list's own line is not read then
    std::erase_if(completions, [cycle](const auto& c) { return c.second <= cycle; });
    completions_pending = !completions.empty();
  }
  // The receives (and their words) a compute entered but not started waits for in whole
  // (after_compute); no_task where a role is not received, all of them when nothing waits.
  std::array<std::uint32_t, 3> gate{no_task, no_task, no_task};
  std::array<std::uint32_t, 3> gate_words{};
  bool in_gate(std::uint32_t receive) const { return receive != no_task && std::find(gate.begin(), gate.end(), receive) != gate.end(); }
  // When every receive of the gate has all its words counted: the cycle the last of them is
  // complete, at which the gate opens; never while words are still to come or no gate waits.
  Cycle gate_opens_at() const {
    Cycle open = never;
    for (std::size_t r = 0; r < gate.size(); ++r) {
      if (gate[r] == no_task) continue;
      if (words_done(gate[r]) < gate_words[r]) return never;
      Cycle at = 0;
      for (const auto& [task, when] : completions)
        if (task == gate[r]) at = when;
      open = open == never ? at : std::max(open, at);
    }
    return open;
  }
  NodeMemory memory;
  std::array<LinkSendIf*, direction_count> out{};
  std::array<LinkReceiveIf*, direction_count> in{};
  // What a stepped cycle reads and writes, from here to the counters at the head of `stats`,
  // kept together: two cache lines.
  alignas(64) std::unique_ptr<NodeDatapath> datapath;
  FmaPipeline* pipeline = nullptr;
  std::uint64_t incoming_left = 0;  // words this node's receives still have to take
  Cycle sent_ahead_until = 0;       // the last cycle a word of its own scheduled ahead leaves
  const std::uint32_t* posted_before = nullptr;  // receives before this task index are posted
  Cycle last_progress = 0;          // last cycle an fma issued or a word moved
  // Set by whoever changes what may leave (a word stored, a compute finished, a send posted),
  // so the ports re-check queue heads they had found blocked.
  bool send_state_changed = true;
  bool completions_pending = false;  // !completions.empty()
  NodeStats stats;
  std::string fault_record;
  int corrupt_bit = -1;  // flip this bit of the first coefficient word loaded

  const Task& task(std::uint32_t i) const { return node->tasks[i]; }
  const TaskDetail& detail(std::uint32_t i) const { return node->detail(node->tasks[i]); }  // a load, compute or fft
  std::uint32_t words_of(std::uint32_t receive_or_send) const { return run->program->messages[task(receive_or_send).message].words; }
  // Words stored by a receive or sent by a send so far (all of them once it is retired).
  std::uint32_t words_done(std::uint32_t receive_or_send) const {
    return counts.retired(receive_or_send) ? words_of(receive_or_send) : counts.count(receive_or_send);
  }
  // Whether task `i`'s count is no longer needed: passed by the sequencer and, for a receive
  // or send, with all its words (nothing asks about it then but as finished).
  bool count_settled(std::uint32_t i) const {
    if (i >= *posted_before) return false;
    const Task& t = task(i);
    return (t.kind != TaskKind::Receive && t.kind != TaskKind::Send) || counts.count(i) == words_of(i);
  }
  // Counts one word of receive or send `i` at `cycle` (and traces it when asked).
  void note(std::uint32_t i, Cycle cycle) { note_run(i, 1, cycle, cycle); }
  // note() for `n` words of task `i`, the first at cycle `first`, the last at `last`.
  void note_run(std::uint32_t i, std::size_t n, Cycle first, Cycle last) {
    counts.add(i, static_cast<std::uint32_t>(n), [this](std::uint32_t t) { return count_settled(t); });
    trace_run(i, n, first, last);
  }
  // Traces `n` fma of a compute or FFT task issued from `first` to `last` (when asked; its
  // progress is the sequencer's).
  void trace_run(std::uint32_t i, std::size_t n, Cycle first, Cycle last) {
    if (trace.empty()) return;
    TaskRecord& r = trace[i];
    if (r.count == 0) r.first = first;
    r.count += static_cast<std::uint32_t>(n);
    r.last = last;
  }
  // keep_trace: per-task first and last cycles; keep_spans: per-step spans (StepLog).
  void allocate_plan(const NodePlans& plans, bool keep_trace, bool keep_spans);
  const Program& program() const { return *run->program; }
  [[noreturn]] void fail(const std::string& what) const;
};

}  // namespace torus
