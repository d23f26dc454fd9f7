#pragma once
// Tensor-by-matrix products along one mode: the only arithmetic a 3D separable transform
// needs. Used on whole tensors by the golden reference and on b x b x b blocks by the
// functional executor.

#include <algorithm>
#include <array>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "kernels/dense_product.hpp"
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

// out = x x_mode C for the columns first..last of the product's matrix form (mode 1: the lines
// (j, l) of out; mode 2: whole slices l; mode 3: columns of C), `out` zero before. Double takes
// kernels/dense_product.hpp (the same bits on every processor); the other scalars Eigen.
template <class T>
void mode_product_columns(Tensor3<T>& out, const Tensor3<T>& x, const Matrix<T>& coefficient, int mode, std::size_t first,
                          std::size_t last) {
  const Extents3& ae = out.extents();
  const Extents3& xe = x.extents();
  const std::size_t plane = ae[0] * ae[1], x_plane = xe[0] * xe[1], width = last - first;
  if constexpr (std::is_same_v<T, double>) {
    if (mode == 1)  // A = C transposed (reused for every line), B = the lines of x
      return dense_product(ae[0], width, xe[0], coefficient.data(), xe[0], 1, x.data() + xe[0] * first, xe[0],
                           out.data() + ae[0] * first, ae[0], true);
    if (mode == 2) {  // per slice: A = the slice of x (reused), B = C
      for (std::size_t l = first; l < last; ++l)
        dense_product(ae[0], ae[1], xe[1], x.data() + x_plane * l, 1, xe[0], coefficient.data(), xe[1], out.data() + plane * l,
                      ae[0], true);
      return;
    }
    // A = x as (n1 n2) x n3, the long operand, B = the columns of C
    return dense_product(plane, width, xe[2], x.data(), 1, x_plane, coefficient.data() + xe[2] * first, xe[2],
                         out.data() + plane * first, plane, false);
  } else {
    if (first == 0 && last == (mode == 1 ? ae[1] * ae[2] : ae[2]))  // the whole product, as Eigen has always computed it
      return mode_product_accumulate(out.data(), ae, x.data(), xe, coefficient.data(), mode);
    const auto i = [](std::size_t v) { return static_cast<Eigen::Index>(v); };
    if (mode == 3) {  // every part reads all of x and its own columns of C
      Eigen::Map<Matrix<T>>(out.data() + plane * first, i(plane), i(width)).noalias() +=
          Eigen::Map<const Matrix<T>>(x.data(), i(x_plane), i(xe[2])) * coefficient.middleCols(i(first), i(width));
      return;
    }
    const std::size_t out_column = mode == 1 ? ae[0] : plane, x_column = mode == 1 ? xe[0] : x_plane;
    const Extents3 out_part = mode == 1 ? Extents3{ae[0], width, 1} : Extents3{ae[0], ae[1], width};
    const Extents3 x_part = mode == 1 ? Extents3{xe[0], width, 1} : Extents3{xe[0], xe[1], width};
    mode_product_accumulate(out.data() + out_column * first, out_part, x.data() + x_column * first, x_part, coefficient.data(),
                            mode);
  }
}

// out = x x_mode C (`out` zero before) on `threads` threads, with every word's bits the
// one-thread product's: each thread computes whole columns of the product's matrix form
// (mode_product_columns). Eigen gives a column's words alike whatever columns it is computed
// with, as long as the parts start at multiples of `column_step` (where its register panels of
// columns start too) and are wide enough that it takes its blocked product for each (narrower
// products it computes otherwise); double's own product gives every word alike anyway. Smaller
// products run on one thread.
template <class T>
void mode_product_into(Tensor3<T>& out, const Tensor3<T>& x, const Matrix<T>& coefficient, int mode, unsigned threads) {
  constexpr std::size_t column_step = 16, narrowest = 2 * column_step;
  check_mode_product(out, x, coefficient, mode);
  const Extents3& ae = out.extents();
  const std::size_t columns = mode == 1 ? ae[1] * ae[2] : ae[2];
  const std::size_t step = mode == 2 ? 1 : column_step, least = mode == 2 ? 1 : narrowest;
  const auto parts = std::max(1u, static_cast<unsigned>(std::min<std::size_t>(threads, columns / least)));
  const auto part = [&](std::size_t first, std::size_t last) { mode_product_columns(out, x, coefficient, mode, first, last); };
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
  mode_product_into(out, x, coefficient, mode, threads);
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
