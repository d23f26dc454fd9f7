// One link, cycle by cycle, under the SystemC kernel (evaluate and update phases): words arrive
// exactly `latency` cycles after they leave, the link carries w words per cycle, and credits
// stall the sender exactly as the buffer size says. Each simulation runs in its own process
// (run_isolated), so the whole file runs in one test binary invocation.

#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include "models/cycle/isolated_run.hpp"
#include "models/cycle/link_channel.hpp"

using namespace torus;

namespace {

constexpr Cycle period_ticks = 1000;  // 1 ns in SystemC's default 1 ps resolution

// A sender and a receiver process on one link, each running once per cycle; the receiver
// pops each word the cycle it can read it (unless told not to), the sender offers `words`
// words back to back from cycle `first`.
struct Bench : sc_core::sc_module {
  LinkChannel link;
  std::size_t words;
  Cycle first;
  bool pop = true;
  std::vector<Cycle> sent, arrived;

  Bench(const sc_core::sc_module_name& name, Cycle latency, Rational rate, std::uint64_t buffer, std::size_t count, Cycle from)
      : sc_core::sc_module(name), link("link", latency, rate, buffer), words(count), first(from) {
    spawn([this](Cycle c) { receive(c); }, "receiver");
    spawn([this](Cycle c) { send(c); }, "sender");
  }
  void spawn(std::function<void(Cycle)> body, const char* name) {
    sc_core::sc_spawn_options options;
    options.spawn_method();
    sc_core::sc_spawn(
        [body] {
          body(sc_core::sc_time_stamp().value() / period_ticks);
          sc_core::next_trigger(sc_core::sc_time::from_value(period_ticks));
        },
        name, &options);
  }
  void receive(Cycle cycle) {
    while (pop && link.front(cycle)) {
      CHECK(link.front(cycle)->index == arrived.size());  // in order, none lost or duplicated
      CHECK(link.front(cycle)->value == std::complex<double>(static_cast<double>(arrived.size()), -0.5));
      arrived.push_back(cycle);
      link.pop(cycle);
    }
  }
  void send(Cycle cycle) {
    while (cycle >= first && sent.size() < words && link.can_send(cycle)) {
      link.send(cycle, {std::complex<double>(static_cast<double>(sent.size()), -0.5), 0,
                        static_cast<std::uint32_t>(sent.size()), 0});
      sent.push_back(cycle);
    }
  }
};

struct Trace {
  std::vector<Cycle> sent, arrived;
  std::uint64_t peak_occupancy = 0, active_cycles = 0;
};

Trace stream(Cycle latency, Rational rate, std::uint64_t buffer, std::size_t words, Cycle horizon, Cycle first = 0) {
  const nlohmann::json j = run_isolated([=] {
    Bench bench("bench", latency, rate, buffer, words, first);
    sc_core::sc_start(sc_core::sc_time::from_value(horizon * period_ticks));
    return nlohmann::json{{"sent", bench.sent},
                          {"arrived", bench.arrived},
                          {"peak", bench.link.stats().peak_occupancy},
                          {"active", bench.link.stats().active_cycles}};
  });
  return {j["sent"].get<std::vector<Cycle>>(), j["arrived"].get<std::vector<Cycle>>(), j["peak"], j["active"]};
}

}  // namespace

TEST_CASE("a word is readable exactly latency cycles after it leaves, not before", "[model][link]") {
  const Trace t = stream(5, Rational{1, 1}, 64, 1, 40, 10);
  CHECK(t.sent == std::vector<Cycle>{10});
  CHECK(t.arrived == std::vector<Cycle>{15});
}

TEST_CASE("m words at one word per cycle arrive on consecutive cycles after the latency", "[model][link]") {
  const Trace t = stream(3, Rational{1, 1}, 64, 6, 100);
  CHECK(t.sent == std::vector<Cycle>{0, 1, 2, 3, 4, 5});
  CHECK(t.arrived == std::vector<Cycle>{3, 4, 5, 6, 7, 8});
  CHECK(t.active_cycles == 6);
}

TEST_CASE("a 1/8 word-per-cycle link (APE100) sends one word every 8 cycles", "[model][link]") {
  const Trace t = stream(2, Rational{1, 8}, 64, 4, 100);
  CHECK(t.sent == std::vector<Cycle>{0, 8, 16, 24});
  CHECK(t.arrived == std::vector<Cycle>{2, 10, 18, 26});
}

TEST_CASE("fractional rates above one: 3/2 words per cycle", "[model][link]") {
  // Word j leaves at floor(j * 2/3): cycles 0, 0, 1, 2, 2, 3.
  const Trace t = stream(1, Rational{3, 2}, 64, 6, 100);
  CHECK(t.sent == std::vector<Cycle>{0, 0, 1, 2, 2, 3});
  CHECK(t.arrived == std::vector<Cycle>{1, 1, 2, 3, 3, 4});
}

TEST_CASE("with a 1-word buffer the sender waits for the credit round trip", "[model][link][credits]") {
  // Word j leaves at 2 d j: it arrives d later, is popped at once, and its credit takes
  // another d cycles to return.
  const Cycle d = 3;
  const Trace t = stream(d, Rational{1, 1}, 1, 4, 100);
  CHECK(t.sent == std::vector<Cycle>{0, 6, 12, 18});
  CHECK(t.arrived == std::vector<Cycle>{3, 9, 15, 21});
  CHECK(t.peak_occupancy == 1);
}

TEST_CASE("a receiver that does not pop stops the sender after buffer_words words", "[model][link][credits]") {
  const nlohmann::json j = run_isolated([] {
    Bench bench("bench", 1, Rational{1, 1}, 4, 100, 0);
    bench.pop = false;
    sc_core::sc_start(sc_core::sc_time::from_value(20 * period_ticks));
    const bool starved = bench.link.starved_of_credit();
    const bool readable = bench.link.front(19) != nullptr;
    // Popping one word at cycle 20 returns its credit at 21, not 20.
    bench.link.pop(20);
    const bool at_20 = bench.link.can_send(20);
    sc_core::sc_start(sc_core::sc_time::from_value(period_ticks));  // the update phase delivers the credit
    return nlohmann::json{{"sent", bench.sent.size()}, {"starved", starved}, {"readable", readable},
                          {"peak", bench.link.stats().peak_occupancy}, {"at_20", at_20}, {"at_21", bench.link.can_send(21)}};
  });
  CHECK(j["sent"] == 4);
  CHECK(j["starved"] == true);
  CHECK(j["readable"] == true);
  CHECK(j["peak"] == 4);
  CHECK(j["at_20"] == false);
  CHECK(j["at_21"] == true);
}

TEST_CASE("what one end does becomes visible to the other only in the update phase", "[model][link]") {
  // Sent at cycle 0 with latency 1: readable at cycle 1, and never in the delta cycle of the
  // send itself, whichever end SystemC runs first.
  const Trace t = stream(1, Rational{1, 1}, 64, 3, 20);
  CHECK(t.arrived == std::vector<Cycle>{1, 2, 3});
}

TEST_CASE("sending without a free link or credit is a logic error, not a silent loss", "[model][link]") {
  // In its own process too: a send registers the channel for the kernel's update phase.
  const nlohmann::json j = run_isolated([] {
    LinkChannel link("link", 1, Rational{1, 2}, 8);
    link.send(0, {});
    nlohmann::json out{{"free_at_1", link.can_send(1)}};  // still serialising the first word
    try {
      link.send(1, {});
      out["send_refused"] = false;
    } catch (const std::logic_error&) {
      out["send_refused"] = true;
    }
    try {
      link.pop(0);
      out["pop_refused"] = false;
    } catch (const std::logic_error&) {
      out["pop_refused"] = true;
    }
    return out;
  });
  CHECK(j["free_at_1"] == false);
  CHECK(j["send_refused"] == true);
  CHECK(j["pop_refused"] == true);
}
