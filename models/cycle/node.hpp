#pragma once
// One torus node: a generic executor of its Program task list, with an fma unit, local
// buffers and six link ports with a router. In each cycle it receives arrived words, issues
// fma, and sends or forwards words (docs/timing-model.md). It knows no algorithm: what it
// computes and sends comes from the Program; values from the datapath, time from the pipeline
// and the links.
//
// Every activation derives its cycle from SystemC time, and a second activation at the same
// time does nothing, so a node that sleeps (fast-forward, waiting) and one that steps every
// cycle see the same cycles whatever order SystemC runs them in.

#include <bit>
#include <functional>
#include <memory>
#include <string>

#include "models/cycle/link_ports.hpp"
#include "models/cycle/node_context.hpp"
#include "models/cycle/step_threads.hpp"
#include "models/cycle/task_sequencer.hpp"
#include "models/cycle/wake_calendar.hpp"

namespace torus {

struct NodeSettings {
  Cycle period_ticks = 1000;
  Cycle fma_latency = 1;
  unsigned fma_per_cycle = 1;
  bool fast_forward = true;
  std::uint8_t out_mask = 0;    // link directions this node sends or forwards on
  std::uint8_t in_mask = 0;     // link directions it receives on
  bool passes_traffic = false;  // some message passes through it
  bool trace_tasks = false;     // keep per-task first/last cycles (tests of hand-built Programs)
  bool step_spans = false;      // keep per-step spans (a Chrome trace; implied by trace_tasks)
};

class Node : public sc_core::sc_module, public Wakeable {
 public:
  // Ports for the directions in the node's masks only (NodeSettings), in direction order: a
  // port is 152 bytes, and a node of a roll schedule uses half of the twelve. out_port(d) sends
  // to the neighbour in direction d, in_port(d) receives from it; nullptr where no route of the
  // node's traffic goes. Every port made must be bound.
  sc_core::sc_vector<sc_core::sc_port<LinkSendIf>> out{"out"};
  sc_core::sc_vector<sc_core::sc_port<LinkReceiveIf>> in{"in"};
  sc_core::sc_port<LinkSendIf>* out_port(std::size_t d) { return port_of(out, settings_.out_mask, d); }
  sc_core::sc_port<LinkReceiveIf>* in_port(std::size_t d) { return port_of(in, settings_.in_mask, d); }

  // `clock_stepped`: the torus steps the nodes that step every cycle at each rising edge of its
  // clock (step_on_clock; false when it has no clock: a logic error for a node that must step);
  // `calendar` wakes the node when it sleeps; `finished` is called once.
  Node(const sc_core::sc_module_name& name, std::size_t index, const RunShared& run, const NodeSettings& settings,
       std::unique_ptr<NodeDatapath> datapath, bool clock_stepped, WakeCalendar& calendar,
       std::function<void(std::size_t, Cycle)> finished);

  // For the torus's clock, called at each rising edge for every node that may step every cycle
  // (fast-forward off or refused), in node order, from one process; it steps the node unless
  // it sleeps (finished, routing only, waiting: the calendar wakes it). One process for all of
  // them, rather than one each, saves SystemC's dispatch per node and cycle and lets the torus
  // ask for the next nodes' state ahead. The node's own process stays parked on its wake event.
  void step_on_clock(Cycle cycle);
  // Hints for the clock's process, which steps the nodes in a known order (models/prefetch.hpp):
  // the lines of the node's object that a stepped cycle reads; then, once those are in, the
  // scoreboard words the next fma reads.
  void prefetch_cycle_state() const;
  void prefetch_cycle_words() const { sequencer_.prefetch_next_fma(); }
  // Stepped on a thread of its own partition (models/cycle/step_threads.hpp): while `calls`
  // collects, finishing and arming the wake calendar are deferred to it, and the clock's
  // process makes each call afterwards through complete_deferred.
  void defer_to(DeferredCalls* calls) { deferred_ = calls; }
  void complete_deferred(const DeferredCalls::NodeCall& call);

  std::size_t index() const { return context_.index; }
  const NodeStats& stats() const { return context_.stats; }
  // Words a receive has stored or a send has sent so far.
  std::uint32_t words_done(std::uint32_t task) const { return context_.words_done(task); }
  std::span<const ComputeFlow> computes() const { return context_.computes; }
  const std::vector<NarrowCycle>& compute_done() const { return context_.compute_done; }
  const StepLog& step_log() const { return context_.steps; }
  const std::vector<TaskRecord>& task_trace() const { return context_.trace; }  // empty unless asked
  const FmaPipeline& pipeline() const { return pipeline_; }
  const NodeDatapath& datapath() const { return *context_.datapath; }
  bool finished() const { return context_.stats.finish_cycle != never; }
  Cycle last_progress() const { return context_.last_progress; }
  // Bytes of node state besides the buffer values: the object, scoreboard, task and step
  // records, its share of its plan, its queues of messages waiting for a link.
  std::size_t state_bytes() const;
  // Faults: stop issuing fma from `cycle` on; flip `bit` of the first coefficient word loaded.
  void inject_stuck(Cycle cycle) { stuck_from_ = cycle; }
  void inject_corrupt_coefficient(int bit) { context_.corrupt_bit = bit; }
  const std::string& fault_record() const { return context_.fault_record; }
  // How far the node got (tasks passed, fma of the current compute), for ordering diagnostics.
  std::pair<std::size_t, std::size_t> progress() const;
  std::string waiting_for(Cycle cycle) const;
  // When stalled: the node this one waits on and why ("message 12 (X'(0,1,2))", "a credit on
  // +Q"), or {no_node, ""} when it waits on nothing outside itself.
  static constexpr std::size_t no_node = static_cast<std::size_t>(-1);
  std::pair<std::size_t, std::string> waits_on(Cycle cycle) const;
  std::uint32_t awaited_message() const;  // the message behind waits_on(), or no_task
  // Why fast-forward could not engage for this run's settings, or empty when it could.
  std::string fast_forward_refusal() const { return fast_forward_refusal(settings_, *context_.run->policy); }
  // The same, before a node is made: a node it refuses steps every cycle on the clock.
  static std::string fast_forward_refusal(const NodeSettings& settings, const RollPolicy& policy);
  // For waveforms: whether an fma issued this cycle, and the cycle's class (0 busy,
  // 1 dependency, 2 operands, 3 back-pressure, 4 idle).
  const bool& trace_busy() const { return trace_busy_; }
  const unsigned& trace_state() const { return trace_state_; }

  // For the wake calendar (Wakeable): the event it notifies; what the object points to (its
  // links, buffer records, queues); the words those point to (the current compute's, the head
  // sends'). And how many bytes of the object, from its Wakeable part on, it reads: the part
  // worth asking for ahead.
  sc_core::sc_event& wake_event() override { return wake_; }
  void prefetch_links() const override;
  void prefetch_words() const override;
  static std::size_t hot_bytes();

 private:
  enum class Trigger : std::uint8_t { Tick, Wake, WakeOrTimeout };
  // One port per direction in `mask`, named after its direction ("out_3").
  template <class Port>
  static void make_ports(sc_core::sc_vector<Port>& ports, std::uint8_t mask) {
    const auto count = static_cast<std::size_t>(std::popcount(mask));
    if (count == 0) return;  // sc_vector takes no empty init
    ports.init(count, [&ports, mask](const char*, std::size_t k) {
      std::size_t d = 0;
      for (std::size_t seen = 0;; ++d)
        if (((mask >> d) & 1u) && seen++ == k) break;
      return new Port((std::string(ports.basename()) + "_" + std::to_string(d)).c_str());  // sc_vector owns it
    });
  }
  template <class Port>
  static Port* port_of(sc_core::sc_vector<Port>& ports, std::uint8_t mask, std::size_t d) {
    if (!((mask >> d) & 1u)) return nullptr;
    return &ports[static_cast<std::size_t>(std::popcount(static_cast<unsigned>(mask & ((1u << d) - 1u))))];
  }
  void start_of_simulation() override;
  void activate();  // the node's own process
  void activate_at(Cycle cycle);
  void step(Cycle cycle);
  void account(Cycle cycle, std::size_t issued, Blocked blocked);
  bool can_fast_forward(Cycle cycle, Cycle& limit) const;
  void issue_ahead_from_next(Cycle cycle);
  bool enter_ahead(Cycle cycle);
  void maybe_sleep(Cycle cycle, Blocked blocked);
  void sleep(Cycle cycle, Cycle until, bool waiting, bool starved = false);
  void arm(Trigger trigger, Cycle cycle);
  void arm_calendar(Cycle timeout, bool listening);
  bool deferring() const { return deferred_ && deferred_->collecting; }
  bool done(Cycle cycle) const;
  void finish(Cycle cycle);
  void route_only(Cycle cycle);

  NodeContext context_;
  NodeSettings settings_;
  alignas(64) FmaPipeline pipeline_;  // in one line: every issuing cycle reads and writes it
  LinkPorts ports_;
  TaskSequencer sequencer_;
  WakeCalendar& calendar_;
  std::function<void(std::size_t, Cycle)> on_finished_;
  sc_core::sc_event wake_;
  // The flags last, together: one node object per torus node, so no padding between them; and
  // in one cache line, which every stepped cycle reads.
  alignas(64) Cycle wake_at_ = never;
  Cycle last_cycle_ = never;
  Cycle issue_resume_ = 0;       // cycles before this were issued and accounted ahead of time
  Cycle sleep_from_ = 0;
  Cycle stuck_from_ = never;
  unsigned trace_state_ = 4;
  Trigger trigger_ = Trigger::Tick;
  bool fast_forward_enabled_ = false;
  bool batching_ = false;  // send-ahead and take-ahead (LinkPorts), with fast-forward
  bool asleep_ = false;
  bool waiting_asleep_ = false;  // asleep waiting for words: the skipped cycles are operand stalls
  // ... and out of credit: they are back-pressure stalls; a credit starting back wakes the node.
  bool starved_asleep_ = false;
  bool trace_busy_ = false;
  bool calendar_armed_ = false;  // the wake calendar holds an arming of this node
  bool clocked_ = false;         // step_on_clock steps the node
  bool in_process_ = false;      // the current activation runs in the node's own process
  DeferredCalls* deferred_ = nullptr;  // read only when the node finishes or sleeps
};

}  // namespace torus
