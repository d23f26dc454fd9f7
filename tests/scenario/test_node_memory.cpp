// node_memory_bytes: a run whose fullest node needs more memory than the machine's nodes have is
// reported as "does not fit", with the figures, and not simulated; one that needs exactly the
// capacity runs. Sweep tables mark such points.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/wait.h>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

// Orbital, N = 4 on 2 x 2 x 2 (b = 2), real double: seed 000's four tensor blocks and three
// coefficient blocks (4 b^3 + 3 b^2 = 44 words), plus a second buffer for each of the three
// tensor blocks that roll and for the rolling C3 block (3 b^3 + b^2 = 28): 72 words of 8 bytes.
constexpr std::uint64_t orbital_n4_p2_bytes = 72 * 8;
const std::string orbital_n4_p2 = "run --N 4 --P 2 --transform dct --direction forward";

}  // namespace

TEST_CASE("node_memory_bytes: the byte boundary decides, in every engine", "[scenario][node_memory]") {
  for (const std::string engine : {"systemc", "event", "functional"}) {
    INFO(engine);
    const CliRun fits = run_cli(orbital_n4_p2 + " --engine " + engine + " --node_memory_bytes " + std::to_string(orbital_n4_p2_bytes));
    INFO(fits.output);
    REQUIRE(fits.exit_code == 0);
    CHECK(fits.report["fits"] == true);
    CHECK(fits.report["passed"] == true);
    CHECK(fits.report["node_memory"]["required_bytes"] == orbital_n4_p2_bytes);
    CHECK(fits.report["node_memory"]["capacity_bytes"] == orbital_n4_p2_bytes);
    CHECK(fits.report["transforms"][0]["golden"]["within_tolerance"] == true);

    const CliRun over = run_cli(orbital_n4_p2 + " --engine " + engine + " --node_memory_bytes " + std::to_string(orbital_n4_p2_bytes - 1));
    INFO(over.output);
    REQUIRE(over.exit_code == 0);  // an answer about the machine, not an error
    CHECK(over.report["fits"] == false);
    CHECK(over.report["passed"].is_null());
    CHECK(over.report["node_memory"]["required_bytes"] == orbital_n4_p2_bytes);
    CHECK(over.report["transforms"].empty());
    CHECK_FALSE(over.report.contains("timing"));
    CHECK(over.output.find("DOES NOT FIT in node_memory_bytes = 575 (1 bytes over); not simulated") != std::string::npos);
    CHECK(over.output.find("result: DOES NOT FIT: not simulated") != std::string::npos);
    CHECK(over.output.find("result: PASS") == std::string::npos);  // one verdict, not two
  }
}

TEST_CASE("node memory counts the word size and the local-coefficient tables", "[scenario][node_memory]") {
  // The same buffers at single precision: half the bytes.
  const CliRun single = run_cli(orbital_n4_p2 + " --engine event --precision float");
  REQUIRE(single.exit_code == 0);
  CHECK(single.report["node_memory"]["required_bytes"] == orbital_n4_p2_bytes / 2);
  CHECK(single.report["node_memory"]["capacity_bytes"] == 0);  // not limited by default
  // Complex data: two reals per word.
  const CliRun complex = run_cli("run --N 4 --P 2 --transform dft --direction forward --engine event");
  REQUIRE(complex.exit_code == 0);
  CHECK(complex.report["node_memory"]["required_bytes"] == orbital_n4_p2_bytes * 2);
  // The local-coefficient variant adds its DCT table of 4N reals to its buffers.
  const CliRun local = run_cli("run --algorithm orbital_local_coefficients --N 4 --P 2 --transform dct --direction forward "
                               "--engine event --precision float");
  REQUIRE(local.exit_code == 0);
  const auto& m = local.report["node_memory"];
  CHECK(m["table_values"] == 4 * 4);
  CHECK(m["required_bytes"] == m["buffer_words"].get<std::uint64_t>() * 4 + 16 * 4);
  CHECK(m["buffer_words"] == local.report["transforms"][0]["words_held_per_node"]);
}

TEST_CASE("a sweep marks the points that do not fit", "[scenario][node_memory][sweep]") {
  TempDir dir;
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << "N: 4\nP: 2\ntransform: dct\ndirection: forward\nengine: event\nsweep:\n  node_memory_bytes: ["
                          << orbital_n4_p2_bytes - 1 << ", " << orbital_n4_p2_bytes << "]\n";
  const std::string command = torus_sim_executable() + " sweep " + scenario + " --out " + dir.file("out") + " > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::ifstream rows(dir.file("out") + "/results.jsonl");
  std::vector<nlohmann::json> table;
  for (std::string line; std::getline(rows, line);) table.push_back(nlohmann::json::parse(line));
  REQUIRE(table.size() == 2);
  CHECK(table[0]["status"] == "does not fit");
  CHECK(table[0]["total_cycles"].is_null());
  CHECK(table[0]["node_memory_required_bytes"] == orbital_n4_p2_bytes);
  CHECK(table[0]["node_memory_bytes"] == std::to_string(orbital_n4_p2_bytes - 1));  // the capacity swept
  CHECK(table[1]["status"] == "ok");
  CHECK(table[1]["total_cycles"].is_number());
}

TEST_CASE("report renders a strong-scaling study: seconds and speed-up, cells that do not fit marked",
          "[scenario][node_memory][report]") {
  TempDir dir;
  const std::string scenario = dir.file("s.yaml");
  // N = 12 on one node holds X, X', X'', Y (4 x 12^3 words) and three 12 x 12 coefficient
  // blocks, 7344 words of 8 bytes, plus the DCT table of 48: 59,136 bytes, over the 50,000.
  std::ofstream(scenario) << "algorithm: orbital_local_coefficients\nengine: event\nvalues: \"off\"\ntransform: dct\n"
                             "direction: forward\nprocess_grid: balanced\nnode_memory_bytes: 50000\nsweep_blocks: any\n"
                             "sweep:\n  N: [8, 12]\n  nodes: [1, 2, 4]\n";
  const std::string out = dir.file("out");
  const std::string sweep = torus_sim_executable() + " sweep " + scenario + " --out " + out + " > /dev/null 2>&1";
  REQUIRE(std::system(sweep.c_str()) == 0);
  const std::string report = torus_sim_executable() + " report " + out + " > /dev/null 2>&1";
  REQUIRE(std::system(report.c_str()) == 0);
  std::ifstream in(out + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(md, Catch::Contains("1 do not fit in the nodes' memory (not simulated)"));
  CHECK_THAT(md, Catch::Contains("| N \\ nodes | 1 | 2 | 4 |"));
  CHECK_THAT(md, Catch::Contains("| 12 | does not fit | "));
  CHECK_THAT(md, Catch::Contains("| 8 | 1 | "));   // T1 / T1
  CHECK_THAT(md, Catch::Contains("| 12 |  | 2* | "));  // from two nodes: 2 T2 / T2
  CHECK(std::filesystem::is_regular_file(out + "/plots/scaling-0.png"));
}
