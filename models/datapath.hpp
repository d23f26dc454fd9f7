#pragma once
// The values a node holds and computes, kept apart from the time it takes: the node's timing
// logic calls this interface, so a faster timing engine can reuse the arithmetic unchanged.
// Words are handed over as std::complex<double>, which holds every element type exactly.

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/tensor3.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/schedule.hpp"

namespace torus {

// Where a block lives in a node: its kind and which of the kind's two buffers.
struct Slot {
  BlockKind kind;
  int buffer;
};

// Contract: fma() performs exactly the arithmetic of one modelled fma (std::fma on reals; for
// complex data one part of the four-part complex multiply-add, or all four in part order for
// FmaPart::Whole), reading and writing the node's own memory.
class NodeDatapath {
 public:
  virtual ~NodeDatapath() = default;
  virtual void load(Slot slot, const BlockId& block, std::size_t transform) = 0;
  virtual void zero(Slot slot) = 0;
  virtual void fma(const FmaInstruction& instruction, Slot accumulator, Slot operand, Slot coefficient) = 0;
  virtual std::complex<double> read(Slot slot, std::uint32_t word) const = 0;
  virtual void write(Slot slot, std::uint32_t word, std::complex<double> value) = 0;
};

// The data the host places in node memories before the run: the input tensor and, per
// transform, the three per-axis coefficient matrices (forward C or inverse D).
template <class T>
struct HostData {
  Tensor3<T> input;
  std::vector<std::array<Matrix<T>, 3>> coefficients;  // one entry per transform in the run
  std::size_t block_size = 1;
};

template <class T>
std::unique_ptr<NodeDatapath> make_datapath(const HostData<T>& host);

// Gathers the block held in `slot` of a datapath into `tensor` at the block's position.
template <class T>
void gather_block(const NodeDatapath& datapath, Slot slot, const BlockId& block, std::size_t block_size, Tensor3<T>& tensor);

}  // namespace torus
