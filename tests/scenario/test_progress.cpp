// A long run on a terminal says how far it is; the line goes to the terminal (stderr) only.

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cli_runner.hpp"

using namespace torus;

TEST_CASE("a long run on a terminal shows simulated cycles, the share of the estimate and an ETA", "[scenario][progress]") {
  // One word per million cycles per link, every node stepping every cycle (fast-forward would
  // skip the idle cycles): this run would take many minutes; it is stopped as soon as its first
  // progress line has been seen.
  std::vector<std::string> args = {torus_sim_executable(), "run", "--N", "8", "--P", "2", "--link_words_per_cycle", "1/1000000",
                                   "--fast_forward", "off"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int terminal = -1;
  const pid_t child = ::forkpty(&terminal, nullptr, nullptr, nullptr);
  REQUIRE(child >= 0);
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);  // the report; stderr stays the terminal
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  std::string seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  char buffer[256];
  while (seen.find("ETA") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd ready{terminal, POLLIN, 0};
    if (::poll(&ready, 1, 500) == 0) continue;  // nothing yet: look at the deadline again
    const ssize_t n = ::read(terminal, buffer, sizeof buffer);
    if (n <= 0) break;
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(terminal);
  INFO(seen);
  CHECK_THAT(seen, Catch::Contains("\rsimulated ") && Catch::Contains(" cycles of about ") && Catch::Contains("%), ") &&
                       Catch::Contains(" elapsed, ETA "));
}
