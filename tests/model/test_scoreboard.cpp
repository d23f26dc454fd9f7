// The cycle engine's scoreboard (NodeMemory): which buffers keep which per-word fields (from
// the node's task list), its byte count, the exact cycles at which a word may leave or be
// replaced, and the refusal of a task list with more buffer contents than 16-bit generations.

#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "models/cycle/node_memory.hpp"
#include "models/cycle/node_plan.hpp"

using namespace torus;

namespace {

Task task_on(TaskKind kind, std::uint32_t buffer) {
  Task t = make_task(kind, TaskLabel{});
  t.buffer = buffer;
  return t;
}

// Buffer 0 (8 words) is received into and sent on (a rolling block), 1 (4) is loaded and
// accumulated into, 2 (2) loaded and sent, 3 (3) only loaded.
NodeProgram four_buffers() {
  NodeProgram node;
  node.buffers = {{8, 0}, {4, 0}, {2, 0}, {3, 0}};
  node.add(task_on(TaskKind::Receive, 0));
  for (std::uint32_t b = 1; b < 4; ++b) node.add(task_on(TaskKind::Load, b), TaskDetail{});
  TaskDetail compute;
  compute.operand = 0;
  compute.coefficient = 3;
  node.add(task_on(TaskKind::Compute, 1), compute);
  node.add(task_on(TaskKind::Send, 0));
  node.add(task_on(TaskKind::Send, 2));
  return node;
}

}  // namespace

TEST_CASE("the scoreboard keeps left_at only where words land and leave, writes_left once for the largest accumulator",
          "[model][memory]") {
  CHECK(sizeof(WordState) == 8);
  const NodeProgram node = four_buffers();
  const NodePlan plan = plan_node(node, {});
  NodeMemory m;
  m.allocate(node, plan, 1);
  const std::array<std::size_t, 4> words{8, 4, 2, 3}, left_at{8, 0, 0, 0};
  for (std::uint32_t b = 0; b < 4; ++b) {
    INFO(b);
    CHECK(m.buffer(b).words.size() == words[b]);
    CHECK((m.buffer(b).left_at != nullptr) == (left_at[b] > 0));
    CHECK(m.component_ready(b).empty());
  }
  // 17 words of 8 bytes, 8 offsets of left_at, 4 counts of writes_left (buffer 1), the four records.
  CHECK(m.bytes() == 4 * sizeof(BufferState) + 17 * 8 + 8 * 2 + 4 * 2);

  NodeMemory split;
  split.allocate(node, plan, 2);
  CHECK(split.component_ready(3).size() == 6);
  CHECK(split.component_ready(3).data() == split.component_ready(0).data() + (8 + 4 + 2) * 2);
  CHECK(split.bytes() == m.bytes() + 17 * 2 * 4);
}

TEST_CASE("a word landing waits for the send that owes the old one, until the cycle after it leaves", "[model][memory]") {
  const NodeProgram node = four_buffers();
  NodeMemory m;
  m.allocate(node, plan_node(node, {}), 1);
  // Two sends of generation 1 of buffer 0's first 4 words, posted before they arrive.
  m.owe(0, 1, 4);
  m.owe(0, 1, 4);
  REQUIRE(m.buffer(0).pending_sends.size() == 1);
  m.store(0, 2, 1, 5);  // owed to both at once
  m.store(0, 6, 1, 5);  // beyond the sends' words: owed to nobody
  CHECK(m.buffer(0).words[2].owed == 2);
  CHECK(m.buffer(0).owed_words == 1);
  CHECK(NodeMemory::present(m.buffer(0).words[2], 1, 5));
  CHECK_FALSE(NodeMemory::present(m.buffer(0).words[2], 1, 4));
  CHECK_FALSE(NodeMemory::present(m.buffer(0).words[2], 2, 5));
  CHECK(m.word_replaceable(0, 6, 6));
  m.settle(0, 2, 9);
  CHECK_FALSE(m.word_replaceable(0, 2, 100));  // the other send still owes it
  m.settle(0, 2, 7);  // that one took it earlier (scheduled ahead): the later leave counts
  CHECK(m.buffer(0).owed_words == 0);
  CHECK_FALSE(m.word_replaceable(0, 2, 9));
  CHECK(m.word_replaceable(0, 2, 10));
  CHECK(m.buffer(0).busy_until == 9);
  CHECK(m.replaceable_from(0) == never);  // the send still waits for its other words
  m.release_pending(0, 1, 4);
  CHECK(m.replaceable_from(0) == never);  // one entry for two sends
  m.release_pending(0, 1, 4);
  CHECK(m.buffer(0).pending_sends.empty());
  CHECK(m.replaceable_from(0) == 10);
  CHECK_FALSE(m.replaceable(0, 9));
  CHECK(m.replaceable(0, 10));
}

TEST_CASE("left cycles held as 16-bit offsets stay exact when their base moves and when they spread wider", "[model][memory]") {
  const NodeProgram node = four_buffers();
  NodeMemory m;
  m.allocate(node, plan_node(node, {}), 1);
  const std::size_t before = m.bytes();
  m.place(0, 1, 0, DataTag{});
  m.owe(0, 1, 8);  // all eight words owed once
  const auto leaves_exactly_at = [&m](std::uint32_t word, Cycle left) {
    return !m.word_replaceable(0, word, left) && m.word_replaceable(0, word, left + 1);
  };
  m.settle(0, 0, 70000);  // past the first base (0) by more than 16 bits: the base moves up
  m.settle(0, 1, 70005);
  m.settle(0, 2, 69990);  // below the base: it moves down
  CHECK(leaves_exactly_at(0, 70000));
  CHECK(leaves_exactly_at(1, 70005));
  CHECK(leaves_exactly_at(2, 69990));
  CHECK(m.buffer(0).left_base == 69990);
  CHECK(m.buffer(0).wide_left_at == nullptr);
  CHECK(m.bytes() == before);
  m.settle(0, 3, 69990 + 65534);  // the widest spread the offsets hold
  CHECK(leaves_exactly_at(3, 69990 + 65534));
  CHECK(m.buffer(0).wide_left_at == nullptr);
  m.settle(0, 4, 69990 + 65535);  // one more: the buffer moves to 32-bit cycles, all kept
  REQUIRE(m.buffer(0).wide_left_at != nullptr);
  CHECK(m.bytes() == before + sizeof(std::vector<NarrowCycle>) + 8 * 4);
  for (const auto& [word, left] : {std::pair<std::uint32_t, Cycle>{0, 70000}, {1, 70005}, {2, 69990}, {3, 69990 + 65534},
                                   {4, 69990 + 65535}}) {
    INFO(word);
    CHECK(leaves_exactly_at(word, left));
  }
  CHECK(m.word_replaceable(0, 5, 0) == false);  // still owed
  m.settle(0, 5, NarrowCycle::limit);
  CHECK(NodeMemory::left_at(m.buffer(0), 5) == NarrowCycle::limit);
  CHECK(NodeMemory::left_at(m.buffer(0), 6) == never);
}

TEST_CASE("a buffer only sent from keeps no left_at: its words are replaced as a whole", "[model][memory]") {
  const NodeProgram node = four_buffers();
  NodeMemory m;
  m.allocate(node, plan_node(node, {}), 1);
  m.place(2, 1, 3, DataTag{});
  m.owe(2, 1, 2);  // both words present: owed at once
  CHECK(m.buffer(2).owed_words == 2);
  CHECK(m.buffer(2).pending_sends.empty());
  m.settle(2, 0, 4);
  m.settle(2, 1, 6);
  CHECK(m.buffer(2).owed_words == 0);
  CHECK(m.replaceable_from(2) == 7);
  CHECK_FALSE(m.replaceable(2, 6));
  CHECK(m.replaceable(2, 7));
}

TEST_CASE("updates are owed per word of the running compute's accumulator only", "[model][memory]") {
  NodeProgram node = four_buffers();
  node.buffers.push_back({6, 0});  // a second accumulator, larger
  TaskDetail compute;
  compute.operand = 0;
  compute.coefficient = 3;
  node.add(task_on(TaskKind::Compute, 4), compute);
  NodeMemory m;
  m.allocate(node, plan_node(node, {}), 1);
  CHECK(m.bytes() == 5 * sizeof(BufferState) + 23 * 8 + 8 * 2 + 6 * 2);
  for (std::uint32_t w = 0; w < 4; ++w) CHECK(m.writes_left(1, w) == 0);  // before any compute
  std::uint16_t* left = m.expect_updates(1, 3);
  for (std::uint32_t w = 0; w < 4; ++w) CHECK(m.writes_left(1, w) == 3);
  --left[2];
  CHECK(m.writes_left(1, 2) == 2);
  CHECK(m.writes_left(1, 1) == 3);
  CHECK(m.writes_left(0, 0) == 0);  // no compute accumulates there
  CHECK(m.writes_left(4, 2) == 0);  // not the running compute's
  left = m.expect_updates(4, 5);    // the next compute
  CHECK(m.writes_left(1, 1) == 0);  // the last one made its updates
  for (std::uint32_t w = 0; w < 6; ++w) CHECK(m.writes_left(4, w) == 5);
}

TEST_CASE("a buffer replaced 65535 times fits the 16-bit generations and once more is refused naming the limit",
          "[model][memory]") {
  for (const std::uint32_t loads : {NodeMemory::generation_limit, NodeMemory::generation_limit + 1}) {
    INFO(loads);
    NodeProgram node;
    node.buffers = {{2, 0}};
    for (std::uint32_t i = 0; i < loads; ++i) node.add(task_on(TaskKind::Load, 0), TaskDetail{});
    const NodePlan plan = plan_node(node, {});
    NodeMemory m;
    if (loads <= NodeMemory::generation_limit) {
      m.allocate(node, plan, 1);
      m.place(0, loads, 8, DataTag{});
      CHECK(NodeMemory::present(m.buffer(0).words[1], loads, 8));
      CHECK_FALSE(NodeMemory::present(m.buffer(0).words[1], loads - 1, 8));
      continue;
    }
    try {
      m.allocate(node, plan, 1);
      FAIL("allocated");
    } catch (const GenerationLimitError& e) {
      const std::string text = e.what();
      CHECK_THAT(text, Catch::StartsWith("engine systemc holds up to 65535 successive contents of one buffer in a node") &&
                           Catch::Contains("replaces one buffer's content 65536 times") &&
                           Catch::Contains("time it with engine event"));
    }
  }
}

// The run forms the take-ahead uses (a message's words stored in one call) against the word
// by word calls they stand for, on random sends owed, left cycles and runs in both directions.
TEST_CASE("a run of words lands and is stored exactly as its words one by one", "[model][memory]") {
  const NodeProgram node = four_buffers();
  std::mt19937_64 rng(16);
  for (const std::size_t components : {1, 2}) {
    for (int trial = 0; trial < 300; ++trial) {
      NodeMemory runs, words;
      runs.allocate(node, plan_node(node, {}), components);
      words.allocate(node, plan_node(node, {}), components);
      for (NodeMemory* m : {&runs, &words}) m->place(0, 1, 0, DataTag{});
      std::mt19937_64 same(rng());  // both see the same history
      for (NodeMemory* m : {&runs, &words}) {
        std::mt19937_64 r = same;
        for (int i = 0, n = static_cast<int>(r() % 4); i < n; ++i) m->owe(0, 1 + static_cast<std::uint32_t>(r() % 3), 1 + r() % 8);
        for (std::uint32_t w = 0; w < 8; ++w)
          if (m->buffer(0).words[w].owed > 0 && r() % 2 == 0) m->settle(0, w, 3 + r() % 20);
      }
      const std::int32_t step = rng() % 2 == 0 ? 1 : -1;
      const std::size_t count = 1 + rng() % 8;
      const auto first = static_cast<std::uint32_t>(step == 1 ? rng() % (9 - count) : count - 1 + rng() % (9 - count));
      const auto generation = static_cast<std::uint32_t>(2 + rng() % 2);
      const Cycle first_arrival = rng() % 25, spacing = rng() % 3;
      std::size_t one_by_one = 0;
      while (one_by_one < count) {
        const auto word = first + static_cast<std::uint32_t>(step * static_cast<std::int64_t>(one_by_one));
        if (!words.word_replaceable(0, word, first_arrival + spacing * one_by_one) || words.awaits_older(0, word, generation)) break;
        ++one_by_one;
      }
      const std::size_t landing = runs.landable_prefix(0, first, step, count, generation, first_arrival, spacing);
      REQUIRE(landing == one_by_one);
      runs.store_run(0, first, step, landing, generation, first_arrival, spacing);
      for (std::size_t k = 0; k < landing; ++k)
        words.store(0, first + static_cast<std::uint32_t>(step * static_cast<std::int64_t>(k)), generation, first_arrival + spacing * k);
      const BufferState &a = runs.buffer(0), &b = words.buffer(0);
      CHECK(a.owed_words == b.owed_words);
      CHECK(a.latest_generation == b.latest_generation);
      for (std::uint32_t w = 0; w < 8; ++w) {
        INFO("word " << w);
        CHECK(Cycle{a.words[w].ready} == Cycle{b.words[w].ready});
        CHECK(a.words[w].generation == b.words[w].generation);
        CHECK(a.words[w].owed == b.words[w].owed);
        for (std::size_t c = 0; c < runs.component_ready(0).size(); ++c) CHECK(Cycle{runs.component_ready(0)[c]} == Cycle{words.component_ready(0)[c]});
      }
    }
  }
}
