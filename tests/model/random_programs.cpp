#include "tests/model/random_programs.hpp"

#include <algorithm>
#include <sstream>

#include "sim/program_verifier.hpp"
#include "tests/model/case_builder.hpp"

namespace torus::bench {

using cases::CaseBuilder;

RandomCase random_case(std::uint64_t seed) {
  // Drawn again (from the next seeds of a sequence of its own) until the generic verifier finds
  // nothing wrong: whatever either engine does with an illegal Program means nothing.
  for (std::uint64_t attempt = 0;; ++attempt) {
    CaseBuilder builder(seed * 1000 + attempt);
    RandomCase c;
    c.program = builder.program();
    if (!verify_program(c.program, 1).ok()) continue;
    builder.machine(c.machine);
    const Program& p = c.program;
    std::size_t longest = 0;
    for (const Message& m : p.messages) longest = std::max<std::size_t>(longest, m.hops);
    std::ostringstream text;
    text << "seed " << seed << " (attempt " << attempt << "): " << p.shape.p1 << "x" << p.shape.p2 << "x" << p.shape.p3
         << " " << boundary_text(p.shape) << ", b " << p.grid.describe_blocks() << ", "
         << p.global_steps() << " phases, " << p.messages.size() << " messages of up to " << longest << " hops; link latency "
         << c.machine.link_latency << ", " << c.machine.link_rate.num << "/" << c.machine.link_rate.den
         << " words per cycle, buffers " << c.machine.link_buffer_words << "; fma latency " << c.machine.fma_latency << ", "
         << c.machine.fma_per_cycle << " per cycle, " << c.machine.policy << ", " << c.machine.micro_schedule
         << ", fast_forward " << c.machine.fast_forward << ", start-up " << c.machine.message_startup;
    c.summary = text.str();
    return c;
  }
}

}  // namespace torus::bench
