#pragma once
// The whole machine for one Program: a clock, one node per Program node and one link channel
// per node and direction that the Program's routes use, wired in one loop with modular
// neighbour arithmetic. It stops the
// simulation when every node has finished, or when nothing has moved for `watchdog_cycles`
// while work remains.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/cycle/link_channel.hpp"
#include "models/cycle/link_update_phase.hpp"
#include "models/cycle/node.hpp"
#include "models/cycle/wake_calendar.hpp"
#include "sim/fault_config.hpp"
#include "sim/rational.hpp"

namespace torus {

struct TopConfig {
  Cycle fma_latency = 1;
  unsigned fma_per_cycle = 1;
  Cycle link_latency = 1;
  Rational link_rate;
  std::uint64_t link_buffer_words = 1;
  Cycle message_startup = 0;  // cycles before a message's first word may leave its source
  std::uint64_t fma_per_butterfly = 8;  // fma of one FFT butterfly (docs/timing-model.md, "FFT tasks")
  Cycle watchdog_cycles = 100000;
  bool fast_forward = true;
  // Host threads that step the nodes when every node steps every cycle (fast-forward off or
  // refused for all), each a partition of consecutive nodes; otherwise one. Results do not
  // depend on it (models/cycle/step_threads.hpp).
  std::size_t threads = 1;
  // Test hook: nodes whose index is in this set run with fast-forward off (empty: all alike).
  std::vector<std::size_t> stepping_nodes;
  bool trace_tasks = false;  // keep per-task first/last cycles (tests)
  bool step_spans = false;   // keep per-step spans (a Chrome trace)
  FaultKind fault = FaultKind::None;
  std::size_t fault_node = 0;
  Direction fault_link = Direction::PlusQ;
  Cycle fault_cycle = 0;
  int fault_bit = 52;
  // Called every 64 cycles with the cycle, for a progress display; empty: not called (the
  // watchdog then looks at the run only when a stall could be due).
  std::function<void(Cycle)> on_progress;
};

// The torus's link channels, children of a module of their own: those that carry traffic (and
// the one a fault is injected into), and one idle channel that stands for every other (it
// carries nothing: its counters stay zero). SystemC finds an object to remove by a linear
// search from the front of its parent's children and of the kernel's channels, and moves the
// last entry into the gap: removing the first link and then the others from the last, each is
// found at once, and tearing down a large torus takes linear time.
class LinkSet : public sc_core::sc_module {
 public:
  // `used[k]`: link k carries traffic. `value_parts`: doubles a word's value needs on the links
  // (NodeDatapath::value_parts).
  LinkSet(const sc_core::sc_module_name& name, const std::vector<bool>& used, const TopConfig& config, std::size_t value_parts);
  ~LinkSet() override;
  LinkSet(const LinkSet&) = delete;
  LinkSet& operator=(const LinkSet&) = delete;
  LinkChannel& operator[](std::size_t k) { return links_[k] ? *links_[k] : *idle_; }
  const LinkChannel& operator[](std::size_t k) const { return links_[k] ? *links_[k] : *idle_; }
  bool used(std::size_t k) const { return links_[k] != nullptr; }
  std::size_t idle_bytes() const { return idle_->bytes() + links_.capacity() * sizeof(links_[0]); }

 private:
  UpdateChain chain_;
  std::vector<std::unique_ptr<LinkChannel>> links_;  // nullptr: the link carries nothing
  std::unique_ptr<LinkChannel> idle_;
};

class TorusTop : public sc_core::sc_module {
 public:
  using DatapathFactory = std::function<std::unique_ptr<NodeDatapath>(std::size_t node)>;

  TorusTop(const sc_core::sc_module_name& name, const TopConfig& config, const Program& program,
           const MicroSchedule& micro_schedule, const RollPolicy& policy, bool split_complex,
           const DatapathFactory& make_datapath);

  // Made only when some node steps every cycle (fast-forward off or refused) and so needs each
  // rising edge; the others are woken by the calendar for the cycles they ask for, and a run in
  // which every node sleeps (a slow link's gaps, a stall) skips to the next cycle anything is due.
  std::unique_ptr<sc_core::sc_clock> clock;
  WakeCalendar wake_calendar;
  sc_core::sc_vector<Node> nodes;

  const Program& program() const { return *shared_.program; }
  const LinkChannel& link(std::size_t node, Direction direction) const {
    return (*links_)[node * direction_count + static_cast<std::size_t>(direction)];
  }
  // Whether the link exists on its own (it carries traffic), or link() is the shared idle one.
  bool link_used(std::size_t node, Direction direction) const {
    return links_->used(node * direction_count + static_cast<std::size_t>(direction));
  }
  bool completed() const { return finished_nodes_ == nodes.size(); }
  Cycle completion_cycle() const { return completion_cycle_; }
  bool watchdog_fired() const { return watchdog_fired_; }
  const std::vector<std::string>& stall_report() const { return stall_report_; }
  // After the watchdog fired: the cycle (or chain) of waits from the least advanced node.
  const std::string& wait_chain() const { return wait_chain_; }
  // SystemC time units in one cycle (a cycle is 1 ns).
  static Cycle period_ticks() { return sc_core::sc_time(1, sc_core::SC_NS).value(); }
  // Whether the nodes keep per-step spans (a Chrome trace, or per-task traces for tests).
  bool keeps_step_spans() const { return config_.step_spans || config_.trace_tasks; }
  // Bytes of the tables the nodes share (per message, per kernel) and of the idle link.
  std::size_t shared_bytes() const { return shared_.bytes() + links_->idle_bytes() + wake_calendar.bytes(); }
  // What the injected fault did, or empty if none was set or it never fired.
  std::string fault_record() const;
  // The nodes' step figures added up so far (all of them once the run has completed), but the
  // words sent, which each node keeps (StepLog).
  StepTotals step_totals() const;
  // Host threads that step the nodes (TopConfig::threads, where it applies).
  std::size_t stepping_threads() const { return step_totals_.size(); }

 private:
  void watch();
  void step_clocked();
  void step_range(std::size_t first, std::size_t last, Cycle cycle);
  void stage_links_for_threads();
  std::string chain_of_waits(std::size_t first, Cycle cycle) const;
  bool sent_in_full(std::uint32_t message) const;
  void inject_fault();

  LinkScratch scratch_;
  std::vector<StepTotals> step_totals_;  // one per partition of the stepping nodes
  std::vector<DeferredCalls> deferred_;  // per partition, when more than one
  std::unique_ptr<StepThreads> threads_;
  std::unique_ptr<LinkUpdatePhase> update_phase_;  // the staged links' update phase, with threads_
  NodePlans plans_;
  std::unique_ptr<LinkSet> links_;  // index: node * 6 + the direction its words travel
  RunShared shared_;
  TopConfig config_;
  std::vector<Node*> clocked_;  // the nodes that may step every cycle, in node order
  Cycle watch_deadline_ = 0;  // no stall can be found before this cycle (watch())
  std::size_t finished_nodes_ = 0;
  Cycle completion_cycle_ = 0;
  bool watchdog_fired_ = false;
  std::vector<std::string> stall_report_;
  std::string wait_chain_;
};

}  // namespace torus
