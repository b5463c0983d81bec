// Losses (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss) and Det.
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"

namespace fakeprop::onnx::ops {

namespace {

// input [N, C, d1..dk], target [N, d1..dk]: "none" keeps [N, d1..dk], "mean"/"sum" reduce to a scalar.
SymShape loss_shape(OpContext& ctx, size_t scores, size_t labels) {
  const SymShape& in = ctx.shape(scores);
  const SymShape& target = ctx.shape(labels);
  if (in.size() < 2) ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " needs input of rank >= 2 ([N, C, ...])");
  if (target.size() != in.size() - 1)
    ctx.fail(ErrorKind::ShapeMismatch, ctx.op_type() + ": target rank " + std::to_string(target.size()) +
                                           " must be input rank - 1 (" + std::to_string(in.size() - 1) + ")");
  ctx.expect(sym_eq(in[0], target[0]), "loss: batch sizes agree");
  for (size_t d = 2; d < in.size(); ++d) ctx.expect(sym_eq(in[d], target[d - 1]), "loss: spatial sizes agree");
  const std::string reduction = ctx.attr_string("reduction");
  if (reduction == "none") {
    SymShape out;
    for (const SymInt& d : target) out.push_back(simplified(ctx, d));
    return out;
  }
  if (reduction != "mean" && reduction != "sum")
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + ": reduction must be none, mean or sum, got '" + reduction +
                                              "'");
  return {};
}

void nll_loss_rule(OpContext& ctx) { ctx.set_tensor(0, ctx.dtype(0), loss_shape(ctx, 0, 1)); }

void softmax_cross_entropy_rule(OpContext& ctx) {
  ctx.set_tensor(0, ctx.dtype(0), loss_shape(ctx, 0, 1));
  if (ctx.wants_output(1)) same_as_input(ctx, 0, 1);  // log_prob
}

// [*, M, M] -> [*]
void det_rule(OpContext& ctx) {
  const SymShape& in = ctx.shape(0);
  if (in.size() < 2) ctx.fail(ErrorKind::InvalidRank, "Det needs input of rank >= 2");
  ctx.expect(sym_eq(in[in.size() - 1], in[in.size() - 2]), "Det: square matrices");
  SymShape out(in.begin(), in.end() - 2);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

}  // namespace

std::span<const OpRuleEntry> loss_and_linalg_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {"", "NegativeLogLikelihoodLoss", nll_loss_rule},
      {"", "SoftmaxCrossEntropyLoss", softmax_cross_entropy_rule},
      {"", "Det", det_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
