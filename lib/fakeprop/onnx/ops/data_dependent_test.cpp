// Data-dependent output sizes: a fresh unbacked symbol with the tightest
// sound range and its unbacked_bindings, or an exact fold when the values
// are known. Expected values follow the ONNX spec and python3-onnx's
// backend cases (nonzero.py, unique.py, compress.py, nonmaxsuppression.py).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>

#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::data_of;
using testing::dtype_of;
using testing::error_kinds;
using testing::find_value;
using testing::run;
using testing::shape_of;

using namespace testing::dtypes;

using Strings = std::vector<std::string>;
using Bindings = std::vector<std::pair<std::string, std::string>>;

// The range of dim `dim` of value `name` (which must be a symbol).
ValueRange range_of(const RunResult& r, const std::string& name, size_t dim) {
  const Value* v = find_value(r, name);
  if (!v || !v->is_tensor() || dim >= v->tensor->meta.sizes.size()) return ValueRange::exactly(-999);
  const SymInt& d = v->tensor->meta.sizes[dim];
  if (!d.is_symbolic()) return ValueRange::exactly(d.value());
  return r.env->info(d.expr()).range;
}

Bindings bindings_of(const RunResult& r, const std::string& node) {
  for (const auto& n : r.nodes)
    if (n.name == node) return n.unbacked_bindings.to_vector();
  return {{"<no node>", node}};
}

struct Expect {
  std::string value;
  Strings shape;
  std::optional<Strings> data = std::nullopt;
  std::optional<DType> dtype = std::nullopt;
  // Range of the unbacked dim at `range_dim` (when set).
  std::optional<size_t> range_dim = std::nullopt;
  ValueRange range = {};
};

struct Case {
  std::string name;
  int64_t opset;
  std::function<void(ModelBuilder&)> build;
  std::vector<Expect> expect;
  Bindings bindings = {};  // of node "n"
  std::string error_kind = "";
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

class DataDependentCase : public ::testing::TestWithParam<Case> {};

TEST_P(DataDependentCase, Infers) {
  const Case& c = GetParam();
  ModelBuilder b(c.opset);
  c.build(b);
  RunResult r = run(b);
  if (!c.error_kind.empty()) {
    EXPECT_EQ(error_kinds(r), Strings{c.error_kind});
    return;
  }
  for (const auto& e : r.errors)
    ADD_FAILURE() << "error at " << e.node << ": " << error_kind_name(e.kind) << ": " << e.message;
  for (const Expect& e : c.expect) {
    EXPECT_EQ(shape_of(r, e.value), e.shape) << e.value;
    if (e.data) {
      EXPECT_EQ(data_of(r, e.value), *e.data) << e.value;
    }
    if (e.dtype) {
      EXPECT_EQ(dtype_of(r, e.value), *e.dtype) << e.value;
    }
    if (e.range_dim) {
      const ValueRange got = range_of(r, e.value, *e.range_dim);
      EXPECT_EQ(got, e.range) << e.value << " dim " << *e.range_dim << ": " << got.to_string() << " vs "
                              << e.range.to_string();
    }
  }
  EXPECT_EQ(bindings_of(r, "n"), c.bindings);
}

Attribute strings_attr(const std::string& name, std::vector<std::string> xs) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::Strings;
  a.rare.get_or_create().strings = std::move(xs);
  return a;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // ---------------- NonZero ----------------
      {"NonZeroStaticInput", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 4});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       {{"y", {"2", "u0"}, std::nullopt, DType::Int64, 1, {0, 12}}},
       {{"u0", ".size()[1]"}}},
      {"NonZeroSymbolicInput", 13,
       [](ModelBuilder& b) {
         b.input("x", kBool, {"batch", 4});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       {{"y", {"2", "u0"}, std::nullopt, DType::Int64, 1, {0, kIntOo}}},
       {{"u0", ".size()[1]"}}},
      {"NonZeroScalar", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       // numel is 1, but a size-like symbol never learns an upper bound below 2
       // (PyTorch's _update_var_to_range), so the range reads [0, 2].
       {{"y", {"0", "u0"}, std::nullopt, DType::Int64, 1, {0, 2}}},
       {{"u0", ".size()[1]"}}},
      {"NonZeroFoldsKnownInput", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {2, 2}, {1, 0, 0, 3});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       {{"y", {"2", "2"}, Strings{"0", "1", "0", "1"}, DType::Int64}}},
      {"NonZeroFoldsFloatInput", 13,
       [](ModelBuilder& b) {
         b.initializer_floats({3}, "x", {0.0f, 2.5f, -1.0f});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       {{"y", {"1", "2"}, Strings{"1", "2"}}}},

      // ---------------- Unique ----------------
      {"UniqueFlattened", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 4});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n");
       },
       {{"y", {"u0"}, std::nullopt, DType::Float32, 0, {1, 12}},
        {"idx", {"u0"}, std::nullopt, DType::Int64},
        {"inv", {"12"}, std::nullopt, DType::Int64},
        {"cnt", {"u0"}, std::nullopt, DType::Int64}},
       {{"u0", "[0].size()[0]"}}},
      {"UniqueAlongAxis", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {5, 3});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n").attr_int("axis", 0).attr_int("sorted", 0);
       },
       {{"y", {"u0", "3"}, std::nullopt, std::nullopt, 0, {1, 5}}, {"inv", {"5"}}, {"cnt", {"u0"}}},
       {{"u0", "[0].size()[0]"}}},
      {"UniqueNegativeAxisSymbolic", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, "n"});
         b.node("Unique", {"x"}, {"y"}, "n").attr_int("axis", -1);
       },
       {{"y", {"2", "u0"}, std::nullopt, std::nullopt, 1, {0, kIntOo}}},
       {{"u0", ".size()[1]"}}},
      {"UniqueEmptyInput", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {0});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n");
       },
       {{"y", {"0"}}, {"inv", {"0"}}}},
      {"UniqueFoldsSorted", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {6}, {2, 1, 1, 3, 4, 3});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n");
       },
       {{"y", {"4"}, Strings{"1", "2", "3", "4"}},
        {"idx", {"4"}, Strings{"1", "0", "3", "4"}},
        {"inv", {"6"}, Strings{"1", "0", "0", "2", "3", "2"}},
        {"cnt", {"4"}, Strings{"2", "1", "2", "1"}}}},
      {"UniqueFoldsUnsorted", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {6}, {2, 1, 1, 3, 4, 3});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n").attr_int("sorted", 0);
       },
       {{"y", {"4"}, Strings{"2", "1", "3", "4"}},
        {"idx", {"4"}, Strings{"0", "1", "3", "4"}},
        {"inv", {"6"}, Strings{"0", "1", "1", "2", "3", "2"}},
        {"cnt", {"4"}, Strings{"1", "2", "2", "1"}}}},

      // ---------------- Compress ----------------
      {"CompressKnownConditionAxis0", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 2});
         b.initializer_ints("c", {3}, {0, 1, 1}, kBool);
         b.node("Compress", {"x", "c"}, {"y"}, "n").attr_int("axis", 0);
       },
       {{"y", {"2", "2"}}}},
      {"CompressFoldsData", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {3, 2}, {1, 2, 3, 4, 5, 6});
         b.initializer_ints("c", {2}, {0, 1}, kBool);
         b.node("Compress", {"x", "c"}, {"y"}, "n").attr_int("axis", 1);
       },
       {{"y", {"3", "1"}, Strings{"2", "4", "6"}}}},
      {"CompressShortConditionFlattened", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {3, 2}, {1, 2, 3, 4, 5, 6});
         b.initializer_ints("c", {3}, {1, 0, 1}, kBool);
         b.node("Compress", {"x", "c"}, {"y"}, "n");
       },
       {{"y", {"2"}, Strings{"1", "3"}}}},
      {"CompressUnknownConditionAxis1", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 2});
         b.input("c", kBool, {2});
         b.node("Compress", {"x", "c"}, {"y"}, "n").attr_int("axis", 1);
       },
       {{"y", {"3", "u0"}, std::nullopt, DType::Float32, 1, {0, 2}}},
       {{"u0", ".size()[1]"}}},
      {"CompressUnknownConditionFlattened", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 2});
         b.input("c", kBool, {5});
         b.node("Compress", {"x", "c"}, {"y"}, "n");
       },
       {{"y", {"u0"}, std::nullopt, std::nullopt, 0, {0, 5}}},
       {{"u0", ".size()[0]"}}},
      {"CompressConditionSelectsPastEnd", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2});
         b.initializer_ints("c", {3}, {0, 0, 1}, kBool);
         b.node("Compress", {"x", "c"}, {"y"}, "n").attr_int("axis", 0);
       },
       {},
       {},
       "index_error"},

      // ---------------- NonMaxSuppression ----------------
      {"NonMaxSuppressionBounded", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {1, 6, 4});
         b.input("scores", kFloat, {1, 1, 6});
         b.initializer_ints("m", {1}, {3});
         b.node("NonMaxSuppression", {"boxes", "scores", "m"}, {"y"}, "n");
       },
       {{"y", {"u0", "3"}, std::nullopt, DType::Int64, 0, {0, 3}}},
       {{"u0", ".size()[0]"}}},
      {"NonMaxSuppressionBoundedByBoxes", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {2, 6, 4});
         b.input("scores", kFloat, {2, 3, 6});
         b.initializer_ints("m", {1}, {100});
         b.node("NonMaxSuppression", {"boxes", "scores", "m"}, {"y"}, "n");
       },
       {{"y", {"u0", "3"}, std::nullopt, std::nullopt, 0, {0, 36}}},
       {{"u0", ".size()[0]"}}},
      {"NonMaxSuppressionSymbolicBoxes", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {2, "k", 4});
         b.input("scores", kFloat, {2, 3, "k"});
         b.initializer_ints("m", {1}, {10});
         b.node("NonMaxSuppression", {"boxes", "scores", "m"}, {"y"}, "n");
       },
       {{"y", {"u0", "3"}, std::nullopt, std::nullopt, 0, {0, 60}}},
       {{"u0", ".size()[0]"}}},
      {"NonMaxSuppressionWithoutMax", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {1, 6, 4});
         b.input("scores", kFloat, {1, 1, 6});
         b.node("NonMaxSuppression", {"boxes", "scores"}, {"y"}, "n");
       },
       {{"y", {"0", "3"}, std::nullopt, DType::Int64}}},
      {"NonMaxSuppressionMismatch", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {1, 6, 4});
         b.input("scores", kFloat, {2, 1, 6});
         b.node("NonMaxSuppression", {"boxes", "scores"}, {"y"}, "n");
       },
       {},
       {},
       "shape_mismatch"},

      // ---------------- string and text ops ----------------
      {"StringNormalizerStopwords", 10,
       [](ModelBuilder& b) {
         b.input("x", kString, {4});
         b.node("StringNormalizer", {"x"}, {"y"}, "n");
         b.graph().nodes.back().attributes.push_back(strings_attr("stopwords", {"monday"}));
       },
       {{"y", {"u0"}, std::nullopt, DType::String, 0, {1, 4}}},
       {{"u0", ".size()[0]"}}},
      {"StringNormalizerTwoDimNoStopwords", 10,
       [](ModelBuilder& b) {
         b.input("x", kString, {1, 4});
         b.node("StringNormalizer", {"x"}, {"y"}, "n").attr_string("case_change_action", "UPPER");
       },
       {{"y", {"1", "4"}, std::nullopt, DType::String}}},
      {"TfIdfVectorizerBatched", 9,
       [](ModelBuilder& b) {
         b.input("x", kInt64, {2, 6});
         b.node("TfIdfVectorizer", {"x"}, {"y"}, "n")
             .attr_ints("ngram_indexes", {0, 1, 2, 3, 4, 5, 6})
             .attr_ints("ngram_counts", {0, 4})
             .attr_ints("pool_int64s", {2, 3, 5, 4, 5, 6, 7, 8, 6, 7})
             .attr_int("min_gram_length", 2)
             .attr_int("max_gram_length", 2)
             .attr_int("max_skip_count", 0)
             .attr_string("mode", "TF");
       },
       {{"y", {"2", "7"}, std::nullopt, DType::Float32}}},
      {"StringSplitMaxsplit", 20,
       [](ModelBuilder& b) {
         b.input("x", kString, {2, "n"});
         b.node("StringSplit", {"x"}, {"y", "z"}, "n").attr_int("maxsplit", 2);
       },
       {{"y", {"2", "n", "u0"}, std::nullopt, DType::String, 2, {0, 3}}, {"z", {"2", "n"}, std::nullopt, DType::Int64}},
       {{"u0", "[0].size()[2]"}}},
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, DataDependentCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// Downstream of an unbacked size: shapes stay symbolic in u0.
TEST(DataDependentFlow, NonZeroFeedsShapeOps) {
  ModelBuilder b(13);
  b.input("x", kFloat, {3, 4});
  b.node("NonZero", {"x"}, {"nz"}, "n");
  b.node("Transpose", {"nz"}, {"t"});
  b.node("Shape", {"t"}, {"s"});
  b.initializer_ints("i", {}, {0});
  b.node("Gather", {"s", "i"}, {"count"});
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "t"), (Strings{"u0", "2"}));
  EXPECT_EQ(data_of(r, "count"), Strings{"u0"});
}

TEST(DataDependentFlow, CompressWithKnownConditionNeedsNoSymbol) {
  ModelBuilder b(11);
  b.input("x", kFloat, {"n", 3});
  b.initializer_ints("c", {2}, {1, 1}, kBool);
  b.node("Compress", {"x", "c"}, {"y"}, "n").attr_int("axis", 0);
  InferOptions o;
  o.input_hints = {{"x", {4, 3}}};
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty());
  // n >= 2 is known from its range, so both selected rows exist.
  EXPECT_EQ(shape_of(r, "y"), (Strings{"2", "3"}));
  EXPECT_TRUE(bindings_of(r, "n").empty());
}

}  // namespace
}  // namespace fakeprop::onnx
