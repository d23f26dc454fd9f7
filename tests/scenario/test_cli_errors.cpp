// The command line's answers to mistakes: each names the file and line (for scenarios), the
// parameter, the value and what is allowed, and exits with the documented code.

#include <catch2/catch.hpp>

#include <fstream>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

CliRun run_scenario(const TempDir& dir, const std::string& text) {
  const std::string path = dir.file("scenario.yaml");
  std::ofstream(path) << text;
  return run_cli("run " + path);
}

}  // namespace

TEST_CASE("scenario mistakes are reported with file, line and column", "[scenario][cli][errors]") {
  TempDir dir;
  SECTION("unknown key, with a suggestion") {
    const CliRun run = run_scenario(dir, "N: 8\nP: 2\nfma_latncy: 4\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:3:1: unknown key 'fma_latncy' (did you mean 'fma_latency'?)"));
  }
  SECTION("wrong type") {
    const CliRun run = run_scenario(dir, "N: eight\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:1:4: N: 'eight'") && Catch::Contains("whole number from 1 to 65536"));
  }
  SECTION("out of range") {
    const CliRun run = run_scenario(dir, "N: 8\nP: 2\nfma_latency: 0\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:3:14: fma_latency: '0'") && Catch::Contains("from 1 to 1024"));
  }
  SECTION("a list where one value belongs") {
    const CliRun run = run_scenario(dir, "N: [8, 16]\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:1:4: N: a single value is needed"));
  }
  SECTION("malformed YAML") {
    const CliRun run = run_scenario(dir, "N: 8\nP: [2\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:3:1: malformed YAML"));
  }
  SECTION("a choice misspelt") {
    const CliRun run = run_scenario(dir, "roll_policy: overlaped\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("allowed: after_compute, overlapped (did you mean 'overlapped'?)"));
  }
  SECTION("an include that is not there") {
    const CliRun run = run_scenario(dir, "include: machines/nothing.yaml\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:1:10: include: 'machines/nothing.yaml' is not a file"));
  }
}

TEST_CASE("options on the command line override the scenario file", "[scenario][cli]") {
  const CliRun run = run_cli("run " + std::string(TORUS_SOURCE_DIR) + "/scenarios/quickstart.yaml --N 8 -p P=2");
  REQUIRE(run.exit_code == 0);
  CHECK(run.report["N"] == 8);
  CHECK(run.report["P"] == 2);
  CHECK(run.report["transform"] == "dct");  // from the file
}

TEST_CASE("run on a scenario with a sweep says it times one point, unless every swept key is given", "[scenario][cli]") {
  TempDir dir;
  const std::string path = dir.file("scenario.yaml");
  std::ofstream(path) << "N: 8\nP: 2\nengine: event\ndirection: forward\nsweep:\n  fma_latency: [1, 4]\n  link_latency: [1, 2]\n";
  const CliRun one = run_cli("run " + path + " --fma_latency 3");
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.output, Catch::Contains("note: " + path + " has a sweep: run times one point, with link_latency as set "
                                         "outside sweep: or by default"));
  CHECK(one.report["machine"]["fma_latency"] == "3");
  const CliRun chosen = run_cli("run " + path + " --fma_latency 3 -p link_latency=2");
  REQUIRE(chosen.exit_code == 0);
  CHECK_THAT(chosen.output, !Catch::Contains("has a sweep"));
}

TEST_CASE("exit codes tell usage errors from runtime failures", "[scenario][cli]") {
  CHECK(run_cli("run --N 3 --P 4").exit_code == 2);          // bad parameters: fewer elements than nodes
  CHECK(run_cli("frobnicate").exit_code == 2);               // unknown command
  CHECK(run_cli("run --output /proc/x.npy").exit_code == 2); // a folder that cannot be written
  const std::string verify = torus_sim_executable() + " verify --P 3 --alpha all --direction both > /dev/null";
  CHECK(std::system(verify.c_str()) == 0);
}

TEST_CASE("a run too big for memory is refused at once, with the estimate and the limit", "[scenario][cli][memory]") {
  const CliRun huge = run_cli("run --N 4096 --P 4096");
  CHECK(huge.exit_code == 2);
  CHECK_THAT(huge.output, Catch::Contains("memory: this run needs about") && Catch::Contains("GiB (nodes") &&
                              Catch::Contains("but the available memory allows"));
  const CliRun capped = run_cli("run --max_memory 1000000");
  CHECK(capped.exit_code == 2);
  CHECK_THAT(capped.output, Catch::Contains("but max_memory allows 1.0 MiB"));
  CHECK(run_cli("run --max_memory 1000000000").exit_code == 0);  // the default scenario needs ~ 20 MiB
  // The APE100 paper's 8192^2 FFT on 512 nodes: engine event sends, forwards and stores its
  // 2.75 million routed hops whole (measured peak 1.4 GiB); counted per word it would be ~100 GiB.
  const CliRun ape = run_cli("run --engine event --values off --algorithm ring_transpose_fft --N 8192x8192x1 --P 8 "
                             "--transform dft --direction forward --max_memory 1000000000");
  CHECK(ape.exit_code == 2);
  const auto at = ape.output.find("needs about ");
  REQUIRE(at != std::string::npos);
  const double gib = std::stod(ape.output.substr(at + 12));
  CHECK(ape.output.substr(at + 12).find(" GiB") < 8);
  CHECK(gib > 1.4);
  CHECK(gib < 2.5);
  const CliRun too_many = run_cli("run --N 65536x65536x32 --P 2");
  CHECK(too_many.exit_code == 2);
  CHECK_THAT(too_many.output, Catch::Contains("N: '65536x65536x32' has 137438953472 elements; allowed: at most 4096^3"));
}

TEST_CASE("same scenario and seed: bit-identical results and cycles, run to run and in -j sweeps", "[scenario][determinism]") {
  TempDir dir;
  std::string results[2];
  nlohmann::json timing[2];
  for (int i = 0; i < 2; ++i) {
    const std::string npy = dir.file(i == 0 ? "first.npy" : "second.npy");
    const CliRun run = run_cli("run --N 12 --P 3 --transform dft --roll_policy overlapped --seed 7 --output " + npy);
    REQUIRE(run.exit_code == 0);
    timing[i] = run.report["timing"];
    for (const char* host : {"simulation_seconds", "node_cycles_per_second", "peak_memory_bytes"}) timing[i].erase(host);
    std::ifstream in(npy, std::ios::binary);
    results[i].assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  CHECK(results[0] == results[1]);
  CHECK(timing[0] == timing[1]);

  // A sweep gives the same table whether its points run one at a time or two at once.
  const std::string scenario = std::string(TORUS_SOURCE_DIR) + "/scenarios/all-alphas.yaml";
  std::string tables[2];
  for (int jobs = 1; jobs <= 2; ++jobs) {
    const std::string out = dir.file(jobs == 1 ? "serial" : "parallel");
    const std::string command =
        torus_sim_executable() + " sweep " + scenario + " -j " + std::to_string(jobs) + " --out " + out + " 2> /dev/null";
    REQUIRE(std::system(command.c_str()) == 0);
    std::ifstream in(out + "/results.jsonl");
    for (std::string line; std::getline(in, line);) {
      nlohmann::json row = nlohmann::json::parse(line);
      row.erase("wall_seconds");
      row.erase("peak_memory_bytes");
      tables[jobs - 1] += row.dump() + "\n";
    }
  }
  CHECK_FALSE(tables[0].empty());
  CHECK(tables[0] == tables[1]);
}

TEST_CASE("an option spelt with hyphens is named, with the underscore spelling", "[scenario][cli][errors]") {
  const CliRun run = run_program({torus_sim_executable(), "run", "--fma-latency", "64"});
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("unknown option '--fma-latency' (did you mean '--fma_latency'? parameters are spelt "
                                         "with underscores)"));
  CHECK_THAT(run.output, !Catch::Contains("File does not exist"));
  const CliRun misspelt = run_program({torus_sim_executable(), "run", "--fma_latncy", "4"});
  CHECK(misspelt.exit_code == 2);
  CHECK_THAT(misspelt.output, Catch::Contains("unknown option '--fma_latncy' (did you mean 'fma_latency'?)"));
  // Short options and their values, and values that start with hyphens, are left to the parser.
  CHECK(run_program({torus_sim_executable(), "sweep", std::string(TORUS_SOURCE_DIR) + "/scenarios/all-alphas.yaml", "-j", "2",
                     "--dry-run"}).exit_code == 0);
  CHECK(run_program({torus_sim_executable(), "run", "--N", "4", "--P", "2", "--direction", "forward", "--alpha", "--+"}).exit_code == 0);
  CHECK(run_program({torus_sim_executable(), "run", "--N", "4", "--P", "2", "--direction", "forward", "--alpha", "---"}).exit_code == 0);
}

TEST_CASE("a command whose standard output cannot be written fails", "[scenario][cli][errors]") {
  TempDir dir;
  for (const char* command : {"params", "schedule --N 4 --P 2", "run --N 4 --P 2 --direction forward"}) {
    const std::string line = torus_sim_executable() + " " + command + " > /dev/full 2> " + dir.file("err.txt");
    const int status = std::system(line.c_str());
    std::ifstream in(dir.file("err.txt"));
    const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(command << ": " << err);
    CHECK(WEXITSTATUS(status) == 4);
    CHECK_THAT(err, Catch::Contains("torus-sim: cannot write standard output"));
  }
}

TEST_CASE("one rule for exit codes: a malformed input file is an input problem like a wrong shape", "[scenario][cli][errors]") {
  TempDir dir;
  std::ofstream(dir.file("bad.npy")) << "this is not NumPy\n";
  const CliRun malformed = run_program({torus_sim_executable(), "run", "--N", "4", "--P", "2", "--input", dir.file("bad.npy")});
  CHECK(malformed.exit_code == 2);
  CHECK_THAT(malformed.output, Catch::Contains("input: npy file '" + dir.file("bad.npy") + "': is not a NumPy .npy file"));

  const CliRun help = run_program({torus_sim_executable(), "--help"});
  CHECK_THAT(help.output, Catch::Contains("2 input problems") && Catch::Contains("5 stalled") &&
                              Catch::Contains("A sweep exits with the largest exit code among its points"));
}

TEST_CASE("a run never writes over its own scenario, its inputs or one output with another", "[scenario][cli][errors]") {
  TempDir dir;
  const std::string scenario = dir.file("run.yaml");
  const std::string text = "N: 8\nP: 2\nengine: event\ndirection: forward\n";
  std::ofstream(scenario) << text;
  const CliRun over_scenario = run_cli("run " + scenario + " --output " + scenario);
  CHECK(over_scenario.exit_code == 2);
  CHECK_THAT(over_scenario.output, Catch::Contains("output: '" + scenario + "' is the same file as scenario"));
  CHECK(file_bytes(scenario) == text);
  // An included document is read too.
  const std::string machine = dir.file("machine.yaml"), with_include = dir.file("with_include.yaml");
  std::ofstream(machine) << "fma_latency: 2\n";
  std::ofstream(with_include) << "include: machine.yaml\nN: 8\nP: 2\nengine: event\n";
  const CliRun over_include = run_cli("run " + with_include + " --output " + machine);
  CHECK(over_include.exit_code == 2);
  CHECK_THAT(over_include.output, Catch::Contains("is the same file as scenario ('" + machine + "')"));
  CHECK(file_bytes(machine) == "fma_latency: 2\n");
  const CliRun two_outputs = run_cli("run " + scenario + " --output " + dir.file("x.out") + " --chrome_trace " + dir.file("x.out"));
  CHECK(two_outputs.exit_code == 2);
  CHECK_THAT(two_outputs.output, Catch::Contains("chrome_trace: '" + dir.file("x.out") + "' is the same file as output"));
}

TEST_CASE("the other task's files are refused, not ignored", "[scenario][cli][errors]") {
  TempDir dir;
  const CliRun transform = run_cli("run --N 8 --P 2 --engine event --input_a " + dir.file("missing.npy"));
  CHECK(transform.exit_code == 2);
  CHECK_THAT(transform.output, Catch::Contains("input_a: '" + dir.file("missing.npy") + "' is not allowed with task: transform"));
  const CliRun matmul = run_cli("run --task matmul --algorithm systolic --user_matrix " + dir.file("missing.txt"));
  CHECK(matmul.exit_code == 2);
  CHECK_THAT(matmul.output, Catch::Contains("user_matrix: '" + dir.file("missing.txt") + "' is not allowed with task: matmul"));
}

TEST_CASE("refusals quote what the user wrote and say what would be allowed", "[scenario][cli][errors]") {
  const auto refused = [](const std::string& arguments, const std::string& message) {
    const CliRun run = run_cli(arguments);
    INFO(arguments << ": " << run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains(message));
  };
  // The bytes are fine alone; the run's 8-byte words make the word rate too fine.
  refused("run --N 4 --P 2 --link_bytes_per_cycle 1/1000000",
          "link_bytes_per_cycle: '1/1000000' is not allowed for this run: at 8 bytes a word it is 1/8000000 words per cycle");
  refused("run --N 4 --P 2 --fast_forward_stepping every:0:0",
          "fast_forward_stepping: 'every:0:0' is not allowed (the period K is 0)");
  refused("run --N 4 --P 2 --fast_forward_stepping 3,x", "fast_forward_stepping: '3,x' is not allowed ('x' is not a node index)");
  refused("run --N 4 --P 2 --clock_hz 4.9e-324", "clock_hz: '4.9e-324' is not allowed; allowed: a number of cycles per second");
  refused("run --N 4 --P 2 --clock_hz 1e16", "clock_hz: '1e16' is not allowed");
  refused("run --task matmul", "algorithm: 'orbital' is not allowed with task: matmul (it is the default, for task: transform");
  refused("run --task matmul --algorithm auto --m 3 --k 5 --n 7 --array 2x3",
          "(algorithm: auto chose systolic for C of 3 x 7; choose an algorithm to run another)");
  refused("run -p N=4 --N 8", "N: given twice on the command line ('");
  refused("run --P 2 --P 4", "--P: At Most 1 required but received 2");
  refused("run --N 4 --P 2 --fault bit_flip --values off", "fault: 'bit_flip' is not allowed with values: off");
  refused("run --N 4 --P 2 --fault corrupt_coefficient --values off", "fault: 'corrupt_coefficient' is not allowed with values: off");
  // The same values where they are allowed.
  CHECK(run_cli("run --N 4 --P 2 --engine event --link_bytes_per_cycle 8/1000000 --clock_hz 0.001").exit_code == 0);
  CHECK(run_cli("run --N 4 --P 2 --fault stuck_node --values off").exit_code == 5);
  TempDir dir;
  const CliRun empty_seed = run_scenario(dir, "N: 4\nP: 2\nseed: ~\n");
  CHECK(empty_seed.exit_code == 2);
  CHECK_THAT(empty_seed.output, Catch::Contains("scenario.yaml:3:7: seed: a value is needed here (a number or a word), not an "
                                                "empty one or ~"));
}

