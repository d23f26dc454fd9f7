#include "models/cycle/wake_calendar.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/prefetch.hpp"

namespace torus {

WakeCalendar::WakeCalendar(const sc_core::sc_module_name& name, Cycle period_ticks)
    : sc_core::sc_module(name), period_ticks_(period_ticks) {
  sc_core::sc_spawn_options options;
  options.spawn_method();
  options.dont_initialize();
  options.set_sensitivity(&event_);
  sc_core::sc_spawn([this] { fire(); }, "fire", &options);
}

void WakeCalendar::attach(std::vector<Wakeable*> nodes, std::size_t object_bytes) {
  targets_.clear();
  targets_.reserve(nodes.size());
  for (Wakeable* node : nodes) targets_.push_back({node, &node->wake_event()});
  entries_.assign(targets_.size(), Entry{});
  object_bytes_ = object_bytes;
}

void WakeCalendar::arm(std::uint32_t node, Cycle timeout, bool listening) {
  Entry& entry = entries_[node];
  entry.timeout = timeout;
  entry.listening = listening;
  if (timeout != never) schedule(node, timeout);
}

void WakeCalendar::notify(std::uint32_t node, Cycle at) {
  Entry& entry = entries_[node];
  if (at >= entry.notified) return;  // the pending one comes first
  entry.notified = at;
  schedule(node, at);
}

void WakeCalendar::schedule(std::uint32_t node, Cycle at) {
  const Cycle now_ticks = sc_core::sc_time_stamp().value();
  if (at * period_ticks_ < now_ticks)
    throw std::logic_error("wake calendar: node " + std::to_string(node) + " asked to be woken at cycle " + std::to_string(at) +
                           ", before the current cycle " + std::to_string(now_ticks / period_ticks_));
  auto [it, added] = due_.try_emplace(at);
  if (added && !spare_.empty()) {
    it->second = std::move(spare_.back());
    spare_.pop_back();
  }
  it->second.push_back(node);
  if (at < event_at_) notify_event_at(at, now_ticks);
}

void WakeCalendar::notify_event_at(Cycle at, Cycle now_ticks) {
  event_at_ = at;
  event_.notify(sc_core::sc_time::from_value(at * period_ticks_ - now_ticks));
}

void WakeCalendar::prefetch_object(std::uint32_t node) const {
  prefetch_bytes<true>(targets_[node].node, object_bytes_, 48);  // a node object is about 43 lines
}

void WakeCalendar::fire() {
  const Cycle now_ticks = sc_core::sc_time_stamp().value();
  const Cycle now = now_ticks / period_ticks_;
  event_at_ = never;
  woken_.clear();
  cursor_ = 0;
  while (!due_.empty() && due_.begin()->first <= now) {
    const auto it = due_.begin();
    std::vector<std::uint32_t>& listed = it->second;
    std::sort(listed.begin(), listed.end());
    listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
    for (const std::uint32_t node : listed) {
      Entry& entry = entries_[node];
      const bool notified = entry.notified == now;
      if (notified) entry.notified = never;
      if (entry.timeout != now && !(notified && entry.listening)) continue;
      entry.timeout = never;
      entry.listening = false;
      woken_.push_back(node);
    }
    listed.clear();
    spare_.push_back(std::move(listed));
    due_.erase(it);
  }
  // Immediate: each woken node runs in this evaluation phase, in the order notified. Notifying
  // reads the event (in the node's object): asked for a few nodes ahead.
  constexpr std::size_t event_distance = 4;
  for (std::size_t k = 0; k < woken_.size(); ++k) {
    if (k + event_distance < woken_.size()) prefetch_bytes(targets_[woken_[k + event_distance]].event, sizeof(sc_core::sc_event));
    targets_[woken_[k]].event->notify();
  }
  for (std::size_t k = 0; k < std::min<std::size_t>(3, woken_.size()); ++k) prefetch_object(woken_[k]);
  if (!due_.empty()) notify_event_at(due_.begin()->first, now_ticks);
}

void WakeCalendar::running(std::uint32_t node) {
  if (cursor_ >= woken_.size() || woken_[cursor_] != node) return;
  prefetch_after(cursor_);
  ++cursor_;
}

void WakeCalendar::prefetch_after(std::size_t position) const {
  const std::size_t count = woken_.size();
  if (position + 3 < count) prefetch_object(woken_[position + 3]);
  if (position + 2 < count) targets_[woken_[position + 2]].node->prefetch_links();
  if (position + 1 < count) targets_[woken_[position + 1]].node->prefetch_words();
}

std::size_t WakeCalendar::bytes() const {
  std::size_t total = targets_.capacity() * sizeof(Target) + entries_.capacity() * sizeof(Entry) +
                      woken_.capacity() * sizeof(std::uint32_t) + spare_.capacity() * sizeof(spare_[0]);
  for (const auto& [cycle, listed] : due_) total += 48 + listed.capacity() * sizeof(std::uint32_t);  // a map node, roughly
  for (const auto& listed : spare_) total += listed.capacity() * sizeof(std::uint32_t);
  return total;
}

}  // namespace torus
