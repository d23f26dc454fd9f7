#include "sim/scenario.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "kernels/text.hpp"

namespace torus {
namespace {

std::string where(const std::string& path, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return path;
  return path + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::invalid_argument located(const std::string& path, const YAML::Node& node, const std::string& what) {
  return std::invalid_argument(where(path, node) + ": " + what);
}

std::string scalar_text(const std::string& path, const YAML::Node& node, const std::string& key) {
  if (node.IsNull())
    throw located(path, node, key + ": a value is needed here (a number or a word), not an empty one or ~; "
                              "leave the key out for its default");
  if (!node.IsScalar())
    throw located(path, node, key + ": a single value is needed here (a number or a word), not a list or a map");
  return node.Scalar();
}

constexpr const char* reserved[] = {"description", "include", "sweep", "sweep_blocks"};

constexpr int max_depth = 32;

std::invalid_argument too_deep(const std::string& path, int line) {
  return std::invalid_argument(path + ":" + std::to_string(line) + ": nested more than " + std::to_string(max_depth) +
                               " levels deep");
}

// Counts flow nesting ([ and {) and indentation the way YAML reads them, closely enough to
// bound the parser's recursion: brackets in comments and quoted scalars do not nest. A quoted
// scalar is taken to end with its line, so that a quote misread can hide one line at most.
class NestingScan {
 public:
  explicit NestingScan(const std::string& path) : path_(path) {}

  void next(char c) {
    if (c == '\n') return new_line();
    if (comment_) return;
    if (quote_ != 0) return in_quote(c);
    if (line_start_ && (c == ' ' || c == '-' || c == '?' || c == '\t')) {
      if (++indent_ > 2 * static_cast<std::size_t>(max_depth)) throw too_deep(path_, line_);
      if (c == '-' || c == '?') expect_scalar_ = true;
      return;
    }
    line_start_ = false;
    if (c == ' ' || c == '\t') {
      after_space_ = true;
      return;
    }
    plain(c);
    after_space_ = false;
  }

 private:
  void new_line() {
    ++line_;
    line_start_ = expect_scalar_ = after_space_ = true;
    comment_ = false;
    quote_ = 0;
    indent_ = 0;
  }

  void in_quote(char c) {
    if (escaped_) escaped_ = false;
    else if (quote_ == '"' && c == '\\') escaped_ = true;
    else if (c == quote_) quote_ = 0;  // a doubled '' reopens at once: the same as staying inside
  }

  void plain(char c) {
    if (c == '#' && after_space_) {
      comment_ = true;
    } else if ((c == '"' || c == '\'') && expect_scalar_) {
      quote_ = c;
    } else if (c == '[' || c == '{') {
      if (++depth_ > max_depth) throw too_deep(path_, line_);
    } else if ((c == ']' || c == '}') && depth_ > 0) {
      --depth_;
    }
    // A scalar may start after an indicator; anything else is inside a plain scalar.
    expect_scalar_ = c == '[' || c == '{' || c == ',' || c == ':' || (expect_scalar_ && (c == '-' || c == '?'));
  }

  const std::string& path_;
  int depth_ = 0, line_ = 1;
  std::size_t indent_ = 0;
  bool line_start_ = true, expect_scalar_ = true, after_space_ = true, comment_ = false, escaped_ = false;
  char quote_ = 0;
};

// Scenario files are small and shallow. Refusing anything else up front keeps the parser (which
// recurses per nesting level) away from inputs that could exhaust its stack.
std::string read_scenario_text(const std::string& path) {
  constexpr std::uintmax_t max_bytes = 1 << 20;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw std::invalid_argument(path + ": cannot be opened for reading (not a regular file)");
  if (std::filesystem::file_size(path, error) > max_bytes)
    throw std::invalid_argument(path + ": a scenario file may be at most 1 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot be opened for reading");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  NestingScan scan(path);
  for (const char c : text) scan.next(c);
  return text;
}

// Counts documents and notes where each starts; nothing else is kept.
class DocumentCounter : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// The one document of a scenario file; a second one ('---') is refused, not ignored. Counted
// by the parser, stopping at the second: YAML::LoadAll took nearly a minute to collect what
// follows some malformed first lines (", x" then "N: 16", found by the scenario fuzzer).
YAML::Node parse_document(const std::string& path) {
  const std::string text = read_scenario_text(path);
  try {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentCounter counter;
    for (int d = 0; d < 2 && parser.HandleNextDocument(counter); ++d) {
    }
    if (counter.starts.size() > 1)
      throw std::invalid_argument(path + ":" + std::to_string(counter.starts[1].line + 1) + ":" +
                                  std::to_string(counter.starts[1].column + 1) +
                                  ": a second YAML document ('---') is not allowed; a scenario is one document");
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw std::invalid_argument(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                                ": malformed YAML: " + e.msg);
  }
}

// YAML readers keep the first or the last of a repeated key; either way a value is lost.
void refuse_repeated_keys(const std::string& path, const YAML::Node& map) {
  std::map<std::string, int> first_line;
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    const auto [at, fresh] = first_line.emplace(key, entry.first.Mark().line + 1);
    if (!fresh)
      throw located(path, entry.first, "'" + key + "' is given twice (first on line " + std::to_string(at->second) +
                                           "); allowed: each key once");
  }
}

// Paths in a scenario file are relative to the file's folder, as include: is.
std::string as_written_in(const std::string& path, const ParameterSpec& spec, const std::string& value) {
  if (!spec.is_path || value.empty() || std::filesystem::path(value).is_absolute()) return value;
  const auto folder = std::filesystem::path(path).parent_path();
  return folder.empty() ? value : (folder / value).lexically_normal().string();
}

class Loader {
 public:
  Loader(ParameterSet& parameters, Scenario& scenario) : parameters_(parameters), scenario_(scenario) {}

  void load(const std::string& path, int depth) {
    if (depth > 8) throw std::invalid_argument(path + ": includes nest more than 8 deep (an include cycle?)");
    const YAML::Node root = parse_document(path);
    scenario_.files.push_back(path);
    if (root.IsNull()) return;
    if (!root.IsMap()) throw located(path, root, "a scenario is a map of parameter: value");
    refuse_repeated_keys(path, root);
    if (const YAML::Node include = root["include"]) load_includes(path, include, depth);
    for (const auto& entry : root) {
      const std::string key = entry.first.Scalar();
      if (key == "include") continue;
      if (key == "description") scenario_.description = scalar_text(path, entry.second, key);
      else if (key == "sweep") load_sweep(path, entry.second);
      else if (key == "sweep_blocks") load_sweep_blocks(path, entry.second);
      else set(path, entry.first, entry.second, key);
    }
  }

 private:
  void load_includes(const std::string& path, const YAML::Node& include, int depth) {
    const auto folder = std::filesystem::path(path).parent_path();
    const auto load_one = [&](const YAML::Node& item) {
      const std::string relative = scalar_text(path, item, "include");
      const auto target = (folder / relative).lexically_normal();
      std::error_code error;  // a name the system cannot even look up is just not a file
      if (!std::filesystem::is_regular_file(target, error)) throw located(path, item, "include: '" + relative + "' is not a file");
      // Depth alone does not bound the work: ten includes a file, eight deep, is 10^8 files.
      if (++included_ > max_included)
        throw located(path, item, "include: more than " + std::to_string(max_included) +
                                      " included documents in all; allowed: at most " + std::to_string(max_included));
      load(target.string(), depth + 1);
    };
    if (include.IsSequence())
      for (const auto& item : include) load_one(item);
    else load_one(include);
  }

  void set(const std::string& path, const YAML::Node& key_node, const YAML::Node& value, const std::string& key) {
    if (!parameters_.find(key)) {
      std::vector<std::string> keys(std::begin(reserved), std::end(reserved));
      for (const auto& spec : parameters_.specs()) keys.push_back(spec.key);
      throw located(path, key_node, "unknown key '" + key + "'" + suggestion(key, keys) +
                                        "; 'torus-sim params' lists the parameters");
    }
    const std::string text = as_written_in(path, *parameters_.find(key), scalar_text(path, value, key));
    try {
      parameters_.set(key, text);
    } catch (const std::invalid_argument& e) {
      throw located(path, value, e.what());
    }
    scenario_.settings.emplace_back(key, text);
  }

  void load_sweep_blocks(const std::string& path, const YAML::Node& value) {
    const std::string text = scalar_text(path, value, "sweep_blocks");
    if (text != "even" && text != "any")
      throw located(path, value, "sweep_blocks: '" + text + "' is not allowed; allowed: even (points whose P does not divide "
                                 "N are dropped) or any (uneven blocks kept: the first N mod P blocks one element larger)");
    scenario_.sweep_uneven = text == "any";
  }

  void load_sweep(const std::string& path, const YAML::Node& sweep) {
    if (!sweep.IsMap()) throw located(path, sweep, "sweep: a map of parameter: [values] is needed");
    for (const auto& entry : sweep) {
      const std::string key = entry.first.Scalar();
      const ParameterSpec* spec = parameters_.find(key);
      if (!spec) {
        std::vector<std::string> keys;
        for (const auto& s : parameters_.specs()) keys.push_back(s.key);
        throw located(path, entry.first, "sweep: unknown parameter '" + key + "'" + suggestion(key, keys));
      }
      SweepAxis axis{key, {}};
      const YAML::Node values = entry.second;
      if (values.IsScalar()) axis.values.push_back(as_written_in(path, *spec, values.Scalar()));
      else if (values.IsSequence() && values.size() > 0)
        for (const auto& v : values) axis.values.push_back(as_written_in(path, *spec, scalar_text(path, v, key)));
      else throw located(path, values, "sweep: " + key + " needs a non-empty list of values");
      for (std::size_t i = 0; i < axis.values.size(); ++i) {
        try {
          spec->check(axis.values[i]);
        } catch (const std::invalid_argument& e) {
          throw located(path, values.IsSequence() ? values[i] : values, std::string("sweep: ") + e.what());
        }
      }
      for (auto& existing : scenario_.sweep)
        if (existing.key == key) throw located(path, entry.first, "sweep: '" + key + "' is listed twice");
      scenario_.sweep.push_back(std::move(axis));
    }
  }

  static constexpr std::size_t max_included = 100;
  ParameterSet& parameters_;
  Scenario& scenario_;
  std::size_t included_ = 0;
};

}  // namespace

Scenario load_scenario(const std::string& path, ParameterSet& parameters) {
  Scenario scenario;
  scenario.path = path;
  Loader(parameters, scenario).load(path, 0);
  return scenario;
}

std::size_t sweep_size(const Scenario& scenario) {
  constexpr double max_points = 1e6;
  double count = 1;
  for (const SweepAxis& axis : scenario.sweep) count *= static_cast<double>(axis.values.size());
  if (count > max_points)
    throw std::invalid_argument(scenario.path + ": sweep: the lists make " + fmt::format("{:.0f}", count) +
                                " points; allowed: at most 1000000");
  return static_cast<std::size_t>(count);
}

std::vector<std::vector<std::pair<std::string, std::string>>> sweep_points(const Scenario& scenario) {
  sweep_size(scenario);
  std::vector<std::vector<std::pair<std::string, std::string>>> points(1);
  for (const SweepAxis& axis : scenario.sweep) {
    std::vector<std::vector<std::pair<std::string, std::string>>> next;
    for (const auto& point : points)
      for (const std::string& value : axis.values) {
        auto extended = point;
        extended.emplace_back(axis.key, value);
        next.push_back(std::move(extended));
      }
    points = std::move(next);
  }
  return points;
}

}  // namespace torus
