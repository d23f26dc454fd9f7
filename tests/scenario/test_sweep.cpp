// Sweeps: every point runs, and a sweep killed part-way and run again yields the same table as
// one that was never interrupted.

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <iomanip>
#include <thread>

#include "tests/background_job.hpp"
#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

int run_sweep_cli(const std::string& scenario, const std::string& out) {
  return run_cli_to("sweep " + scenario + " -j 2 --out " + out, "/dev/null");
}

}  // namespace

TEST_CASE("a sweep killed part-way and run again gives the uninterrupted table", "[scenario][sweep]") {
  TempDir dir;
  const std::string scenario = std::string(TORUS_SOURCE_DIR) + "/scenarios/studies/roll-policy.yaml";
  REQUIRE(run_sweep_cli(scenario, dir.file("whole")) == 0);

  // Start the same sweep in its own process group, wait until a few points are done, then kill
  // the group (the sweep and the points it is running) at once.
  const std::string out = dir.file("resumed");
  BackgroundJob job({torus_sim_executable(), "sweep", scenario, "-j", "2", "--out", out}, dir.file("log"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (finished_points(out) < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(-job.pid(), SIGKILL);
  REQUIRE(WIFSIGNALED(job.wait()));  // it was interrupted, not finished

  const std::string partial = deterministic_table(out);
  const std::string whole = deterministic_table(dir.file("whole"));
  CHECK(partial != whole);  // the kill left work undone
  REQUIRE(run_sweep_cli(scenario, out) == 0);
  CHECK(deterministic_table(out) == whole);
}

TEST_CASE("sweep points that are no valid run are dropped, bad values refused with their line", "[scenario][sweep]") {
  TempDir dir;
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << "N: 6\ntransform: dct\ndirection: forward\nsweep:\n  P: [1, 2, 4, 6]\n";
  REQUIRE(run_sweep_cli(scenario, dir.file("out")) == 0);
  std::ifstream csv(dir.file("out") + "/results.csv");
  std::size_t lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  CHECK(lines == 1 + 3);  // header + P = 1, 2, 6 (4 does not divide 6)

  std::ofstream(scenario) << "N: 6\nsweep:\n  P: [1, 2]\n  fma_latency: [1, zero]\n";
  const std::string command = torus_sim_executable() + " sweep " + scenario + " --out " + dir.file("bad") + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  CHECK(WEXITSTATUS(::pclose(pipe)) == 2);
  CHECK_THAT(output, Catch::Contains("s.yaml:4:") && Catch::Contains("fma_latency: 'zero'"));
}

TEST_CASE("a sweep does not write over tables it did not make", "[scenario][sweep][errors]") {
  TempDir dir;
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << "N: 4\nengine: event\ndirection: forward\nsweep:\n  P: [1, 2]\n";
  const std::string out = dir.file("mine");
  std::filesystem::create_directory(out);
  std::ofstream(out + "/results.csv") << "my own table\n";
  const std::string command = torus_sim_executable() + " sweep " + scenario + " --out " + out + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  CHECK(WEXITSTATUS(::pclose(pipe)) == 2);
  CHECK_THAT(output, Catch::Contains("--out: '" + out + "' holds results.csv but no points/ folder, so no sweep wrote it"));
  CHECK(file_bytes(out + "/results.csv") == "my own table\n");
  // A folder a sweep wrote is its own: the same command resumes there.
  const std::string own = dir.file("own");
  REQUIRE(run_sweep_cli(scenario, own) == 0);
  CHECK(run_sweep_cli(scenario, own) == 0);
}

TEST_CASE("report renders a sweep as Markdown and a self-contained HTML page with plots", "[scenario][report]") {
  TempDir dir;
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << "N: 8\ntransform: dct\ndirection: forward\nsweep:\n  P: [2, 4, 8]\n  fma_latency: [1, 8]\n";
  REQUIRE(run_sweep_cli(scenario, dir.file("out")) == 0);
  const std::string command = torus_sim_executable() + " report " + dir.file("out") + " > /dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream page_file(dir.file("out") + "/report.html");
  const std::string page((std::istreambuf_iterator<char>(page_file)), std::istreambuf_iterator<char>());
  CHECK_THAT(page, Catch::Contains("Cycles against block size") && Catch::Contains("Cycles against node count") &&
                       Catch::Contains("Simulated against analytic") && Catch::Contains("Link utilisation"));
  CHECK(page.find("http") == std::string::npos);  // nothing to fetch: it opens offline
  // Every plot is embedded, and each is a real picture, not an empty canvas.
  std::size_t images = 0;
  for (std::size_t at = page.find("data:image/png;base64,"); at != std::string::npos;
       at = page.find("data:image/png;base64,", at + 1)) {
    const std::size_t end = page.find('"', at);
    CHECK(end - at > 10000);  // an empty 6 x 4 inch PNG is a few kB; these carry lines and text
    ++images;
  }
  CHECK(images == 6);
  CHECK(std::filesystem::exists(dir.file("out") + "/report.md"));
  CHECK(std::filesystem::file_size(dir.file("out") + "/plots/cycles-vs-b.png") > 10000);
}

TEST_CASE("the large-torus studies sweep with values off: counts in the table, no error column", "[scenario][sweep][values]") {
  TempDir dir;
  const std::string scenario = std::string(TORUS_SOURCE_DIR) + "/scenarios/studies/extreme-scaling.yaml";
  REQUIRE(run_sweep_cli(scenario, dir.file("out")) == 0);
  std::ifstream csv(dir.file("out") + "/results.csv");
  std::string header, row;
  REQUIRE(std::getline(csv, header));
  std::size_t rows = 0;
  while (std::getline(csv, row)) {
    ++rows;
    CHECK_THAT(row, Catch::Contains(",ok,0,"));
  }
  CHECK(rows == 15);  // N, P in 8..128 with P dividing N
  CHECK_THAT(header, Catch::Contains("max_rel_error"));
}

TEST_CASE("a matmul sweep: the algorithm run, words sent and steps in the table, report renders the shape table and plot",
          "[scenario][sweep][matmul]") {
  TempDir dir;
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << "task: matmul\nengine: event\nm: 32\nk: 8\nn: 4\nsweep:\n  algorithm: [systolic, a_stationary, auto]\n"
                             "  array: [1x4, 2x2, 4x1]\n";
  REQUIRE(run_sweep_cli(scenario, dir.file("out")) == 0);
  std::ifstream rows_file(dir.file("out") + "/results.jsonl");
  std::size_t rows = 0;
  for (std::string line; std::getline(rows_file, line); ++rows) {
    const nlohmann::json row = nlohmann::json::parse(line);
    INFO(line);
    CHECK(row["status"] == "ok");
    // auto takes A stationary: m = 32 >= 8 n.
    CHECK(row["matmul_algorithm"] == (row["algorithm"] == "systolic" ? "systolic" : "a_stationary"));
    std::ostringstream name;
    name << dir.file("out") << "/points/" << std::setw(5) << std::setfill('0') << row["point"].get<int>() << ".json";
    std::ifstream point(name.str());
    const nlohmann::json report = nlohmann::json::parse(point)["report"];
    CHECK(row["matmul_words_sent"] == report["matmul"]["words_sent"]);
    CHECK(row["matmul_words_sent_per_node"] == report["matmul"]["words_sent_per_node"]);
    CHECK(row["matmul_compute_steps"] == report["matmul"]["compute_steps"]);
    CHECK(row["total_cycles"] == report["timing"]["total_cycles"]);
    CHECK(row["max_rel_error"] == report["matmul"]["golden"]["max_rel_error"]);
  }
  CHECK(rows == 9);
  const std::string command = torus_sim_executable() + " report " + dir.file("out") + " > /dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream md_file(dir.file("out") + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(md_file)), std::istreambuf_iterator<char>());
  CHECK_THAT(md, Catch::Contains("### 32 x 8 x 4") && Catch::Contains("| algorithm | 1x4 | 2x2 | 4x1 | best array |") &&
                     Catch::Contains("### The shape rule") && Catch::Contains("Cycles against Nr / Nc"));
  CHECK(std::filesystem::file_size(dir.file("out") + "/plots/matmul-shape.png") > 10000);
  CHECK(std::filesystem::file_size(dir.file("out") + "/plots/matmul-words.png") > 10000);
}

namespace {

// The points `torus-sim sweep --dry-run` plans for a study file under scenarios/studies/.
std::string planned_points(const std::string& study) {
  const std::string scenario = std::string(TORUS_SOURCE_DIR) + "/scenarios/studies/" + study;
  TempDir dir;
  const std::string command = torus_sim_executable() + " sweep " + scenario + " --dry-run > " + dir.file("plan.txt") + " 2>&1";
  CHECK(std::system(command.c_str()) == 0);
  return file_bytes(dir.file("plan.txt"));
}

}  // namespace

TEST_CASE("the array-shape study plans every factorisation of 64 nodes for three algorithms and products at two fma rates",
          "[scenario][sweep][matmul]") {
  const std::string plan = planned_points("matmul-shape.yaml");
  INFO(plan);
  // 2 fma rates x 3 products x 3 algorithms x 7 arrays (1x64 .. 64x1).
  CHECK_THAT(plan, Catch::Contains("126 points to run") && Catch::Contains("fma_per_cycle=16 n=16 algorithm=b_stationary array=64x1"));
}

TEST_CASE("the 256-node array-shape study plans every factorisation of 256 nodes for three algorithms and products",
          "[scenario][sweep][matmul]") {
  const std::string plan = planned_points("matmul-shape-256.yaml");
  INFO(plan);
  // 3 products x 3 algorithms x 9 arrays (1x256 .. 256x1).
  CHECK_THAT(plan, Catch::Contains("81 points to run") && Catch::Contains("n=256 algorithm=systolic array=1x256") &&
                       Catch::Contains("n=16 algorithm=b_stationary array=256x1"));
}
