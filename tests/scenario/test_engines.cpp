// The two timing engines as a user meets them: the event engine computes the same result bits
// as the SystemC engine, both time a run without values when asked and say so plainly, and
// what the event engine cannot do exactly is refused with the engine that can.

#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "tests/cli_runner.hpp"

using namespace torus;


TEST_CASE("the event engine's results are bit-identical to the SystemC engine's", "[scenario][event][values]") {
  for (const std::string run :
       {"--N 8 --P 2", "--N 6 --P 3 --transform dft", "--N 6 --P 3 --transform dft --complex_fma_cost 1",
        "--N 8 --P 4 --micro_schedule chained --roll_policy overlapped", "--N 8 --P 2 --precision float --transform dht",
        "--N 4 --P 1 --transform dst --direction inverse"}) {
    INFO(run);
    TempDir dir;
    std::string results[2];
    for (int e = 0; e < 2; ++e) {
      const std::string npy = dir.file(e == 0 ? "systemc.npy" : "event.npy");
      // The event engine's own datapath (every node timed), not the values computed beside one timed node.
      const CliRun done = run_cli("run " + run + " --engine " + (e == 0 ? "systemc" : "event --symmetry off") + " --output " + npy);
      INFO(done.output);
      REQUIRE(done.exit_code == 0);
      results[e] = file_bytes(npy);
    }
    CHECK(!results[0].empty());
    CHECK(results[0] == results[1]);
  }
}

TEST_CASE("values off: the same cycles as values on, and the report says nothing was computed or checked",
          "[scenario][event][values]") {
  for (const std::string engine : {"systemc", "event"}) {
    INFO(engine);
    const CliRun on = run_cli("run --N 8 --P 4 --transform dft --engine " + engine);
    const CliRun off = run_cli("run --N 8 --P 4 --transform dft --values off --engine " + engine);
    INFO(off.output);
    REQUIRE(on.exit_code == 0);
    REQUIRE(off.exit_code == 0);
    CHECK(timing_machine_figures(on.report["timing"]) == timing_machine_figures(off.report["timing"]));
    CHECK(off.report["values"] == "off");
    CHECK(on.report["values"] == "on");
    CHECK(off.report["transforms"][0]["golden"].is_null());
    CHECK_FALSE(off.report.contains("round_trip"));
    CHECK_THAT(off.output, Catch::Contains("golden check: none: values off"));
    CHECK_THAT(off.output, Catch::Contains("counts only: values off, nothing computed or checked"));
  }
}

TEST_CASE("values off refuses what needs values, and engine functional", "[scenario][event][values][errors]") {
  TempDir dir;
  const CliRun output = run_cli("run --N 4 --P 2 --engine event --values off --output " + dir.file("y.npy"));
  CHECK(output.exit_code == 2);
  CHECK_THAT(output.output, Catch::Contains("output:") && Catch::Contains("values: off"));
  const CliRun functional = run_cli("run --N 4 --P 2 --engine functional --values off");
  CHECK(functional.exit_code == 2);
  CHECK_THAT(functional.output, Catch::Contains("values: 'off' is not allowed with engine functional"));
}

TEST_CASE("the event engine refuses faults and waveforms, naming the engine that can", "[scenario][event][errors]") {
  TempDir dir;
  const CliRun fault = run_cli("run --N 4 --P 2 --engine event --fault stuck_node");
  CHECK(fault.exit_code == 2);
  CHECK_THAT(fault.output, Catch::Contains("engine 'event'") && Catch::Contains("engine systemc"));
  const CliRun vcd = run_cli("run --N 4 --P 2 --engine event --vcd_trace " + dir.file("w.vcd"));
  CHECK(vcd.exit_code == 2);
  CHECK_THAT(vcd.output, Catch::Contains("vcd_trace") && Catch::Contains("use engine systemc"));
}

// The machine and problem drawn at random (fixed seed) from the ranges the equality test of
// the two engines covers, on tori small enough to time every node too.
std::string random_run_arguments(std::mt19937& rng) {
  const auto pick = [&rng](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
  };
  const int p = std::uniform_int_distribution<int>(1, 5)(rng), b = std::uniform_int_distribution<int>(1, 3)(rng);
  return "--P " + std::to_string(p) + " --N " + std::to_string(p * b) + " --alpha " +
         pick({"+++", "++-", "+-+", "+--", "-++", "-+-", "--+", "---"}) + " --direction " + pick({"forward", "inverse", "both"}) +
         " --fma_latency " + pick({"1", "3", "8", "16"}) + " --fma_per_cycle " + pick({"1", "2", "4"}) + " --link_latency " +
         pick({"1", "2", "8"}) + " --link_words_per_cycle " + pick({"1", "2", "1/2", "2/3", "1/8", "3/2"}) +
         " --link_buffer_words " + pick({"1", "2", "5", "auto"}) + " --roll_policy " + pick({"after_compute", "overlapped"}) +
         " --micro_schedule " + pick({"interleaved", "chained"}) + " --transform " + pick({"dct", "dft"});
}

TEST_CASE("symmetry: one node timed for the torus gives every figure of timing each node", "[scenario][event][symmetry]") {
  std::mt19937 rng(11);
  for (int i = 0; i < 16; ++i) {
    const std::string run = "run --engine event --values off " + random_run_arguments(rng);
    INFO(run);
    const CliRun one = run_cli(run);
    const CliRun all = run_cli(run + " --symmetry off");
    INFO(one.output);
    REQUIRE(one.exit_code == 0);
    REQUIRE(all.exit_code == 0);
    CHECK(one.report["timing"]["nodes_timed"] == 1);
    CHECK(all.report["timing"]["nodes_timed"] == all.report["nodes"]);
    CHECK(timing_machine_figures(one.report["timing"]) == timing_machine_figures(all.report["timing"]));
    for (std::size_t t = 0; t < one.report["transforms"].size(); ++t) {
      nlohmann::json a = one.report["transforms"][t], b = all.report["transforms"][t];
      CHECK(a["verified"] == "quotient");
      CHECK(b["verified"] == "program");
      a.erase("verified");
      b.erase("verified");
      CHECK(a == b);
    }
    if (one.report["nodes"] > 1) CHECK_THAT(one.output, Catch::Contains("symmetry: 1 node timed, standing for all"));
  }
}

TEST_CASE("symmetry applies to the event engine only, and symmetry off times every node", "[scenario][event][symmetry]") {
  for (const std::string run : {"run --N 8 --P 4 --engine systemc --values off", "run --N 8 --P 4 --engine event --symmetry off",
                                "run --N 8 --P 4 --engine event --values off --symmetry off"}) {
    INFO(run);
    const CliRun done = run_cli(run);
    REQUIRE(done.exit_code == 0);
    CHECK(done.report["timing"]["nodes_timed"] == 64);
  }
  const CliRun one = run_cli("run --N 8 --P 4 --engine event");
  REQUIRE(one.exit_code == 0);
  CHECK(one.report["timing"]["nodes_timed"] == 1);
  // Values on: computed from the quotient on every node, so the whole Program is never built;
  // the algorithm's own proofs still cover the whole schedule, and the golden check every value.
  CHECK(one.report["transforms"][0]["verified"] == "quotient");
  CHECK(one.report["transforms"][0]["schedule_violations"] == 0);
  CHECK(one.report["transforms"][0]["golden"]["within_tolerance"] == true);
}

TEST_CASE("values computed beside one timed node are the SystemC engine's bits, for any number of threads",
          "[scenario][event][symmetry][values]") {
  for (const std::string run : {"--N 12 --P 3 --transform dft", "--N 8 --P 4 --micro_schedule chained --precision float",
                                "--N 6 --P 3 --transform dft --complex_fma_cost 1 --direction both"}) {
    INFO(run);
    TempDir dir;
    const CliRun reference = run_cli("run " + run + " --engine systemc --output " + dir.file("systemc.npy"));
    REQUIRE(reference.exit_code == 0);
    const std::string expected = file_bytes(dir.file("systemc.npy"));
    for (const std::string threads : {"1", "2", "5"}) {
      const std::string npy = dir.file("event" + threads + ".npy");
      const CliRun done = run_cli("run " + run + " --engine event --threads " + threads + " --output " + npy);
      INFO(done.output);
      REQUIRE(done.exit_code == 0);
      CHECK(done.report["timing"]["nodes_timed"] == 1);
      CHECK(file_bytes(npy) == expected);
      CHECK(timing_machine_figures(done.report["timing"]) == timing_machine_figures(reference.report["timing"]));
    }
  }
}

// A run the cross-engine hunt found the event engine failing on while the SystemC engine (the
// reference) finishes it: the event engine must give its report figure for figure, timing every
// node with values (the default form with values on) and without them.
static void check_like_systemc(const std::string& run, int total_cycles) {
  INFO(run);
  const CliRun systemc = run_cli("run " + run + " --engine systemc");
  INFO(systemc.output);
  REQUIRE(systemc.exit_code == 0);
  CHECK(systemc.report["timing"]["total_cycles"] == total_cycles);
  for (const std::string event : {"event", "event --values off"}) {
    const CliRun done = run_cli("run " + run + " --engine " + event);
    INFO(event << ": " << done.output);
    REQUIRE(done.exit_code == 0);
    if (event == "event") CHECK(report_machine_figures(done.report) == report_machine_figures(systemc.report));
    else CHECK(timing_machine_figures(done.report["timing"]) == timing_machine_figures(systemc.report["timing"]));
  }
}

TEST_CASE("event engine: a block no task reads lands before the compute that replaces its buffer", "[scenario][event][mesh]") {
  // The forward transform's last roll of X' (stage II) lands in a buffer that nothing reads
  // until the inverse's zeroing compute replaces it, steps later. The event engine once walked
  // a node past that compute before the roll's words were timed (their message still waited
  // for a router), then stored the old block over the new one: every node stalled in task 74.
  check_like_systemc("--N 3 --P 3 --boundary torus,torus,mesh", 94);
}

TEST_CASE("event engine: a send posted by a compute still waiting for its words is woken", "[scenario][event][mesh]") {
  // Overlapped rolls let a compute's sends leave while it waits for words. Entering such a
  // compute without issuing an fma once counted as no progress, so its sends were not woken:
  // with uneven blocks on a mesh one asked a router for the link of its next hop only after
  // grants at later cycles were made (the engine's grant-order check, exit 4).
  check_like_systemc("--N 6 --P 4 --alpha +-- --link_buffer_words 2 --roll_policy overlapped --boundary mesh", 296);
}
