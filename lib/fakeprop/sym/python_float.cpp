#include "fakeprop/sym/python_float.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>

#include "fakeprop/util/error.h"

namespace fakeprop {

std::string python_float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  // The shortest round-trip digits, then Python's layout of them: positional
  // for decimal exponents in [-4, 16), scientific with two exponent digits
  // or more otherwise (float_repr_style 'short').
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  (void)ec;
  std::string_view text(buf, static_cast<size_t>(end - buf));
  std::string sign;
  if (text.front() == '-') {
    sign = "-";
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e))
    if (c != '.') digits += c;
  int exponent = 0;
  std::string_view exp_text = text.substr(e + 1);
  std::from_chars(exp_text.data() + (exp_text.front() == '+' ? 1 : 0), exp_text.data() + exp_text.size(), exponent);
  const int n = static_cast<int>(digits.size());
  if (exponent >= -4 && exponent < 16) {
    std::string out;
    if (exponent < 0) {
      out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else if (exponent + 1 >= n) {
      out = digits + std::string(static_cast<size_t>(exponent + 1 - n), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(exponent + 1)) + "." + digits.substr(static_cast<size_t>(exponent + 1));
    }
    return sign + out;
  }
  std::string mantissa = digits.substr(0, 1);
  if (n > 1) mantissa += "." + digits.substr(1);
  const int magnitude = exponent < 0 ? -exponent : exponent;
  std::string exp_digits = std::to_string(magnitude);
  if (exp_digits.size() < 2) exp_digits = "0" + exp_digits;
  return sign + mantissa + (exponent < 0 ? "e-" : "e+") + exp_digits;
}

namespace {

uint64_t magnitude_of(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

int bit_length(unsigned __int128 v) {
  int n = 0;
  while (v) {
    ++n;
    v >>= 1;
  }
  return n;
}

}  // namespace

double python_int_truediv(int64_t a, int64_t b) {
  if (b == 0) throw Error("division by zero");
  constexpr uint64_t kExact = uint64_t{1} << 53;
  const uint64_t na = magnitude_of(a), nb = magnitude_of(b);
  // Both operands exact as doubles: one IEEE division rounds once.
  if (na <= kExact && nb <= kExact) return static_cast<double>(a) / static_cast<double>(b);
  // Otherwise CPython's long_true_divide: a quotient of 55 bits or more and a
  // sticky bit for the remainder, rounded half to even to 53 bits.
  const bool negative = (a < 0) != (b < 0);
  const int k = std::max(0, 55 + bit_length(nb) - bit_length(na));
  const unsigned __int128 n = static_cast<unsigned __int128>(na) << k;
  unsigned __int128 q = n / nb;
  const bool sticky = n % nb != 0;
  const int shift = bit_length(q) - 53;
  const unsigned __int128 low = q & ((static_cast<unsigned __int128>(1) << shift) - 1);
  const unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
  q >>= shift;
  if (low > half || (low == half && (sticky || (q & 1)))) ++q;
  const double r = std::ldexp(static_cast<double>(static_cast<uint64_t>(q)), shift - k);
  return negative ? -r : r;
}

double python_float_truediv(double a, double b) {
  if (b == 0) throw Error("float division by zero");
  return a / b;
}

double python_float_pow(double base, double exponent) {
  if (exponent == 0 || base == 1) return 1.0;  // even for a NaN operand, as CPython
  if (std::isnan(base) || std::isnan(exponent)) return std::nan("");
  if (base == 0 && exponent < 0) throw Error("0.0 cannot be raised to a negative power");
  if (base < 0 && std::isfinite(base) && std::isfinite(exponent) && exponent != std::floor(exponent))
    throw Error("a negative float to a fractional power is complex in Python");
  const double r = std::pow(base, exponent);
  if (std::isinf(r) && std::isfinite(base) && std::isfinite(exponent))
    throw OverflowError("(34, 'Numerical result out of range')");
  return r;
}

namespace {

int64_t float_to_int64(double integral) {
  if (std::isnan(integral)) throw Error("cannot convert float NaN to integer");
  if (std::isinf(integral)) throw OverflowError("cannot convert float infinity to integer");
  // [-2**63, 2**63): both ends are exact doubles.
  if (integral < -9223372036854775808.0 || integral >= 9223372036854775808.0)
    throw OverflowError("integer " + python_float_repr(integral) + " does not fit in 64 bits");
  return static_cast<int64_t>(integral);
}

}  // namespace

int64_t python_floor_to_int(double x) { return float_to_int64(std::floor(x)); }
int64_t python_ceil_to_int(double x) { return float_to_int64(std::ceil(x)); }
int64_t python_trunc_to_int(double x) { return float_to_int64(std::trunc(x)); }
// Ties to even, as Python's round() (and nearbyint under the default rounding mode).
int64_t python_round_to_int(double x) {
  double r = std::round(x);
  if (std::fabs(x - r) == 0.5) r = 2.0 * std::round(x / 2.0);
  return float_to_int64(r);
}

double round_to_float32(double x) {
  // Converting a double beyond float's range to float is undefined in C++:
  // round at the edge by hand. Above FLT_MAX + half an ulp the nearest is inf.
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr double kOverflow = kMax + 0x1p103;  // FLT_MAX plus half its ulp (2**104)
  if (std::isnan(x)) return x;
  if (std::fabs(x) >= kOverflow) return std::copysign(std::numeric_limits<double>::infinity(), x);
  if (std::fabs(x) > kMax) return std::copysign(kMax, x);
  return static_cast<double>(static_cast<float>(x));
}

bool is_float32_value(double x) {
  return std::isnan(x) || std::bit_cast<uint64_t>(round_to_float32(x)) == std::bit_cast<uint64_t>(x);
}

}  // namespace fakeprop
