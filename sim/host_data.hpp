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
  std::vector<Tensor3<T>> operands;  // the factors of a matrix product (HostArray::operand)

  // Writes the words of `block` into `words` in storage order, cut as the Program's grid cuts
  // the arrays: a tensor block first index fastest (e1 e2 e3 words), a coefficient block of
  // axis a as input + (rows) * output (size(n) x size(k) words).
  void load(const Program& program, const HostBlock& block, T* words) const {
    const HostArray& array = program.host_arrays.at(block.array);
    const auto at = [](std::int32_t index) { return static_cast<std::size_t>(index); };
    if (array.matrix) {
      const Matrix<T>& m = coefficients.at(array.transform)[static_cast<std::size_t>(array.axis - 1)];
      const auto [row_split, col_split] = program.matrix_splits(array);
      const std::size_t rows = row_split.size(at(block.index[0])), cols = col_split.size(at(block.index[1]));
      const std::size_t row0 = row_split.offset(at(block.index[0])), col0 = col_split.offset(at(block.index[1]));
      for (std::size_t out = 0; out < cols; ++out)
        for (std::size_t in = 0; in < rows; ++in)
          words[in + rows * out] = m(static_cast<Eigen::Index>(row0 + in), static_cast<Eigen::Index>(col0 + out));
      return;
    }
    if (array.cut) {
      copy_block(array.input_pieces ? input : operands.at(array.operand), array.cut->extents(block.index),
                 array.cut->origin(block.index), words);
      return;
    }
    copy_block(input, program.grid.extents(block.index), program.grid.origin(block.index), words);
  }

 private:
  // The e1 x e2 x e3 block of `from` at `o`, first index fastest.
  static void copy_block(const Tensor3<T>& from, const Extents3& e, const Extents3& o, T* words) {
    for (std::size_t k = 0; k < e[2]; ++k)
      for (std::size_t j = 0; j < e[1]; ++j)
        for (std::size_t i = 0; i < e[0]; ++i) words[i + e[0] * (j + e[1] * k)] = from(o[0] + i, o[1] + j, o[2] + k);
  }
};

// One output block: where it is and what it is, for golden-check messages.
struct OutputBlock {
  std::size_t node = 0;
  DataTag tag;
};

// Assembles `output` into the N1 x N2 x N3 tensor of the Program's grid: entry i's buffer
// output.buffer[i] on node output.node_of(i) holds, in its first words, the block
// output.tag[i] names (cut as its tag kind says, or as the Program's grid cuts the tensor).
// `words(node, buffer)` returns a pointer to the buffer's values in storage order.
template <class T, class Words>
Tensor3<T> gather_output(const Program& program, const ProgramOutput& output, Words words,
                         std::vector<OutputBlock>* layout = nullptr) {
  Tensor3<T> tensor(program.grid.tensor_extents());
  if (layout) layout->clear();
  for (std::size_t entry = 0; entry < output.entries(); ++entry) {
    const std::size_t node = output.node_of(entry);
    const T* values = words(node, output.buffer[entry]);
    const Extents3 e = program.extents_of(output.tag[entry]), o = program.origin_of(output.tag[entry]);
    for (std::size_t k = 0; k < e[2]; ++k)
      for (std::size_t j = 0; j < e[1]; ++j)
        for (std::size_t i = 0; i < e[0]; ++i) tensor(o[0] + i, o[1] + j, o[2] + k) = values[i + e[0] * (j + e[1] * k)];
    if (layout) layout->push_back({node, output.tag[entry]});
  }
  return tensor;
}

}  // namespace torus
