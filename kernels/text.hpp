#pragma once
// Small string helpers shared by error messages across the project.

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace torus {

std::vector<std::string> split(std::string_view text, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
// " (did you mean 'x'?)" when one candidate is within a small edit distance, else "".
std::string suggestion(std::string_view given, const std::vector<std::string>& candidates);
std::size_t edit_distance(std::string_view a, std::string_view b);

// Runs `read` and puts "key: " in front of the message of any error it throws, keeping the
// error's kind: readers name the file, the caller knows which parameter named it.
template <class Read>
auto with_parameter(std::string_view key, Read read) {
  const auto prefixed = [key](const std::exception& e) { return std::string(key) + ": " + e.what(); };
  try {
    return read();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(prefixed(e));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(prefixed(e));
  }
}

}  // namespace torus
