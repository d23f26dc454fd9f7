#pragma once
// The values a run places in node memories and gathers back, shared by every engine: the
// input tensor and, per transform, the three per-axis coefficient matrices (forward C or
// inverse D). A Program's load tasks name blocks of these arrays (Program::host_arrays);
// its outputs name the buffers whose blocks make up a result tensor.

#include <array>
#include <cstddef>
#include <vector>

#include "kernels/tensor3.hpp"
#include "sim/program.hpp"

namespace torus {

template <class T>
struct HostData {
  Tensor3<T> input;
  std::vector<std::array<Matrix<T>, 3>> coefficients;  // one entry per transform in the run
  std::size_t block_size = 1;

  // Writes the words of `block` into `words` in storage order: a tensor block first index
  // fastest (b^3 words), a coefficient block as input + b * output (b^2 words).
  void load(const Program& program, const HostBlock& block, T* words) const {
    const std::size_t b = block_size;
    const HostArray& array = program.host_arrays.at(block.array);
    const auto at = [b](std::int32_t index, std::size_t offset) { return static_cast<std::size_t>(index) * b + offset; };
    if (array.matrix) {
      const Matrix<T>& m = coefficients.at(array.transform)[static_cast<std::size_t>(array.axis - 1)];
      for (std::size_t out = 0; out < b; ++out)
        for (std::size_t in = 0; in < b; ++in)
          words[in + b * out] = m(static_cast<Eigen::Index>(at(block.index[0], in)), static_cast<Eigen::Index>(at(block.index[1], out)));
      return;
    }
    for (std::size_t k = 0; k < b; ++k)
      for (std::size_t j = 0; j < b; ++j)
        for (std::size_t i = 0; i < b; ++i)
          words[i + b * (j + b * k)] = input(at(block.index[0], i), at(block.index[1], j), at(block.index[2], k));
  }
};

// One output block: where it is and what it is, for golden-check messages.
struct OutputBlock {
  std::size_t node = 0;
  DataTag tag;
};

// Assembles `output` into an N x N x N tensor: node i's buffer output.buffer[i] holds the
// b^3 block at block coordinates output.tag[i].index. `words(node, buffer)` returns a pointer
// to the buffer's values in storage order.
template <class T, class Words>
Tensor3<T> gather_output(const Program& program, const ProgramOutput& output, std::size_t n, Words words,
                         std::vector<OutputBlock>* layout = nullptr) {
  const std::size_t b = program.block_size;
  Tensor3<T> tensor(n, n, n);
  if (layout) layout->clear();
  for (std::size_t node = 0; node < output.buffer.size(); ++node) {
    const T* values = words(node, output.buffer[node]);
    const auto& index = output.tag[node].index;
    for (std::size_t k = 0; k < b; ++k)
      for (std::size_t j = 0; j < b; ++j)
        for (std::size_t i = 0; i < b; ++i)
          tensor(static_cast<std::size_t>(index[0]) * b + i, static_cast<std::size_t>(index[1]) * b + j,
                 static_cast<std::size_t>(index[2]) * b + k) = values[i + b * (j + b * k)];
    if (layout) layout->push_back({node, output.tag[node]});
  }
  return tensor;
}

}  // namespace torus
