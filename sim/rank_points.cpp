#include "sim/rank_points.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

namespace torus {
namespace {

namespace fs = std::filesystem;

fs::path temporary_folder() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

// Scratch folders are named torus-sim-rank-HOST-PID-XXXXXX: a rank that was killed leaves its
// folder behind, and the next rank on the same host removes it once that process is gone.
std::string scratch_prefix() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::string("torus-sim-rank-") + host + "-";
}

void remove_abandoned_folders(const std::string& prefix) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(temporary_folder(), error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), error);
  }
}

std::string make_scratch_folder() {
  const std::string prefix = scratch_prefix();
  remove_abandoned_folders(prefix);
  std::string pattern = (temporary_folder() / (prefix + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("sweep: cannot make a scratch folder '" + pattern + "': " + std::strerror(errno));
  return pattern;
}

}  // namespace

RankPoints::RankPoints(std::string executable, std::string scenario)
    : executable_(std::move(executable)), scenario_(std::move(scenario)), folder_(make_scratch_folder()) {}

RankPoints::~RankPoints() {
  processes_.abandon();
  std::error_code ignored;
  fs::remove_all(folder_, ignored);
}

std::string RankPoints::file(std::size_t point, const char* extension) const {
  return (fs::path(folder_) / fmt::format("{:05}{}", point, extension)).string();
}

void RankPoints::launch(std::size_t point, const Settings& overrides) {
  processes_.launch(point, point_command(executable_, scenario_, overrides, file(point, ".report.json")),
                    file(point, ".log"), true);
}

std::vector<RankPoints::Outcome> RankPoints::collect() {
  std::vector<Outcome> outcomes;
  for (const PointProcesses::Ended& e : processes_.reap(false))
    outcomes.push_back({e.point, e.exit, e.wall_seconds, take_file(file(e.point, ".report.json")),
                        take_file(file(e.point, ".log")).value_or("")});
  return outcomes;
}

void RankPoints::stop(int signal) {
  processes_.signal_all(signal);
  while (processes_.size() != 0)
    for (const PointProcesses::Ended& e : processes_.reap(true)) {
      take_file(file(e.point, ".report.json"));
      take_file(file(e.point, ".log"));
    }
}

}  // namespace torus
