#include "models/cycle/node.hpp"

#include <algorithm>

// A node's fast-forward: runs of fma issued ahead, and sleeping until the next cycle it could act.

namespace torus {

// A compute that has just issued (typically its first fma) would fast-forward in the next cycle
// if nothing reaches the node by then: decide it now, for cycle + 1, under the same test. What
// the next cycle's receive and send phases could change is ruled out by that test (no word due
// or able to leave before `limit`), and a word sent to the node meanwhile wakes it at its
// arrival as during any run issued ahead; the fma of the run wait for nothing outside the node.
void Node::issue_ahead_from_next(Cycle cycle) {
  const Cycle next = cycle + 1;
  Cycle limit = never;
  if (issue_resume_ > next || next >= stuck_from_ || !can_fast_forward(next, limit)) return;
  issue_resume_ = sequencer_.fast_forward(next, limit);
}

// A cycle that issued its compute's last fma is mostly followed by one that only enters the
// next compute and waits for its inputs: that issue phase is done now, and the node sleeps as
// one waiting for words from the next cycle on (maybe_sleep's tests then hold for that cycle
// too: nothing due, able to leave or starved of credit there), instead of stepping it.
bool Node::enter_ahead(Cycle cycle) {
  const Cycle next = cycle + 1;
  if (next >= stuck_from_ || issue_resume_ > next || !sequencer_.enter_ahead(next)) return false;
  ports_.refresh_retries(next);  // the sends the compute posted
  return true;
}

// The rest of a compute (all but its last fma, which finishes it the ordinary way) can be
// issued ahead when nothing outside the node can change when each fma issues: its inputs are
// all present (the whole-block gate has opened) and no word can leave or arrive before
// `limit`. A word sent to the node meanwhile wakes it at the word's arrival cycle.
bool Node::can_fast_forward(Cycle cycle, Cycle& limit) const {
  if (!fast_forward_enabled_ || !sequencer_.can_fast_forward() || context_.send_state_changed) return false;
  if (ports_.earliest_send(cycle) != never) return false;
  limit = stuck_from_;  // a fault may stop the unit: issue nothing ahead of it
  if (context_.incoming_left > 0 || settings_.passes_traffic) limit = std::min(limit, ports_.next_arrival());
  return limit > cycle + 1;
}

// Sleeps until the next cycle at which the node could act: the end of a fast-forwarded run of
// fma, a word's arrival, or a queued word's release. While waiting for words with nothing to
// send, every skipped cycle is an operand stall, counted on waking.
void Node::maybe_sleep(Cycle cycle, Blocked blocked) {
  const bool ahead = issue_resume_ > cycle + 1;
  bool waiting = !ahead && blocked == Blocked::Data && !sequencer_.compute_started() && issue_resume_ <= cycle;
  // Every task passed: the cycles until the node finishes are idle (counted as the remainder).
  const bool idle = !ahead && !waiting && sequencer_.all_passed();
  // A stuck unit never issues again and counts no stall (account() is not called): only its
  // links can change, so it sleeps like an idle node. Stepping it kept a stalled run with a long
  // watchdog window at about a million cycles a second.
  const bool stuck = cycle >= stuck_from_;
  if (!ahead && !waiting && !idle && !stuck && !(waiting = enter_ahead(cycle))) return arm(Trigger::Tick, cycle);
  if (batching_) ports_.take_committed(cycle);
  Cycle until = ahead ? issue_resume_ : never;
  if (context_.incoming_left > 0 || settings_.passes_traffic) until = std::min(until, ports_.next_storable_arrival(cycle));
  // A wake-up notified for a later completion is lost when an earlier one is notified: ask
  // again. A compute waiting for whole blocks needs only the cycle its gate opens.
  const Cycle gate = context_.gate_opens_at();
  until = std::min(until, gate != never ? gate : context_.next_completion());
  // A load or compute waiting for its buffer's last words to leave goes on the cycle after.
  until = std::min(until, sequencer_.resumes_at());
  // Words sent ahead keep the node from finishing until the last has left (nothing else waits
  // for them: a buffer they leave from is waited for through resumes_at and replaceable_at).
  if (context_.sent_ahead_until > cycle && sequencer_.all_passed()) until = std::min(until, context_.sent_ahead_until);
  // Nor before the last fma's result is usable.
  if (idle && sequencer_.last_result() > cycle) until = std::min(until, sequencer_.last_result());
  // A load or compute waiting to overwrite a buffer whose words were sent ahead (a smaller block
  // may arrive in it before a larger one has left) wakes when the last of them has left.
  if (waiting) until = std::min(until, sequencer_.replaceable_at(cycle));
  bool starved = false;
  if (!ports_.idle()) {
    // Queued words that cannot leave before the node's state changes (their compute has not
    // run) do not keep it awake. A node out of credit that is waiting, idle or stuck sleeps
    // until a credit returns: nothing else changes here meanwhile (an arrival or the gate wakes
    // it), so each cycle until then is what stepping would count: a back-pressure stall when
    // waiting, nothing otherwise. A node issuing ahead out of credit steps.
    starved = (waiting || idle || stuck) && ports_.any_starved_with_work(cycle);
    const Cycle send = ports_.earliest_send(cycle, starved);
    if (send <= cycle + 1) return arm(Trigger::Tick, cycle);
    until = std::min(until, send);
  }
  if (until <= cycle + 1) return arm(Trigger::Tick, cycle);
  sleep(cycle, until, waiting, starved);
}

void Node::sleep(Cycle cycle, Cycle until, bool waiting, bool starved) {
  asleep_ = true;
  waiting_asleep_ = waiting;
  starved_asleep_ = starved;
  sleep_from_ = cycle;
  wake_at_ = until;
  // Waiting for whole blocks with nothing to send, nothing changes here until they are in: the
  // links may hand over arriving words at once.
  arm(until == never ? Trigger::Wake : Trigger::WakeOrTimeout, cycle);
}

}  // namespace torus
