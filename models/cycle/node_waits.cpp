#include "models/cycle/node.hpp"

#include <sstream>

// What a node waits for, for stall reports and the watchdog.

namespace torus {

std::string Node::waiting_for(Cycle cycle) const {
  std::ostringstream text;
  if (cycle >= stuck_from_) text << "stuck by the injected fault since cycle " << stuck_from_ << "; ";
  const std::uint32_t compute = sequencer_.current_compute();
  if (compute == no_task) {
    text << "all fma issued";
  } else {
    const TaskLabel& label = context_.task(compute).label;
    const auto [issued, total] = sequencer_.compute_progress();
    text << "global step " << label.global_step << " (stage " << label.stage << ", step " << label.step << "), fma "
         << issued << " of " << total << (sequencer_.compute_started() ? "" : ", waiting for whole incoming blocks");
  }
  text << "; " << context_.incoming_left << " words still to receive" << ports_.describe_queues(cycle);
  return text.str();
}

std::uint32_t Node::awaited_message() const {
  const std::uint32_t compute = sequencer_.current_compute();
  if (compute == no_task) return no_task;
  for (const std::uint32_t receive : context_.computes[context_.info[compute]].filled_by)
    if (receive != no_task && context_.words_done(receive) < context_.words_of(receive)) return context_.task(receive).message;
  return no_task;
}

std::pair<std::size_t, std::string> Node::waits_on(Cycle cycle) const {
  const Program& program = context_.program();
  const std::uint32_t compute = sequencer_.current_compute();
  if (compute != no_task)  // a block it reads that has not fully arrived
    for (const std::uint32_t receive : context_.computes[context_.info[compute]].filled_by) {
      if (receive == no_task) continue;
      const Message& m = program.messages[context_.task(receive).message];
      if (context_.words_done(receive) < m.words)
        return {m.source, "message " + std::to_string(context_.task(receive).message) + " (" + program.describe(m.tag) + ")"};
    }
  for (const std::size_t d : ports_.send_directions())  // a word it must send first, held up by a credit
    if (ports_.starved_with_work(d, cycle)) {
      const auto to = program.shape.neighbour(program.shape.coord_of(context_.index), static_cast<Direction>(d));
      if (to) return {program.shape.index_of(*to), "a credit on " + to_string(static_cast<Direction>(d))};
    }
  return {no_node, ""};
}

}  // namespace torus
