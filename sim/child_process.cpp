#include "sim/child_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace torus {
namespace {

// The environment variable through which a tied child learns its parent's process id.
constexpr std::string_view tied_to_variable = "TORUS_SIM_TIED_TO";

// Our environment with the tie to this process.
std::vector<std::string> tied_environment() {
  std::vector<std::string> env;
  const std::string prefix = std::string(tied_to_variable) + "=";
  for (char** e = environ; *e != nullptr; ++e)
    if (!std::string_view(*e).starts_with(prefix)) env.emplace_back(*e);
  env.push_back(prefix + std::to_string(::getpid()));
  return env;
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

pid_t spawn_child(const std::vector<std::string>& args, const std::string& log, bool tied) {
  std::vector<char*> argv = pointers(args);
  const std::vector<std::string> env_strings = tied ? tied_environment() : std::vector<std::string>();
  std::vector<char*> tied_env = pointers(env_strings);
  char** env = tied ? tied_env.data() : environ;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!log.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  // A tied child is an MPI rank's: it must not hold the rank's connections to its launcher and
  // its peers (sockets, shared memory), or they would outlive the rank.
  if (tied) posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  // A sweep blocks SIGINT and SIGTERM to forward them; its children must still die of them.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), env);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot start '" + args[0] + "': " + std::strerror(error));
  return pid;
}

void die_with_parent_if_tied() {
  const char* parent = std::getenv(std::string(tied_to_variable).c_str());
  if (parent == nullptr) return;
  const pid_t expected = static_cast<pid_t>(std::strtol(parent, nullptr, 10));
  ::unsetenv(std::string(tied_to_variable).c_str());  // not for our own children
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != expected) ::raise(SIGKILL);  // the parent died before the tie was made
}

ChildExit child_exit(int wait_status) {
  if (WIFSIGNALED(wait_status)) return {0, WTERMSIG(wait_status)};
  return {WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 0, 0};
}

int run_child(const std::vector<std::string>& args) {
  const pid_t pid = spawn_child(args);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("lost track of '" + args[0] + "'");
  return child_exit(status).shell_code();
}

}  // namespace torus
