// The window of per-task counts (models/cycle/task_window.hpp): counts read back exactly, tasks
// retire only from the front and only when finished, freed slots read 0 for the tasks that
// move into them, the ring grows to the next power of two that holds the span, and a count
// for a retired task is refused.

#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <vector>

#include "models/cycle/task_window.hpp"

using namespace torus;

namespace {
const auto none_finished = [](std::uint32_t) { return false; };
}

TEST_CASE("an empty task window counts nothing and allocates nothing", "[model][memory]") {
  const TaskWindow w;
  CHECK(w.oldest() == 0);
  CHECK_FALSE(w.retired(0));
  CHECK(w.count(0) == 0);
  CHECK(w.count(1000) == 0);
  CHECK(w.capacity() == 0);
  CHECK(w.bytes() == 0);
}

TEST_CASE("a task window keeps exact counts and retires finished tasks from the front only", "[model][memory]") {
  TaskWindow w;
  w.add(3, 2, none_finished);
  CHECK(w.capacity() == 8);
  CHECK(w.bytes() == 8 * sizeof(std::uint32_t));
  CHECK(w.oldest() == 0);  // tasks 0 to 2 were not finished: kept
  CHECK(w.count(3) == 2);
  for (const std::uint32_t t : {0u, 1u, 2u, 4u, 7u, 8u, 100u}) CHECK(w.count(t) == 0);
  w.add(7, 5, none_finished);  // within the 8 slots from task 0: nothing asked, nothing retired
  CHECK(w.count(7) == 5);
  CHECK(w.oldest() == 0);

  // Task 9 is past the slots: the finished tasks at the front retire (0 to 2; 3 is not finished,
  // so 4 to 8 stay although "finished" would say so), which makes room without growing.
  std::vector<std::uint32_t> asked;
  const auto up_to_2 = [&asked](std::uint32_t t) {
    asked.push_back(t);
    return t != 3;
  };
  w.add(9, 1, up_to_2);
  CHECK(asked == std::vector<std::uint32_t>{0, 1, 2, 3});
  CHECK(w.oldest() == 3);
  CHECK(w.retired(2));
  CHECK_FALSE(w.retired(3));
  CHECK(w.capacity() == 8);
  CHECK(w.count(3) == 2);
  CHECK(w.count(7) == 5);
  CHECK(w.count(9) == 1);
  CHECK(w.count(10) == 0);  // slot 10 & 7 = 2 held task 2's zero, never a stale count
  w.add(9, 3, none_finished);
  CHECK(w.count(9) == 4);
}

TEST_CASE("a task window's freed slots read 0 for the tasks that move into them", "[model][memory]") {
  TaskWindow w;
  for (std::uint32_t t = 0; t < 8; ++t) w.add(t, t + 1, none_finished);
  // Everything before task 12 finished: tasks 8 to 11 reuse the slots of 0 to 3, 12 that of 4.
  w.add(12, 1, [](std::uint32_t t) { return t < 12; });
  CHECK(w.oldest() == 12);  // tasks 8 to 11 were never counted: finished, retired with the rest
  CHECK(w.capacity() == 8);
  CHECK(w.count(12) == 1);
  for (std::uint32_t t = 13; t < 20; ++t) CHECK(w.count(t) == 0);
}

TEST_CASE("a task window grows to the power of two that holds its span and keeps every count", "[model][memory]") {
  TaskWindow w;
  w.add(1, 4, none_finished);
  w.add(6, 9, none_finished);
  // Tasks 1 to 22 (task 0 finished): a span of 22 needs 32 slots.
  w.add(22, 7, [](std::uint32_t t) { return t == 0; });
  CHECK(w.oldest() == 1);
  CHECK(w.capacity() == 32);
  CHECK(w.count(1) == 4);
  CHECK(w.count(6) == 9);
  CHECK(w.count(22) == 7);
  for (std::uint32_t t = 2; t < 40; ++t)
    if (t != 6 && t != 22) CHECK(w.count(t) == 0);
  // After a wrap of the old ring: counts moved to their new slots, not their old ones.
  TaskWindow v;
  for (std::uint32_t t = 0; t < 8; ++t) v.add(t, 10 + t, none_finished);
  v.add(10, 1, [](std::uint32_t t) { return t < 5; });  // oldest 5: slots hold 5..12, 10 wraps to slot 2
  CHECK(v.oldest() == 5);
  CHECK(v.capacity() == 8);
  v.add(20, 2, none_finished);  // span 5..20 needs 16 slots
  CHECK(v.capacity() == 16);
  for (std::uint32_t t = 5; t < 8; ++t) CHECK(v.count(t) == 10 + t);
  CHECK(v.count(8) == 0);
  CHECK(v.count(9) == 0);
  CHECK(v.count(10) == 1);
  CHECK(v.count(20) == 2);
}

TEST_CASE("a task window refuses a count for a retired task", "[model][memory]") {
  TaskWindow w;
  w.add(2, 1, none_finished);
  w.add(10, 1, [](std::uint32_t t) { return t < 4; });
  REQUIRE(w.oldest() == 4);
  CHECK_THROWS_AS(w.add(3, 1, none_finished), std::logic_error);
  CHECK(w.count(10) == 1);
}
