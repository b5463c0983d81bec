#include "fakeprop/sym/python_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

// Expected texts and values are what CPython 3.11 prints for the same operations.
TEST(PythonFloat, ReprIsShortestRoundTripInPythonsLayout) {
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(800.0), "800.0");
  EXPECT_EQ(python_float_repr(1e-05), "1e-05");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1.5e16), "1.5e+16");
  EXPECT_EQ(python_float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(python_float_repr(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(python_float_repr(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(python_float_repr(5e-324), "5e-324");
  EXPECT_EQ(python_float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(python_float_repr(0.1 * 3), "0.30000000000000004");
  EXPECT_EQ(python_float_repr(-0.0), "-0.0");
  EXPECT_EQ(python_float_repr(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(python_float_repr(std::nan("")), "nan");
  EXPECT_EQ(python_float_repr(800.0 / 600), "1.3333333333333333");
}

TEST(PythonFloat, IntTrueDivRoundsOnceLikeCPython) {
  EXPECT_EQ(python_int_truediv(800, 600), 800.0 / 600.0);
  EXPECT_EQ(python_int_truediv(0, -5), 0.0);
  EXPECT_TRUE(std::signbit(python_int_truediv(0, -5)));  // Python: 0 / -5 == -0.0
  // float(a) / float(b) would round a first and give ...294.522.
  EXPECT_EQ(python_float_repr(python_int_truediv(5258986265376043509, 888601)), "5918276330294.523");
  EXPECT_EQ(python_float_repr(python_int_truediv(1096615257545913404, 519504)), "2110888958594.9548");
  EXPECT_EQ(python_float_repr(python_int_truediv(4154830492154097476, 495188)), "8390410292967.716");
  EXPECT_EQ(python_float_repr(python_int_truediv((int64_t{1} << 62) + 1, 3)), "1.5372286728091292e+18");
  EXPECT_EQ(python_float_repr(python_int_truediv(-((int64_t{1} << 60) + 3), (int64_t{1} << 55) + 1)), "-32.0");
  EXPECT_EQ(python_float_repr(python_int_truediv(9007199254740993, 1)), "9007199254740992.0");
  EXPECT_THROW(python_int_truediv(1, 0), Error);
}

TEST(PythonFloat, RoundingToIntegers) {
  EXPECT_EQ(python_round_to_int(0.5), 0);
  EXPECT_EQ(python_round_to_int(1.5), 2);
  EXPECT_EQ(python_round_to_int(2.5), 2);
  EXPECT_EQ(python_round_to_int(-0.5), 0);
  EXPECT_EQ(python_round_to_int(-1.5), -2);
  EXPECT_EQ(python_round_to_int(2.5000000000000004), 3);
  EXPECT_EQ(python_floor_to_int(-0.5), -1);
  EXPECT_EQ(python_ceil_to_int(-0.5), 0);
  EXPECT_EQ(python_trunc_to_int(-1.9), -1);
  EXPECT_EQ(python_floor_to_int(600 * (800.0 / 600)), 800);
  EXPECT_THROW(python_floor_to_int(std::nan("")), Error);
  EXPECT_THROW(python_floor_to_int(std::numeric_limits<double>::infinity()), OverflowError);
  EXPECT_THROW(python_floor_to_int(1e19), OverflowError);
  EXPECT_EQ(python_floor_to_int(-9223372036854775808.0), std::numeric_limits<int64_t>::min());
}

TEST(PythonFloat, DivisionAndPowerRaiseWherePythonDoes) {
  EXPECT_THROW(python_float_truediv(1.0, 0.0), Error);
  EXPECT_THROW(python_float_truediv(1.0, -0.0), Error);
  EXPECT_EQ(python_float_pow(2.0, 10.0), 1024.0);
  EXPECT_EQ(python_float_pow(std::nan(""), 0.0), 1.0);
  EXPECT_EQ(python_float_pow(1.0, std::nan("")), 1.0);
  EXPECT_EQ(python_float_pow(-8.0, 3.0), -512.0);
  EXPECT_THROW(python_float_pow(0.0, -1.0), Error);
  EXPECT_THROW(python_float_pow(-8.0, 1.0 / 3), Error);  // complex in Python
  EXPECT_THROW(python_float_pow(10.0, 400.0), OverflowError);
  EXPECT_EQ(python_float_pow(std::numeric_limits<double>::infinity(), 2.0), std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace fakeprop
