#include "kernels/npy.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace torus {
namespace {

std::complex<double> decode(const char* p, const NpyElement& f) {
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

// Opens `path` and reads its header; `in` is left at the first data byte.
NpyHeader open_npy(const std::string& path, std::ifstream& in) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw npy_error(path, "is not a regular file");
  const std::uintmax_t file_size = std::filesystem::file_size(path, error);
  in.open(path, std::ios::binary);
  if (error || !in) throw npy_error(path, "cannot be opened for reading");
  std::string header(npy_prefix_bytes, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header.size()));
  header.resize(static_cast<std::size_t>(in.gcount()));
  const std::size_t length = npy_header_length(header, file_size, path);
  const std::size_t known = header.size();
  header.resize(length);
  in.clear();  // a file shorter than the prefix read ends the stream; what it holds is known
  if (length > known) {
    in.read(header.data() + known, static_cast<std::streamsize>(length - known));
    if (static_cast<std::size_t>(in.gcount()) != length - known) throw npy_error(path, "truncated header");
  } else {
    in.seekg(static_cast<std::streamoff>(length));
  }
  return parse_npy_header(header, file_size, path);
}

// A Fortran-order file stores the first index fastest; each stored element goes to its C-order
// position, found by counting through the indices in stored order.
void decode_values(const NpyHeader& header, const std::string& bytes, std::vector<std::complex<double>>& values) {
  values.resize(header.element_count);
  const std::size_t rank = header.shape.size();
  std::vector<std::size_t> index(rank, 0);
  for (std::size_t stored = 0; stored < header.element_count; ++stored) {
    std::size_t c_offset = stored;
    if (header.fortran_order && rank > 1) {
      c_offset = 0;
      for (std::size_t d = 0; d < rank; ++d) c_offset = c_offset * header.shape[d] + index[d];
      for (std::size_t d = 0; d < rank; ++d) {
        if (++index[d] < header.shape[d]) break;
        index[d] = 0;
      }
    }
    values[c_offset] = decode(bytes.data() + stored * header.element.bytes, header.element);
  }
}

}  // namespace

NpyHeader read_npy_header(const std::string& path) {
  std::ifstream in;
  return open_npy(path, in);
}

NpyData read_npy(const std::string& path) {
  std::ifstream in;
  const NpyHeader header = open_npy(path, in);
  std::string bytes(header.data_bytes, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (static_cast<std::size_t>(in.gcount()) != bytes.size())
    throw std::runtime_error("npy file '" + path + "': read failed after " + std::to_string(in.gcount()) + " data bytes");
  NpyData data;
  data.shape = header.shape;
  data.complex_valued = header.complex_valued();
  data.stored_type = header.stored_type();
  decode_values(header, bytes, data.values);
  return data;
}

// NaN, infinity and values beyond T's range are refused by element: once read, they ran to the
// end and every output block was reported wrong, as if the hardware had failed.
template <class R>
R checked_component(const std::string& path, double value, const std::array<std::size_t, 3>& at) {
  const auto where = [&] { return fmt::format("element ({},{},{}) is {}", at[0], at[1], at[2], value); };
  if (!std::isfinite(value)) throw npy_error(path, where() + "; allowed: finite numbers");
  if (std::abs(value) > static_cast<double>(std::numeric_limits<R>::max()))
    throw npy_error(path, fmt::format("{}, which overflows {} (largest {}); allowed: values within the precision's range",
                                      where(), std::is_same_v<R, float> ? "float" : "double", std::numeric_limits<R>::max()));
  return static_cast<R>(value);
}

namespace {

// The values of `data` (C order) as an e0 x e1 x e2 tensor; the shape must hold as many.
template <class T>
Tensor3<T> to_tensor(const std::string& path, const NpyData& data, const Extents3& e) {
  if (data.complex_valued && !is_complex_v<T>)
    throw npy_error(path, "holds complex values but the run is real; use a complex transform "
                          "or set domain: complex");
  using R = real_t<T>;
  Tensor3<T> out(e[0], e[1], e[2]);
  std::size_t c = 0;
  for (std::size_t i = 0; i < e[0]; ++i)
    for (std::size_t j = 0; j < e[1]; ++j)
      for (std::size_t k = 0; k < e[2]; ++k, ++c) {
        const R re = checked_component<R>(path, data.values[c].real(), {i, j, k});
        if constexpr (is_complex_v<T>)
          out(i, j, k) = T(re, checked_component<R>(path, data.values[c].imag(), {i, j, k}));
        else
          out(i, j, k) = re;
      }
  return out;
}

template <class T>
void write_array(const std::string& path, const Tensor3<T>& tensor, const std::string& shape) {
  std::string header = "{'descr': '" + descr_of<T>() + "', 'fortran_order': True, 'shape': (" + shape + "), }";
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

}  // namespace

template <class T>
Tensor3<T> read_npy_tensor(const std::string& path) {
  const NpyData data = read_npy(path);
  if (data.shape.size() != 3)
    throw npy_error(path, "holds a " + std::to_string(data.shape.size()) +
                              "-dimensional array; a 3-dimensional tensor is needed");
  return to_tensor<T>(path, data, {data.shape[0], data.shape[1], data.shape[2]});
}

template <class T>
Tensor3<T> read_npy_matrix(const std::string& path) {
  const NpyData data = read_npy(path);
  if (data.shape.size() != 2)
    throw npy_error(path, "holds a " + std::to_string(data.shape.size()) + "-dimensional array; a matrix (2 dimensions) is needed");
  return to_tensor<T>(path, data, {data.shape[0], data.shape[1], 1});
}

template <class T>
void write_npy(const std::string& path, const Tensor3<T>& tensor) {
  const Extents3& e = tensor.extents();
  write_array(path, tensor, std::to_string(e[0]) + ", " + std::to_string(e[1]) + ", " + std::to_string(e[2]));
}

template <class T>
void write_npy_matrix(const std::string& path, const Tensor3<T>& matrix) {
  const Extents3& e = matrix.extents();
  if (e[1] != 1 && e[2] != 1) throw std::logic_error("write_npy_matrix: the tensor is not a matrix");
  write_array(path, matrix, std::to_string(e[0]) + ", " + std::to_string(e[1] * e[2]));
}

template Tensor3<float> read_npy_tensor<float>(const std::string&);
template Tensor3<double> read_npy_tensor<double>(const std::string&);
template Tensor3<std::complex<float>> read_npy_tensor<std::complex<float>>(const std::string&);
template Tensor3<std::complex<double>> read_npy_tensor<std::complex<double>>(const std::string&);
template void write_npy<float>(const std::string&, const Tensor3<float>&);
template void write_npy_matrix<float>(const std::string&, const Tensor3<float>&);
template Tensor3<float> read_npy_matrix<float>(const std::string&);
template void write_npy<double>(const std::string&, const Tensor3<double>&);
template void write_npy_matrix<double>(const std::string&, const Tensor3<double>&);
template Tensor3<double> read_npy_matrix<double>(const std::string&);
template void write_npy<std::complex<float>>(const std::string&, const Tensor3<std::complex<float>>&);
template void write_npy_matrix<std::complex<float>>(const std::string&, const Tensor3<std::complex<float>>&);
template Tensor3<std::complex<float>> read_npy_matrix<std::complex<float>>(const std::string&);
template void write_npy<std::complex<double>>(const std::string&, const Tensor3<std::complex<double>>&);
template void write_npy_matrix<std::complex<double>>(const std::string&, const Tensor3<std::complex<double>>&);
template Tensor3<std::complex<double>> read_npy_matrix<std::complex<double>>(const std::string&);

}  // namespace torus
