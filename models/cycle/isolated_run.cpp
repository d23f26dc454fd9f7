#include "models/cycle/isolated_run.hpp"

#include <cerrno>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "models/cycle/systemc.hpp"

namespace torus {
namespace {

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string text;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(chunk, static_cast<std::size_t>(n));
  }
}

[[noreturn]] void run_child(int fd, const std::function<nlohmann::json()>& body) {
  nlohmann::json out;
  try {
    out = {{"result", body()}};
  } catch (const std::exception& e) {
    out = {{"error", e.what()}};
  } catch (...) {
    out = {{"error", "unknown exception"}};
  }
  write_all(fd, out.dump());
  ::close(fd);
  ::_exit(0);  // no static destructors or SystemC teardown in the child
}

}  // namespace

nlohmann::json run_isolated(const std::function<nlohmann::json()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("run_isolated: cannot create a pipe");
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("run_isolated: cannot fork");
  }
  if (child == 0) {
    ::close(fds[0]);
    run_child(fds[1], body);
  }
  ::close(fds[1]);
  const std::string text = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty())
    throw std::runtime_error("run_isolated: the simulation process died (status " + std::to_string(status) + ")");
  const nlohmann::json reply = nlohmann::json::parse(text);
  if (reply.contains("error")) throw std::runtime_error(reply["error"].get<std::string>());
  return reply["result"];
}

void require_fresh_systemc_kernel() {
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION || sc_core::sc_time_stamp() != sc_core::SC_ZERO_TIME)
    throw std::logic_error(
        "a SystemC simulation has already run in this process and the kernel cannot be reset; run each "
        "cycle-accurate simulation in its own process (run_isolated)");
}

}  // namespace torus
