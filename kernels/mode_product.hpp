#pragma once
// Tensor-by-matrix products along one mode: the only arithmetic a 3D separable transform
// needs. Used on whole tensors by the golden reference and on b x b x b blocks by the
// functional executor.

#include <algorithm>
#include <array>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/tensor3.hpp"

namespace torus {

// acc += x x_mode C on raw words in Tensor3 storage order (first index fastest), C
// column-major with xe[mode-1] rows and ae[mode-1] columns: for mode 1,
// acc(k, j, l) += sum_n x(n, j, l) C(n, k). No checks: the callers check shapes once (the
// Tensor3 overload below) or trust a verified Program (the program executor), so the hot
// path of the executor neither allocates nor validates.
template <class T>
void mode_product_accumulate(T* acc, const Extents3& ae, const T* x, const Extents3& xe, const T* coefficient,
                             int mode) {
  using Map = Eigen::Map<Matrix<T>>;
  using ConstMap = Eigen::Map<const Matrix<T>>;
  const auto i = [](std::size_t v) { return static_cast<Eigen::Index>(v); };
  const auto m = static_cast<std::size_t>(mode - 1);
  const ConstMap c(coefficient, i(xe[m]), i(ae[m]));
  if (mode == 1) {
    Map(acc, i(ae[0]), i(ae[1] * ae[2])).noalias() += c.transpose() * ConstMap(x, i(xe[0]), i(xe[1] * xe[2]));
  } else if (mode == 3) {
    Map(acc, i(ae[0] * ae[1]), i(ae[2])).noalias() += ConstMap(x, i(xe[0] * xe[1]), i(xe[2])) * c;
  } else {
    for (std::size_t slice = 0; slice < xe[2]; ++slice)
      Map(acc + slice * ae[0] * ae[1], i(ae[0]), i(ae[1])).noalias() +=
          ConstMap(x + slice * xe[0] * xe[1], i(xe[0]), i(xe[1])) * c;
  }
}

// The block kernel of a Program: b x b x b accumulator and operand, b x b coefficient
// (word input + b * output), mode 1..3.
template <class T>
void mode_product_accumulate_block(T* acc, const T* x, const T* coefficient, std::size_t b, int mode) {
  const Extents3 cube{b, b, b};
  mode_product_accumulate(acc, cube, x, cube, coefficient, mode);
}

// acc += x x_mode C, where C is indexed (input, output): for mode 1,
// acc(k, j, l) += sum_n x(n, j, l) C(n, k). C must have x.extent(mode-1) rows and
// acc.extent(mode-1) columns; the other two extents of acc and x must agree.
template <class T>
void check_mode_product(const Tensor3<T>& acc, const Tensor3<T>& x, const Matrix<T>& coefficient, int mode) {
  const Extents3& xe = x.extents();
  const Extents3& ae = acc.extents();
  if (mode < 1 || mode > 3) throw std::invalid_argument("mode must be 1, 2 or 3");
  const auto m = static_cast<std::size_t>(mode - 1);
  if (static_cast<std::size_t>(coefficient.rows()) != xe[m] ||
      static_cast<std::size_t>(coefficient.cols()) != ae[m])
    throw std::invalid_argument("coefficient block shape does not match the tensor mode");
  for (std::size_t a = 0; a < 3; ++a)
    if (a != m && xe[a] != ae[a]) throw std::invalid_argument("tensor extents do not agree");
}

template <class T>
void mode_product_accumulate(Tensor3<T>& acc, const Tensor3<T>& x, const Matrix<T>& coefficient,
                             int mode) {
  check_mode_product(acc, x, coefficient, mode);
  mode_product_accumulate(acc.data(), acc.extents(), x.data(), x.extents(), coefficient.data(), mode);
}

// The same on `threads` threads, with every word's bits the one-thread product's: each thread
// computes whole columns of the product's matrix form (mode 1: the lines (j, l) of acc; mode 2:
// whole slices l, each its own product anyway; mode 3: columns of C), and a column's words come
// out of Eigen alike whatever columns it is computed with, as long as the parts start at
// multiples of `column_step` (where Eigen's register panels of columns start too) and are wide
// enough that Eigen takes its blocked product for each (narrower products it computes
// otherwise). Smaller products run on one thread.
template <class T>
void mode_product_accumulate(Tensor3<T>& acc, const Tensor3<T>& x, const Matrix<T>& coefficient, int mode,
                             unsigned threads) {
  constexpr std::size_t column_step = 16, narrowest = 2 * column_step;
  check_mode_product(acc, x, coefficient, mode);
  const Extents3& ae = acc.extents();
  const Extents3& xe = x.extents();
  const std::size_t columns = mode == 1 ? ae[1] * ae[2] : ae[2];
  const std::size_t step = mode == 2 ? 1 : column_step, least = mode == 2 ? 1 : narrowest;
  const auto parts = static_cast<unsigned>(std::min<std::size_t>(threads, columns / least));
  if (parts <= 1) return mode_product_accumulate(acc.data(), ae, x.data(), xe, coefficient.data(), mode);
  const auto i = [](std::size_t v) { return static_cast<Eigen::Index>(v); };
  const auto part = [&](std::size_t first, std::size_t last) {
    if (mode == 3) {  // every part reads all of x and its own columns of C
      Eigen::Map<Matrix<T>>(acc.data() + ae[0] * ae[1] * first, i(ae[0] * ae[1]), i(last - first)).noalias() +=
          Eigen::Map<const Matrix<T>>(x.data(), i(xe[0] * xe[1]), i(xe[2])) * coefficient.middleCols(i(first), i(last - first));
      return;
    }
    const std::size_t acc_column = mode == 1 ? ae[0] : ae[0] * ae[1], x_column = mode == 1 ? xe[0] : xe[0] * xe[1];
    const Extents3 a_part = mode == 1 ? Extents3{ae[0], last - first, 1} : Extents3{ae[0], ae[1], last - first};
    const Extents3 x_part = mode == 1 ? Extents3{xe[0], last - first, 1} : Extents3{xe[0], xe[1], last - first};
    mode_product_accumulate(acc.data() + acc_column * first, a_part, x.data() + x_column * first, x_part,
                            coefficient.data(), mode);
  };
  std::vector<std::jthread> workers;
  std::size_t first = 0;
  for (unsigned p = 1; p < parts; ++p) {
    const std::size_t last = columns * p / parts / step * step;
    workers.emplace_back(part, first, last);
    first = last;
  }
  part(first, columns);
}

template <class T>
Tensor3<T> mode_product(const Tensor3<T>& x, const Matrix<T>& coefficient, int mode, unsigned threads = 1) {
  Extents3 extents = x.extents();
  extents[static_cast<std::size_t>(mode - 1)] = static_cast<std::size_t>(coefficient.cols());
  Tensor3<T> out(extents);
  mode_product_accumulate(out, x, coefficient, mode, threads);
  return out;
}

// The golden reference: y = x x1 M1 x2 M2 x3 M3 on the whole tensor, straight from the
// definition, independent of any blocking or schedule. Pass the forward matrices C for a
// forward transform and the inverse matrices D for an inverse one.
// On `threads` threads it gives the same bits (mode_product_accumulate above).
template <class T>
Tensor3<T> golden_transform(const Tensor3<T>& x, const std::array<Matrix<T>, 3>& per_axis, unsigned threads = 1) {
  Tensor3<T> y = mode_product(x, per_axis[0], 1, threads);
  y = mode_product(y, per_axis[1], 2, threads);
  return mode_product(y, per_axis[2], 3, threads);
}

}  // namespace torus
