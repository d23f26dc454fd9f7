#include "models/cycle/link_update_phase.hpp"

#include "models/cycle/link_channel.hpp"
#include "models/cycle/wake_calendar.hpp"

namespace torus {

LinkUpdatePhase::LinkUpdatePhase(const char* name, std::vector<DeferredCalls>& parts, StepThreads& threads)
    : sc_core::sc_prim_channel(name), parts_(parts), threads_(threads) {}

void LinkUpdatePhase::request_if_asked() {
  for (const DeferredCalls& calls : parts_)
    for (const std::vector<LinkChannel*>& links : calls.updates_to)
      if (!links.empty()) return request_update();
}

// A link asked for by both its ends is in two lists: its second update finds nothing staged.
// At thousands of nodes a link's fields and what they point to (its receiver's arrival hint)
// are no longer in the cache: each is asked for a few links ahead (models/prefetch.hpp).
void LinkUpdatePhase::update_links_of(std::size_t receiver) {
  constexpr std::size_t fields_ahead = 8, staged_ahead = 4;
  DeferredCalls& mine = parts_[receiver];
  for (const DeferredCalls& calls : parts_) {
    const std::vector<LinkChannel*>& links = calls.updates_to[receiver];
    for (std::size_t k = 0; k < links.size(); ++k) {
      if (k + fields_ahead < links.size()) links[k + fields_ahead]->prefetch_fields();
      if (k + staged_ahead < links.size()) links[k + staged_ahead]->prefetch_staged();
      links[k]->update_staged(mine);
    }
  }
}

void LinkUpdatePhase::update() {
  try {
    threads_.run([this](std::size_t p) { update_links_of(p); });
  } catch (...) {
    for (DeferredCalls& calls : parts_) calls.clear();
    throw;
  }
  for (DeferredCalls& calls : parts_) {
    for (const DeferredCalls::Wake& w : calls.wakes) w.calendar->notify(w.node, w.at);
    calls.wakes.clear();
    for (std::vector<LinkChannel*>& links : calls.updates_to) links.clear();
  }
}

}  // namespace torus
