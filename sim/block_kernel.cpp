#include "sim/block_kernel.hpp"

#include <array>
#include <cmath>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <cstddef>
#include <vector>

#include "kernels/scalar.hpp"

namespace torus {
namespace {

// One update of one word: the fma (or, complex, the four real fma in micro_kernel.hpp's order).
template <class T>
[[gnu::always_inline]] inline T update(T acc, T a, T c) {
  if constexpr (is_complex_v<T>) {
    const auto re = std::fma(-a.imag(), c.imag(), std::fma(a.real(), c.real(), acc.real()));
    const auto im = std::fma(a.imag(), c.real(), std::fma(a.real(), c.imag(), acc.imag()));
    return T(re, im);
  } else {
    return std::fma(a, c, acc);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// Real data on a processor with FMA: the same tiles written with 256-bit registers, because
// GCC does not keep the portable tile's words in registers (it spills them to the stack and
// reloads them, several times slower). `lanes` words per register; a tile is two registers
// tall and four columns wide, eight accumulators.
template <class T>
struct Avx;
template <>
struct Avx<double> {
  using V = __m256d;
  static constexpr std::size_t lanes = 4;
  [[gnu::target("fma"), gnu::always_inline]] static V load(const double* p) { return _mm256_loadu_pd(p); }
  [[gnu::target("fma"), gnu::always_inline]] static V splat(const double* p) { return _mm256_broadcast_sd(p); }
  [[gnu::target("fma"), gnu::always_inline]] static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  [[gnu::target("fma"), gnu::always_inline]] static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
};
template <>
struct Avx<float> {
  using V = __m256;
  static constexpr std::size_t lanes = 8;
  [[gnu::target("fma"), gnu::always_inline]] static V load(const float* p) { return _mm256_loadu_ps(p); }
  [[gnu::target("fma"), gnu::always_inline]] static V splat(const float* p) { return _mm256_broadcast_ss(p); }
  [[gnu::target("fma"), gnu::always_inline]] static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  [[gnu::target("fma"), gnu::always_inline]] static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
};

// One tile of C, two registers tall and four columns wide, its eight accumulators named so that
// GCC keeps them in registers (an array of them it spills to the stack in the loop over r).
template <class T>
[[gnu::target("fma"), gnu::always_inline]] inline void avx_tile(std::size_t r_len, const T* a, std::size_t lda, const T* b,
                                                                 std::size_t ldb, T* c, std::size_t ldc) {
  using X = Avx<T>;
  using V = typename X::V;
  constexpr std::size_t l = X::lanes;
  T* const c0 = c;
  T* const c1 = c + ldc;
  T* const c2 = c + 2 * ldc;
  T* const c3 = c + 3 * ldc;
  V t0 = X::load(c0), u0 = X::load(c0 + l), t1 = X::load(c1), u1 = X::load(c1 + l);
  V t2 = X::load(c2), u2 = X::load(c2 + l), t3 = X::load(c3), u3 = X::load(c3 + l);
  const T* const b1 = b + ldb;
  const T* const b2 = b + 2 * ldb;
  const T* const b3 = b + 3 * ldb;
  for (std::size_t r = 0; r < r_len; ++r, a += lda) {
    const V top = X::load(a), bottom = X::load(a + l);
    V f = X::splat(b + r);
    t0 = X::fma(top, f, t0);
    u0 = X::fma(bottom, f, u0);
    f = X::splat(b1 + r);
    t1 = X::fma(top, f, t1);
    u1 = X::fma(bottom, f, u1);
    f = X::splat(b2 + r);
    t2 = X::fma(top, f, t2);
    u2 = X::fma(bottom, f, u2);
    f = X::splat(b3 + r);
    t3 = X::fma(top, f, t3);
    u3 = X::fma(bottom, f, u3);
  }
  X::store(c0, t0), X::store(c0 + l, u0), X::store(c1, t1), X::store(c1 + l, u1);
  X::store(c2, t2), X::store(c2 + l, u2), X::store(c3, t3), X::store(c3 + l, u3);
}

template <class T>
[[gnu::target("fma")]] void avx_product(std::size_t m, std::size_t n, std::size_t r_len, const T* a, std::size_t lda,
                                        const T* b, std::size_t ldb, T* c, std::size_t ldc) {
  constexpr std::size_t rows = 2 * Avx<T>::lanes, cols = 4;
  const std::size_t m_tiled = m - m % rows, n_tiled = n - n % cols;
  for (std::size_t j = 0; j < n_tiled; j += cols)
    for (std::size_t i = 0; i < m_tiled; i += rows) avx_tile(r_len, a + i, lda, b + ldb * j, ldb, c + i + ldc * j, ldc);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = (j < n_tiled ? m_tiled : 0); i < m; ++i) {
      T sum = c[i + ldc * j];
      for (std::size_t r = 0; r < r_len; ++r) sum = std::fma(a[i + lda * r], b[r + ldb * j], sum);
      c[i + ldc * j] = sum;
    }
}

bool processor_has_fma() {
  static const bool has = __builtin_cpu_supports("fma");
  return has;
}
#endif

// Everything below is inlined into each clone of multiply_add_block, so that it is compiled
// for the clone's instruction set (an out-of-line copy would be the default one's).
//
// Every mode is a small product C(i,j) (+)= sum over r of A(i,r) B(r,j), with A(i,r) at
// a[i + lda r], B(r,j) at b[r + ldb j] and C(i,j) at c[i + ldc j]. A tile of `rows` x `cols`
// words of C is held in registers while r runs from 0 up, one fma per word and r: each word
// gets its updates in increasing r, as the micro-programs give them, and the tile's words are
// independent chains the processor overlaps.
// `a_operand`: A holds the operand and B the coefficients, or (false) the other way round; a
// complex update is not symmetric in the two (its imaginary part adds a_re c_im first).
template <class T, bool a_operand, std::size_t rows, std::size_t cols>
[[gnu::always_inline]] inline void tile(std::size_t i, std::size_t j, std::size_t r_len, const T* a, std::size_t lda,
                                        const T* b, std::size_t ldb, T* c, std::size_t ldc) {
  T acc[cols][rows];
  for (std::size_t y = 0; y < cols; ++y)
    for (std::size_t x = 0; x < rows; ++x) acc[y][x] = c[i + x + ldc * (j + y)];
  for (std::size_t r = 0; r < r_len; ++r) {
    const T* column = a + i + lda * r;
    for (std::size_t y = 0; y < cols; ++y) {
      const T factor = b[r + ldb * (j + y)];
      for (std::size_t x = 0; x < rows; ++x)
        acc[y][x] = a_operand ? update(acc[y][x], column[x], factor) : update(acc[y][x], factor, column[x]);
    }
  }
  for (std::size_t y = 0; y < cols; ++y)
    for (std::size_t x = 0; x < rows; ++x) c[i + x + ldc * (j + y)] = acc[y][x];
}

// One word at a time, for the edges the tiles leave.
template <class T, bool a_operand>
[[gnu::always_inline]] inline void word(std::size_t i, std::size_t j, std::size_t r_len, const T* a, std::size_t lda,
                                        const T* b, std::size_t ldb, T* c, std::size_t ldc) {
  T acc = c[i + ldc * j];
  for (std::size_t r = 0; r < r_len; ++r)
    acc = a_operand ? update(acc, a[i + lda * r], b[r + ldb * j]) : update(acc, b[r + ldb * j], a[i + lda * r]);
  c[i + ldc * j] = acc;
}

template <class T, bool a_operand>
[[gnu::always_inline]] inline void product(std::size_t m, std::size_t n, std::size_t r_len, const T* a, std::size_t lda,
                                           const T* b, std::size_t ldb, T* c, std::size_t ldc, bool vector_units) {
  // 8 x 4 words: eight 256-bit registers of doubles, the most that leaves room for A and B.
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (!is_complex_v<T>)
    if (vector_units && processor_has_fma()) return avx_product(m, n, r_len, a, lda, b, ldb, c, ldc);  // a real fma is symmetric
#endif
  constexpr std::size_t rows = 8, cols = 4;
  const std::size_t m_tiled = m - m % rows, n_tiled = n - n % cols;
  for (std::size_t j = 0; j < n_tiled; j += cols)
    for (std::size_t i = 0; i < m_tiled; i += rows) tile<T, a_operand, rows, cols>(i, j, r_len, a, lda, b, ldb, c, ldc);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = (j < n_tiled ? m_tiled : 0); i < m; ++i) word<T, a_operand>(i, j, r_len, a, lda, b, ldb, c, ldc);
}

// Mode 1: C = acc as a0 x (a1 a2), A = the coefficients transposed (a0 x R), B = the operand
// as R x (a1 a2).
template <class T>
[[gnu::always_inline]] inline void mode1(const KernelSpec& k, T* acc, const T* op, const T* coef, bool vector_units) {
  const std::size_t a0 = k.accumulator[0], lines = k.accumulator[1] * k.accumulator[2], r_len = k.reduction();
  // On the stack for blocks up to 16 x 16 coefficients: a heap block per compute costs as
  // much as a small block's arithmetic.
  constexpr std::size_t on_stack = 256;
  std::array<T, on_stack> small;
  std::vector<T> large(r_len * a0 > on_stack ? r_len * a0 : 0);
  T* const by_input = large.empty() ? small.data() : large.data();
  for (std::size_t i = 0; i < a0; ++i)
    for (std::size_t r = 0; r < r_len; ++r) by_input[i + a0 * r] = coef[r + r_len * i];
  product<T, false>(a0, lines, r_len, by_input, a0, op, r_len, acc, a0, vector_units);
}

// Mode 2: per index z of axis 3, C = acc's a0 x a1 slice, A = the operand's a0 x R slice,
// B = the coefficients (R x a1).
template <class T>
[[gnu::always_inline]] inline void mode2(const KernelSpec& k, T* acc, const T* op, const T* coef, bool vector_units) {
  const std::size_t a0 = k.accumulator[0], a1 = k.accumulator[1], a2 = k.accumulator[2], r_len = k.reduction();
  for (std::size_t z = 0; z < a2; ++z) product<T, true>(a0, a1, r_len, op + a0 * r_len * z, a0, coef, r_len, acc + a0 * a1 * z, a0, vector_units);
}

// Mode 3: C = acc as (a0 a1) x a2, A = the operand as (a0 a1) x R, B = the coefficients.
template <class T>
[[gnu::always_inline]] inline void mode3(const KernelSpec& k, T* acc, const T* op, const T* coef, bool vector_units) {
  const std::size_t plane = k.accumulator[0] * k.accumulator[1];
  product<T, true>(plane, k.accumulator[2], k.reduction(), op, plane, coef, k.reduction(), acc, plane, vector_units);
}

template <class T>
[[gnu::always_inline]] inline void run(const KernelSpec& k, T* acc, const T* op, const T* coef, bool vector_units = true) {
  switch (k.mode) {
    case 1: mode1(k, acc, op, coef, vector_units); break;
    case 2: mode2(k, acc, op, coef, vector_units); break;
    default: mode3(k, acc, op, coef, vector_units); break;
  }
}

}  // namespace

// Real data picks its path at run time (above). Complex data, as in micro_kernel.cpp: on x86-64
// a clone for processors with FMA and one without. Every path rounds each fma once, so the
// bits do not depend on the processor.
#if defined(__x86_64__) && defined(__GNUC__)
#define TORUS_VECTOR_CLONES __attribute__((target_clones("fma", "default")))
#else
#define TORUS_VECTOR_CLONES
#endif

void multiply_add_block(const KernelSpec& kernel, float* accumulator, const float* operand,
                                            const float* coefficient) {
  run(kernel, accumulator, operand, coefficient);
}
void multiply_add_block(const KernelSpec& kernel, double* accumulator, const double* operand,
                                            const double* coefficient) {
  run(kernel, accumulator, operand, coefficient);
}
TORUS_VECTOR_CLONES void multiply_add_block(const KernelSpec& kernel, std::complex<float>* accumulator,
                                            const std::complex<float>* operand, const std::complex<float>* coefficient) {
  run(kernel, accumulator, operand, coefficient);
}
TORUS_VECTOR_CLONES void multiply_add_block(const KernelSpec& kernel, std::complex<double>* accumulator,
                                            const std::complex<double>* operand, const std::complex<double>* coefficient) {
  run(kernel, accumulator, operand, coefficient);
}

void multiply_add_block_portable(const KernelSpec& kernel, float* accumulator, const float* operand, const float* coefficient) {
  run(kernel, accumulator, operand, coefficient, false);
}
void multiply_add_block_portable(const KernelSpec& kernel, double* accumulator, const double* operand,
                                 const double* coefficient) {
  run(kernel, accumulator, operand, coefficient, false);
}

#undef TORUS_VECTOR_CLONES

}  // namespace torus
