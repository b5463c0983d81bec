// Data-dependent output sizes: a fresh unbacked symbol with the tightest
// sound range and its unbacked_bindings, or an exact fold when the values
// are known. Expected values follow the ONNX spec and python3-onnx's
// backend cases (nonzero.py, unique.py, compress.py, nonmaxsuppression.py).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fakeprop/onnx/ops/rule_case_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::bindings_of;
using testing::Bindings;
using testing::data_of;
using testing::RuleCase;
using testing::run;
using testing::shape_of;

using namespace testing::dtypes;

using Strings = std::vector<std::string>;

// A case whose node "n" binds exactly `bindings` (none when left empty).
RuleCase dd_case(std::string name, int64_t opset, std::function<void(ModelBuilder&)> build,
            std::vector<testing::RuleExpect> expect, Bindings bindings = {}, std::string error_kind = "") {
  RuleCase c{std::move(name), opset, std::move(build), std::move(expect), std::move(error_kind)};
  c.bindings = std::move(bindings);
  return c;
}

class DataDependentCase : public ::testing::TestWithParam<RuleCase> {};

TEST_P(DataDependentCase, Infers) { testing::check_rule_case(GetParam()); }

Attribute strings_attr(const std::string& name, std::vector<std::string> xs) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::Strings;
  a.rare.get_or_create().strings = std::move(xs);
  return a;
}

const std::vector<RuleCase>& cases() {
  static const std::vector<RuleCase> all = {
      // ---------------- NonZero ----------------
      dd_case("NonZeroStaticInput", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 4});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       {{"y", {"2", "u0"}, std::nullopt, DType::Int64, 1, {0, 12}}},
       {{"u0", ".size()[1]"}}),
      dd_case("NonZeroSymbolicInput", 13,
       [](ModelBuilder& b) {
         b.input("x", kBool, {"batch", 4});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       {{"y", {"2", "u0"}, std::nullopt, DType::Int64, 1, {0, kIntOo}}},
       {{"u0", ".size()[1]"}}),
      dd_case("NonZeroScalar", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       // numel is 1: _constrain_range_for_size narrows to [0, 1] before it
       // marks the symbol size-like (only later narrowing stops at 2).
       {{"y", {"0", "u0"}, std::nullopt, DType::Int64, 1, {0, 1}}},
       {{"u0", ".size()[1]"}}),
      dd_case("NonZeroFoldsKnownInput", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {2, 2}, {1, 0, 0, 3});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       {{"y", {"2", "2"}, Strings{"0", "1", "0", "1"}, DType::Int64}}),
      dd_case("NonZeroFoldsFloatInput", 13,
       [](ModelBuilder& b) {
         b.initializer_floats({3}, "x", {0.0f, 2.5f, -1.0f});
         b.node("NonZero", {"x"}, {"y"}, "n");
       },
       {{"y", {"1", "2"}, Strings{"1", "2"}}}),

      // ---------------- Unique ----------------
      dd_case("UniqueFlattened", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 4});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n");
       },
       {{"y", {"u0"}, std::nullopt, DType::Float32, 0, {1, 12}},
        {"idx", {"u0"}, std::nullopt, DType::Int64},
        {"inv", {"12"}, std::nullopt, DType::Int64},
        {"cnt", {"u0"}, std::nullopt, DType::Int64}},
       {{"u0", "[0].size()[0]"}}),
      dd_case("UniqueAlongAxis", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {5, 3});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n").attr_int("axis", 0).attr_int("sorted", 0);
       },
       {{"y", {"u0", "3"}, std::nullopt, std::nullopt, 0, {1, 5}}, {"inv", {"5"}}, {"cnt", {"u0"}}},
       {{"u0", "[0].size()[0]"}}),
      dd_case("UniqueNegativeAxisSymbolic", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, "n"});
         b.node("Unique", {"x"}, {"y"}, "n").attr_int("axis", -1);
       },
       {{"y", {"2", "u0"}, std::nullopt, std::nullopt, 1, {0, kIntOo}}},
       {{"u0", ".size()[1]"}}),
      dd_case("UniqueEmptyInput", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {0});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n");
       },
       {{"y", {"0"}}, {"inv", {"0"}}}),
      dd_case("UniqueFoldsSorted", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {6}, {2, 1, 1, 3, 4, 3});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n");
       },
       {{"y", {"4"}, Strings{"1", "2", "3", "4"}},
        {"idx", {"4"}, Strings{"1", "0", "3", "4"}},
        {"inv", {"6"}, Strings{"1", "0", "0", "2", "3", "2"}},
        {"cnt", {"4"}, Strings{"2", "1", "2", "1"}}}),
      dd_case("UniqueFoldsUnsorted", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {6}, {2, 1, 1, 3, 4, 3});
         b.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"}, "n").attr_int("sorted", 0);
       },
       {{"y", {"4"}, Strings{"2", "1", "3", "4"}},
        {"idx", {"4"}, Strings{"0", "1", "3", "4"}},
        {"inv", {"6"}, Strings{"0", "1", "1", "2", "3", "2"}},
        {"cnt", {"4"}, Strings{"1", "2", "2", "1"}}}),

      // ---------------- Compress ----------------
      dd_case("CompressKnownConditionAxis0", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 2});
         b.initializer_ints("c", {3}, {0, 1, 1}, kBool);
         b.node("Compress", {"x", "c"}, {"y"}, "n").attr_int("axis", 0);
       },
       {{"y", {"2", "2"}}}),
      dd_case("CompressFoldsData", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {3, 2}, {1, 2, 3, 4, 5, 6});
         b.initializer_ints("c", {2}, {0, 1}, kBool);
         b.node("Compress", {"x", "c"}, {"y"}, "n").attr_int("axis", 1);
       },
       {{"y", {"3", "1"}, Strings{"2", "4", "6"}}}),
      dd_case("CompressShortConditionFlattened", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {3, 2}, {1, 2, 3, 4, 5, 6});
         b.initializer_ints("c", {3}, {1, 0, 1}, kBool);
         b.node("Compress", {"x", "c"}, {"y"}, "n");
       },
       {{"y", {"2"}, Strings{"1", "3"}}}),
      dd_case("CompressUnknownConditionAxis1", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 2});
         b.input("c", kBool, {2});
         b.node("Compress", {"x", "c"}, {"y"}, "n").attr_int("axis", 1);
       },
       {{"y", {"3", "u0"}, std::nullopt, DType::Float32, 1, {0, 2}}},
       {{"u0", ".size()[1]"}}),
      dd_case("CompressUnknownConditionFlattened", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 2});
         b.input("c", kBool, {5});
         b.node("Compress", {"x", "c"}, {"y"}, "n");
       },
       {{"y", {"u0"}, std::nullopt, std::nullopt, 0, {0, 5}}},
       {{"u0", ".size()[0]"}}),
      dd_case("CompressConditionSelectsPastEnd", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2});
         b.initializer_ints("c", {3}, {0, 0, 1}, kBool);
         b.node("Compress", {"x", "c"}, {"y"}, "n").attr_int("axis", 0);
       },
       {},
       {},
       "index_error"),

      // ---------------- NonMaxSuppression ----------------
      dd_case("NonMaxSuppressionBounded", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {1, 6, 4});
         b.input("scores", kFloat, {1, 1, 6});
         b.initializer_ints("m", {1}, {3});
         b.node("NonMaxSuppression", {"boxes", "scores", "m"}, {"y"}, "n");
       },
       {{"y", {"u0", "3"}, std::nullopt, DType::Int64, 0, {0, 3}}},
       {{"u0", ".size()[0]"}}),
      dd_case("NonMaxSuppressionBoundedByBoxes", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {2, 6, 4});
         b.input("scores", kFloat, {2, 3, 6});
         b.initializer_ints("m", {1}, {100});
         b.node("NonMaxSuppression", {"boxes", "scores", "m"}, {"y"}, "n");
       },
       {{"y", {"u0", "3"}, std::nullopt, std::nullopt, 0, {0, 36}}},
       {{"u0", ".size()[0]"}}),
      dd_case("NonMaxSuppressionSymbolicBoxes", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {2, "k", 4});
         b.input("scores", kFloat, {2, 3, "k"});
         b.initializer_ints("m", {1}, {10});
         b.node("NonMaxSuppression", {"boxes", "scores", "m"}, {"y"}, "n");
       },
       {{"y", {"u0", "3"}, std::nullopt, std::nullopt, 0, {0, 60}}},
       {{"u0", ".size()[0]"}}),
      dd_case("NonMaxSuppressionWithoutMax", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {1, 6, 4});
         b.input("scores", kFloat, {1, 1, 6});
         b.node("NonMaxSuppression", {"boxes", "scores"}, {"y"}, "n");
       },
       {{"y", {"0", "3"}, std::nullopt, DType::Int64}}),
      dd_case("NonMaxSuppressionMismatch", 11,
       [](ModelBuilder& b) {
         b.input("boxes", kFloat, {1, 6, 4});
         b.input("scores", kFloat, {2, 1, 6});
         b.node("NonMaxSuppression", {"boxes", "scores"}, {"y"}, "n");
       },
       {},
       {},
       "shape_mismatch"),

      // ---------------- string and text ops ----------------
      dd_case("StringNormalizerStopwords", 10,
       [](ModelBuilder& b) {
         b.input("x", kString, {4});
         b.node("StringNormalizer", {"x"}, {"y"}, "n");
         b.graph().nodes.back().attributes.push_back(strings_attr("stopwords", {"monday"}));
       },
       {{"y", {"u0"}, std::nullopt, DType::String, 0, {1, 4}}},
       {{"u0", ".size()[0]"}}),
      dd_case("StringNormalizerTwoDimNoStopwords", 10,
       [](ModelBuilder& b) {
         b.input("x", kString, {1, 4});
         b.node("StringNormalizer", {"x"}, {"y"}, "n").attr_string("case_change_action", "UPPER");
       },
       {{"y", {"1", "4"}, std::nullopt, DType::String}}),
      dd_case("TfIdfVectorizerBatched", 9,
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
       {{"y", {"2", "7"}, std::nullopt, DType::Float32}}),
      dd_case("StringSplitMaxsplit", 20,
       [](ModelBuilder& b) {
         b.input("x", kString, {2, "n"});
         b.node("StringSplit", {"x"}, {"y", "z"}, "n").attr_int("maxsplit", 2);
       },
       {{"y", {"2", "n", "u0"}, std::nullopt, DType::String, 2, {0, 3}}, {"z", {"2", "n"}, std::nullopt, DType::Int64}},
       {{"u0", "[0].size()[2]"}}),
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, DataDependentCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<RuleCase>& info) { return info.param.name; });

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
