#pragma once
// A block multiply-add in the machine's arithmetic, as loops instead of a micro-program: every
// accumulator word gets its updates in increasing reduction order, each one fma (a complex
// update as the four real fma of sim/micro_kernel.hpp, re then im), which is the order every
// micro-schedule gives each word (sim/micro_schedule.hpp). So the bits equal run_fma's over any
// micro-program of the same kernel, while the loops run over contiguous words and vectorise.

#include <complex>

#include "sim/program.hpp"

namespace torus {

// acc (+)= operand x_mode coefficient for `kernel`'s extents (KernelSpec's storage orders).
void multiply_add_block(const KernelSpec& kernel, float* accumulator, const float* operand, const float* coefficient);
void multiply_add_block(const KernelSpec& kernel, double* accumulator, const double* operand, const double* coefficient);
void multiply_add_block(const KernelSpec& kernel, std::complex<float>* accumulator, const std::complex<float>* operand,
                        const std::complex<float>* coefficient);
void multiply_add_block(const KernelSpec& kernel, std::complex<double>* accumulator, const std::complex<double>* operand,
                        const std::complex<double>* coefficient);

// The portable loops that real data takes on a processor without FMA, here on any processor
// (so that tests check them where the vector path is the one taken).
void multiply_add_block_portable(const KernelSpec& kernel, float* accumulator, const float* operand, const float* coefficient);
void multiply_add_block_portable(const KernelSpec& kernel, double* accumulator, const double* operand,
                                 const double* coefficient);

}  // namespace torus
