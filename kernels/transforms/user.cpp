#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <Eigen/LU>

#include "kernels/npy.hpp"
#include "kernels/text.hpp"
#include "kernels/transforms/factories.hpp"

namespace torus {
namespace {

std::string size_mismatch(const std::string& path, std::size_t rows, std::size_t n) {
  return "user_matrix: '" + path + "' is " + std::to_string(rows) + " x " + std::to_string(rows) + " but N = " +
         std::to_string(n) + "; the matrix must be N x N";
}

// Refused before the matrix is inverted: the LU of a large matrix of the wrong size once took
// 80 s before its size was looked at. `n` = 0: the size is not known yet.
void check_rows(const std::string& path, std::size_t rows, std::size_t n) {
  if (n != 0 && rows != n) throw std::invalid_argument(size_mismatch(path, rows, n));
}

// The whole field as one number: stold read the 1 of "1abc" and dropped the rest.
bool parse_entry(std::string_view field, long double& value) {
  if (field.starts_with('+') && field.size() > 1 && field[1] != '-' && field[1] != '+') field.remove_prefix(1);
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return ec == std::errc() && ptr == field.data() + field.size();
}

// `limit`: the most entries a row may have (N when known); a longer one is refused before the
// rest of it is read.
std::vector<long double> parse_row(const std::string& path, std::string line, std::size_t line_number, std::size_t limit) {
  if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
  for (char& c : line)
    if (c == ',' || c == ';') c = ' ';
  std::istringstream fields(line);
  std::vector<long double> row;
  std::string field;
  while (fields >> field) {
    if (row.size() == limit)
      throw std::invalid_argument("user_matrix: '" + path + "' line " + std::to_string(line_number) + " has more than " +
                                  std::to_string(limit) + " entries but N = " + std::to_string(limit) +
                                  "; the matrix must be N x N");
    row.push_back(0);
    if (!parse_entry(field, row.back()))
      throw std::invalid_argument("user_matrix: '" + path + "' line " + std::to_string(line_number) + ": '" + field +
                                  "' is not a real number (complex matrices need .npy)");
  }
  return row;
}

WideMatrix read_text_matrix(const std::string& path, std::size_t n) {
  std::error_code error;
  if (!std::filesystem::exists(path, error))
    throw std::invalid_argument("user_matrix: '" + path + "' cannot be opened for reading (no such file)");
  if (!std::filesystem::is_regular_file(path, error) || std::filesystem::file_size(path, error) > (std::uintmax_t{1} << 28))
    throw std::invalid_argument("user_matrix: '" + path + "' must be a regular file of at most 256 MiB");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("user_matrix: '" + path + "' cannot be opened for reading");
  // A .npy file under another name would otherwise be reported line by line as raw bytes.
  char magic[6] = {};
  in.read(magic, sizeof magic);
  if (in.gcount() == sizeof magic && std::string_view(magic, sizeof magic) == "\x93NUMPY")
    throw std::invalid_argument("user_matrix: '" + path + "' is a .npy file; its name must end in .npy to be read as one");
  in.clear();
  in.seekg(0);
  // At most one row more than the first row is wide is read, and no row longer than N: a file of
  // millions of one-entry lines once took 1.85 GB before its size was looked at.
  std::vector<std::vector<long double>> rows;
  std::string line;
  const std::size_t limit = n != 0 ? n : std::numeric_limits<std::size_t>::max();
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    std::vector<long double> row = parse_row(path, line, number, limit);
    if (row.empty()) continue;
    if (!rows.empty() && row.size() != rows.front().size())
      throw std::invalid_argument("user_matrix: '" + path + "' line " + std::to_string(number) + " has " +
                                  std::to_string(row.size()) + " entries where the first row has " +
                                  std::to_string(rows.front().size()) + "; a square matrix is needed");
    rows.push_back(std::move(row));
    if (rows.size() > rows.front().size())
      throw std::invalid_argument("user_matrix: '" + path + "' has more than " + std::to_string(rows.front().size()) +
                                  " rows of " + std::to_string(rows.front().size()) + " entries; a square matrix is needed");
  }
  if (rows.empty()) throw std::invalid_argument("user_matrix: '" + path + "' holds no numbers; an N x N matrix is needed");
  if (rows.size() != rows.front().size())
    throw std::invalid_argument("user_matrix: '" + path + "' has " + std::to_string(rows.size()) + " rows of " +
                                std::to_string(rows.front().size()) + " entries; a square matrix is needed");
  check_rows(path, rows.size(), n);
  WideMatrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows.size(); ++j) m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  return m;
}

WideMatrix read_npy_matrix(const std::string& path, std::size_t n) {
  const NpyHeader header = with_parameter("user_matrix", [&] { return read_npy_header(path); });
  if (header.shape.size() != 2 || header.shape[0] != header.shape[1])
    throw std::invalid_argument("user_matrix: '" + path + "' must hold a square 2-dimensional array, not " +
                                header.shape_text());
  check_rows(path, header.shape[0], n);
  const NpyData data = with_parameter("user_matrix", [&] { return read_npy(path); });
  if (data.shape != header.shape) throw std::invalid_argument("user_matrix: '" + path + "' changed while being read");
  const auto size = static_cast<Eigen::Index>(data.shape[0]);
  WideMatrix m(size, size);
  for (Eigen::Index i = 0; i < size; ++i)
    for (Eigen::Index j = 0; j < size; ++j) {
      const auto& v = data.values[static_cast<std::size_t>(i * size + j)];
      m(i, j) = WideComplex(v.real(), v.imag());
    }
  return m;
}

// A NaN once passed as far as the inverse and was reported as a complex-valued matrix.
void check_finite(const std::string& path, const WideMatrix& a) {
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      if (!std::isfinite(a(i, j).real()) || !std::isfinite(a(i, j).imag())) {
        std::ostringstream value;
        value << static_cast<std::complex<double>>(a(i, j));
        throw std::invalid_argument("user_matrix: '" + path + "' entry (row " + std::to_string(i + 1) + ", column " +
                                    std::to_string(j + 1) + ") is " + value.str() + "; allowed: finite numbers");
      }
}

// The file holds the matrix A of y = A x in the usual convention (row = output index k,
// column = input index n); the project's C(n, k) is its transpose. D = C^{-1} is computed by LU; a matrix whose inverse would lose more than
// three of the working precision's digits to conditioning is refused.
class UserMatrix final : public Transform {
 public:
  explicit UserMatrix(const TransformOptions& options)
      : path_(options.user_matrix_path), unit_roundoff_(options.unit_roundoff) {
    if (path_.empty())
      throw std::invalid_argument("transform user: needs user_matrix, the path of an N x N matrix "
                                  "(.npy, or text with one row per line)");
    const WideMatrix a = path_.ends_with(".npy") ? read_npy_matrix(path_, options.size) : read_text_matrix(path_, options.size);
    check_finite(path_, a);
    forward_ = a.transpose();
    for (Eigen::Index j = 0; j < forward_.cols(); ++j)
      for (Eigen::Index i = 0; i < forward_.rows(); ++i)
        complex_ = complex_ || forward_(i, j).imag() != 0.0L;
    invert();
  }
  std::string name() const override { return "user"; }
  bool complex_valued() const override { return complex_; }
  // An arbitrary matrix: a node holds the blocks it uses.
  std::optional<std::size_t> table_values(std::size_t) const override { return std::nullopt; }
  void check_size(std::size_t n) const override {
    if (static_cast<Eigen::Index>(n) != forward_.rows())
      throw std::invalid_argument(size_mismatch(path_, static_cast<std::size_t>(forward_.rows()), n));
  }
  CoefficientMatrices matrices(std::size_t n) const override {
    check_size(n);
    return {forward_, inverse_};
  }

 private:
  void invert() {
    const Eigen::PartialPivLU<WideMatrix> lu(forward_);
    const long double reciprocal_condition = lu.rcond();
    const double limit = 1.0e-3 / unit_roundoff_;
    if (!(reciprocal_condition > 0.0L) || !std::isfinite(static_cast<double>(1.0L / reciprocal_condition)) ||
        1.0L / reciprocal_condition > limit) {
      std::ostringstream message;
      message << "user_matrix: '" << path_ << "' is singular or badly conditioned: estimated "
              << "1-norm condition number " << (reciprocal_condition > 0 ? 1.0L / reciprocal_condition : INFINITY)
              << " exceeds " << limit << " (1e-3 / unit roundoff of the working precision)";
      throw std::invalid_argument(message.str());
    }
    inverse_ = lu.inverse();
  }

  std::string path_;
  double unit_roundoff_;
  WideMatrix forward_;
  WideMatrix inverse_;
  bool complex_ = false;
};

}  // namespace

std::unique_ptr<Transform> make_user(const TransformOptions& options) {
  return std::make_unique<UserMatrix>(options);
}

}  // namespace torus
