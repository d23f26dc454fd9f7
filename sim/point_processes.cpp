#include "sim/point_processes.hpp"

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <sys/wait.h>

namespace torus {

std::vector<std::string> point_command(const std::string& executable, const std::string& scenario,
                                       const Settings& overrides, const std::string& report) {
  std::vector<std::string> args = {executable, "run", scenario};
  for (const auto& [key, value] : overrides) args.insert(args.end(), {"-p", key + "=" + value});
  args.insert(args.end(), {"--report_json", report});
  return args;
}

std::optional<std::string> take_file(const std::string& path) {
  std::optional<std::string> text;
  if (std::ifstream in(path); in) text.emplace(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  return text;
}

void PointProcesses::launch(std::size_t point, const std::vector<std::string>& command, const std::string& log, bool tied) {
  running_[spawn_child(command, log, tied)] = {point, Clock::now()};
}

std::vector<PointProcesses::Ended> PointProcesses::reap(bool block) {
  std::vector<Ended> ended;
  for (int status = 0;;) {
    const pid_t pid = ::waitpid(-1, &status, block ? 0 : WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0 && errno == ECHILD) return ended;
    if (pid < 0) throw std::runtime_error("sweep: lost track of its child processes");
    if (pid == 0) return ended;
    block = false;
    const auto it = running_.find(pid);
    if (it == running_.end()) continue;
    ended.push_back({it->second.point, child_exit(status), std::chrono::duration<double>(Clock::now() - it->second.start).count()});
    running_.erase(it);
  }
}

void PointProcesses::signal_all(int signal) const {
  for (const auto& [pid, running] : running_) ::kill(pid, signal);
}

void PointProcesses::abandon() {
  for (const auto& [pid, running] : running_) {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
  }
  running_.clear();
}

}  // namespace torus
