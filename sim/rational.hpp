#pragma once
// Exact positive rationals for rates such as link bandwidth (1/8 word per cycle), so cycle
// arithmetic stays in integers and results are exact.

#include <cstdint>
#include <string>
#include <string_view>

namespace torus {

struct Rational {
  std::int64_t num = 1;
  std::int64_t den = 1;
  double value() const { return static_cast<double>(num) / static_cast<double>(den); }
  std::string to_string() const;  // "1/8", "2"
  // Accepts "3", "1/8", "0.125"; the result is reduced. Throws std::invalid_argument naming
  // `key` unless the value is a positive rational with numerator and denominator <= 1e6.
  static Rational parse(std::string_view text, std::string_view key);
  friend bool operator==(const Rational&, const Rational&) = default;
};

}  // namespace torus
