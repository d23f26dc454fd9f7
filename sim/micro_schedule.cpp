#include "sim/micro_schedule.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "sim/registry.hpp"
#include "sim/micro_schedules/factories.hpp"

namespace torus {

namespace {

const Registry<MicroSchedule>& micro_schedules() {
  static const Registry<MicroSchedule> table("micro_schedule", {{"interleaved", make_interleaved}, {"chained", make_chained}});
  return table;
}

}  // namespace

std::vector<std::string> micro_schedule_names() { return micro_schedules().names(); }

std::unique_ptr<MicroSchedule> make_micro_schedule(const std::string& name) { return micro_schedules().make(name); }

namespace {

std::array<std::size_t, 3> coordinates(const Extents3& extents, std::size_t e) {
  return {e % extents[0], (e / extents[0]) % extents[1], e / (extents[0] * extents[1])};
}

}  // namespace

std::uint32_t operand_word(const KernelSpec& kernel, std::size_t e, std::size_t r) {
  std::array<std::size_t, 3> at = coordinates(kernel.accumulator, e);
  at[static_cast<std::size_t>(kernel.mode - 1)] = r;  // the operand agrees on the other two axes
  const Extents3& o = kernel.operand;
  return static_cast<std::uint32_t>(at[0] + o[0] * (at[1] + o[1] * at[2]));
}

std::uint32_t coefficient_word(const KernelSpec& kernel, std::size_t e, std::size_t r) {
  const std::size_t output = coordinates(kernel.accumulator, e)[static_cast<std::size_t>(kernel.mode - 1)];
  return static_cast<std::uint32_t>(r + kernel.reduction() * output);
}

MicroProgram MicroSchedule::build(const KernelSpec& kernel, bool split) const {
  if (kernel.mode < 1 || kernel.mode > 3) throw std::invalid_argument("mode must be 1, 2 or 3");
  MicroProgram program;
  program.components = split ? 2 : 1;
  const std::size_t words = kernel.accumulator_words(), reduction = kernel.reduction();
  program.accumulator_words = words;
  program.instructions.reserve(words * reduction * (split ? 4 : 1));
  std::vector<bool> operand_seen(kernel.operand_words(), false), coefficient_seen(kernel.coefficient_words(), false);
  order(words, reduction, split, [&](std::size_t e, std::size_t r, FmaPart part) {
    const FmaInstruction instruction{static_cast<std::uint32_t>(e), operand_word(kernel, e, r), coefficient_word(kernel, e, r),
                                     part};
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
  program.updates_per_word = static_cast<std::uint32_t>(reduction * (split ? 4 : 1));
  std::vector<std::size_t> last_update(words, 0);
  for (std::size_t i = 0; i < program.instructions.size(); ++i) last_update[program.instructions[i].accumulator] = i;
  program.accumulator_final_order.resize(words);
  for (std::uint32_t w = 0; w < words; ++w) program.accumulator_final_order[w] = w;
  std::sort(program.accumulator_final_order.begin(), program.accumulator_final_order.end(),
            [&](std::uint32_t a, std::uint32_t c) { return last_update[a] < last_update[c]; });
  return program;
}

}  // namespace torus
