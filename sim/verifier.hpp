#pragma once
// Proves, by replaying where every block is, that a schedule computes its transform: every
// (stage, output block, reduction block) multiply-add happens exactly once, on a node that
// holds all three blocks, with complete operands; each node does exactly one multiply-add per
// step; every roll goes to the next node of its ring; no node ever holds two blocks of one
// kind; every rolled block is home at the end of its stage; the output is complete.

#include <cstddef>
#include <string>
#include <vector>

#include "sim/schedule.hpp"

namespace torus {

struct Violation {
  int stage = 0;   // 1..3, 0 before stage I
  int step = -1;   // -1 for the stage's start or end
  NodeCoord node;
  std::string block;    // the block concerned, e.g. "X'(0,1,2)"
  std::string message;  // what is wrong
};
std::string to_string(const Violation& violation);

struct VerificationReport {
  std::vector<Violation> violations;  // the first `max_reported`
  std::size_t violation_count = 0;
  std::size_t block_multiply_adds_checked = 0;
  std::size_t rolls_checked = 0;
  bool ok() const { return violation_count == 0; }
};

VerificationReport verify_schedule(const Schedule& schedule, std::size_t max_reported = 20);

}  // namespace torus
