// Values that were once read as something else, or checked too late: each is now an error
// naming the parameter, the value and what is allowed, raised before any expensive work.

#include <catch2/catch.hpp>

#include <fstream>
#include <limits>

#include "kernels/transform.hpp"
#include "sim/fault_config.hpp"
#include "sim/run_config.hpp"
#include "tests/error_of.hpp"
#include "tests/npy_bytes.hpp"
#include "tests/temp_dir.hpp"

using namespace torus;

namespace {

// What a run's validation says of transform user with this N and matrix file, on two nodes an axis.
std::string validation_error(const std::string& n, const std::string& user_matrix) {
  RunConfig config;
  ParameterSet parameters;
  config.declare(parameters);
  for (const auto& [key, value] : {std::pair{"N", n}, std::pair{"P", std::string("2")}, std::pair{"transform", std::string("user")},
                                   std::pair{"user_matrix", user_matrix}})
    parameters.set(key, value);
  return error_of([&] { validate(config); });
}

std::string user_matrix_error(const std::string& path, std::size_t size = 0) {
  TransformOptions options;
  options.user_matrix_path = path;
  options.size = size;
  return error_of([&] { make_transform("user", options); });
}

}  // namespace

TEST_CASE("a text user matrix entry must be a number as a whole", "[kernels][transform][user][errors]") {
  TempDir dir;
  const std::string path = dir.file("a.txt");
  std::ofstream(path) << "# identity, with a typo\n1abc 0\n0 1\n";
  CHECK_THAT(user_matrix_error(path), Catch::Contains("user_matrix: '" + path + "' line 2: '1abc' is not a real number"));
  for (const char* bad : {"0x1", "1,5.5.5", "--1", "+-1", "1e", "one"}) {
    std::ofstream(path) << bad << " 0\n0 1\n";
    INFO(bad);
    CHECK_THAT(user_matrix_error(path), Catch::Contains("is not a real number"));
  }
  std::ofstream(path) << "+1 -0.5e0\n0 1.25\n";  // signs and exponents stay allowed
  CHECK(user_matrix_error(path) == "no error");
}

TEST_CASE("a non-finite user matrix entry is named, not taken for a complex matrix", "[kernels][transform][user][errors]") {
  TempDir dir;
  const std::string npy = dir.file("a.npy");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  write_bytes(npy, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                             raw_bytes(std::vector<double>{1, 0, 0, nan})));
  CHECK_THAT(user_matrix_error(npy), Catch::Contains("user_matrix: '" + npy + "' entry (row 2, column 2) is (nan,0); allowed: finite numbers"));
  const std::string text = dir.file("a.txt");
  std::ofstream(text) << "1 inf\n0 1\n";
  CHECK_THAT(user_matrix_error(text), Catch::Contains("entry (row 1, column 2) is (inf,0); allowed: finite numbers"));
}

TEST_CASE("a user matrix of the wrong size is refused before it is inverted", "[kernels][transform][user][errors]") {
  TempDir dir;
  // Singular as well as the wrong size: inverting first would report the singularity.
  const std::string text = dir.file("singular.txt");
  std::ofstream(text) << "1 2\n2 4\n";
  CHECK_THAT(user_matrix_error(text, 4), Catch::Contains("user_matrix: '" + text + "' is 2 x 2 but N = 4; the matrix must be N x N"));
  const std::string npy = dir.file("singular.npy");
  write_bytes(npy, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                             raw_bytes(std::vector<double>{1, 2, 2, 4})));
  CHECK_THAT(user_matrix_error(npy, 4), Catch::Contains("is 2 x 2 but N = 4"));
  CHECK_THAT(user_matrix_error(npy, 2), Catch::Contains("singular or badly conditioned"));  // the right size: inverted

  // Through a run's validation, which knows N.
  CHECK_THAT(validation_error("4", text), Catch::Contains("is 2 x 2 but N = 4"));
}

TEST_CASE("a text user matrix of the wrong shape is refused as soon as its rows show it", "[kernels][transform][user][errors]") {
  TempDir dir;
  const std::string path = dir.file("a.txt");
  // Millions of one-entry lines were all read (1.85 GB) before the size was looked at: the
  // second row now tells, and the message gives rows and entries as they are.
  {
    std::ofstream out(path);
    for (int i = 0; i < 100000; ++i) out << "1\n";
  }
  CHECK_THAT(user_matrix_error(path), Catch::Contains("user_matrix: '" + path + "' has more than 1 rows of 1 entries; a square matrix is needed"));
  CHECK_THAT(user_matrix_error(path, 4), Catch::Contains("has more than 1 rows of 1 entries"));
  std::ofstream(path) << "1 0 0 0 0 0\n";  // longer than N: refused within the line
  CHECK_THAT(user_matrix_error(path, 4), Catch::Contains("user_matrix: '" + path + "' line 1 has more than 4 entries but N = 4; the matrix must be N x N"));
  std::ofstream(path) << "1 0\n0 1 2\n";
  CHECK_THAT(user_matrix_error(path), Catch::Contains("line 2 has 3 entries where the first row has 2; a square matrix is needed"));
  std::ofstream(path) << "1 0 0\n0 1 0\n";
  CHECK_THAT(user_matrix_error(path), Catch::Contains("has 2 rows of 3 entries; a square matrix is needed"));
  std::ofstream(path) << "# nothing but a comment\n\n";
  CHECK_THAT(user_matrix_error(path), Catch::Contains("holds no numbers; an N x N matrix is needed"));
  std::ofstream(path) << "1 0\n0 1\n";
  CHECK(user_matrix_error(path, 2) == "no error");
}

TEST_CASE("a .npy user matrix under another name is recognised, not read as text", "[kernels][transform][user][errors]") {
  TempDir dir;
  const std::string path = dir.file("identity.dat");
  write_bytes(path, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", raw_bytes(std::vector<double>{1, 0, 0, 1})));
  CHECK_THAT(user_matrix_error(path, 2), Catch::Contains("user_matrix: '" + path + "' is a .npy file; its name must end in .npy"));
}

TEST_CASE("a non-cubic tensor's user matrix is size-checked against its axes before it is inverted", "[kernels][transform][user][errors]") {
  TempDir dir;
  // Singular as well as the wrong size: inverting first would report the singularity.
  const std::string text = dir.file("singular.txt");
  std::ofstream(text) << "1 2\n2 4\n";
  TransformOptions options;
  options.user_matrix_path = text;
  options.axis_sizes = {8, 8, 4};
  CHECK_THAT(error_of([&] { parse_axis_transforms("user", options); }), Catch::Contains("is 2 x 2 but N = 8"));
  CHECK_THAT(error_of([&] { parse_axis_transforms("dct,dct,user", options); }), Catch::Contains("is 2 x 2 but N = 4"));
  // Through a run's validation, which knows N_1, N_2, N_3.
  CHECK_THAT(validation_error("8x8x4", text), Catch::Contains("is 2 x 2 but N = 8"));
}

TEST_CASE("fault_node takes three whole coordinates and nothing else", "[sim][fault][errors]") {
  FaultConfig fault;
  ParameterSet parameters;
  fault.declare(parameters);
  for (const char* bad : {"1abc,0,0", "1,0,0x", "1.0,0,0", "-1,0,0", "+1,0,0", "1,0", "1,0,0,0", ",0,0", "1e0,0,0"}) {
    INFO(bad);
    CHECK_THAT(error_of([&] { parameters.set("fault_node", bad); }),
               Catch::Contains("fault_node: '" + std::string(bad) + "' is not allowed; allowed: three whole coordinates q,r,s"));
  }
  parameters.set("fault_node", "1, 2 ,3");
  CHECK(fault.node() == NodeCoord{1, 2, 3});
}

TEST_CASE("the functional engine refuses faults it cannot inject", "[sim][fault][errors]") {
  FaultConfig fault;
  CHECK_NOTHROW(check_engine(fault, "functional"));
  for (const char* kind : {"bit_flip", "drop_word", "stuck_node", "corrupt_coefficient"}) {
    fault.fault = kind;
    CHECK_THAT(error_of([&] { check_engine(fault, "functional"); }),
               Catch::Contains("fault: '" + std::string(kind) + "' is not allowed with engine 'functional'") &&
                   Catch::Contains("allowed: engine systemc"));
    CHECK_NOTHROW(check_engine(fault, "systemc"));
  }
}

TEST_CASE("a flipped bit is described with every digit that changed", "[sim][fault]") {
  CHECK(describe_flip(0.5, with_bit_flipped(0.5, 0)) == "0.5 (0x1p-1) became 0.5000000000000001 (0x1.0000000000001p-1)");
  // A float keeps 23 of the double's 52 fraction bits: bit 0 is lost when the word is stored.
  const double stored = static_cast<float>(with_bit_flipped(0.5, 0));
  CHECK_THAT(describe_flip(0.5, stored), Catch::StartsWith("0.5 (0x1p-1) stayed the same: the flipped bit lies below"));
}
