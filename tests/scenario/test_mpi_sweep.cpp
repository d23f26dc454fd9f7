// Sweeps across MPI ranks (sim/mpi_sweep.hpp), on this machine over loopback only: the table
// equals the single-machine one, whatever the ranks and jobs, after the whole job is killed
// and run again, and after one rank is killed mid-point; a failing point is reported once.

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "tests/address_sanitizer.hpp"
#include "tests/background_job.hpp"
#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

// 20 points of a few milliseconds each.
constexpr const char* tiny_sweep =
    "N: 4\nP: 2\nengine: event\ndirection: forward\nsweep:\n  seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n  fma_latency: [1, 4]\n";
// 20 points of about a quarter of a second each (0.24 s for the first): long enough to be
// caught running. Fast-forward off: every node steps every cycle, so a point's time does not
// shrink with what fast-forward skips. AddressSanitizer's build runs them 16 times slower (3.8 s
// for the first point), so there N = 8 (8.6 times fewer cycles, 0.44 s) keeps these tests from
// taking minutes.
const std::string slow_sweep =
    std::string(built_with_address_sanitizer ? "N: 8\n" : "N: 16\n") +
    "P: 2\ndirection: forward\nfast_forward: off\nsweep:\n  link_words_per_cycle: [1/60, 1/63, 1/66, 1/69, 1/72]\n"
    "  fma_latency: [1, 2, 3, 4]\n";

std::string write_scenario(const TempDir& dir, const std::string& text) {
  const std::string path = dir.file("s.yaml");
  std::ofstream(path) << text;
  return path;
}

struct MpiRun {
  int ranks = 3;
  bool recovery = true;
  std::vector<std::string> sweep_options;
  std::string transports = "self,vader,tcp";  // "self,tcp": as between hosts, no shared memory
};

// mpirun over loopback only (the byte-transfer layer, never UCX or other fabrics: TCP between
// ranks and to mpirun on `lo`, shared memory within the host unless `transports` says
// otherwise), ranks not bound to cores (each runs point processes), more ranks than cores.
std::vector<std::string> mpirun(const MpiRun& run, const std::string& scenario, const std::string& out) {
  if (::geteuid() == 0) {  // Open MPI refuses root unless told twice
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  std::vector<std::string> args = {TORUS_MPIEXEC, "--oversubscribe", "--bind-to", "none", "-np", std::to_string(run.ranks),
                                   "--mca", "pml", "ob1", "--mca", "btl", run.transports,
                                   "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo"};
  if (run.recovery) args.push_back("--enable-recovery");
  args.insert(args.end(), {torus_sim_executable(), "sweep", scenario, "--out", out});
  args.insert(args.end(), run.sweep_options.begin(), run.sweep_options.end());
  return args;
}

std::string plain_table(const std::string& scenario, const std::string& out) {
  const CliRun plain = run_program({torus_sim_executable(), "sweep", scenario, "--out", out, "-j", "2"});
  REQUIRE(plain.exit_code == 0);
  return deterministic_table(out);
}

std::vector<pid_t> children(pid_t pid) {
  std::vector<pid_t> out;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
    std::ifstream in(task.path() / "children");
    for (pid_t child = 0; in >> child;) out.push_back(child);
  }
  return out;
}

std::vector<pid_t> descendants(pid_t pid) {
  std::vector<pid_t> all = {pid};
  for (std::size_t i = 0; i < all.size(); ++i)
    for (pid_t child : children(all[i])) all.push_back(child);
  return all;
}

// Alive and not a zombie.
bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

bool gone_within(pid_t pid, std::chrono::seconds limit) {
  for (const auto until = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < until;) {
    if (!running(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !running(pid);
}

// The rank of an MPI process, from the environment mpirun gave it; -1 if none.
int rank_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
  for (std::string entry; std::getline(in, entry, '\0');)
    if (entry.starts_with("OMPI_COMM_WORLD_RANK=")) return std::stoi(entry.substr(21));
  return -1;
}

template <class Condition>
bool wait_until(Condition condition, std::chrono::seconds limit = std::chrono::seconds(60)) {
  for (const auto until = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < until;) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("an MPI sweep gives the single-machine table, whatever the ranks and jobs", "[mpi][sweep]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, tiny_sweep);
  const std::string whole = plain_table(scenario, dir.file("plain"));
  REQUIRE(std::count(whole.begin(), whole.end(), '\n') == 20);

  const CliRun three = run_program(mpirun({3, false, {"-j", "1"}}, scenario, dir.file("three")));
  INFO(three.output);
  REQUIRE(three.exit_code == 0);
  CHECK(deterministic_table(dir.file("three")) == whole);
  // Every rank ran points, and the counts add up to the sweep.
  std::smatch counts;
  REQUIRE(std::regex_search(three.output, counts, std::regex(R"(20/20 points .*points per rank 0:(\d+) 1:(\d+) 2:(\d+))")));
  CHECK(std::stoi(counts[1]) + std::stoi(counts[2]) + std::stoi(counts[3]) == 20);
  CHECK(std::min({std::stoi(counts[1]), std::stoi(counts[2]), std::stoi(counts[3])}) >= 1);
  // Rank 0 wrote each point's record and output; nothing is left half-done.
  for (std::size_t i = 0; i < 20; ++i) {
    CHECK(std::filesystem::file_size(dir.file("three/points/" + std::to_string(100000 + i).substr(1) + ".log")) > 0);
    CHECK_FALSE(std::filesystem::exists(dir.file("three/points/" + std::to_string(100000 + i).substr(1) + ".report.json")));
  }

  const CliRun two = run_program(mpirun({2, true, {"-j", "2"}}, scenario, dir.file("two")));
  INFO(two.output);
  REQUIRE(two.exit_code == 0);
  CHECK(deterministic_table(dir.file("two")) == whole);
}

TEST_CASE("an MPI sweep killed as a whole and run again gives the uninterrupted table", "[mpi][sweep][resume]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, slow_sweep);
  const std::string whole = plain_table(scenario, dir.file("plain"));
  const std::string out = dir.file("mpi");
  const std::vector<std::string> command = mpirun({3, true, {"-j", "1"}}, scenario, out);
  {
    BackgroundJob job(command, dir.file("first.log"));
    REQUIRE(wait_until([&] { return finished_points(out) >= 4; }));
    SECTION("every process killed at once (a node lost, a job cancelled hard)") {
      const std::vector<pid_t> all = descendants(job.pid());
      for (pid_t pid : all) ::kill(pid, SIGSTOP);  // none may react to the others' deaths
      for (pid_t pid : all) ::kill(pid, SIGKILL);
      job.wait();
      for (pid_t pid : all) CHECK(gone_within(pid, std::chrono::seconds(10)));
    }
    SECTION("SIGTERM to mpirun (scancel, Ctrl-C)") {
      // mpirun passes it on to the ranks and leaves without waiting for their last words.
      ::kill(job.pid(), SIGTERM);
      job.wait();
    }
  }
  CHECK(finished_points(out) >= 4);  // the records of finished points stay
  CHECK(deterministic_table(out) != whole);  // the kill left work undone
  const CliRun resumed = run_program(command);
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Catch::Contains("done before"));
  CHECK(deterministic_table(out) == whole);
}

TEST_CASE("an MPI rank killed mid-point: the others run its points, the table is whole", "[mpi][sweep][rank]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, slow_sweep);
  const std::string whole = plain_table(scenario, dir.file("plain"));
  // TCP only, as between hosts: the survivors must outlive their broken connections to it.
  BackgroundJob job(mpirun({3, true, {"-j", "1", "--rank-timeout", "4"}, "self,tcp"}, scenario, dir.file("mpi")),
                    dir.file("mpi.log"));
  pid_t rank1 = 0;
  std::vector<pid_t> its_points;
  REQUIRE(wait_until([&] {
    for (pid_t pid : children(job.pid()))
      if (rank_of(pid) == 1) rank1 = pid;
    its_points = rank1 != 0 ? children(rank1) : std::vector<pid_t>{};
    return !its_points.empty();
  }));
  ::kill(rank1, SIGKILL);
  const int status = job.wait();
  const std::string output = job.output();
  INFO(output);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(std::regex_search(output, std::regex(R"(rank 1 silent for 4 s \(--rank-timeout\): taken for dead; its points in flight \(\d{5}\) run again on the other ranks)")));
  CHECK_THAT(output, Catch::Contains("20/20 points") && Catch::Contains("1:") && Catch::Contains("(lost)"));
  for (pid_t point : its_points) CHECK(gone_within(point, std::chrono::seconds(5)));  // died with its rank
  CHECK(deterministic_table(dir.file("mpi")) == whole);  // nothing lost, nothing twice
}

TEST_CASE("a point that fails on a rank is reported once, with its class", "[mpi][sweep][exit]") {
  TempDir dir;
  // Point 7's fault fires at cycle 0; the others' after the run ends, so they pass.
  std::string cycles;
  for (int i = 0; i < 20; ++i) cycles += (i == 0 ? "" : ", ") + std::to_string(i == 7 ? 0 : 1000000 + i);
  const std::string scenario = write_scenario(
      dir, "N: 4\nP: 2\ndirection: forward\nfault: bit_flip\nfault_node: 0,0,0\nfault_link: +Q\nsweep:\n  fault_cycle: [" +
               cycles + "]\n");
  const std::string message =
      "1 failed: 1 golden mismatch (exit 3); the sweep exits 3, its worst class (golden mismatch), first at point 7";
  const auto check_table = [&](const std::string& out) {  // one row per point, one of them failed
    std::ifstream in(out + "/results.jsonl");
    std::vector<std::size_t> failed;
    std::size_t rows = 0;
    for (std::string line; std::getline(in, line); ++rows) {
      const nlohmann::json row = nlohmann::json::parse(line);
      CHECK(row["point"] == rows);
      if (row["exit_code"] != 0) failed.push_back(row["point"].get<std::size_t>());
      if (row["exit_code"] != 0) CHECK(row["exit_code"] == 3);
      if (row["exit_code"] != 0) CHECK(row["status"] == "failed");
    }
    CHECK(rows == 20);
    CHECK(failed == std::vector<std::size_t>{7});
  };

  SECTION("without --enable-recovery mpirun exits with rank 0's code") {
    const CliRun run = run_program(mpirun({3, false, {}}, scenario, dir.file("out")));
    INFO(run.output);
    CHECK(run.exit_code == 3);
    CHECK(count_of(run.output, "failed:") == 1);
    CHECK(count_of(run.output, message) == 1);
    check_table(dir.file("out"));
  }
  SECTION("with it, mpirun exits 0 (Open MPI 4.1); a plain sweep of the folder gives the class") {
    const CliRun run = run_program(mpirun({3, true, {}}, scenario, dir.file("out")));
    INFO(run.output);
    CHECK(run.exit_code == 0);
    CHECK(count_of(run.output, message) == 1);
    check_table(dir.file("out"));
    const CliRun again = run_program({torus_sim_executable(), "sweep", scenario, "--out", dir.file("out")});
    CHECK(again.exit_code == 3);
    CHECK_THAT(again.output, Catch::Contains("20/20 points (20 done before") && Catch::Contains(message));
  }
}

TEST_CASE("an MPI sweep refused by rank 0 ends every rank", "[mpi][sweep][errors]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, tiny_sweep);
  std::ofstream(dir.file("file")) << "x\n";
  const CliRun run = run_program(mpirun({3, false, {}}, scenario, dir.file("file")));
  CHECK(run.exit_code == 2);
  CHECK(count_of(run.output, "--out: '" + dir.file("file") + "' is not a folder") == 1);
}
