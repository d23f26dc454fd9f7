// Bad input files and values on the command line: each is refused before anything is simulated,
// with exit code 2 and a message naming the parameter, the value and what is allowed.

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <regex>

#include "tests/address_sanitizer.hpp"
#include "tests/cli_runner.hpp"
#include "tests/npy_bytes.hpp"

using namespace torus;

namespace {

// A .npy of doubles of the given shape ("4, 4"), `count` of them: 0.5 but at `values`.
std::string f8_array(const std::string& shape, std::size_t count, const std::vector<std::pair<std::size_t, double>>& values) {
  std::vector<double> data(count, 0.5);
  for (const auto& [at, value] : values) data[at] = value;
  return npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (" + shape + "), }", raw_bytes(data));
}

std::string f8_tensor(std::size_t n, const std::vector<std::pair<std::size_t, double>>& values) {
  const std::string side = std::to_string(n);
  return f8_array(side + ", " + side + ", " + side, n * n * n, values);
}

std::string f8_matrix(std::size_t rows, std::size_t columns, const std::vector<std::pair<std::size_t, double>>& values) {
  return f8_array(std::to_string(rows) + ", " + std::to_string(columns), rows * columns, values);
}

// A command without --report_json (schedule and verify have none), after the shell commands of
// `prefix`: exit code and stdout + stderr.
CliRun run_command(const std::string& arguments, const std::string& prefix = "") {
  CliRun run;
  const std::string command = "(" + prefix + torus_sim_executable() + " " + arguments + ") 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.output.append(buffer, got);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace

TEST_CASE("an input .npy with a hostile header is refused with exit code 2", "[scenario][cli][npy][errors]") {
  TempDir dir;
  const std::string path = dir.file("x.npy");
  // Once a segmentation fault: the shape read as (2^64 - 4, 2^64 - 4, 4).
  write_bytes(path, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (-4, -4, 4), }", std::string(512, '\0')));
  const CliRun negative = run_cli("run --N 4 --P 2 --input " + path);
  CHECK(negative.exit_code == 2);
  CHECK_THAT(negative.output, Catch::Contains("input: npy file '" + path + "': header 'shape' holds '-4', not a size"));
  // Once heap corruption: the element count wrapped to 64.
  write_bytes(path, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693960, 8, 1), }",
                              std::string(512, '\0')));
  const CliRun wrapped = run_cli("run --N 4 --P 2 --input " + path);
  CHECK(wrapped.exit_code == 2);
  CHECK_THAT(wrapped.output, Catch::Contains("has more elements than can be addressed"));
}

TEST_CASE("non-finite input is refused before simulating, not blamed on the torus", "[scenario][cli][errors]") {
  TempDir dir;
  const std::string path = dir.file("x.npy");
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (const auto& [at, value, shown] : {std::tuple{std::size_t{0}, nan, "element (0,0,0) is nan"},
                                         std::tuple{std::size_t{1}, -inf, "element (0,0,1) is -inf"}}) {
    write_bytes(path, f8_tensor(4, {{at, value}}));
    for (const char* engine : {"systemc", "functional"}) {
      const CliRun run = run_cli("run --N 4 --P 2 --engine " + std::string(engine) + " --input " + path);
      INFO(engine << ": " << run.output);
      CHECK(run.exit_code == 2);
      CHECK_THAT(run.output, Catch::Contains("input: npy file '" + path + "': " + shown + "; allowed: finite numbers"));
      CHECK(run.report.is_null());  // nothing ran
    }
  }
  // 1e39 is a finite double but no float: once it became infinity and failed the golden check.
  write_bytes(path, f8_tensor(4, {{4, 1e39}}));
  const CliRun single = run_cli("run --N 4 --P 2 --precision float --input " + path);
  CHECK(single.exit_code == 2);
  CHECK_THAT(single.output, Catch::Contains("element (0,1,0) is 1e+39, which overflows float (largest 3.4028235e+38)"));
  CHECK(run_cli("run --N 4 --P 2 --precision double --input " + path).exit_code == 0);
}

namespace {

// `arguments` (a run) exits 2 on each engine, its message holding `first` and `second`.
void refused_on_every_engine(const std::string& arguments, const std::string& first, const std::string& second) {
  for (const char* engine : {"systemc", "event", "functional"}) {
    const CliRun run = run_cli(arguments + " --engine " + engine);
    INFO(engine << ": " << run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains(first) && Catch::Contains(second));
  }
}

}  // namespace

TEST_CASE("a finite input whose transform overflows is an input problem, not a mismatch", "[scenario][cli][errors]") {
  TempDir dir;
  const std::string path = dir.file("x.npy");
  // Every element 1e308: the DCT's first stage already sums past the largest double. The golden
  // reference has no finite value to compare with, so the simulated machine is not blamed (exit 3).
  std::vector<std::pair<std::size_t, double>> huge;
  for (std::size_t at = 0; at < 64; ++at) huge.emplace_back(at, 1e308);
  write_bytes(path, f8_tensor(4, huge));
  refused_on_every_engine("run --N 4 --P 2 --direction forward --input " + path,
                          "input: the golden transform of this input overflows the working precision (element (",
                          "is not finite); allowed: an input and transform (user_matrix) whose result stays within the "
                          "range of double (1.8e308)");
  write_bytes(path, f8_tensor(4, {{0, 1e300}}));  // large, but its transform fits
  CHECK(run_cli("run --N 4 --P 2 --direction forward --input " + path).exit_code == 0);
}

TEST_CASE("an input whose error bound overflows is an input problem, not a pass or a mismatch", "[scenario][cli][errors]") {
  TempDir dir;
  const std::string path = dir.file("x.npy");
  // 1e308, 1e308, 1e308, -1e308 along one line: every DCT output stays finite (the golden values
  // exist), but |C| |x| sums past the largest double. Its bound was infinite, so the forward check
  // passed whatever the machine computed, and the round trip's 0 * infinity failed every element
  // (exit 3). No bound can be checked: refused like an overflowing golden value.
  write_bytes(path, f8_tensor(4, {{0, 1e308}, {1, 1e308}, {2, 1e308}, {3, -1e308}}));
  refused_on_every_engine("run --N 4 --P 2 --input " + path, "input: the error bound of this input overflows double: |M| |x| at element (0,0,",
                          "is not finite, so no bound can be checked there; allowed: an input whose magnitudes through the "
                          "transform stay within 1.8e308 (scale it down)");
  write_bytes(path, f8_tensor(4, {{0, 1e300}, {1, 1e300}, {2, 1e300}, {3, -1e300}}));  // the same, scaled down
  CHECK(run_cli("run --N 4 --P 2 --input " + path).exit_code == 0);
  // One element 1e308: |M| |x| and |D| |y_hat| each stay finite (about 1e308 at (0,0,0), the DCT
  // being orthonormal), but the round trip's bound is a multiple of their sum, 2e308: it passed
  // whatever the machine computed there.
  write_bytes(path, f8_tensor(4, {{0, 1e308}}));
  const CliRun sum = run_cli("run --N 4 --P 2 --input " + path);
  CHECK(sum.exit_code == 2);
  CHECK_THAT(sum.output, Catch::Contains("the round trip's |D| |y_hat| + |D| |C| |x| at element (0,0,0) is not finite"));
}

TEST_CASE("operands whose product overflows are an input problem, not a mismatch", "[scenario][cli][errors]") {
  TempDir dir;
  const std::string a = dir.file("a.npy"), b = dir.file("b.npy");
  const std::string arguments = "run --task matmul --algorithm systolic --array 2x2 --m 4 --k 4 --n 4 --input_a " + a + " --input_b " + b;
  // Every entry of A and B the same: each entry of C sums past the largest number. It failed the
  // golden check (exit 3, an infinite error) as if the machine were wrong.
  const auto filled = [](double value) {
    std::vector<std::pair<std::size_t, double>> entries;
    for (std::size_t at = 0; at < 16; ++at) entries.emplace_back(at, value);
    return entries;
  };
  write_bytes(a, f8_matrix(4, 4, filled(1e308)));
  write_bytes(b, f8_matrix(4, 4, filled(1.0)));
  const CliRun golden = run_cli(arguments);
  CHECK(golden.exit_code == 2);
  CHECK_THAT(golden.output, Catch::Contains("input: the golden product of this input overflows the working precision (element (0,0,0)") &&
                                Catch::Contains("allowed: operands whose product stays within the range of double (1.8e308)"));
  // Rows of B alternately 1 and -1: every entry of C is 0, but |A| |B| is 4e308: no bound.
  std::vector<std::pair<std::size_t, double>> alternating = filled(1.0);
  for (auto& [at, value] : alternating) value = (at / 4) % 2 == 0 ? 1.0 : -1.0;
  write_bytes(b, f8_matrix(4, 4, alternating));
  const CliRun bound = run_cli(arguments);
  CHECK(bound.exit_code == 2);
  CHECK_THAT(bound.output, Catch::Contains("input: the error bound of this input overflows double: |A| |B| at element (0,0,0) is not finite"));
  write_bytes(a, f8_matrix(4, 4, filled(1e300)));
  CHECK(run_cli(arguments).exit_code == 0);
  // In float the product (4e40) overflows where the bound, in double, does not.
  write_bytes(a, f8_matrix(4, 4, filled(1e20)));
  write_bytes(b, f8_matrix(4, 4, filled(1e20)));
  const CliRun single = run_cli(arguments + " --precision float");
  CHECK(single.exit_code == 2);
  CHECK_THAT(single.output, Catch::Contains("input: the golden product of this input overflows the working precision (element (0,0,0)") &&
                                Catch::Contains("allowed: operands whose product stays within the range of float (3.4e38)"));
}

TEST_CASE("an input file too big for max_memory is refused before it is read", "[scenario][cli][memory]") {
  TempDir dir;
  // 1 GiB of data announced for N = 512, as a sparse file: it takes no disk space.
  const std::string path = dir.file("sparse.npy");
  const std::string header = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (512, 512, 512), }", "");
  write_bytes(path, header);
  std::filesystem::resize_file(path, header.size() + (std::uintmax_t{1} << 30));
  // Reading the file would take more address space than the limit allows (and end in
  // std::bad_alloc, exit code 4); AddressSanitizer needs far more address space than that.
  const std::string limit = built_with_address_sanitizer ? "" : "ulimit -v 1500000; ";
  const CliRun run = run_command("run --N 512 --P 4 --max_memory 200000000 --input " + path, limit);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("memory: this run needs about") && Catch::Contains("but max_memory allows 190.7 MiB"));
}

TEST_CASE("a Program bigger than the memory allows is refused while it is built", "[scenario][cli][memory]") {
  // ring_block_fft with dense local kernels at N = 32 on 8^3 nodes: 3,970 tasks a node (most of
  // them loads of coefficient blocks), a Program of about 230 MB and a run peaking at 573 MiB.
  // Estimated from the orbital counts, the run needed 54 MiB and passed a 400 MB limit, and `program`
  // was estimated as orbital's 13 MiB. Both are held to the limit now.
  const CliRun run = run_cli("run --algorithm ring_block_fft --transform dft --local_kernel dense --N 32 --P 8 --max_memory 400000000");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("torus-sim: memory: ") && Catch::Contains("max_memory") &&
                             Catch::Contains("allowed: a smaller N or P, or a larger max_memory"));
  const CliRun program = run_command("program --algorithm ring_block_fft --N 32 --P 8 --direction both --max_memory 200000000");
  CHECK(program.exit_code == 2);
  CHECK_THAT(program.output, Catch::Contains("memory: the Program of ring_block_fft for this problem grew past 190.7 MiB") &&
                                 Catch::Contains("allowed: a smaller N or P, or a larger max_memory"));
  CHECK(program.output.size() < 1000);  // refused before any of it was written
}

TEST_CASE("schedule, verify and program refuse a torus whose output would not fit", "[scenario][cli][memory]") {
  for (const char* command : {"verify --P 128", "schedule --N 128 --P 128", "program --N 128 --P 128 --format json"}) {
    const CliRun run = run_command(command);
    INFO(command);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("memory: this torus-sim " + std::string(command).substr(0, std::string(command).find(' ')) +
                                           " needs about") &&
                               Catch::Contains("GiB") && Catch::Contains("allowed: a smaller P, or a larger max_memory"));
  }
  const CliRun capped = run_command("verify --P 24 --max_memory 50000000");
  CHECK(capped.exit_code == 2);
  CHECK_THAT(capped.output, Catch::Contains("but max_memory allows 47.7 MiB"));
  CHECK(run_command("verify --P 24 --max_memory 500000000").exit_code == 0);  // peaks near 100 MiB
}

TEST_CASE("malformed rates and fault nodes are refused, not misread", "[scenario][cli][errors]") {
  for (const char* rate : {"-0.5", "1.-5", "1844674407370955163.6"}) {
    const CliRun run = run_cli("run --N 4 --P 2 --link_words_per_cycle " + std::string(rate));
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("link_words_per_cycle: '" + std::string(rate) + "' is not allowed ("));
  }
  const CliRun node = run_cli("run --N 4 --P 2 --fault stuck_node --fault_node 1abc,0,0");
  CHECK(node.exit_code == 2);
  CHECK_THAT(node.output, Catch::Contains("fault_node: '1abc,0,0' is not allowed; allowed: three whole coordinates"));
}

TEST_CASE("engine systemc refuses a run past its 32-bit cycles and names engine event, which times it", "[scenario][cli][errors][memory]") {
  // One word every 10^6 cycles: the first message of 17^3 words, sent ahead, would arrive after
  // cycle 2^32 - 2, the last one the SystemC engine's per-node state holds.
  const std::string run = "run --N 34 --P 2 --transform dct --direction forward --values off --link_words_per_cycle 1/1000000";
  const CliRun systemc = run_cli(run);
  CHECK(systemc.exit_code == 2);
  CHECK_THAT(systemc.output, Catch::Contains("engine systemc holds cycles in 32 bits, up to cycle 4294967294; this run reaches cycle ") &&
                                 Catch::Contains("time it with engine event, which has no such limit"));
  CHECK(systemc.report.is_null());
  const CliRun event = run_cli(run + " --engine event");
  CHECK(event.exit_code == 0);
  CHECK(event.report["timing"]["total_cycles"].get<std::uint64_t>() > (std::uint64_t{1} << 32));
}

TEST_CASE("the functional engine refuses a fault instead of ignoring it", "[scenario][cli][fault][errors]") {
  const CliRun run = run_cli("run --N 4 --P 2 --engine functional --fault bit_flip");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("fault: 'bit_flip' is not allowed with engine 'functional'") &&
                             Catch::Contains("allowed: engine systemc"));
  CHECK(run.report.is_null());
}

TEST_CASE("a corrupted coefficient shows every digit that changed, or why none did", "[scenario][cli][fault]") {
  const std::string run = "run --N 8 --P 4 --direction forward --fault_node 1,2,3 --fault corrupt_coefficient --fault_bit 0";
  const CliRun twice = run_cli(run + " --precision double");
  const std::string fault = twice.report["fault"];
  INFO(fault);
  // "... in node (1,2,3): -0.3535533905932738 (-0x1.6a09e667f3bcdp-2) became -0.35355339059327373 (-0x1.6a09e667f3bccp-2)"
  std::smatch m;
  REQUIRE(std::regex_search(fault, m, std::regex(R"(: (\S+) \((-?0x\S+)\) became (\S+) \((-?0x\S+)\)$)")));
  CHECK(m[1] != m[3]);
  CHECK(m[2] != m[4]);
  CHECK(std::stod(m[1]) != std::stod(m[3]));
  // A float word drops the double's bit 0 when it is stored: nothing changed, and it says so.
  const CliRun single = run_cli(run + " --precision float");
  CHECK(single.exit_code == 0);
  CHECK_THAT(single.report["fault"].get<std::string>(),
             Catch::Contains("stayed the same: the flipped bit lies below the precision of the stored word"));
}
