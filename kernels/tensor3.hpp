#pragma once
// A dense 3-way tensor in column-major order (first index fastest), the layout Eigen's
// Map needs to treat mode-1 and mode-3 unfoldings as plain matrices without copies.

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace torus {

using Extents3 = std::array<std::size_t, 3>;

template <class T>
class Tensor3 {
 public:
  Tensor3() = default;
  explicit Tensor3(Extents3 extents, T fill = T{})
      : extents_(extents), data_(extents[0] * extents[1] * extents[2], fill) {}
  Tensor3(std::size_t n1, std::size_t n2, std::size_t n3, T fill = T{})
      : Tensor3(Extents3{n1, n2, n3}, fill) {}

  const Extents3& extents() const { return extents_; }
  std::size_t extent(int axis) const { return extents_[static_cast<std::size_t>(axis)]; }
  std::size_t size() const { return data_.size(); }

  T& operator()(std::size_t i1, std::size_t i2, std::size_t i3) {
    return data_[offset(i1, i2, i3)];
  }
  const T& operator()(std::size_t i1, std::size_t i2, std::size_t i3) const {
    return data_[offset(i1, i2, i3)];
  }

  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  std::vector<T>& values() { return data_; }
  const std::vector<T>& values() const { return data_; }

  void fill(T value) { std::fill(data_.begin(), data_.end(), value); }

  // Copy of the sub-cube starting at `origin` with the given extents.
  Tensor3 block(Extents3 origin, Extents3 block_extents) const {
    check_block(origin, block_extents);
    Tensor3 out(block_extents);
    for (std::size_t k = 0; k < block_extents[2]; ++k)
      for (std::size_t j = 0; j < block_extents[1]; ++j)
        for (std::size_t i = 0; i < block_extents[0]; ++i)
          out(i, j, k) = (*this)(origin[0] + i, origin[1] + j, origin[2] + k);
    return out;
  }

  void set_block(Extents3 origin, const Tensor3& source) {
    check_block(origin, source.extents());
    const Extents3& e = source.extents();
    for (std::size_t k = 0; k < e[2]; ++k)
      for (std::size_t j = 0; j < e[1]; ++j)
        for (std::size_t i = 0; i < e[0]; ++i)
          (*this)(origin[0] + i, origin[1] + j, origin[2] + k) = source(i, j, k);
  }

  friend bool operator==(const Tensor3&, const Tensor3&) = default;

 private:
  std::size_t offset(std::size_t i1, std::size_t i2, std::size_t i3) const {
    return i1 + extents_[0] * (i2 + extents_[1] * i3);
  }
  void check_block(Extents3 origin, Extents3 block_extents) const {
    for (std::size_t a = 0; a < 3; ++a)
      if (origin[a] + block_extents[a] > extents_[a])
        throw std::out_of_range("Tensor3 block exceeds tensor extent on axis " +
                                std::to_string(a + 1));
  }

  Extents3 extents_{0, 0, 0};
  std::vector<T> data_;
};

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

}  // namespace torus
