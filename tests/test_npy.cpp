// The .npy reader against headers numpy would never write: every one is refused with a message
// naming the file and the problem, before anything is allocated for the data.

#include <catch2/catch.hpp>

#include <complex>
#include <string>

#include "kernels/npy.hpp"
#include "kernels/transform.hpp"
#include "tests/error_of.hpp"
#include "tests/npy_bytes.hpp"
#include "tests/temp_dir.hpp"

using namespace torus;

namespace {

std::string dictionary(const std::string& descr, const std::string& shape, const std::string& order = "False") {
  return "{'descr': " + descr + ", 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}

// What the reader says about a file holding `bytes`; "no error" when it reads it.
std::string read_error(const TempDir& dir, const std::string& bytes) {
  write_bytes(dir.file("x.npy"), bytes);
  return error_of([&] { read_npy(dir.file("x.npy")); });
}

}  // namespace

TEST_CASE("npy shape entries are whole numbers written with digits only", "[kernels][npy][errors]") {
  TempDir dir;
  const std::string data = raw_bytes(std::vector<double>(64, 1.0));
  CHECK(read_error(dir, npy_bytes(dictionary("'<f8'", "(4, 4, 4)"), data)) == "no error");
  // (-4, -4, 4) once read as 64 elements of a (2^64 - 4) x (2^64 - 4) x 4 array and crashed.
  for (const auto& [shape, entry] : {std::pair{"(-4, -4, 4)", "-4"}, std::pair{"(+4, 4, 4)", "+4"},
                                     std::pair{"(4.0, 4, 4)", "4.0"}, std::pair{"(4, , 4, 4)", ""},
                                     std::pair{"(4e1, 4, 4)", "4e1"}, std::pair{"(0x4, 4, 4)", "0x4"},
                                     std::pair{"(4 4, 4)", "4 4"}}) {
    INFO(shape);
    CHECK_THAT(read_error(dir, npy_bytes(dictionary("'<f8'", shape), data)),
               Catch::Contains("x.npy': header 'shape' holds '" + std::string(entry) + "', not a size") &&
                   Catch::Contains("allowed: whole numbers from 0 up, digits only"));
  }
  CHECK_THAT(read_error(dir, npy_bytes(dictionary("'<f8'", "(99999999999999999999, 1)"), data)),
             Catch::Contains("holds '99999999999999999999', too large a size"));
}

TEST_CASE("an npy shape whose size overflows is refused, not wrapped", "[kernels][npy][errors]") {
  TempDir dir;
  // (2^61 + 8) x 8 x 1 elements wrap to 64 in 64 bits: exactly what 512 bytes of data hold.
  const std::string data = raw_bytes(std::vector<double>(64, 1.0));
  CHECK_THAT(read_error(dir, npy_bytes(dictionary("'<f8'", "(2305843009213693960, 8, 1)"), data)),
             Catch::Contains("header 'shape' (2305843009213693960 x 8 x 1) has more elements than can be addressed"));
  // 2^61 elements of 8 bytes: the element count fits, the byte count wraps to 0.
  CHECK_THAT(read_error(dir, npy_bytes(dictionary("'<f8'", "(2305843009213693952,)"), "")),
             Catch::Contains("needs more bytes than can be addressed"));
}

TEST_CASE("npy data must be exactly what the header announces", "[kernels][npy][errors]") {
  TempDir dir;
  CHECK_THAT(read_error(dir, npy_bytes(dictionary("'<f8'", "(4, 4, 4)"), std::string(10, '\0'))),
             Catch::Contains("holds 10 data bytes, expected 512 for its shape (4 x 4 x 4)"));
  CHECK_THAT(read_error(dir, npy_bytes(dictionary("'<f8'", "(1000000, 1000000, 1000000)"), std::string(8, '\0'))),
             Catch::Contains("holds 8 data bytes, expected 8000000000000000000"));
  CHECK(read_error(dir, npy_bytes(dictionary("'<f8'", "()"), std::string(8, '\0'))) == "no error");  // a scalar
  CHECK(read_error(dir, npy_bytes(dictionary("'<f4'", "(0, 3)"), "")) == "no error");               // no elements
}

TEST_CASE("structured npy types and oversized headers are refused by name", "[kernels][npy][errors]") {
  TempDir dir;
  CHECK_THAT(read_error(dir, npy_bytes(dictionary("[('a', '<f4'), ('b', '<i4')]", "(2,)"), std::string(16, '\0'))),
             Catch::Contains("element type is a structured dtype (a list of named fields), which is not supported") &&
                 Catch::Contains("allowed: float32, float64, complex64, complex128"));
  CHECK_THAT(read_error(dir, npy_bytes(dictionary("'>f8'", "(1,)"), std::string(8, '\0'))),
             Catch::Contains("element type '>f8' is not supported"));
  // Version 2.0 with a 4 GiB header length: refused from the first twelve bytes.
  CHECK_THAT(read_error(dir, std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14)),
             Catch::Contains("header of 4294967295 bytes is longer than the 1 MiB allowed"));
  CHECK_THAT(read_error(dir, std::string("\x93NUMPY\x01\x00\x40\x00{}", 12)), Catch::Contains("truncated header"));
}

TEST_CASE("a user matrix with a hostile npy header is refused as user_matrix", "[kernels][npy][transform][errors]") {
  TempDir dir;
  TransformOptions options;
  options.user_matrix_path = dir.file("a.npy");
  // 2^32 x 2^32 elements wrap to none at all, which an empty data section matches.
  write_bytes(options.user_matrix_path, npy_bytes(dictionary("'<f8'", "(4294967296, 4294967296)"), ""));
  CHECK_THROWS_WITH(make_transform("user", options),
                    Catch::StartsWith("user_matrix: npy file '" + options.user_matrix_path + "'") &&
                        Catch::Contains("has more elements than can be addressed"));
  write_bytes(options.user_matrix_path, npy_bytes(dictionary("'<f8'", "(-2, -2)"), raw_bytes(std::vector<double>(4))));
  CHECK_THROWS_WITH(make_transform("user", options), Catch::Contains("header 'shape' holds '-2', not a size"));
}
