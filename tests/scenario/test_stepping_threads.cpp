// Nodes stepped on several host threads (models/cycle/step_threads.hpp): every report field,
// every result bit, the exit code and a stall's report equal the run on one thread. The
// configurations cover what crosses between partitions: words and credits on links whose two
// ends step at once (1-word buffers, fractional and faster links, long latencies), messages
// forwarded by routers, nodes that finish early and only route (asleep until a link's update
// wakes them, on a mesh), a stuck node, a lost word
// (a stall the watchdog reports), and partitions of unequal sizes (3 threads on 64 nodes, 5 on
// 27).

#include <catch2/catch.hpp>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

// The report without what describes the host (times, memory) or the engine's own effort.
nlohmann::json threadless_figures(nlohmann::json report) {
  for (const char* key : {"wall_seconds", "phase_seconds", "machine"}) report.erase(key);
  for (const char* host : {"simulation_seconds", "node_cycles_per_second", "peak_memory_bytes", "memory", "stepping_threads"})
    report["timing"].erase(host);
  return report;
}

}  // namespace

TEST_CASE("nodes stepped on several threads: every figure, bit and stall report equals one thread's",
          "[scenario][cycles][threads][order]") {
  const std::vector<std::string> configurations = {
      "--N 8 --P 4 --fma_latency 4",
      "--N 8 --P 4 --link_buffer_words 1",
      "--N 8 --P 4 --link_buffer_words 1 --link_latency 3",
      "--N 8 --P 4 --link_words_per_cycle 1/8",
      "--N 8 --P 4 --link_words_per_cycle 3/2 --link_buffer_words 2",
      "--N 8 --P 4 --roll_policy overlapped --link_buffer_words 1",
      "--N 8 --P 4 --fma_per_cycle 3 --link_words_per_cycle 3/2",
      "--N 6 --P 3 --transform dft --complex_fma_cost 1 --link_buffer_words 1",
      "--N 8 --P 4 --alpha +-+ --direction both --link_buffer_words 5",
      "--N 16 --P 4 --fma_latency 8 --link_latency 2 --link_buffer_words 16",
      "--algorithm orbital_local_coefficients --N 8x4x6 --P 4x2x3 --link_buffer_words 1",
      "--N 7 --P 3 --transform dst",
      "--N 8 --P 4 --boundary mesh",  // rolls across the edge routed: finished routers woken by a link's update
      "--algorithm ring_transpose_fft --transform dft --N 16 --P 2 --link_buffer_words 2",
      "--algorithm ring_block_fft --transform dft --N 16 --P 4",
      "--algorithm pencil_fft --transform dft --N 16 --P 4",
      "--algorithm pencil_fft --transform dft --N 16 --P 4 --link_buffer_words 1",  // wormhole deadlock: a stall
      "--task matmul --algorithm hypersystolic --m 8 --k 16 --n 16 --array 4x4 --hypersystolic_mapping ring --link_buffer_words 1",
      "--task matmul --algorithm systolic --m 6 --k 12 --n 8 --array 3x4",
      "--N 8 --P 4 --fault stuck_node --fault_node 1,2,3 --fault_cycle 40 --watchdog_cycles 500",
      "--N 8 --P 4 --link_buffer_words 2 --fault drop_word --fault_node 1,1,1 --fault_link +R --fault_cycle 30 "
      "--watchdog_cycles 400",
      "--N 8 --P 4 --fault bit_flip --fault_node 0,1,2 --fault_link +Q --fault_cycle 25 --fault_bit 60",
  };
  std::size_t stalled = 0, failed = 0;
  for (const std::string& machine : configurations) {
    TempDir dir;
    const std::string base = "run " + machine + " --fast_forward off --output ";
    const CliRun one = run_cli(base + dir.file("one.npy") + " --threads 1");
    INFO(machine << "\n" << one.output);
    // A stalled run writes no report: its stall report (the whole output) is compared instead.
    REQUIRE((one.report.is_object() || one.exit_code == 5));
    if (one.exit_code == 5) ++stalled;
    if (one.exit_code == 3) ++failed;
    if (one.report.is_object()) CHECK(one.report["timing"]["stepping_threads"] == 1);
    for (const int threads : {2, 3, 5}) {
      const std::string npy = dir.file("threads.npy");
      const CliRun run = run_cli(base + npy + " --threads " + std::to_string(threads));
      INFO("threads " << threads << "\n" << run.output);
      CHECK(run.exit_code == one.exit_code);
      if (one.exit_code == 5) {
        CHECK(run.output == one.output);
      } else {
        CHECK(threadless_figures(run.report) == threadless_figures(one.report));
        // The threads asked for really stepped the nodes: else this compares one thread with itself.
        CHECK(run.report["timing"]["stepping_threads"] == threads);
      }
      CHECK(file_bytes(npy) == file_bytes(dir.file("one.npy")));
    }
  }
  // The faults must really stall runs and corrupt one, or their rows prove nothing.
  CHECK(stalled >= 3);
  CHECK(failed >= 1);
}
