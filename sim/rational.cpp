#include "sim/rational.hpp"

#include <charconv>
#include <numeric>
#include <stdexcept>

namespace torus {

std::string Rational::to_string() const {
  return den == 1 ? std::to_string(num) : std::to_string(num) + "/" + std::to_string(den);
}

namespace {

constexpr std::int64_t rational_limit = 1000000;
constexpr std::size_t max_fraction_digits = 6;

enum class Digits { Ok, NotDigits, TooLarge };

// Only the characters 0-9: from_chars alone would take a sign ("-5"), which once turned
// "1.-5" into 0.95 and "-0.5" into 0.5.
Digits parse_digits(std::string_view text, std::int64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return Digits::NotDigits;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() ? Digits::Ok : Digits::TooLarge;
}

struct Fraction {
  std::int64_t num = 0, den = 1;
  Digits status = Digits::Ok;
};

Fraction parse_quotient(std::string_view text, std::size_t slash) {
  Fraction f;
  f.status = parse_digits(text.substr(0, slash), f.num);
  if (f.status == Digits::Ok) f.status = parse_digits(text.substr(slash + 1), f.den);
  return f;
}

// "w.f" as (w * 10^digits + f) / 10^digits, with the multiplication checked: an unchecked one
// once ran 1844674407370955163.6 as 2.
Fraction parse_decimal(std::string_view text, std::size_t dot) {
  Fraction f;
  const std::string_view whole = text.substr(0, dot), fraction = text.substr(dot + 1);
  if (fraction.size() > max_fraction_digits) return {0, 1, Digits::NotDigits};
  std::int64_t w = 0, part = 0;
  f.status = whole.empty() ? Digits::Ok : parse_digits(whole, w);
  if (f.status == Digits::Ok) f.status = parse_digits(fraction, part);
  if (f.status != Digits::Ok) return f;
  for (std::size_t i = 0; i < fraction.size(); ++i) f.den *= 10;
  if (__builtin_mul_overflow(w, f.den, &f.num) || __builtin_add_overflow(f.num, part, &f.num)) f.status = Digits::TooLarge;
  return f;
}

Fraction parse_fraction(std::string_view text) {
  if (const auto slash = text.find('/'); slash != std::string_view::npos) return parse_quotient(text, slash);
  if (const auto dot = text.find('.'); dot != std::string_view::npos) return parse_decimal(text, dot);
  Fraction f;
  f.status = parse_digits(text, f.num);
  return f;
}

}  // namespace

Rational Rational::parse(std::string_view text, std::string_view key) {
  const auto fail = [&](std::string_view why) -> Rational {
    throw std::invalid_argument(std::string(key) + ": '" + std::string(text) + "' is not allowed (" + std::string(why) +
                                "); allowed: a positive number such as 2, 1/8 or 0.125, written with digits only, "
                                "at most 6 decimals (numerator and denominator at most 1000000)");
  };
  Fraction f = parse_fraction(text);
  if (f.status == Digits::TooLarge) return fail("too large");
  if (f.status == Digits::NotDigits) return fail("not a plain number: no sign, space or exponent");
  if (f.den == 0) return fail("a denominator of zero");
  if (f.num == 0) return fail("zero is not positive");
  const std::int64_t g = std::gcd(f.num, f.den);
  f.num /= g;
  f.den /= g;
  if (f.num > rational_limit || f.den > rational_limit) return fail("too large or too fine");
  return {f.num, f.den};
}

}  // namespace torus
