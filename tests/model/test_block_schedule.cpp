// The closed forms of a whole compute (models/event/block_schedule.hpp) against the issue rule
// evaluated per instruction (FmaSchedules): on random kernels, latencies, fma per cycle,
// micro-schedules and split complex, for a compute with every target usable at its start and
// for chains of computes on one accumulator started soon after each other (or in the very
// cycle the one before ended in, when that left fma slots free), the first and last
// issue, busy cycles, the fma in the last issue cycle, every target's readiness, every
// instruction's issue cycle and the words it reads must agree.

#include <catch2/catch.hpp>

#include <random>

#include "models/event/block_schedule.hpp"
#include "models/event/fma_schedule.hpp"

using namespace torus;
// Names, not the whole namespace: in a unity batch a file-scope directive reaches later files.
using event::BlockSchedules;
using event::BlockShape;
using event::BlockTiming;
using event::FmaPlace;
using event::FmaSchedule;
using event::FmaSchedules;
using event::ReadyPattern;

namespace {

struct ChainTally {
  int closed = 0, fallback = 0, shared = 0;  // shared: started in a cycle the unit had issued in already
};

// Times `chain` computes of kernels with one accumulator and random reduction lengths both
// ways, each started a random few cycles after the previous one's last issue.
void check_chain(std::mt19937& rng, const MicroSchedule& micro, bool split, Cycle latency, unsigned per_cycle, ChainTally& tally) {
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  KernelSpec kernel;
  kernel.mode = pick(1, 3);
  kernel.accumulator = {static_cast<std::size_t>(pick(1, 4)), static_cast<std::size_t>(pick(1, 4)),
                        static_cast<std::size_t>(pick(1, 3))};
  FmaSchedules per_instruction(latency, per_cycle);
  const BlockSchedules closed(latency, per_cycle);
  std::uint32_t previous = FmaSchedules::none;
  ReadyPattern pattern;
  Cycle shift = 0;
  // The first compute may find the unit with some slots of its first cycle taken.
  unsigned offset = static_cast<unsigned>(pick(0, static_cast<int>(per_cycle) - 1));
  const std::size_t components = split ? 2 : 1;
  for (int c = 0, chain = pick(1, 4); c < chain; ++c) {
    kernel.operand = kernel.accumulator;
    kernel.operand[static_cast<std::size_t>(kernel.mode - 1)] = static_cast<std::size_t>(pick(1, 5));
    const MicroProgram program = micro.build(kernel, split);
    const auto id = per_instruction.find(static_cast<std::uint32_t>(c), program, previous, shift, offset);
    const FmaSchedule& s = per_instruction[id];
    const BlockShape shape{kernel.accumulator_words() * components, kernel.reduction() * components, micro.name() == "chained",
                           split};
    const std::optional<BlockTiming> b = closed.time(shape, previous == FmaSchedules::none ? nullptr : &pattern, shift, offset);
    INFO("kernel " << kernel.accumulator[0] << "x" << kernel.accumulator[1] << "x" << kernel.accumulator[2] << " mode "
                   << kernel.mode << " R " << kernel.reduction() << ", L " << latency << ", f " << per_cycle << ", "
                   << micro.name() << (split ? " split" : "") << ", compute " << c << " shift " << shift << " offset " << offset);
    if (!b) {  // not covered: only after a compute whose targets are not all usable yet, or in a shared cycle
      REQUIRE((previous != FmaSchedules::none || offset != 0));
      ++tally.fallback;
      return;
    }
    ++tally.closed;
    if (offset != 0) ++tally.shared;
    CHECK(b->first == s.issue.front());
    CHECK(b->last == s.last());
    CHECK(b->busy == s.busy);
    CHECK(b->in_last_cycle == s.in_last_cycle);
    REQUIRE(s.target_ready.size() == shape.targets);
    for (std::uint64_t t = 0; t < shape.targets; ++t) {
      INFO("target " << t);
      REQUIRE(b->ready.at(t, per_cycle) == s.target_ready[t]);
    }
    for (std::uint64_t i = 0; i < s.issue.size(); ++i) {  // every issue, and which words each fma reads
      INFO("instruction " << i);
      REQUIRE(closed.issue_of(shape, *b, i) == s.issue[i]);
      const FmaPlace place = closed.place_of(shape, i);
      const FmaInstruction& instruction = program.instructions[i];
      REQUIRE(place.word == instruction.accumulator);
      REQUIRE(operand_word(kernel, place.word, place.reduction) == instruction.operand);
      REQUIRE(coefficient_word(kernel, place.word, place.reduction) == instruction.coefficient);
    }
    previous = id;
    pattern = b->ready;
    // The next compute starts in the cycle this one ended in when slots are left there (the
    // pointer passes a compute with its last fma), else a few cycles later.
    offset = s.in_last_cycle < per_cycle && pick(0, 1) == 0 ? s.in_last_cycle : 0;
    shift = offset != 0 ? s.last() : s.last() + 1 + static_cast<Cycle>(pick(0, static_cast<int>(latency) * 3));
  }
}

}  // namespace

TEST_CASE("closed forms of a whole compute equal the per-instruction issue rule", "[model][event][closed_form]") {
  std::mt19937 rng(20261124);
  ChainTally tally;
  for (const char* name : {"interleaved", "chained"}) {
    const auto micro = make_micro_schedule(name);
    for (int i = 0; i < 1500; ++i) {
      const Cycle latency = std::uniform_int_distribution<Cycle>(1, 9)(rng);
      const unsigned per_cycle = std::uniform_int_distribution<unsigned>(1, 8)(rng);
      check_chain(rng, *micro, i % 3 == 0, latency, per_cycle, tally);
    }
  }
  INFO("closed " << tally.closed << ", fallback " << tally.fallback << ", in a shared cycle " << tally.shared);
  CHECK(tally.closed > 4000);  // most chains are covered: the forms are really exercised
  CHECK(tally.shared > 500);   // and so are starts in a cycle the compute before left slots in
}

// Hand-derived: a compute that starts in the cycle the one before ended in, o of its f slots taken.
TEST_CASE("closed forms: a compute started in a shared cycle, exact cycles", "[model][event][closed_form]") {
  SECTION("interleaved, T >= L f: instruction i at floor((i + o) / f)") {
    // f 8, L 5, T 43 >= 40, U 3, o 5: 129 fma in slots 5 .. 133, so the last issue is at
    // floor(133 / 8) = 16 with 134 - 128 = 6 fma in it; cycles 1 .. 16 are new and busy (cycle 0
    // was busy already); target t's last update is slot 86 + t + 5: usable at
    // floor((91 + t) / 8) + 5, target 0 at 16, target 42 at 21.
    const BlockSchedules closed(5, 8);
    const BlockShape shape{43, 3, false, false};
    const std::optional<BlockTiming> b = closed.time(shape, nullptr, 0, 5);
    REQUIRE(b);
    CHECK(b->first == 0);
    CHECK(b->last == 16);
    CHECK(b->busy == 16);
    CHECK(b->in_last_cycle == 6);
    CHECK(b->ready.at(0, 8) == 16);
    CHECK(b->ready.at(42, 8) == 21);
    CHECK(closed.issue_of(shape, *b, 2) == 0);  // slot 7, the last of cycle 0
    CHECK(closed.issue_of(shape, *b, 3) == 1);
  }
  SECTION("interleaved, T < L f: every round keeps the shared cycle's shape") {
    // f 4, L 3, T 9, U 2, o 2. Round 0: cycle 0 takes targets 0, 1 (two slots left), cycle 1
    // targets 2 .. 5, cycle 2 targets 6 .. 8. Round 1: targets 0, 1 usable at 3, targets 2 .. 5
    // at 4, so cycle 3 issues targets 0, 1 only, cycle 4 targets 2 .. 5, cycle 5 targets 6 .. 8:
    // last issue 5 with 3 fma, new busy cycles 1 .. 5, target 0 usable at 6, target 8 at 8.
    const BlockSchedules closed(3, 4);
    const BlockShape shape{9, 2, false, false};
    const std::optional<BlockTiming> b = closed.time(shape, nullptr, 0, 2);
    REQUIRE(b);
    CHECK(b->last == 5);
    CHECK(b->busy == 5);
    CHECK(b->in_last_cycle == 3);
    CHECK(b->ready.at(0, 4) == 6);
    CHECK(b->ready.at(8, 4) == 8);
    CHECK(closed.issue_of(shape, *b, 9 + 2) == 4);  // round 1, target 2
    // T 11, o 2: round 0 reaches cycle floor(12 / 4) = 3 = L, where round 1 may already issue: not covered.
    CHECK_FALSE(closed.time(BlockShape{11, 2, false, false}, nullptr, 0, 2));
  }
}
