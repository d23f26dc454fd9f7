// The run-length queue of a link's words gives back exactly the words it was given, in order,
// values included, however they split into runs; evenly spaced words of one message share an
// entry, and the count of arrived words follows the arrivals exactly.

#include <catch2/catch.hpp>

#include <deque>
#include <random>
#include <vector>

#include "models/cycle/link_queue.hpp"

using namespace torus;

namespace {

struct Held {
  LinkWord word;
  Cycle arrival;
};

LinkWord word_of(std::uint32_t message, std::uint32_t index, std::uint16_t hop, std::size_t parts) {
  const double re = index + 0.25 * message, im = parts == 2 ? -1.0 - index : 0.0;
  return {{parts == 0 ? 0.0 : re, im}, message, index, hop};
}

void check_front(const LinkQueue& queue, const Held& expected) {
  const LinkWord front = queue.front_word();
  REQUIRE(front.message == expected.word.message);
  REQUIRE(front.index == expected.word.index);
  REQUIRE(front.hop == expected.word.hop);
  REQUIRE(front.value == expected.word.value);
  REQUIRE(queue.front_arrival() == expected.arrival);
}

// Pops through front_run, a piece at a time, checking every word of each piece.
void pop_pieces(LinkQueue& queue, std::deque<Held>& model, std::size_t most) {
  std::size_t count = 0;
  const CommittedRun run = queue.front_run(count);
  REQUIRE(count >= 1);
  const std::size_t n = std::min(count, most);
  for (std::size_t k = 0; k < n; ++k) {
    REQUIRE(run.message == model[k].word.message);
    REQUIRE(run.hop == model[k].word.hop);
    REQUIRE(run.index(k) == model[k].word.index);
    REQUIRE(run.arrival(k) == model[k].arrival);
    REQUIRE(run.value(k) == model[k].word.value);
  }
  queue.pop_front(n);
  model.erase(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(n));
}

// Both queues hold the same words in the same runs; pops up to `pops` words from each, front
// against front.
void pop_alike(LinkQueue& queue, LinkQueue& one_by_one, std::size_t pops) {
  REQUIRE(queue.size() == one_by_one.size());
  REQUIRE(queue.runs() == one_by_one.runs());
  REQUIRE(queue.bytes() == one_by_one.bytes());
  for (; pops > 0 && !queue.empty(); --pops) {
    REQUIRE(queue.front_arrival() == one_by_one.front_arrival());
    const LinkWord a = queue.front_word(), b = one_by_one.front_word();
    REQUIRE((a.value == b.value && a.message == b.message && a.index == b.index && a.hop == b.hop));
    queue.pop_front();
    one_by_one.pop_front();
  }
}

}  // namespace

TEST_CASE("link queue gives back every word in order, across runs and wrap-around", "[model][link][memory]") {
  std::mt19937_64 rng(12);
  for (std::size_t parts = 0; parts <= 2; ++parts) {
    for (int trial = 0; trial < 60; ++trial) {
      LinkQueue queue(parts);
      std::deque<Held> model;
      std::uint32_t message = 0, index = 0;
      std::uint16_t hop = 0;
      Cycle arrival = 10 + rng() % 100;
      Cycle now = 0;          // the receiver's cycle, never decreasing
      std::size_t arrived = 0;  // the model's count of leading words arrived by `now`
      for (int step = 0; step < 400; ++step) {
        // Continuing words (one a cycle, or a fractional bandwidth's uneven gaps), a new message
        // or hop, strided and backward indices, long gaps past a run's 16-bit spacing.
        const int kind = static_cast<int>(rng() % 10);
        if (kind == 0) message = static_cast<std::uint32_t>(rng() % 4), index = static_cast<std::uint32_t>(rng() % 50);
        if (kind == 1) hop = static_cast<std::uint16_t>(rng() % 3);
        index = kind == 2 ? index + 7 : kind == 3 ? index - std::min<std::uint32_t>(index, 3) : index + 1;
        arrival += kind == 4 ? 2 + rng() % 2 : kind == 5 ? 70000 : kind == 6 ? 0 : 1;
        const LinkWord word = word_of(message, index, hop, parts);
        queue.push_back(word, arrival);
        model.push_back({word, arrival});
        const int op = static_cast<int>(rng() % 8);
        if (op == 0 && !model.empty()) {  // a receiver popping one arrived word
          now = std::max(now, model.front().arrival);
          while (arrived < model.size() && model[arrived].arrival <= now) ++arrived;
          REQUIRE(queue.count_arrived(now, model.size()) == arrived);
          check_front(queue, model.front());
          queue.pop_front();
          model.pop_front();
          --arrived;
        } else if (op == 1 && !model.empty() && arrived == 0) {  // a taker taking a piece ahead
          pop_pieces(queue, model, 1 + rng() % 70);
        } else if (op == 2 && !model.empty()) {  // the receiver looking, limited to the visible words
          now += rng() % 5;
          const std::size_t limit = model.size() - rng() % model.size();
          std::size_t expected = arrived;
          while (expected < limit && model[expected].arrival <= now) ++expected;
          arrived = std::max(arrived, expected);
          REQUIRE(queue.count_arrived(now, limit) == arrived);
        }
        REQUIRE(queue.size() == model.size());
        REQUIRE(queue.arrived() == arrived);
        const std::size_t i = model.empty() ? 0 : rng() % model.size();
        if (!model.empty()) REQUIRE(queue.arrival_at(i) == model[i].arrival);
      }
      while (!model.empty()) {
        if (arrived > 0) {
          check_front(queue, model.front());
          queue.pop_front();
          model.pop_front();
          --arrived;
        } else {
          pop_pieces(queue, model, 1 + rng() % 70);
        }
      }
      CHECK(queue.empty());
      CHECK(queue.arrived() == 0);
    }
  }
}

TEST_CASE("link queue: evenly spaced words of a message share one run", "[model][link][memory]") {
  SECTION("a 64-word message at one word a cycle: one run, the values apart") {
    LinkQueue queue(1);
    for (std::uint32_t i = 0; i < 64; ++i) queue.push_back(word_of(5, i, 0, 1), 100 + i);
    CHECK(queue.runs() == 1);
    CHECK(queue.bytes() == 2 * 20 + 64 * sizeof(double));  // the ring's smallest capacity is 2 runs
    std::size_t count = 0;
    const CommittedRun run = queue.front_run(count);
    CHECK(count == 64);
    CHECK(run.arrival(63) == 163);
    CHECK(run.index(63) == 63);
    CHECK(run.value(63) == std::complex<double>(63 + 1.25));
  }
  SECTION("values off: the runs alone") {
    LinkQueue queue(0);
    for (std::uint32_t i = 0; i < 64; ++i) queue.push_back(word_of(5, i, 0, 0), 100 + 2 * i);
    CHECK(queue.runs() == 1);
    CHECK(queue.bytes() == 2 * 20);
  }
  SECTION("two thirds of a word a cycle: gaps 1, 2, 1, 2... split into runs of two, exactly") {
    LinkQueue queue(2);
    Cycle at = 50;
    for (std::uint32_t i = 0; i < 12; ++i) {
      queue.push_back(word_of(1, i, 2, 2), at);
      at += i % 2 == 0 ? 1 : 2;
    }
    CHECK(queue.runs() == 6);
    at = 50;
    for (std::uint32_t i = 0; i < 12; ++i) {
      REQUIRE(queue.front_arrival() == at);
      REQUIRE(queue.front_word().index == i);
      REQUIRE(queue.front_word().value == std::complex<double>(i + 0.25, -1.0 - i));
      queue.pop_front();
      at += i % 2 == 0 ? 1 : 2;
    }
  }
  SECTION("a second word opens a run of its own spacing; another message or hop a new run") {
    LinkQueue queue(0);
    queue.push_back(word_of(1, 0, 0, 0), 10);
    queue.push_back(word_of(1, 3, 0, 0), 14);  // index step 3, spacing 4
    queue.push_back(word_of(1, 6, 0, 0), 18);
    CHECK(queue.runs() == 1);
    queue.push_back(word_of(1, 9, 1, 0), 22);  // next hop
    queue.push_back(word_of(2, 12, 1, 0), 26);  // next message
    CHECK(queue.runs() == 3);
    CHECK(queue.arrival_at(2) == 18);
    CHECK(queue.arrival_at(4) == 26);
  }
}

// push_run (each word's leave given) and push_spaced (evenly spaced leaves) against the words
// pushed one by one.
TEST_CASE("link queue: a run pushed at once is held as its words pushed one by one", "[model][link][memory]") {
  std::mt19937_64 rng(14);
  for (const bool spaced : {false, true}) {
    for (std::size_t parts = 0; parts <= 2; ++parts) {
      for (int trial = 0; trial < 40; ++trial) {
        LinkQueue queue(parts), one_by_one(parts);
        std::uint32_t message = 0;
        Cycle leave = rng() % 100;
        for (int step = 0; step < 50; ++step) {
          if (rng() % 3 == 0) message = static_cast<std::uint32_t>(rng() % 3);
          const auto hop = static_cast<std::uint16_t>(rng() % 2);
          const auto first_index = static_cast<std::uint32_t>(rng() % 40);
          // Spaced: spacings past 16 bits split every word into a run of its own, and one run of
          // more than 65535 words fills a run and opens the next.
          const bool long_run = spaced && step == 7 && trial == 0;
          const Cycle spacing = long_run ? 1 : rng() % 8 == 0 ? 0x10000 + rng() % 3 : 1 + rng() % 3;
          const std::size_t count = long_run ? 70000 : rng() % 5 == 0 ? 1 : rng() % 90;
          if (spaced) leave += rng() % 4 == 0 ? rng() % 3 : spacing;  // continuing the last run, or not
          std::vector<std::complex<double>> values(count);
          std::vector<Cycle> leaves(count);
          for (std::size_t k = 0; k < count; ++k) {
            leave += spaced ? (k > 0 ? spacing : 0) : rng() % 4 == 0 ? rng() % 3 : 1;  // else mostly one a cycle
            leaves[k] = leave;
            values[k] = word_of(message, first_index + static_cast<std::uint32_t>(k), hop, parts).value;
            one_by_one.push_back({values[k], message, first_index + static_cast<std::uint32_t>(k), hop}, leave + 7);
          }
          if (spaced && count > 0) queue.push_spaced(message, hop, first_index, values.data(), leaves[0] + 7, spacing, count);
          else queue.push_run(message, hop, first_index, values.data(), leaves.data(), 7, count);
          pop_alike(queue, one_by_one, rng() % 80);
        }
        pop_alike(queue, one_by_one, queue.size());
      }
    }
  }
}
