// Whole runs on shaped tori and tensors with uneven blocks: every transform the shape allows,
// forward and inverse, golden-checked through both timing engines (and the functional one),
// with reports equal figure for figure between the SystemC engine and the event engine.

#include <catch2/catch.hpp>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

struct Case {
  std::string algorithm, n, p;
};

// The figures that describe the simulated machine (not the host or the engine).
nlohmann::json machine_figures(nlohmann::json report) {
  for (const char* key : {"engine", "wall_seconds", "machine"}) report.erase(key);
  for (const char* host : {"simulation_seconds", "node_cycles_per_second", "peak_memory_bytes", "memory", "fast_forwarded_fma",
                           "fast_forward_note", "nodes_timed"})
    report["timing"].erase(host);
  return report;
}

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
  CHECK(machine_figures(systemc.report) == machine_figures(event.report));
  // The paper's count generalised: N1 N2 N3 (N1 + N2 + N3) multiply-adds per transform.
  const auto& n = systemc.report;
  CHECK(n["transforms"][0]["scalar_multiply_adds"] == n["transforms"][0]["expected"]["scalar_multiply_adds"]);
}

void check_cases(const std::vector<Case>& cases, const std::vector<std::string>& transforms) {
  for (const Case& c : cases)
    for (const std::string& transform : transforms)
      for (const std::string direction : {"forward", "inverse"}) check_case(c, transform, direction);
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
  CHECK_THAT(run.output, Catch::Contains("P: 4x2x2 is not allowed with algorithm orbital") &&
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
