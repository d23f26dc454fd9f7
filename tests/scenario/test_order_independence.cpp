// Results never depend on the order in which SystemC runs the nodes. The hardest case for the
// cycle engine is a torus where nodes behave differently: some sleep through cycles whose
// outcome they know (fast-forward) while their neighbours step through every cycle, so they
// are activated at different delta cycles and in different orders. Every report field and
// every result bit must equal the run where all nodes step every cycle.

#include <catch2/catch.hpp>

#include <fstream>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

// What the simulated machine did, without what describes the host or the fast-forward itself.
nlohmann::json machine_figures(nlohmann::json timing) {
  for (const char* host : {"simulation_seconds", "node_cycles_per_second", "peak_memory_bytes", "memory", "fast_forwarded_fma", "node_activations", "stepping_threads",
                           "fast_forward_note"})
    timing.erase(host);
  return timing;
}

}  // namespace

TEST_CASE("nodes that fast-forward next to nodes that step: every figure equals the all-stepping run",
          "[scenario][cycles][fast_forward][order]") {
  const std::vector<std::string> configurations = {
      "--N 8 --P 4 --fma_latency 4",
      "--N 8 --P 4 --link_buffer_words 1",
      "--N 8 --P 4 --link_buffer_words 1 --link_latency 3",
      "--N 8 --P 2 --link_buffer_words 2 --link_latency 3",
      "--N 8 --P 4 --link_words_per_cycle 1/8",
      "--N 8 --P 4 --link_words_per_cycle 3/2",
      "--N 8 --P 4 --link_words_per_cycle 1/2 --link_buffer_words 3",
      "--N 8 --P 4 --roll_policy overlapped",
      "--N 8 --P 4 --roll_policy overlapped --link_buffer_words 1",
      "--N 8 --P 4 --fma_per_cycle 2",
      "--N 8 --P 4 --fma_per_cycle 3 --link_words_per_cycle 3/2",
      "--N 4 --P 4 --fma_latency 3",
      "--N 6 --P 3 --micro_schedule chained",
      "--N 6 --P 3 --fma_latency 9",
      "--N 12 --P 3 --fma_latency 1 --link_latency 2",
      "--N 4 --P 2 --transform dft --fma_latency 6",
      "--N 6 --P 3 --transform dft --complex_fma_cost 1 --link_buffer_words 1",
      "--N 8 --P 4 --alpha -+- --direction inverse",
      "--N 8 --P 4 --alpha +-+ --direction both --link_buffer_words 5",
      "--N 16 --P 4 --fma_latency 8 --link_latency 2 --link_buffer_words 16",
      "--N 8 --P 2 --roll_policy overlapped --fma_latency 1",
  };
  // Which nodes step while the others fast-forward: a single node (the case that used to move
  // the total), every other node, and a sparse pattern.
  const std::vector<std::string> stepping = {"0", "5", "every:2:0", "every:3:1"};
  std::size_t engaged = 0;
  for (const std::string& machine : configurations) {
    TempDir dir;
    const std::string reference_npy = dir.file("off.npy");
    const CliRun reference = run_cli("run " + machine + " --fast_forward off --output " + reference_npy);
    INFO(machine << "\n" << reference.output);
    REQUIRE(reference.exit_code == 0);
    const nlohmann::json expected = machine_figures(reference.report["timing"]);
    for (const std::string& nodes : stepping) {
      const std::string npy = dir.file("mixed.npy");
      const CliRun run = run_cli("run " + machine + " --fast_forward on --fast_forward_stepping " + nodes + " --output " + npy);
      INFO("stepping nodes " << nodes << "\n" << run.output);
      REQUIRE(run.exit_code == 0);
      CHECK(machine_figures(run.report["timing"]) == expected);
      CHECK(file_bytes(npy) == file_bytes(reference_npy));
      if (run.report["timing"]["fast_forwarded_fma"].get<std::uint64_t>() > 0) ++engaged;
    }
  }
  // Most configurations must really mix sleeping and stepping nodes, or this proves nothing.
  CHECK(engaged >= 40);
}
