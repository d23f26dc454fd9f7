#pragma once
// Scalar element types a transform can run in, and the facts about them that the numerics
// (tolerances) and the cost model (fma per multiply-add) need.

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace torus {

enum class Precision : std::uint8_t { Single, Double };
enum class Domain : std::uint8_t { Real, Complex };

struct ScalarType {
  Precision precision = Precision::Double;
  Domain domain = Domain::Real;
  friend bool operator==(const ScalarType&, const ScalarType&) = default;
};

std::string to_string(Precision precision);
std::string to_string(Domain domain);
// "float", "double", "complex64", "complex128": the NumPy names of the four element types.
std::string to_string(ScalarType type);
Precision parse_precision(std::string_view text);

template <class T>
struct is_complex : std::false_type {};
template <class R>
struct is_complex<std::complex<R>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex<T>::value;

template <class T>
struct real_of {
  using type = T;
};
template <class R>
struct real_of<std::complex<R>> {
  using type = R;
};
template <class T>
using real_t = typename real_of<T>::type;

// Unit roundoff u = eps/2 of the element type's real part (round to nearest).
template <class T>
constexpr double unit_roundoff() {
  return static_cast<double>(std::numeric_limits<real_t<T>>::epsilon()) / 2.0;
}

template <class T>
constexpr ScalarType scalar_type_of() {
  return {std::is_same_v<real_t<T>, float> ? Precision::Single : Precision::Double,
          is_complex_v<T> ? Domain::Complex : Domain::Real};
}

// Calls fn.template operator()<T>() with T the C++ element type that `type` names.
template <class Fn>
decltype(auto) dispatch_scalar(ScalarType type, Fn&& fn) {
  if (type.domain == Domain::Complex) {
    if (type.precision == Precision::Single) return fn.template operator()<std::complex<float>>();
    return fn.template operator()<std::complex<double>>();
  }
  if (type.precision == Precision::Single) return fn.template operator()<float>();
  return fn.template operator()<double>();
}

}  // namespace torus
