#include "sim/program_verifier.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "sim/fft_task.hpp"

namespace torus {
namespace {

constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

// What one buffer holds during the symbolic run.
struct BufferState {
  DataTag tag;
  std::uint32_t pending = none;  // a posted receive whose message was not sent when it was posted
  bool written = false;
};

// A message's declared block, copied so the run reads one compact array, and who sent and
// received it (the first such tasks).
struct MessageState {
  DataTag tag;
  std::uint32_t words = 0;
  std::uint32_t sender = none, send_task = none;
  std::uint32_t receiver = none, receive_task = none;
  std::uint32_t next_drop = none;  // the node's previous dropped receive still in flight
  bool sent = false;
};

struct NodeState {
  std::uint32_t pc = 0;          // next task
  std::uint32_t drops = none;    // dropped receives still in flight, linked by next_drop
  std::uint32_t waiting = none;  // the message it is blocked on
  bool done = false;
};

bool same(const DataTag& a, const DataTag& b) {
  return a.kind == b.kind && a.index[0] == b.index[0] && a.index[1] == b.index[1] && a.index[2] == b.index[2];
}

std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

class Verifier {
 public:
  Verifier(const Program& program, std::size_t max_reported) : p_(program), max_(max_reported) {}

  ProgramVerification run() {
    if (p_.translation_quotient && p_.nodes.size() != 1)
      fail(whole_program, whole_program,
           [&] { return fmt::format("a translation quotient has one node; this one has {}", p_.nodes.size()); });
    else if (!p_.translation_quotient && p_.nodes.size() != p_.shape.node_count())
      fail(whole_program, whole_program,
           [&] { return fmt::format("the Program has {}; its array has {}", plural(p_.nodes.size(), "node"), p_.shape.node_count()); });
    first_buffer_.assign(p_.nodes.size() + 1, 0);
    for (std::size_t n = 0; n < p_.nodes.size(); ++n) first_buffer_[n + 1] = first_buffer_[n] + p_.nodes[n].buffers.size();
    buffers_.assign(first_buffer_.back(), BufferState{});
    messages_.resize(p_.messages.size());
    for (std::size_t m = 0; m < p_.messages.size(); ++m) {
      messages_[m].tag = p_.messages[m].tag;
      messages_[m].words = p_.messages[m].words;
    }
    execute();
    for (std::uint32_t m = 0; m < p_.messages.size(); ++m) check_message(m);
    for (const ProgramOutput& o : p_.outputs) check_output(o);
    return std::move(out_);
  }

 private:
  // The text is only formatted for the violations kept.
  template <class Text>
  void fail(std::size_t node, std::size_t task, Text&& text) {
    ++out_.violation_count;
    if (out_.violations.size() < max_) out_.violations.push_back({node, task, text()});
  }

  // ---- names for diagnostics ----
  std::string node_name(std::size_t n) const {
    return n < p_.shape.node_count() ? p_.describe_node(n) : fmt::format("#{}", n);
  }
  std::string buffer_name(std::size_t n, std::uint32_t b) const {
    const auto& buffers = p_.nodes[n].buffers;
    const std::uint16_t kind = b < buffers.size() ? buffers[b].kind : std::uint16_t{0};
    if (b >= buffers.size() || kind >= p_.tag_kinds.size()) return fmt::format("b{}", b);
    return fmt::format("b{} ({})", b, p_.tag_kinds[kind].name);
  }
  std::string message_name(std::uint32_t m) const {
    const Message& msg = p_.messages[m];
    return fmt::format("message {} ({} from {} to {})", m, p_.describe(msg.tag), node_name(msg.source), node_name(msg.destination));
  }
  std::string task_name(std::size_t n, std::uint32_t k) const {
    const Task& t = p_.nodes[n].tasks[k];
    const TaskDetail* d = detail_of(n, t);
    const std::string block = d ? p_.describe(d->tag) : fmt::format("detail {} missing", t.detail);
    switch (t.kind) {
      case TaskKind::Load: return fmt::format("task {} (load {})", k, block);
      case TaskKind::Compute: return fmt::format("task {} (compute {})", k, block);
      case TaskKind::Send: return fmt::format("task {} (send of message {})", k, t.message);
      case TaskKind::Receive: return fmt::format("task {} (receive of message {})", k, t.message);
      case TaskKind::Fft: return fmt::format("task {} (fft into {})", k, block);
    }
    return fmt::format("task {}", k);
  }
  // A load's, compute's or fft's detail record; nullptr when it names none of its node's.
  const TaskDetail* detail_of(std::size_t n, const Task& t) const {
    const auto& details = p_.nodes[n].details;
    return t.detail < details.size() ? &details[t.detail] : nullptr;
  }

  // ---- the symbolic run (checks 1, 2 for duplicates, 4 and 5) ----
  // Round-robin passes; a pass in which no node moves is a deadlock: it is reported once,
  // then waits are ignored so the rest of the Program is still checked.
  void execute() {
    nodes_.assign(p_.nodes.size(), NodeState{});
    std::size_t unfinished = nodes_.size();
    while (unfinished > 0) {
      bool moved = false;
      for (std::size_t n = 0; n < nodes_.size(); ++n) {
        if (nodes_[n].done) continue;
        if (n + 2 < nodes_.size()) prefetch(n + 2);
        moved = advance(n) || moved;
        if (nodes_[n].done) --unfinished;
      }
      if (!moved) {
        report_deadlock();
        blocking_ = false;
      }
    }
  }

  // A node runs a few tasks per pass, too few for the hardware prefetcher to catch on.
  void prefetch(std::size_t n) const {
    const auto& tasks = p_.nodes[n].tasks;
    const std::size_t from = std::min<std::size_t>(nodes_[n].pc, tasks.size()), to = std::min(from + 16, tasks.size());
    const auto* bytes = reinterpret_cast<const char*>(tasks.data());
    for (std::size_t at = from * sizeof(Task); at < to * sizeof(Task); at += 64) __builtin_prefetch(bytes + at);
  }

  bool arrived(std::uint32_t m) const { return !blocking_ || messages_[m].sent; }

  // Runs node n until it blocks or ends (its receives all arrived); true when it moved.
  bool advance(std::size_t n) {
    NodeState& s = nodes_[n];
    const auto& tasks = p_.nodes[n].tasks;
    const std::uint32_t pc = s.pc;
    for (; s.pc < tasks.size(); ++s.pc, ++out_.tasks_checked) {
      if (blocked(n, tasks[s.pc])) return s.pc != pc;
      run_task(n, s.pc, tasks[s.pc]);
    }
    for (; s.drops != none; s.drops = messages_[s.drops].next_drop)
      if (!arrived(s.drops)) return stuck(s, s.drops, pc);
    for (std::size_t b = first_buffer_[n]; b < first_buffer_[n + 1]; ++b)
      if (buffers_[b].pending != none && !arrived(buffers_[b].pending)) return stuck(s, buffers_[b].pending, pc);
    s.done = true;
    return true;
  }

  static bool stuck(NodeState& s, std::uint32_t message, std::uint32_t pc) {
    s.waiting = message;
    return s.pc != pc;
  }

  BufferState* state(std::size_t n, std::uint32_t b) {
    return b < first_buffer_[n + 1] - first_buffer_[n] ? &buffers_[first_buffer_[n] + b] : nullptr;
  }

  // An FFT task's buffer list, if it has one, lies within its node's lists.
  bool lists_fit(std::size_t n, const TaskDetail& t, const FftSpec& f) const {
    return t.list == no_buffer || std::size_t{t.list} + f.inputs + f.outputs <= p_.nodes[n].buffer_lists.size();
  }

  // A task first waits for the posted receive of every buffer it touches.
  bool blocked(std::size_t n, const Task& t) {
    const bool compute = t.kind == TaskKind::Compute;
    const TaskDetail* d = detail_of(n, t);
    if (t.kind == TaskKind::Fft) {
      if (!d || d->kernel >= p_.ffts.size()) return false;
      const FftSpec& f = p_.ffts[d->kernel];
      if (!lists_fit(n, *d, f)) return false;
      for (std::uint32_t i = 0; i < f.inputs; ++i)
        if (waits_for(n, fft_input(p_.nodes[n], t, i))) return true;
      for (std::uint32_t i = 0; i < f.outputs; ++i)
        if (waits_for(n, fft_output(p_.nodes[n], t, f, i))) return true;
      return false;
    }
    const bool reads = compute && d;
    for (const std::uint32_t b : {t.buffer, reads ? d->operand : no_buffer, reads ? d->coefficient : no_buffer})
      if (waits_for(n, b)) return true;
    return false;
  }

  bool waits_for(std::size_t n, std::uint32_t b) {
    BufferState* st = state(n, b);
    if (!st || st->pending == none) return false;
    if (!arrived(st->pending)) {
      nodes_[n].waiting = st->pending;
      return true;
    }
    st->pending = none;
    return false;
  }

  void run_task(std::size_t n, std::uint32_t k, const Task& t) {
    const TaskDetail* d = detail_of(n, t);
    const bool detailed = t.kind == TaskKind::Load || t.kind == TaskKind::Compute || t.kind == TaskKind::Fft;
    if (detailed && !d) {
      fail(n, k, [&] { return fmt::format("names detail record {}; the node has {}", t.detail, p_.nodes[n].details.size()); });
      return;
    }
    switch (t.kind) {
      case TaskKind::Load: return load(n, k, t, *d);
      case TaskKind::Compute: return compute(n, k, t, *d);
      case TaskKind::Send: return send(n, k, t);
      case TaskKind::Receive: return receive(n, k, t);
      case TaskKind::Fft: return fft(n, k, t, *d);
    }
    fail(n, k, [&] { return fmt::format("has no known kind ({})", static_cast<int>(t.kind)); });
  }

  // Check 1: the buffer exists and has room for the words its role needs (a buffer may be larger:
  // it holds blocks of several sizes over time, each in its first words).
  bool buffer_fits(std::size_t n, std::uint32_t k, std::uint32_t b, std::size_t words, const char* role) {
    const auto& buffers = p_.nodes[n].buffers;
    if (b >= buffers.size()) {
      fail(n, k, [&] { return fmt::format("the {} is buffer {}, but the node has {}", role, b, plural(buffers.size(), "buffer")); });
      return false;
    }
    if (buffers[b].words < words)
      fail(n, k, [&] { return fmt::format("the {} {} has {} words; {} are needed", role, buffer_name(n, b), buffers[b].words, words); });
    return true;
  }

  // The block a tag names has the extents a role of a kernel needs.
  void extents_match(std::size_t n, std::uint32_t k, const DataTag& tag, const Extents3& want, const char* role) {
    const Extents3 got = p_.extents_of(tag);
    if (got == want) return;
    fail(n, k, [&] {
      return fmt::format("the {} {} is {}x{}x{}; the kernel needs {}x{}x{}", role, p_.describe(tag), got[0], got[1], got[2],
                         want[0], want[1], want[2]);
    });
  }

  void load(std::size_t n, std::uint32_t k, const Task& task, const TaskDetail& t) {
    if (t.source.array >= p_.host_arrays.size()) {
      fail(n, k, [&] { return fmt::format("loads host array {}; there are {}", t.source.array, plural(p_.host_arrays.size(), "array")); });
      return;
    }
    const HostArray& array = p_.host_arrays[t.source.array];
    const Extents3 source = p_.host_block_extents(t.source);
    if (!p_.translation_quotient && source != p_.extents_of(t.tag))
      fail(n, k, [&] { return fmt::format("loads {} from a block of {} of another size", p_.describe(t.tag), array.name); });
    if (buffer_fits(n, k, task.buffer, source[0] * source[1] * source[2], "loaded buffer")) write(n, task.buffer, t.tag);
  }

  void compute(std::size_t n, std::uint32_t k, const Task& task, const TaskDetail& t) {
    if (t.kernel >= p_.kernels.size()) {
      fail(n, k, [&] { return fmt::format("uses kernel {}; there are {}", t.kernel, plural(p_.kernels.size(), "kernel")); });
      return;
    }
    const KernelSpec& kernel = p_.kernels[t.kernel];
    const auto m = static_cast<std::size_t>(kernel.mode - 1);
    extents_match(n, k, t.tag, kernel.accumulator, "accumulator");
    extents_match(n, k, t.operand_tag, kernel.operand, "operand");
    extents_match(n, k, t.coefficient_tag, {kernel.operand[m], kernel.accumulator[m], 1}, "coefficient");
    const bool acc = buffer_fits(n, k, task.buffer, kernel.accumulator_words(), "accumulator");
    if (acc && !task.zero_accumulator) expect(n, k, task.buffer, t.tag, "accumulator");
    if (buffer_fits(n, k, t.operand, kernel.operand_words(), "operand")) expect(n, k, t.operand, t.operand_tag, "operand");
    if (buffer_fits(n, k, t.coefficient, kernel.coefficient_words(), "coefficient"))
      expect(n, k, t.coefficient, t.coefficient_tag, "coefficient");
    if (acc) write(n, task.buffer, t.tag);
  }

  // Every input holds its slice of the working array before any output is written (so in
  // place reads the old content); every output then holds its slice of the result.
  void fft(std::size_t n, std::uint32_t k, const Task& task, const TaskDetail& t) {
    if (t.kernel >= p_.ffts.size()) {
      fail(n, k, [&] { return fmt::format("uses FFT {}; there are {}", t.kernel, plural(p_.ffts.size(), "FFT")); });
      return;
    }
    const FftSpec& f = p_.ffts[t.kernel];
    const std::vector<std::string> problems = fft_spec_problems(f);
    for (const std::string& problem : problems) fail(n, k, [&] { return fmt::format("FFT {}: {}", f.name, problem); });
    if (!problems.empty()) return;
    if (!lists_fit(n, t, f)) {
      fail(n, k, [&] { return fmt::format("FFT {}: its buffer list runs past the node's {} listed buffers", f.name,
                                          p_.nodes[n].buffer_lists.size()); });
      return;
    }
    const Extents3 in = f.input_extents(), out = f.output_extents();
    const NodeProgram& node = p_.nodes[n];
    for (std::uint32_t i = 0; i < f.inputs; ++i) {
      const DataTag tag = slice_tag(t.operand_tag, f.input_cut, i);
      extents_match(n, k, tag, in, "FFT input");
      const std::uint32_t b = fft_input(node, task, i);
      if (buffer_fits(n, k, b, in[0] * in[1] * in[2], "FFT input")) expect(n, k, b, tag, "FFT input");
    }
    for (std::uint32_t i = 0; i < f.outputs; ++i) {
      const DataTag tag = slice_tag(t.tag, f.output_cut, i);
      extents_match(n, k, tag, out, "FFT output");
      const std::uint32_t b = fft_output(node, task, f, i);
      if (buffer_fits(n, k, b, out[0] * out[1] * out[2], "FFT output")) write(n, b, tag);
    }
  }

  void send(std::size_t n, std::uint32_t k, const Task& t) {
    if (!use(n, k, t)) return;
    MessageState& m = messages_[t.message];
    if (buffer_fits(n, k, t.buffer, m.words, "sent buffer")) expect(n, k, t.buffer, m.tag, "sent buffer");
    m.sent = true;
  }

  // The buffer gets the declared block: a wrong send is reported at the send, not downstream.
  void receive(std::size_t n, std::uint32_t k, const Task& t) {
    if (!use(n, k, t)) return;
    MessageState& m = messages_[t.message];
    const bool in_flight = !arrived(t.message);
    if (t.buffer == no_buffer) {
      if (in_flight && m.receive_task == k && m.receiver == n) {  // a duplicate must not link it twice
        m.next_drop = nodes_[n].drops;
        nodes_[n].drops = t.message;
      }
    } else if (buffer_fits(n, k, t.buffer, m.words, "receiving buffer")) {
      write(n, t.buffer, m.tag);
      if (in_flight) state(n, t.buffer)->pending = t.message;
    }
  }

  // Check 2, the duplicates: records the first send (receive) of a message. A second one still
  // runs, so its buffer is checked (filled) as usual. False when the message does not exist.
  bool use(std::size_t n, std::uint32_t k, const Task& t) {
    if (t.message >= messages_.size()) {
      fail(n, k, [&] { return fmt::format("names message {}; there are {}", t.message, plural(messages_.size(), "message")); });
      return false;
    }
    const bool sending = t.kind == TaskKind::Send;
    MessageState& m = messages_[t.message];
    std::uint32_t& node = sending ? m.sender : m.receiver;
    std::uint32_t& task = sending ? m.send_task : m.receive_task;
    if (node == none) {
      node = static_cast<std::uint32_t>(n);
      task = k;
      return true;
    }
    fail(n, k, [&] {
      return fmt::format("{} is {} twice; first by node {}, {}", message_name(t.message), sending ? "sent" : "received",
                         node_name(node), task_name(node, task));
    });
    return true;
  }

  void write(std::size_t n, std::uint32_t b, const DataTag& tag) {
    BufferState& st = *state(n, b);
    st.tag = tag;
    st.written = true;
  }

  // The buffer must hold `want`; afterwards it does, so one mistake is reported once.
  void expect(std::size_t n, std::uint32_t k, std::uint32_t b, const DataTag& want, const char* role) {
    BufferState& st = *state(n, b);
    if (st.written && same(st.tag, want)) return;
    fail(n, k, [&] {
      const Task& t = p_.nodes[n].tasks[k];
      const bool sending = t.kind == TaskKind::Send;
      return fmt::format("the {} {} {}{}", role, buffer_name(n, b), why_not(n, k, b, want, sending ? "sent" : "read"),
                         sending ? fmt::format(" (message {} declares {})", t.message, p_.describe(want)) : "");
    });
    st.tag = want;
    st.written = true;
  }

  // Why buffer b does not hold `want` before task k: never written, overwritten (naming the
  // task that replaced it) or simply something else.
  std::string why_not(std::size_t n, std::uint32_t k, std::uint32_t b, const DataTag& want, const char* verb) const {
    const BufferState& st = buffers_[first_buffer_[n] + b];
    if (!st.written) return fmt::format("is {} before written: {} expected", verb, p_.describe(want));
    const auto& tasks = p_.nodes[n].tasks;
    std::uint32_t last = none;
    for (std::uint32_t j = k, after = none; j-- > 0;) {  // backwards through the writes of b
      const Task& t = tasks[j];
      if (t.buffer != b || t.kind == TaskKind::Send) continue;
      if (last == none) last = j;
      const bool received = t.kind == TaskKind::Receive;
      const TaskDetail* d = received ? nullptr : detail_of(n, t);
      if (after != none && (received ? t.message < p_.messages.size() : d != nullptr) &&
          same(received ? p_.messages[t.message].tag : d->tag, want))
        return fmt::format("was overwritten before it was {}: {} (written by {}) was replaced by {} with {}", verb,
                           p_.describe(want), task_name(n, j), task_name(n, after), p_.describe(st.tag));
      after = j;
    }
    return fmt::format("holds {} (written by {}), not {}", p_.describe(st.tag),
                       last == none ? std::string("no task") : task_name(n, last), p_.describe(want));
  }

  // Follows the waits from the first blocked node until they close a cycle or reach a
  // message no remaining task sends.
  void report_deadlock() {
    std::vector<std::uint32_t> holder(messages_.size(), none);  // the node whose pending task sends it
    for (std::size_t n = 0; n < nodes_.size(); ++n)
      for (std::size_t k = nodes_[n].pc; k < p_.nodes[n].tasks.size(); ++k) {
        const Task& t = p_.nodes[n].tasks[k];
        if (t.kind == TaskKind::Send && t.message < holder.size() && holder[t.message] == none)
          holder[t.message] = static_cast<std::uint32_t>(n);
      }
    std::size_t first = 0;
    while (nodes_[first].done) ++first;
    fail(first, waiting_task(first), [&] { return wait_chain(first, holder); });
  }

  std::size_t waiting_task(std::size_t n) const {
    if (nodes_[n].pc < p_.nodes[n].tasks.size()) return nodes_[n].pc;
    const MessageState& m = messages_[nodes_[n].waiting];
    return m.receiver == n ? m.receive_task : whole_program;
  }

  std::string wait_chain(std::size_t first, const std::vector<std::uint32_t>& holder) const {
    constexpr std::size_t shown = 12;
    std::vector<std::uint32_t> seen(nodes_.size(), none);
    std::string text = "deadlock, no node can progress: node " + node_name(first);
    for (std::size_t n = first, links = 0;; ++links) {
      seen[n] = static_cast<std::uint32_t>(links);
      const std::uint32_t m = nodes_[n].waiting, from = holder[m];
      const std::size_t task = waiting_task(n);
      const std::string where = task == whole_program ? "at its end" : "at " + task_name(n, static_cast<std::uint32_t>(task));
      if (links < shown)
        text += fmt::format(" {} waits for message {} from node {}", where, m, node_name(from == none ? p_.messages[m].source : from));
      else if (links == shown) text += " ...";
      if (from == none) return text + ", which never sends it";
      if (seen[from] != none) return text + ": a cycle of " + plural(links + 1 - seen[from], "waiting node");
      if (links + 1 < shown) text += ", which";
      n = from;
    }
  }

  // ---- checks 2 (missing and misplaced sends and receives) and 3 (routes) ----
  void check_message(std::uint32_t m) {
    ++out_.messages_checked;
    const Message& msg = p_.messages[m];
    const MessageState& s = messages_[m];
    const std::size_t node = s.sender != none ? s.sender : msg.source < p_.nodes.size() ? msg.source : whole_program;
    const std::size_t task = s.sender != none ? s.send_task : whole_program;
    if (s.sender == none) fail(node, task, [&] { return message_name(m) + " is never sent"; });
    else if (s.sender != msg.source)
      fail(node, task, [&] { return fmt::format("{} is sent here, but its source is node {}", message_name(m), node_name(msg.source)); });
    if (s.receiver == none) fail(node, task, [&] { return message_name(m) + " is never received"; });
    else if (s.receiver != msg.destination)
      fail(s.receiver, s.receive_task,
           [&] { return fmt::format("{} is received here, but its destination is node {}", message_name(m), node_name(msg.destination)); });
    if (msg.words != p_.words_of(msg.tag))
      fail(node, task, [&] { return fmt::format("{} carries {} words; its block has {}", message_name(m), msg.words, p_.words_of(msg.tag)); });
    const std::size_t count = p_.nodes.size();
    if (std::size_t{msg.route_begin} + msg.hops > p_.routes.size())
      fail(node, task, [&] {
        return fmt::format("{}: its {} hops from {} run past the Program's {} route hops", message_name(m), msg.hops,
                           msg.route_begin, p_.routes.size());
      });
    else if (p_.translation_quotient && msg.hops == 0)
      fail(node, task, [&] { return message_name(m) + " has an empty route in a translation quotient (each copy must move)"; });
    else if (msg.source >= count || msg.destination >= count)
      fail(node, task, [&] { return fmt::format("{}: the array has {}", message_name(m), plural(count, "node")); });
    else if (msg.hops == 0 && msg.source != msg.destination)
      fail(node, task, [&] { return message_name(m) + " has an empty route between different nodes"; });
    else
      follow_route(m, node, task);
  }

  void follow_route(std::uint32_t m, std::size_t node, std::size_t task) {
    const Message& msg = p_.messages[m];
    NodeCoord at = p_.shape.coord_of(msg.source);
    const std::span<const Direction> route = p_.route(msg);
    for (std::size_t h = 0; h < route.size(); ++h) {
      const std::optional<NodeCoord> next = p_.shape.neighbour(at, route[h]);
      if (!next) {
        fail(node, task, [&] {
          return fmt::format("{}: hop {} ({}) from node {} leaves the mesh", message_name(m), h, to_string(route[h]), to_string(at));
        });
        return;
      }
      at = *next;
    }
    // In a quotient the copy that arrives is the neighbour's: any chain of links will do.
    if (!p_.translation_quotient && p_.shape.index_of(at) != msg.destination)
      fail(node, task, [&] {
        return fmt::format("{}: its route is not a chain of links to the destination; it ends at node {}", message_name(m), to_string(at));
      });
  }

  // ---- check 6: the promised blocks are where the outputs say ----
  void check_output(const ProgramOutput& o) {
    const std::size_t entries = o.node.empty() ? p_.nodes.size() : o.node.size();
    const bool nodes_ok = std::all_of(o.node.begin(), o.node.end(), [&](std::uint32_t n) { return n < p_.nodes.size(); });
    if (o.buffer.size() != entries || o.tag.size() != entries || !nodes_ok) {
      fail(whole_program, whole_program, [&] {
        return fmt::format("output '{}' lists {} and {} for {}{}", o.name, plural(o.buffer.size(), "buffer"),
                           plural(o.tag.size(), "tag"), o.node.empty() ? plural(p_.nodes.size(), "node") : plural(entries, "entry"),
                           nodes_ok ? "" : ", and a node the Program does not have");
      });
      return;
    }
    for (std::size_t i = 0; i < entries; ++i) {
      const std::size_t n = o.node_of(i);
      const std::uint32_t b = o.buffer[i];
      const BufferState* st = state(n, b);
      if (st && st->written && same(st->tag, o.tag[i])) continue;
      fail(n, whole_program, [&] {
        const auto end = static_cast<std::uint32_t>(p_.nodes[n].tasks.size());
        return fmt::format("output '{}' promises {} in {}, which {}", o.name, p_.describe(o.tag[i]), buffer_name(n, b),
                           !st ? "does not exist" : !st->written ? "nothing writes" : why_not(n, end, b, o.tag[i], "collected"));
      });
    }
  }

  const Program& p_;
  std::size_t max_;
  ProgramVerification out_;
  bool blocking_ = true;
  std::vector<std::size_t> first_buffer_;  // per node, where its buffers start in buffers_
  std::vector<BufferState> buffers_;
  std::vector<MessageState> messages_;
  std::vector<NodeState> nodes_;
};

}  // namespace

std::string to_string(const Program& program, const ProgramViolation& v) {
  if (v.node >= program.nodes.size()) return "program: " + v.message;
  std::string where = "node " + (v.node < program.shape.node_count() ? program.describe_node(v.node) : fmt::format("#{}", v.node));
  const auto& tasks = program.nodes[v.node].tasks;
  if (v.task < tasks.size()) {
    const TaskLabel& l = tasks[v.task].label;
    const bool known = tasks[v.task].kind <= TaskKind::Fft;
    where += fmt::format(", task {} ({}, transform {} stage {} step {})", v.task, known ? to_string(tasks[v.task].kind) : "?",
                         l.transform, l.stage, l.step);
  }
  return where + ": " + v.message;
}

ProgramVerification verify_program(const Program& program, std::size_t max_reported) {
  return Verifier(program, max_reported).run();
}

}  // namespace torus
