#include "kernels/npy.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace torus {
namespace {

NpyError npy_error(const std::string& path, const std::string& what) {
  return NpyError("npy file '" + path + "': " + what);
}

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
};

// The text after `'key':` in the header dictionary, with leading spaces skipped.
std::string_view value_after(const std::string& path, std::string_view text, std::string_view key) {
  std::string quoted(1, '\'');
  quoted.append(key).push_back('\'');
  const auto at = text.find(quoted);
  if (at == std::string_view::npos) throw npy_error(path, std::string("header has no ").append(quoted));
  auto rest = text.substr(at + quoted.size());
  const auto colon = rest.find_first_not_of(" \t");
  if (colon == std::string_view::npos || rest[colon] != ':')
    throw npy_error(path, std::string("malformed header near ").append(quoted));
  rest = rest.substr(colon + 1);
  return rest.substr(std::min(rest.size(), rest.find_first_not_of(" \t")));
}

// One entry of the shape tuple: decimal digits only (no sign, point or exponent), and small
// enough to count in a size_t.
std::size_t parse_extent(const std::string& path, const std::string& item) {
  const auto first = item.find_first_not_of(" \t");
  const auto last = item.find_last_not_of(" \t");
  const std::string_view digits = std::string_view(item).substr(first, last - first + 1);
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const bool all_digits = digits.find_first_not_of("0123456789") == std::string_view::npos;
  if (!all_digits || error != std::errc{} || end != digits.data() + digits.size())
    throw npy_error(path, std::string("header 'shape' holds '").append(digits).append(
                              all_digits ? "', too large a size" : "', not a size (allowed: digits 0-9 only)"));
  return value;
}

// Elements times bytes per element, refused before anything is allocated when it overflows.
std::size_t payload_bytes(const std::string& path, const std::vector<std::size_t>& shape, std::size_t element_bytes) {
  std::size_t total = element_bytes;
  for (const std::size_t extent : shape)
    if (__builtin_mul_overflow(total, extent, &total))
      throw npy_error(path, "header 'shape' describes more bytes than any file can hold");
  return total;
}

Header parse_header(const std::string& path, const std::string& text) {
  Header h;
  const std::string_view descr = value_after(path, text, "descr");
  if (!descr.empty() && descr.front() == '[')
    throw npy_error(path, "holds a structured array (records with named fields); allowed: a plain array of "
                          "float32, float64, complex64, complex128 (little-endian) or small integers");
  if (descr.empty() || descr.front() != '\'' || descr.find('\'', 1) == std::string_view::npos)
    throw npy_error(path, "header 'descr' is not a quoted type");
  h.descr = std::string(descr.substr(1, descr.find('\'', 1) - 1));
  const std::string_view order = value_after(path, text, "fortran_order");
  if (order.starts_with("True")) h.fortran_order = true;
  else if (!order.starts_with("False")) throw npy_error(path, "header 'fortran_order' is neither True nor False");
  const std::string_view shape = value_after(path, text, "shape");
  const auto close = shape.find(')');
  if (shape.empty() || shape.front() != '(' || close == std::string_view::npos)
    throw npy_error(path, "header 'shape' is not a tuple");
  std::stringstream dims{std::string(shape.substr(1, close - 1))};
  std::string item;
  while (std::getline(dims, item, ',')) {
    if (item.find_first_not_of(" \t") == std::string::npos) continue;
    h.shape.push_back(parse_extent(path, item));
  }
  return h;
}

struct ElementFormat {
  std::size_t bytes;
  bool is_complex;
  bool is_float;
  bool is_signed;
};

ElementFormat element_format(const std::string& path, const std::string& descr) {
  static const std::vector<std::pair<std::string, ElementFormat>> formats = {
      {"<f4", {4, false, true, true}},  {"<f8", {8, false, true, true}},
      {"<c8", {8, true, true, true}},   {"<c16", {16, true, true, true}},
      {"<i4", {4, false, false, true}}, {"<i8", {8, false, false, true}},
      {"|i1", {1, false, false, true}}, {"<i2", {2, false, false, true}},
      {"<u4", {4, false, false, false}}, {"|u1", {1, false, false, false}},
  };
  for (const auto& [name, format] : formats)
    if (name == descr) return format;
  throw npy_error(path, "element type '" + descr +
                            "' is not supported; allowed: float32, float64, complex64, "
                            "complex128 (little-endian) or small integers");
}

std::complex<double> decode(const char* p, const ElementFormat& f) {
  auto load = [p](auto value, std::size_t offset) {
    std::memcpy(&value, p + offset, sizeof(value));
    return value;
  };
  if (f.is_float) {
    if (f.is_complex && f.bytes == 8) return {load(float{}, 0), load(float{}, 4)};
    if (f.is_complex) return {load(double{}, 0), load(double{}, 8)};
    if (f.bytes == 4) return load(float{}, 0);
    return load(double{}, 0);
  }
  switch (f.bytes) {
    case 1: return f.is_signed ? double(load(std::int8_t{}, 0)) : double(load(std::uint8_t{}, 0));
    case 2: return double(load(std::int16_t{}, 0));
    case 4: return f.is_signed ? double(load(std::int32_t{}, 0)) : double(load(std::uint32_t{}, 0));
    default: return double(load(std::int64_t{}, 0));
  }
}

template <class T>
std::string descr_of() {
  if constexpr (std::is_same_v<T, float>) return "<f4";
  else if constexpr (std::is_same_v<T, double>) return "<f8";
  else if constexpr (std::is_same_v<T, std::complex<float>>) return "<c8";
  else return "<c16";
}

}  // namespace

NpyData read_npy(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw npy_error(path, "is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw npy_error(path, "cannot be opened for reading");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    throw npy_error(path, "is not a NumPy .npy file (bad magic)");
  const auto major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_length = 0, header_start = 0;
  if (major == 1) {
    header_length = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw npy_error(path, "truncated header");
    for (int i = 3; i >= 0; --i) header_length = (header_length << 8) | static_cast<unsigned char>(bytes[8 + i]);
    header_start = 12;
  } else {
    throw npy_error(path, "format version " + std::to_string(major) + " is not supported");
  }
  if (header_start + header_length > bytes.size()) throw npy_error(path, "truncated header");
  const Header header = parse_header(path, bytes.substr(header_start, header_length));
  const ElementFormat format = element_format(path, header.descr);

  NpyData data;
  data.shape = header.shape;
  data.complex_valued = format.is_complex;
  data.stored_type = {format.is_float && format.bytes == (format.is_complex ? 8u : 4u)
                          ? Precision::Single
                          : Precision::Double,
                      format.is_complex ? Domain::Complex : Domain::Real};
  const std::size_t expected = payload_bytes(path, header.shape, format.bytes);
  const std::size_t count = expected / format.bytes;
  const std::size_t payload = header_start + header_length;
  if (bytes.size() - payload != expected)
    throw npy_error(path, "holds " + std::to_string(bytes.size() - payload) + " data bytes, expected " +
                              std::to_string(expected) + " for its shape");
  data.values.resize(count);
  // A Fortran-order file stores the first index fastest; map each stored element to its
  // C-order position by counting through the indices in stored order.
  std::vector<std::size_t> index(header.shape.size(), 0);
  const std::size_t rank = header.shape.size();
  for (std::size_t stored = 0; stored < count; ++stored) {
    std::size_t c_offset = stored;
    if (header.fortran_order && rank > 1) {
      c_offset = 0;
      for (std::size_t d = 0; d < rank; ++d) c_offset = c_offset * header.shape[d] + index[d];
      for (std::size_t d = 0; d < rank; ++d) {
        if (++index[d] < header.shape[d]) break;
        index[d] = 0;
      }
    }
    data.values[c_offset] = decode(bytes.data() + payload + stored * format.bytes, format);
  }
  return data;
}

template <class T>
Tensor3<T> read_npy_tensor(const std::string& path) {
  const NpyData data = read_npy(path);
  if (data.shape.size() != 3)
    throw npy_error(path, "holds a " + std::to_string(data.shape.size()) +
                              "-dimensional array; a 3-dimensional tensor is needed");
  if (data.complex_valued && !is_complex_v<T>)
    throw npy_error(path, "holds complex values but the run is real; use a complex transform "
                          "or set domain: complex");
  Tensor3<T> out(data.shape[0], data.shape[1], data.shape[2]);
  std::size_t c = 0;
  for (std::size_t i = 0; i < data.shape[0]; ++i)
    for (std::size_t j = 0; j < data.shape[1]; ++j)
      for (std::size_t k = 0; k < data.shape[2]; ++k, ++c) {
        if constexpr (is_complex_v<T>)
          out(i, j, k) = T(static_cast<real_t<T>>(data.values[c].real()),
                           static_cast<real_t<T>>(data.values[c].imag()));
        else
          out(i, j, k) = static_cast<T>(data.values[c].real());
      }
  return out;
}

template <class T>
void write_npy(const std::string& path, const Tensor3<T>& tensor) {
  const Extents3& e = tensor.extents();
  std::string header = "{'descr': '" + descr_of<T>() + "', 'fortran_order': True, 'shape': (" +
                       std::to_string(e[0]) + ", " + std::to_string(e[1]) + ", " +
                       std::to_string(e[2]) + "), }";
  // Pad with spaces so magic + length + header + newline is a multiple of 64 bytes.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(tensor.data()), tensor.size() * sizeof(T));
  write_file_atomically(path, out);
}

template Tensor3<float> read_npy_tensor<float>(const std::string&);
template Tensor3<double> read_npy_tensor<double>(const std::string&);
template Tensor3<std::complex<float>> read_npy_tensor<std::complex<float>>(const std::string&);
template Tensor3<std::complex<double>> read_npy_tensor<std::complex<double>>(const std::string&);
template void write_npy<float>(const std::string&, const Tensor3<float>&);
template void write_npy<double>(const std::string&, const Tensor3<double>&);
template void write_npy<std::complex<float>>(const std::string&, const Tensor3<std::complex<float>>&);
template void write_npy<std::complex<double>>(const std::string&, const Tensor3<std::complex<double>>&);

}  // namespace torus
