#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <Eigen/LU>

#include "kernels/npy.hpp"
#include "kernels/transforms/factories.hpp"

namespace torus {
namespace {

WideMatrix read_text_matrix(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error))
    throw std::invalid_argument("user_matrix: '" + path + "' cannot be opened for reading (no such file)");
  if (!std::filesystem::is_regular_file(path, error) || std::filesystem::file_size(path, error) > (std::uintmax_t{1} << 28))
    throw std::invalid_argument("user_matrix: '" + path + "' must be a regular file of at most 256 MiB");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("user_matrix: '" + path + "' cannot be opened for reading");
  std::vector<std::vector<long double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    for (char& c : line)
      if (c == ',' || c == ';') c = ' ';
    std::istringstream fields(line);
    std::vector<long double> row;
    std::string field;
    while (fields >> field) {
      try {
        row.push_back(std::stold(field));
      } catch (const std::exception&) {
        throw std::invalid_argument("user_matrix: '" + path + "' line " +
                                    std::to_string(rows.size() + 1) + ": '" + field +
                                    "' is not a real number (complex matrices need .npy)");
      }
    }
    if (!row.empty()) rows.push_back(std::move(row));
  }
  WideMatrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() != rows.size())
      throw std::invalid_argument("user_matrix: '" + path + "' row " + std::to_string(i + 1) + " has " +
                                  std::to_string(rows[i].size()) + " entries; a square " +
                                  std::to_string(rows.size()) + " x " + std::to_string(rows.size()) +
                                  " matrix is needed");
    for (std::size_t j = 0; j < rows.size(); ++j)
      m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  }
  return m;
}

WideMatrix read_npy_matrix(const std::string& path) {
  NpyData data;
  try {
    data = read_npy(path);
  } catch (const NpyError& e) {
    throw std::invalid_argument(std::string("user_matrix: ") + e.what());
  }
  if (data.shape.size() != 2 || data.shape[0] != data.shape[1])
    throw std::invalid_argument("user_matrix: '" + path + "' must hold a square 2-dimensional array");
  const auto n = static_cast<Eigen::Index>(data.shape[0]);
  WideMatrix m(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) {
      const auto& v = data.values[static_cast<std::size_t>(i * n + j)];
      m(i, j) = WideComplex(v.real(), v.imag());
    }
  return m;
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
    forward_ = (path_.ends_with(".npy") ? read_npy_matrix(path_) : read_text_matrix(path_)).transpose();
    for (Eigen::Index j = 0; j < forward_.cols(); ++j)
      for (Eigen::Index i = 0; i < forward_.rows(); ++i)
        complex_ = complex_ || forward_(i, j).imag() != 0.0L;
    invert();
  }
  std::string name() const override { return "user"; }
  bool complex_valued() const override { return complex_; }
  void check_size(std::size_t n) const override {
    if (static_cast<Eigen::Index>(n) != forward_.rows())
      throw std::invalid_argument("user_matrix: '" + path_ + "' is " + std::to_string(forward_.rows()) +
                                  " x " + std::to_string(forward_.rows()) + " but N = " +
                                  std::to_string(n) + "; the matrix must be N x N");
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
