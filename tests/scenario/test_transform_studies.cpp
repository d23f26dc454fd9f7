// The orbital-against-transpose study (scenarios/studies/orbital-vs-transpose.yaml): its plan,
// and a tiny variant of it (N = 8, golden-checked) whose refused points say why and whose report
// tables (crossover, time against nodes, where the cycles go) are checked against the sweep's
// own rows.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

const std::string transpose_study = std::string(TORUS_SOURCE_DIR) + "/scenarios/studies/orbital-vs-transpose.yaml";

// printf-style formatting of one number, as the report's Python formats it.
std::string printed(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

struct Point {
  std::string status, refusal;
  double seconds = 0;
  long cycles = 0, words = 0;
};

}  // namespace

TEST_CASE("the orbital-vs-transpose study plans six algorithms, two local kernels, three N, eleven node counts at six machine points",
          "[scenario][sweep][transpose]") {
  TempDir dir;
  CHECK(run_cli_to("sweep " + transpose_study + " --dry-run", dir.file("plan.txt")) == 0);
  const std::string plan = file_bytes(dir.file("plan.txt"));
  INFO(plan);
  CHECK_THAT(plan, Catch::Contains("2376 points to run") &&
                       Catch::Contains("fma_per_cycle=16 link_words_per_cycle=1/8 N=128 algorithm=slab_fft local_kernel=dense nodes=4096"));
}

TEST_CASE("the N = 256 companion plans six algorithms on three node counts", "[scenario][sweep][transpose]") {
  TempDir dir;
  const std::string large = std::string(TORUS_SOURCE_DIR) + "/scenarios/studies/orbital-vs-transpose-large.yaml";
  CHECK(run_cli_to("sweep " + large + " --dry-run", dir.file("plan.txt")) == 0);
  const std::string plan = file_bytes(dir.file("plan.txt"));
  INFO(plan);
  CHECK_THAT(plan, Catch::Contains("18 points to run") && Catch::Contains("algorithm=ring_block_fft nodes=512"));
}

TEST_CASE("the latency companion plans five algorithms on three node counts at eight machine points",
          "[scenario][sweep][transpose]") {
  TempDir dir;
  const std::string latency = std::string(TORUS_SOURCE_DIR) + "/scenarios/studies/orbital-vs-transpose-latency.yaml";
  CHECK(run_cli_to("sweep " + latency + " --dry-run", dir.file("plan.txt")) == 0);
  const std::string plan = file_bytes(dir.file("plan.txt"));
  INFO(plan);
  // 2 link latencies x 2 start-ups x 2 fma latencies x 5 algorithms x 3 node counts.
  CHECK_THAT(plan, Catch::Contains("120 points to run") &&
                       Catch::Contains("link_latency=50 message_startup_cycles=1000 fma_latency=16 algorithm=pencil_fft nodes=512"));
}

TEST_CASE("a tiny orbital-vs-transpose sweep: refusals with their reason, crossover and time tables from its rows",
          "[scenario][sweep][transpose][report]") {
  TempDir dir;
  const std::string text = file_bytes(transpose_study);
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << text.substr(0, text.find("sweep:"))
                          << "sweep:\n  link_words_per_cycle: [1/8, 4]\n  N: [8]\n"
                             "  algorithm: [orbital, orbital_local_coefficients, slab_fft, pencil_fft]\n  nodes: [2, 8, 16]\n";
  // The study says values off; the variant golden-checks every point that runs. Refused points
  // make the sweep exit 2, their class (an input problem).
  REQUIRE(run_cli_to("sweep " + scenario + " -j 2 -p values=on --out " + dir.file("out"), dir.file("sweep.log")) == 2);
  // The progress line counts the refusals apart from failures: orbital on 2 and 16 nodes and
  // slab_fft on 16, at both link speeds.
  CHECK_THAT(file_bytes(dir.file("sweep.log")), Catch::Contains("24/24 points") && Catch::Contains("0 failed, 6 refused"));
  std::map<std::string, Point> at;  // "link algorithm nodes"
  std::ifstream rows(dir.file("out") + "/results.jsonl");
  for (std::string line; std::getline(rows, line);) {
    const nlohmann::json row = nlohmann::json::parse(line);
    INFO(line);
    Point p{row["status"], row["refusal"].is_null() ? "" : row["refusal"].get<std::string>()};
    if (p.status == "ok") {
      CHECK(row["passed"] == true);
      CHECK(row["max_rel_error"].is_number());
      p.seconds = row["seconds"].get<double>();
      p.cycles = row["total_cycles"].get<long>();
      p.words = row["words_sent"].get<long>();
    }
    at[row["link_words_per_cycle"].get<std::string>() + " " + row["algorithm"].get<std::string>() + " " +
       row["nodes"].get<std::string>()] = p;
  }
  REQUIRE(at.size() == 24);
  // orbital needs a cube (2 and 16 nodes are not), slab_fft at most N nodes: refused, with why.
  for (const std::string link : {"1/8", "4"}) {
    INFO(link);
    for (const std::string nodes : {"2", "16"}) {
      CHECK(at[link + " orbital " + nodes].status == "refused");
      CHECK_THAT(at[link + " orbital " + nodes].refusal, Catch::Contains("cubic torus"));
    }
    CHECK(at[link + " slab_fft 16"].status == "refused");
    CHECK_THAT(at[link + " slab_fft 16"].refusal, Catch::Contains("slab_fft") && Catch::Contains("allowed"));
    for (const std::string a : {"orbital_local_coefficients", "slab_fft", "pencil_fft"}) CHECK(at[link + " " + a + " 8"].status == "ok");
  }

  REQUIRE(run_cli_to("report " + dir.file("out"), dir.file("report.log")) == 0);
  const std::string md = file_bytes(dir.file("out") + "/report.md");
  INFO(md);
  CHECK_THAT(md, Catch::Contains("## Transform algorithms on the same machine") && Catch::Contains("refused by their algorithm"));
  // The crossover row of each link speed, computed here from the rows.
  const std::vector<std::string> algorithms = {"orbital", "orbital_local_coefficients", "pencil_fft", "slab_fft"};
  for (const std::string link : {"1/8", "4"}) {
    std::string row = "| all points | 8 | " + link + " |";
    for (const std::string nodes : {"2", "8", "16"}) {
      std::vector<std::pair<double, std::string>> ran;
      for (const std::string& a : algorithms)
        if (at[link + " " + a + " " + nodes].status == "ok") ran.emplace_back(at[link + " " + a + " " + nodes].seconds, a);
      std::sort(ran.begin(), ran.end());
      std::string winner;
      for (const auto& [t, a] : ran)
        if (t == ran[0].first) winner += (winner.empty() ? "" : " = ") + a;
      const auto slower = std::find_if(ran.begin(), ran.end(), [&](const auto& r) { return r.first > ran[0].first; });
      row += " " + winner + " " + (slower == ran.end() ? std::string(ran.size() == 1 ? "alone" : "tied") : printed("%.3fx", slower->first / ran[0].first)) + " |";
    }
    CHECK_THAT(md, Catch::Contains(row));
  }
  // Time against nodes: seconds (cycles) per algorithm; the breakdown row gives the words moved.
  const Point& pencil = at["4 pencil_fft 8"];
  CHECK_THAT(md, Catch::Contains("### Time against nodes: N = 8, link_words_per_cycle 4") &&
                     Catch::Contains(printed("%.4g s", pencil.seconds) + " (" + std::to_string(pencil.cycles) + ")") &&
                     Catch::Contains("| nodes | orbital | orbital_local_coefficients | pencil_fft | slab_fft |") &&
                     Catch::Contains("| 8 | pencil_fft | 8 | " + std::to_string(pencil.cycles) + " |") &&
                     Catch::Contains(" | " + std::to_string(pencil.words) + " |"));
  CHECK(pencil.words > 0);
  CHECK(std::filesystem::file_size(dir.file("out") + "/plots/transform-front-0.png") > 10000);

  // tools/anchor_match.py: with the target at pencil_fft's time on the fast links, the slow
  // links (tried first, as the cheaper machine) do not match and the fast ones do.
  const Point& slow = at["1/8 pencil_fft 8"];
  REQUIRE(slow.seconds > pencil.seconds);
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string command = python + " " + TORUS_SOURCE_DIR + "/tools/anchor_match.py " + dir.file("out") + " --target " +
                              printed("%.17g", pencil.seconds) + " > " + dir.file("anchor.md") + " 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  const std::string anchor = file_bytes(dir.file("anchor.md"));
  INFO(anchor);
  CHECK_THAT(anchor, Catch::Contains("| pencil_fft | 8 | 8 | 1, 4 | " + std::to_string(pencil.cycles) + " | ") &&
                         Catch::Contains("| orbital | 8 | 2 | refused: ") && Catch::Contains("cubic torus"));
}

TEST_CASE("the anchor studies plan their machine points: Anton, the wafer, the TPU pod, the APE100", "[scenario][sweep][transpose]") {
  TempDir dir;
  const std::string base = std::string(TORUS_SOURCE_DIR) + "/scenarios/studies/";
  // 2 N x 5 algorithms x 2 local kernels x 5 fma rates x 3 link speeds; 2 x 6 x 4; 4 x 4; 2 x 4 x 3;
  // APE100: 2 N x 4 tori x 2 fma rates.
  for (const auto& [file, expected] : std::vector<std::pair<std::string, std::string>>{
           {"anchor-anton.yaml", "300 points to run"}, {"anchor-wafer.yaml", "48 points to run"},
           {"anchor-wafer-pencil.yaml", "16 points to run"}, {"anchor-tpu.yaml", "24 points to run"},
           {"ape100-fft.yaml", "16 points to run, 0 combinations dropped"}}) {
    INFO(file);
    CHECK(run_cli_to("sweep " + base + file + " --dry-run", dir.file("plan.txt")) == 0);
    CHECK_THAT(file_bytes(dir.file("plan.txt")), Catch::Contains(expected));
  }
}

TEST_CASE("published anchors of the swept size are named beside the time table and anchor_match reads one off by name",
          "[scenario][sweep][transpose][report]") {
  TempDir dir;
  const std::string text = file_bytes(transpose_study);
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << text.substr(0, text.find("sweep:"))
                          << "sweep:\n  N: [32]\n  algorithm: [orbital_local_coefficients, slab_fft]\n  nodes: [2]\n";
  REQUIRE(run_cli_to("sweep " + scenario + " -j 2 --out " + dir.file("out"), dir.file("sweep.log")) == 0);
  REQUIRE(run_cli_to("report " + dir.file("out"), dir.file("report.log")) == 0);
  const std::string md = file_bytes(dir.file("out") + "/report.md");
  INFO(md);
  // N = 32: Anton's 32^3 (3.7 us on 512 nodes) and no other anchor; the anchors of other sizes stay out.
  CHECK_THAT(md, Catch::Contains("Published (on its own machine; marked with a star on the plot): Anton 32^3 in 3.7e-06 s on 512 nodes") &&
                     !Catch::Contains("Anton 64^3") && !Catch::Contains("wafer 512^3"));

  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string tool = python + " " + TORUS_SOURCE_DIR + "/tools/anchor_match.py " + dir.file("out");
  REQUIRE(std::system((tool + " --anchor 'anton 32^3' --plot " + dir.file("anchor.png") + " > " + dir.file("anchor.md") + " 2>&1").c_str()) == 0);
  CHECK(std::filesystem::file_size(dir.file("anchor.png")) > 10000);
  const std::string anchor = file_bytes(dir.file("anchor.md"));
  INFO(anchor);
  CHECK_THAT(anchor, Catch::Contains("Target 3.7e-06 s: Anton 32^3 (Young et al.") && Catch::Contains("| slab_fft | 32 | 2 | "));
  const int status = std::system((tool + " --anchor 'Anton 16^3' > " + dir.file("bad.md") + " 2>&1").c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK_THAT(file_bytes(dir.file("bad.md")), Catch::Contains("--anchor: 'Anton 16^3' is not allowed; allowed: Anton 32^3"));
}

TEST_CASE("a report of more than 300 points leaves out the per-point breakdown bars and renders the rest",
          "[scenario][report]") {
  TempDir dir;
  const std::string text = file_bytes(transpose_study);
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << text.substr(0, text.find("sweep:")) << "sweep:\n  N: [8]\n  algorithm: [slab_fft]\n  nodes: [2]\n";
  REQUIRE(run_cli_to("sweep " + scenario + " --out " + dir.file("out"), dir.file("sweep.log")) == 0);
  // 301 copies of the one point, as a large sweep would leave them (the bars' figure would be
  // wider than a PNG may be at some 1,700 points).
  nlohmann::json row = nlohmann::json::parse(file_bytes(dir.file("out") + "/results.jsonl"));
  const std::string point = file_bytes(dir.file("out") + "/points/00000.json");
  std::ofstream rows(dir.file("out") + "/results.jsonl");
  for (int i = 0; i < 301; ++i) {
    row["point"] = i;
    rows << row.dump() << "\n";
    char name[32];
    std::snprintf(name, sizeof name, "/points/%05d.json", i);
    std::ofstream(dir.file("out") + name) << point;
  }
  rows.close();
  REQUIRE(run_cli_to("report " + dir.file("out"), dir.file("report.log")) == 0);
  CHECK(std::filesystem::exists(dir.file("out") + "/report.html"));
  CHECK(!std::filesystem::exists(dir.file("out") + "/plots/breakdown.png"));
  CHECK_THAT(file_bytes(dir.file("out") + "/report.md"), Catch::Contains("301 point(s)"));
}
