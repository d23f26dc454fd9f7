#include "kernels/scalar.hpp"

#include <stdexcept>

namespace torus {

std::string to_string(Precision precision) {
  return precision == Precision::Single ? "float" : "double";
}

std::string to_string(Domain domain) { return domain == Domain::Real ? "real" : "complex"; }

std::string to_string(ScalarType type) {
  if (type.domain == Domain::Real) return to_string(type.precision);
  return type.precision == Precision::Single ? "complex64" : "complex128";
}

Precision parse_precision(std::string_view text) {
  if (text == "float" || text == "single") return Precision::Single;
  if (text == "double") return Precision::Double;
  throw std::invalid_argument("precision: '" + std::string(text) +
                              "' is not a precision; allowed: float, double");
}

}  // namespace torus
