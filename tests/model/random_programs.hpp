#pragma once
// Random hand-built Programs whose messages take routes of several hops through routers, on
// random machines, for the cross-check of the two engines (tests/model/test_router_random.cpp).
// The same seed gives the same case.

#include <cstdint>
#include <string>

#include "tests/model/program_bench.hpp"

namespace torus::bench {

struct RandomCase {
  Program program;
  Machine machine;
  std::string summary;  // seed, shape and machine, to reproduce a case
};

// Small tori or meshes (4 to 12 nodes, axes of 1 to 4 nodes, some nodes two hops apart or
// more), b = 1 to 3, 1 to 3 phases. In each phase every node may send 0 to 2 messages to random
// nodes (at most 3 to each) by dimension-order routes (the shortest way round each ring): loaded
// blocks, a compute's accumulator, operand or coefficient block (sent as the compute runs),
// blocks received earlier, coefficient blocks (b^2 words), the output of an FFT task (b = 1 or
// 2) of a block loaded or held (computed or received earlier), in place or not, along a random
// axis, forward or inverse (then every run computes complex values, program_bench.cpp); it posts its receives before or
// after its sends and may compute with what it receives. Every Program passes the generic
// verifier (drawn again until it does). Machines: link latency 1 to 8, 1, 2, 1/2, 2/3, 1/8 or
// 3/2 words per cycle, buffers of 1 to 64 words, message start-up 0 to 15 cycles, fma latency
// 1 to 4, 1 or 2 fma per cycle, both send policies and micro-schedules, fast-forward on or off
// (SystemC).
RandomCase random_case(std::uint64_t seed);

// A Program in which every node of a torus runs the same task list (only block indices
// differ): it loads, maybe transforms (an FFT task in place), computes and sends 1 to 3 blocks along the same routes of one hop or more
// (the shortest ways to random nodes) and computes with what it receives; and its translation
// quotient (Program::translation_quotient), node 0's task list alone.
struct SymmetricCase {
  Program whole, quotient;
  Machine machine;
  std::string summary;
};
SymmetricCase symmetric_case(std::uint64_t seed);

}  // namespace torus::bench
