#include "models/cycle/node.hpp"
#include "models/prefetch.hpp"

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <stdexcept>

namespace torus {

void NodeContext::fail(const std::string& what) const {
  throw std::logic_error("node " + run->program->describe_node(index) + ": " + what);
}

void NodeContext::allocate_plan(const NodePlans& plans, bool keep_trace, bool keep_spans) {
  plan = &plans.of(index);
  info = plan->info;
  computes = plan->computes;
  ffts = plan->ffts;
  compute_done.assign(computes.size(), never);
  steps.allocate(plan->steps, keep_spans, run->totals_of(index));
  if (keep_trace) trace.assign(info.size(), TaskRecord{});
}

std::size_t RunShared::bytes() const {
  std::size_t total = receive_of.capacity() * sizeof(std::uint32_t);
  for (const MicroProgram& m : micro)
    total += sizeof(m) + m.instructions.capacity() * sizeof(FmaInstruction) +
             (m.operand_first_use.capacity() + m.coefficient_first_use.capacity() + m.accumulator_final_order.capacity()) *
                 sizeof(std::uint32_t);
  for (const ComputeSchedule& s : schedules)
    total += sizeof(s) + (s.issue.capacity() + s.ready_before_last.capacity()) * sizeof(Cycle) +
             s.left_before_last.capacity() * sizeof(std::uint16_t);
  if (scratch) total += scratch->values.capacity() * sizeof(std::complex<double>) + scratch->leave.capacity() * sizeof(Cycle);
  for (std::size_t p = 0; step_totals && p < step_parts; ++p) total += step_totals[p].bytes();
  return total;
}

Node::Node(const sc_core::sc_module_name& name, std::size_t index, const RunShared& run, const NodeSettings& settings,
           std::unique_ptr<NodeDatapath> datapath, bool clock_stepped, WakeCalendar& calendar,
           std::function<void(std::size_t, Cycle)> finished)
    : sc_core::sc_module(name),
      settings_(settings),
      pipeline_(settings.fma_latency, settings.fma_per_cycle),
      ports_(context_),
      sequencer_(context_, *run.policy,
                 [this](std::uint32_t task, std::uint32_t compute, Cycle cycle) { ports_.post(task, compute, cycle); }),
      calendar_(calendar),
      on_finished_(std::move(finished)) {
  make_ports(out, settings.out_mask);
  make_ports(in, settings.in_mask);
  context_.index = index;
  context_.run = &run;
  context_.node = &run.program->nodes.at(index);
  context_.allocate_plan(*run.plans, settings.trace_tasks, settings.trace_tasks || settings.step_spans);
  sequencer_.start();
  context_.posted_before = sequencer_.next_task_pointer();
  context_.memory.allocate(*context_.node, *context_.plan, run.split_complex ? 2 : 1);
  context_.datapath = std::move(datapath);
  context_.pipeline = &pipeline_;
  for (std::uint32_t i = 0; i < context_.node->tasks.size(); ++i)
    if (context_.task(i).kind == TaskKind::Receive) context_.incoming_left += run.program->messages[context_.task(i).message].words;
  ports_.plan_directions(settings.out_mask, settings.in_mask, settings.passes_traffic);
  fast_forward_enabled_ = fast_forward_refusal().empty();
  batching_ = fast_forward_enabled_ && !settings.passes_traffic;
  if (batching_) ports_.enable_batching();
  if (!fast_forward_enabled_ && !clock_stepped)
    throw std::logic_error("node " + std::to_string(index) + " steps every cycle but the torus has no clock");
  // Its first activation (cycle 0) and every one the calendar wakes run here; the clock's run
  // through step_on_clock (a node that may sleep asks the calendar for each next cycle itself,
  // so that while it sleeps it costs the clock nothing).
  sc_core::sc_spawn_options options;
  options.spawn_method();
  sc_core::sc_spawn([this] { activate(); }, "tick", &options);
}

// Derived when asked rather than kept: every node would hold the same text.
std::string Node::fast_forward_refusal(const NodeSettings& settings, const RollPolicy& policy) {
  if (!settings.fast_forward) return "fast_forward is off";
  if (!policy.waits_for_whole_blocks()) return "fast-forward covers roll_policy after_compute only";
  return {};
}

void Node::start_of_simulation() {
  const auto node = static_cast<std::uint32_t>(context_.index);
  ports_.set_wake_targets({&asleep_, &calendar_, node}, {&starved_asleep_, &calendar_, node});
  for (std::size_t d = 0; d < direction_count; ++d) {
    if (auto* port = out_port(d)) {
      context_.out[d] = port->operator->();
      context_.out[d]->attach_credit_hint(ports_.credit_wake());
    }
    auto* port = in_port(d);
    if (!port) continue;  // no traffic comes from there
    context_.in[d] = port->operator->();
    context_.in[d]->attach_arrival_hint(ports_.arrival_hint(d), ports_.arrival_wake());
    if (batching_) context_.in[d]->attach_taker(&ports_);
  }
}

std::size_t Node::state_bytes() const {
  // The ports themselves, not SystemC's records of them (README, "Speed").
  const std::size_t port_bytes = out.size() * sizeof(sc_core::sc_port<LinkSendIf>) + in.size() * sizeof(sc_core::sc_port<LinkReceiveIf>);
  return sizeof(Node) + port_bytes + context_.memory.bytes() + context_.run->plans->share_bytes(*context_.plan) +
         context_.counts.bytes() + context_.compute_done.capacity() * sizeof(NarrowCycle) +
         context_.steps.bytes() + context_.trace.capacity() * sizeof(TaskRecord) +
         context_.completions.capacity() * sizeof(context_.completions[0]) + ports_.bytes() +
         (context_.stats.fft_fma.capacity() + context_.stats.fft_butterflies.capacity()) * sizeof(std::uint64_t);
}

std::pair<std::size_t, std::size_t> Node::progress() const {
  return {sequencer_.next_task(), sequencer_.compute_progress().first};
}

// Re-arms the node: through the wake calendar, which wakes sleeping nodes in node order
// (models/cycle/wake_calendar.hpp), or, for a node that steps every cycle, the torus's clock.
// A duplicate activation (same SystemC time) keeps the trigger the real one chose. The node's
// process always waits on its wake event: only the calendar notifies it, and only for a node
// it was armed to wake.
void Node::arm(Trigger trigger, Cycle cycle) {
  trigger_ = trigger;
  clocked_ = false;
  switch (trigger) {
    case Trigger::Tick:
      // A node that may sleep times its next cycle itself: woken by the calendar (before the
      // clock edge of the same time), waiting for the edge would run it twice in that cycle.
      if (!fast_forward_enabled_) {  // the clock steps it: nothing for the calendar to wake
        if (calendar_armed_) arm_calendar(never, false);
        calendar_armed_ = false;
        clocked_ = true;
        break;
      }
      arm_calendar(cycle + 1, false);
      calendar_armed_ = true;
      break;
    case Trigger::Wake:
      arm_calendar(never, true);
      calendar_armed_ = true;
      break;
    case Trigger::WakeOrTimeout:
      arm_calendar(wake_at_, true);
      calendar_armed_ = true;
      break;
  }
  if (in_process_) next_trigger(wake_);
}

void Node::arm_calendar(Cycle timeout, bool listening) {
  if (deferring()) deferred_->nodes.push_back({this, timeout, false, listening});
  else calendar_.arm(static_cast<std::uint32_t>(context_.index), timeout, listening);
}

void Node::complete_deferred(const DeferredCalls::NodeCall& call) {
  if (call.finish) on_finished_(context_.index, call.cycle);
  else calendar_.arm(static_cast<std::uint32_t>(context_.index), call.cycle, call.listening);
}

// Everything after the SystemC base, where the Wakeable part begins (the port vectors, the
// context, the settings, the pipeline, the link ports, the sequencer, then the node's own fields).
std::size_t Node::hot_bytes() { return sizeof(Node) - sizeof(sc_core::sc_module); }

void Node::prefetch_links() const {
  ports_.prefetch_links();
  context_.memory.prefetch_records();
  prefetch_bytes(context_.datapath.get(), cache_line_bytes);
}

void Node::prefetch_cycle_state() const {
  __builtin_prefetch(&context_.datapath, 1);
  __builtin_prefetch(&context_.stats.words_received, 1);
  __builtin_prefetch(&pipeline_, 1);
  ports_.prefetch_state();
  sequencer_.prefetch_state();
  __builtin_prefetch(&last_cycle_, 1);
  __builtin_prefetch(&clocked_, 1);
}

void Node::prefetch_words() const {
  sequencer_.prefetch_current();
  ports_.prefetch_heads();
}

void Node::activate() {
  // The node's own fields are asked for ahead by the calendar, for a node it wakes.
  // Only a node armed through the calendar may have been woken by it.
  if (calendar_armed_) calendar_.running(static_cast<std::uint32_t>(context_.index));
  // Mostly the cycle after the last: a multiplication tells, where a division costs dozens of
  // clock cycles.
  const Cycle now = sc_core::sc_time_stamp().value();
  const Cycle cycle = now == (last_cycle_ + 1) * settings_.period_ticks ? last_cycle_ + 1 : now / settings_.period_ticks;
  in_process_ = true;
  activate_at(cycle);
  in_process_ = false;
}

void Node::step_on_clock(Cycle cycle) {
  if (clocked_) activate_at(cycle);
}

void Node::activate_at(Cycle cycle) {
  if (cycle == last_cycle_) {
    arm(trigger_, cycle);
    return;
  }
  ++context_.stats.activations;
  if (asleep_ && waiting_asleep_ && last_cycle_ != never)
    (starved_asleep_ ? context_.stats.backpressure_stalls : context_.stats.operand_stalls) += cycle - sleep_from_ - 1;
  asleep_ = false;
  starved_asleep_ = false;
  last_cycle_ = cycle;
  context_.forget_completions(cycle);
  if (finished()) {  // only the router works now: messages passing through
    ports_.send(cycle);
    route_only(cycle);
    return;
  }
  step(cycle);
}

void Node::step(Cycle cycle) {
  const std::uint64_t moved_before = context_.stats.words_received + context_.stats.words_sent + context_.stats.words_forwarded;
  ports_.receive(cycle, sequencer_.next_task());
  Blocked blocked = Blocked::None;
  std::size_t issued = 0;
  // Noted with the fault's own cycle: a node asleep then notes it when it next wakes, with the
  // progress it had at that cycle (nothing issues from it on), as a stepping node would.
  if (cycle >= stuck_from_ && context_.fault_record.empty())
    context_.fault_record = name() + std::string(" stopped issuing at cycle ") + std::to_string(stuck_from_) + " (task " +
                            std::to_string(sequencer_.next_task()) + ", fma " +
                            std::to_string(sequencer_.compute_progress().first) + ")";
  const bool issuing = cycle >= issue_resume_ && cycle < stuck_from_;
  if (issuing) {
    Cycle limit = never;
    if (can_fast_forward(cycle, limit)) issue_resume_ = sequencer_.fast_forward(cycle, limit);
    // Nothing could be issued ahead (the next fma waits past `limit`): step this cycle.
    if (issue_resume_ <= cycle) issued = sequencer_.issue(cycle, blocked);
  }
  ports_.send(cycle);
  if (issuing && issue_resume_ <= cycle) account(cycle, issued, blocked);
  const std::uint64_t moved = context_.stats.words_received + context_.stats.words_sent + context_.stats.words_forwarded;
  // At least: a run issued ahead in this activation has already recorded its last fma.
  if (issued > 0 || moved != moved_before) context_.last_progress = std::max(context_.last_progress, cycle);
  if (issued > 0 && fast_forward_enabled_) issue_ahead_from_next(cycle);
  if (done(cycle)) {
    finish(cycle);
    return;
  }
  if (fast_forward_enabled_) maybe_sleep(cycle, blocked);
  else arm(Trigger::Tick, cycle);
}

void Node::finish(Cycle cycle) {
  trace_busy_ = false;
  trace_state_ = 4;
  context_.stats.finish_cycle = cycle;
  context_.steps.finish(cycle);
  if (deferring()) deferred_->nodes.push_back({this, cycle, true, false});
  else on_finished_(context_.index, cycle);
  if (settings_.passes_traffic) return route_only(cycle);
  asleep_ = true;
  waiting_asleep_ = false;
  arm(Trigger::Wake, cycle);  // nothing will ever come
}

// A finished node only routes: it steps while a message holds one of its links or a word
// waits at an input port (a message there may ask for a link in the next cycle), and
// otherwise sleeps until the next word arrives.
void Node::route_only(Cycle cycle) {
  const Cycle next = ports_.next_arrival();
  asleep_ = true;
  waiting_asleep_ = false;
  if (!ports_.idle() || next <= cycle + 1) arm(Trigger::Tick, cycle);
  else if (next == never) arm(Trigger::Wake, cycle);
  else {
    wake_at_ = next;
    arm(Trigger::WakeOrTimeout, cycle);
  }
}

void Node::account(Cycle cycle, std::size_t issued, Blocked blocked) {
  trace_busy_ = issued > 0;
  if (issued > 0) {
    ++context_.stats.busy_cycles;
    trace_state_ = 0;
  } else if (sequencer_.all_passed()) {
    trace_state_ = 4;  // idle: counted as the remainder at the end
  } else if (blocked == Blocked::Dependency) {
    ++context_.stats.dependency_stalls;
    trace_state_ = 1;
  } else if (ports_.any_starved_with_work(cycle)) {
    ++context_.stats.backpressure_stalls;
    trace_state_ = 3;
  } else {
    ++context_.stats.operand_stalls;
    trace_state_ = 2;
  }
}

bool Node::done(Cycle cycle) const {
  // Words sent ahead are committed early but are gone only when the link takes them.
  return sequencer_.all_passed() && context_.incoming_left == 0 && !context_.completions_pending &&
         sequencer_.last_result() <= cycle && !ports_.has_queued() && context_.sent_ahead_until <= cycle;
}

}  // namespace torus
