#include "fakeprop/tensor/tensor_meta.h"

#include <gtest/gtest.h>

#include <vector>

#include "fakeprop/sym/shape_env.h"
#include "fakeprop/tensor/oracle_test_util.h"

namespace fakeprop {
namespace {

using nlohmann::json;

TensorMeta make_tensor(const json& shape, const json& stride, Device device = Device::cpu()) {
  TensorMeta t;
  t.sizes = oracle::shape(shape);
  t.strides = oracle::shape(stride);
  t.device = device;
  return t;
}

// ---- static layouts against torch ----

TEST(TensorMetaLayout, Oracle) {
  const json doc = oracle::load("layouts.json");
  ShapeEnv env;
  size_t compared = 0;
  for (const json& c : doc["layouts"]) {
    SCOPED_TRACE(c.dump());
    const TensorMeta t = make_tensor(c["shape"], c["stride"]);
    EXPECT_EQ(is_contiguous(t, env), c["is_contiguous"]["expected"].get<bool>());
    EXPECT_EQ(is_channels_last_contiguous(t, env), c["is_channels_last_contiguous"]["expected"].get<bool>());
    EXPECT_EQ(is_non_overlapping_and_dense(t, env), c["is_non_overlapping_and_dense"]["expected"].get<bool>());
    EXPECT_EQ(memory_format_name(suggest_memory_format(t, env)),
              c["suggest_memory_format"]["expected"].get<std::string>());
    EXPECT_EQ(oracle::to_json(contiguous_strides(t.sizes)), c["contiguous_strides"]["expected"]);
    EXPECT_EQ(oracle::to_json(strides_for(t.sizes, MemoryFormat::Contiguous)), c["contiguous_strides"]["expected"]);
    if (c.contains("channels_last_strides")) {
      EXPECT_EQ(oracle::to_json(channels_last_strides(t.sizes)), c["channels_last_strides"]["expected"]);
      const MemoryFormat cl = t.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
      EXPECT_EQ(oracle::to_json(strides_for(t.sizes, cl)), c["channels_last_strides"]["expected"]);
    }
    EXPECT_EQ(oracle::to_json(empty_like_strides(t, env)), c["empty_like_strides"]["expected"]);
    ++compared;
  }
  EXPECT_GE(compared, 60u);
  oracle::report_count("layout", compared);
  EXPECT_TRUE(env.guards().empty());
}

TEST(TensorMetaLayout, ChannelsLastNeedsRank4Or5) {
  const SymShape three = {2, 3, 4};
  EXPECT_THROW(channels_last_strides(three), OpError);
  EXPECT_THROW(strides_for(three, MemoryFormat::ChannelsLast), OpError);
  const SymShape four = {2, 3, 4, 5};
  EXPECT_THROW(strides_for(four, MemoryFormat::ChannelsLast3d), OpError);
  EXPECT_THROW(strides_for(four, MemoryFormat::Preserve), Error);
}

TEST(TensorMetaLayout, MemoryFormatNames) {
  EXPECT_EQ(memory_format_name(MemoryFormat::Contiguous), "torch.contiguous_format");
  EXPECT_EQ(memory_format_name(MemoryFormat::ChannelsLast), "torch.channels_last");
  EXPECT_EQ(memory_format_name(MemoryFormat::ChannelsLast3d), "torch.channels_last_3d");
  EXPECT_EQ(memory_format_name(MemoryFormat::Preserve), "torch.preserve_format");
}

TEST(TensorMetaLayout, StridesLikeWithOtherSizes) {
  ShapeEnv env;
  // A transposed [3, 4] (strides 1, 3): a [5, 4] laid out the same way.
  TensorMeta like;
  like.sizes = {3, 4};
  like.strides = {1, 3};
  const SymShape sizes = {5, 4};
  EXPECT_EQ(oracle::to_json(strides_like(like, sizes, env)), json::parse("[1, 5]"));
  // A different rank has no layout to follow.
  const SymShape rank3 = {2, 3, 4};
  EXPECT_EQ(oracle::to_json(strides_like(like, rank3, env)), json::parse("[12, 4, 1]"));
}

// clone / _to_copy (C++ empty_like) keep a dense input's strides, where
// empty_like / zeros_like (torch._refs.empty_like) recompute them; measured
// with torch 2.15's FakeTensorMode.
TEST(TensorMetaLayout, CloneKeepsDenseStridesEmptyLikeDoesNot) {
  struct Case {
    const char* shape;
    const char* stride;
    const char* clone;
    const char* empty_like;
  };
  const Case cases[] = {
      {"[1, 3, 4, 1]", "[12, 4, 1, 4]", "[12, 4, 1, 4]", "[12, 4, 1, 1]"},
      {"[2, 3, 1, 1]", "[3, 1, 3, 3]", "[3, 1, 3, 3]", "[3, 1, 3, 3]"},
      {"[1]", "[7]", "[7]", "[1]"},
      {"[2, 0, 3]", "[1, 6, 2]", "[1, 6, 2]", "[3, 3, 1]"},
      {"[4, 3]", "[1, 4]", "[1, 4]", "[1, 4]"},
      {"[4, 3]", "[6, 1]", "[3, 1]", "[3, 1]"},
  };
  ShapeEnv env;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.shape) + " " + c.stride);
    const TensorMeta t = make_tensor(json::parse(c.shape), json::parse(c.stride));
    EXPECT_EQ(oracle::to_json(strides_like(t, t.sizes, env)), json::parse(c.clone));
    EXPECT_EQ(oracle::to_json(empty_like_strides(t, env)), json::parse(c.empty_like));
  }
}

TEST(TensorMetaLayout, Numel) {
  TensorMeta t;
  t.sizes = {2, 3, 4};
  EXPECT_EQ(t.numel().value(), 24);
  t.sizes = {};
  EXPECT_EQ(t.numel().value(), 1);
  t.sizes = {5, 0, 7};
  EXPECT_EQ(t.numel().value(), 0);
  t.sizes = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_THROW(t.numel(), OverflowError);
}

// ---- elementwise output strides against torch ----

TEST(TensorMetaElementwise, Oracle) {
  const json doc = oracle::load("elementwise_strides.json");
  ShapeEnv env;
  size_t compared = 0;
  for (const json& c : doc["cases"]) {
    SCOPED_TRACE(c.dump());
    std::vector<TensorMeta> tensors;
    for (const json& op : c["operands"]) {
      tensors.push_back(make_tensor(op["shape"], op["stride"], Device::parse(op["device"].get<std::string>()).value()));
    }
    std::vector<const TensorMeta*> operands;
    for (const TensorMeta& t : tensors) operands.push_back(&t);
    const SymShape out_shape = oracle::shape(c["out_shape"]);
    EXPECT_EQ(oracle::to_json(elementwise_permuted_strides(operands, out_shape, env)), c["expected"]);
    ++compared;
  }
  EXPECT_GE(compared, 60u);
  oracle::report_count("elementwise output strides", compared);
  EXPECT_TRUE(env.guards().empty());
}

// Static shapes run the refs' meta kernels (permuted); add/sub/mul/div take
// FakeTensor's fast path only when an input is symbolic; the decomposition
// rules' elementwise_output_strides short-cuts on layouts, then keeps a lone
// dense operand's strides.
TEST(TensorMetaElementwise, PathsDiffer) {
  struct Case {
    std::vector<std::pair<const char*, const char*>> operands;
    const char* out;
    const char* permuted;
    const char* fast;  // nullptr: falls back to the ref
    const char* output_strides;
  };
  const Case cases[] = {
      {{{"[2, 3, 1, 1]", "[3, 1, 1, 1]"}, {"[2, 3, 1, 1]", "[3, 1, 3, 3]"}}, "[2, 3, 1, 1]", "[3, 1, 3, 3]",
       "[3, 1, 1, 1]", "[3, 1, 1, 1]"},
      {{{"[2, 1, 4, 5]", "[20, 20, 5, 1]"}, {"[2, 1, 4, 5]", "[20, 40, 5, 1]"}}, "[2, 1, 4, 5]", "[20, 40, 5, 1]",
       "[20, 20, 5, 1]", "[20, 20, 5, 1]"},
      {{{"[1, 3, 4, 1]", "[12, 4, 1, 4]"}}, "[1, 3, 4, 1]", "[12, 4, 1, 1]", "[12, 4, 1, 1]", "[12, 4, 1, 1]"},
      {{{"[2, 3, 4]", "[1, 2, 6]"}}, "[2, 3, 4]", "[1, 2, 6]", nullptr, "[1, 2, 6]"},
      {{{"[4, 3]", "[1, 4]"}, {"[3]", "[1]"}}, "[4, 3]", "[1, 4]", nullptr, "[1, 4]"},
      {{{"[4, 1]", "[1, 1]"}, {"[3]", "[1]"}}, "[4, 3]", "[3, 1]", nullptr, "[3, 1]"},
  };
  ShapeEnv env;
  for (const Case& c : cases) {
    std::vector<TensorMeta> tensors;
    for (const auto& [shape, stride] : c.operands) tensors.push_back(make_tensor(json::parse(shape), json::parse(stride)));
    std::vector<const TensorMeta*> operands;
    for (const TensorMeta& t : tensors) operands.push_back(&t);
    SCOPED_TRACE(c.permuted);
    const SymShape out = oracle::shape(json::parse(c.out));
    EXPECT_EQ(oracle::to_json(elementwise_permuted_strides(operands, out, env)), json::parse(c.permuted));
    const std::optional<SymShape> fast = fast_binary_strides(operands, out, env);
    EXPECT_EQ(fast.has_value(), c.fast != nullptr);
    if (fast && c.fast) {
      EXPECT_EQ(oracle::to_json(*fast), json::parse(c.fast));
    }
    EXPECT_EQ(oracle::to_json(elementwise_output_strides(operands, out, env)), json::parse(c.output_strides));
  }
}

TEST(TensorMetaElementwise, CpuScalarsAndRankZero) {
  ShapeEnv env;
  TensorMeta scalar;  // CPU zero-dim: left out
  TensorMeta cuda_scalar;
  cuda_scalar.device = Device::cuda();
  const std::vector<const TensorMeta*> only_scalars = {&scalar, nullptr};
  EXPECT_TRUE(elementwise_output_strides(only_scalars, {}, env).empty());
  const SymShape shape = {2, 3};
  EXPECT_EQ(oracle::to_json(elementwise_output_strides(only_scalars, shape, env)), json::parse("[3, 1]"));
  const std::vector<const TensorMeta*> cuda = {&cuda_scalar};
  EXPECT_TRUE(elementwise_output_strides(cuda, {}, env).empty());
}

// ---- broadcasting, devices, dims against torch ----

TEST(TensorMetaBroadcast, Oracle) {
  const json doc = oracle::load("shapes.json");
  ShapeEnv env;
  size_t compared = 0;
  for (const json& c : doc["broadcast"]) {
    SCOPED_TRACE(c.dump());
    std::vector<SymShape> shapes;
    for (const json& s : c["shapes"]) shapes.push_back(oracle::shape(s));
    if (c["expected"].contains("error")) {
      try {
        broadcast_shapes(shapes, env);
        ADD_FAILURE() << "no error";
      } catch (const OpError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::ShapeMismatch);
        EXPECT_EQ(e.what(), c["expected"]["error"].get<std::string>());
      }
    } else {
      EXPECT_EQ(oracle::to_json(broadcast_shapes(shapes, env)), c["expected"]["value"]);
      if (shapes.size() == 2) {
        EXPECT_EQ(oracle::to_json(broadcast_shapes(shapes[0], shapes[1], env)), c["expected"]["value"]);
      }
    }
    ++compared;
  }
  oracle::report_count("broadcast", compared);
  EXPECT_GE(compared, 20u);
}

TEST(TensorMetaDevice, Oracle) {
  const json doc = oracle::load("shapes.json");
  size_t compared = 0;
  for (const json& c : doc["devices"]) {
    SCOPED_TRACE(c.dump());
    std::vector<TensorMeta> tensors;
    for (const json& op : c["operands"]) {
      TensorMeta t;
      t.device = Device::parse(op[0].get<std::string>()).value();
      t.sizes.assign(op[1].get<size_t>(), SymInt(2));
      tensors.push_back(t);
    }
    std::vector<const TensorMeta*> operands;
    for (const TensorMeta& t : tensors) operands.push_back(&t);
    const std::string op = c["op"];
    if (c["expected"].contains("error")) {
      try {
        common_device(operands, op);
        ADD_FAILURE() << "no error";
      } catch (const OpError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::DeviceMismatch);
        EXPECT_EQ(e.what(), c["expected"]["error"].get<std::string>());
      }
    } else {
      EXPECT_EQ(common_device(operands, op).str(), c["expected"]["value"].get<std::string>());
    }
    ++compared;
  }
  oracle::report_count("device", compared);
  EXPECT_GE(compared, 40u);
  EXPECT_EQ(common_device({}, "aten.add.Tensor"), Device::cpu());
}

TEST(TensorMetaDims, Oracle) {
  const json doc = oracle::load("shapes.json");
  size_t compared = 0;
  for (const json& c : doc["canonical_dim"]) {
    SCOPED_TRACE(c.dump());
    const int64_t rank = c["rank"], dim = c["dim"];
    const bool wrap = c["wrap_scalar"];
    if (c["expected"].contains("error")) {
      try {
        canonical_dim(dim, rank, wrap);
        ADD_FAILURE() << "no error";
      } catch (const OpError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::IndexError);
        EXPECT_EQ(e.what(), c["expected"]["error"].get<std::string>());
      }
    } else {
      EXPECT_EQ(canonical_dim(dim, rank, wrap), c["expected"]["value"].get<int64_t>());
    }
    ++compared;
  }
  oracle::report_count("canonical_dim", compared);
  // Extreme values must not overflow while wrapping.
  EXPECT_THROW(canonical_dim(INT64_MIN, 3), OpError);
  EXPECT_THROW(canonical_dim(INT64_MAX, 3), OpError);
  EXPECT_EQ(canonical_dim(-1, INT64_MAX), INT64_MAX - 1);
}

TEST(TensorMetaShape, ToStringStatic) {
  EXPECT_EQ(shape_to_string(SymShape{}), "[]");
  EXPECT_EQ(shape_to_string(SymShape{2, 3}), "[2, 3]");
  EXPECT_EQ(shape_to_string(SymShape{-1}), "[-1]");
}

}  // namespace
}  // namespace fakeprop
