#pragma once
// What travels on a link: one data word and the tag that tells the receiver where it goes.

#include <complex>
#include <cstdint>

#include "sim/schedule.hpp"

namespace torus {

struct LinkWord {
  std::complex<double> value;  // exact for float, double and both complex types
  BlockId block;               // the block the word belongs to (checked against the schedule)
  std::uint32_t step = 0;      // global step in which the receiver uses the word
  std::uint32_t index = 0;     // word within its block
};

}  // namespace torus
