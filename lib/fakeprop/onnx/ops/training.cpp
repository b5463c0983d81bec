// ai.onnx.preview.training: the optimizers (Adagrad, Adam, Momentum) and
// Gradient. ONNX Runtime has no kernels for them (1.32 refuses the domain),
// so shapes and types are ONNX's own inference (onnx/defs/training/defs.cc),
// checked against onnx's shape inference and reference evaluator: every
// output is the tensor of the input it updates.
#include <string>

#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

constexpr std::string_view kTraining = "ai.onnx.preview.training";

bool is_float_or_double(DType t) { return t == DType::Float32 || t == DType::Float64; }

// An optimizer's inputs are R, T, then `lists` lists of n tensors each: X,
// G, then one list per state (Adagrad H; Momentum V; Adam V, H). Its
// outputs are the new X, then the new states, list by list: output list k
// (k > 0) updates input list k + 1, as G has no new value.
void optimizer(OpContext& ctx, size_t lists, const char* layout) {
  const size_t in = ctx.num_inputs();
  if (in < 2 + lists || (in - 2) % lists != 0)
    ctx.fail(ErrorKind::InputCount, ctx.op_type() + " takes R, T and " + layout + " per optimized tensor, got " +
                                        std::to_string(in) + " inputs");
  const size_t n = (in - 2) / lists;
  if (ctx.num_outputs() > (lists - 1) * n)
    ctx.fail(ErrorKind::OutputCount, ctx.op_type() + " gives " + std::to_string((lists - 1) * n) + " outputs for " +
                                         std::to_string(n) + " optimized tensors, the node has " +
                                         std::to_string(ctx.num_outputs()));
  if (!is_float_or_double(ctx.dtype(0)))
    ctx.fail(ErrorKind::TypeError,
             ctx.op_type() + ": R must be float or double, got " + std::string(dtype_name(ctx.dtype(0))));
  if (ctx.dtype(1) != DType::Int64)
    ctx.fail(ErrorKind::TypeError, ctx.op_type() + ": T must be int64, got " + std::string(dtype_name(ctx.dtype(1))));
  // One type for every tensor (the schema's T3).
  const DType type = ctx.dtype(2);
  if (!is_float_or_double(type))
    ctx.fail(ErrorKind::TypeError, ctx.op_type() + ": the optimized tensors must be float or double, got " +
                                       std::string(dtype_name(type)));
  for (size_t i = 3; i < in; ++i)
    if (ctx.dtype(i) != type)
      ctx.fail(ErrorKind::TypeError, ctx.op_type() + ": input " + std::to_string(i) + " is " +
                                         std::string(dtype_name(ctx.dtype(i))) + ", the optimized tensors are " +
                                         std::string(dtype_name(type)));
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    if (!ctx.wants_output(k)) continue;
    const size_t list = k / n;
    same_as_input(ctx, 2 + (list == 0 ? 0 : list + 1) * n + k % n, k);
  }
}

void adagrad(OpContext& ctx) { optimizer(ctx, 3, "X, G and H"); }
void momentum(OpContext& ctx) { optimizer(ctx, 3, "X, G and V"); }
void adam(OpContext& ctx) { optimizer(ctx, 4, "X, G, V and H"); }

// The strings of attribute `name`; fails when it is missing (if required) or not a string list.
const std::vector<std::string>& string_list(OpContext& ctx, const char* name, bool required) {
  static const std::vector<std::string> kNone;
  const Attribute* a = ctx.attr(name);
  if (!a) {
    if (required) ctx.fail(ErrorKind::MissingAttribute, std::string("Gradient: attribute ") + name + " is required");
    return kNone;
  }
  if (a->type != Attribute::Type::Strings)
    ctx.fail(ErrorKind::InvalidAttribute, std::string("Gradient: ") + name + " must be a list of tensor names");
  return a->strings();
}

// Gradient(xs, zs, y): inputs are the values of the tensors xs then zs
// name; output i is the gradient of y with respect to xs[i] at input i, so
// it has input i's shape and type, which must be a float type.
void gradient(OpContext& ctx) {
  const std::vector<std::string>& xs = string_list(ctx, "xs", true);
  const std::vector<std::string>& zs = string_list(ctx, "zs", false);
  const Attribute* y = ctx.attr("y");
  if (!y) ctx.fail(ErrorKind::MissingAttribute, "Gradient: attribute y is required");
  if (y->type != Attribute::Type::String || y->s.empty())
    ctx.fail(ErrorKind::InvalidAttribute, "Gradient: y must name a tensor");
  if (xs.empty()) ctx.fail(ErrorKind::InvalidAttribute, "Gradient: xs must name at least one tensor");
  if (ctx.num_inputs() != xs.size() + zs.size())
    ctx.fail(ErrorKind::InputCount, "Gradient: xs and zs name " + std::to_string(xs.size() + zs.size()) +
                                        " tensors, the node has " + std::to_string(ctx.num_inputs()) + " inputs");
  if (ctx.num_outputs() > xs.size())
    ctx.fail(ErrorKind::OutputCount, "Gradient: one output per tensor of xs (" + std::to_string(xs.size()) +
                                         "), the node has " + std::to_string(ctx.num_outputs()));
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    if (!ctx.wants_output(i)) continue;
    const DType t = ctx.dtype(i);
    if (t != DType::Float16 && t != DType::Float32 && t != DType::Float64)
      ctx.fail(ErrorKind::TypeError, "Gradient: '" + xs[i] + "' is " + std::string(dtype_name(t)) +
                                         "; gradients are float16, float or double");
    same_as_input(ctx, i, i);
  }
}

}  // namespace

std::span<const OpRuleEntry> training_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {kTraining, "Adagrad", adagrad},
      {kTraining, "Adam", adam},
      {kTraining, "Momentum", momentum},
      {kTraining, "Gradient", gradient},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
