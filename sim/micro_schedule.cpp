#include "sim/micro_schedule.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/registry.hpp"
#include "sim/micro_schedules/factories.hpp"

namespace torus {

namespace {

const Registry<MicroSchedule>& registry() {
  static const Registry<MicroSchedule> table("micro_schedule", {{"interleaved", make_interleaved}, {"chained", make_chained}});
  return table;
}

}  // namespace

std::vector<std::string> micro_schedule_names() { return registry().names(); }

std::unique_ptr<MicroSchedule> make_micro_schedule(const std::string& name) { return registry().make(name); }

std::uint32_t operand_word(int mode, std::size_t b, std::size_t e, std::size_t r) {
  const std::size_t i = e % b, j = (e / b) % b, k = e / (b * b);
  switch (mode) {
    case 1: return static_cast<std::uint32_t>(r + b * (j + b * k));
    case 2: return static_cast<std::uint32_t>(i + b * (r + b * k));
    default: return static_cast<std::uint32_t>(i + b * (j + b * r));
  }
}

std::uint32_t coefficient_word(int mode, std::size_t b, std::size_t e, std::size_t r) {
  const std::size_t i = e % b, j = (e / b) % b, k = e / (b * b);
  const std::size_t output = mode == 1 ? i : mode == 2 ? j : k;
  return static_cast<std::uint32_t>(r + b * output);
}

MicroProgram MicroSchedule::build(int mode, std::size_t b, bool split) const {
  if (mode < 1 || mode > 3) throw std::invalid_argument("mode must be 1, 2 or 3");
  MicroProgram program;
  program.components = split ? 2 : 1;
  const std::size_t words = b * b * b;
  program.instructions.reserve(words * b * (split ? 4 : 1));
  std::vector<bool> operand_seen(words, false), coefficient_seen(b * b, false);
  order(b, split, [&](std::size_t e, std::size_t r, FmaPart part) {
    const FmaInstruction instruction{static_cast<std::uint32_t>(e), operand_word(mode, b, e, r),
                                     coefficient_word(mode, b, e, r), part};
    if (!operand_seen[instruction.operand]) {
      operand_seen[instruction.operand] = true;
      program.operand_first_use.push_back(instruction.operand);
    }
    if (!coefficient_seen[instruction.coefficient]) {
      coefficient_seen[instruction.coefficient] = true;
      program.coefficient_first_use.push_back(instruction.coefficient);
    }
    program.instructions.push_back(instruction);
  });
  program.updates_per_word = static_cast<std::uint32_t>(b * (split ? 4 : 1));
  std::vector<std::size_t> last_update(words, 0);
  for (std::size_t i = 0; i < program.instructions.size(); ++i) last_update[program.instructions[i].accumulator] = i;
  program.accumulator_final_order.resize(words);
  for (std::uint32_t w = 0; w < words; ++w) program.accumulator_final_order[w] = w;
  std::sort(program.accumulator_final_order.begin(), program.accumulator_final_order.end(),
            [&](std::uint32_t a, std::uint32_t c) { return last_update[a] < last_update[c]; });
  return program;
}

}  // namespace torus
