// The ring algorithms (systolic_ring, hypersystolic) as a user runs them: golden-checked by every
// engine on shapes that do not divide evenly, real and complex, float and double, on both
// mappings, the SystemC and event engines' reports equal figure for figure and their C bit for
// bit; one-word link buffers (the dateline and the receives posted ahead keep the ring's
// multi-hop shifts from deadlocking); the shift counts in the report; the example scenario.

#include <catch2/catch.hpp>

#include "tests/scenario/matmul_engines.hpp"

using namespace torus;

TEST_CASE("ring matmul: every engine golden-checks C, SystemC and event agree figure for figure", "[scenario][matmul][event]") {
  for (const std::string run :
       {"--algorithm systolic_ring --array 2x3 --m 5 --k 13 --n 7",
        "--algorithm systolic_ring --array 4x2 --m 3 --k 9 --n 11 --domain complex --precision float",
        "--algorithm hypersystolic --array 2x2 --m 3 --k 7 --n 5 --domain complex",
        "--algorithm hypersystolic --array 4x4 --m 3 --k 19 --n 17 --precision float",
        "--algorithm hypersystolic --array 2x4 --m 5 --k 9 --n 11 --hypersystolic_mapping plane --domain complex",
        "--algorithm hypersystolic --array 3x3 --m 4 --k 10 --n 9 --hypersystolic_mapping plane --link_latency 3",
        "--algorithm hypersystolic --array 2x6 --m 4 --k 13 --n 14 --hypersystolic_k 3 --message_startup_cycles 5",
        // one-word link buffers: multi-hop shifts on the ring, pre-shifts along Q on the plane
        "--algorithm hypersystolic --array 4x4 --m 4 --k 17 --n 18 --link_buffer_words 1",
        "--algorithm hypersystolic --array 4x4 --m 4 --k 17 --n 18 --hypersystolic_mapping plane --link_buffer_words 1"}) {
    INFO(run);
    // fma_expected counts the block products and the back-shift's adds.
    const std::array<nlohmann::json, 2> reports = check_matmul_engines("run --task matmul " + run);
    CHECK(reports[0]["matmul"]["violations"] == 0);
    CHECK(reports[0]["matmul"]["phases"] == reports[1]["matmul"]["phases"]);
  }
}

TEST_CASE("hypersystolic: the report's shift counts and the example scenario", "[scenario][matmul]") {
  const CliRun run = run_cli("run " + std::string(TORUS_SOURCE_DIR) + "/scenarios/matmul-hypersystolic.yaml");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json& m = run.report["matmul"];
  CHECK(m["ring"]["k"] == 4);
  CHECK(m["ring"]["k_tilde"] == 4);
  CHECK(m["ring"]["mapping"] == "plane");
  CHECK(m["shifts"]["alignment"] == 1);
  CHECK(m["shifts"]["a"] == 3);
  CHECK(m["shifts"]["c"] == 3);
  CHECK(m["shifts"]["total"] == 7);
  CHECK(m["ring"]["paper_shifts"] == 7);
  CHECK(m["ring"]["systolic_ring_shifts"] == 15);
  CHECK(m["shifts"]["max_hops"] == 1);
  CHECK(m["block_adds"] == 16 * 3);
  CHECK(m["scalar_adds"] == 3 * 8 * 40);
  CHECK_THAT(run.output, Catch::Contains("T = 7 (K + K~ - 1 = 7; systolic ring p - 1 = 15), plane mapping, longest shift 1 hops"));
  // The ring mapping of the same run: the stride-4 shifts of A are 4 hops each.
  const CliRun ring = run_cli("run " + std::string(TORUS_SOURCE_DIR) + "/scenarios/matmul-hypersystolic.yaml --hypersystolic_mapping ring");
  REQUIRE(ring.exit_code == 0);
  CHECK(ring.report["matmul"]["shifts"]["total"] == 7);
  CHECK(ring.report["matmul"]["shifts"]["max_hops"] == 4);
  const CliRun systolic = run_cli("run " + std::string(TORUS_SOURCE_DIR) + "/scenarios/matmul-hypersystolic.yaml --algorithm systolic_ring");
  REQUIRE(systolic.exit_code == 0);
  CHECK(systolic.report["matmul"]["shifts"]["total"] == 15);
  CHECK(systolic.report["matmul"]["shifts"]["a"] == 15);
}

TEST_CASE("ring matmul refuses what does not fit, with exit 2", "[scenario][matmul][errors]") {
  const CliRun k = run_cli("run --task matmul --algorithm hypersystolic --array 4x4 --m 4 --k 16 --n 16 --hypersystolic_k 3");
  CHECK(k.exit_code == 2);
  CHECK_THAT(k.output, Catch::Contains("hypersystolic_k: 3 is not allowed with array 4x4 (p = 16)"));
  const CliRun plane = run_cli("run --task matmul --algorithm hypersystolic --array 4x2 --m 4 --k 16 --n 16 "
                               "--hypersystolic_mapping plane --hypersystolic_k 2");
  CHECK(plane.exit_code == 2);
  CHECK_THAT(plane.output, Catch::Contains("allowed: 0 or Nr = 4"));
  const CliRun ring = run_cli("run --task matmul --algorithm systolic_ring --array 3x3 --m 4 --k 9 --n 9");
  CHECK(ring.exit_code == 2);
  CHECK_THAT(ring.output, Catch::Contains("array: '3x3' is not allowed with the ring mapping"));
  const CliRun mapping = run_cli("run --task matmul --algorithm hypersystolic --hypersystolic_mapping torus");
  CHECK(mapping.exit_code == 2);
  CHECK_THAT(mapping.output, Catch::Contains("hypersystolic_mapping"));
}
