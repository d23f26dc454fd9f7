#include "sim/fft_task.hpp"

#include <stdexcept>
#include <string>

#include "kernels/fft.hpp"
#include "kernels/scalar.hpp"

namespace torus {
namespace {

std::size_t linear_index(const Extents3& e, std::size_t i, std::size_t j, std::size_t k) { return i + e[0] * (j + e[1] * k); }

// Calls f(block, offset in the block, offset in the whole array) for every word of the
// `count` slices of `whole` cut along `cut` (1..3).
template <class F>
void for_each_slice_word(const Extents3& whole, int cut, std::uint32_t count, F f) {
  const auto c = static_cast<std::size_t>(cut - 1);
  Extents3 slice = whole;
  slice[c] /= count;
  for (std::uint32_t b = 0; b < count; ++b)
    for (std::size_t k = 0; k < slice[2]; ++k)
      for (std::size_t j = 0; j < slice[1]; ++j)
        for (std::size_t i = 0; i < slice[0]; ++i) {
          Extents3 at{i, j, k};
          at[c] += b * slice[c];
          f(b, linear_index(slice, i, j, k), linear_index(whole, at[0], at[1], at[2]));
        }
}

}  // namespace

std::vector<std::string> fft_spec_problems(const FftSpec& spec) {
  std::vector<std::string> out;
  const auto axis_ok = [](int a) { return a >= 1 && a <= 3; };
  if (!axis_ok(spec.axis)) out.push_back("axis " + std::to_string(spec.axis) + " is not 1, 2 or 3");
  if (!axis_ok(spec.input_cut)) out.push_back("input_cut " + std::to_string(spec.input_cut) + " is not 1, 2 or 3");
  if (!axis_ok(spec.output_cut)) out.push_back("output_cut " + std::to_string(spec.output_cut) + " is not 1, 2 or 3");
  if (spec.whole[0] == 0 || spec.whole[1] == 0 || spec.whole[2] == 0) out.push_back("the working array has an empty extent");
  if (!out.empty()) return out;
  const auto divides = [&](std::uint32_t count, int cut, const char* role) {
    const std::size_t extent = spec.whole[static_cast<std::size_t>(cut - 1)];
    if (count == 0 || extent % count != 0)
      out.push_back(std::to_string(count) + " " + role + " do not cut extent " + std::to_string(extent) + " along axis " +
                    std::to_string(cut) + " evenly");
  };
  divides(spec.inputs, spec.input_cut, "inputs");
  divides(spec.outputs, spec.output_cut, "outputs");
  if (!is_power_of_two(spec.length()))
    out.push_back("length " + std::to_string(spec.length()) + " along axis " + std::to_string(spec.axis) +
                  " is not a power of two (radix-2 only)");
  return out;
}

std::array<FftAxis, 3> fft_axes(const Program& program) {
  std::array<FftAxis, 3> out;
  const Extents3 n = program.grid.tensor_extents();
  for (const FftSpec& spec : program.ffts) {
    if (spec.length() == 1) continue;  // the identity (up to the scale): nothing of the axis's transform
    const auto a = static_cast<std::size_t>(spec.axis - 1);
    if (spec.length() != n[a])
      throw std::logic_error(spec.name + ": an FFT of lines of " + std::to_string(spec.length()) + " along axis " +
                             std::to_string(spec.axis) + " of length " + std::to_string(n[a]) +
                             ": no derived error bound covers a transform split into shorter FFTs");
    out[a].fft = true;
    out[a].scaled = out[a].scaled || spec.scale != 1;
  }
  return out;
}

template <class T>
std::string fft_type_problem() {
  if constexpr (is_complex_v<T>) return "";
  else
    return "an FFT task computes the complex DFT and cannot run in the real element type " +
           to_string(scalar_type_of<T>()) + " (use complex64 or complex128)";
}

template <class T>
FftPlan<T>::FftPlan(const FftSpec& spec) : spec_(spec) {
  const std::string problem = fft_type_problem<T>();
  if (!problem.empty()) throw std::invalid_argument(spec.name + ": " + problem);
  if (!is_power_of_two(spec.length()))
    throw std::invalid_argument(spec.name + ": length " + std::to_string(spec.length()) + " along axis " +
                                std::to_string(spec.axis) + " is not a power of two (radix-2 only)");
  if constexpr (is_complex_v<T>) twiddles_ = fft_twiddles<T>(spec.length(), spec.inverse);
}

template <class T>
void FftPlan<T>::run(const std::vector<const T*>& inputs, const std::vector<T*>& outputs) const {
  if constexpr (is_complex_v<T>) {
    const Extents3& e = spec_.whole;
    std::vector<T> whole(spec_.words());
    for_each_slice_word(e, spec_.input_cut, spec_.inputs,
                        [&](std::uint32_t b, std::size_t from, std::size_t to) { whole[to] = inputs[b][from]; });
    const auto a = static_cast<std::size_t>(spec_.axis - 1);
    const std::size_t n = e[a];
    const std::size_t stride = a == 0 ? 1 : (a == 1 ? e[0] : e[0] * e[1]);
    std::vector<T> line(n);
    for (std::size_t k = 0; k < (a == 2 ? 1 : e[2]); ++k)
      for (std::size_t j = 0; j < (a == 1 ? 1 : e[1]); ++j)
        for (std::size_t i = 0; i < (a == 0 ? 1 : e[0]); ++i) {
          const std::size_t first = linear_index(e, i, j, k);
          for (std::size_t t = 0; t < n; ++t) line[t] = whole[first + t * stride];
          fft_line(line.data(), n, twiddles_, spec_.scale);
          for (std::size_t t = 0; t < n; ++t) whole[first + t * stride] = line[t];
        }
    for_each_slice_word(e, spec_.output_cut, spec_.outputs,
                        [&](std::uint32_t b, std::size_t to, std::size_t from) { outputs[b][to] = whole[from]; });
  } else {
    (void)inputs;
    (void)outputs;
  }
}

template class FftPlan<float>;
template class FftPlan<double>;
template class FftPlan<std::complex<float>>;
template class FftPlan<std::complex<double>>;
template std::string fft_type_problem<float>();
template std::string fft_type_problem<double>();
template std::string fft_type_problem<std::complex<float>>();
template std::string fft_type_problem<std::complex<double>>();

}  // namespace torus
