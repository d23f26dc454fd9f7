// The one writer of every output file: whole files or nothing, never over a device, a FIFO or
// a directory, through symbolic links to the file they name, and a full disk is an error.

#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels/output_file.hpp"
#include "tests/temp_dir.hpp"

using namespace torus;
namespace fs = std::filesystem;

namespace {

std::string contents_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t entries_in(const TempDir& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()));
}

// The message of the std::invalid_argument `check` throws, or "(accepted)".
template <class Check>
std::string refusal_of(Check check) {
  try {
    check();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string check_error(const std::string& path) {
  return refusal_of([&] { check_output_path("output", path); });
}

std::string write_error(const std::string& path) {
  try {
    write_file_atomically(path, "new contents\n");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(written)";
}

}  // namespace

TEST_CASE("an output is written whole under its name and leaves no temporary behind", "[output]") {
  TempDir dir;
  const std::string path = dir.file("report.json");
  write_file_atomically(path, "first\n");
  write_file_atomically(path, "second\n");
  CHECK(contents_of(path) == "second\n");
  CHECK(entries_in(dir) == 1);
}

TEST_CASE("an existing file keeps its permissions when it is replaced", "[output]") {
  TempDir dir;
  const std::string path = dir.file("private.json");
  std::ofstream(path) << "old\n";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomically(path, "new\n");
  CHECK(fs::status(path).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("a symbolic link is written through: the file it names is replaced, the link stays", "[output]") {
  TempDir dir;
  fs::create_directory(dir.file("real"));
  const std::string real = dir.file("real/y.json");
  std::ofstream(real) << "old\n";
  fs::create_symlink("real/y.json", dir.file("link.json"));
  fs::create_symlink("link.json", dir.file("link-to-link.json"));
  CHECK(check_error(dir.file("link-to-link.json")) == "(accepted)");
  write_file_atomically(dir.file("link-to-link.json"), "new\n");
  CHECK(fs::is_symlink(dir.file("link.json")));
  CHECK(fs::is_symlink(dir.file("link-to-link.json")));
  CHECK(contents_of(real) == "new\n");
  CHECK(output_target(dir.file("link-to-link.json")) == fs::path(dir.file("real/y.json")));
}

TEST_CASE("devices, FIFOs and directories are refused before a run and never replaced", "[output]") {
  TempDir dir;
  const std::string fifo = dir.file("pipe.json"), folder = dir.file("folder.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  fs::create_directory(folder);
  fs::create_symlink("pipe.json", dir.file("link-to-pipe.json"));

  CHECK_THAT(check_error(fifo), Catch::Contains("output: '" + fifo + "' is a FIFO; allowed: a new file or an existing regular file"));
  CHECK_THAT(check_error(folder), Catch::Contains("is a directory"));
  CHECK_THAT(check_error("/dev/null"), Catch::Contains("output: '/dev/null' is a character device"));
  CHECK_THAT(check_error(dir.file("link-to-pipe.json")), Catch::Contains("is a FIFO (the link leads to"));
  CHECK_THAT(check_error(dir.file("missing/x.json")), Catch::Contains("does not exist"));
  fs::create_symlink("loop-b", dir.file("loop-a"));
  fs::create_symlink("loop-a", dir.file("loop-b"));
  CHECK_THAT(check_error(dir.file("loop-a")), Catch::Contains("loop of symbolic links"));

  // The writer itself refuses too, should the path change between the check and the write.
  CHECK_THAT(write_error(fifo), Catch::Contains("cannot write '" + fifo + "': it is a FIFO"));
  CHECK_THAT(write_error(folder), Catch::Contains("it is a directory"));
  CHECK(fs::is_fifo(fifo));
  CHECK(fs::is_directory(folder));
  CHECK(fs::is_empty(folder));
  CHECK(entries_in(dir) == 5);  // no temporary left behind
}

TEST_CASE("a write that fails for want of space is an error and leaves no file", "[output]") {
  // The limit on file size stands in for a full disk: writes past it fail (EFBIG) the same way
  // (ENOSPC) without filling a disk. It applies to a child process, not to the test runner.
  TempDir dir;
  const std::string path = dir.file("big.bin");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_file_atomically(path, std::string(1 << 20, 'x'));
    } catch (const std::runtime_error& e) {
      const bool named = std::string(e.what()).find("cannot write '" + path + "': File too large") != std::string::npos;
      ::_exit(named ? 0 : 2);
    }
    ::_exit(1);  // the cut was not noticed
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_FALSE(fs::exists(path));
  CHECK(entries_in(dir) == 0);
}

namespace {

std::string distinct_error(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  return refusal_of([&] { check_distinct_files(outputs, inputs); });
}

}  // namespace

TEST_CASE("an output may not name an input or another output, however it is spelt", "[output]") {
  TempDir dir;
  const std::string input = dir.file("input.npy"), scenario = dir.file("run.yaml");
  std::ofstream(input) << "data";
  std::ofstream(scenario) << "N: 8\n";
  const std::string result = dir.file("result.npy");
  CHECK(distinct_error({{"output", result}, {"report_json", dir.file("report.json")}, {"chrome_trace", ""}},
                       {{"input", input}, {"scenario", scenario}, {"user_matrix", ""}}) == "(accepted)");
  // The same spelling, another spelling of a file that exists, and of one that does not yet.
  CHECK(distinct_error({{"output", scenario}}, {{"input", input}, {"scenario", scenario}}) ==
        "output: '" + scenario + "' is the same file as scenario ('" + scenario +
            "'), which the run reads; allowed: a path that no other input or output of the run names");
  const std::string dotted = dir.path().string() + "/./input.npy";
  CHECK_THAT(distinct_error({{"report_json", dotted}}, {{"input", input}}),
             Catch::StartsWith("report_json: '" + dotted + "' is the same file as input ('" + input + "'), which the run reads"));
  const std::string twice = dir.path().string() + "/sub/../result.npy";
  fs::create_directory(dir.path() / "sub");
  CHECK_THAT(distinct_error({{"output", result}, {"report_json", twice}}, {}),
             Catch::StartsWith("report_json: '" + twice + "' is the same file as output ('" + result + "'), which the run also writes"));
  // A symbolic link and a hard link to an input are that input.
  const std::string soft = dir.file("soft.npy"), hard = dir.file("hard.npy");
  fs::create_symlink(input, soft);
  fs::create_hard_link(input, hard);
  CHECK_THAT(distinct_error({{"output", soft}}, {{"input", input}}), Catch::Contains("is the same file as input"));
  CHECK_THAT(distinct_error({{"output", hard}}, {{"input", input}}), Catch::Contains("is the same file as input"));
  // A link whose target does not exist yet is still the file it would write.
  const std::string dangling = dir.file("dangling.json");
  fs::create_symlink(result, dangling);
  CHECK_THAT(distinct_error({{"output", result}, {"report_json", dangling}}, {}), Catch::Contains("which the run also writes"));
}
