#include "sim/micro_kernel.hpp"

namespace torus {
namespace {

template <class T>
inline void run(const FmaInstruction* first, std::size_t count, T* accumulator, const T* operand, const T* coefficient) {
  for (std::size_t k = 0; k < count; ++k) apply_fma(first[k], accumulator, operand, coefficient);
}

}  // namespace

// On x86-64 the loop is compiled twice, with the FMA instruction set and without; the loader
// picks one for the processor (GCC's target_clones). Elsewhere, once.
#if defined(__x86_64__) && defined(__GNUC__)
#define TORUS_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define TORUS_FMA_CLONES
#endif

TORUS_FMA_CLONES void run_fma(const FmaInstruction* first, std::size_t count, float* accumulator, const float* operand,
                              const float* coefficient) {
  run(first, count, accumulator, operand, coefficient);
}
TORUS_FMA_CLONES void run_fma(const FmaInstruction* first, std::size_t count, double* accumulator, const double* operand,
                              const double* coefficient) {
  run(first, count, accumulator, operand, coefficient);
}
TORUS_FMA_CLONES void run_fma(const FmaInstruction* first, std::size_t count, std::complex<float>* accumulator,
                              const std::complex<float>* operand, const std::complex<float>* coefficient) {
  run(first, count, accumulator, operand, coefficient);
}
TORUS_FMA_CLONES void run_fma(const FmaInstruction* first, std::size_t count, std::complex<double>* accumulator,
                              const std::complex<double>* operand, const std::complex<double>* coefficient) {
  run(first, count, accumulator, operand, coefficient);
}

#undef TORUS_FMA_CLONES

}  // namespace torus
