#include "models/datapath.hpp"

#include <cmath>

#include "kernels/scalar.hpp"

namespace torus {
namespace {

template <class T>
class TypedDatapath final : public NodeDatapath {
 public:
  explicit TypedDatapath(const HostData<T>& host) : host_(host) {
    const std::size_t b = host.block_size;
    for (std::size_t k = 0; k < block_kind_count; ++k)
      for (auto& buffer : memory_[k]) buffer.assign(words_in(static_cast<BlockKind>(k), b), T{});
  }

  void load(Slot slot, const BlockId& block, std::size_t transform) override {
    const std::size_t b = host_.block_size;
    std::vector<T>& words = at(slot);
    if (is_coefficient(block.kind)) {
      const auto axis = static_cast<std::size_t>(block.kind) - static_cast<std::size_t>(BlockKind::Coef1);
      const Matrix<T>& matrix = host_.coefficients.at(transform)[axis];
      for (std::size_t out = 0; out < b; ++out)
        for (std::size_t in = 0; in < b; ++in)
          words[in + b * out] = matrix(static_cast<Eigen::Index>(block.index[0] * b + in),
                                       static_cast<Eigen::Index>(block.index[1] * b + out));
      return;
    }
    const Tensor3<T> cube = host_.input.block(origin(block), {b, b, b});
    std::copy(cube.values().begin(), cube.values().end(), words.begin());
  }

  void zero(Slot slot) override { std::fill(at(slot).begin(), at(slot).end(), T{}); }

  void fma(const FmaInstruction& i, Slot accumulator, Slot operand, Slot coefficient) override {
    T& acc = at(accumulator)[i.accumulator];
    const T a = at(operand)[i.operand];
    const T c = at(coefficient)[i.coefficient];
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

  std::complex<double> read(Slot slot, std::uint32_t word) const override {
    const T v = memory_[static_cast<std::size_t>(slot.kind)][static_cast<std::size_t>(slot.buffer)][word];
    if constexpr (is_complex_v<T>) return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
    else return static_cast<double>(v);
  }

  void write(Slot slot, std::uint32_t word, std::complex<double> value) override {
    if constexpr (is_complex_v<T>)
      at(slot)[word] = T(static_cast<real_t<T>>(value.real()), static_cast<real_t<T>>(value.imag()));
    else at(slot)[word] = static_cast<T>(value.real());
  }

 private:
  std::vector<T>& at(Slot slot) { return memory_[static_cast<std::size_t>(slot.kind)][static_cast<std::size_t>(slot.buffer)]; }
  Extents3 origin(const BlockId& block) const {
    const std::size_t b = host_.block_size;
    return {static_cast<std::size_t>(block.index[0]) * b, static_cast<std::size_t>(block.index[1]) * b,
            static_cast<std::size_t>(block.index[2]) * b};
  }

  const HostData<T>& host_;
  std::array<std::array<std::vector<T>, 2>, block_kind_count> memory_;
};

}  // namespace

template <class T>
std::unique_ptr<NodeDatapath> make_datapath(const HostData<T>& host) {
  return std::make_unique<TypedDatapath<T>>(host);
}

template <class T>
void gather_block(const NodeDatapath& datapath, Slot slot, const BlockId& block, std::size_t b, Tensor3<T>& tensor) {
  for (std::size_t k = 0; k < b; ++k)
    for (std::size_t j = 0; j < b; ++j)
      for (std::size_t i = 0; i < b; ++i) {
        const std::complex<double> v = datapath.read(slot, static_cast<std::uint32_t>(i + b * (j + b * k)));
        T& out = tensor(block.index[0] * b + i, block.index[1] * b + j, block.index[2] * b + k);
        if constexpr (is_complex_v<T>) out = T(static_cast<real_t<T>>(v.real()), static_cast<real_t<T>>(v.imag()));
        else out = static_cast<T>(v.real());
      }
}

template std::unique_ptr<NodeDatapath> make_datapath(const HostData<float>&);
template std::unique_ptr<NodeDatapath> make_datapath(const HostData<double>&);
template std::unique_ptr<NodeDatapath> make_datapath(const HostData<std::complex<float>>&);
template std::unique_ptr<NodeDatapath> make_datapath(const HostData<std::complex<double>>&);
template void gather_block(const NodeDatapath&, Slot, const BlockId&, std::size_t, Tensor3<float>&);
template void gather_block(const NodeDatapath&, Slot, const BlockId&, std::size_t, Tensor3<double>&);
template void gather_block(const NodeDatapath&, Slot, const BlockId&, std::size_t, Tensor3<std::complex<float>>&);
template void gather_block(const NodeDatapath&, Slot, const BlockId&, std::size_t, Tensor3<std::complex<double>>&);

}  // namespace torus
