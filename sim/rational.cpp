#include "sim/rational.hpp"

#include <charconv>
#include <numeric>
#include <stdexcept>

namespace torus {

std::string Rational::to_string() const {
  return den == 1 ? std::to_string(num) : std::to_string(num) + "/" + std::to_string(den);
}

namespace {

bool parse_count(std::string_view text, std::int64_t& out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

}  // namespace

Rational Rational::parse(std::string_view text, std::string_view key) {
  const auto fail = [&]() -> Rational {
    throw std::invalid_argument(std::string(key) + ": '" + std::string(text) +
                                "' is not allowed; allowed: a positive number such as 2, 1/8 or 0.125 "
                                "(numerator and denominator at most 1000000)");
  };
  constexpr std::int64_t limit = 1000000;
  std::int64_t num = 0, den = 1;
  if (const auto slash = text.find('/'); slash != std::string_view::npos) {
    if (!parse_count(text.substr(0, slash), num) || !parse_count(text.substr(slash + 1), den)) return fail();
  } else if (const auto dot = text.find('.'); dot != std::string_view::npos) {
    const std::string_view whole = text.substr(0, dot), fraction = text.substr(dot + 1);
    if (fraction.empty() || fraction.size() > 6) return fail();
    std::int64_t w = 0, f = 0;
    if ((!whole.empty() && !parse_count(whole, w)) || !parse_count(fraction, f)) return fail();
    den = 1;
    for (std::size_t i = 0; i < fraction.size(); ++i) den *= 10;
    num = w * den + f;
  } else if (!parse_count(text, num)) {
    return fail();
  }
  if (num <= 0 || den <= 0) return fail();
  const std::int64_t g = std::gcd(num, den);
  num /= g;
  den /= g;
  if (num > limit || den > limit) return fail();
  return {num, den};
}

}  // namespace torus
