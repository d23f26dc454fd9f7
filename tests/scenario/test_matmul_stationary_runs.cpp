// a_stationary, b_stationary and auto as a user runs them: square, rectangular and linear
// arrays with uneven blocks, real and complex, float and double, golden-checked by every
// engine, the SystemC and event engines' reports equal figure for figure and their C bit for
// bit; the report names the algorithm auto chose and gives the stationary counts.

#include <catch2/catch.hpp>

#include "tests/scenario/matmul_engines.hpp"

using namespace torus;

TEST_CASE("stationary matmul: every engine golden-checks C, SystemC and event agree figure for figure",
          "[scenario][matmul][event]") {
  for (const char* algorithm : {"a_stationary", "b_stationary"})
    for (const std::string run :
         {"--array 2x2 --m 8 --k 8 --n 8", "--array 2x3 --m 7 --k 13 --n 5 --domain complex",
          "--array 3x2 --m 9 --k 10 --n 6 --precision float", "--array 1x4 --m 3 --k 9 --n 8 --domain complex --precision float",
          "--array 4x1 --m 5 --k 7 --n 3 --roll_policy overlapped", "--array 2x4 --m 8 --k 8 --n 8 --link_latency 3 --fma_latency 2",
          "--array 3x3 --m 7 --k 5 --n 4 --link_words_per_cycle 1/2 --message_startup_cycles 5",
          "--array 3x5 --m 6 --k 31 --n 10 --link_buffer_words 1", "--array 4x4 --m 17 --k 9 --n 13 --fma_per_cycle 16"}) {
      INFO(algorithm << " " << run);
      check_matmul_engines("run --task matmul --algorithm " + std::string(algorithm) + " " + run);
    }
}

TEST_CASE("stationary matmul, uneven blocks on two-dimensional arrays with overlapped rolls: no read past a buffer, "
          "SystemC and event agree figure for figure", "[scenario][matmul][event][overlapped]") {
  // The spreads are posted a step ahead, after the compute that read the buffer's previous
  // block; its first-use order, of another size, once sent words past the block (both engines
  // read out of bounds: LinkPorts::released, BufferTimes::generation_at) until it was refused.
  // Each spread now leaves in the order its own reader takes it (docs/timing-model.md).
  for (const char* algorithm : {"a_stationary", "b_stationary"})
    for (const std::string run :
         {"--array 3x3", "--array 2x3", "--array 3x2", "--array 2x4 --m 5 --k 5 --n 10", "--array 4x2 --m 10 --k 5 --n 5",
          "--array 3x3 --m 7 --k 5 --n 4 --link_buffer_words 1", "--array 2x3 --m 7 --k 13 --n 5 --link_buffer_words 1",
          "--array 3x4 --m 10 --k 11 --n 7 --link_buffer_words 3 --domain complex",
          "--array 4x3 --m 9 --k 13 --n 11 --link_buffer_words 64 --micro_schedule chained",
          "--array 3x5 --m 6 --k 31 --n 10 --link_latency 3 --fma_latency 4 --complex_fma_cost 4 --domain complex"}) {
      INFO(algorithm << " " << run);
      check_matmul_engines("run --task matmul --algorithm " + std::string(algorithm) + " --roll_policy overlapped " + run);
    }
}

TEST_CASE("auto matmul: the report names the chosen algorithm and its counts", "[scenario][matmul]") {
  const CliRun tall = run_cli("run --task matmul --algorithm auto --array 4x2 --m 64 --k 8 --n 8 --engine event");
  INFO(tall.output);
  REQUIRE(tall.exit_code == 0);
  CHECK(tall.report["algorithm"] == "auto");
  CHECK(tall.report["matmul"]["chosen_algorithm"] == "a_stationary");
  CHECK(tall.report["matmul"]["golden"]["within_tolerance"] == true);
  const nlohmann::json& s = tall.report["matmul"]["stationary"];
  CHECK(s["operand"] == "A");
  CHECK(s["reduction_shifts"] == 1);  // Nc - 1
  // B(c, f) is 4 x 4, 2 blocks per column of 4 nodes: the nodes before neither home pass on
  // both (Nc - floor(Nc / Nr) = 2), 32 words; the paper's k n (Nr - 1) / N = 24 assumes every
  // processor row holds a share of B, which 2 blocks on 4 rows cannot.
  CHECK(s["spread_sends_per_node"] == 2);
  CHECK(s["spread_words_per_node"] == 32);
  CHECK(s["paper_spread_words_per_node"] == 24.0);
  CHECK(s["reduction_words_per_node"] == 16 * 4);  // C(l, f): 16 x 4, once
  CHECK(s["paper_reduction_words_per_node"] == 64.0);
  const CliRun wide = run_cli("run --task matmul --algorithm auto --array 2x2 --m 4 --k 8 --n 64 --engine event");
  INFO(wide.output);
  REQUIRE(wide.exit_code == 0);
  CHECK_THAT(wide.output, Catch::Contains("algorithm auto (chose b_stationary)"));
  CHECK_THAT(wide.output, Catch::Contains("reduction of C round the columns: 1 shifts per node (Nr - 1 = 1)"));
  const CliRun square = run_cli("run --task matmul --algorithm auto --array 2x2 --m 8 --k 8 --n 8 --engine event");
  REQUIRE(square.exit_code == 0);
  CHECK(square.report["matmul"]["chosen_algorithm"] == "systolic");
  CHECK(square.report["matmul"]["phases"]["products"] > 0);
}

TEST_CASE("stationary matmul refuses what does not fit, with exit 2", "[scenario][matmul][errors]") {
  const CliRun bad = run_cli("run --task matmul --algorithm a_stationary --array 2x6 --k 5 --engine event");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("k: 5 is not allowed with array 2x6 and algorithm a_stationary"));
}

TEST_CASE("the stationary example scenario: auto takes A stationary, the paper's words per node", "[scenario][matmul]") {
  const CliRun run = run_cli("run " + std::string(TORUS_SOURCE_DIR) + "/scenarios/matmul-stationary.yaml");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json& m = run.report["matmul"];
  CHECK(m["chosen_algorithm"] == "a_stationary");
  CHECK(m["compute_steps"] == 8);
  CHECK(m["stationary"]["reduction_shifts"] == 7);
  CHECK(m["stationary"]["spread_words_per_node"] == 32);
  CHECK(m["stationary"]["paper_spread_words_per_node"] == 32.0);
  CHECK(m["stationary"]["reduction_words_per_node"] == 896);
  CHECK(m["stationary"]["paper_reduction_words_per_node"] == 896.0);
  CHECK(m["golden"]["within_tolerance"] == true);
}

TEST_CASE("report renders one matmul run's JSON: its point with the algorithm auto chose", "[scenario][matmul][report]") {
  TempDir dir;
  const std::string json = dir.file("run.json");
  const std::string run = torus_sim_executable() + " run --task matmul --algorithm auto --array 2x2 --m 32 --k 8 --n 4 "
                          "--engine event --report_json " + json + " > /dev/null 2>&1";
  REQUIRE(std::system(run.c_str()) == 0);
  const std::string report = torus_sim_executable() + " report " + json + " --out " + dir.file("out") + " > /dev/null 2>&1";
  REQUIRE(std::system(report.c_str()) == 0);
  const std::string md = file_bytes(dir.file("out") + "/report.md");
  CHECK_THAT(md, Catch::Contains("| matmul_algorithm |") && Catch::Contains("| 32 | 8 | 4 | 2x2 | auto | a_stationary |"));
  CHECK_THAT(md, !Catch::Contains("Array shape"));  // one array: nothing to compare
}
