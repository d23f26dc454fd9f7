#pragma once
// The state the event engine keeps per node, buffer, message and link. Times are whole
// cycles; a time not yet known is simply not computed yet (the engine evaluates every quantity
// once its inputs are known, docs/timing-model.md gives the rules). Values live in the nodes'
// datapaths, exactly as in the SystemC engine.

#include <algorithm>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/datapath.hpp"
#include "models/engine_records.hpp"
#include "models/event/block_schedule.hpp"
#include "models/event/fma_schedule.hpp"
#include "models/event/time_forms.hpp"
#include "sim/dataflow.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/rational.hpp"
#include "sim/roll_policy.hpp"

namespace torus::event {

// Per task, kept when asked (tests of hand-built Programs), as the SystemC engine keeps them:
// compute: first fma, cycle its last result is usable, fma issued; send: first and last word's
// leaving cycle, words; receive: first and last word stored, words.
struct TaskSpan {
  Cycle first = never;
  Cycle last = never;
  std::uint32_t count = 0;
  void note(Cycle cycle) {
    if (count++ == 0) first = cycle;
    last = cycle;
  }
};

struct Params {
  Cycle fma_latency = 1;
  unsigned per_cycle = 1;
  Cycle link_latency = 1;
  Rational rate{1, 1};
  std::uint64_t buffer_words = 1;
  Cycle message_startup = 0;  // cycles before a message's first word may leave its source
  std::uint64_t fma_per_butterfly = 8;  // fma of one FFT butterfly (docs/timing-model.md, "FFT tasks")
  bool whole_blocks = true;  // the roll policy starts a compute only on complete blocks
  bool split = false;        // complex data on a real unit: two dependency targets per word
  bool trace_tasks = false;  // keep a TaskSpan per task
  bool per_word = false;     // test hook: no closed forms, every whole compute timed per instruction
};

// What a compact buffer knows of a run of its words, from the end of the run before up to
// `end`: the generation they hold and the forms of their times (since: stored or placed; left:
// last left on a link). A block occupies the first words of its buffer, so a buffer that holds
// blocks of several sizes over time keeps one run per size its words last saw.
struct Segment {
  std::size_t end = 0;
  std::uint32_t generation = 0;
  TimeForm ready, since, left;
};

// One buffer of a node: per word, when its value is usable, which generation it holds and since
// when, when its last update of the running compute is usable (for words sent as they become
// final), and the last cycle it left on a link. While its words all follow closed forms (the
// buffer is `compact`: loaded, zeroed, stored by a whole message or updated by a closed-form
// compute as a whole block, of any size) it keeps the forms, per run of words (Segment),
// instead of the per-word vectors, which expand() builds the first time a per-word rule needs them.
struct BufferTimes {
  std::vector<Cycle> ready, since, left;
  std::vector<Cycle> component_ready;  // split complex: word * 2 + component
  std::vector<std::uint32_t> generation;
  std::vector<std::uint16_t> writes_left;
  Cycle busy_until = never;                // the last cycle any word of it left
  Cycle last_store = 0;                    // the last cycle a receive stored a word in it
  DataTag tag;
  std::vector<std::uint32_t> active_sends;  // messages posted from it whose words have not all left
  std::vector<std::uint32_t> active_receives;  // messages posted into it whose words are not all stored
  // When its last change was a whole compute timed by an FmaSchedule: which, and its first cycle
  // (the targets are then usable as that schedule says); none otherwise.
  std::uint32_t schedule = ~std::uint32_t{0};
  Cycle schedule_start = 0;
  // Or a whole compute timed by a closed form (BlockSchedules): its targets' pattern, from schedule_start.
  bool closed_form = false;
  ReadyPattern pattern;
  void forget_schedule() {
    schedule = ~std::uint32_t{0};
    closed_form = false;
  }
  bool compact = false;
  std::size_t size = 0;
  bool split = false;
  std::uint16_t compact_writes_left = 0;
  std::vector<Segment> segments;  // compact: in order of their ends, the last one's is `size`

  // Compact: whether the first `words` words are all usable at one cycle (`at`), and the last
  // cycle any of them left on a link (0 if none ever did).
  bool ready_at_once(std::size_t words, Cycle& at) const;
  Cycle latest_left(std::size_t words) const;
  // Changes the runs of the first `words` words by `change` (split at `words` first).
  template <class Change>
  void set(std::size_t words, Change change) {
    split_at(words);
    for (Segment& s : segments) {
      if (s.end > words) break;
      change(s);
    }
  }
  const Segment& segment_of(std::size_t w) const;

  // Each of the first `words` words (the block a compute reads leads its buffer) holds `g` and
  // is usable by `cycle`.
  bool usable_by(std::uint32_t g, Cycle cycle, std::size_t words) const;
  // compact: no per-word vectors until a per-word rule needs them.
  void allocate(std::size_t words, bool split, bool compact);
  void place(std::uint32_t generation, Cycle cycle);  // load or zero: every word from `cycle`
  // An FFT's output: every word holds `generation` from `since`, its value usable from `ready`.
  void place_result(std::uint32_t generation, Cycle since, Cycle ready);
  void expand();
  bool holds(std::uint32_t g, std::size_t words) const;  // each of the first `words` words holds `g`
  Cycle latest(std::size_t words) const;                 // the last of the first `words` words usable
  Cycle latest_since(std::size_t words) const;           // the last of them stored or placed
  std::uint32_t generation_at(std::size_t w) const { return compact ? segment_of(w).generation : generation[w]; }
  Cycle ready_at(std::size_t w) const { return compact ? segment_of(w).ready.at(w) : ready[w]; }
  std::uint16_t writes_left_at(std::size_t w) const { return compact ? compact_writes_left : writes_left[w]; }
  void set_writes_left(std::uint16_t count) {
    if (compact) compact_writes_left = count;
    else std::fill(writes_left.begin(), writes_left.end(), count);
  }

 private:
  void split_at(std::size_t words);
};

struct MessageState {
  // Sender: posted on the port of its first hop.
  bool posted = false;
  Cycle posted_at = never;
  Cycle granted_at = never;      // when it got a link that messages passing through also ask for
  std::uint32_t through = ~std::uint32_t{0};  // its second hop in EventEngine::hops_ (more follow in order), if any
  std::uint16_t hops = 1;                     // links on its route
  std::uint32_t buffer = no_buffer, generation = 0;
  std::uint32_t compute = no_task;  // index of the compute it follows in the sender's compute list
  SendRelease release = SendRelease::ComputeDone;
  const std::vector<std::uint32_t>* order = nullptr;     // word order; nullptr: 0, 1, 2, ...
  const std::vector<std::uint32_t>* position = nullptr;  // each word's place in `order`
  std::uint64_t link_base = 0;   // index of its first word among all words of its link
  std::uint32_t sent = 0;        // words whose leaving cycle is known
  std::uint32_t step = 0;        // the send's global step label
  std::uint32_t send_task = no_task, receive_task = no_task;
  // Receiver.
  bool receive_posted = false;
  Cycle receive_posted_at = never;
  std::uint32_t into = no_buffer, into_generation = 0;
  std::uint32_t taken = 0;       // words whose storing cycle is known
  Cycle last_store = never;      // when the last word was stored
  Cycle last_leave = never;      // when the last word left
  // Per word in sending order: released, left its source (its arrival at the destination is
  // when it left on the last hop, + latency). Dropped once the message is complete unless its
  // link has run out of credit by then (only then can the classes of a node's waits need them)
  // or it takes more than one hop.
  std::vector<Cycle> release_at, leave;
  std::vector<std::complex<double>> payload;
  // Sent as a whole (EventEngine::leave_whole): word k left at leave_form.at(k), released at
  // whole_release (the first word: whole_started); the vectors above stay empty.
  bool whole = false;
  bool credits_tight = false;  // some credit came back after its first word left (each by its own word)
  Stair leave_form;
  Cycle whole_release = 0, whole_started = 0;
  std::uint32_t words = 0;
  bool complete() const { return taken == words && sent == words; }
};

inline constexpr std::uint32_t no_arbiter = ~std::uint32_t{0};

// A hop after the first of a message routed through other nodes (docs/timing-model.md,
// "Routers"): it leaves node `link / 6` on that node's link in direction `link % 6`.
struct HopState {
  std::uint32_t message = 0;
  std::uint32_t link = 0;
  std::uint16_t hop = 1;
  std::uint8_t port = 0;          // the input port its words arrive on: where ties are broken
  Cycle granted_at = never;       // when it got the link
  bool asks = false;              // its first word has arrived: it asks for the link
  bool listed = false;            // in its arbiter's `asking`: it asks and is at the front of its input buffer
  std::uint64_t link_base = 0;    // index of its first word among all words of the link
  std::uint32_t sent = 0;         // words whose leaving cycle is known
  std::vector<Cycle> leave;       // per word, once a word is forwarded one by one
  // Forwarded as a whole (EventEngine::forward_whole): word k left at leave_form.at(k).
  bool whole = false;
  Stair leave_form;
};

// A link that messages passing through ask for: who may ask. Its own node's messages take it
// in the order they were posted; a passing message joins `asking` once its first word has
// arrived and is at the front of its input buffer (so at most one per input port).
struct Arbiter {
  std::uint32_t link = 0;
  std::vector<std::uint32_t> own;     // messages posted on it, in order
  std::size_t own_next = 0;           // the first of them not yet granted the link
  std::vector<std::uint32_t> asking;  // hops (EventEngine::hops_) that may take the link, not yet granted it
  Cycle key = never;                  // its entry in EventEngine::decisions_, never: none
  bool dirty = false;                 // what it knows may have changed since it was keyed
};

// The times of a link's words in order, of which only the recent ones are kept: the first
// `base` were dropped once nothing could need them (EventEngine::trim_history). Runs of words
// sent or stored as a whole message keep their closed form (a Stair) instead of one time each.
struct History {
  struct Run {
    std::uint64_t first = 0;   // index of its first word
    std::uint64_t formed = 0;  // words given by `form` (word first + k at form.at(k)); 0: by `times`
    Stair form;
    std::vector<Cycle> times;
    std::uint64_t end() const { return first + (formed ? formed : times.size()); }
  };
  std::vector<Run> runs;
  std::uint64_t base = 0, end = 0;
  std::uint64_t count() const { return end; }
  std::uint64_t kept() const { return end - base; }
  const Run& run_of(std::uint64_t i) const {
    const Run* run = &runs.back();
    if (i < run->first)
      run = &*std::prev(std::upper_bound(runs.begin(), runs.end(), i, [](std::uint64_t v, const Run& r) { return v < r.first; }));
    return *run;
  }
  Cycle operator[](std::uint64_t i) const {
    const Run& run = run_of(i);
    return run.formed ? run.form.at(i - run.first) : run.times[i - run.first];
  }
  void push(Cycle at) {
    if (runs.empty() || runs.back().formed) runs.push_back(Run{end, 0, {}, {}});
    runs.back().times.push_back(at);
    ++end;
  }
  void push_form(std::uint64_t words, const Stair& form) {
    runs.push_back(Run{end, words, form, {}});
    end += words;
  }
  void drop_before(std::uint64_t i) {
    if (i <= base) return;
    base = i;
    std::size_t whole = 0;
    while (whole < runs.size() && runs[whole].end() <= i) ++whole;
    runs.erase(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(whole));
    if (runs.empty() || runs.front().formed || runs.front().first >= i) return;
    Run& front = runs.front();
    front.times.erase(front.times.begin(), front.times.begin() + static_cast<std::ptrdiff_t>(i - front.first));
    front.first = i;
  }
};

struct LinkState {
  std::int64_t next_free_tick = 0;  // in units of 1/num cycle
  Cycle last_leave = 0;
  Cycle last_active = never;
  LinkRecord stats;
  std::uint64_t words_posted = 0;
  // Who takes it, in order: message m (its first hop) or message count + h (hop h of hops_). An
  // arbitrated link lists them as it grants them; any other one its node's own messages as they
  // are posted.
  std::vector<std::uint32_t> queue;
  std::size_t head = 0;              // the first whose words have not all left
  std::size_t taken_head = 0;        // no later than the first whose words have not all been taken at the far end
  std::uint32_t arbiter = no_arbiter;  // in EventEngine::arbiters_, if messages pass through it
  History leaves, pops;              // per word of the link, in order: left, taken at its far end
  Cycle last_pop = 0;
  bool last_pop_forwarded = false;   // the last word taken left on another link (send phase)
  Cycle history_from = 0;            // the words dropped from the histories all left and returned by then
  std::uint64_t occupancy_front = 0; // for the peak: first word not yet popped before the newest arrival
  std::uint64_t returned = 0;        // words whose credit is back by the last checked leave
  // The first cycle after whose send phase it held no credit; set to 0 up front for the links of
  // messages of more than one hop, whose histories are all kept and read at the end.
  Cycle starved_from = never;

  // The first cycle from `earliest` on at which word `index` may leave: the link is free (the
  // words before it, num/den words per cycle) and holds a credit (the one word index - B
  // returned `latency` after it was taken). False while that credit's return is not known.
  bool slot(std::uint64_t index, Cycle earliest, const Params& p, Cycle& at) const {
    if (index >= p.buffer_words) {
      if (pops.count() <= index - p.buffer_words) return false;
      earliest = std::max(earliest, pops[index - p.buffer_words] + p.link_latency);
    }
    at = std::max({earliest, last_leave, static_cast<Cycle>(next_free_tick / static_cast<std::int64_t>(p.rate.num))});
    return true;
  }
  // A word leaves at `at`.
  void leave(Cycle at, const Params& p) {
    const auto num = static_cast<std::int64_t>(p.rate.num), den = static_cast<std::int64_t>(p.rate.den);
    next_free_tick = std::max(next_free_tick, static_cast<std::int64_t>(at) * num) + den;
    leaves.push(at);
    last_leave = at;
    ++stats.words;
    if (last_active != at) {
      ++stats.active_cycles;
      last_active = at;
    }
  }
  // The next word, arrived at `arrival`, is taken out of the receive buffer at `at`: stored by
  // a receive, or `forwarded` on the next link of its route. The most words the buffer held at
  // once were there when a word arrived: the ones arrived by then and not taken before.
  void pop(Cycle arrival, Cycle at, bool forwarded) {
    const std::uint64_t index = pops.count();
    pops.push(at);
    last_pop = at;
    last_pop_forwarded = forwarded;
    while (occupancy_front < index && pops[occupancy_front] < arrival) ++occupancy_front;
    stats.peak_occupancy = std::max<std::uint64_t>(stats.peak_occupancy, index + 1 - occupancy_front);
  }
};

// Where a node's walk through its task list stands.
struct Walk {
  std::uint32_t next = 0;   // task pointer
  Cycle at = 0;             // cycle at which the pointer reached `next`
  bool entered = false, started = false;
  std::size_t fma = 0;      // next instruction of the current compute
  std::uint32_t compute = no_task;     // index of the last compute entered
  std::uint32_t posted_until = 0;      // sends before this task index have been posted
  Cycle last_issue = never;            // the fma unit: last cycle an fma issued, and how many then
  unsigned issued_then = 0;
  Cycle last_result = 0;
  Cycle passed_all = never;            // cycle the pointer passed the last task
};

struct NodeState {
  Walk walk;
  std::vector<BufferTimes> buffers;
  std::vector<std::uint32_t> info;           // per task: generation (load/receive/send) or compute index
  std::vector<TaskDataflow> flow;            // per task
  std::vector<FftDataflow> fft_flow;         // per FFT task, in list order
  std::vector<std::uint32_t> compute_task;   // per compute index: its task
  std::vector<Cycle> compute_done;           // per compute index
  std::vector<StepRecord> steps;
  std::vector<std::uint32_t> active;         // messages in or out not complete (their evaluation may wait on us)
  std::array<std::vector<std::uint32_t>, direction_count> sends_by_direction;  // own messages, posted order
  std::unique_ptr<NodeDatapath> datapath;
  NodeRecord record;
  Cycle accounted_until = 0;                 // cycles before this are classified
  std::vector<std::pair<Cycle, Cycle>> waits;  // [from, to): waiting for words (operand or back-pressure)
  Cycle last_leave = 0, last_pop = 0;        // of its own sends, of its receives
  std::vector<TaskSpan> trace;               // per task, when asked
};

}  // namespace torus::event
