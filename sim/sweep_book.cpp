#include "sim/sweep_book.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kernels/output_file.hpp"

namespace torus {
namespace {

namespace fs = std::filesystem;

// Before any point runs: the results folder must be a folder, and the tables files or nothing.
void prepare_results_folder(const std::string& dir) {
  for (const fs::path& folder : {fs::path(dir), fs::path(dir) / "points"}) {
    std::error_code error;
    if (fs::exists(folder, error) && !fs::is_directory(folder, error))
      throw std::invalid_argument("--out: '" + folder.string() + "' is not a folder; allowed: a folder (made when missing)");
  }
  // A sweep makes points/ before it writes a table: tables without it are somebody else's files.
  std::error_code error;
  if (!fs::exists(fs::path(dir) / "points", error))
    for (const char* table : {"results.csv", "results.jsonl"})
      if (fs::is_regular_file(fs::path(dir) / table, error))  // anything else check_output_path names
        throw std::invalid_argument("--out: '" + dir + "' holds " + table + " but no points/ folder, so no sweep wrote it; allowed: "
                                    "a new or empty folder, or one a sweep wrote (the sweep resumes there)");
  fs::create_directories(fs::path(dir) / "points");
  for (const char* table : {"results.csv", "results.jsonl"}) check_output_path("--out", (fs::path(dir) / table).string());
}

// A point's class, as its exit code says (0, 2, 3, 4, 5); a signal or anything else is a
// runtime failure.
int exit_class(const ChildExit& e) {
  if (e.signal == 0 && (e.code == 0 || e.code == 2 || e.code == 3 || e.code == 5)) return e.code;
  return 4;
}

// Why a point's run refused its parameters (exit 2): the last "torus-sim: " line of its log.
// Every swept value was checked when the sweep was planned, so this is a combination the
// algorithm cannot run (slab_fft on more nodes than N, orbital on a torus that is not a cube).
std::string refusal_of(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string reason;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("torus-sim: ", 0) == 0) reason = line.substr(11);
  return reason;
}

// Exit codes above 128 are how a record (of this version or an older one) says "killed".
bool died_of_signal(const nlohmann::json& record) { return record.value("exit_code", 0) > 128; }

// What an earlier run left for a point: nothing, a finished record, or something to redo
// (with the reason, for the user).
struct Earlier {
  bool finished = false;
  nlohmann::json record;
  std::string redo;  // why the point runs again, or empty
};

Earlier read_earlier(const std::string& dir, std::size_t point, const std::string& fingerprint) {
  const std::string path = point_file(dir, point, ".json");
  // A record that could not be written would fail the sweep late, after its point ran.
  std::error_code error;
  if (fs::exists(path, error) && !fs::is_regular_file(path, error))
    throw std::invalid_argument("--out: '" + path + "' is not a regular file; allowed: a point's record or nothing");
  std::ifstream in(path);
  if (!in) return {};
  Earlier e{false, nlohmann::json::parse(in, nullptr, false), ""};
  if (e.record.is_discarded() || !e.record.is_object())
    e.redo = path + ": empty or not a point record (cut short?); running the point again";
  else if (e.record.value("fingerprint", "") != fingerprint)
    e.redo = "";  // an earlier sweep's point with other parameters: silently replaced
  else if (died_of_signal(e.record))
    e.redo = path + ": the point was killed by a signal (exit " + std::to_string(e.record.value("exit_code", 0)) +
             "); running it again";
  else
    e.finished = true;
  return e;
}

}  // namespace

SweepSummary planned_summary(const SweepOptions& options, const SweepPlan& plan) {
  SweepSummary summary;
  summary.points = plan.size();
  summary.dropped = plan.dropped();
  summary.out_dir = options.out_dir.empty() ? fs::path(options.scenario).stem().string() + "-results" : options.out_dir;
  return summary;
}

std::string point_file(const std::string& dir, std::size_t index, const char* extension) {
  return (fs::path(dir) / "points" / fmt::format("{:05}{}", index, extension)).string();
}

SweepBook::SweepBook(const SweepPlan& plan, SweepSummary& summary, const SweepListener& listener)
    : plan_(plan), summary_(summary), listener_(listener), table_(summary.out_dir) {
  prepare_results_folder(summary.out_dir);
}

std::vector<std::size_t> SweepBook::resume(const std::function<void()>& tick) {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    if (tick) tick();
    const Earlier earlier = read_earlier(summary_.out_dir, i, plan_.fingerprint(i));
    if (!earlier.redo.empty()) listener_.note(earlier.redo);
    if (!earlier.finished) {
      todo.push_back(i);
      continue;
    }
    ++summary_.skipped;
    count(i, exit_class({earlier.record.value("exit_code", 0), 0}));
    table_.add(i, sweep_row(i, plan_.parameters(i), earlier.record));
  }
  table_.write();
  return todo;
}

void SweepBook::record(std::size_t point, const ChildExit& exit, double wall_seconds, const std::optional<std::string>& report) {
  const int code = exit.shell_code();
  nlohmann::json record{{"point", point}, {"fingerprint", plan_.fingerprint(point)}, {"exit_code", code},
                        {"status", code == 0 ? "ok" : exit.signal != 0 ? "killed" : "failed"}, {"wall_seconds", wall_seconds}};
  if (code == 2 && exit.signal == 0) {
    record["status"] = "refused";
    record["refusal"] = refusal_of(point_file(summary_.out_dir, point, ".log"));
  }
  nlohmann::json overrides = nlohmann::json::object();
  for (const auto& [key, value] : plan_.overrides(point)) overrides[key] = value;
  record["overrides"] = overrides;
  if (report) record["report"] = nlohmann::json::parse(*report, nullptr, false);
  write_file_atomically(point_file(summary_.out_dir, point, ".json"), record.dump() + "\n");
  table_.add(point, sweep_row(point, plan_.parameters(point), record));
  ++summary_.ran;
  count(point, exit_class(exit));
}

void SweepBook::write_log(std::size_t point, const std::string& text) const {
  write_file_atomically(point_file(summary_.out_dir, point, ".log"), text);
}

// Failures count whether the point ran now or in an earlier run: the exit code describes the
// whole table.
void SweepBook::count(std::size_t point, int cls) {
  if (cls == 0) return;
  ++summary_.failed;
  ++summary_.failed_by_code[cls];
  if (cls > summary_.exit_code || (cls == summary_.exit_code && point < summary_.worst_point)) {
    summary_.exit_code = cls;
    summary_.worst_point = point;
  }
}

std::string SweepBook::status(std::size_t to_run, Clock::time_point start) const {
  const std::size_t done = summary_.ran, total = to_run;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const double eta = done == 0 ? 0 : elapsed / static_cast<double>(done) * static_cast<double>(total - std::min(done, total));
  const std::size_t width = 30, filled = total == 0 ? width : width * std::min(done, total) / total;
  // Refusals (exit 2: the point's parameters, often an algorithm that cannot run that size) are
  // expected in a sweep over algorithms, so they are counted apart from runs that went wrong.
  const auto refused_at = summary_.failed_by_code.find(2);
  const std::size_t refused = refused_at == summary_.failed_by_code.end() ? 0 : refused_at->second;
  return fmt::format("[{}{}] {}/{} points ({} done before, {} combinations dropped: P does not divide N), "
                     "{} failed, {} refused, ETA {:.0f} s",
                     std::string(filled, '#'), std::string(width - filled, '.'), done + summary_.skipped, summary_.points,
                     summary_.skipped, summary_.dropped, summary_.failed - refused, refused, eta);
}

}  // namespace torus
