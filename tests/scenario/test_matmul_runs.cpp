// task: matmul as a user runs it: the systolic algorithm on square, rectangular and linear
// arrays with uneven blocks, real and complex, float and double, golden-checked by every
// engine, the SystemC and event engines' reports equal figure for figure and their C bit for
// bit; the counts in the report; the example scenario.

#include <catch2/catch.hpp>

#include <fstream>

#include "tests/scenario/matmul_engines.hpp"

using namespace torus;

TEST_CASE("systolic matmul: every engine golden-checks C, SystemC and event agree figure for figure",
          "[scenario][matmul][event]") {
  for (const std::string run :
       {"--array 2x2 --m 8 --k 8 --n 8", "--array 2x3 --m 7 --k 13 --n 5 --domain complex",
        "--array 4x2 --m 9 --k 10 --n 6 --precision float", "--array 1x4 --m 3 --k 9 --n 8 --domain complex --precision float",
        "--array 4x1 --m 5 --k 7 --n 3 --roll_policy overlapped", "--array 3x5 --m 6 --k 31 --n 10 --link_latency 3 --fma_latency 2",
        "--array 2x3 --m 4 --k 6 --n 3 --link_words_per_cycle 1/2 --message_startup_cycles 5",
        // one-word link buffers: the alignment's dateline keeps the ring rotation from deadlocking
        "--array 3x5 --m 6 --k 31 --n 10 --link_buffer_words 1"}) {
    INFO(run);
    check_matmul_engines("run --task matmul --algorithm systolic " + run);
  }
}

TEST_CASE("systolic matmul: the report's counts and the example scenario", "[scenario][matmul]") {
  const CliRun run = run_cli("run " + std::string(TORUS_SOURCE_DIR) + "/scenarios/matmul-systolic.yaml");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json& m = run.report["matmul"];
  CHECK(m["array"] == nlohmann::json::array({4, 8}));
  CHECK(m["compute_steps"] == 8);
  CHECK(m["shifts"]["a"] == 7);
  CHECK(m["shifts"]["b"] == 3);
  CHECK(m["shift_words"]["a_per_node"] == m["shift_words"]["paper_a_per_node"]);
  CHECK(m["shift_words"]["b_per_node"] == m["shift_words"]["paper_b_per_node"]);
  CHECK_THAT(run.output, Catch::Contains("shifts per node: A 7 (Nc - 1 = 7), B 3 (Nr - 1 = 3)"));
}

TEST_CASE("task matmul refuses what does not fit, with exit 2", "[scenario][matmul][errors]") {
  const CliRun bad = run_cli("run --task matmul --algorithm systolic --array 4x6 --k 11 --engine event");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("k: 11 is not allowed"));
  const CliRun size = run_cli("run --task matmul --algorithm systolic --m 0");
  CHECK(size.exit_code == 2);
  CHECK_THAT(size.output, Catch::Contains("m:"));
}
