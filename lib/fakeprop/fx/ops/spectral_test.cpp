// _fft_r2c / _fft_c2r / _fft_c2c: symbolic sizes and the error paths. The
// static layouts on both devices are checked against PyTorch in
// testdata/fx_goldens/ops_core.json; expected values here are worked out by
// hand from current PyTorch's meta functions (torch/_meta_registrations.py
// meta_fft_* and _exec_fft).
#include "fakeprop/fx/ops/graph_test_util.h"

namespace fakeprop::fx {
namespace {

using namespace testing;

TEST(FxSpectral, R2cHalvesASymbolicLastDim) {
  for (const char* device : {"cpu", "cuda:0"}) {
    GraphText g;
    g.symbol("s0", 4)
        .symbol("s1", 10)
        .input("x", tensor({"s0", "s1"}, "float32", device))
        .call("f", "aten._fft_r2c.default", {node("x"), {1}, 0, true});
    Ran r = run(g);
    ASSERT_EQ(r.error("f"), "") << device;
    const TensorMeta& t = r.tensor("f");
    EXPECT_EQ(strs(t.sizes), (Strs{"s0", "s1//2 + 1"})) << device;
    EXPECT_EQ(strs(t.strides), (Strs{"s1//2 + 1", "1"})) << device;
    EXPECT_EQ(t.dtype, DType::Complex64);
    EXPECT_EQ(t.device.str(), device);
  }
}

// On CUDA the batch dims are laid out in the input's stride order: a
// transform over dim 0 of a contiguous [s0, s1, s2] leaves dim 0 innermost.
TEST(FxSpectral, CudaBatchDimsFollowTheInputStrides) {
  GraphText g;
  g.symbol("s0", 4)
      .symbol("s1", 6)
      .symbol("s2", 5)
      .input("x", tensor({"s0", "s1", "s2"}, "float32", "cuda:0"))
      .input("c", tensor({"s0", "s1", "s2"}, "complex64", "cuda:0"))
      .call("r", "aten._fft_r2c.default", {node("x"), {0}, 0, true})
      .call("c2c", "aten._fft_c2c.default", {node("c"), {0}, 0, true});
  Ran r = run(g);
  for (const char* n : {"r", "c2c"}) ASSERT_EQ(r.error(n), "") << n;
  EXPECT_EQ(strs(r.tensor("r").sizes), (Strs{"s0//2 + 1", "s1", "s2"}));
  EXPECT_EQ(strs(r.tensor("r").strides), (Strs{"1", "s2*(s0//2 + 1)", "s0//2 + 1"}));
  EXPECT_EQ(strs(r.tensor("c2c").strides), (Strs{"1", "s0*s2", "s0"}));
  EXPECT_TRUE(r.guards().empty()) << "s2 > 1 is known for a backed size: the stride order needs no guard";
}

TEST(FxSpectral, CpuR2cAndC2rRestrideAsMklDoes) {
  // torch 2.15's fake values: r strides (8, 16, 1), c2r (10, 1, 40).
  GraphText g;
  g.input("x", tensor({2, 3, 8}, "float32", "cpu", json::array({1, 16, 2})))
      .input("c", tensor({4, 6, 5}, "complex128"))
      .call("r", "aten._fft_r2c.default", {node("x"), {2}, 0, false})
      .call("c2r", "aten._fft_c2r.default", {node("c"), {0, 1}, 0, 10});
  Ran r = run(g);
  for (const char* n : {"r", "c2r"}) ASSERT_EQ(r.error(n), "") << n;
  EXPECT_EQ(strs(r.tensor("r").strides), (Strs{"8", "16", "1"}));  // batch dims by x's strides, dim 2 innermost
  // C2C over dim 0 leaves it innermost; the C2R over dim 1 then puts dim 0
  // (the smaller-strided batch dim) inside dim 2.
  EXPECT_EQ(strs(r.tensor("c2r").sizes), (Strs{"4", "10", "5"}));
  EXPECT_EQ(strs(r.tensor("c2r").strides), (Strs{"10", "1", "40"}));
  EXPECT_EQ(r.tensor("c2r").dtype, DType::Float64);
}

TEST(FxSpectral, C2rTakesASymbolicLastDimSize) {
  GraphText g;
  g.symbol("s0", 3)
      .symbol("s1", 8)
      .input("c", tensor({"s0", 5}, "complex64", "cuda:0"))
      .input("n", tensor({"s1"}))
      .call("m", "aten.sym_size.int", {node("n"), 0})
      .call("f", "aten._fft_c2r.default", {node("c"), {1}, 0, node("m")});
  Ran r = run(g);
  ASSERT_EQ(r.error("f"), "");
  EXPECT_EQ(strs(r.tensor("f").sizes), (Strs{"s0", "s1"}));
  EXPECT_EQ(strs(r.tensor("f").strides), (Strs{"s1", "1"}));
  EXPECT_EQ(r.tensor("f").dtype, DType::Float32);
}

TEST(FxSpectral, HalfGoesToComplexHalfAndBack) {
  GraphText g;
  g.input("x", tensor({2, 8}, "float16", "cuda:0"))
      .input("c", tensor({2, 5}, "complex32", "cuda:0"))
      .call("r", "aten._fft_r2c.default", {node("x"), {1}, 0, true})
      .call("c2r", "aten._fft_c2r.default", {node("c"), {1}, 0, 8});
  Ran r = run(g);
  for (const char* n : {"r", "c2r"}) ASSERT_EQ(r.error(n), "") << n;
  EXPECT_EQ(r.tensor("r").dtype, DType::Complex32);
  EXPECT_EQ(r.tensor("c2r").dtype, DType::Float16);
}

TEST(FxSpectral, C2cWithoutDimsClonesTheLayout) {
  GraphText g;
  g.input("c", tensor({2, 3, 5}, "complex64", "cpu", json::array({1, 10, 2})))
      .call("f", "aten._fft_c2c.default", {node("c"), json::array(), 0, true});
  Ran r = run(g);
  ASSERT_EQ(r.error("f"), "");
  EXPECT_EQ(strs(r.tensor("f").strides), (Strs{"1", "10", "2"}));
}

TEST(FxSpectral, Errors) {
  GraphText g;
  g.input("x", tensor({2, 8}))
      .input("i", tensor({2, 8}, "int64"))
      .input("c", tensor({2, 5}, "complex64"))
      .input("e", tensor({2, 0}, "complex64", "cuda:0"))
      .input("s", tensor(json::array(), "complex64"))
      .call("int_r2c", "aten._fft_r2c.default", {node("i"), {1}, 0, true})
      .call("complex_r2c", "aten._fft_r2c.default", {node("c"), {1}, 0, true})
      .call("real_c2r", "aten._fft_c2r.default", {node("x"), {1}, 0, 8})
      .call("real_c2c", "aten._fft_c2c.default", {node("x"), {1}, 0, true})
      .call("no_dims", "aten._fft_r2c.default", {node("x"), json::array(), 0, true})
      .call("bad_dim", "aten._fft_c2r.default", {node("c"), {2}, 0, 8})
      .call("twice", "aten._fft_c2c.default", {node("c"), {1, -1}, 0, true})
      .call("scalar", "aten._fft_c2c.default", {node("s"), {0}, 0, true})
      .call("negative", "aten._fft_c2r.default", {node("c"), {1}, 0, -2})
      .call("empty_signal", "aten._fft_c2c.default", {node("e"), {1}, 0, true});
  Ran r = run(g);
  EXPECT_NE(r.error("int_r2c").find("expected a real floating point input, got torch.int64"), std::string::npos)
      << r.error("int_r2c");
  EXPECT_NE(r.error("complex_r2c").find("type_error"), std::string::npos) << r.error("complex_r2c");
  EXPECT_NE(r.error("real_c2r").find("expected a complex input, got torch.float32"), std::string::npos)
      << r.error("real_c2r");
  EXPECT_NE(r.error("real_c2c").find("expected a complex input"), std::string::npos) << r.error("real_c2c");
  EXPECT_NE(r.error("no_dims").find("at least one dimension"), std::string::npos) << r.error("no_dims");
  EXPECT_NE(r.error("bad_dim").find("Dimension out of range"), std::string::npos) << r.error("bad_dim");
  EXPECT_NE(r.error("twice").find("FFT dims must be unique"), std::string::npos) << r.error("twice");
  EXPECT_NE(r.error("scalar").find("no dimensions"), std::string::npos) << r.error("scalar");
  EXPECT_NE(r.error("negative").find("negative dimension"), std::string::npos) << r.error("negative");
  EXPECT_NE(r.error("empty_signal").find("cannot reshape tensor of 0 elements"), std::string::npos)
      << r.error("empty_signal");
}

}  // namespace
}  // namespace fakeprop::fx
