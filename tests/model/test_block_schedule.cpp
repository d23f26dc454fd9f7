// The closed forms of a whole compute (models/event/block_schedule.hpp) against the issue rule
// evaluated per instruction (FmaSchedules): on random kernels, latencies, fma per cycle,
// micro-schedules and split complex, for a compute with every target usable at its start and
// for chains of computes on one accumulator started soon after each other, the first and last
// issue, busy cycles, the fma in the last issue cycle, every target's readiness, every
// instruction's issue cycle and the words it reads must agree.

#include <catch2/catch.hpp>

#include <random>

#include "models/event/block_schedule.hpp"
#include "models/event/fma_schedule.hpp"

using namespace torus;
using namespace torus::event;

namespace {

struct Tally {
  int closed = 0, fallback = 0;
};

// Times `chain` computes of kernels with one accumulator and random reduction lengths both
// ways, each started a random few cycles after the previous one's last issue.
void check_chain(std::mt19937& rng, const MicroSchedule& micro, bool split, Cycle latency, unsigned per_cycle, Tally& tally) {
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
  const std::size_t components = split ? 2 : 1;
  for (int c = 0, chain = pick(1, 4); c < chain; ++c) {
    kernel.operand = kernel.accumulator;
    kernel.operand[static_cast<std::size_t>(kernel.mode - 1)] = static_cast<std::size_t>(pick(1, 5));
    const MicroProgram program = micro.build(kernel, split);
    const auto id = per_instruction.find(static_cast<std::uint32_t>(c), program, previous, shift);
    const FmaSchedule& s = per_instruction[id];
    const BlockShape shape{kernel.accumulator_words() * components, kernel.reduction() * components, micro.name() == "chained",
                           split};
    const std::optional<BlockTiming> b = closed.time(shape, previous == FmaSchedules::none ? nullptr : &pattern, shift);
    INFO("kernel " << kernel.accumulator[0] << "x" << kernel.accumulator[1] << "x" << kernel.accumulator[2] << " mode "
                   << kernel.mode << " R " << kernel.reduction() << ", L " << latency << ", f " << per_cycle << ", "
                   << micro.name() << (split ? " split" : "") << ", compute " << c << " shift " << shift);
    if (!b) {  // not covered: only after a compute whose targets are not all usable yet
      REQUIRE(previous != FmaSchedules::none);
      ++tally.fallback;
      return;
    }
    ++tally.closed;
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
    shift = s.last() + 1 + static_cast<Cycle>(pick(0, static_cast<int>(latency) * 3));
  }
}

}  // namespace

TEST_CASE("closed forms of a whole compute equal the per-instruction issue rule", "[model][event][closed_form]") {
  std::mt19937 rng(20261124);
  Tally tally;
  for (const char* name : {"interleaved", "chained"}) {
    const auto micro = make_micro_schedule(name);
    for (int i = 0; i < 1500; ++i) {
      const Cycle latency = std::uniform_int_distribution<Cycle>(1, 9)(rng);
      const unsigned per_cycle = std::uniform_int_distribution<unsigned>(1, 4)(rng);
      check_chain(rng, *micro, i % 3 == 0, latency, per_cycle, tally);
    }
  }
  INFO("closed " << tally.closed << ", fallback " << tally.fallback);
  CHECK(tally.closed > 4000);  // most chains are covered: the forms are really exercised
}
