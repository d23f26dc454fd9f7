#include "kernels/npy_header.hpp"

#include <charconv>
#include <utility>

#include "kernels/text.hpp"

namespace torus {
namespace {

// numpy itself refuses headers over 10000 bytes by default; a longer one is not a tensor header.
constexpr std::size_t max_header_bytes = std::size_t{1} << 20;

constexpr std::string_view allowed_types =
    "allowed: float32, float64, complex64, complex128 (little-endian) or small integers";

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

NpyElement element_of(const std::string& path, std::string_view descr) {
  static const std::vector<std::pair<std::string_view, NpyElement>> formats = {
      {"<f4", {4, false, true, true}},  {"<f8", {8, false, true, true}},
      {"<c8", {8, true, true, true}},   {"<c16", {16, true, true, true}},
      {"<i4", {4, false, false, true}}, {"<i8", {8, false, false, true}},
      {"|i1", {1, false, false, true}}, {"<i2", {2, false, false, true}},
      {"<u4", {4, false, false, false}}, {"|u1", {1, false, false, false}},
  };
  for (const auto& [name, format] : formats)
    if (name == descr) return format;
  throw npy_error(path, "element type '" + std::string(descr) + "' is not supported; " + std::string(allowed_types));
}

NpyElement parse_descr(const std::string& path, std::string_view descr) {
  if (descr.starts_with('['))
    throw npy_error(path, "element type is a structured dtype (a list of named fields), which is not supported; " +
                              std::string(allowed_types) + ", one number per element");
  const auto close = descr.empty() ? std::string_view::npos : descr.find('\'', 1);
  if (descr.empty() || descr.front() != '\'' || close == std::string_view::npos)
    throw npy_error(path, "header 'descr' is not a quoted type");
  return element_of(path, descr.substr(1, close - 1));
}

bool parse_fortran_order(const std::string& path, std::string_view order) {
  if (order.starts_with("True")) return true;
  if (order.starts_with("False")) return false;
  throw npy_error(path, "header 'fortran_order' is neither True nor False");
}

// One entry of the shape tuple: digits only, and few enough to count in a size_t. stoull once
// took "-4" as 2^64 - 4.
std::size_t parse_extent(const std::string& path, std::string_view item) {
  std::size_t value = 0;
  const bool digits = !item.empty() && item.find_first_not_of("0123456789") == std::string_view::npos;
  const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
  if (digits && ec == std::errc::result_out_of_range)
    throw npy_error(path, "header 'shape' holds '" + std::string(item) + "', too large a size");
  if (!digits || ec != std::errc() || ptr != item.data() + item.size())
    throw npy_error(path, "header 'shape' holds '" + std::string(item) +
                              "', not a size; allowed: whole numbers from 0 up, digits only");
  return value;
}

// The tuple "(a, b, c)", "(a,)" or "()".
std::vector<std::size_t> parse_shape(const std::string& path, std::string_view value) {
  const auto close = value.find(')');
  if (value.empty() || value.front() != '(' || close == std::string_view::npos)
    throw npy_error(path, "header 'shape' is not a tuple");
  const std::vector<std::string> items = split(value.substr(1, close - 1), ',');
  std::vector<std::size_t> shape;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const bool trailing_comma = i > 0 && i + 1 == items.size();
    if (items[i].empty() && (trailing_comma || items.size() == 1)) continue;
    shape.push_back(parse_extent(path, items[i]));
  }
  return shape;
}

// Element count and data size, with every product checked: unchecked, (2^61+8, 8, 1) wrapped
// to a small count and the reader wrote past its buffer.
void size_data(const std::string& path, NpyHeader& h) {
  h.element_count = 1;
  for (const std::size_t extent : h.shape)
    if (__builtin_mul_overflow(h.element_count, extent, &h.element_count))
      throw npy_error(path, "header 'shape' (" + h.shape_text() + ") has more elements than can be addressed");
  if (__builtin_mul_overflow(h.element_count, h.element.bytes, &h.data_bytes))
    throw npy_error(path, "header 'shape' (" + h.shape_text() + ") needs more bytes than can be addressed");
}

}  // namespace

NpyError npy_error(const std::string& path, const std::string& what) {
  return NpyError("npy file '" + path + "': " + what);
}

ScalarType NpyHeader::stored_type() const {
  const bool single = element.is_float && element.bytes == (element.is_complex ? 8u : 4u);
  return {single ? Precision::Single : Precision::Double, element.is_complex ? Domain::Complex : Domain::Real};
}

std::string NpyHeader::shape_text() const {
  if (shape.empty()) return "a scalar";
  std::vector<std::string> extents;
  for (const std::size_t extent : shape) extents.push_back(std::to_string(extent));
  return join(extents, " x ");
}

std::size_t npy_header_length(std::string_view prefix, std::uintmax_t file_size, const std::string& path) {
  if (prefix.size() < 10 || !prefix.starts_with("\x93NUMPY"))
    throw npy_error(path, "is not a NumPy .npy file (bad magic)");
  const auto byte = [prefix](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(prefix[i])); };
  const std::size_t major = byte(6);
  std::size_t length = 0, start = 0;
  if (major == 1) {
    length = byte(8) | (byte(9) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (prefix.size() < 12) throw npy_error(path, "truncated header");
    for (std::size_t i = 4; i-- > 0;) length = (length << 8) | byte(8 + i);
    start = 12;
  } else {
    throw npy_error(path, "format version " + std::to_string(major) + " is not supported");
  }
  if (length > max_header_bytes)
    throw npy_error(path, "header of " + std::to_string(length) + " bytes is longer than the 1 MiB allowed");
  if (start + length > file_size) throw npy_error(path, "truncated header");
  return start + length;
}

NpyHeader parse_npy_header(std::string_view header, std::uintmax_t file_size, const std::string& path) {
  const std::size_t start = static_cast<unsigned char>(header[6]) == 1 ? 10 : 12;
  const std::string text(header.substr(start));
  NpyHeader h;
  h.element = parse_descr(path, value_after(path, text, "descr"));
  h.fortran_order = parse_fortran_order(path, value_after(path, text, "fortran_order"));
  h.shape = parse_shape(path, value_after(path, text, "shape"));
  h.data_offset = header.size();
  size_data(path, h);
  const std::uintmax_t held = file_size - h.data_offset;
  if (held != h.data_bytes)
    throw npy_error(path, "holds " + std::to_string(held) + " data bytes, expected " + std::to_string(h.data_bytes) +
                              " for its shape (" + h.shape_text() + ")");
  return h;
}

}  // namespace torus
