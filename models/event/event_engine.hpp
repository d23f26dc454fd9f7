#pragma once
// The event engine: times a Program block by block instead of cycle by cycle. Every quantity
// the SystemC engine produces cycle by cycle (when a task passes, when each fma issues, when
// each word leaves, arrives and is stored, when a credit returns) is a maximum of earlier
// quantities plus fixed delays (docs/timing-model.md). The engine evaluates each one as soon
// as the ones it depends on are known, node by node and message by message from a work list,
// with no clock: a node walks its task list until it needs something not yet known, a message
// moves its words until one waits on something not yet known. The result does not depend on
// the order of the work list; a Program that cannot finish leaves work that never becomes
// evaluable, which is reported as a stall.
//
// Messages of more than one hop pass through routers, whose links serve whole messages in the
// order they asked (docs/timing-model.md, "Routers"). Who gets such a link next is decided only
// when the work list has run dry: then every time still unknown depends on a link not yet
// given, and lies after the earliest cycle at which a link may be given to a message known to
// ask for it (event_router.cpp proves it). So the engine gives every link whose next grant falls
// in that cycle, and carries on.

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/event/event_state.hpp"

namespace torus::event {

class EventEngine {
 public:
  using DatapathFactory = std::function<std::unique_ptr<NodeDatapath>(std::size_t)>;
  // Throws StallError when the Program cannot finish.
  EventEngine(const Program& program, const Params& params, const MicroSchedule& micro, const RollPolicy& policy,
              const DatapathFactory& make_datapath);
  void run();

  EngineRecords records() const;
  const NodeDatapath& datapath(std::size_t node) const { return *nodes_[node].datapath; }
  const std::vector<TaskSpan>& task_trace(std::size_t node) const { return nodes_[node].trace; }  // empty unless asked

 private:
  // Node walk (event_node.cpp).
  bool advance_node(std::size_t n);
  bool pass_load(std::size_t n, const Task& task);
  // An FFT task at the pointer, timed whole (event_fft.cpp); false while a time it needs is unknown.
  bool pass_fft(std::size_t n, const Task& task);
  void classify_busy_range(NodeState& node, Cycle first, Cycle last);
  bool enter_compute(std::size_t n, const Task& task);
  bool open_gate(std::size_t n);
  bool issue(std::size_t n, const Task& task);
  bool issue_whole(std::size_t n, const Task& task);
  // A whole compute's issue span, cycles after its start (event_compute.cpp).
  struct WholeCompute {
    Cycle first = 0, last = 0, busy = 0;
    unsigned in_last_cycle = 0;
    Cycle counted = 0;  // its first cycles classified already: 1 when it starts in the cycle the compute before ended in
  };
  bool inputs_in_time(const KernelSpec& kernel, const BufferTimes& op, const BufferTimes& coef, const BlockShape& shape,
                      const BlockTiming& timing, Cycle start, Cycle inputs) const;
  void time_whole(std::size_t n, const Task& task, Cycle start, const WholeCompute& whole);
  const MicroProgram& micro(std::uint32_t kernel);  // built on first use
  const std::vector<std::uint32_t>& position_of(const std::vector<std::uint32_t>* order);
  void finish_compute(std::size_t n, const Task& task);
  void post_send(std::size_t n, std::uint32_t task, Cycle at);
  bool owes(const BufferTimes& buffer, std::uint32_t word, std::uint32_t below_generation) const;
  bool owes_any(const BufferTimes& buffer, std::uint32_t below_generation) const;
  static bool replaceable(const BufferTimes& buffer, bool after_receives);
  static Cycle free_from(const BufferTimes& buffer);
  void check_replaced(std::size_t n, std::uint32_t buffer, Cycle at) const;
  void classify_wait(NodeState& node, Cycle from, Cycle to);
  void classify_dependency(NodeState& node, Cycle from, Cycle to);
  void classify_busy(NodeState& node, Cycle cycle);
  // Messages (event_message.cpp).
  bool advance_message(std::uint32_t m);
  bool leave_next(std::uint32_t m);
  bool store_next(std::uint32_t m);
  void note_left(std::uint32_t m, std::uint32_t moved, Cycle last);
  // Whole messages in closed form (event_whole_message.cpp); false where the per-word rules must run.
  // `wait`: not yet, but it will be whole or per word once the credits it needs are known.
  bool leave_whole(std::uint32_t m, bool& wait);
  bool every_send_after_its_read() const;
  bool forward_whole(std::uint32_t hop);
  bool credits_back(const LinkState& link, std::uint64_t base, std::uint64_t W, Cycle by) const;
  std::uint64_t first_late_credit(const LinkState& link, std::uint64_t first, const Stair& leave, std::uint64_t from,
                                  std::uint64_t W) const;
  void put_whole(LinkState& link, const Stair& leave, std::uint64_t W, std::int64_t next_tick) const;
  static std::uint64_t most_held(const Stair& arrival, const Stair& taken, std::uint64_t words);
  struct StorePiece {
    std::uint64_t end = 0;  // words [end of the piece before, end) are stored at form.at(k)
    Stair form;
  };
  bool store_pieces(const BufferTimes* buffer, std::uint64_t W, const Stair& arrival, Cycle posted,
                    std::vector<StorePiece>& pieces) const;
  std::uint64_t held_by_walk(const LinkState& link, std::uint64_t base, std::uint64_t front, const Stair& arrival,
                             const std::vector<StorePiece>& pieces) const;
  bool first_held(const LinkState& link, std::uint64_t base, Cycle arrival, std::uint64_t& front) const;
  std::uint64_t held_behind(const LinkState& link, std::uint64_t base, std::uint64_t front, const Stair& arrival,
                            std::uint64_t W) const;
  bool store_whole(std::uint32_t m);
  // The form of the times message m's words left on hop h (0: its first link), when it went whole.
  const Stair* whole_form(std::uint32_t m, std::uint32_t h) const {
    if (h == 0) return messages_[m].whole ? &messages_[m].leave_form : nullptr;
    const HopState& hop = hops_[messages_[m].through + h - 1];
    return hop.whole ? &hop.leave_form : nullptr;
  }
  // When word k of message m left on hop h (known for the words that left on it).
  Cycle left_on(std::uint32_t m, std::uint32_t h, std::uint32_t k) const {
    if (const Stair* form = whole_form(m, h)) return form->at(k);
    return h == 0 ? messages_[m].leave[k] : hops_[messages_[m].through + h - 1].leave[k];
  }
  bool release_whole(const MessageState& s, std::size_t source, Cycle& release) const;
  void note_credits(const MessageState& s, LinkState& link) const;
  void release_history(MessageState& s, const LinkState& link) const;
  void trim_history(const MessageState& s, LinkState& link) const;
  bool release_of(const MessageState& s, std::size_t source, std::uint32_t word, Cycle& release) const;
  // When a message's first word, released at `release`, may leave: posted and started up.
  Cycle started(const MessageState& s, Cycle release) const { return std::max(release, s.posted_at) + params_.message_startup; }
  // Routers (event_router.cpp).
  struct Ask {
    Cycle asked = never, present = never;  // when it asked; from when it may be granted the link
    unsigned rank = 0;                     // ties: own message 0, then 1 + input port
  };
  void plan_routes();
  bool forward_next(std::uint32_t hop);
  void start_asking(std::uint32_t m, std::uint16_t next_hop);
  void list_if_front(std::uint32_t hop);
  bool ask_of(std::uint32_t ref, Ask& ask) const;
  void refresh(std::uint32_t arbiter);
  bool decide_grants();
  void grant(std::uint32_t arbiter, Cycle at);
  void mark_arbiters(std::size_t node);
  void mark_route(std::uint32_t m);
  std::uint32_t message_of(std::uint32_t ref) const {
    return ref < messages_.size() ? ref : hops_[ref - messages_.size()].message;
  }
  std::uint32_t hop_count(std::uint32_t m) const { return messages_[m].hops; }
  // Link, first word's index on it, and words that left on it, of message m's last hop.
  std::uint32_t last_link(std::uint32_t m) const {
    return hop_count(m) == 1 ? first_link(m) : hops_[messages_[m].through + hop_count(m) - 2].link;
  }
  std::uint64_t last_base(std::uint32_t m) const {
    return hop_count(m) == 1 ? messages_[m].link_base : hops_[messages_[m].through + hop_count(m) - 2].link_base;
  }
  std::uint32_t last_sent(std::uint32_t m) const {
    return hop_count(m) == 1 ? messages_[m].sent : hops_[messages_[m].through + hop_count(m) - 2].sent;
  }
  // Classes and records (event_records.cpp).
  void classify_waits(std::size_t n);
  std::vector<std::pair<Cycle, Cycle>> starved_cycles(const LinkState& link) const;
  std::uint64_t stretch_end(const LinkState& link, std::uint64_t i, std::uint64_t j) const;
  bool starves_in(const LinkState& link, std::uint64_t i, std::uint64_t end) const;
  Cycle first_word_after(const MessageState& s, Cycle cycle) const;
  bool head_released(const std::vector<std::uint32_t>& sends, Cycle cycle) const;
  // Work list.
  void touch_node(std::size_t n);
  void touch_message(std::uint32_t m);
  void touch_link(LinkState& link);
  void push_work(std::size_t item);
  void forget_active(std::size_t n, std::uint32_t m);
  void receive_done(std::size_t n, std::uint32_t m);
  [[noreturn]] void stall() const;
  [[noreturn]] void fail(std::size_t n, const std::string& what) const;
  std::uint32_t word_at(const MessageState& s, std::uint32_t k) const { return s.order ? (*s.order)[k] : k; }
  std::uint32_t first_link(std::uint32_t m) const {
    const Message& msg = program_.messages[m];
    return static_cast<std::uint32_t>(msg.source * direction_count + static_cast<std::size_t>(program_.route(msg).front()));
  }

  const Program& program_;
  Params params_;
  const RollPolicy& policy_;
  const MicroSchedule& micro_schedule_;
  // Per kernel, its micro-program once something needs its instructions or word orders: a
  // compute timed by a closed form with values off needs neither.
  std::vector<std::unique_ptr<MicroProgram>> micro_;
  // Per word order of a micro-program (micro_): each word's place in it.
  std::map<const std::vector<std::uint32_t>*, std::vector<std::uint32_t>> positions_;
  FmaSchedules schedules_;
  BlockSchedules blocks_;
  bool closed_forms_ = false;  // the micro-schedule has closed forms and the test hook per_word is off
  // How much the closed forms covered, for the report: computes, and messages sent and stored whole.
  std::uint64_t computes_ = 0, closed_computes_ = 0, sent_whole_ = 0, stored_whole_ = 0, forwarded_whole_ = 0;
  bool chained_ = false;
  // A message whose whole form waits only for credits not yet known may wait for them instead of
  // going per word, routed or not (docs/timing-model.md, "Closed forms of a whole message").
  bool credits_may_wait_ = false;
  std::vector<std::uint32_t> receive_task_of_;
  std::vector<NodeState> nodes_;
  std::vector<MessageState> messages_;
  std::vector<LinkState> links_;  // node * 6 + direction
  std::vector<HopState> hops_;    // the hops after the first of messages routed through other nodes
  std::vector<Arbiter> arbiters_;
  std::set<std::pair<Cycle, std::uint32_t>> decisions_;  // arbiters by the cycle they may next grant
  std::vector<std::uint32_t> dirty_;
  Cycle last_grant_ = 0;  // the cycle of the grants decided last
  std::deque<std::size_t> work_;  // nodes: n; messages: node count + m
  std::vector<bool> queued_;
};

}  // namespace torus::event
