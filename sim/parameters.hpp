#pragma once
// Parameters are declared once, next to the configuration field they set, with unit, default,
// allowed values and a description. The command line, scenario files and the generated
// parameter documentation all read these declarations; an undeclared key is an error.

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace torus {

struct ParameterSpec {
  std::string key;
  std::string unit;           // "" when dimensionless
  std::string default_value;  // as text, the way a user would write it
  std::string allowed;        // human-readable range or choice list
  std::string description;
  // Parses text and stores it; throws std::invalid_argument with the key, value and allowed.
  std::function<void(std::string_view)> assign;
  // The same checks without storing (for values a sweep will set later).
  std::function<void(std::string_view)> check;
  // The value now held, as text.
  std::function<std::string()> current;
  // A file path: written in a scenario file, a relative one is relative to that file's folder.
  bool is_path = false;
};

class ParameterSet {
 public:
  // Binders: each declares one parameter writing into `field`, which must outlive the set.
  void integer(std::string key, std::int64_t& field, std::int64_t min, std::int64_t max, std::string unit,
               std::string description);
  void unsigned_integer(std::string key, std::uint64_t& field, std::string unit, std::string description);
  // One whole number for all three axes ("16") or one per axis ("16x8x8", also with the sign
  // "×"), each from min to max; reads back as one number when the three are equal.
  void extents(std::string key, std::array<std::int64_t, 3>& field, std::int64_t min, std::int64_t max, std::string unit,
               std::string description);
  void choice(std::string key, std::string& field, std::vector<std::string> choices, std::string description);
  // Free text checked by `check` (which throws std::invalid_argument on bad input).
  void text(std::string key, std::string& field, std::string allowed, std::string description,
            std::function<void(std::string_view)> check = {});
  // Free text naming a file (ParameterSpec::is_path).
  void path(std::string key, std::string& field, std::string allowed, std::string description);

  // Sets one parameter from text; throws std::invalid_argument naming the key, the value and
  // what is allowed, with a close-spelling suggestion for an unknown key.
  void set(std::string_view key, std::string_view value);
  // "key=value"
  void set_assignment(std::string_view assignment);

  const std::vector<ParameterSpec>& specs() const { return specs_; }
  const ParameterSpec* find(std::string_view key) const;

 private:
  void add(ParameterSpec spec);
  std::vector<ParameterSpec> specs_;
};

// Parses the text of ParameterSet::extents; throws std::invalid_argument naming `key`.
std::array<std::int64_t, 3> parse_extents(std::string_view key, std::string_view text, std::int64_t min, std::int64_t max);
std::string extents_text(const std::array<std::int64_t, 3>& extents);  // "16" or "16x8x8"

// Every parameter with key, unit, default, allowed values and description, as indented text.
std::string format_parameter_table(const std::vector<ParameterSpec>& specs);
// The same as a Markdown table (docs/parameters.md is generated with it).
std::string format_parameter_markdown(const std::vector<ParameterSpec>& specs);

}  // namespace torus
