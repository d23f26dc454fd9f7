#pragma once
// The built-in algorithms, one per file; sim/algorithm.cpp maps names to these.

#include <memory>

#include "sim/algorithm.hpp"

namespace torus {

std::unique_ptr<Algorithm> make_orbital();

}  // namespace torus
