#pragma once
// Walks a node's task list in order. Loads happen when reached; receives are posted when
// reached (from then on their words may land); a compute is entered when the fma unit has a
// slot, issues its fma in micro-program order, and is passed when its last fma has issued.
// Entering a compute also posts the run of sends that directly follows it, so the send
// policy may let words leave while it computes. See docs/timing-model.md, "Programs".

#include <cstdint>
#include <functional>

#include "models/cycle/node_context.hpp"

namespace torus {

enum class Blocked : std::uint8_t { None, Dependency, Data };

class alignas(64) TaskSequencer {
 public:
  // post_send: queue a send task on its port (the ports decide when its words leave).
  // post_send(task, compute, cycle): `compute` indexes NodeContext::computes (the last compute
  // before the send), or is no_task. `policy`: whether a compute starts only once every block
  // it receives is complete, and whether a word's last update can release a send.
  TaskSequencer(NodeContext& context, const RollPolicy& policy,
                std::function<void(std::uint32_t task, std::uint32_t compute, Cycle)> post_send);

  // Once the context holds the node's Program: the pointer at the first task.
  void start();

  // The issue phase of one cycle: returns the fma issued; `blocked` says why it stopped.
  std::size_t issue(Cycle cycle, Blocked& blocked);

  // Fast-forward: with the compute started and whole blocks, the fma up to (not including) the
  // last, and not in the last's cycle, can be issued ahead until `limit` (nothing outside the
  // node can change when they issue before then); likewise an FFT task once entered (its passes
  // wait for nothing but each other). Returns the cycle the node resumes issuing at.
  bool can_fast_forward() const;
  Cycle fast_forward(Cycle cycle, Cycle limit);

  // Fast-forward: the issue phase of `cycle` done ahead, when all it would do is enter the
  // compute at the pointer (or find its buffer not yet free) and stop for its inputs. True when
  // it did so; false, with nothing done or the compute entered and its gate open by `cycle`,
  // when that cycle must be stepped. Only words arriving by `cycle` could open the gate, and a
  // word sent to the node wakes it at its arrival.
  bool enter_ahead(Cycle cycle);

  // When the next task waits to overwrite a buffer whose words are all committed to links but
  // not yet gone: the first cycle it may (never otherwise).
  Cycle replaceable_at(Cycle cycle) const;

  // Asks for the words of the compute entered at the pointer, if any (models/prefetch.hpp).
  void prefetch_current() const {
    if (entered_ && next_kind_ == TaskKind::Compute) prefetch_inputs();
  }

  // The scoreboard words of the fma at the head of the compute being issued, and the
  // sequencer's own fields (models/prefetch.hpp).
  void prefetch_next_fma() const {
    if (!entered_ || next_kind_ != TaskKind::Compute || instruction_ >= current_.count) return;
    const FmaInstruction& i = current_.instructions[instruction_];
    __builtin_prefetch(current_.accumulator + i.accumulator, 1);
    __builtin_prefetch(current_.operand + i.operand);
    __builtin_prefetch(current_.coefficient + i.coefficient);
  }
  void prefetch_state() const {
    __builtin_prefetch(this);
    __builtin_prefetch(&cycle_, 1);
  }

  std::uint32_t next_task() const { return next_; }
  const std::uint32_t* next_task_pointer() const { return &next_; }
  bool all_passed() const { return next_ == task_count_; }
  bool compute_started() const { return started_; }
  // The fma of the current compute issued so far, and how many it has.
  std::pair<std::size_t, std::size_t> compute_progress() const;
  Cycle last_result() const { return last_result_; }
  // When the walk stopped at a load or a compute whose buffer still had words leaving (words
  // that may have left since, in the send phase): the cycle it may go on; never otherwise.
  Cycle resumes_at() const { return replacing_ == no_buffer ? never : context_.memory.replaceable_from(replacing_); }
  // The current (or next) compute task, or no_task.
  std::uint32_t current_compute() const;

 private:
  bool pass_non_compute(Cycle cycle, Blocked& blocked);
  bool enter(Cycle cycle, Blocked& blocked);
  // Posts the run of sends directly after the task at the pointer (for the last compute entered).
  void post_following_sends(Cycle cycle);
  bool gate_open() const;
  // Checks the fma at the head; returns false (and why) when it cannot issue at `cycle`.
  bool ready_to_issue(Cycle cycle, Blocked& blocked) const;
  bool usable_by(const FmaInstruction& i, Cycle cycle) const;
  void issue_one(Cycle cycle);
  // A run of fma issued ahead: its first and last issue cycles and how many cycles issue.
  struct RunTiming {
    Cycle first = never, last = never;
    std::size_t cycles = 0;
  };
  template <bool split>
  void time_run(Cycle cycle, Cycle limit, RunTiming& run);
  bool last_joins(std::size_t from, Cycle cycle) const;
  bool whole_run_fits(Cycle cycle, Cycle limit) const;
  void prefetch_inputs() const;
  void place_whole_run(RunTiming& run);
  Cycle account_run(Cycle cycle, std::size_t count, const RunTiming& run);
  void finish(Cycle cycle);
  void load(const Task& task, Cycle cycle);
  NarrowCycle& target_ready(const FmaInstruction& instruction);
  // FFT tasks (fft_sequencer.cpp; docs/timing-model.md, "FFT tasks"). step_fft: enters the FFT
  // at the pointer or issues its fma of this cycle; true when it was passed.
  bool step_fft(Cycle cycle, Blocked& blocked, std::size_t& issued);
  bool enter_fft(Cycle cycle, Blocked& blocked);
  void finish_fft(Cycle usable);
  Cycle fft_replaceable_at(Cycle cycle) const;
  // An FFT task entered at the pointer, and its fma still to issue.
  bool in_fft() const { return entered_ && next_kind_ == TaskKind::Fft; }
  // Moves the pointer to the next task (the only way it moves).
  void advance() {
    ++next_;
    if (next_ < task_count_) next_kind_ = context_.task(next_).kind;
  }
  std::uint64_t fft_left() const { return (fft_.passes - fft_.pass) * fft_.per_pass - fft_.issued; }
  Cycle fast_forward_fft(Cycle cycle, Cycle limit);

  // What the compute being issued works on, looked up once when it is entered: what every fma
  // reads (hot path); and what only entering, prefetching and the per-word gate read.
  struct Current {
    const FmaInstruction* instructions = nullptr;
    std::size_t count = 0;
    WordState* accumulator = nullptr;
    const WordState* operand = nullptr;
    const WordState* coefficient = nullptr;
    NarrowCycle* component_ready = nullptr;  // split complex only
    std::uint16_t* writes_left = nullptr;  // per accumulator word (NodeMemory::expect_updates)
    std::uint32_t accumulator_buffer = 0, operand_buffer = 0, coefficient_buffer = 0;
  };
  struct Extent {  // 32-bit counts: a node's words are indexed by 32 bits (NodeMemory)
    std::uint32_t operand_words = 0, coefficient_words = 0;
    std::uint32_t accumulator_generation = 0, operand_generation = 0, coefficient_generation = 0;
  };

  // What every stepped cycle reads and writes, first and in the object's first two cache lines
  // (the class is aligned to them; prefetch_state): the context, the compute being issued and
  // the walk's state. What changes only between tasks follows.
  NodeContext& context_;
  Current current_;
  std::uint32_t next_ = 0;
  // The list's length and the kind of the task at the pointer, kept here: read every cycle, they
  // would otherwise cost a look into the Program each time.
  std::uint32_t task_count_ = 0;
  std::size_t instruction_ = 0;
  Cycle last_result_ = 0;
  Cycle cycle_ = 0;             // the cycle being issued
  std::uint32_t replacing_ = no_buffer;  // the buffer a load or compute waits to replace
  std::uint32_t step_ = 0;  // the global step label of the compute
  TaskKind next_kind_ = TaskKind::Load;
  bool entered_ = false;
  bool started_ = false;
  bool whole_blocks_ = true;
  // Some send of the policy leaves word by word as each word's last update retires (WordFinal):
  // only then does a word becoming final change when a queued send may leave. Otherwise every
  // fma of a compute's last pass made each port look at its queues again, in vain.
  bool finals_release_sends_ = true;
  bool tracing_ = false;  // the context keeps per-task records (NodeContext::trace)
  Extent extent_;
  const MicroProgram* micro_ = nullptr;
  std::uint32_t posted_until_ = 0;  // sends before this index have been posted
  std::uint32_t last_compute_ = no_task;  // index in NodeContext::computes of the last compute entered
  Cycle first_cycle_ = 0;       // when the current compute's first fma issued
  struct FftProgress {
    std::uint64_t per_pass = 0, passes = 0;
    std::uint64_t pass = 0, issued = 0;  // the current pass, and its fma issued so far
    Cycle pass_start = 0;                // its first fma issues no earlier
    Cycle last_result = 0;               // of the current pass's fma issued so far
  } fft_;
  std::function<void(std::uint32_t, std::uint32_t, Cycle)> post_send_;
};

}  // namespace torus
