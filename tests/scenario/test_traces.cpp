// Waveform and timeline traces agree with the run's own report.

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "tests/cli_runner.hpp"

using namespace torus;

TEST_CASE("the VCD waveform's busy signal adds up to the node's busy cycles", "[scenario][trace][vcd]") {
  TempDir dir;
  const std::string vcd = dir.file("run.vcd");
  const CliRun run = run_cli("run --N 4 --P 2 --direction forward --fma_latency 4 --vcd_trace " + vcd);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  std::ifstream in(vcd);
  REQUIRE(in);
  // Declarations: two signals per node and two per link (six links per node).
  std::string line, scope, busy_id;
  std::size_t variables = 0;
  std::vector<std::string> lines;
  while (std::getline(in, line)) {
    lines.push_back(line);
    std::istringstream words(line);
    std::string token;
    words >> token;
    if (token == "$scope") {
      words >> token >> scope;
    } else if (token == "$var") {
      ++variables;
      std::string type, width, id, name;
      words >> type >> width >> id >> name;
      if (scope == "node_0_0_0" && name == "fma_busy") busy_id = id;
    }
  }
  CHECK(variables == 8 * (2 + 6 * 2));
  REQUIRE_FALSE(busy_id.empty());
  // Integrate fma_busy of node (0,0,0) over time (1 ns per cycle).
  const std::uint64_t total = run.report["timing"]["total_cycles"];
  std::uint64_t now = 0, busy = 0, since = 0;
  bool value = false;
  for (const std::string& l : lines) {
    if (l.size() > 1 && l[0] == '#') {
      now = std::stoull(l.substr(1));
    } else if (l == "1" + busy_id || l == "0" + busy_id) {
      if (value) busy += now - since;
      value = l[0] == '1';
      since = now;
    }
  }
  if (value) busy += total - since;
  const std::uint64_t node_busy = run.report["timing"]["node_cycles"]["busy"].get<std::uint64_t>() / 8;
  CHECK(busy == node_busy);
  CHECK(busy == 6 * 16);  // 3P = 6 steps of b^4 = 16 fma, one per busy cycle
}

TEST_CASE("the Chrome trace has a compute and a roll span per node and step", "[scenario][trace][chrome]") {
  TempDir dir;
  const std::string trace = dir.file("trace.json");
  // N = 4, P = 2, L = 4, d = 1: compute 16 fma, last result at 15 + 4 = 19, then 8 words leave
  // on cycles 19..26; a step is 27 cycles (0.027 us at 1 GHz).
  const CliRun run = run_cli("run --N 4 --P 2 --direction forward --fma_latency 4 --chrome_trace " + trace);
  REQUIRE(run.exit_code == 0);
  std::ifstream in(trace);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::map<std::string, std::size_t> per_kind;
  for (const auto& e : j["traceEvents"]) {
    per_kind[e["ph"].get<std::string>() + ":" + e.value("cat", "")]++;
    if (e["ph"] == "X" && e["tid"] == 0 && e["name"] == "forward II.1 compute") {
      CHECK(e["ts"].get<double>() == Approx(3 * 0.027));  // global step 3 (P = 2 steps per stage)
      CHECK(e["dur"].get<double>() == Approx(0.019));
    }
    if (e["ph"] == "X" && e["tid"] == 0 && e["name"] == "forward II.1 roll")
      CHECK(e["dur"].get<double>() == Approx(0.008));
  }
  CHECK(per_kind["M:"] == 8);          // one named track per node
  CHECK(per_kind["X:compute"] == 8 * 6);
  CHECK(per_kind["X:roll"] == 8 * 6);
}

TEST_CASE("traces refuse tori too large for them and the untimed engine", "[scenario][trace][errors]") {
  CHECK(run_cli("run --N 10 --P 5 --vcd_trace x.vcd").exit_code == 2);
  CHECK_THAT(run_cli("run --N 10 --P 5 --vcd_trace x.vcd").output, Catch::Contains("at most 64"));
  CHECK_THAT(run_cli("run --engine functional --chrome_trace x.json").output, Catch::Contains("need engine: systemc"));
  CHECK_THAT(run_cli("run --vcd_trace x.txt").output, Catch::Contains("must end in .vcd"));
}
