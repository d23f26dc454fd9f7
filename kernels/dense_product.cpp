#include "kernels/dense_product.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <vector>

namespace torus {
namespace {

// One word: each product rounded, then added (no fused multiply-add: the translation unit is
// built in ISO C++ mode, where GCC does not contract).
double word(std::size_t r_len, const double* a, std::size_t a_r, const double* b) {
  double acc = 0;
  for (std::size_t r = 0; r < r_len; ++r) {
    const double product = a[a_r * r] * b[r];
    acc = acc + product;
  }
  return acc;
}

// The words the tiles leave: rows from `row` on in the tiled columns, every row beyond.
void edges(std::size_t m, std::size_t n, std::size_t r_len, const double* a, std::size_t a_i, std::size_t a_r, const double* b,
           std::size_t ldb, double* c, std::size_t ldc, std::size_t m_tiled, std::size_t n_tiled) {
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = (j < n_tiled ? m_tiled : 0); i < m; ++i) c[i + ldc * j] = word(r_len, a + a_i * i, a_r, b + ldb * j);
}

#if defined(__x86_64__) && defined(__GNUC__)
constexpr std::size_t rows = 8, cols = 4;  // a tile: two registers of four doubles tall, four columns wide

// Eight rows of A from `first`, reduction-major: panel[8 r + x] = A(first + x, r).
void pack(double* panel, std::size_t first, std::size_t r_len, const double* a, std::size_t a_i, std::size_t a_r) {
  for (std::size_t r = 0; r < r_len; ++r)
    for (std::size_t x = 0; x < rows; ++x) panel[rows * r + x] = a[a_i * (first + x) + a_r * r];
}

// A tile of C from zero, its eight accumulators named so that they stay in registers.
[[gnu::target("avx")]] void tile(std::size_t r_len, const double* panel, const double* b, std::size_t ldb, double* c,
                                 std::size_t ldc) {
  __m256d t0 = _mm256_setzero_pd(), u0 = t0, t1 = t0, u1 = t0, t2 = t0, u2 = t0, t3 = t0, u3 = t0;
  const double* const b1 = b + ldb;
  const double* const b2 = b + 2 * ldb;
  const double* const b3 = b + 3 * ldb;
  for (std::size_t r = 0; r < r_len; ++r, panel += rows) {
    const __m256d top = _mm256_loadu_pd(panel), bottom = _mm256_loadu_pd(panel + 4);
    __m256d f = _mm256_broadcast_sd(b + r);
    t0 = _mm256_add_pd(t0, _mm256_mul_pd(top, f));
    u0 = _mm256_add_pd(u0, _mm256_mul_pd(bottom, f));
    f = _mm256_broadcast_sd(b1 + r);
    t1 = _mm256_add_pd(t1, _mm256_mul_pd(top, f));
    u1 = _mm256_add_pd(u1, _mm256_mul_pd(bottom, f));
    f = _mm256_broadcast_sd(b2 + r);
    t2 = _mm256_add_pd(t2, _mm256_mul_pd(top, f));
    u2 = _mm256_add_pd(u2, _mm256_mul_pd(bottom, f));
    f = _mm256_broadcast_sd(b3 + r);
    t3 = _mm256_add_pd(t3, _mm256_mul_pd(top, f));
    u3 = _mm256_add_pd(u3, _mm256_mul_pd(bottom, f));
  }
  _mm256_storeu_pd(c, t0), _mm256_storeu_pd(c + 4, u0), _mm256_storeu_pd(c + ldc, t1), _mm256_storeu_pd(c + ldc + 4, u1);
  _mm256_storeu_pd(c + 2 * ldc, t2), _mm256_storeu_pd(c + 2 * ldc + 4, u2);
  _mm256_storeu_pd(c + 3 * ldc, t3), _mm256_storeu_pd(c + 3 * ldc + 4, u3);
}

// A reused: all of it packed (it stays in L2), then column block after column block, each in
// L1 while every panel passes over it. Otherwise one panel of A at a time (in L1) against every
// column of B (which stays in L2).
void vector_product(std::size_t m, std::size_t n, std::size_t r_len, const double* a, std::size_t a_i, std::size_t a_r,
                    const double* b, std::size_t ldb, double* c, std::size_t ldc, bool a_reused) {
  const std::size_t m_tiled = m - m % rows, n_tiled = n - n % cols, panels = m_tiled / rows, panel_words = rows * r_len;
  std::vector<double> packed((a_reused ? panels : 1) * panel_words);
  if (a_reused) {
    for (std::size_t p = 0; p < panels; ++p) pack(packed.data() + p * panel_words, rows * p, r_len, a, a_i, a_r);
    for (std::size_t j = 0; j < n_tiled; j += cols)
      for (std::size_t p = 0; p < panels; ++p) tile(r_len, packed.data() + p * panel_words, b + ldb * j, ldb, c + rows * p + ldc * j, ldc);
  } else {
    for (std::size_t p = 0; p < panels; ++p) {
      pack(packed.data(), rows * p, r_len, a, a_i, a_r);
      for (std::size_t j = 0; j < n_tiled; j += cols) tile(r_len, packed.data(), b + ldb * j, ldb, c + rows * p + ldc * j, ldc);
    }
  }
  edges(m, n, r_len, a, a_i, a_r, b, ldb, c, ldc, m_tiled, n_tiled);
}

bool processor_has_avx() {
  static const bool has = __builtin_cpu_supports("avx");
  return has;
}
#endif

}  // namespace

void dense_product(std::size_t m, std::size_t n, std::size_t r_len, const double* a, std::size_t a_i, std::size_t a_r,
                   const double* b, std::size_t ldb, double* c, std::size_t ldc, bool a_reused) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (processor_has_avx()) return vector_product(m, n, r_len, a, a_i, a_r, b, ldb, c, ldc, a_reused);
#endif
  dense_product_portable(m, n, r_len, a, a_i, a_r, b, ldb, c, ldc);
}

void dense_product_portable(std::size_t m, std::size_t n, std::size_t r_len, const double* a, std::size_t a_i, std::size_t a_r,
                            const double* b, std::size_t ldb, double* c, std::size_t ldc) {
  edges(m, n, r_len, a, a_i, a_r, b, ldb, c, ldc, 0, 0);
}

}  // namespace torus
