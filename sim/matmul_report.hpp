#pragma once
// The matmul part of a run report (sim/report.cpp renders the rest): what was multiplied, the
// counts the paper predicts next to the Program's, and the golden check.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sim/run.hpp"

namespace torus {

std::string matmul_title(const RunReport& report);  // the first line's problem part
std::string matmul_text(const RunReport& report);   // program, counts and golden lines
nlohmann::json matmul_json(const RunReport& report);

}  // namespace torus
