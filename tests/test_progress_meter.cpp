// The progress line of long runs: quiet at first, then at most once a second, with the share
// of the estimate and the time left.

#include <catch2/catch.hpp>

#include <vector>

#include "sim/progress_meter.hpp"

using namespace torus;
using std::chrono::milliseconds;

TEST_CASE("progress stays quiet for short runs, then shows cycles, share and ETA once a second", "[progress]") {
  std::vector<std::string> lines;
  const auto t0 = ProgressMeter::Clock::now();
  ProgressMeter meter(1000000, [&](const std::string& line) { lines.push_back(line); }, t0);
  meter.update(100000, t0 + milliseconds(2999));
  CHECK(lines.empty());
  CHECK_FALSE(meter.shown());
  meter.update(250000, t0 + milliseconds(4000));
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "simulated 250000 cycles of about 1000000 (25.0%), 4 s elapsed, ETA 12 s");
  meter.update(260000, t0 + milliseconds(4999));
  CHECK(lines.size() == 1);  // less than a second later
  meter.update(500000, t0 + milliseconds(5000));
  REQUIRE(lines.size() == 2);
  CHECK(lines[1] == "simulated 500000 cycles of about 1000000 (50.0%), 5 s elapsed, ETA 5 s");
  meter.update(1200000, t0 + milliseconds(600000));
  CHECK(lines.back() == "simulated 1200000 cycles, past the estimated 1000000 (analytic model), 10 min elapsed");
}

TEST_CASE("progress without an estimate shows cycles and time only", "[progress]") {
  std::vector<std::string> lines;
  const auto t0 = ProgressMeter::Clock::now();
  ProgressMeter meter(0, [&](const std::string& line) { lines.push_back(line); }, t0);
  meter.update(4096, t0 + std::chrono::hours(3));
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "simulated 4096 cycles, 3.0 h elapsed");
  CHECK(meter.shown());
}
