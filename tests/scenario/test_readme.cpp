// The README's claims that the program can check: exit codes as the program uses them, and a
// speed table that says where and how it was measured.

#include <catch2/catch.hpp>

#include <fstream>
#include <regex>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

std::string readme() {
  std::ifstream in(std::string(TORUS_SOURCE_DIR) + "/README.md");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string section(const std::string& text, const std::string& heading) {
  const std::size_t start = text.find("\n## " + heading + "\n");
  REQUIRE(start != std::string::npos);
  return text.substr(start, text.find("\n## ", start + 1) - start);
}

}  // namespace

TEST_CASE("the README gives a stall the exit code a stall gets", "[scenario][docs]") {
  const CliRun stall = run_program({torus_sim_executable(), "run", "--N", "8", "--P", "2", "--fault", "drop_word",
                                    "--fault_node", "0,0,0", "--fault_link", "+Q"});
  REQUIRE(stall.exit_code == 5);
  const std::string text = readme();
  CHECK_THAT(text, Catch::Contains("| 5 | stalled"));
  // No sentence may give progress lost, stalls or the watchdog another code.
  CHECK_FALSE(std::regex_search(text, std::regex(R"(4 runtime failure[^|]{0,120}(progress|stall|watchdog))")));
}

TEST_CASE("the README's speed table states the machine and the command that measured it", "[scenario][docs]") {
  const std::string speed = section(readme(), "Speed");
  CHECK_THAT(speed, Catch::Contains("Machine: ") && Catch::Contains("Command: `python3 tools/benchmark.py scaling"));
  const std::size_t table = speed.find("| nodes |");
  REQUIRE(table != std::string::npos);
  CHECK(speed.find("Machine: ") < table);
  CHECK(speed.find("Command: ") < table);
}
