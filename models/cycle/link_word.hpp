#pragma once
// What travels on a link: one data word, the message it belongs to and the tag of the block
// the sender held, so the receiver can check it against its Program.

#include <complex>
#include <cstdint>

#include "sim/program.hpp"

namespace torus {

struct LinkWord {
  std::complex<double> value;  // exact for float, double and both complex types
  DataTag tag;                 // the block the sender's buffer held
  std::uint32_t message = 0;   // index into Program::messages
  std::uint32_t index = 0;     // word within the message
  std::uint32_t hop = 0;       // hops already taken (0 on the first link)
};

}  // namespace torus
