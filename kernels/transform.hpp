#pragma once
// The 1D transform extension point. A 3D separable transform applies one Transform per axis.

#include <array>
#include <complex>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/tensor3.hpp"

namespace torus {

using WideComplex = std::complex<long double>;
using WideMatrix = Matrix<WideComplex>;

// Coefficients are generated in long double so that rounding them to the working precision
// is the only coefficient error a float or double run sees.
struct CoefficientMatrices {
  WideMatrix forward;  // C(n, k): row = input index n, column = output index k; y = C^T x
  WideMatrix inverse;  // D(k, n) = C^{-1}: row = input index k, column = output index n
};

enum class Normalisation { None, Ortho };
std::string to_string(Normalisation normalisation);
Normalisation parse_normalisation(std::string_view text);

// Settings some transforms read; each transform ignores what does not concern it.
struct TransformOptions {
  Normalisation normalisation = Normalisation::None;  // dft, dht, wht
  std::string user_matrix_path;                       // user
  std::size_t size = 0;  // N when known: a user matrix of another size is refused before it is inverted
  // N_1, N_2, N_3 when known (0: not): parse_axis_transforms gives each transform the `size` of the
  // first axis it serves, so that a non-cubic tensor's user matrix is size-checked before it is read.
  std::array<std::size_t, 3> axis_sizes{0, 0, 0};
  double unit_roundoff = 0x1p-53;  // working precision; bounds how ill-conditioned a user matrix may be
};

// Contract: matrices(n) returns C and D = C^{-1} for length n, or throws std::invalid_argument
// naming the size and what is allowed; check_size(n) throws exactly when matrices(n) would.
class Transform {
 public:
  virtual ~Transform() = default;
  virtual std::string name() const = 0;
  virtual bool complex_valued() const = 0;
  virtual void check_size(std::size_t n) const;
  virtual CoefficientMatrices matrices(std::size_t n) const = 0;
  // Real numbers a node keeps to generate any coefficient of C and D of length n by itself
  // (a table it indexes, such as cos(pi j / 2n) for the DCT), or nullopt when the matrix has
  // no such structure and a node must hold the coefficient blocks it uses.
  virtual std::optional<std::size_t> table_values(std::size_t n) const = 0;
};

struct TransformInfo {
  std::string_view name;
  std::string_view description;
};

// Every transform selectable by name, for --help and error messages.
const std::vector<TransformInfo>& transform_catalogue();
std::unique_ptr<Transform> make_transform(std::string_view name, const TransformOptions& options);

// One transform per axis (1, 2, 3). "dct" applies DCT on all three; "dct,dft,dht" one each.
struct AxisTransforms {
  std::array<std::shared_ptr<const Transform>, 3> axis;
  bool complex_valued() const;
  std::string describe() const;  // "dct" or "dct,dft,dht"
};
AxisTransforms parse_axis_transforms(std::string_view spec, const TransformOptions& options);
// The three per-axis names of a spec, checked against the catalogue without building anything.
std::array<std::string, 3> axis_transform_names(std::string_view spec);

// Rounds wide coefficients to the working element type T (complex-valued C needs complex T).
template <class T>
Matrix<T> round_coefficients(const WideMatrix& wide);

}  // namespace torus
