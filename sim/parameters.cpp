#include "sim/parameters.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <stdexcept>

#include "kernels/text.hpp"

namespace torus {
namespace {

std::invalid_argument bad_value(std::string_view key, std::string_view value, std::string_view allowed) {
  return std::invalid_argument(std::string(key) + ": '" + std::string(value) + "' is not allowed; allowed: " +
                               std::string(allowed));
}

template <class Int>
bool parse_whole(std::string_view text, Int& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

void ParameterSet::add(ParameterSpec spec) {
  if (find(spec.key)) throw std::logic_error("parameter '" + spec.key + "' declared twice");
  specs_.push_back(std::move(spec));
}

const ParameterSpec* ParameterSet::find(std::string_view key) const {
  for (const auto& spec : specs_)
    if (spec.key == key) return &spec;
  return nullptr;
}

void ParameterSet::integer(std::string key, std::int64_t& field, std::int64_t min, std::int64_t max, std::string unit,
                           std::string description) {
  const std::string allowed = "whole number from " + std::to_string(min) + " to " + std::to_string(max);
  const auto parse = [key, min, max, allowed](std::string_view text) {
    std::int64_t value = 0;
    if (!parse_whole(text, value) || value < min || value > max) throw bad_value(key, text, allowed);
    return value;
  };
  add({key, std::move(unit), std::to_string(field), allowed, std::move(description),
       [&field, parse](std::string_view text) { field = parse(text); }, [parse](std::string_view text) { parse(text); },
       [&field] { return std::to_string(field); }});
}

void ParameterSet::unsigned_integer(std::string key, std::uint64_t& field, std::string unit, std::string description) {
  const std::string allowed = "whole number from 0 to 18446744073709551615";
  const auto parse = [key, allowed](std::string_view text) {
    std::uint64_t value = 0;
    if (!parse_whole(text, value)) throw bad_value(key, text, allowed);
    return value;
  };
  add({key, std::move(unit), std::to_string(field), allowed, std::move(description),
       [&field, parse](std::string_view text) { field = parse(text); }, [parse](std::string_view text) { parse(text); },
       [&field] { return std::to_string(field); }});
}

std::array<std::int64_t, 3> parse_extents(std::string_view key, std::string_view text, std::int64_t min, std::int64_t max) {
  const std::string allowed = "a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                              " for every axis, or one per axis written AxBxC (such as 16x8x8)";
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  for (std::size_t at = 0; at <= text.size();) {
    // "x" or the multiplication sign (UTF-8 C3 97) separate the extents.
    const bool cross = at + 1 < text.size() && text[at] == '\xC3' && text[at + 1] == '\x97';
    if (at == text.size() || text[at] == 'x' || cross) {
      parts.push_back(text.substr(from, at - from));
      at += cross ? 2 : 1;
      from = at;
    } else {
      ++at;
    }
  }
  if (parts.size() != 1 && parts.size() != 3) throw bad_value(key, text, allowed);
  std::array<std::int64_t, 3> out{};
  for (std::size_t a = 0; a < 3; ++a) {
    const std::string_view part = parts[parts.size() == 1 ? 0 : a];
    if (part.empty() || part.front() == '-' || part.front() == '+' || !parse_whole(part, out[a]) || out[a] < min || out[a] > max)
      throw bad_value(key, text, allowed);
  }
  return out;
}

std::string extents_text(const std::array<std::int64_t, 3>& e) {
  if (e[0] == e[1] && e[1] == e[2]) return std::to_string(e[0]);
  return std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]);
}

void ParameterSet::extents(std::string key, std::array<std::int64_t, 3>& field, std::int64_t min, std::int64_t max,
                           std::string unit, std::string description) {
  const std::string allowed = "a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                              ", or one per axis written AxBxC (such as 16x8x8)";
  const auto parse = [key, min, max](std::string_view text) { return parse_extents(key, text, min, max); };
  add({key, std::move(unit), extents_text(field), allowed, std::move(description),
       [&field, parse](std::string_view text) { field = parse(text); }, [parse](std::string_view text) { parse(text); },
       [&field] { return extents_text(field); }});
}

void ParameterSet::choice(std::string key, std::string& field, std::vector<std::string> choices, std::string description) {
  const std::string allowed = join(choices, ", ");
  const auto parse = [key, choices, allowed](std::string_view text) {
    if (std::find(choices.begin(), choices.end(), text) == choices.end())
      throw std::invalid_argument(bad_value(key, text, allowed).what() + suggestion(text, choices));
    return std::string(text);
  };
  add({key, "", field, allowed, std::move(description), [&field, parse](std::string_view text) { field = parse(text); },
       [parse](std::string_view text) { parse(text); }, [&field] { return field; }});
}

void ParameterSet::text(std::string key, std::string& field, std::string allowed, std::string description,
                        std::function<void(std::string_view)> check) {
  const auto parse = [check](std::string_view text) {
    if (check) check(text);
    return std::string(text);
  };
  add({key, "", field, std::move(allowed), std::move(description),
       [&field, parse](std::string_view text) { field = parse(text); }, [parse](std::string_view text) { parse(text); },
       [&field] { return field; }});
}

void ParameterSet::path(std::string key, std::string& field, std::string allowed, std::string description) {
  text(key, field, std::move(allowed), std::move(description));
  specs_.back().is_path = true;
}

void ParameterSet::set(std::string_view key, std::string_view value) {
  const ParameterSpec* spec = find(key);
  if (!spec) {
    std::vector<std::string> keys;
    for (const auto& s : specs_) keys.push_back(s.key);
    throw std::invalid_argument("unknown parameter '" + std::string(key) + "'" + suggestion(key, keys) +
                                "; 'torus-sim params' lists them all");
  }
  spec->assign(value);
}

void ParameterSet::set_assignment(std::string_view assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string_view::npos || equals == 0)
    throw std::invalid_argument("'" + std::string(assignment) + "' is not of the form key=value");
  set(assignment.substr(0, equals), assignment.substr(equals + 1));
}

std::string format_parameter_table(const std::vector<ParameterSpec>& specs) {
  std::ostringstream out;
  for (const auto& s : specs) {
    out << s.key << (s.unit.empty() ? "" : " [" + s.unit + "]") << "  (default: "
        << (s.default_value.empty() ? "none" : s.default_value) << ")\n"
        << "    " << s.description << "\n"
        << "    allowed: " << s.allowed << "\n";
  }
  return out.str();
}

}  // namespace torus

namespace torus {

std::string format_parameter_markdown(const std::vector<ParameterSpec>& specs) {
  std::ostringstream out;
  out << "# Parameters\n\n"
      << "Generated by `torus-sim params --format markdown` from the declarations in the source; a test\n"
      << "fails when this file and the declarations disagree. Set them on the command line as `--key value`\n"
      << "or `-p key=value`.\n\n"
      << "| parameter | unit | default | allowed | description |\n|---|---|---|---|---|\n";
  for (const auto& s : specs)
    out << "| `" << s.key << "` | " << s.unit << " | " << (s.default_value.empty() ? "" : "`" + s.default_value + "`")
        << " | " << s.allowed << " | " << s.description << " |\n";
  return out.str();
}

}  // namespace torus
