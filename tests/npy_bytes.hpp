#pragma once
// .npy files written byte by byte, so tests can hand the reader headers that numpy would never
// write: negative or enormous shapes, structured types, data of the wrong length.

#include <cstddef>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace torus {

// Magic, version 1.0, the header length, `dictionary` padded with spaces to a multiple of 64
// bytes as numpy pads it, then `data` as it is.
inline std::string npy_bytes(std::string_view dictionary, std::string_view data) {
  std::string header(dictionary);
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>((header.size() >> 8) & 0xff);
  return bytes + header + std::string(data);
}

// The little-endian bytes of `values` (this project runs on little-endian machines only).
template <class T>
std::string raw_bytes(const std::vector<T>& values) {
  return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)};
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace torus
