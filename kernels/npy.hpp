#pragma once
// NumPy .npy files (format version 1.0/2.0/3.0), so tensors move to and from Python without
// conversion. Reads little-endian float32/float64/complex64/complex128 (and integer arrays,
// converted), in C or Fortran order. Writes are atomic: a temporary file renamed into place.

#include <complex>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/npy_header.hpp"
#include "kernels/output_file.hpp"  // write_npy writes through it
#include "kernels/scalar.hpp"
#include "kernels/tensor3.hpp"

namespace torus {

struct NpyData {
  std::vector<std::size_t> shape;
  bool complex_valued = false;
  ScalarType stored_type;  // what the file held (integers report double)
  // Elements in C order (last index fastest), whatever order the file used.
  std::vector<std::complex<double>> values;
};

// Throws NpyError naming the file and what is wrong with its contents (std::runtime_error when
// reading fails). The header is checked against the file size before the data is read.
NpyData read_npy(const std::string& path);
// Reads only the header: what the file holds, at the cost of a few hundred bytes.
NpyHeader read_npy_header(const std::string& path);

// Shape n1 x n2 x n3 with element (i,j,k) = x(i,j,k). Throws NpyError naming the file
// when the array is not 3-dimensional, holds complex values and T is real, or holds an
// element that is not finite or beyond T's range (naming the element).
template <class T>
Tensor3<T> read_npy_tensor(const std::string& path);

template <class T>
void write_npy(const std::string& path, const Tensor3<T>& tensor);

// A matrix: a 2-dimensional array r x c read as the tensor r x c x 1 (element (i,j,0) = a(i,j));
// written from an r x 1 x c or r x c x 1 tensor (first index fastest) as the r x c array.
template <class T>
Tensor3<T> read_npy_matrix(const std::string& path);
template <class T>
void write_npy_matrix(const std::string& path, const Tensor3<T>& matrix);

}  // namespace torus
