#include "sim/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <complex>

#include "kernels/mode_product.hpp"
#include "kernels/scalar.hpp"

namespace torus {

double gamma_bound(double n, double unit_roundoff) { return n * unit_roundoff / (1.0 - n * unit_roundoff); }

double stage_factor(std::size_t n, double unit_roundoff, bool complex_data, int stages) {
  const double length = static_cast<double>(n);
  const double stage = complex_data ? std::sqrt(2.0) * gamma_bound(2.0 * length, unit_roundoff)
                                    : gamma_bound(length, unit_roundoff);
  return std::pow(1.0 + stage, stages) - 1.0;
}

double fft_stage_factor(std::size_t n, double unit_roundoff, bool scaled) {
  const double u = unit_roundoff;
  const double pass = std::sqrt(2.0) * (1.0 + u) * gamma_bound(2, u) + u;
  const double scaling = scaled ? (1.0 + u) * (1.0 + u) - 1.0 : 0.0;
  const double passes = n > 1 ? std::log2(static_cast<double>(n)) : 0.0;
  return std::pow(1.0 + pass, passes) * (1.0 + scaling) - 1.0;
}

double chained_factor(const std::array<double, 3>& stage) {
  return (1.0 + stage[0]) * (1.0 + stage[1]) * (1.0 + stage[2]) - 1.0;
}

double three_stage_factor(std::size_t n, double unit_roundoff, bool complex_data) {
  return stage_factor(n, unit_roundoff, complex_data, 3);
}

template <class T>
Tensor3<double> absolute_transform_of_magnitude(const Tensor3<double>& magnitude,
                                                const std::array<Matrix<T>, 3>& per_axis, unsigned threads) {
  std::array<Matrix<double>, 3> absolute;
  for (std::size_t a = 0; a < 3; ++a) absolute[a] = per_axis[a].cwiseAbs().template cast<double>();
  return golden_transform(magnitude, absolute, threads);
}

template <class T>
Tensor3<double> absolute_transform(const Tensor3<T>& x, const std::array<Matrix<T>, 3>& per_axis, unsigned threads) {
  Tensor3<double> magnitude(x.extents());
  for (std::size_t i = 0; i < x.size(); ++i) magnitude.data()[i] = static_cast<double>(std::abs(x.data()[i]));
  return absolute_transform_of_magnitude(magnitude, per_axis, threads);
}

namespace {

template <class T, class Tolerance>
ErrorReport compare(const Tensor3<T>& result, const Tensor3<T>& reference, double factor, Tolerance tolerance_at) {
  ErrorReport r;
  r.tolerance_factor = factor;
  double max_reference = 0;
  const Extents3& e = reference.extents();
  for (std::size_t k = 0; k < e[2]; ++k)
    for (std::size_t j = 0; j < e[1]; ++j)
      for (std::size_t i = 0; i < e[0]; ++i) {
        const double error = static_cast<double>(std::abs(result(i, j, k) - reference(i, j, k)));
        const double tolerance = tolerance_at(i, j, k);
        max_reference = std::max(max_reference, static_cast<double>(std::abs(reference(i, j, k))));
        r.max_abs_error = std::isnan(error) ? INFINITY : std::max(r.max_abs_error, error);  // NaN: not a 0 that fails
        const double ratio = error == 0 ? 0 : (tolerance > 0 ? error / tolerance : INFINITY);
        if (ratio > r.max_bound_ratio || std::isnan(error)) {
          r.max_bound_ratio = std::isnan(error) ? INFINITY : ratio;
          r.worst_element = {i, j, k};
        }
        if ((ratio > 1.0 || std::isnan(error)) && !r.has_failure) {
          r.has_failure = true;
          r.first_failure = {i, j, k};
        }
      }
  r.max_rel_error = max_reference > 0 ? r.max_abs_error / max_reference : r.max_abs_error;
  return r;
}

std::size_t length_of(const Extents3& e) { return std::max({e[0], e[1], e[2]}); }

}  // namespace

template <class T>
ErrorReport compare_to_golden(const Tensor3<T>& result, const Tensor3<T>& golden, const Tensor3<double>& magnitude,
                              int stages) {
  const double factor = 2.0 * stage_factor(length_of(golden.extents()), unit_roundoff<T>(), is_complex_v<T>, stages);
  return compare(result, golden, factor, [&](std::size_t i, std::size_t j, std::size_t k) { return factor * magnitude(i, j, k); });
}

template <class T>
ErrorReport compare_to_golden_per_stage(const Tensor3<T>& result, const Tensor3<T>& golden, const Tensor3<double>& magnitude,
                                        const std::array<double, 3>& simulated_stage, int own_coefficients) {
  const double u = unit_roundoff<T>();
  const double golden_factor = stage_factor(length_of(golden.extents()), u, is_complex_v<T>, 3);
  const double factor =
      (1.0 + chained_factor(simulated_stage) + golden_factor) * std::pow(1.0 + 2.0 * u, own_coefficients) - 1.0;
  return compare(result, golden, factor, [&](std::size_t i, std::size_t j, std::size_t k) { return factor * magnitude(i, j, k); });
}

template <class T>
ErrorReport compare_product_to_golden(const Tensor3<T>& result, const Tensor3<T>& golden, const Tensor3<double>& magnitude,
                                      std::size_t inner) {
  const double factor = 2.0 * stage_factor(inner, unit_roundoff<T>(), is_complex_v<T>, 1);
  return compare(result, golden, factor, [&](std::size_t i, std::size_t j, std::size_t k) { return factor * magnitude(i, j, k); });
}

template <class T>
ErrorReport compare_round_trip(const Tensor3<T>& x_hat, const Tensor3<T>& x, const Tensor3<double>& through_y_hat,
                               const Tensor3<double>& through_x, double defect_factor) {
  const double factor = three_stage_factor(length_of(x.extents()), unit_roundoff<T>(), is_complex_v<T>);
  return compare(x_hat, x, factor, [&](std::size_t i, std::size_t j, std::size_t k) {
    return factor * (through_y_hat(i, j, k) + through_x(i, j, k)) + defect_factor * through_x(i, j, k);
  });
}

template <class T>
int first_wrong_stage(const Tensor3<T>& input, const std::array<Tensor3<T>, 3>& partials,
                      const std::array<Matrix<T>, 3>& per_axis, const std::array<int, 3>& modes) {
  Tensor3<T> golden = input;
  Tensor3<double> magnitude(input.extents());
  for (std::size_t i = 0; i < input.size(); ++i) magnitude.data()[i] = static_cast<double>(std::abs(input.data()[i]));
  for (int stage = 0; stage < 3; ++stage) {
    const auto axis = static_cast<std::size_t>(modes[static_cast<std::size_t>(stage)] - 1);
    golden = mode_product(golden, per_axis[axis], static_cast<int>(axis + 1));
    const Matrix<double> absolute = per_axis[axis].cwiseAbs().template cast<double>();
    magnitude = mode_product(magnitude, absolute, static_cast<int>(axis + 1));
    if (!compare_to_golden(partials[static_cast<std::size_t>(stage)], golden, magnitude, stage + 1).within_tolerance())
      return stage + 1;
  }
  return 0;
}

template <class T>
double inverse_defect(const Matrix<T>& forward, const Matrix<T>& inverse) {
  using Wide = std::conditional_t<is_complex_v<T>, std::complex<long double>, long double>;
  const Matrix<Wide> c = forward.template cast<Wide>();
  const Matrix<Wide> d = inverse.template cast<Wide>();
  const Matrix<Wide> defect = c * d - Matrix<Wide>::Identity(c.rows(), c.cols());
  const Matrix<long double> scale = c.cwiseAbs() * d.cwiseAbs();
  long double worst = 0;
  for (Eigen::Index j = 0; j < defect.cols(); ++j)
    for (Eigen::Index i = 0; i < defect.rows(); ++i)
      if (scale(i, j) > 0) worst = std::max(worst, std::abs(defect(i, j)) / scale(i, j));
  return static_cast<double>(worst);
}

template Tensor3<double> absolute_transform_of_magnitude(const Tensor3<double>&, const std::array<Matrix<float>, 3>&, unsigned);
template Tensor3<double> absolute_transform_of_magnitude(const Tensor3<double>&, const std::array<Matrix<double>, 3>&, unsigned);
template Tensor3<double> absolute_transform_of_magnitude(const Tensor3<double>&, const std::array<Matrix<std::complex<float>>, 3>&, unsigned);
template Tensor3<double> absolute_transform_of_magnitude(const Tensor3<double>&, const std::array<Matrix<std::complex<double>>, 3>&, unsigned);
template Tensor3<double> absolute_transform(const Tensor3<float>&, const std::array<Matrix<float>, 3>&, unsigned);
template Tensor3<double> absolute_transform(const Tensor3<double>&, const std::array<Matrix<double>, 3>&, unsigned);
template Tensor3<double> absolute_transform(const Tensor3<std::complex<float>>&, const std::array<Matrix<std::complex<float>>, 3>&, unsigned);
template Tensor3<double> absolute_transform(const Tensor3<std::complex<double>>&, const std::array<Matrix<std::complex<double>>, 3>&, unsigned);
template ErrorReport compare_to_golden(const Tensor3<float>&, const Tensor3<float>&, const Tensor3<double>&, int);
template ErrorReport compare_to_golden(const Tensor3<double>&, const Tensor3<double>&, const Tensor3<double>&, int);
template ErrorReport compare_to_golden(const Tensor3<std::complex<float>>&, const Tensor3<std::complex<float>>&, const Tensor3<double>&, int);
template ErrorReport compare_to_golden(const Tensor3<std::complex<double>>&, const Tensor3<std::complex<double>>&, const Tensor3<double>&, int);
template int first_wrong_stage(const Tensor3<float>&, const std::array<Tensor3<float>, 3>&, const std::array<Matrix<float>, 3>&,
                               const std::array<int, 3>&);
template int first_wrong_stage(const Tensor3<double>&, const std::array<Tensor3<double>, 3>&, const std::array<Matrix<double>, 3>&,
                               const std::array<int, 3>&);
template int first_wrong_stage(const Tensor3<std::complex<float>>&, const std::array<Tensor3<std::complex<float>>, 3>&,
                               const std::array<Matrix<std::complex<float>>, 3>&, const std::array<int, 3>&);
template int first_wrong_stage(const Tensor3<std::complex<double>>&, const std::array<Tensor3<std::complex<double>>, 3>&,
                               const std::array<Matrix<std::complex<double>>, 3>&, const std::array<int, 3>&);
template ErrorReport compare_round_trip(const Tensor3<float>&, const Tensor3<float>&, const Tensor3<double>&, const Tensor3<double>&, double);
template ErrorReport compare_round_trip(const Tensor3<double>&, const Tensor3<double>&, const Tensor3<double>&, const Tensor3<double>&, double);
template ErrorReport compare_round_trip(const Tensor3<std::complex<float>>&, const Tensor3<std::complex<float>>&, const Tensor3<double>&,
                                        const Tensor3<double>&, double);
template ErrorReport compare_round_trip(const Tensor3<std::complex<double>>&, const Tensor3<std::complex<double>>&, const Tensor3<double>&,
                                        const Tensor3<double>&, double);
template ErrorReport compare_to_golden_per_stage(const Tensor3<float>&, const Tensor3<float>&, const Tensor3<double>&,
                                                 const std::array<double, 3>&, int);
template ErrorReport compare_to_golden_per_stage(const Tensor3<double>&, const Tensor3<double>&, const Tensor3<double>&,
                                                 const std::array<double, 3>&, int);
template ErrorReport compare_to_golden_per_stage(const Tensor3<std::complex<float>>&, const Tensor3<std::complex<float>>&,
                                                 const Tensor3<double>&, const std::array<double, 3>&, int);
template ErrorReport compare_to_golden_per_stage(const Tensor3<std::complex<double>>&, const Tensor3<std::complex<double>>&,
                                                 const Tensor3<double>&, const std::array<double, 3>&, int);
template ErrorReport compare_product_to_golden(const Tensor3<float>&, const Tensor3<float>&, const Tensor3<double>&, std::size_t);
template ErrorReport compare_product_to_golden(const Tensor3<double>&, const Tensor3<double>&, const Tensor3<double>&, std::size_t);
template ErrorReport compare_product_to_golden(const Tensor3<std::complex<float>>&, const Tensor3<std::complex<float>>&, const Tensor3<double>&, std::size_t);
template ErrorReport compare_product_to_golden(const Tensor3<std::complex<double>>&, const Tensor3<std::complex<double>>&, const Tensor3<double>&, std::size_t);
template double inverse_defect(const Matrix<float>&, const Matrix<float>&);
template double inverse_defect(const Matrix<double>&, const Matrix<double>&);
template double inverse_defect(const Matrix<std::complex<float>>&, const Matrix<std::complex<float>>&);
template double inverse_defect(const Matrix<std::complex<double>>&, const Matrix<std::complex<double>>&);

}  // namespace torus
