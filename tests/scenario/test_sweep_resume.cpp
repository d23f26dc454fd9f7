// Sweeps that go wrong part-way: points killed by a signal, records cut short, signals to the
// sweep itself, failing points and their exit code, and folders that are not folders.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sys/stat.h>
#include <thread>

#include "tests/cli_runner.hpp"

extern char** environ;

using namespace torus;
namespace fs = std::filesystem;

namespace {

// Points of about 0.3 s each: long enough to be caught running.
constexpr const char* slow_sweep =
    "N: 16\nP: 2\ndirection: forward\nsweep:\n  link_words_per_cycle: [1/200, 1/220]\n  fma_latency: [1, 4]\n";

std::string write_scenario(const TempDir& dir, const std::string& text) {
  const std::string path = dir.file("s.yaml");
  std::ofstream(path) << text;
  return path;
}

CliRun sweep(const std::string& scenario, const std::string& out, std::initializer_list<std::string> extra = {}) {
  std::vector<std::string> args = {torus_sim_executable(), "sweep", scenario, "--out", out};
  args.insert(args.end(), extra);
  return run_program(args);
}

// A sweep started in the background, and the points it has running.
class BackgroundSweep {
 public:
  BackgroundSweep(const std::string& scenario, const std::string& out, const char* jobs) {
    std::vector<std::string> args = {torus_sim_executable(), "sweep", scenario, "-j", jobs, "--out", out};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    REQUIRE(posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
  }
  // Waits (up to a minute) until `count` points run at once, and returns their process ids.
  std::vector<pid_t> wait_for_points(std::size_t count) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::vector<pid_t> children;
    while (children.size() < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::ifstream in("/proc/" + std::to_string(pid_) + "/task/" + std::to_string(pid_) + "/children");
      children.clear();
      for (pid_t child = 0; in >> child;) children.push_back(child);
    }
    return children;
  }
  int wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    return status;
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
};

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

}  // namespace

TEST_CASE("a sweep point killed by a signal is run again on resume", "[scenario][sweep][resume]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, slow_sweep);
  REQUIRE(sweep(scenario, dir.file("whole")).exit_code == 0);

  BackgroundSweep background(scenario, dir.file("killed"), "1");
  const std::vector<pid_t> points = background.wait_for_points(1);
  REQUIRE(points.size() == 1);
  ::kill(points.front(), SIGKILL);
  const int status = background.wait();
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 4);  // a killed point is a runtime failure
  CHECK(deterministic_table(dir.file("killed")) != deterministic_table(dir.file("whole")));
  CHECK_THAT(deterministic_table(dir.file("killed")), Catch::Contains("\"status\":\"killed\""));

  const CliRun resumed = sweep(scenario, dir.file("killed"));
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Catch::Contains("the point was killed by a signal (exit 137); running it again"));
  CHECK(deterministic_table(dir.file("killed")) == deterministic_table(dir.file("whole")));
}

TEST_CASE("an empty or corrupt point record is named and its point run again", "[scenario][sweep][resume]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, "N: 4\ndirection: forward\nsweep:\n  P: [1, 2, 4]\n");
  const std::string out = dir.file("out");
  REQUIRE(sweep(scenario, out).exit_code == 0);
  const std::string whole = deterministic_table(out);
  std::ofstream(out + "/points/00001.json", std::ios::trunc).flush();
  std::ofstream(out + "/points/00002.json", std::ios::trunc) << "{\"point\": 2, \"fingerpr";

  const CliRun resumed = sweep(scenario, out);
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Catch::Contains(out + "/points/00001.json: empty or not a point record"));
  CHECK_THAT(resumed.output, Catch::Contains(out + "/points/00002.json: empty or not a point record"));
  CHECK(deterministic_table(out) == whole);
}

TEST_CASE("SIGTERM to a sweep stops its points too, and the sweep resumes afterwards", "[scenario][sweep][signals]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, slow_sweep);
  BackgroundSweep background(scenario, dir.file("out"), "2");
  const std::vector<pid_t> points = background.wait_for_points(2);
  REQUIRE(points.size() == 2);
  ::kill(background.pid(), SIGTERM);
  const int status = background.wait();
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  for (const pid_t point : points) {
    CHECK_FALSE(alive(point));
    if (alive(point)) ::kill(point, SIGKILL);  // do not leave it running after the test
  }
  const CliRun resumed = sweep(scenario, dir.file("out"));
  CHECK(resumed.exit_code == 0);
  CHECK(deterministic_table(dir.file("out")).size() > 0);
}

TEST_CASE("a sweep exits with its worst point's class and says which", "[scenario][sweep][exit]") {
  TempDir dir;
  SECTION("a mismatch and a stall: 5") {
    const std::string scenario =
        write_scenario(dir, "N: 8\nP: 2\nfault_node: 0,0,0\nfault_link: +Q\nsweep:\n  fault: [none, bit_flip, drop_word]\n");
    const CliRun run = sweep(scenario, dir.file("out"));
    CHECK(run.exit_code == 5);
    CHECK_THAT(run.output, Catch::Contains("2 failed: 1 golden mismatch (exit 3), 1 stalled (exit 5); the sweep exits 5, "
                                           "its worst class (stalled), first at point 2"));
  }
  SECTION("a point refused and a mismatch: 3") {
    const std::string scenario =
        write_scenario(dir, "N: 12\nfault: bit_flip\nfault_node: 2,2,2\nfault_link: +Q\nsweep:\n  P: [2, 3]\n");
    const CliRun run = sweep(scenario, dir.file("out"));
    CHECK(run.exit_code == 3);
    CHECK_THAT(run.output, Catch::Contains("1 input problem (exit 2), 1 golden mismatch (exit 3); the sweep exits 3"));
  }
}

TEST_CASE("a sweep with nothing to run is an error, -p over a swept parameter warns", "[scenario][sweep][errors]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, "N: 9\nsweep:\n  P: [2, 4, 8]\n");
  const CliRun none = sweep(scenario, dir.file("out"));
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.output, Catch::Contains("sweep: all 3 combinations are dropped (P does not divide N in any of them)"));

  const std::string swept = write_scenario(dir, "N: 8\nsweep:\n  P: [1, 2, 4]\n");
  const CliRun hidden = run_program({torus_sim_executable(), "sweep", swept, "--dry-run", "-p", "P=2"});
  CHECK(hidden.exit_code == 0);
  CHECK_THAT(hidden.output, Catch::Contains("warning: -p P=2 overrides the swept parameter P: its 3 values in the scenario are not used"));
  const CliRun ran = run_program({torus_sim_executable(), "sweep", swept, "--out", dir.file("hidden"), "-p", "P=2", "-p",
                                  "engine=event", "-p", "direction=forward"});
  CHECK(ran.exit_code == 0);
  const std::string rows = file_bytes(dir.file("hidden/results.jsonl"));
  CHECK(std::count(rows.begin(), rows.end(), '\n') == 3);
}

TEST_CASE("a sweep refuses a results folder that is a file, and tables that are not files", "[scenario][sweep][output]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, "N: 4\nsweep:\n  P: [1, 2]\n");
  std::ofstream(dir.file("file")) << "x\n";
  const CliRun onto_file = sweep(scenario, dir.file("file"));
  CHECK(onto_file.exit_code == 2);
  CHECK_THAT(onto_file.output, Catch::Contains("--out: '" + dir.file("file") + "' is not a folder"));

  fs::create_directory(dir.file("out"));
  const std::string fifo = dir.file("out/results.csv");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const CliRun onto_fifo = sweep(scenario, dir.file("out"));
  CHECK(onto_fifo.exit_code == 2);
  CHECK_THAT(onto_fifo.output, Catch::Contains("'" + fifo + "' is a FIFO"));
  CHECK(fs::is_fifo(fifo));
  CHECK_FALSE(fs::exists(dir.file("out/points/00000.json")));  // refused before any point ran

  fs::remove(fifo);
  fs::create_directories(dir.file("out/points/00001.json"));
  const CliRun onto_folder = sweep(scenario, dir.file("out"));
  CHECK(onto_folder.exit_code == 2);
  CHECK_THAT(onto_folder.output, Catch::Contains("--out: '" + dir.file("out/points/00001.json") + "' is not a regular file"));
  CHECK_FALSE(fs::exists(dir.file("out/points/00000.json")));
}

TEST_CASE("planning 100,000 points lists each exactly once, in order, without the dropped ones", "[scenario][sweep][plan]") {
  TempDir dir;
  std::vector<int> n, p, seed;
  for (int i = 4; i < 104; ++i) n.push_back(i);
  for (int i = 1; i <= 10; ++i) p.push_back(i);
  for (int i = 1; i <= 100; ++i) seed.push_back(i);
  const auto list = [](const std::vector<int>& v) {
    std::string text = "[";
    for (int x : v) text += std::to_string(x) + ",";
    text.back() = ']';
    return text;
  };
  const std::string scenario =
      write_scenario(dir, "transform: dct\nsweep:\n  N: " + list(n) + "\n  P: " + list(p) + "\n  seed: " + list(seed) + "\n");
  // The expected listing, enumerated here independently: N slowest, seed fastest.
  std::string expected;
  std::size_t index = 0;
  for (int ni : n)
    for (int pi : p)
      for (int si : seed)
        if (ni % pi == 0) {
          char line[64];
          std::snprintf(line, sizeof line, "%05zu N=%d P=%d seed=%d\n", index++, ni, pi, si);
          expected += line;
        }
  const CliRun run = run_program({torus_sim_executable(), "sweep", scenario, "--dry-run"});
  REQUIRE(run.exit_code == 0);
  const std::string summary = std::to_string(index) + " points to run, " + std::to_string(100000 - index) +
                              " combinations dropped (P does not divide N)\n";
  CHECK(run.output == expected + summary);
}
