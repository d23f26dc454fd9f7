// Whole runs on shaped tori and tensors with uneven blocks: every transform the shape allows,
// forward and inverse, golden-checked through both timing engines (and the functional one),
// with reports equal figure for figure between the SystemC engine and the event engine.

#include <catch2/catch.hpp>

#include <fstream>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

struct Case {
  std::string algorithm, n, p;
};

// One case, one transform, one direction: golden-checked by every engine, the two timing
// engines' reports equal.
void check_case(const Case& c, const std::string& transform, const std::string& direction) {
  const std::string run = "run --algorithm " + c.algorithm + " --N " + c.n + " --P " + c.p + " --transform " + transform +
                          " --direction " + direction + " --fma_latency 2 --link_latency 2";
  INFO(run);
  const CliRun functional = run_cli(run + " --engine functional");
  INFO(functional.output);
  REQUIRE(functional.exit_code == 0);
  const CliRun systemc = run_cli(run + " --engine systemc");
  INFO(systemc.output);
  REQUIRE(systemc.exit_code == 0);
  CHECK(systemc.report["passed"] == true);
  const CliRun event = run_cli(run + " --engine event --symmetry off");
  INFO(event.output);
  REQUIRE(event.exit_code == 0);
  CHECK(report_machine_figures(systemc.report) == report_machine_figures(event.report));
  // The paper's count generalised: N1 N2 N3 (N1 + N2 + N3) multiply-adds per transform.
  const auto& n = systemc.report;
  CHECK(n["transforms"][0]["scalar_multiply_adds"] == n["transforms"][0]["expected"]["scalar_multiply_adds"]);
}

void check_cases(const std::vector<Case>& cases, const std::vector<std::string>& transforms) {
  for (const Case& c : cases)
    for (const std::string& transform : transforms)
      for (const std::string direction : {"forward", "inverse", "both"}) check_case(c, transform, direction);
}

}  // namespace

TEST_CASE("orbital with uneven blocks on a cube: every transform, both engines equal and golden-checked",
          "[scenario][shapes][orbital]") {
  check_cases({{"orbital", "10", "4"}, {"orbital", "7x9x11", "3"}, {"orbital", "5x4x6", "2"}},
              {"dct", "dft", "dst", "dht", "identity"});
}

TEST_CASE("orbital on 2x2x2 blocks of N = 8x4x16 (even, not cubic), and the WHT on powers of two", "[scenario][shapes][orbital]") {
  check_cases({{"orbital", "8x4x16", "2"}, {"orbital", "16x4x8", "4"}}, {"wht", "dct,dft,dht"});
}

TEST_CASE("orbital refuses a torus that is not a cube, naming P, the value and the way out", "[scenario][shapes][errors]") {
  const CliRun run = run_cli("run --N 8 --P 4x2x2");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("P: 4x2x2 is not allowed with algorithm orbital") && Catch::Contains("orbital_local_coefficients") &&
                             Catch::Contains("cubic torus") && Catch::Contains("allowed: a cube"));
}

TEST_CASE("a round trip with uneven blocks writes the canonical N1 x N2 x N3 result and reads it back", "[scenario][shapes]") {
  TempDir dir;
  const CliRun forward = run_cli("run --N 7x9x11 --P 3 --direction forward --transform dct --output " + dir.file("y.npy"));
  REQUIRE(forward.exit_code == 0);
  CHECK(forward.report["N"] == "7x9x11");
  CHECK(forward.report["b"] == "2-3x3x3-4");
  const CliRun inverse = run_cli("run --N 7x9x11 --P 3 --direction inverse --transform dct --input " + dir.file("y.npy") +
                                 " --output " + dir.file("x.npy"));
  INFO(inverse.output);
  CHECK(inverse.exit_code == 0);
  const CliRun wrong = run_cli("run --N 9x7x11 --P 3 --direction inverse --transform dct --input " + dir.file("y.npy"));
  CHECK(wrong.exit_code == 2);
  CHECK_THAT(wrong.output, Catch::Contains("is not 9 x 7 x 11") && Catch::Contains("7 x 9 x 11"));
}

TEST_CASE("uneven blocks time every node: no translation quotient, as the report says", "[scenario][shapes][symmetry]") {
  const CliRun run = run_cli("run --N 10 --P 4 --engine event --values off");
  REQUIRE(run.exit_code == 0);
  CHECK(run.report["timing"]["nodes_timed"] == 64);
  const CliRun even = run_cli("run --N 8 --P 4 --engine event --values off");
  REQUIRE(even.exit_code == 0);
  CHECK(even.report["timing"]["nodes_timed"] == 1);
}

// The local-coefficient variant on the shapes: every transform, forward, inverse and both.
TEST_CASE("local coefficients on 2x3x4 (and the WHT on 2x4x4)", "[scenario][shapes][local]") {
  check_cases({{"orbital_local_coefficients", "8x9x8", "2x3x4"}}, {"dct", "dft", "dst", "dht", "identity"});
  check_cases({{"orbital_local_coefficients", "4x8x8", "2x4x4"}}, {"wht"});
}

TEST_CASE("local coefficients on 4x2x1", "[scenario][shapes][local]") {
  check_cases({{"orbital_local_coefficients", "8", "4x2x1"}}, {"dct", "dft", "dst", "dht", "wht", "identity"});
}

TEST_CASE("local coefficients on 3x3x5", "[scenario][shapes][local]") {
  check_cases({{"orbital_local_coefficients", "6x6x10", "3x3x5"}}, {"dct", "dft", "dst", "dht", "identity"});
}

TEST_CASE("local coefficients with uneven blocks: N = 10 on 4x3x2 and N = 7x9x11 on 2x2x3", "[scenario][shapes][local]") {
  check_cases({{"orbital_local_coefficients", "10", "4x3x2"}, {"orbital_local_coefficients", "7x9x11", "2x2x3"}},
              {"dct", "dft", "dst", "dht", "identity"});
}

TEST_CASE("local coefficients on one node and on cubes, where orbital runs too", "[scenario][shapes][local]") {
  check_cases({{"orbital_local_coefficients", "5", "1"}, {"orbital_local_coefficients", "8", "2"}}, {"dct,dft,dht"});
}

TEST_CASE("local coefficients: the report gives memory per node and words per step next to orbital's",
          "[scenario][shapes][local]") {
  const CliRun run = run_cli("run --algorithm orbital_local_coefficients --N 16 --P 4 --transform dct --direction forward");
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Catch::Contains("memory per node: 496 words (3968 bytes) + coefficient tables of 64 values "
                                         "(dct table 64 (N = 16)) = 4480 bytes; the orbital schedule (seed 000) at these "
                                         "blocks: 512 words = 4096 bytes"));
  CHECK_THAT(run.output, Catch::Contains("words moved per node per step: one data block, at most 64; the orbital schedule "
                                         "at these blocks: 80 (b^3+b^2) and 128 (2b^3)"));
  CHECK(run.report["coefficient_tables"]["values"] == 64);
  CHECK(run.report["transforms"][0]["words_moved_per_node_step"] == nlohmann::json::array({64, 64, 64}));
}

TEST_CASE("local coefficients: one node timed for the torus gives every figure of timing each node",
          "[scenario][shapes][local][symmetry]") {
  const std::string run = "run --algorithm orbital_local_coefficients --N 12x8x6 --P 3x2x3 --transform dft --engine event --values off";
  const CliRun one = run_cli(run);
  const CliRun every = run_cli(run + " --symmetry off");
  REQUIRE(one.exit_code == 0);
  REQUIRE(every.exit_code == 0);
  CHECK(one.report["timing"]["nodes_timed"] == 1);
  CHECK(every.report["timing"]["nodes_timed"] == 18);
  nlohmann::json a = report_machine_figures(one.report), b = report_machine_figures(every.report);
  for (auto* r : {&a, &b})
    for (auto& t : (*r)["transforms"]) t.erase("verified");
  CHECK(a == b);
}

// A mesh axis: rolls across its edge go the long way round (P_a - 1 hops through the routers).
// The SystemC engine routes them; the event engine does not route yet and refuses, naming
// systemc. TODO(event engine routes): once it does, these runs must agree figure for figure,
// which the test then checks.
static void check_mesh(const std::string& run) {
  INFO(run);
  const CliRun systemc = run_cli(run + " --engine systemc");
  INFO(systemc.output);
  REQUIRE(systemc.exit_code == 0);
  CHECK(systemc.report["passed"] == true);
  const CliRun event = run_cli(run + " --engine event --symmetry off");
  if (event.exit_code == 0) {
    CHECK(report_machine_figures(systemc.report) == report_machine_figures(event.report));
  } else {
    CHECK(event.exit_code == 2);
    CHECK_THAT(event.output, Catch::Contains("one hop only") && Catch::Contains("use engine systemc"));
  }
}

TEST_CASE("mesh axes: both algorithms golden-checked, the report counts hops per message", "[scenario][shapes][mesh]") {
  check_mesh("run --algorithm orbital_local_coefficients --N 8 --P 4x2x3 --boundary mesh --transform dct,dft,dht");
  check_mesh("run --algorithm orbital_local_coefficients --N 10 --P 4x3x2 --boundary torus,mesh,mesh --transform dft");
  check_mesh("run --N 8 --P 4 --boundary mesh,torus,mesh --transform dht --direction both");
  const CliRun run = run_cli("run --algorithm orbital_local_coefficients --N 8 --P 4x2x2 --boundary mesh,torus,torus "
                             "--direction forward --engine systemc");
  REQUIRE(run.exit_code == 0);
  CHECK(run.report["boundary"] == "mesh,torus,torus");
  const auto& expected = run.report["transforms"][0]["expected"];
  // Stage II rolls along Q: of the 4 nodes of each Q ring, the one at the edge sends 3 hops,
  // the others 1; stages I and III roll along the wrapping axes, one hop each.
  CHECK(expected["max_hops_per_message"] == 3);
  CHECK(expected["messages"] == 16 * (2 + 4 + 2));
  CHECK(expected["hops"] == 16 * 2 + (12 * 1 + 4 * 3) * 4 + 16 * 2);
  CHECK_THAT(run.output, Catch::Contains("messages 128, hops 160 (per message 1 to 3)") &&
                             Catch::Contains("P=4x2x2 (mesh,torus,torus)"));
  const CliRun torus = run_cli("run --algorithm orbital_local_coefficients --N 8 --P 4x2x2 --direction forward --engine systemc");
  REQUIRE(torus.exit_code == 0);
  CHECK(torus.report["transforms"][0]["expected"]["hops"] == 128);
  // The long way round costs time: each Q-ring's roll waits for its slowest message.
  CHECK(run.report["timing"]["total_cycles"] > torus.report["timing"]["total_cycles"]);
}

TEST_CASE("process_grid balanced: nodes gives the torus as MPI_Dims_create would", "[scenario][shapes][process_grid]") {
  const CliRun run = run_cli("run --algorithm orbital_local_coefficients --process_grid balanced --nodes 12 --N 7 "
                             "--engine event --transform dct");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.report["P"] == "3x2x2");
  CHECK(run.report["nodes"] == 12);
  CHECK(run.report["passed"] == true);
  const CliRun missing = run_cli("run --process_grid balanced");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("nodes: 0 is not allowed with process_grid: balanced"));
  const CliRun bad = run_cli("run --boundary ring");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("boundary: 'ring' is not allowed; allowed: torus, mesh"));
}

TEST_CASE("torus-sim report renders a shaped run's report", "[scenario][shapes][report]") {
  TempDir dir;
  const CliRun run = run_program({torus_sim_executable(), "run", "--algorithm", "orbital_local_coefficients", "--N", "10", "--P",
                                  "4x3x2", "--engine", "event", "--report_json", dir.file("run.json")});
  REQUIRE(run.exit_code == 0);
  const CliRun report = run_program({torus_sim_executable(), "report", dir.file("run.json"), "--out", dir.file("out")});
  INFO(report.output);
  CHECK(report.exit_code == 0);
  std::ifstream md(dir.file("out") + "/report.md");
  CHECK(md.good());
}
