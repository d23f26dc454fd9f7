#pragma once
// One matmul run (`base`: "run --task matmul ..." without an engine) through the functional,
// SystemC and event engines: each exits 0 and golden-checks C, the two timing engines' reports
// agree figure for figure and their C bit for bit, and every fma the Program asks for issues.
// Returns the two timed reports (SystemC, event).

#include <array>
#include <string>

#include <catch2/catch.hpp>

#include "tests/cli_runner.hpp"

namespace torus {

inline std::array<nlohmann::json, 2> check_matmul_engines(const std::string& base) {
  const CliRun functional = run_cli(base + " --engine functional");
  INFO(functional.output);
  CHECK(functional.exit_code == 0);
  TempDir dir;
  std::array<nlohmann::json, 2> reports;
  const char* engines[2] = {"systemc", "event --symmetry off"};
  for (std::size_t e = 0; e < 2; ++e) {
    const CliRun timed = run_cli(base + " --engine " + engines[e] + " --output " + dir.file(std::to_string(e) + ".npy"));
    INFO(timed.output);
    REQUIRE(timed.exit_code == 0);
    CHECK(timed.report["passed"] == true);
    CHECK(timed.report["matmul"]["golden"]["within_tolerance"] == true);
    reports[e] = timed.report;
  }
  CHECK(report_machine_figures(reports[0]) == report_machine_figures(reports[1]));
  CHECK(file_bytes(dir.file("0.npy")) == file_bytes(dir.file("1.npy")));
  CHECK(reports[0]["timing"]["fma_issued"] == reports[0]["timing"]["fma_expected"]);
  return reports;
}

}  // namespace torus
