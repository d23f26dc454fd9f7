#include "models/node.hpp"

#include "sim/fault_config.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace torus {

Node::Node(const sc_core::sc_module_name& name, std::size_t index, Cycle period_ticks, Cycle fma_latency,
           unsigned fma_per_cycle, const RollPolicy& policy, std::unique_ptr<NodeDatapath> datapath, NodeObserver observer,
           bool fast_forward)
    : sc_core::sc_module(name),
      index_(index),
      period_ticks_(period_ticks),
      policy_(policy),
      datapath_(std::move(datapath)),
      observer_(std::move(observer)),
      pipeline_("fma", fma_latency, fma_per_cycle) {
  fast_forward_enabled_ = fast_forward && fma_per_cycle == 1 && policy.waits_for_whole_blocks();
  sc_core::sc_spawn_options options;
  options.spawn_method();
  options.dont_initialize();
  options.set_sensitivity(&clock.pos());
  sc_core::sc_spawn([this] { on_clock(); }, "tick", &options);
}

void Node::start_of_simulation() {
  const std::size_t b = feed->block_size();
  components_ = feed->split_complex() ? 2 : 1;
  for (std::size_t k = 0; k < block_kind_count; ++k)
    for (Buffer& buf : buffers_[k]) {
      const std::size_t words = words_in(static_cast<BlockKind>(k), b);
      buf.words.assign(words, WordState{never, ~0u, false});
      buf.component_ready.assign(words * components_, never);
      buf.writes_left.assign(words, 0);
    }
  step_start_.assign(feed->step_count(), never);
  compute_done_.assign(feed->step_count(), never);
  words_sent_per_step_.assign(feed->step_count(), 0);
  fma_per_step_.assign(feed->step_count(), 0);
  first_send_.assign(feed->step_count(), never);
  last_send_.assign(feed->step_count(), never);
  incoming_left_ = feed->incoming_words_per_node();
  step_count_ = feed->step_count();
  schedule_ = feed.operator->();
  std::array<bool, direction_count> used{};
  for (std::size_t s = 0; s < step_count_; ++s)
    for (const Roll& roll : feed->plan(s).rolls) used[static_cast<std::size_t>(roll.direction)] = true;
  for (std::size_t d = 0; d < direction_count; ++d) {
    out_links_[d] = out[d].operator->();
    in_links_[d] = in[d].operator->();
    if (used[d]) {
      send_directions_.push_back(d);
      receive_directions_.push_back(static_cast<std::size_t>(opposite(static_cast<Direction>(d))));
    }
  }
  for (std::size_t d = 0; d < direction_count; ++d) {
    arrival_hint_[d] = {never, &asleep_, &wake_, sc_core::sc_time::from_value(period_ticks_)};
    in_links_[d]->attach_arrival_hint(&arrival_hint_[d]);
  }
}

std::size_t Node::second_buffer_words() const {
  std::array<bool, block_kind_count> rolls{};
  for (std::size_t s = 0; s < feed->step_count(); ++s)
    for (const Roll& r : feed->plan(s).rolls) rolls[static_cast<std::size_t>(r.kind)] = true;
  std::size_t words = 0;
  for (std::size_t k = 0; k < block_kind_count; ++k)
    if (rolls[k]) words += words_in(static_cast<BlockKind>(k), feed->block_size());
  return words;
}

Slot Node::slot_of(BlockKind kind, std::size_t step) const {
  return {kind, schedule_->plan(step).buffer[static_cast<std::size_t>(kind)]};
}

void Node::fail(const std::string& what) const {
  throw std::logic_error(std::string(name()) + ": " + what);
}

void Node::on_clock() {
  if (next_cycle_ == never || asleep_) {
    const Cycle now = sc_core::sc_time_stamp().value() / period_ticks_;
    if (asleep_ && waiting_asleep_) stats_.operand_stalls += now - sleep_from_ - 1;
    asleep_ = false;
    next_cycle_ = now;
  }
  const Cycle cycle = next_cycle_++;
  const std::uint64_t moved_before = stats_.words_received + stats_.words_sent;
  receive(cycle);
  Blocked blocked = Blocked::None;
  std::size_t issued = 0;
  if (cycle >= stuck_from_ && fault_record_.empty())
    fault_record_ = name() + std::string(" stopped issuing at cycle ") + std::to_string(cycle) + " (global step " +
                    std::to_string(step_) + ", fma " + std::to_string(next_instruction_) + ")";
  const bool issuing = cycle >= issue_resume_ && cycle < stuck_from_;
  if (issuing) {
    Cycle limit = never;
    if (can_fast_forward(cycle, limit)) fast_forward(cycle, limit);
    else issued = issue(cycle, blocked);
  }
  send(cycle);
  if (issuing && issue_resume_ <= cycle) account(cycle, issued, blocked);
  if (issued > 0 || stats_.words_received + stats_.words_sent != moved_before) last_progress_ = cycle;
  if (done(cycle)) {
    trace_busy_ = false;
    trace_state_ = 4;
    stats_.finish_cycle = cycle;
    observer_.finished(index_, cycle);
    next_trigger(never_event_);  // nothing left: stop waking up
    return;
  }
  if (fast_forward_enabled_) maybe_sleep(cycle, blocked);
}

// The rest of a step (all but its last fma, which finishes the step the ordinary way) can be
// issued ahead when nothing outside the node can change when each fma issues: the step's
// inputs are all present (the whole-block gate has opened), the unit takes one fma per cycle,
// and no word can leave or arrive before `limit`. The node then issues the fma at exactly the
// cycles it would have, counts those cycles, and sleeps; a word sent to it meanwhile wakes it
// at the word's arrival cycle.
bool Node::can_fast_forward(Cycle cycle, Cycle& limit) const {
  if (!fast_forward_enabled_ || !step_started_ || step_ >= step_count_ ||
      next_instruction_ + 1 >= context_.program->instructions.size())
    return false;
  for (const std::size_t d : send_directions_)
    if (!outgoing_[d].empty() && send_retry_at_[d] != never) return false;
  limit = stuck_from_;  // a fault may stop the unit: issue nothing ahead of it
  if (incoming_left_ > 0)
    for (const std::size_t d : receive_directions_) limit = std::min(limit, arrival_hint_[d].next);
  return limit > cycle + 1;
}

void Node::fast_forward(Cycle cycle, Cycle limit) {
  const StepContext& c = context_;
  Buffer& acc_buffer = *c.accumulator_buffer;
  const std::size_t last = c.program->instructions.size() - 1;
  Cycle t = cycle;
  while (next_instruction_ < last) {
    const FmaInstruction& instruction = c.program->instructions[next_instruction_];
    WordState& acc_word = acc_buffer.words[instruction.accumulator];
    const std::uint32_t target = c.program->target(instruction);
    Cycle& target_ready = components_ == 1 ? acc_word.ready : acc_buffer.component_ready[target];
    const Cycle earliest = std::max({t, target_ready, c.operand_buffer->words[instruction.operand].ready,
                                     c.coefficient_buffer->words[instruction.coefficient].ready});
    if (earliest >= limit) break;
    stats_.dependency_stalls += earliest - t;
    t = earliest;
    issue_fma(instruction, t, target_ready);
    ++stats_.fast_forwarded_fma;
    ++stats_.busy_cycles;
    last_progress_ = t;
    ++t;
    ++next_instruction_;
  }
  issue_resume_ = t;
}

// Sleeps until the next cycle at which the node could act: the end of a fast-forwarded run
// of fma, a word's arrival, or a queued word's release. While waiting for words with nothing
// to send, every skipped cycle is an operand stall, counted on waking.
void Node::maybe_sleep(Cycle cycle, Blocked blocked) {
  const bool ahead = issue_resume_ > cycle + 1;
  const bool waiting = !ahead && blocked == Blocked::Data && !step_started_ && issue_resume_ <= cycle;
  if (!ahead && !waiting) return;
  Cycle until = ahead ? issue_resume_ : never;
  if (incoming_left_ > 0)
    for (const std::size_t d : receive_directions_) until = std::min(until, arrival_hint_[d].next);
  for (const std::size_t d : send_directions_)
    if (!outgoing_[d].empty()) {
      if (waiting || send_retry_at_[d] <= cycle + 1) return;  // something may leave next cycle
      until = std::min(until, send_retry_at_[d]);
    }
  if (until <= cycle + 1) return;
  asleep_ = true;
  waiting_asleep_ = waiting;
  sleep_from_ = cycle;
  if (until == never) next_trigger(wake_);
  else next_trigger(sc_core::sc_time::from_value(period_ticks_ * (until - cycle)), wake_);
}

void Node::receive(Cycle cycle) {
  if (incoming_left_ == 0) return;
  for (const std::size_t d : receive_directions_) {
    if (arrival_hint_[d].next > cycle) continue;  // nothing due on this link yet
    LinkReceiveIf& link = *in_links_[d];
    while (const LinkWord* word = link.front(cycle)) {
      if (!store(*word, cycle)) break;
      link.pop(cycle);
    }
    arrival_hint_[d].next = link.next_arrival();
  }
}

bool Node::store(const LinkWord& word, Cycle cycle) {
  const std::size_t s = word.step;
  if (s > step_ + 1) return false;  // its place may still be read two steps back
  const std::size_t total = schedule_->step_count();
  const StepPlan* plan = s < total ? &schedule_->plan(s) : nullptr;
  const auto kind = static_cast<std::size_t>(word.block.kind);
  if (plan && plan->created[kind]) {  // the step starts this kind afresh: the word is dead
    --incoming_left_;
    ++stats_.words_received;
    return true;
  }
  const Slot slot{word.block.kind, plan ? plan->buffer[kind] : schedule_->final_buffer(word.block.kind)};
  Buffer& buf = buffer(slot);
  WordState& state = buf.words[word.index];
  if (state.owed) return false;  // the place still holds a word that has to leave first
  --incoming_left_;
  ++stats_.words_received;
  if (buf.filled_step != s) {
    buf.filled_step = static_cast<std::uint32_t>(s);
    buf.filled_words = 0;
    buf.block = word.block;
    if (plan) {
      const BlockMultiplyAdd& op = schedule_->op(index_, s);
      for (const BlockId* expected : {&op.accumulator, &op.operand, &op.coefficient})
        if (expected->kind == word.block.kind && *expected != word.block)
          fail("step " + std::to_string(s) + " needs " + to_string(*expected) + " but " + to_string(word.block) + " arrived");
    }
  }
  datapath_->write(slot, word.index, word.value);
  state.ready = cycle;
  state.content_step = static_cast<std::uint32_t>(s);
  state.owed = plan && plan->rolled[kind];
  for (std::size_t c = 0; c < components_; ++c) buf.component_ready[word.index * components_ + c] = cycle;
  ++buf.filled_words;
  wake_senders();
  return true;
}

void Node::place_block(Slot s, const BlockId& block, Cycle cycle, std::uint32_t step) {
  Buffer& buf = buffer(s);
  for (WordState& w : buf.words) w = {cycle, step, false};
  std::fill(buf.component_ready.begin(), buf.component_ready.end(), cycle);
  buf.block = block;
  buf.filled_step = step;
  buf.filled_words = static_cast<std::uint32_t>(buf.words.size());
}

void Node::load_transform(std::size_t transform, Cycle cycle) {
  for (const Placement& p : feed->loads(index_, transform)) {
    const Slot s = slot_of(p.block.kind, step_);
    datapath_->load(s, p.block, transform);
    place_block(s, p.block, cycle, static_cast<std::uint32_t>(step_));
    if (corrupt_bit_ >= 0 && fault_record_.empty() && is_coefficient(p.block.kind)) {
      const std::complex<double> value = datapath_->read(s, 0);
      datapath_->write(s, 0, {with_bit_flipped(value.real(), corrupt_bit_), value.imag()});
      std::ostringstream record;
      record << "flipped bit " << corrupt_bit_ << " of word 0 of coefficient block " << to_string(p.block) << " in "
             << name() << ": " << value.real() << " became " << datapath_->read(s, 0).real();
      fault_record_ = record.str();
    }
  }
}

void Node::enter_step(Cycle cycle) {
  const StepPlan& plan = feed->plan(step_);
  const auto step = static_cast<std::uint32_t>(step_);
  if (plan.transform_start) load_transform(plan.transform, cycle);
  for (std::size_t k = 0; k < block_kind_count; ++k) {
    const auto kind = static_cast<BlockKind>(k);
    Buffer& buf = buffer(slot_of(kind, step_));
    const bool used = kind == plan.accumulator || kind == plan.operand || kind == plan.coefficient;
    if (plan.created[k]) {
      datapath_->zero(slot_of(kind, step_));
      place_block(slot_of(kind, step_), feed->created(index_, step_), cycle, step);
    } else if (!plan.arrives[k] && (used || plan.rolled[k])) {
      // Content that stays in place serves this step too. Arriving content is marked word by
      // word as it is stored; until then the place may hold older words still owed to a link.
      for (WordState& w : buf.words) w.content_step = step;
    }
    if (plan.rolled[k] && !plan.arrives[k])
      for (WordState& w : buf.words) w.owed = true;  // held content leaves this step
  }
  const BlockMultiplyAdd& op = feed->op(index_, step_);
  for (const BlockId* needed : {&op.accumulator, &op.operand, &op.coefficient}) {
    const Buffer& buf = buffer(slot_of(needed->kind, step_));
    if (!plan.arrives[static_cast<std::size_t>(needed->kind)] && buf.block != *needed)
      fail("step " + std::to_string(step_) + " needs " + to_string(*needed) + " but holds " + to_string(buf.block));
  }
  const std::size_t writes = feed->block_size() * (components_ == 2 ? 4 : 1);
  Buffer& acc = buffer(slot_of(plan.accumulator, step_));
  std::fill(acc.writes_left.begin(), acc.writes_left.end(), static_cast<std::uint16_t>(writes));
  prepare_rolls();
  context_.plan = &plan;
  context_.program = plan.program;
  context_.accumulator = slot_of(plan.accumulator, step_);
  context_.operand = slot_of(plan.operand, step_);
  context_.coefficient = slot_of(plan.coefficient, step_);
  context_.accumulator_buffer = &buffer(context_.accumulator);
  context_.operand_buffer = &buffer(context_.operand);
  context_.coefficient_buffer = &buffer(context_.coefficient);
  context_.whole_blocks = policy_.waits_for_whole_blocks();
  context_.final_words_direction = -1;
  if (policy_.release(BlockRole::Accumulator) == SendRelease::WordFinal)
    for (const Roll& roll : plan.rolls)
      if (roll.kind == plan.accumulator) context_.final_words_direction = static_cast<int>(roll.direction);
}

void Node::prepare_rolls() {
  const StepPlan& plan = feed->plan(step_);
  for (const Roll& roll : plan.rolls) {
    const BlockRole role = roll.kind == plan.accumulator ? BlockRole::Accumulator
                           : roll.kind == plan.operand   ? BlockRole::Operand
                                                         : BlockRole::Coefficient;
    const SendRelease release = policy_.release(role);
    if (release == SendRelease::WordFinal) continue;  // queued word by word as updates finish
    const Slot slot = slot_of(roll.kind, step_);
    auto& queue = outgoing_[static_cast<std::size_t>(roll.direction)];
    const auto step = static_cast<std::uint32_t>(step_);
    if (release == SendRelease::WordPresent) {
      const auto& order = role == BlockRole::Operand ? plan.program->operand_first_use : plan.program->coefficient_first_use;
      for (std::uint32_t w : order) queue.push_back({slot, w, step, release});
    } else {
      const auto words = static_cast<std::uint32_t>(buffer(slot).words.size());
      for (std::uint32_t w = 0; w < words; ++w) queue.push_back({slot, w, step, release});
    }
  }
  wake_senders();
}

bool Node::gate_open() const {
  if (!policy_.waits_for_whole_blocks()) return true;
  const StepPlan& plan = *context_.plan;
  for (BlockKind kind : {plan.accumulator, plan.operand, plan.coefficient}) {
    if (!plan.arrives[static_cast<std::size_t>(kind)]) continue;
    const Buffer& buf = buffer(slot_of(kind, step_));
    if (buf.filled_step != step_ || buf.filled_words != buf.words.size()) return false;
  }
  return true;
}

std::size_t Node::issue(Cycle cycle, Blocked& blocked) {
  std::size_t issued = 0;
  while (step_ < step_count_ && pipeline_.has_slot(cycle)) {
    if (!step_entered_) {
      enter_step(cycle);
      step_entered_ = true;
    }
    if (!step_started_) {
      if (!gate_open()) {
        blocked = Blocked::Data;
        break;
      }
      step_started_ = true;
    }
    const StepContext& c = context_;
    const FmaInstruction& instruction = c.program->instructions[next_instruction_];
    Buffer& acc_buffer = *c.accumulator_buffer;
    WordState& acc_word = acc_buffer.words[instruction.accumulator];
    const WordState& operand_word = c.operand_buffer->words[instruction.operand];
    const WordState& coefficient_word = c.coefficient_buffer->words[instruction.coefficient];
    if (!c.whole_blocks) {
      // Words may still be on their way (overlapped): check each one this fma reads. With whole
      // blocks the gate has already seen every arriving word.
      const auto step = static_cast<std::uint32_t>(step_);
      if (acc_word.content_step != step || operand_word.content_step != step || coefficient_word.content_step != step) {
        blocked = Blocked::Data;
        break;
      }
    }
    // Present but not yet usable: a result still in this node's pipeline.
    if (operand_word.ready > cycle || coefficient_word.ready > cycle) {
      blocked = Blocked::Dependency;
      break;
    }
    const std::uint32_t target = c.program->target(instruction);
    Cycle& target_ready = components_ == 1 ? acc_word.ready : acc_buffer.component_ready[target];
    if (target_ready > cycle) {
      blocked = Blocked::Dependency;
      break;
    }
    issue_fma(instruction, cycle, target_ready);
    ++issued;
    if (++next_instruction_ == c.program->instructions.size()) finish_step();
  }
  return issued;
}

// Issues one fma at `cycle`: the datapath computes its value now, the pipeline says when it
// may be used, and an accumulator word whose last update this was may be queued to leave.
void Node::issue_fma(const FmaInstruction& instruction, Cycle cycle, Cycle& target_ready) {
  const StepContext& c = context_;
  Buffer& acc_buffer = *c.accumulator_buffer;
  datapath_->fma(instruction, c.accumulator, c.operand, c.coefficient);
  const Cycle result = pipeline_.issue(cycle);
  if (next_instruction_ == 0) step_start_[step_] = cycle;  // a step starts with its first fma
  ++fma_per_step_[step_];
  target_ready = result;
  if (components_ == 2)
    acc_buffer.words[instruction.accumulator].ready =
        std::max(acc_buffer.component_ready[2 * instruction.accumulator], acc_buffer.component_ready[2 * instruction.accumulator + 1]);
  last_result_ = result;
  if (c.final_words_direction >= 0 && --acc_buffer.writes_left[instruction.accumulator] == 0) {
    const auto direction = static_cast<std::size_t>(c.final_words_direction);
    outgoing_[direction].push_back({c.accumulator, instruction.accumulator, static_cast<std::uint32_t>(step_), SendRelease::WordFinal});
    send_retry_at_[direction] = 0;
  }
}

void Node::finish_step() {
  compute_done_[step_] = last_result_;
  wake_senders();
  ++step_;
  next_instruction_ = 0;
  step_entered_ = false;
  step_started_ = false;
}

Cycle Node::release_cycle(const Outgoing& o) const {
  const WordState& w = buffer(o.slot).words[o.word];
  switch (o.release) {
    case SendRelease::ComputeDone: return compute_done_[o.step];
    case SendRelease::WordPresent: return w.content_step == o.step ? w.ready : never;
    case SendRelease::WordFinal: return w.ready;
  }
  return never;
}

bool Node::sendable(const Outgoing& o, Cycle cycle) const {
  const WordState& w = buffer(o.slot).words[o.word];
  switch (o.release) {
    case SendRelease::ComputeDone: return compute_done_[o.step] <= cycle;
    case SendRelease::WordPresent: return present(w, o.step, cycle);
    case SendRelease::WordFinal: return w.ready <= cycle;
  }
  return false;
}

void Node::send(Cycle cycle) {
  for (const std::size_t d : send_directions_) {
    auto& queue = outgoing_[d];
    if (queue.empty() || send_retry_at_[d] > cycle) continue;
    while (!queue.empty()) {
      const Outgoing& o = queue.front();
      if (!sendable(o, cycle)) {
        send_retry_at_[d] = release_cycle(o);
        break;
      }
      if (!out_links_[d]->can_send(cycle)) break;
      Buffer& buf = buffer(o.slot);
      out_links_[d]->send(cycle, {datapath_->read(o.slot, o.word), buf.block, o.step + 1, o.word});
      buf.words[o.word].owed = false;
      ++stats_.words_sent;
      ++words_sent_per_step_[o.step];
      if (first_send_[o.step] == never) first_send_[o.step] = cycle;
      last_send_[o.step] = cycle;
      queue.pop_front();
    }
  }
}

void Node::account(Cycle, std::size_t issued, Blocked blocked) {
  trace_busy_ = issued > 0;
  if (issued > 0) {
    ++stats_.busy_cycles;
    trace_state_ = 0;
    return;
  }
  if (step_ >= step_count_) {
    trace_state_ = 4;  // idle: counted as the remainder at the end
    return;
  }
  if (blocked == Blocked::Dependency) {
    ++stats_.dependency_stalls;
    trace_state_ = 1;
    return;
  }
  for (const std::size_t d : send_directions_)
    if (!outgoing_[d].empty() && out_links_[d]->starved_of_credit()) {
      ++stats_.backpressure_stalls;
      trace_state_ = 3;
      return;
    }
  ++stats_.operand_stalls;
  trace_state_ = 2;
}

bool Node::done(Cycle cycle) const {
  if (step_ < step_count_ || incoming_left_ > 0 || last_result_ > cycle) return false;
  for (const auto& queue : outgoing_)
    if (!queue.empty()) return false;
  return true;
}

std::string Node::waiting_for(Cycle cycle) const {
  std::ostringstream out_text;
  if (cycle >= stuck_from_) out_text << "stuck by the injected fault since cycle " << stuck_from_ << "; ";
  if (step_ >= feed->step_count()) {
    out_text << "all fma issued";
  } else {
    const auto [stage, step] = feed->stage_and_step(step_);
    out_text << "global step " << step_ << " (stage " << stage << ", step " << step << "), fma "
             << next_instruction_ << " of " << feed->plan(step_).program->instructions.size()
             << (step_started_ ? "" : ", waiting for whole incoming blocks");
  }
  out_text << "; " << incoming_left_ << " words still to receive";
  for (std::size_t d = 0; d < direction_count; ++d)
    if (!outgoing_[d].empty())
      out_text << "; " << outgoing_[d].size() << " words queued on " << to_string(static_cast<Direction>(d))
               << (out[d]->starved_of_credit() ? " (no credit)" : "")
               << (sendable(outgoing_[d].front(), cycle) ? "" : " (head not yet releasable)");
  return out_text.str();
}

}  // namespace torus
