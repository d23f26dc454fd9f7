#pragma once
// What holds for the phase_seconds of every run report (sim/phase_times.hpp), checked in place.

#include <catch2/catch.hpp>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace torus {

using PhaseNames = std::set<std::string>;

// The names sim/phase_times.hpp documents, and "other" for the rest of the wall time.
inline const PhaseNames documented_phases = {"memory_check", "input",  "program", "verify",   "elaborate", "simulate", "records",
                                             "values",       "gather", "check",   "teardown", "output",    "other"};

// The phases `report` (its JSON) names, after checking that each one is documented and not
// negative, that their sum is at most wall_seconds and that "other" is the rest of it.
inline PhaseNames checked_phases(const nlohmann::json& report) {
  REQUIRE(report.contains("phase_seconds"));
  const nlohmann::json& phases = report["phase_seconds"];
  PhaseNames names;
  double sum = 0;
  for (const auto& [name, seconds] : phases.items()) {
    INFO(name);
    CHECK(documented_phases.count(name) == 1);
    CHECK(seconds.get<double>() >= 0);
    if (name != "other") sum += seconds.get<double>();
    names.insert(name);
  }
  const double wall = report["wall_seconds"].get<double>();
  CHECK(sum <= wall);
  CHECK(phases["other"].get<double>() >= 0);
  CHECK(sum + phases["other"].get<double>() == Approx(wall).margin(1e-9));
  return names;
}

}  // namespace torus
