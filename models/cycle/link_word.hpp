#pragma once
// What travels on a link: one data word and where it belongs. The block it carries is its
// message's (the sender checks that its buffer holds that block before the first word leaves).

#include <complex>
#include <cstdint>

#include "sim/program.hpp"

namespace torus {

struct LinkWord {
  std::complex<double> value;  // exact for float, double and both complex types
  std::uint32_t message = 0;   // index into Program::messages
  std::uint32_t index = 0;     // word within the message
  std::uint16_t hop = 0;       // hops already taken (0 on the first link)
};

}  // namespace torus
