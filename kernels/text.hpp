#pragma once
// Small string helpers shared by error messages across the project.

#include <string>
#include <string_view>
#include <vector>

namespace torus {

std::vector<std::string> split(std::string_view text, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
// " (did you mean 'x'?)" when one candidate is within a small edit distance, else "".
std::string suggestion(std::string_view given, const std::vector<std::string>& candidates);
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace torus
