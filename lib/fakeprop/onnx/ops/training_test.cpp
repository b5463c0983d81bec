// ai.onnx.preview.training rules. ONNX Runtime has no kernels for this
// domain; each expected shape and type is what onnx 1.23's shape inference
// and its reference evaluator (Adagrad, Adam, Momentum) give for the same
// node, and the error cases are ones onnx's inference or schema refuses.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "fakeprop/onnx/model_test_util.h"
#include "fakeprop/onnx/ops/rule_case_test_util.h"

namespace fakeprop::onnx {
namespace {

using namespace testing::dtypes;
using Strings = std::vector<std::string>;
using Build = std::function<void(ModelBuilder&)>;
using Case = testing::RuleCase;

constexpr const char* kTraining = "ai.onnx.preview.training";

class TrainingCase : public ::testing::TestWithParam<Case> {};

TEST_P(TrainingCase, Infers) {
  Case c = GetParam();
  c.build = [build = GetParam().build](ModelBuilder& b) {
    b.opset(kTraining, 1);
    build(b);
  };
  testing::check_rule_case(c);
}

// An optimizer node "n" over R (float scalar), T (int64 scalar) and the
// named tensors, declared [name, dtype, dims] by `tensors`.
struct Tensor {
  std::string name;
  int32_t dtype;
  std::vector<ModelBuilder::DimSpec> dims;
};
Build optimizer(const std::string& op, std::vector<Tensor> tensors, Strings outputs, Build attrs = [](ModelBuilder&) {},
                int32_t r_type = kFloat, int32_t t_type = kInt64) {
  return [=](ModelBuilder& b) {
    b.input("R", r_type, {}).input("T", t_type, {});
    Strings inputs = {"R", "T"};
    for (const Tensor& t : tensors) {
      b.input(t.name, t.dtype, t.dims);
      inputs.push_back(t.name);
    }
    b.node(op, inputs, outputs, "n", kTraining);
    attrs(b);
  };
}

Build momentum_attrs() {
  return [](ModelBuilder& b) {
    b.attr_float("alpha", 0.9f).attr_float("beta", 0.1f).attr_float("norm_coefficient", 0).attr_string("mode", "standard");
  };
}

Build gradient(Strings inputs, Strings outputs, Strings xs, Strings zs, std::vector<int32_t> dtypes) {
  return [=](ModelBuilder& b) {
    for (size_t i = 0; i < inputs.size(); ++i) b.input(inputs[i], dtypes[i], {"N", static_cast<int64_t>(i + 2)});
    b.node("Gradient", inputs, outputs, "n", kTraining).attr_strings("xs", xs).attr_string("y", "loss");
    if (!zs.empty()) b.attr_strings("zs", zs);
  };
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // Two optimized tensors: [X1, X2, G1, G2, H1, H2] -> [X1', X2', H1', H2'].
      {"adagrad_two_tensors", 18,
       optimizer("Adagrad",
                 {{"x1", kFloat, {3, 4}}, {"x2", kFloat, {"N"}}, {"g1", kFloat, {3, 4}}, {"g2", kFloat, {"N"}},
                  {"h1", kFloat, {3, 4}}, {"h2", kFloat, {"N"}}},
                 {"x1n", "x2n", "h1n", "h2n"}),
       {{"x1n", {"3", "4"}, std::nullopt, DType::Float32},
        {"x2n", {"N"}},
        {"h1n", {"3", "4"}},
        {"h2n", {"N"}}}},
      // [X, G, V, H] -> [X', V', H'], in double.
      {"adam_double", 18,
       optimizer("Adam",
                 {{"x", kDouble, {"A", 5}}, {"g", kDouble, {"A", 5}}, {"v", kDouble, {"A", 5}}, {"h", kDouble, {"A", 5}}},
                 {"xn", "vn", "hn"}, [](ModelBuilder&) {}, kDouble),
       {{"xn", {"A", "5"}, std::nullopt, DType::Float64}, {"vn", {"A", "5"}}, {"hn", {"A", "5"}}}},
      // Each new state has its own input's shape (G broadcasts onto X, as onnx's reference computes it).
      {"adam_state_shapes_follow_their_inputs", 18,
       optimizer("Adam", {{"x", kFloat, {3, 4}}, {"g", kFloat, {4}}, {"v", kFloat, {3, 4}}, {"h", kFloat, {1, 4}}},
                 {"xn", "vn", "hn"}),
       {{"xn", {"3", "4"}}, {"vn", {"3", "4"}}, {"hn", {"1", "4"}}}},
      {"momentum_two_tensors_new_momenta", 18,
       optimizer("Momentum",
                 {{"x1", kFloat, {2}}, {"x2", kFloat, {7, 7}}, {"g1", kFloat, {2}}, {"g2", kFloat, {7, 7}},
                  {"v1", kFloat, {2}}, {"v2", kFloat, {7, 7}}},
                 {"x1n", "x2n", "v1n", "v2n"}, momentum_attrs()),
       {{"x1n", {"2"}}, {"x2n", {"7", "7"}}, {"v1n", {"2"}}, {"v2n", {"7", "7"}}}},
      {"momentum_outputs_may_be_omitted", 18,
       optimizer("Momentum", {{"x", kFloat, {2}}, {"g", kFloat, {2}}, {"v", kFloat, {"K"}}}, {"", "vn"}, momentum_attrs()),
       {{"vn", {"K"}}}},
      {"momentum_inputs_not_in_threes", 18,
       optimizer("Momentum", {{"x", kFloat, {2}}, {"g", kFloat, {2}}}, {"xn"}, momentum_attrs()), {}, "input_count"},
      {"adam_too_many_outputs", 18,
       optimizer("Adam", {{"x", kFloat, {2}}, {"g", kFloat, {2}}, {"v", kFloat, {2}}, {"h", kFloat, {2}}},
                 {"xn", "vn", "hn", "extra"}),
       {},
       "output_count"},
      {"adagrad_int_tensors", 18,
       optimizer("Adagrad", {{"x", kInt64, {2}}, {"g", kInt64, {2}}, {"h", kInt64, {2}}}, {"xn", "hn"}), {},
       "type_error"},
      {"adagrad_mixed_types", 18,
       optimizer("Adagrad", {{"x", kFloat, {2}}, {"g", kDouble, {2}}, {"h", kFloat, {2}}}, {"xn", "hn"}), {},
       "type_error"},
      {"adagrad_float_update_count", 18,
       optimizer("Adagrad", {{"x", kFloat, {2}}, {"g", kFloat, {2}}, {"h", kFloat, {2}}}, {"xn", "hn"},
                 [](ModelBuilder&) {}, kFloat, kFloat),
       {},
       "type_error"},
      // Gradient: output i is the gradient at input i, the value of xs[i].
      {"gradient_has_the_shapes_of_xs", 18,
       gradient({"w", "b", "x"}, {"dw", "db"}, {"w", "b"}, {"x"}, {kFloat, kFloat16, kInt64}),
       {{"dw", {"N", "2"}, std::nullopt, DType::Float32}, {"db", {"N", "3"}, std::nullopt, DType::Float16}}},
      {"gradient_output_may_be_omitted", 18, gradient({"w", "b"}, {"", "db"}, {"w", "b"}, {}, {kFloat, kDouble}),
       {{"db", {"N", "3"}, std::nullopt, DType::Float64}}},
      {"gradient_of_an_integer_tensor", 18, gradient({"w", "i"}, {"dw", "di"}, {"w", "i"}, {}, {kFloat, kInt64}), {},
       "type_error"},
      {"gradient_inputs_are_xs_then_zs", 18, gradient({"w", "b"}, {"dw"}, {"w"}, {}, {kFloat, kFloat}), {},
       "input_count"},
      {"gradient_more_outputs_than_xs", 18, gradient({"w", "x"}, {"dw", "dx"}, {"w"}, {"x"}, {kFloat, kFloat}), {},
       "output_count"},
      {"gradient_without_y", 18,
       [](ModelBuilder& b) {
         b.input("w", kFloat, {2});
         b.node("Gradient", {"w"}, {"dw"}, "n", kTraining).attr_strings("xs", {"w"});
       },
       {},
       "missing_attribute"},
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, TrainingCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace fakeprop::onnx
