#include "sim/program_verifier.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "sim/fft_task.hpp"
#include "sim/program_diagnostics.hpp"

namespace torus {
namespace {

using verifier::MessageState;
using verifier::NodeState;
using verifier::none;
using verifier::plural;

// What one buffer holds during the symbolic run.
struct BufferState {
  DataTag tag;
  std::uint32_t pending = none;  // a posted receive whose message was not sent when it was posted
  bool written = false;
};

bool same(const DataTag& a, const DataTag& b) {
  return a.kind == b.kind && a.index[0] == b.index[0] && a.index[1] == b.index[1] && a.index[2] == b.index[2];
}

class Verifier {
 public:
  Verifier(const Program& program, std::size_t max_reported) : p_(program), names_(program), log_(max_reported) {}

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
    for (std::uint32_t m = 0; m < p_.messages.size(); ++m) verifier::check_message(p_, m, messages_[m], names_, log_);
    for (const ProgramOutput& o : p_.outputs) check_output(o);
    return std::move(log_.result());
  }

 private:
  // The text is only formatted for the violations kept.
  template <class Text>
  void fail(std::size_t node, std::size_t task, Text&& text) {
    log_.fail(node, task, std::forward<Text>(text));
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
        verifier::report_deadlock(p_, nodes_, messages_, names_, log_);
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
    for (; s.pc < tasks.size(); ++s.pc, ++log_.result().tasks_checked) {
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
    const TaskDetail* d = names_.detail_of(n, t);
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
    // Reports give figures per step by these labels: one past the stages has no place (a
    // Program that declares no stages, such as a hand-built test, labels nothing).
    if (global_steps_ > 0 && t.label.global_step >= global_steps_)
      fail(n, k, [&] { return fmt::format("is labelled step {}; the stages have {}", t.label.global_step, plural(global_steps_, "step")); });
    const TaskDetail* d = names_.detail_of(n, t);
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
      fail(n, k, [&] { return fmt::format("the {} {} has {} words; {} are needed", role, names_.buffer(n, b), buffers[b].words, words); });
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
      return fmt::format("{} is {} twice; first by node {}, {}", names_.message(t.message), sending ? "sent" : "received",
                         names_.node(node), names_.task(node, task));
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
      return fmt::format("the {} {} {}{}", role, names_.buffer(n, b), why_not(n, k, b, want, sending ? "sent" : "read"),
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
      const TaskDetail* d = received ? nullptr : names_.detail_of(n, t);
      if (after != none && (received ? t.message < p_.messages.size() : d != nullptr) &&
          same(received ? p_.messages[t.message].tag : d->tag, want))
        return fmt::format("was overwritten before it was {}: {} (written by {}) was replaced by {} with {}", verb,
                           p_.describe(want), names_.task(n, j), names_.task(n, after), p_.describe(st.tag));
      after = j;
    }
    return fmt::format("holds {} (written by {}), not {}", p_.describe(st.tag),
                       last == none ? std::string("no task") : names_.task(n, last), p_.describe(want));
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
        return fmt::format("output '{}' promises {} in {}, which {}", o.name, p_.describe(o.tag[i]), names_.buffer(n, b),
                           !st ? "does not exist" : !st->written ? "nothing writes" : why_not(n, end, b, o.tag[i], "collected"));
      });
    }
  }

  const Program& p_;
  const std::size_t global_steps_ = p_.global_steps();
  verifier::ProgramNames names_;
  verifier::ViolationLog log_;
  bool blocking_ = true;
  std::vector<std::size_t> first_buffer_;  // per node, where its buffers start in buffers_
  std::vector<BufferState> buffers_;
  std::vector<MessageState> messages_;
  std::vector<NodeState> nodes_;
};

}  // namespace

ProgramVerification verify_program(const Program& program, std::size_t max_reported) {
  return Verifier(program, max_reported).run();
}

}  // namespace torus
