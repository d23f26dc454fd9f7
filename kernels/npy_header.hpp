#pragma once
// The header of a .npy file: element type, order and shape, and where the data starts. Parsed
// strictly and checked against the file's size before anything is allocated for the data, so
// a hostile header (a negative or enormous shape) is an error, never an allocation.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/scalar.hpp"

namespace torus {

struct NpyElement {
  std::size_t bytes = 8;
  bool is_complex = false;
  bool is_float = true;
  bool is_signed = true;
};

struct NpyHeader {
  NpyElement element;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  std::size_t data_offset = 0;    // bytes before the first element
  std::size_t element_count = 1;  // product of the shape, known not to overflow
  std::size_t data_bytes = 0;     // element_count * element.bytes, equal to what the file holds
  bool complex_valued() const { return element.is_complex; }
  ScalarType stored_type() const;  // integers report double
  std::string shape_text() const;  // "4 x 4 x 4", or "a scalar"
};

// A file that is not a readable .npy of the kind asked for: an input problem (exit code 2),
// like any other bad parameter value.
class NpyError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The error for a malformed file, named by its path.
NpyError npy_error(const std::string& path, const std::string& what);

// The fixed start of every file (magic, version, header length) is at most this long.
inline constexpr std::size_t npy_prefix_bytes = 12;
// The header's full length (prefix, dictionary and padding) from the file's first bytes.
std::size_t npy_header_length(std::string_view prefix, std::uintmax_t file_size, const std::string& path);
// Parses the first npy_header_length bytes and checks the data they announce against the size
// of the whole file.
NpyHeader parse_npy_header(std::string_view header, std::uintmax_t file_size, const std::string& path);

}  // namespace torus
