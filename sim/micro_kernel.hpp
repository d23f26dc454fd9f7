#pragma once
// The arithmetic of a micro-program: each fma instruction applied to a node's words in the
// order the micro-schedule gives. Every engine that computes values (the SystemC and event
// engines' datapaths, and the Program executor when asked for the machine's order) calls this,
// so their results are bit-identical for the same micro-schedule.

#include <cmath>
#include <complex>
#include <cstddef>

#include "kernels/scalar.hpp"
#include "sim/micro_schedule.hpp"

namespace torus {

template <class T>
inline void apply_fma(const FmaInstruction& i, T* accumulator, const T* operand, const T* coefficient) {
  T& acc = accumulator[i.accumulator];
  const T a = operand[i.operand];
  const T c = coefficient[i.coefficient];
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    R re = acc.real(), im = acc.imag();
    switch (i.part) {
      case FmaPart::RealReal: re = std::fma(a.real(), c.real(), re); break;
      case FmaPart::RealImag: im = std::fma(a.real(), c.imag(), im); break;
      case FmaPart::ImagImag: re = std::fma(-a.imag(), c.imag(), re); break;
      case FmaPart::ImagReal: im = std::fma(a.imag(), c.real(), im); break;
      case FmaPart::Whole:
        // The four parts in the order a real unit issues them per component.
        re = std::fma(-a.imag(), c.imag(), std::fma(a.real(), c.real(), re));
        im = std::fma(a.imag(), c.real(), std::fma(a.real(), c.imag(), im));
        break;
    }
    acc = T(re, im);
  } else {
    acc = std::fma(a, c, acc);
  }
}

// A run of instructions in order (sim/micro_kernel.cpp): built for processors with a fused
// multiply-add instruction and without, chosen when the program starts. Both round each fma
// exactly once, so the bits do not depend on the choice.
void run_fma(const FmaInstruction* first, std::size_t count, float* accumulator, const float* operand, const float* coefficient);
void run_fma(const FmaInstruction* first, std::size_t count, double* accumulator, const double* operand,
             const double* coefficient);
void run_fma(const FmaInstruction* first, std::size_t count, std::complex<float>* accumulator,
             const std::complex<float>* operand, const std::complex<float>* coefficient);
void run_fma(const FmaInstruction* first, std::size_t count, std::complex<double>* accumulator,
             const std::complex<double>* operand, const std::complex<double>* coefficient);

}  // namespace torus
