#pragma once
// The dense products of the golden reference in double: C(i,j) = sum over r of A(i,r) B(r,j),
// A(i,r) at a[a_i i + a_r r], B(r,j) at b[r + ldb j], C(i,j) at c[i + ldc j] (overwritten). Every
// word is its products, each rounded, added in increasing r to zero, each sum rounded (no fused
// multiply-add): the bits are the same on every processor, whichever path (256-bit registers
// where the processor has them, plain loops elsewhere) and whatever blocking computes them.

#include <cstddef>

namespace torus {

// `a_reused`: A is small enough to be packed once and reused for every column (the products
// whose B is the long operand); otherwise B is (A is the long operand, packed a panel at a time).
void dense_product(std::size_t m, std::size_t n, std::size_t r_len, const double* a, std::size_t a_i, std::size_t a_r,
                   const double* b, std::size_t ldb, double* c, std::size_t ldc, bool a_reused);

// The same with plain loops only (tests hold the vector path to it).
void dense_product_portable(std::size_t m, std::size_t n, std::size_t r_len, const double* a, std::size_t a_i, std::size_t a_r,
                            const double* b, std::size_t ldb, double* c, std::size_t ldc);

}  // namespace torus
