// The wake calendar under the SystemC kernel: a sleeper armed for cycle c runs at c, not c - 1
// or c + 1; sleepers due at one cycle run in index order whatever order they were armed in;
// notifications follow SystemC's rule for one timed event (one pending, the earlier wins, lost
// when nobody listens); and each woken sleeper has its state asked for before it runs. Each
// simulation runs in its own process (run_isolated).

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "models/cycle/isolated_run.hpp"
#include "models/cycle/wake_calendar.hpp"

using namespace torus;

namespace {

constexpr Cycle ticks_per_cycle = 1000;

struct Log {
  std::vector<std::pair<Cycle, std::uint32_t>> runs;  // (cycle, sleeper) in the order they ran
  std::vector<std::vector<std::string>> hints;        // per sleeper, the hints asked, in order
};

// A process that waits on its event only, and on each activation logs itself and lets `script`
// arm it (or not) through the calendar.
struct Sleeper : sc_core::sc_module, Wakeable {
  using Script = std::function<void(WakeCalendar&, std::uint32_t, Cycle)>;
  Sleeper(const sc_core::sc_module_name& name, WakeCalendar& calendar, std::uint32_t index, Log& log, Script script)
      : sc_core::sc_module(name), calendar_(calendar), index_(index), log_(log), script_(std::move(script)) {
    sc_core::sc_spawn_options options;
    options.spawn_method();
    sc_core::sc_spawn([this] { run(); }, "run", &options);
  }
  sc_core::sc_event& wake_event() override { return wake_; }
  void prefetch_links() const override { log_.hints[index_].push_back("links"); }
  void prefetch_words() const override { log_.hints[index_].push_back("words"); }

 private:
  void run() {
    calendar_.running(index_);
    const Cycle cycle = sc_core::sc_time_stamp().value() / ticks_per_cycle;
    log_.runs.emplace_back(cycle, index_);
    script_(calendar_, index_, cycle);
    next_trigger(wake_);
  }
  WakeCalendar& calendar_;
  std::uint32_t index_;
  Log& log_;
  Script script_;
  sc_core::sc_event wake_;
};

// Runs `count` sleepers for `horizon` cycles; the runs after cycle 0 (where every process runs
// once, at its start) and the hints asked.
nlohmann::json simulate(std::size_t count, Cycle horizon, const Sleeper::Script& script) {
  return run_isolated([=] {
    WakeCalendar calendar("calendar", ticks_per_cycle);
    Log log;
    log.hints.resize(count);
    std::vector<std::unique_ptr<Sleeper>> sleepers;
    std::vector<Wakeable*> targets;
    for (std::uint32_t i = 0; i < count; ++i) {
      sleepers.push_back(std::make_unique<Sleeper>(("sleeper_" + std::to_string(i)).c_str(), calendar, i, log, script));
      targets.push_back(sleepers.back().get());
    }
    calendar.attach(targets, sizeof(Sleeper));
    sc_core::sc_start(sc_core::sc_time::from_value(horizon * ticks_per_cycle));
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& [cycle, who] : log.runs)
      if (cycle > 0) runs.push_back({cycle, who});
    return nlohmann::json{{"runs", runs}, {"hints", log.hints}};
  });
}

using Runs = std::vector<std::pair<Cycle, std::uint32_t>>;
Runs runs_of(const nlohmann::json& j) { return j["runs"].get<Runs>(); }

// What a sleeper does when it runs at `cycle`, drawn from a generator seeded by the sleeper and
// the cycle alone (so the order sleepers run in within a cycle cannot change it): its next
// timeout (or none), whether it listens, and notifications for other sleepers' events.
struct Decision {
  Cycle timeout = never;
  bool listening = false;
  std::vector<std::pair<std::uint32_t, Cycle>> notify;  // (sleeper, cycle)
};
Decision decide(std::uint32_t sleeper, Cycle cycle, std::uint32_t count) {
  std::mt19937 random(static_cast<std::uint32_t>(sleeper * 1000003u + cycle));
  Decision d;
  if (random() % 10 < 8) d.timeout = cycle + 1 + random() % 8;
  d.listening = d.timeout == never || random() % 2 == 0;
  if (random() % 250 == 0) {  // now and then neither: the sleeper stops for good
    d.timeout = never;
    d.listening = false;
  }
  for (std::uint32_t n = random() % 4; n-- > 0;) {
    const std::uint32_t who = random() % count;  // drawn one statement at a time: the same under any compiler
    d.notify.emplace_back(who, cycle + 1 + random() % 10);
  }
  return d;
}

// The same decisions carried out by SystemC itself: next_trigger(timeout, event) and a timed
// notify of the other sleeper's event.
struct NativeSleeper : sc_core::sc_module {
  NativeSleeper(const sc_core::sc_module_name& name, std::uint32_t index, std::vector<std::unique_ptr<NativeSleeper>>& all, Runs& runs)
      : sc_core::sc_module(name), index_(index), all_(all), runs_(runs) {
    sc_core::sc_spawn_options options;
    options.spawn_method();
    sc_core::sc_spawn([this] { run(); }, "run", &options);
  }
  sc_core::sc_event wake;

 private:
  static sc_core::sc_time after(Cycle cycles) { return sc_core::sc_time::from_value(cycles * ticks_per_cycle); }
  void run() {
    const Cycle cycle = sc_core::sc_time_stamp().value() / ticks_per_cycle;
    runs_.emplace_back(cycle, index_);
    const Decision d = decide(index_, cycle, static_cast<std::uint32_t>(all_.size()));
    for (const auto& [who, at] : d.notify) all_[who]->wake.notify(after(at - cycle));
    if (d.timeout != never && d.listening) next_trigger(after(d.timeout - cycle), wake);
    else if (d.timeout != never) next_trigger(after(d.timeout - cycle));
    else if (d.listening) next_trigger(wake);
    // else: no trigger at all, as a calendar arming of neither
  }
  std::uint32_t index_;
  std::vector<std::unique_ptr<NativeSleeper>>& all_;
  Runs& runs_;
};

nlohmann::json simulate_native(std::uint32_t count, Cycle horizon) {
  return run_isolated([=] {
    Runs runs;
    std::vector<std::unique_ptr<NativeSleeper>> all;
    for (std::uint32_t i = 0; i < count; ++i) all.push_back(std::make_unique<NativeSleeper>(("native_" + std::to_string(i)).c_str(), i, all, runs));
    sc_core::sc_start(sc_core::sc_time::from_value(horizon * ticks_per_cycle));
    std::erase_if(runs, [](const auto& run) { return run.first == 0; });
    return nlohmann::json{{"runs", runs}};
  });
}

}  // namespace

TEST_CASE("a sleeper armed for cycle c runs at c, not before or after", "[model][calendar]") {
  const nlohmann::json j = simulate(1, 40, [](WakeCalendar& calendar, std::uint32_t i, Cycle cycle) {
    if (cycle == 0) calendar.arm(i, 7, false);
    if (cycle == 7) calendar.arm(i, 8, false);   // the next cycle, as a stepping node asks
    if (cycle == 8) calendar.arm(i, 30, true);
  });
  CHECK(runs_of(j) == Runs{{7, 0}, {8, 0}, {30, 0}});
}

TEST_CASE("sleepers due at one cycle run in index order, whatever order they were armed in", "[model][calendar]") {
  // Armed at cycle 0 in index order (the order the processes start), and at cycle 5 in reverse:
  // sleeper i arms sleeper 5 - i, so sleeper 5 is armed first and sleeper 0 last.
  const nlohmann::json j = simulate(6, 20, [](WakeCalendar& calendar, std::uint32_t i, Cycle cycle) {
    if (cycle == 0) calendar.arm(i, 5, false);
    if (cycle == 5) calendar.arm(5 - i, 9, false);
  });
  CHECK(runs_of(j) == Runs{{5, 0}, {5, 1}, {5, 2}, {5, 3}, {5, 4}, {5, 5}, {9, 0}, {9, 1}, {9, 2}, {9, 3}, {9, 4}, {9, 5}});
}

TEST_CASE("notifications: the earlier pending one wins, and one due while nobody listens is lost", "[model][calendar]") {
  const nlohmann::json j = simulate(1, 60, [](WakeCalendar& calendar, std::uint32_t i, Cycle cycle) {
    switch (cycle) {
      case 0:
        calendar.arm(i, never, true);
        calendar.notify(i, 10);
        calendar.notify(i, 7);  // replaces 10
        break;
      case 7:
        calendar.arm(i, never, true);
        calendar.notify(i, 12);
        calendar.notify(i, 15);  // ignored: 12 is pending
        break;
      case 12:
        calendar.arm(i, 20, false);  // stepping: not listening
        calendar.notify(i, 18);      // comes due at 18 unheard
        break;
      case 20:
        calendar.arm(i, 40, true);  // a timeout, and listening
        calendar.notify(i, 25);     // wakes it first: the timeout at 40 is dropped
        break;
      case 25: calendar.arm(i, never, true); break;
      default: break;
    }
  });
  CHECK(runs_of(j) == Runs{{7, 0}, {12, 0}, {20, 0}, {25, 0}});
}

TEST_CASE("a timeout and a notification due at one cycle wake a sleeper once", "[model][calendar]") {
  const nlohmann::json j = simulate(1, 30, [](WakeCalendar& calendar, std::uint32_t i, Cycle cycle) {
    if (cycle != 0) return;
    calendar.arm(i, 6, true);
    calendar.notify(i, 6);
  });
  CHECK(runs_of(j) == Runs{{6, 0}});
}

TEST_CASE("sleepers woken by notifications also run in index order", "[model][calendar]") {
  // At cycle 0 sleeper i listens, and sleeper 0 notifies all of them for 4, the last first.
  const nlohmann::json j = simulate(4, 10, [](WakeCalendar& calendar, std::uint32_t i, Cycle cycle) {
    if (cycle != 0) return;
    calendar.arm(i, never, true);
    if (i == 0)
      for (std::uint32_t k = 4; k-- > 0;) calendar.notify(k, 4);
  });
  CHECK(runs_of(j) == Runs{{4, 0}, {4, 1}, {4, 2}, {4, 3}});
}

TEST_CASE("the calendar wakes sleepers at exactly the cycles SystemC's own events would", "[model][calendar]") {
  // Random timeouts, listening and notifications of one another, carried out once through the
  // calendar and once by SystemC (next_trigger and timed notify): the same activations, cycle by
  // cycle (within a cycle SystemC's order is its own, so each cycle's sleepers are compared as a
  // set), and in node order within a cycle through the calendar.
  constexpr std::uint32_t count = 8;
  constexpr Cycle horizon = 1000;
  const nlohmann::json calendar = simulate(count, horizon, [](WakeCalendar& c, std::uint32_t i, Cycle cycle) {
    const Decision d = decide(i, cycle, count);
    for (const auto& [who, at] : d.notify) c.notify(who, at);
    if (d.timeout != never || d.listening) c.arm(i, d.timeout, d.listening);  // neither: no arming at all
  });
  const Runs through_calendar = runs_of(calendar);
  Runs native = runs_of(simulate_native(count, horizon));
  REQUIRE(through_calendar.size() > 300);  // the script keeps the sleepers busy, most of the way
  CHECK(through_calendar.back().first > horizon / 2);
  CHECK(std::is_sorted(through_calendar.begin(), through_calendar.end()));
  std::sort(native.begin(), native.end());
  CHECK(through_calendar == native);
}

TEST_CASE("asking to be woken before the current cycle is a logic error naming the node", "[model][calendar]") {
  try {
    simulate(3, 10, [](WakeCalendar& calendar, std::uint32_t i, Cycle cycle) {
      if (cycle == 0 && i == 2) calendar.arm(i, 5, false);
      if (cycle == 5) calendar.notify(1, 4);
    });
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("node 1 asked to be woken at cycle 4, before the current cycle 5"));
  }
}

TEST_CASE("each woken sleeper has its state asked for, deeper the nearer its turn", "[model][calendar]") {
  const nlohmann::json j = simulate(5, 10, [](WakeCalendar& calendar, std::uint32_t i, Cycle cycle) {
    if (cycle == 0) calendar.arm(i, 3, false);
  });
  CHECK(runs_of(j).size() == 5);
  // Sleeper k's records are asked for when sleeper k - 2 starts, its words when k - 1 starts.
  const auto hints = j["hints"].get<std::vector<std::vector<std::string>>>();
  CHECK(hints[0].empty());
  CHECK(hints[1] == std::vector<std::string>{"words"});
  for (std::size_t k = 2; k < 5; ++k) CHECK(hints[k] == std::vector<std::string>{"links", "words"});
}
