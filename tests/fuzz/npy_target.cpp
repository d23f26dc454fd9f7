#include "tests/fuzz/npy_target.hpp"

#include <complex>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "kernels/npy.hpp"
#include "kernels/transform.hpp"

namespace torus {
namespace {

// What was read must agree with what the header announced.
void check_consistent(const NpyHeader& header, const NpyData& data) {
  if (data.shape != header.shape || data.values.size() != header.element_count ||
      data.complex_valued != header.complex_valued())
    throw std::logic_error("read_npy returned data that contradicts the file's header");
}

// The two ways a run uses a file: a 3-dimensional input tensor, a square user matrix.
void read_as_run_would(const std::string& path, const NpyHeader& header) {
  if (header.shape.size() == 3) {
    read_npy_tensor<std::complex<double>>(path);
    if (!header.complex_valued()) read_npy_tensor<float>(path);
  }
  if (header.shape.size() == 2) {
    TransformOptions options;
    options.user_matrix_path = path;
    make_transform("user", options);
  }
}

}  // namespace

void fuzz_npy_input(const std::uint8_t* data, std::size_t size) {
  // The reader takes a path (it checks the header against the file's size), so the input
  // becomes a file; the name ends in .npy so that user_matrix reads it as one.
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("torus-fuzz-" + std::to_string(::getpid()) + ".npy")).string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const NpyHeader header = read_npy_header(path);
    check_consistent(header, read_npy(path));
    read_as_run_would(path, header);
  } catch (const std::invalid_argument&) {
    // A refusal with a message is the right answer to a malformed file.
  }
}

}  // namespace torus
