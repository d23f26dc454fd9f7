// A buffer's word times (event_state.hpp): per word, or while compact per run of words in
// closed forms (docs/timing-model.md, "Closed forms of a whole message, and of a buffer's words").

#include <algorithm>

#include "models/event/event_state.hpp"

namespace torus::event {

void BufferTimes::allocate(std::size_t words, bool split_complex, bool compact_forms) {
  size = words;
  split = split_complex;
  compact = compact_forms;
  segments = {Segment{words, 0, TimeForm::uniform(0), TimeForm::uniform(0), TimeForm{}}};
  if (compact) return;
  ready.assign(words, 0);
  since.assign(words, 0);
  left.assign(words, never);
  generation.assign(words, 0);
  writes_left.assign(words, 0);
  if (split) component_ready.assign(2 * words, 0);
}

const Segment& BufferTimes::segment_of(std::size_t w) const {
  for (const Segment& s : segments)
    if (w < s.end) return s;
  return segments.back();
}

void BufferTimes::split_at(std::size_t words) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < segments.size(); start = segments[i++].end) {
    if (segments[i].end <= words) continue;
    if (start < words && words > 0) {
      Segment below = segments[i];
      below.end = words;
      segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(i), below);
    }
    return;
  }
}

void BufferTimes::expand() {
  if (!compact) return;
  compact = false;
  ready.resize(size);
  since.resize(size);
  left.resize(size);
  generation.resize(size);
  writes_left.assign(size, compact_writes_left);
  if (split) component_ready.resize(2 * size);
  std::size_t w = 0;
  for (const Segment& s : segments)
    for (; w < s.end; ++w) {
      ready[w] = s.ready.at(w);
      since[w] = s.since.at(w);
      left[w] = s.left.at(w);
      generation[w] = s.generation;
      if (split) {
        component_ready[2 * w] = s.ready.target(2 * w);
        component_ready[2 * w + 1] = s.ready.target(2 * w + 1);
      }
    }
  std::vector<Segment>().swap(segments);
}

bool BufferTimes::holds(std::uint32_t g, std::size_t words) const {
  if (compact) {
    std::size_t start = 0;
    for (const Segment& s : segments) {
      if (start >= words) break;
      if (s.generation != g) return false;
      start = s.end;
    }
    return true;
  }
  return std::all_of(generation.begin(), generation.begin() + static_cast<std::ptrdiff_t>(words),
                     [g](std::uint32_t h) { return h == g; });
}

// The latest of a compact buffer's first `words` words by `form` (each run's form grows with w).
template <class Form>
static Cycle latest_of(const std::vector<Segment>& segments, std::size_t words, Form form) {
  Cycle latest = 0;
  std::size_t start = 0;
  for (const Segment& s : segments) {
    if (start >= words) break;
    latest = std::max(latest, form(s).at(std::min(s.end, words) - 1));
    start = s.end;
  }
  return latest;
}

Cycle BufferTimes::latest(std::size_t words) const {
  if (compact) return latest_of(segments, words, [](const Segment& s) -> const TimeForm& { return s.ready; });
  return words == 0 ? 0 : *std::max_element(ready.begin(), ready.begin() + static_cast<std::ptrdiff_t>(words));
}

Cycle BufferTimes::latest_since(std::size_t words) const {
  if (compact) return latest_of(segments, words, [](const Segment& s) -> const TimeForm& { return s.since; });
  return words == 0 ? 0 : *std::max_element(since.begin(), since.begin() + static_cast<std::ptrdiff_t>(words));
}

bool BufferTimes::ready_at_once(std::size_t words, Cycle& at) const {
  std::size_t start = 0;
  for (const Segment& s : segments) {
    if (start >= words) break;
    if (s.ready.kind != TimeForm::Kind::Uniform || (start > 0 && s.ready.start != at)) return false;
    at = s.ready.start;
    start = s.end;
  }
  return true;
}

Cycle BufferTimes::latest_left(std::size_t words) const {
  Cycle latest = 0;
  std::size_t start = 0;
  for (const Segment& s : segments) {
    if (start >= words) break;
    if (s.left.kind != TimeForm::Kind::Never) latest = std::max(latest, s.left.at(std::min(s.end, words) - 1));
    start = s.end;
  }
  return latest;
}

bool BufferTimes::usable_by(std::uint32_t g, Cycle cycle, std::size_t words) const {
  if (compact) return words == 0 || (holds(g, words) && latest(words) <= cycle);
  for (std::size_t w = 0; w < words; ++w)
    if (generation[w] != g || ready[w] > cycle) return false;
  return true;
}

void BufferTimes::place_result(std::uint32_t g, Cycle since_cycle, Cycle ready_cycle) {
  forget_schedule();
  if (compact) {
    set(size, [&](Segment& s) {
      s.generation = g;
      s.since = TimeForm::uniform(since_cycle);
      s.ready = TimeForm::uniform(ready_cycle);
    });
    return;
  }
  std::fill(ready.begin(), ready.end(), ready_cycle);
  std::fill(since.begin(), since.end(), since_cycle);
  std::fill(generation.begin(), generation.end(), g);
  std::fill(component_ready.begin(), component_ready.end(), ready_cycle);
}

void BufferTimes::place(std::uint32_t g, Cycle cycle) {
  forget_schedule();
  if (compact) {
    set(size, [&](Segment& s) {
      s.generation = g;
      s.ready = s.since = TimeForm::uniform(cycle);
    });
    return;
  }
  std::fill(ready.begin(), ready.end(), cycle);
  std::fill(since.begin(), since.end(), cycle);
  std::fill(generation.begin(), generation.end(), g);
  std::fill(component_ready.begin(), component_ready.end(), cycle);
}

}  // namespace torus::event
