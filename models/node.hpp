#pragma once
// One torus node: an fma unit, local memory (two buffers per block kind, so a block can arrive
// while its predecessor is still in use) and six bidirectional link ports. Every cycle the node
// receives arrived words, issues fma in micro-program order, and sends rolled words as the roll
// policy releases them. Values come from the datapath; time from the pipeline and the links.

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "models/datapath.hpp"
#include "models/fma_pipeline.hpp"
#include "models/link_channel.hpp"
#include "models/ring_queue.hpp"
#include "models/sequencer.hpp"
#include "sim/roll_policy.hpp"

namespace torus {

struct NodeStats {
  std::uint64_t busy_cycles = 0;          // at least one fma issued
  std::uint64_t dependency_stalls = 0;    // waiting for an earlier fma's result (pipeline latency)
  std::uint64_t operand_stalls = 0;       // waiting for words still on their way
  std::uint64_t backpressure_stalls = 0;  // waiting for words while an outgoing link has no credit
  std::uint64_t words_received = 0;
  std::uint64_t words_sent = 0;
  std::uint64_t fast_forwarded_fma = 0;   // issued ahead by fast-forward (the rest stepped cycle by cycle)
  Cycle finish_cycle = never;             // first cycle with nothing left to do
};

// Called by a node when it finishes.
struct NodeObserver {
  std::function<void(std::size_t node, Cycle)> finished;
};

class Node : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> clock{"clock"};
  sc_core::sc_port<ScheduleFeedIf> feed{"feed"};
  // Indexed by Direction: out[d] sends to the neighbour in direction d, in[d] receives from it.
  sc_core::sc_vector<sc_core::sc_port<LinkSendIf>> out{"out", direction_count};
  sc_core::sc_vector<sc_core::sc_port<LinkReceiveIf>> in{"in", direction_count};

  // fast_forward: skip cycles whose outcome is already known (see Node::fast_forward); the
  // results are identical either way, only faster.
  Node(const sc_core::sc_module_name& name, std::size_t index, Cycle period, Cycle fma_latency, unsigned fma_per_cycle,
       const RollPolicy& policy, std::unique_ptr<NodeDatapath> datapath, NodeObserver observer, bool fast_forward);

  const NodeStats& stats() const { return stats_; }
  const FmaPipeline& pipeline() const { return pipeline_; }
  const NodeDatapath& datapath() const { return *datapath_; }
  const std::vector<Cycle>& step_start_cycles() const { return step_start_; }
  const std::vector<std::uint32_t>& words_sent_per_step() const { return words_sent_per_step_; }
  const std::vector<std::uint32_t>& fma_per_step() const { return fma_per_step_; }
  // Per step: the cycle its last fma result became usable, and its first and last word sent
  // (never when the step sent nothing).
  const std::vector<Cycle>& compute_done_cycles() const { return compute_done_; }
  const std::vector<Cycle>& first_send_cycles() const { return first_send_; }
  const std::vector<Cycle>& last_send_cycles() const { return last_send_; }
  std::size_t index() const { return index_; }
  // Words of local memory the node allocates: the paper's 4b^3 + 3b^2 plus the second buffer
  // of every kind that rolls.
  std::size_t second_buffer_words() const;
  bool finished() const { return stats_.finish_cycle != never; }
  // The last cycle in which the node issued an fma or moved a word.
  Cycle last_progress() const { return last_progress_; }
  // The block a buffer holds (for gathering results after the run).
  const BlockId& held_block(Slot slot) const { return buffer(slot).block; }
  // For waveforms: whether an fma issued this cycle, and what the cycle was (0 busy,
  // 1 dependency stall, 2 waiting for operands, 3 link back-pressure, 4 idle).
  const bool& trace_busy() const { return trace_busy_; }
  const unsigned& trace_state() const { return trace_state_; }
  // Faults: stop issuing fma from `cycle` on; flip `bit` of the first coefficient word loaded.
  void inject_stuck(Cycle cycle) { stuck_from_ = cycle; }
  void inject_corrupt_coefficient(int bit) { corrupt_bit_ = bit; }
  const std::string& fault_record() const { return fault_record_; }
  // How far the node got: (step, fma within it), for ordering diagnostics.
  std::pair<std::size_t, std::size_t> progress() const { return {step_, next_instruction_}; }
  // A one-line account of what the node waits for (for diagnostics).
  std::string waiting_for(Cycle cycle) const;

 private:
  struct WordState {
    Cycle ready = 0;              // first cycle the value may be read (max over components)
    std::uint32_t content_step = 0;
    bool owed = false;            // must be sent before the place can take a new word
  };
  struct Buffer {
    std::vector<WordState> words;
    std::vector<Cycle> component_ready;  // split complex only: per target, word * 2 + component
    std::vector<std::uint16_t> writes_left;  // per word, updates still to come this step
    BlockId block;
    std::uint32_t filled_step = ~0u;
    std::uint32_t filled_words = 0;
  };
  struct Outgoing {
    Slot slot;
    std::uint32_t word;
    std::uint32_t step;
    SendRelease release;
  };
  enum class Blocked { None, Dependency, Data };

  void start_of_simulation() override;
  void on_clock();
  void receive(Cycle cycle);
  bool store(const LinkWord& word, Cycle cycle);
  std::size_t issue(Cycle cycle, Blocked& blocked);
  void enter_step(Cycle cycle);
  bool gate_open() const;
  void load_transform(std::size_t transform, Cycle cycle);
  void prepare_rolls();
  void issue_fma(const FmaInstruction& instruction, Cycle cycle, Cycle& target_ready);
  void finish_step();
  void send(Cycle cycle);
  bool sendable(const Outgoing& o, Cycle cycle) const;
  // The earliest cycle a blocked head could leave, or `never` if that depends on future events.
  Cycle release_cycle(const Outgoing& o) const;
  void wake_senders() { send_retry_at_.fill(0); }
  void account(Cycle cycle, std::size_t issued, Blocked blocked);
  bool can_fast_forward(Cycle cycle, Cycle& limit) const;
  void fast_forward(Cycle cycle, Cycle limit);
  void maybe_sleep(Cycle cycle, Blocked blocked);
  bool done(Cycle cycle) const;
  // The word holds this step's content and may be read by `cycle`.
  static bool present(const WordState& w, std::uint32_t step, Cycle cycle) {
    return w.content_step == step && w.ready <= cycle;
  }

  Buffer& buffer(Slot s) { return buffers_[static_cast<std::size_t>(s.kind)][static_cast<std::size_t>(s.buffer)]; }
  const Buffer& buffer(Slot s) const { return buffers_[static_cast<std::size_t>(s.kind)][static_cast<std::size_t>(s.buffer)]; }
  Slot slot_of(BlockKind kind, std::size_t step) const;
  void place_block(Slot s, const BlockId& block, Cycle cycle, std::uint32_t step);
  [[noreturn]] void fail(const std::string& what) const;

  // What the current step works on, looked up once when the step is entered.
  struct StepContext {
    const StepPlan* plan = nullptr;
    const MicroProgram* program = nullptr;
    Slot accumulator{}, operand{}, coefficient{};
    Buffer* accumulator_buffer = nullptr;
    Buffer* operand_buffer = nullptr;
    Buffer* coefficient_buffer = nullptr;
    int final_words_direction = -1;  // where accumulator words go when final, or -1
    bool whole_blocks = true;        // the roll policy waits for whole blocks before a step
  };

  std::size_t index_;
  Cycle period_ticks_;
  const RollPolicy& policy_;
  std::unique_ptr<NodeDatapath> datapath_;
  NodeObserver observer_;
  FmaPipeline pipeline_;
  std::array<std::array<Buffer, 2>, block_kind_count> buffers_;
  std::array<RingQueue<Outgoing>, direction_count> outgoing_;
  std::size_t components_ = 1;

  std::size_t step_ = 0;
  std::size_t next_instruction_ = 0;
  bool step_entered_ = false;
  bool step_started_ = false;
  std::vector<Cycle> step_start_;
  std::vector<Cycle> compute_done_;
  std::vector<std::uint32_t> words_sent_per_step_;
  std::vector<std::uint32_t> fma_per_step_;
  std::vector<Cycle> first_send_;
  std::vector<Cycle> last_send_;
  Cycle last_result_ = 0;
  std::size_t incoming_left_ = 0;
  NodeStats stats_;
  StepContext context_;
  std::size_t step_count_ = 0;
  const ScheduleFeedIf* schedule_ = nullptr;  // the bound feed, looked up once (hot path)
  std::array<LinkSendIf*, direction_count> out_links_{};
  std::array<LinkReceiveIf*, direction_count> in_links_{};
  std::vector<std::size_t> send_directions_;     // directions any roll of the run uses
  std::vector<std::size_t> receive_directions_;  // the ports facing back along them
  Cycle next_cycle_ = never;  // the node wakes every cycle until it finishes, so it counts them
  std::array<ArrivalHint, direction_count> arrival_hint_{};  // lowered by the links
  // Fast-forward: the node may issue the rest of a step in one activation and sleep.
  bool fast_forward_enabled_ = false;
  Cycle issue_resume_ = 0;   // cycles before this were issued and accounted ahead of time
  bool asleep_ = false;
  bool waiting_asleep_ = false;  // asleep while waiting for words: the skipped cycles are operand stalls
  Cycle sleep_from_ = 0;
  sc_core::sc_event wake_;
  // Per direction: no queued word can leave before this cycle (never: not until the node's
  // state changes, which resets it). Saves re-checking a blocked queue head every cycle.
  std::array<Cycle, direction_count> send_retry_at_{};
  Cycle last_progress_ = 0;
  Cycle stuck_from_ = never;
  int corrupt_bit_ = -1;
  std::string fault_record_;
  bool trace_busy_ = false;
  unsigned trace_state_ = 4;
  sc_core::sc_event never_event_;  // never notified: a finished node sleeps on it
};

}  // namespace torus
