#pragma once
// The node micro-schedule: the order in which a node issues the fma of one block multiply-add
// (b^4 for b x b x b blocks; for a kernel in general, accumulator words x reduction length). Values do not depend on it (every accumulator word receives its updates in
// the same order under every micro-schedule); only the time does.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/program.hpp"

namespace torus {

// What a complex multiply-add acc += a c is split into on a real fma unit, in this order per
// component: re: part 0 (re += a_re c_re) then part 2 (re -= a_im c_im); im: part 1
// (im += a_re c_im) then part 3 (im += a_im c_re). `whole` is one fma: a real multiply-add, or
// all four parts at once on a complex unit.
enum class FmaPart : std::uint8_t { RealReal = 0, RealImag = 1, ImagImag = 2, ImagReal = 3, Whole = 4 };

struct FmaInstruction {
  std::uint32_t accumulator;  // word of the accumulator block, storage order (first index fastest)
  std::uint32_t operand;      // word of the operand block
  std::uint32_t coefficient;  // word of the coefficient block: input + (reduction length) * output
  FmaPart part;
};

// One step's instructions for a kernel (mode and block extents), plus the facts the node and
// the roll policies need.
struct MicroProgram {
  std::vector<FmaInstruction> instructions;
  std::size_t components = 1;  // dependency targets per accumulator word: 2 (re, im) when split
  std::vector<std::uint32_t> operand_first_use;      // operand words in order of first use
  std::vector<std::uint32_t> coefficient_first_use;  // coefficient words in order of first use
  std::vector<std::uint32_t> accumulator_final_order; // accumulator words in order of their last update
  std::uint32_t updates_per_word = 1;                 // fma writing each accumulator word
  std::size_t accumulator_words = 0;                  // words of the accumulator block it updates

  // The dependency target an instruction writes: accumulator word * components + component.
  std::uint32_t target(const FmaInstruction& i) const {
    if (components == 1) return i.accumulator;
    const bool imaginary = i.part == FmaPart::RealImag || i.part == FmaPart::ImagReal;
    return i.accumulator * 2 + (imaginary ? 1 : 0);
  }
};

// Contract: build() returns exactly G R instructions (4 G R when split; G accumulator words,
// R the reduction length, b^3 and b for b x b x b blocks) that give every accumulator word its
// R updates per component in increasing reduction order.
class MicroSchedule {
 public:
  virtual ~MicroSchedule() = default;
  virtual std::string name() const = 0;
  // split: complex data on a real fma unit (four fma per complex multiply-add).
  MicroProgram build(const KernelSpec& kernel, bool split) const;

 protected:
  // Appends the instructions in this schedule's order for `words` accumulator words of
  // `reduction` updates each; `emit(e, r, part)` adds one.
  virtual void order(std::size_t words, std::size_t reduction, bool split,
                     const std::function<void(std::size_t, std::size_t, FmaPart)>& emit) const = 0;
};

std::unique_ptr<MicroSchedule> make_micro_schedule(const std::string& name);
std::vector<std::string> micro_schedule_names();

// Word indices for accumulator word e (storage order) and reduction index r of a kernel.
std::uint32_t operand_word(const KernelSpec& kernel, std::size_t e, std::size_t r);
std::uint32_t coefficient_word(const KernelSpec& kernel, std::size_t e, std::size_t r);

}  // namespace torus
