// One link, cycle by cycle: words arrive exactly `latency` cycles after they leave, the link
// carries w words per cycle, and credits stall the sender exactly as the buffer size says.

#include <catch2/catch.hpp>

#include <vector>

#include "models/link_channel.hpp"

using namespace torus;

namespace {

// Offers words back to back from cycle 0, pops each the cycle it arrives, and returns the
// cycle each word arrived (became readable).
struct Trace {
  std::vector<Cycle> sent;
  std::vector<Cycle> arrived;
};

Trace stream(LinkChannel& link, std::size_t words, Cycle horizon) {
  Trace t;
  for (Cycle cycle = 0; cycle < horizon && t.arrived.size() < words; ++cycle) {
    while (const LinkWord* w = link.front(cycle)) {
      CHECK(w->index == t.arrived.size());  // in order, none lost or duplicated
      t.arrived.push_back(cycle);
      link.pop(cycle);
    }
    while (t.sent.size() < words && link.can_send(cycle)) {
      link.send(cycle, {std::complex<double>(static_cast<double>(t.sent.size()), 0.0), {}, 0,
                        static_cast<std::uint32_t>(t.sent.size())});
      t.sent.push_back(cycle);
    }
  }
  return t;
}

}  // namespace

TEST_CASE("a word is readable exactly latency cycles after it leaves, not before", "[model][link]") {
  LinkChannel link("link", 5, Rational{1, 1}, 64);
  link.send(10, {{3.0, 0.0}, {}, 0, 0});
  for (Cycle c = 10; c < 15; ++c) CHECK(link.front(c) == nullptr);
  REQUIRE(link.front(15) != nullptr);
  CHECK(link.front(15)->value == std::complex<double>(3.0, 0.0));
}

TEST_CASE("m words at one word per cycle arrive on consecutive cycles after the latency", "[model][link]") {
  LinkChannel link("link", 3, Rational{1, 1}, 64);
  const Trace t = stream(link, 6, 100);
  CHECK(t.sent == std::vector<Cycle>{0, 1, 2, 3, 4, 5});
  CHECK(t.arrived == std::vector<Cycle>{3, 4, 5, 6, 7, 8});
  CHECK(link.stats().words_sent == 6);
  CHECK(link.stats().active_cycles == 6);
}

TEST_CASE("a 1/8 word-per-cycle link (APE100) sends one word every 8 cycles", "[model][link]") {
  LinkChannel link("link", 2, Rational{1, 8}, 64);
  const Trace t = stream(link, 4, 100);
  CHECK(t.sent == std::vector<Cycle>{0, 8, 16, 24});
  CHECK(t.arrived == std::vector<Cycle>{2, 10, 18, 26});
}

TEST_CASE("fractional rates above one: 3/2 words per cycle", "[model][link]") {
  // Word j leaves at floor(j * 2/3): cycles 0, 0, 1, 2, 2, 3.
  LinkChannel link("link", 1, Rational{3, 2}, 64);
  const Trace t = stream(link, 6, 100);
  CHECK(t.sent == std::vector<Cycle>{0, 0, 1, 2, 2, 3});
  CHECK(t.arrived == std::vector<Cycle>{1, 1, 2, 3, 3, 4});
}

TEST_CASE("with a 1-word buffer the sender waits for the credit round trip", "[model][link][credits]") {
  // Word j leaves at 2 d j: it arrives d later, is popped at once, and its credit takes
  // another d cycles to return.
  const Cycle d = 3;
  LinkChannel link("link", d, Rational{1, 1}, 1);
  const Trace t = stream(link, 4, 100);
  CHECK(t.sent == std::vector<Cycle>{0, 6, 12, 18});
  CHECK(t.arrived == std::vector<Cycle>{3, 9, 15, 21});
  CHECK(link.stats().peak_occupancy == 1);
}

TEST_CASE("a receiver that does not pop stops the sender after buffer_words words", "[model][link][credits]") {
  LinkChannel link("link", 1, Rational{1, 1}, 4);
  std::size_t sent = 0;
  for (Cycle cycle = 0; cycle < 20; ++cycle)
    while (link.can_send(cycle)) {
      link.send(cycle, {{}, {}, 0, static_cast<std::uint32_t>(sent)});
      ++sent;
    }
  CHECK(sent == 4);
  CHECK(link.starved_of_credit());
  REQUIRE(link.front(19) != nullptr);
  CHECK(link.stats().peak_occupancy == 4);
  // Popping one word returns one credit `latency` cycles later.
  link.pop(20);
  CHECK_FALSE(link.can_send(20));
  CHECK(link.can_send(21));
}

TEST_CASE("sending without a free link or credit is a logic error, not a silent loss", "[model][link]") {
  LinkChannel link("link", 1, Rational{1, 2}, 8);
  link.send(0, {});
  CHECK_FALSE(link.can_send(1));  // still serialising the first word
  CHECK_THROWS_AS(link.send(1, {}), std::logic_error);
  CHECK_THROWS_AS(link.pop(0), std::logic_error);
}
