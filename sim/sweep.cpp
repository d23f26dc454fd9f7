#include "sim/sweep.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels/npy.hpp"
#include "sim/parameter_bundle.hpp"
#include "sim/scenario.hpp"

extern char** environ;

namespace torus {
namespace {

namespace fs = std::filesystem;
using Settings = std::vector<std::pair<std::string, std::string>>;

struct Point {
  std::size_t index = 0;
  Settings overrides;                              // what the point sets on top of the scenario
  std::vector<std::pair<std::string, std::string>> parameters;  // every parameter's effective value
  std::string fingerprint;                         // identifies the point across runs
};

// Every parameter's value for one point, from fresh declarations so nothing leaks between points.
std::vector<std::pair<std::string, std::string>> effective_parameters(const std::string& scenario, const Settings& overrides) {
  ParameterBundle bundle;
  ParameterSet& set = bundle.set;
  load_scenario(scenario, set);
  for (const auto& [key, value] : overrides) set.set(key, value);
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& spec : set.specs()) values.emplace_back(spec.key, spec.current());
  return values;
}

std::string value_of(const Point& p, const std::string& key) {
  for (const auto& [k, v] : p.parameters)
    if (k == key) return v;
  return "";
}

std::vector<Point> plan_points(const SweepOptions& options, std::size_t& dropped) {
  ParameterBundle bundle;
  const Scenario scenario = load_scenario(options.scenario, bundle.set);
  std::vector<Point> points;
  for (auto& swept : sweep_points(scenario)) {
    Point p;
    p.index = points.size();
    p.overrides = swept;
    p.overrides.insert(p.overrides.end(), options.overrides.begin(), options.overrides.end());
    try {
      p.parameters = effective_parameters(options.scenario, p.overrides);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("sweep point " + std::to_string(p.index) + ": " + e.what());
    }
    // A product of N and P lists holds pairs with no whole block size; they are no run at all.
    if (std::stoll(value_of(p, "N")) % std::stoll(value_of(p, "P")) != 0) {
      ++dropped;
      continue;
    }
    p.index = points.size();
    for (const auto& [key, value] : p.parameters) p.fingerprint += key + "=" + value + ";";
    points.push_back(std::move(p));
  }
  return points;
}

std::string point_file(const std::string& dir, std::size_t index, const char* extension) {
  return (fs::path(dir) / "points" / fmt::format("{:05}{}", index, extension)).string();
}

// The row of one finished point: parameters, then what it measured.
nlohmann::ordered_json row_of(const Point& p, const nlohmann::json& record) {
  nlohmann::ordered_json row;
  row["point"] = p.index;
  row["status"] = record.value("status", "failed");
  row["exit_code"] = record.value("exit_code", -1);
  for (const auto& [key, value] : p.parameters) row[key] = value;
  const nlohmann::json& report = record.contains("report") ? record["report"] : nlohmann::json::object();
  const nlohmann::json& t = report.contains("timing") ? report["timing"] : nlohmann::json::object();
  const auto get = [](const nlohmann::json& j, const char* key) { return j.contains(key) ? j[key] : nlohmann::json(nullptr); };
  row["passed"] = get(report, "passed");
  row["total_cycles"] = get(t, "total_cycles");
  row["seconds"] = get(t, "seconds");
  row["analytic_cycles"] = t.contains("analytic") ? t["analytic"]["cycles"] : nlohmann::json(nullptr);
  row["analytic_exact"] = t.contains("analytic") ? t["analytic"]["exact"] : nlohmann::json(nullptr);
  row["utilisation"] = get(t, "utilisation");
  for (const char* cls : {"busy", "dependency", "operand", "backpressure", "idle"})
    row[std::string("cycles_") + cls] = t.contains("node_cycles") ? t["node_cycles"][cls] : nlohmann::json(nullptr);
  row["fma_issued"] = get(t, "fma_issued");
  std::uint64_t words = 0;
  if (t.contains("links"))
    for (const auto& link : t["links"]) words += link["words"].get<std::uint64_t>();
  row["words_sent"] = t.contains("links") ? nlohmann::json(words) : nlohmann::json(nullptr);
  for (const char* part : {"allocated", "paper", "second_buffers", "link_buffers"})
    row[std::string("words_per_node_") + part] = t.contains("words_per_node") ? t["words_per_node"][part] : nlohmann::json(nullptr);
  double max_rel = 0;
  bool any = false;
  if (report.contains("transforms"))
    for (const auto& tr : report["transforms"]) {
      max_rel = std::max(max_rel, tr["golden"]["max_rel_error"].get<double>());
      any = true;
    }
  if (report.contains("round_trip")) max_rel = std::max(max_rel, report["round_trip"]["max_rel_error"].get<double>());
  row["max_rel_error"] = any ? nlohmann::json(max_rel) : nlohmann::json(nullptr);
  row["peak_memory_bytes"] = get(t, "peak_memory_bytes");
  row["wall_seconds"] = record.value("wall_seconds", 0.0);
  return row;
}

std::string csv_field(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string quoted(1, '"');
    for (char c : s) {
      if (c == '"') quoted.push_back('"');
      quoted.push_back(c);
    }
    quoted.push_back('"');
    return quoted;
  }
  return v.dump();
}

void write_tables(const std::string& dir, const std::vector<Point>& points) {
  std::string csv, jsonl;
  bool header = false;
  for (const Point& p : points) {
    std::ifstream in(point_file(dir, p.index, ".json"));
    if (!in) continue;
    const nlohmann::json record = nlohmann::json::parse(in);
    const nlohmann::ordered_json row = row_of(p, record);
    if (!header) {
      for (const auto& item : row.items()) csv.append(csv.empty() ? "" : ",").append(item.key());
      csv.append("\n");
      header = true;
    }
    bool first = true;
    for (const auto& item : row.items()) {
      csv.append(first ? "" : ",").append(csv_field(item.value()));
      first = false;
    }
    csv.append("\n");
    jsonl += row.dump() + "\n";
  }
  write_file_atomically((fs::path(dir) / "results.csv").string(), csv);
  write_file_atomically((fs::path(dir) / "results.jsonl").string(), jsonl);
}

bool finished(const std::string& dir, const Point& p) {
  std::ifstream in(point_file(dir, p.index, ".json"));
  if (!in) return false;
  try {
    return nlohmann::json::parse(in).value("fingerprint", "") == p.fingerprint;
  } catch (const nlohmann::json::exception&) {
    return false;  // unreadable: run it again
  }
}

struct Running {
  Point point;
  std::chrono::steady_clock::time_point start;
};

pid_t launch(const SweepOptions& options, const std::string& dir, const Point& p) {
  std::vector<std::string> args = {options.executable, "run", options.scenario};
  for (const auto& [key, value] : p.overrides) {
    args.push_back("-p");
    args.push_back(key + "=" + value);
  }
  args.push_back("--report_json");
  args.push_back(point_file(dir, p.index, ".report.json"));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = point_file(dir, p.index, ".log");
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, options.executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("sweep: cannot start '" + options.executable + "'");
  return pid;
}

void record_point(const std::string& dir, const Point& p, int exit_code, double wall) {
  nlohmann::json record{{"point", p.index}, {"fingerprint", p.fingerprint}, {"exit_code", exit_code},
                        {"status", exit_code == 0 ? "ok" : "failed"}, {"wall_seconds", wall}};
  nlohmann::json overrides = nlohmann::json::object();
  for (const auto& [key, value] : p.overrides) overrides[key] = value;
  record["overrides"] = overrides;
  const std::string report_path = point_file(dir, p.index, ".report.json");
  std::ifstream in(report_path);
  if (in) record["report"] = nlohmann::json::parse(in, nullptr, false);
  std::error_code ignored;
  fs::remove(report_path, ignored);
  write_file_atomically(point_file(dir, p.index, ".json"), record.dump() + "\n");
}

}  // namespace

SweepSummary run_sweep(const SweepOptions& options, const std::function<void(const std::string&)>& progress) {
  SweepSummary summary;
  const std::vector<Point> points = plan_points(options, summary.dropped);
  summary.points = points.size();
  summary.out_dir = options.out_dir.empty() ? fs::path(options.scenario).stem().string() + "-results" : options.out_dir;
  fs::create_directories(fs::path(summary.out_dir) / "points");
  std::vector<const Point*> todo;
  for (const Point& p : points) {
    if (finished(summary.out_dir, p)) ++summary.skipped;
    else todo.push_back(&p);
  }
  write_tables(summary.out_dir, points);
  const auto start = std::chrono::steady_clock::now();
  std::map<pid_t, Running> running;
  std::size_t next = 0;
  const auto report = [&] {
    const std::size_t done = summary.ran;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double eta = done == 0 ? 0 : elapsed / static_cast<double>(done) * static_cast<double>(todo.size() - done);
    const std::size_t width = 30, filled = todo.empty() ? width : width * done / todo.size();
    progress(fmt::format("[{}{}] {}/{} points ({} done before, {} combinations dropped: P does not divide N), "
                         "{} failed, ETA {:.0f} s",
                         std::string(filled, '#'), std::string(width - filled, '.'), done + summary.skipped,
                         summary.points, summary.skipped, summary.dropped, summary.failed, eta));
  };
  report();
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < std::max(1u, options.jobs)) {
      const Point& p = *todo[next++];
      running[launch(options, summary.out_dir, p)] = {p, std::chrono::steady_clock::now()};
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) throw std::runtime_error("sweep: lost track of its child processes");
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.start).count();
    record_point(summary.out_dir, it->second.point, exit_code, wall);
    ++summary.ran;
    if (exit_code != 0) ++summary.failed;
    running.erase(it);
    write_tables(summary.out_dir, points);
    report();
  }
  return summary;
}

}  // namespace torus
