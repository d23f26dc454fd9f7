#pragma once
// Rendering of a run report: a short human-readable summary and the full JSON.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sim/run.hpp"

namespace torus {

std::string format_text(const RunReport& report);
nlohmann::json to_json(const RunReport& report);
nlohmann::json to_json(const ErrorReport& error);
nlohmann::json to_json(const TimingReport& timing);
// "max abs error ..., worst error / bound ... PASS": one golden check in a line.
std::string error_text(const ErrorReport& error);

}  // namespace torus
