#include "sim/sweep.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "kernels/output_file.hpp"
#include "sim/child_process.hpp"
#include "sim/sweep_plan.hpp"
#include "sim/sweep_table.hpp"

namespace torus {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string point_file(const std::string& dir, std::size_t index, const char* extension) {
  return (fs::path(dir) / "points" / fmt::format("{:05}{}", index, extension)).string();
}

// Before any point runs: the results folder must be a folder, and the tables files or nothing.
void prepare_results_folder(const std::string& dir) {
  for (const fs::path& folder : {fs::path(dir), fs::path(dir) / "points"}) {
    std::error_code error;
    if (fs::exists(folder, error) && !fs::is_directory(folder, error))
      throw std::invalid_argument("--out: '" + folder.string() + "' is not a folder; allowed: a folder (made when missing)");
  }
  fs::create_directories(fs::path(dir) / "points");
  for (const char* table : {"results.csv", "results.jsonl"}) check_output_path("--out", (fs::path(dir) / table).string());
}

// A point's class, as its exit code says (0, 2, 3, 4, 5); a signal or anything else is a
// runtime failure.
int exit_class(const ChildExit& e) {
  if (e.signal == 0 && (e.code == 0 || e.code == 2 || e.code == 3 || e.code == 5)) return e.code;
  return 4;
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

const char* class_name(int code) {
  switch (code) {
    case 2: return "input problem";
    case 3: return "golden mismatch";
    case 5: return "stalled";
    default: return "runtime failure or killed";
  }
}

// SIGCHLD, SIGINT and SIGTERM are held back while a sweep runs and taken with sigtimedwait,
// so no handler and no global flag are needed.
class HeldSignals {
 public:
  HeldSignals() {
    sigemptyset(&set_);
    for (int s : {SIGCHLD, SIGINT, SIGTERM}) sigaddset(&set_, s);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  }
  ~HeldSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;
  // The next of them to arrive within `timeout`, or 0.
  int wait(std::chrono::milliseconds timeout) const {
    const timespec t{static_cast<time_t>(timeout.count() / 1000), static_cast<long>(timeout.count() % 1000) * 1000000};
    const int s = sigtimedwait(&set_, nullptr, &t);
    return s < 0 ? 0 : s;
  }

 private:
  sigset_t set_{}, previous_{};
};

class Runner {
 public:
  Runner(const SweepOptions& options, const SweepPlan& plan, SweepSummary& summary, const SweepListener& listener)
      : options_(options), plan_(plan), summary_(summary), listener_(listener), table_(summary.out_dir) {}

  void resume();
  void run();

 private:
  struct Running {
    std::size_t point;
    Clock::time_point start;
  };
  void launch(std::size_t point);
  void reap(bool block);
  void finish(std::size_t point, const ChildExit& exit, double wall);
  void count(std::size_t point, int cls);
  void stop(int signal);
  void abandon();
  void report() const;

  const SweepOptions& options_;
  const SweepPlan& plan_;
  SweepSummary& summary_;
  const SweepListener& listener_;
  SweepTable table_;
  std::vector<std::size_t> todo_;
  std::size_t next_ = 0;
  std::map<pid_t, Running> running_;
  Clock::time_point start_ = Clock::now();
};

void Runner::resume() {
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    const Earlier earlier = read_earlier(summary_.out_dir, i, plan_.fingerprint(i));
    if (!earlier.redo.empty()) listener_.note(earlier.redo);
    if (!earlier.finished) {
      todo_.push_back(i);
      continue;
    }
    ++summary_.skipped;
    count(i, exit_class({earlier.record.value("exit_code", 0), 0}));
    table_.add(i, sweep_row(i, plan_.parameters(i), earlier.record));
  }
  table_.write();
}

void Runner::launch(std::size_t point) {
  std::vector<std::string> args = {options_.executable, "run", options_.scenario};
  for (const auto& [key, value] : plan_.overrides(point)) args.insert(args.end(), {"-p", key + "=" + value});
  args.insert(args.end(), {"--report_json", point_file(summary_.out_dir, point, ".report.json")});
  running_[spawn_child(args, point_file(summary_.out_dir, point, ".log"))] = {point, Clock::now()};
}

void Runner::finish(std::size_t point, const ChildExit& exit, double wall) {
  const int code = exit.shell_code();
  nlohmann::json record{{"point", point}, {"fingerprint", plan_.fingerprint(point)}, {"exit_code", code},
                        {"status", code == 0 ? "ok" : exit.signal != 0 ? "killed" : "failed"}, {"wall_seconds", wall}};
  nlohmann::json overrides = nlohmann::json::object();
  for (const auto& [key, value] : plan_.overrides(point)) overrides[key] = value;
  record["overrides"] = overrides;
  const std::string report_path = point_file(summary_.out_dir, point, ".report.json");
  std::ifstream in(report_path);
  if (in) record["report"] = nlohmann::json::parse(in, nullptr, false);
  std::error_code ignored;
  fs::remove(report_path, ignored);
  write_file_atomically(point_file(summary_.out_dir, point, ".json"), record.dump() + "\n");
  table_.add(point, sweep_row(point, plan_.parameters(point), record));
  ++summary_.ran;
  count(point, exit_class(exit));
}

// Failures count whether the point ran now or in an earlier run: the exit code describes the
// whole table.
void Runner::count(std::size_t point, int cls) {
  if (cls == 0) return;
  ++summary_.failed;
  ++summary_.failed_by_code[cls];
  if (cls > summary_.exit_code || (cls == summary_.exit_code && point < summary_.worst_point)) {
    summary_.exit_code = cls;
    summary_.worst_point = point;
  }
}

// Collects every child that has ended; with `block`, waits for at least one.
void Runner::reap(bool block) {
  for (int status = 0;;) {
    const pid_t pid = ::waitpid(-1, &status, block ? 0 : WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0 && errno == ECHILD) return;
    if (pid < 0) throw std::runtime_error("sweep: lost track of its child processes");
    if (pid == 0) return;
    block = false;
    const auto it = running_.find(pid);
    if (it == running_.end()) continue;
    finish(it->second.point, child_exit(status), std::chrono::duration<double>(Clock::now() - it->second.start).count());
    running_.erase(it);
    report();
  }
}

// Passes the signal on to every running point and waits for them all.
void Runner::stop(int signal) {
  summary_.interrupted_by = signal;
  for (const auto& [pid, running] : running_) ::kill(pid, signal);
  while (!running_.empty()) reap(true);
}

void Runner::run() {
  HeldSignals signals;
  report();
  try {
    while (summary_.interrupted_by == 0 && (next_ < todo_.size() || !running_.empty())) {
      while (next_ < todo_.size() && running_.size() < std::max(1u, options_.jobs)) launch(todo_[next_++]);
      reap(false);
      table_.write_if_due(Clock::now());
      if (next_ < todo_.size() && running_.size() < std::max(1u, options_.jobs)) continue;
      if (const int s = signals.wait(std::chrono::milliseconds(1000)); s == SIGINT || s == SIGTERM) stop(s);
    }
  } catch (...) {
    abandon();
    throw;
  }
  table_.write();
}

// When the sweep itself fails (its folder cannot be written, ...), no point may outlive it.
void Runner::abandon() {
  for (const auto& [pid, running] : running_) {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
  }
  running_.clear();
}

void Runner::report() const {
  const std::size_t done = summary_.ran, total = todo_.size();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double eta = done == 0 ? 0 : elapsed / static_cast<double>(done) * static_cast<double>(total - std::min(done, total));
  const std::size_t width = 30, filled = total == 0 ? width : width * std::min(done, total) / total;
  listener_.progress(fmt::format("[{}{}] {}/{} points ({} done before, {} combinations dropped: P does not divide N), "
                                 "{} failed, ETA {:.0f} s",
                                 std::string(filled, '#'), std::string(width - filled, '.'), done + summary_.skipped,
                                 summary_.points, summary_.skipped, summary_.dropped, summary_.failed, eta));
}

}  // namespace

SweepSummary run_sweep(const SweepOptions& options, const SweepListener& listener) {
  const SweepPlan plan(options.scenario, options.overrides, listener.note);
  SweepSummary summary;
  summary.points = plan.size();
  summary.dropped = plan.dropped();
  summary.out_dir = options.out_dir.empty() ? fs::path(options.scenario).stem().string() + "-results" : options.out_dir;
  prepare_results_folder(summary.out_dir);
  Runner runner(options, plan, summary, listener);
  runner.resume();
  runner.run();
  return summary;
}

std::string describe_failures(const SweepSummary& summary) {
  std::string text = std::to_string(summary.failed) + " failed:";
  for (const auto& [code, count] : summary.failed_by_code)
    text += fmt::format(" {} {} (exit {}),", count, class_name(code), code);
  text.back() = ';';
  return text + fmt::format(" the sweep exits {}, its worst class ({}), first at point {}", summary.exit_code,
                            class_name(summary.exit_code), summary.worst_point);
}

}  // namespace torus
