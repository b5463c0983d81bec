// .npy reading for --real-input: dtypes, Fortran order, the element cap, and
// one clear error for each malformed file.
#include "fakeprop/driver/real_inputs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

// A version-1 .npy file: magic, header padded to 64 bytes, then `data`.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data, bool fortran = false) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

template <typename T>
std::string bytes_of(std::initializer_list<T> xs) {
  std::string out;
  for (T x : xs) out.append(reinterpret_cast<const char*>(&x), sizeof(T));
  return out;
}

std::string error_of(const std::string& content, int64_t cap = 1 << 16) {
  try {
    parse_npy(content, "f.npy", cap);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST(RealInputs, ReadsIntegersFloatsAndBools) {
  RealTensor t = parse_npy(npy("<i4", "(2, 2)", bytes_of<int32_t>({1, -2, 3, 4})), "f.npy", 100);
  EXPECT_EQ(t.dtype, DType::Int32);
  EXPECT_EQ(t.sizes, (std::vector<int64_t>{2, 2}));
  ASSERT_TRUE(t.elements);
  EXPECT_EQ(t.elements->ints[1].value(), -2);
  t = parse_npy(npy("<f4", "(3,)", bytes_of<float>({0.5f, -1.0f, 2.25f})), "f.npy", 100);
  EXPECT_EQ(t.dtype, DType::Float32);
  ASSERT_TRUE(t.elements && t.elements->is_float);
  EXPECT_EQ(t.elements->floats, (std::vector<double>{0.5, -1.0, 2.25}));
  t = parse_npy(npy("|b1", "(2,)", std::string("\x01\x00", 2)), "f.npy", 100);
  EXPECT_EQ(t.dtype, DType::Bool);
  EXPECT_EQ(t.elements->ints[0].value(), 1);
  EXPECT_EQ(t.elements->ints[1].value(), 0);
  t = parse_npy(npy("<f2", "()", bytes_of<uint16_t>({0x3c00})), "f.npy", 100);  // a 0-d half 1.0
  EXPECT_TRUE(t.sizes.empty());
  EXPECT_EQ(t.elements->floats, (std::vector<double>{1.0}));
}

TEST(RealInputs, FortranOrderReadsRowMajor) {
  // [[1, 2, 3], [4, 5, 6]] stored column by column.
  const RealTensor t = parse_npy(npy("<i8", "(2, 3)", bytes_of<int64_t>({1, 4, 2, 5, 3, 6}), true), "f.npy", 100);
  std::vector<int64_t> got;
  for (const SymInt& x : t.elements->ints) got.push_back(x.value());
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(RealInputs, OverTheCapKeepsSizesOnly) {
  const RealTensor t = parse_npy(npy("<i4", "(4,)", bytes_of<int32_t>({1, 2, 3, 4})), "f.npy", 3);
  EXPECT_EQ(t.numel, 4);
  EXPECT_FALSE(t.elements);
}

TEST(RealInputs, MalformedFilesAreOneLine) {
  EXPECT_EQ(error_of("PK\x03\x04 not numpy"), "f.npy: not a .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(error_of(npy(">f4", "(1,)", bytes_of<float>({1.0f}))),
            "f.npy: .npy dtype '>f4' is not supported (little-endian numbers and bool are)");
  EXPECT_EQ(error_of(npy("<f4", "(4,)", bytes_of<float>({1.0f}))), "f.npy: .npy data is truncated (4 bytes, 16 needed)");
  EXPECT_EQ(error_of(npy("<f4", "(a,)", "")), "f.npy: .npy shape (a,) is malformed");
  EXPECT_EQ(error_of(npy("<u8", "(1,)", bytes_of<uint64_t>({~uint64_t(0)}))), "f.npy: element 0 does not fit an int64");
  std::string truncated = npy("<f4", "(1,)", "");
  EXPECT_EQ(error_of(truncated.substr(0, 20)), "f.npy: not a .npy file (truncated header)");
}

}  // namespace
}  // namespace fakeprop
