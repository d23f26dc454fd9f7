// The matmul studies beside the shape study. The hyper-systolic one
// (scenarios/studies/hypersystolic.yaml) plans the systolic ring and the hyper-systolic
// algorithm on both mappings for p = 4 .. 128 at six machine points, and a small variant of it
// (its parameters, a shorter sweep) runs golden-checked and renders the ring table with the
// gains. The orbital-stage one (scenarios/studies/orbital-stage.yaml) runs whole, next to the
// orbital transform whose stage it restates as a product.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

const std::string hypersystolic_study = std::string(TORUS_SOURCE_DIR) + "/scenarios/studies/hypersystolic.yaml";
const std::string stage_study = std::string(TORUS_SOURCE_DIR) + "/scenarios/studies/orbital-stage.yaml";

}  // namespace

TEST_CASE("the hyper-systolic study plans two algorithms, two mappings, four node counts at six machine points",
          "[scenario][sweep][matmul]") {
  TempDir dir;
  CHECK(run_cli_to("sweep " + hypersystolic_study + " --dry-run", dir.file("plan.txt")) == 0);
  const std::string plan = file_bytes(dir.file("plan.txt"));
  INFO(plan);
  // 3 start-ups x 2 link rates x 4 arrays x 2 algorithms x 2 mappings.
  CHECK_THAT(plan, Catch::Contains("96 points to run") &&
                       Catch::Contains("message_startup_cycles=400 link_words_per_cycle=1/8 array=8x16 algorithm=hypersystolic "
                                       "hypersystolic_mapping=plane"));
}

TEST_CASE("a small variant of the hyper-systolic study runs golden-checked and the report renders the gains",
          "[scenario][sweep][matmul]") {
  TempDir dir;
  // The study's own parameters with a shorter sweep: p = 4 and 16, start-up 400.
  const std::string text = file_bytes(hypersystolic_study);
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << text.substr(0, text.find("sweep:"))
                          << "sweep:\n  array: [2x2, 4x4]\n"
                             "  algorithm: [systolic_ring, hypersystolic]\n  hypersystolic_mapping: [ring, plane]\n";
  const int code = run_cli_to("sweep " + scenario + " -j 2 -p m=4 -p message_startup_cycles=400 --out " + dir.file("out"), dir.file("sweep.log"));
  INFO(file_bytes(dir.file("sweep.log")));
  REQUIRE(code == 0);
  std::map<std::string, long> cycles;  // "algorithm mapping array"
  std::ifstream rows(dir.file("out") + "/results.jsonl");
  for (std::string line; std::getline(rows, line);) {
    const nlohmann::json row = nlohmann::json::parse(line);
    INFO(line);
    CHECK(row["status"] == "ok");
    CHECK(row["passed"] == true);
    CHECK(row["max_rel_error"].is_number());
    cycles[row["algorithm"].get<std::string>() + " " + row["hypersystolic_mapping"].get<std::string>() + " " +
           row["array"].get<std::string>()] = row["total_cycles"].get<long>();
  }
  REQUIRE(cycles.size() == 8);
  for (const std::string array : {"2x2", "4x4"}) {
    INFO(array);
    // systolic_ring reads no mapping: one run, whatever the mapping says.
    CHECK(cycles["systolic_ring ring " + array] == cycles["systolic_ring plane " + array]);
  }
  // p = 16 with 400-cycle start-ups: 7 shift operations against 15 on the plane, 8 start-ups fewer
  // on the critical path; the phases overlap a little, so more than 7 of them show.
  CHECK(cycles["systolic_ring ring 4x4"] - cycles["hypersystolic plane 4x4"] > 7 * 400);
  REQUIRE(run_cli_to("report " + dir.file("out"), dir.file("report.log")) == 0);
  const std::string md = file_bytes(dir.file("out") + "/report.md");
  INFO(md);
  const std::string ring = std::to_string(cycles["systolic_ring ring 4x4"]);
  CHECK_THAT(md, Catch::Contains("## Hyper-systolic against the systolic ring (task matmul)") &&
                     Catch::Contains("| algorithm | p = 4 (2x2) | p = 16 (4x4) |") &&
                     Catch::Contains("| systolic_ring | " + std::to_string(cycles["systolic_ring ring 2x2"]) + " | " + ring + " |") &&
                     Catch::Contains("| gain on plane | ") && Catch::Contains("| gain on ring | "));
  CHECK_FALSE(Catch::Contains("## Array shape").match(md));  // the ring algorithms have no shape table
  CHECK(std::filesystem::file_size(dir.file("out") + "/plots/matmul-ring-gain.png") > 10000);
}

TEST_CASE("one orbital stage (N = 16, 64 nodes) against the 256 x 16 x 16 product on 64 nodes: auto takes A stationary",
          "[scenario][sweep][matmul]") {
  TempDir dir;
  // The refused points (C and B stationary on 32x2 and 64x1: k = 16 is below lcm(Nr, Nc) or Nr)
  // make the sweep exit 2, an input problem.
  CHECK(run_cli_to("sweep " + stage_study + " -j 2 --out " + dir.file("out"), dir.file("sweep.log")) == 2);
  std::map<std::string, long> cycles;  // "algorithm array", the points that ran
  std::map<std::string, std::string> chosen;
  std::ifstream rows(dir.file("out") + "/results.jsonl");
  for (std::string line; std::getline(rows, line);) {
    const nlohmann::json row = nlohmann::json::parse(line);
    if (row["status"] != "ok") continue;
    INFO(line);
    CHECK(row["passed"] == true);
    const std::string at = row["algorithm"].get<std::string>() + " " + row["array"].get<std::string>();
    cycles[at] = row["total_cycles"].get<long>();
    chosen[at] = row["matmul_algorithm"].get<std::string>();
  }
  CHECK(cycles.size() == 16);  // 20 points, 4 refused
  for (const std::string array : {"4x16", "8x8", "16x4", "32x2", "64x1"}) {
    INFO(array);
    CHECK(chosen["auto " + array] == "a_stationary");  // m / n = 16 >= 8
    CHECK(cycles["auto " + array] == cycles["a_stationary " + array]);
  }
  // A stationary on the array of C's shape (Nr / Nc = m / n = 16) is the fastest of all.
  const auto fastest = std::min_element(cycles.begin(), cycles.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  CHECK(fastest->second == cycles["a_stationary 32x2"]);
  // The orbital transform's stages on the same 64 nodes and machine, each the same product.
  REQUIRE(run_cli_to("run --N 16 --P 4 --direction forward --engine event --report_json " + dir.file("orbital.json"), dir.file("run.log")) == 0);
  std::ifstream orbital_file(dir.file("orbital.json"));
  const nlohmann::json stages = nlohmann::json::parse(orbital_file)["timing"]["stages"];
  REQUIRE(stages.size() == 3);
  const long stage = stages[2]["cycles"].get<long>();
  CHECK(stages[0]["cycles"] == stage);
  // The README's comparison: the best array beats one orbital stage, the square array does not.
  CHECK(fastest->second < stage);
  CHECK(cycles["a_stationary 8x8"] > stage);
  CHECK(cycles["systolic 8x8"] > stage);
}
