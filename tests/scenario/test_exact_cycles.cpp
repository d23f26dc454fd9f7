// Cycle counts derived by hand, checked against both timing engines (the SystemC model and the
// event engine, which must agree on every figure): a node's fma dependencies, its
// micro-schedules, and the compute-then-roll step of the torus.

#include <catch2/catch.hpp>

#include <array>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

// The timing figures of a run, the same from both engines (host figures aside), the event
// engine timing every node and timing one node for the torus.
nlohmann::json timing_of(const std::string& arguments) {
  const std::array<const char*, 3> engines = {" --engine systemc", " --engine event --symmetry off", " --engine event"};
  std::array<nlohmann::json, 3> timing;
  for (std::size_t e = 0; e < engines.size(); ++e) {
    const std::string command = arguments + engines[e];
    INFO("torus-sim " << command);
    const CliRun run = run_cli(command);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    timing[e] = timing_machine_figures(run.report["timing"]);
  }
  INFO("torus-sim " << arguments);
  CHECK(timing[0] == timing[1]);
  CHECK(timing[0] == timing[2]);
  return timing[1];
}

}  // namespace

TEST_CASE("N = 1 on one node: three dependent fma finish at 3L, not 3L - 1", "[scenario][cycles]") {
  // Stage II reads stage I's result and stage III stage II's: issues at 0, L, 2L; the last
  // result is usable at 3L.
  for (int latency : {1, 4, 8}) {
    const auto t = timing_of("run --N 1 --P 1 --direction forward --fma_latency " + std::to_string(latency));
    CHECK(t["total_cycles"] == 3 * latency);
    CHECK(t["fma_issued"] == 3);
    CHECK(t["node_cycles"]["dependency"] == 2 * (latency - 1));  // the last L - 1 cycles are idle
    CHECK(t["node_cycles"]["idle"] == latency - 1);
  }
}

TEST_CASE("interleaved with b^3 >= L issues b^4 fma per step with no stall", "[scenario][cycles]") {
  // N = b = 2, P = 1: 3 steps x 16 fma in one stream; b^3 = 8 = L, so fma i issues at cycle i
  // and the last result is usable at 47 + 8.
  const auto t = timing_of("run --N 2 --P 1 --direction forward --fma_latency 8");
  CHECK(t["total_cycles"] == 55);
  CHECK(t["node_cycles"]["busy"] == 48);
  CHECK(t["node_cycles"]["dependency"] == 0);
}

TEST_CASE("interleaved with b^3 < L waits between rounds", "[scenario][cycles]") {
  // L = 9 > b^3 = 8: each of the 6 rounds of 8 fma starts 9 cycles after the previous one,
  // leaving one stalled cycle between rounds; last issue at 5 x 9 + 7 = 52, usable at 61.
  const auto t = timing_of("run --N 2 --P 1 --direction forward --fma_latency 9");
  CHECK(t["total_cycles"] == 61);
  CHECK(t["node_cycles"]["dependency"] == 5);
}

TEST_CASE("chained issues one reduction chain at a time and stalls on every link of it", "[scenario][cycles]") {
  // N = b = 2, P = 1, L = 4: 3 steps x 8 chains of 2 dependent fma; a chain takes L + 1 cycles
  // and the next starts right after, so the last issue is at 24 x 5 - 1 = 119, usable at 123.
  const auto t = timing_of("run --N 2 --P 1 --direction forward --fma_latency 4 --micro_schedule chained");
  CHECK(t["total_cycles"] == 123);
  CHECK(t["node_cycles"]["busy"] == 48);
  CHECK(t["node_cycles"]["dependency"] == 123 - 48 - 3);  // the last L - 1 cycles wait for nothing: idle
}

TEST_CASE("after_compute on a torus: each step is compute plus the roll of a b^3 block", "[scenario][cycles]") {
  // N = 4, P = 2, b = 2, L = 4, d = 3, w = 1: compute 16 fma, last usable at 15 + 4 = 19; the
  // 8-word block then leaves on cycles 19..26 and its last word arrives 3 cycles later: a step
  // is 19 + 7 + 3 = 29 cycles, and the forward transform 6 x 29 = 174.
  const auto t = timing_of("run --N 4 --P 2 --direction forward --fma_latency 4 --link_latency 3");
  CHECK(t["total_cycles"] == 174);
  for (const auto& step : t["steps"]) {
    CHECK(step["min_cycles"] == 29);
    CHECK(step["max_cycles"] == 29);
  }
}

TEST_CASE("an APE100-like link (1/8 word per cycle) makes the roll dominate", "[scenario][cycles]") {
  // Same torus, w = 1/8, d = 1: the 8-word block takes 7 x 8 = 56 cycles to leave after the
  // first word, then 1 cycle to arrive: a step is 19 + 56 + 1 = 76 cycles, the transform 456.
  const auto t = timing_of("run --N 4 --P 2 --direction forward --fma_latency 4 --link_words_per_cycle 1/8");
  CHECK(t["total_cycles"] == 456);
}

TEST_CASE("a one-word link buffer stalls the roll on the credit round trip", "[scenario][cycles]") {
  // w = 1, d = 2, one-word buffers: word j of a roll leaves at 2d j after the first, so an
  // 8-word block takes 7 x 4 + 2 = 30 cycles from first word to last arrival; a step is
  // 19 + 30 = 49 cycles and the forward transform 294. The wait shows up as back-pressure.
  const auto t = timing_of("run --N 4 --P 2 --direction forward --fma_latency 4 --link_latency 2 --link_buffer_words 1");
  CHECK(t["total_cycles"] == 294);
  CHECK(t["node_cycles"]["backpressure"].get<std::uint64_t>() > 0);
}

TEST_CASE("fast-forward changes nothing but speed", "[scenario][cycles][fast_forward]") {
  // Every timing figure (cycles, each stall class, per-step times, link traffic) and the
  // result itself must be identical whether nodes skip known cycles or step through them.
  for (const std::string machine :
       {"--N 8 --P 4 --fma_latency 4", "--N 4 --P 2 --fma_latency 16", "--N 6 --P 3 --micro_schedule chained",
        "--N 4 --P 2 --link_words_per_cycle 1/8", "--N 8 --P 2 --link_buffer_words 2 --link_latency 3",
        "--N 4 --P 1 --transform dft --fma_latency 6", "--N 6 --P 3 --transform dft --complex_fma_cost 1",
        // Several fma a cycle: runs whose compute's last fma shares a cycle with the fma before it
        // end before that cycle (the first, third and fourth have such computes; the FFT's last
        // pass, such cycles), and one whose fma all pack three a cycle.
        "--N 8 --P 4 --fma_per_cycle 2 --fma_latency 4", "--N 6 --P 3 --fma_per_cycle 3 --fma_latency 1",
        "--N 8 --P 2 --fma_per_cycle 4 --transform dft --complex_fma_cost 1",
        "--N 6 --P 3 --fma_per_cycle 2 --transform dft --fma_latency 3",
        // Chained, one word's updates in a row: runs placed whole from the kernel's schedule.
        "--N 8 --P 4 --fma_per_cycle 2 --micro_schedule chained --fma_latency 3",
        "--N 6 --P 3 --fma_per_cycle 3 --micro_schedule chained --fma_latency 2",
        "--N 16 --P 2 --algorithm slab_fft --transform dft --local_kernel fft --fma_per_cycle 3"}) {
    TempDir dir;
    nlohmann::json reports[2];
    std::string results[2];
    for (int i = 0; i < 2; ++i) {
      const std::string npy = dir.file(i == 0 ? "on.npy" : "off.npy");
      const CliRun run = run_cli("run " + machine + " --fast_forward " + (i == 0 ? "on" : "off") + " --output " + npy);
      INFO(machine << "\n" << run.output);
      REQUIRE(run.exit_code == 0);
      reports[i] = run.report["timing"];
      // Fast-forward must really have issued fma ahead when on (else this test proves nothing),
      // and none when off.
      if (i == 0) CHECK(reports[i]["fast_forwarded_fma"].get<std::uint64_t>() > 0);
      if (i == 1) CHECK(reports[i]["fast_forwarded_fma"] == 0);
      reports[i].erase("fast_forwarded_fma");
      reports[i].erase("fast_forward_note");
      reports[i].erase("node_activations");
      reports[i].erase("stepping_threads");
      // Wall time and process memory describe the simulator, not the simulated machine.
      for (const char* host : {"simulation_seconds", "node_cycles_per_second", "peak_memory_bytes", "memory"}) reports[i].erase(host);
      std::ifstream in(npy, std::ios::binary);
      results[i].assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    INFO(machine);
    CHECK(reports[0] == reports[1]);
    CHECK(results[0] == results[1]);
  }
}

TEST_CASE("fast-forward runs an orbital step in two activations of a node", "[scenario][cycles][fast_forward]") {
  // Stepping, every node runs at every cycle from 0 to the last (all orbital nodes finish
  // together). Fast-forwarding, a node runs at each compute's first fma (its gate opening) and
  // at its last (which also commits the block's roll from the cycle its result is usable, and
  // enters the next compute), plus at most two more a stage (blocks coming home, loads) and at
  // the end: well under the five a step it took before the roll was committed from the last fma.
  for (const std::string machine : {"--N 16 --P 4 --fma_latency 4", "--N 24 --P 4 --fma_latency 2 --link_latency 3"}) {
    INFO(machine);
    const CliRun off = run_cli("run " + machine + " --direction both --fast_forward off");
    const CliRun on = run_cli("run " + machine + " --direction both --fast_forward on");
    REQUIRE(off.exit_code == 0);
    REQUIRE(on.exit_code == 0);
    const nlohmann::json& t = off.report["timing"];
    const std::uint64_t nodes = 64, steps = t["steps"].size(), stages = t["stages"].size();
    CHECK(t["node_activations"].get<std::uint64_t>() == nodes * (t["total_cycles"].get<std::uint64_t>() + 1));
    CHECK(on.report["timing"]["total_cycles"] == t["total_cycles"]);
    CHECK(on.report["timing"]["node_activations"].get<std::uint64_t>() <= nodes * (2 * steps + 2 * stages));
  }
}

TEST_CASE("docs/parameters.md is what the declarations generate", "[scenario][docs]") {
  TempDir dir;
  const std::string generated = dir.file("parameters.md");
  const int status = std::system((torus_sim_executable() + " params --format markdown > " + generated).c_str());
  REQUIRE(status == 0);
  std::ifstream committed_file(std::string(TORUS_SOURCE_DIR) + "/docs/parameters.md"), generated_file(generated);
  const std::string committed((std::istreambuf_iterator<char>(committed_file)), std::istreambuf_iterator<char>());
  const std::string fresh((std::istreambuf_iterator<char>(generated_file)), std::istreambuf_iterator<char>());
  INFO("regenerate with: build/tools/torus-sim params --format markdown > docs/parameters.md");
  CHECK(committed == fresh);
}
