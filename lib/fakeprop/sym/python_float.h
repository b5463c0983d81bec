// Python's float arithmetic on IEEE doubles, as CPython computes it: the
// folding of float size expressions must give the value that PyTorch's
// Python code would, bit for bit, so every operation here is one correctly
// rounded IEEE operation or CPython's own exact algorithm. Errors carry
// CPython's messages (ZeroDivisionError, OverflowError, ValueError).
#pragma once
#include <cstdint>
#include <string>

namespace fakeprop {

// repr(x): the shortest text that reads back as x ("0.1", "800.0", "1e-05",
// "1e+16", "inf", "nan"), which Python's float() parses to the same bits.
std::string python_float_repr(double x);

// int / int: the correctly rounded quotient (not float(a) / float(b), which
// rounds twice when |a| or |b| exceeds 2**53). Throws Error on b == 0.
double python_int_truediv(int64_t a, int64_t b);
// float / float. Throws Error on division by zero.
double python_float_truediv(double a, double b);
// float ** float. Throws Error where Python raises: 0.0 to a negative power,
// a negative base to a fractional power (Python would return a complex),
// and a finite result that overflows.
double python_float_pow(double base, double exponent);

// math.floor, math.ceil, math.trunc and round() of a float, as int64.
// NaN and infinities throw Error with Python's texts; a value outside int64
// throws OverflowError. round() rounds half to even.
int64_t python_floor_to_int(double x);
int64_t python_ceil_to_int(double x);
int64_t python_trunc_to_int(double x);
int64_t python_round_to_int(double x);

// float(v): the nearest double, ties to even.
inline double python_int_to_float(int64_t v) { return static_cast<double>(v); }

// x rounded to the nearest IEEE single (ties to even), back as a double:
// float(numpy.float32(x)). Past the largest single it is an infinity, as the
// hardware conversion gives; NaN stays NaN.
double round_to_float32(double x);
// True when x is a float32 value (round_to_float32(x) has its bits).
bool is_float32_value(double x);

}  // namespace fakeprop
