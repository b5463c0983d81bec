// Neural-network operators: MatMul, Gemm, Einsum, convolutions, pooling,
// normalization, resizing, recurrent networks and signal processing.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "fakeprop/onnx/ops/conv_shape.h"
#include "fakeprop/onnx/ops/families.h"
#include "fakeprop/onnx/ops/helpers.h"
#include "fakeprop/onnx/ops/nn_common.h"

namespace fakeprop::onnx::ops {

namespace {

// ---------------------------------------------------------------- MatMul, Gemm, Einsum

// numpy.matmul: 1-D operands are promoted and the added dim removed after;
// batch dims broadcast.
void matmul_rule(OpContext& ctx) {
  ctx.set_tensor(0, ctx.dtype(0), matmul_shape(ctx, ctx.shape(0), ctx.shape(1)));
}

void gemm_rule(OpContext& ctx) {
  SymShape out = gemm_output(ctx, 0, 1, "Gemm");
  if (ctx.has_input(2) && !ctx.unranked(2)) {  // a C of unknown rank still has to broadcast: (M, N) stands
    // C broadcasts unidirectionally to (M, N).
    const SymShape& c = ctx.shape(2);
    if (c.size() > 2) ctx.fail(ErrorKind::InvalidRank, "Gemm's C must have rank <= 2, got " + shape_to_string(c));
    const SymShape wide = broadcast_shapes(c, out, ctx.env());
    for (size_t i = 0; i < 2; ++i) require_equal(ctx, wide[i], out[i], "Gemm: C broadcasts to (M, N)");
  }  // C is optional from 11; before, the schema check has required it
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// One operand term of an einsum equation: letters, with -1 for "...".
using EinsumTerm = std::vector<int>;
constexpr int kEllipsis = -1;

EinsumTerm parse_einsum_term(const OpContext& ctx, std::string_view text) {
  EinsumTerm term;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      if (text.substr(i, 3) != "..." || seen_ellipsis)
        ctx.fail(ErrorKind::InvalidAttribute, "Einsum: malformed ellipsis in term '" + std::string(text) + "'");
      seen_ellipsis = true;
      term.push_back(kEllipsis);
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      term.push_back(c);
    } else {
      ctx.fail(ErrorKind::InvalidAttribute, "Einsum: unexpected character '" + std::string(1, c) + "' in equation");
    }
  }
  return term;
}

void einsum_rule(OpContext& ctx) {
  std::string eq;
  for (char c : ctx.attr_string("equation", "")) if (c != ' ') eq += c;
  if (eq.empty()) ctx.fail(ErrorKind::MissingAttribute, "Einsum needs attribute 'equation'");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<EinsumTerm> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(parse_einsum_term(ctx, std::string_view(lhs).substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ctx.num_inputs())
    ctx.fail(ErrorKind::InvalidAttribute, "Einsum equation '" + eq + "' has " + std::to_string(terms.size()) +
                                              " operands but the node has " + std::to_string(ctx.num_inputs()) +
                                              " inputs");
  std::map<int, SymInt> label_dim;
  std::map<int, int> label_count;
  std::vector<SymShape> ellipsis_shapes;
  for (size_t i = 0; i < terms.size(); ++i) {
    const SymShape& shape = ctx.shape(i);
    const auto letters = static_cast<int64_t>(std::count_if(terms[i].begin(), terms[i].end(), [](int l) { return l != kEllipsis; }));
    const bool has_ellipsis = letters != static_cast<int64_t>(terms[i].size());
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (has_ellipsis ? rank < letters : rank != letters)
      ctx.fail(ErrorKind::InvalidRank, "Einsum operand " + std::to_string(i) + " has shape " + shape_to_string(shape) +
                                           " which does not fit its term in '" + eq + "'");
    const int64_t ellipsis_rank = rank - letters;
    size_t d = 0;
    std::map<int, SymInt> in_this_operand;
    for (int label : terms[i]) {
      if (label == kEllipsis) {
        ellipsis_shapes.emplace_back(shape.begin() + static_cast<ptrdiff_t>(d),
                                     shape.begin() + static_cast<ptrdiff_t>(d + static_cast<size_t>(ellipsis_rank)));
        d += static_cast<size_t>(ellipsis_rank);
        continue;
      }
      const SymInt& size = shape[d++];
      ++label_count[label];
      if (auto it = in_this_operand.find(label); it != in_this_operand.end()) {
        require_equal(ctx, it->second, size, "Einsum: repeated subscript sizes agree");
        continue;
      }
      in_this_operand.emplace(label, size);
      auto [it, fresh] = label_dim.emplace(label, size);
      if (!fresh) it->second = broadcast_shapes(SymShape{it->second}, SymShape{size}, ctx.env())[0];
    }
  }
  const SymShape ellipsis_dims = broadcast_shapes(ellipsis_shapes, ctx.env());
  SymShape out;
  if (arrow == std::string::npos) {
    // Implicit output: broadcast dims, then the letters used once, sorted.
    out = ellipsis_dims;
    for (const auto& [label, count] : label_count)
      if (count == 1) out.push_back(label_dim.at(label));
  } else {
    const EinsumTerm rhs = parse_einsum_term(ctx, std::string_view(eq).substr(arrow + 2));
    std::set<int> seen;
    for (int label : rhs) {
      if (label == kEllipsis) {
        out.insert(out.end(), ellipsis_dims.begin(), ellipsis_dims.end());
        continue;
      }
      if (!seen.insert(label).second || !label_dim.count(label))
        ctx.fail(ErrorKind::InvalidAttribute, "Einsum output subscript '" + std::string(1, static_cast<char>(label)) +
                                                  "' is repeated or does not appear in the inputs of '" + eq + "'");
      out.push_back(label_dim.at(label));
    }
  }
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// ---------------------------------------------------------------- convolution

// Spatial kernel sizes: the kernel_shape attribute, else W's static dims
// from 2 on; nullopt when W's dims are symbolic and no attribute is given.
std::optional<std::vector<int64_t>> conv_kernel(OpContext& ctx, const SymShape& w, size_t spatial) {
  auto attr = ctx.attr_ints("kernel_shape");
  if (attr) {
    if (attr->size() != spatial)
      ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " kernel_shape has " + std::to_string(attr->size()) +
                                                " values for " + std::to_string(spatial) + " spatial dims");
    for (size_t i = 0; i < spatial; ++i)
      require_equal(ctx, w[2 + i], (*attr)[i], "conv: kernel_shape matches W");
    return attr;
  }
  return static_shape(std::span<const SymInt>(w).subspan(2));
}

SymShape unknown_spatial(OpContext& ctx, size_t n, const std::string& why) {
  SymShape out;
  for (size_t i = 0; i < n; ++i) out.push_back(ctx.unknown_size(why));
  return out;
}

// Conv and DeformConv: X (N, C, D...), W (M, C/group, k...).
void conv_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const SymShape& w = ctx.shape(1);
  if (x.size() < 3)
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " needs input of rank >= 3, got " + shape_to_string(x));
  if (w.size() != x.size())
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " weight " + shape_to_string(w) + " must have the rank of input " +
                                         shape_to_string(x));
  const int64_t group = ctx.attr_int("group");
  if (group <= 0)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " group must be positive, got " + std::to_string(group));
  const size_t spatial = x.size() - 2;
  require_equal(ctx, x[1], w[1] * group, "conv: input channels = W.shape[1] * group");
  require_divisible(ctx, w[0], group, "conv: output channels divisible by group");
  if (ctx.has_input(2) && ctx.op_type() == "Conv") require_vector(ctx, 2, w[0], "Conv bias");
  SymShape out = {x[0], w[0]};
  std::span<const SymInt> in(x.begin() + 2, x.end());
  if (auto kernel = conv_kernel(ctx, w, spatial)) {
    const WindowAttrs attrs = read_window_attrs(ctx, std::move(*kernel), /*use_dilations=*/true, /*use_ceil_mode=*/false);
    SymShape sizes = window_output_sizes(ctx, in, attrs);
    out.insert(out.end(), sizes.begin(), sizes.end());
  } else {
    SymShape sizes = unknown_spatial(ctx, spatial, ctx.op_type() + ": kernel size from symbolic weight dims " +
                                                       shape_to_string(w));
    out.insert(out.end(), sizes.begin(), sizes.end());
  }
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// DeformConv (19): conv geometry; offset (N, offset_group*prod(k)*n, out...)
// and mask (N, offset_group*prod(k), out...) are laid out over the output.
void deform_conv_rule(OpContext& ctx) {
  conv_rule(ctx);
  const SymShape& y = ctx.outputs()[0].tensor->meta.sizes;
  const SymShape& w = ctx.shape(1);
  const int64_t offset_group = ctx.attr_int("offset_group");
  if (offset_group <= 0) ctx.fail(ErrorKind::InvalidAttribute, "DeformConv offset_group must be positive");
  require_divisible(ctx, ctx.shape(0)[1], offset_group, "DeformConv: channels divisible by offset_group");
  SymInt taps = offset_group;
  for (size_t d = 2; d < w.size(); ++d) taps = taps * w[d];
  auto check_map = [&](size_t i, const SymInt& channels, const char* what) {
    const SymShape& m = ctx.shape(i);
    if (m.size() != y.size())
      ctx.fail(ErrorKind::InvalidRank, std::string("DeformConv ") + what + " " + shape_to_string(m) +
                                           " must have rank " + std::to_string(y.size()));
    require_equal(ctx, m[0], y[0], "DeformConv: offset/mask batch");
    require_equal(ctx, m[1], channels, "DeformConv: offset/mask channels = offset_group * kernel taps (* n)");
    for (size_t d = 2; d < y.size(); ++d) require_equal(ctx, m[d], y[d], "DeformConv: offset/mask cover the output");
  };
  check_map(2, taps * static_cast<int64_t>(w.size() - 2), "offset");
  if (ctx.has_input(3)) require_vector(ctx, 3, w[0], "DeformConv bias");
  if (ctx.has_input(4)) check_map(4, taps, "mask");
}

// ConvTranspose: X (N, C, D...), W (C, M/group, k...) -> (N, M, ...).
void conv_transpose_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const SymShape& w = ctx.shape(1);
  if (x.size() < 3)
    ctx.fail(ErrorKind::InvalidRank, "ConvTranspose needs input of rank >= 3, got " + shape_to_string(x));
  if (w.size() != x.size())
    ctx.fail(ErrorKind::InvalidRank, "ConvTranspose weight " + shape_to_string(w) + " must have the rank of input " +
                                         shape_to_string(x));
  const int64_t group = ctx.attr_int("group");
  if (group <= 0)
    ctx.fail(ErrorKind::InvalidAttribute, "ConvTranspose group must be positive, got " + std::to_string(group));
  const size_t spatial = x.size() - 2;
  require_equal(ctx, x[1], w[0], "ConvTranspose: input channels = W.shape[0]");
  require_divisible(ctx, x[1], group, "ConvTranspose: input channels divisible by group");
  const SymInt channels = w[1] * group;
  if (ctx.has_input(2)) require_vector(ctx, 2, channels, "ConvTranspose bias");
  SymShape out = {x[0], channels};
  std::span<const SymInt> in(x.begin() + 2, x.end());
  auto kernel = conv_kernel(ctx, w, spatial);
  if (auto output_shape = ctx.attr_ints("output_shape")) {
    // Explicit output sizes (spatial, or the full shape): pads follow from them.
    if (output_shape->size() != spatial && output_shape->size() != spatial + 2)
      ctx.fail(ErrorKind::InvalidAttribute, "ConvTranspose output_shape has " + std::to_string(output_shape->size()) +
                                                " values for " + std::to_string(spatial) + " spatial dims");
    for (size_t i = output_shape->size() - spatial; i < output_shape->size(); ++i) {
      if ((*output_shape)[i] < 0)
        ctx.fail(ErrorKind::InvalidAttribute, "ConvTranspose output_shape must not be negative");
      out.push_back((*output_shape)[i]);
    }
    if (kernel) (void)read_window_attrs(ctx, std::move(*kernel), true, false);  // validation only
  } else if (kernel) {
    const WindowAttrs attrs = read_window_attrs(ctx, std::move(*kernel), true, false);
    std::vector<int64_t> output_padding = ctx.attr_ints("output_padding").value_or(std::vector<int64_t>(spatial, 0));
    SymShape sizes = transpose_output_sizes(ctx, in, attrs, output_padding);
    out.insert(out.end(), sizes.begin(), sizes.end());
  } else {
    SymShape sizes = unknown_spatial(ctx, spatial, "ConvTranspose: kernel size from symbolic weight dims " +
                                                       shape_to_string(w));
    out.insert(out.end(), sizes.begin(), sizes.end());
  }
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// ---------------------------------------------------------------- pooling

// The version in effect says which attributes and outputs the op has:
// dilations (MaxPool 10, LpPool 18, AveragePool 19), ceil_mode (10, 18, 10),
// MaxPool's Indices (8).
void pool_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() < 3)
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " needs input of rank >= 3, got " + shape_to_string(x));
  auto kernel = ctx.attr_ints("kernel_shape");
  if (!kernel) ctx.fail(ErrorKind::MissingAttribute, ctx.op_type() + " needs attribute 'kernel_shape'");
  if (kernel->size() != x.size() - 2)
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " kernel_shape has " + std::to_string(kernel->size()) +
                                              " values for input " + shape_to_string(x));
  const bool dilations = ctx.declares_attribute("dilations");
  const bool ceil_mode = ctx.declares_attribute("ceil_mode");
  const WindowAttrs attrs = read_window_attrs(ctx, std::move(*kernel), dilations, ceil_mode);
  SymShape out = {x[0], x[1]};
  SymShape sizes = window_output_sizes(ctx, std::span<const SymInt>(x).subspan(2), attrs);
  if (attrs.same_padding()) {
    // SAME with dilations (MaxPool 10+, LpPool 18+, AveragePool 19+): ORT
    // pads as if the kernel were undilated, (ceil(in/s) - 1)*s + k - in, and
    // then slides the dilated one, so the output is ceil(in/s) less
    // ceil((k-1)*(d-1)/s), not the ceil(in/s) of the schema and libonnx.
    for (size_t i = 0; i < sizes.size(); ++i) {
      const int64_t s = attrs.strides[i], lost = (attrs.kernel[i] - 1) * (attrs.dilations[i] - 1);
      if (lost == 0) continue;
      sizes[i] = sizes[i] - (lost + s - 1) / s;
      if (sizes[i].is_static() && sizes[i].value() < 1)
        ctx.fail(ErrorKind::InvalidShape, ctx.op_type() + ": SAME padding with dilations leaves spatial dim " +
                                              std::to_string(i) + " empty");
    }
  }
  out.insert(out.end(), sizes.begin(), sizes.end());
  simplify_all(ctx, out);
  if (ctx.wants_output(1)) {
    if (!ctx.declares_output("Indices"))
      ctx.fail(ErrorKind::OutputCount, ctx.op_type() + " has no second output at opset " + std::to_string(ctx.opset()));
    ctx.set_tensor(1, DType::Int64, out);
  }
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}


void global_pool_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() < 2)
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " needs input of rank >= 2, got " + shape_to_string(x));
  SymShape out(x.begin(), x.begin() + 2);
  out.resize(x.size(), SymInt(1));
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void max_roi_pool_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const SymShape& rois = ctx.shape(1);
  if (x.size() != 4) ctx.fail(ErrorKind::InvalidRank, "MaxRoiPool needs a 4-D input, got " + shape_to_string(x));
  if (rois.size() != 2) ctx.fail(ErrorKind::InvalidRank, "MaxRoiPool needs 2-D rois, got " + shape_to_string(rois));
  require_equal(ctx, rois[1], 5, "MaxRoiPool: rois are (batch_id, x1, y1, x2, y2)");
  auto pooled = ctx.attr_ints("pooled_shape");
  if (!pooled || pooled->size() != 2 || (*pooled)[0] <= 0 || (*pooled)[1] <= 0)
    ctx.fail(ErrorKind::InvalidAttribute, "MaxRoiPool needs 'pooled_shape' with two positive values");
  ctx.set_tensor(0, ctx.dtype(0), {rois[0], x[1], (*pooled)[0], (*pooled)[1]});
}

void roi_align_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const SymShape& rois = ctx.shape(1);
  const SymShape& batch_indices = ctx.shape(2);
  if (x.size() != 4) ctx.fail(ErrorKind::InvalidRank, "RoiAlign needs a 4-D input, got " + shape_to_string(x));
  if (rois.size() != 2) ctx.fail(ErrorKind::InvalidRank, "RoiAlign needs 2-D rois, got " + shape_to_string(rois));
  if (batch_indices.size() != 1)
    ctx.fail(ErrorKind::InvalidRank, "RoiAlign needs 1-D batch_indices, got " + shape_to_string(batch_indices));
  require_equal(ctx, rois[1], 4, "RoiAlign: rois are (x1, y1, x2, y2)");
  require_equal(ctx, batch_indices[0], rois[0], "RoiAlign: one batch index per roi");
  const int64_t h = ctx.attr_int("output_height"), w = ctx.attr_int("output_width");
  if (h <= 0 || w <= 0) ctx.fail(ErrorKind::InvalidAttribute, "RoiAlign output_height/output_width must be positive");
  ctx.set_tensor(0, ctx.dtype(0), {rois[0], x[1], h, w});
}

void max_unpool_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() < 3) ctx.fail(ErrorKind::InvalidRank, "MaxUnpool needs input of rank >= 3, got " + shape_to_string(x));
  const SymShape& indices = ctx.shape(1);
  if (indices.size() != x.size())
    ctx.fail(ErrorKind::ShapeMismatch, "MaxUnpool indices " + shape_to_string(indices) + " must have the shape of X " +
                                           shape_to_string(x));
  for (size_t i = 0; i < x.size(); ++i) require_equal(ctx, x[i], indices[i], "MaxUnpool: I has the shape of X");
  SymShape out;
  if (ctx.has_input(2)) {
    auto target = shape_from_input(ctx, 2);
    if (target) {
      out = *target;
    } else {
      auto n = static_shape(ctx.shape(2));
      if (!n || n->size() != 1) ctx.fail(ErrorKind::UnknownInput, "MaxUnpool output_shape has unknown length");
      for (int64_t i = 0; i < (*n)[0]; ++i)
        out.push_back(ctx.unknown_size("MaxUnpool output_shape '" + ctx.input_name(2) + "' is not known"));
    }
    if (out.size() != x.size())
      ctx.fail(ErrorKind::InvalidShape, "MaxUnpool output_shape " + shape_to_string(out) + " must have rank " +
                                            std::to_string(x.size()));
  } else {
    auto kernel = ctx.attr_ints("kernel_shape");
    if (!kernel) ctx.fail(ErrorKind::MissingAttribute, "MaxUnpool needs attribute 'kernel_shape'");
    if (kernel->size() != x.size() - 2)
      ctx.fail(ErrorKind::InvalidAttribute, "MaxUnpool kernel_shape has " + std::to_string(kernel->size()) +
                                                " values for input " + shape_to_string(x));
    const WindowAttrs attrs = read_window_attrs(ctx, std::move(*kernel), false, false);
    out = {x[0], x[1]};
    SymShape sizes = transpose_output_sizes(ctx, std::span<const SymInt>(x).subspan(2), attrs,
                                            std::vector<int64_t>(x.size() - 2, 0));
    out.insert(out.end(), sizes.begin(), sizes.end());
  }
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// ---------------------------------------------------------------- normalization

void batch_norm_rule(OpContext& ctx) {
  // Before 9, spatial=0 keeps one statistic per element of (C, D1, ...).
  const bool spatial = !ctx.declares_attribute("spatial") || ctx.attr_int("spatial") != 0;
  // An element type, whether or not the rank is known.
  auto elem = [&](size_t i) { return ctx.input(i).tensor ? ctx.input(i).tensor->meta.dtype : ctx.dtype(i); };
  const bool x_unranked = ctx.unranked(0);
  SymShape stats;
  if (x_unranked) {
    // The statistics still have C entries: the first of them whose rank is known says C.
    size_t known = 1;
    while (known <= 4 && ctx.unranked(known)) ++known;
    if (!spatial || known > 4) ctx.fail(ErrorKind::UnknownRank, "input '" + ctx.input_name(0) + "' has unknown rank");
    stats = ctx.shape(known);
    if (stats.size() != 1)
      ctx.fail(ErrorKind::InvalidRank, "BatchNormalization statistics must be 1-D, got " + shape_to_string(stats));
  } else {
    const SymShape& x = ctx.shape(0);
    if (x.empty()) ctx.fail(ErrorKind::InvalidRank, "BatchNormalization needs input of rank >= 1");
    const SymInt channels = x.size() >= 2 ? x[1] : SymInt(1);
    stats = spatial || x.size() < 2 ? SymShape{channels} : SymShape(x.begin() + 1, x.end());
  }
  static const char* const names[] = {"", "scale", "B", "mean", "var"};
  for (size_t i = 1; i <= 4; ++i) {
    if (ctx.unranked(i)) continue;
    const SymShape& s = ctx.shape(i);
    if (s.size() != stats.size())
      ctx.fail(ErrorKind::InvalidRank, std::string("BatchNormalization ") + names[i] + " must have shape " +
                                           shape_to_string(stats) + ", got " + shape_to_string(s));
    for (size_t d = 0; d < s.size(); ++d) require_equal(ctx, s[d], stats[d], "BatchNormalization: statistics shape");
  }
  if (x_unranked) {
    const std::string why = "input '" + ctx.input_name(0) + "' has unknown rank";
    ctx.note_precision("Y's shape not computed: " + why);
    ctx.set_output(0, Value::of_unranked(elem(0), ctx.device(), why));
  } else {
    ctx.set_tensor(0, ctx.dtype(0), ctx.shape(0));
  }
  if (ctx.declares_attribute("training_mode")) {  // 14+
    const bool training = ctx.attr_int("training_mode") != 0;
    if (!training && (ctx.wants_output(1) || ctx.wants_output(2)))
      ctx.fail(ErrorKind::OutputCount, "BatchNormalization outputs running_mean/running_var need training_mode=1");
    if (ctx.num_outputs() > 3)
      ctx.fail(ErrorKind::OutputCount, "BatchNormalization has at most 3 outputs at opset >= 14");
    if (ctx.wants_output(1)) ctx.set_tensor(1, elem(3), stats);
    if (ctx.wants_output(2)) ctx.set_tensor(2, elem(4), stats);
    return;
  }
  // Opsets 6 to 9: mean, var, saved_mean, saved_var.
  if (ctx.num_outputs() > 5)
    ctx.fail(ErrorKind::OutputCount, "BatchNormalization has at most 5 outputs before opset 14");
  for (size_t i = 1; i < ctx.num_outputs(); ++i)
    if (ctx.wants_output(i)) ctx.set_tensor(i, elem(0), stats);
}

void instance_norm_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() < 3)
    ctx.fail(ErrorKind::InvalidRank, "InstanceNormalization needs input of rank >= 3, got " + shape_to_string(x));
  require_vector(ctx, 1, x[1], "InstanceNormalization scale");
  require_vector(ctx, 2, x[1], "InstanceNormalization B");
  same_as_input(ctx);
}

void layer_norm_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(x.size());
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), rank);
  layer_norm_outputs(ctx, axis, {1, 2}, ctx.attr_int("stash_type"));
}

// RMSNormalization (opset 23): Y is X's shape in scale's dtype; scale
// broadcasts to X's dims from `axis` on.
void rms_norm_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), static_cast<int64_t>(x.size()));
  const SymShape& scale = ctx.shape(1);
  const size_t normalized = x.size() - static_cast<size_t>(axis);
  if (scale.size() > normalized)
    ctx.fail(ErrorKind::InvalidRank, "RMSNormalization scale " + shape_to_string(scale) +
                                         " has more dims than the normalized dims of " + shape_to_string(x));
  for (size_t i = 0; i < scale.size(); ++i) {
    const SymInt& s = scale[scale.size() - 1 - i];
    if (!(s.is_static() && s.value() == 1))
      require_equal(ctx, s, x[x.size() - 1 - i], "RMSNormalization: scale broadcasts to the normalized dims");
  }
  const auto stash = dtype_from_onnx(static_cast<int32_t>(ctx.attr_int("stash_type")));
  if (!stash || !is_floating(*stash))
    ctx.fail(ErrorKind::InvalidAttribute, "RMSNormalization stash_type is not a float type");
  ctx.set_tensor(0, ctx.dtype(1), x);
}

// RotaryEmbedding (opset 23): Y is X, either (batch, heads, seq, head_size)
// or (batch, seq, hidden) with num_heads dividing hidden; the cos and sin
// caches agree, (max_position, rotary_dim / 2) with position_ids (batch,
// seq), else (batch, seq, rotary_dim / 2).
void rotary_embedding_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() != 3 && x.size() != 4)
    ctx.fail(ErrorKind::InvalidRank, "RotaryEmbedding input must be 3-D or 4-D, got " + shape_to_string(x));
  const bool heads_last = x.size() == 3;
  if (heads_last) {
    const int64_t heads = ctx.attr_int("num_heads", 0);
    if (heads <= 0) ctx.fail(ErrorKind::MissingAttribute, "RotaryEmbedding on a 3-D input needs num_heads");
    require_divisible(ctx, x[2], heads, "RotaryEmbedding: num_heads divides the hidden size");
  }
  const SymShape& cos = ctx.shape(1);
  const SymShape& sin = ctx.shape(2);
  const size_t cache_rank = ctx.has_input(3) ? 2 : 3;
  if (cos.size() != cache_rank || sin.size() != cache_rank)
    ctx.fail(ErrorKind::InvalidRank, "RotaryEmbedding caches must be " + std::to_string(cache_rank) + "-D " +
                                         (cache_rank == 2 ? "with" : "without") + " position_ids, got " +
                                         shape_to_string(cos) + " and " + shape_to_string(sin));
  for (size_t i = 0; i < cos.size(); ++i) require_equal(ctx, cos[i], sin[i], "RotaryEmbedding: cos and sin caches agree");
  // The (batch, seq) of position_ids, or else of the caches, are X's, as the
  // spec states and ONNX Runtime checks (onnx's reference would broadcast a
  // cache of batch 1, which torch's exporter writes; ORT refuses it when X's
  // batch is not 1).
  const SymInt& seq = heads_last ? x[1] : x[2];
  const SymShape* per_token = &cos;
  if (ctx.has_input(3)) {
    per_token = &ctx.shape(3);
    if (per_token->size() != 2)
      ctx.fail(ErrorKind::InvalidRank, "RotaryEmbedding position_ids must be 2-D, got " + shape_to_string(*per_token));
  }
  require_equal(ctx, (*per_token)[0], x[0], "RotaryEmbedding: position_ids or the caches have X's batch");
  require_equal(ctx, (*per_token)[1], seq, "RotaryEmbedding: position_ids or the caches have X's sequence length");
  same_as_input(ctx);
}

// SwiGLU (opset 26): gate A and value B of one shape (no broadcasting).
void swiglu_rule(OpContext& ctx) {
  const SymShape& a = ctx.shape(0);
  const SymShape& b = ctx.shape(1);
  if (a.size() != b.size())
    ctx.fail(ErrorKind::InvalidRank, "SwiGLU inputs differ in rank: " + shape_to_string(a) + " and " + shape_to_string(b));
  if (ctx.dtype(0) != ctx.dtype(1)) ctx.fail(ErrorKind::TypeError, "SwiGLU inputs differ in element type");
  for (size_t i = 0; i < a.size(); ++i) require_equal(ctx, a[i], b[i], "SwiGLU: the gate and value have one shape");
  same_as_input(ctx);
}

// Attention (opset 23): Q, K, V either 4-D (batch, heads, seq, head_size)
// or 3-D (batch, seq, heads * head_size) with q_num_heads and kv_num_heads;
// q heads a multiple of kv heads (GQA, MQA). past_key/past_value (batch,
// kv_heads, past, ...) lengthen the keys to total = past + kv_seq. Opset 25
// adds window sizes (-1: unbounded), wants present_key and present_value
// together and neither cache with nonpad_kv_seqlen, and allows the head
// counts as attributes of 3-D inputs only.
template <bool strict_caches>
void attention_rule(OpContext& ctx) {
  for (const char* window : {"left_window_size", "right_window_size"})
    if (ctx.attr_int(window, -1) < -1)
      ctx.fail(ErrorKind::InvalidAttribute, "Attention " + std::string(window) + " must be -1 or at least 0");
  if (strict_caches) {
    const bool past = ctx.has_input(4) || ctx.has_input(5), present = ctx.wants_output(1) || ctx.wants_output(2);
    if (ctx.wants_output(1) != ctx.wants_output(2))
      ctx.fail(ErrorKind::InvalidArgument, "Attention: present_key and present_value come together");
    if (ctx.has_input(6) && (past || present))
      ctx.fail(ErrorKind::InvalidArgument, "Attention: nonpad_kv_seqlen cannot be used with a past or present cache");
    if (ctx.rank(0) == 4 && (ctx.has_attr("q_num_heads") || ctx.has_attr("kv_num_heads")))
      ctx.fail(ErrorKind::InvalidAttribute, "Attention: q_num_heads and kv_num_heads are for 3-D inputs only");
  }
  const SymShape& q = ctx.shape(0);
  const SymShape& k = ctx.shape(1);
  const SymShape& v = ctx.shape(2);
  if ((q.size() != 3 && q.size() != 4) || k.size() != q.size() || v.size() != q.size())
    ctx.fail(ErrorKind::InvalidRank, "Attention: Q, K and V must all be 3-D or all 4-D, got " + shape_to_string(q) +
                                         ", " + shape_to_string(k) + " and " + shape_to_string(v));
  const char* why = "Attention: Q, K and V shapes agree";
  const SymInt& batch = q[0];
  require_equal(ctx, k[0], batch, why);
  require_equal(ctx, v[0], batch, why);
  const bool four_d = q.size() == 4;
  SymInt q_heads, kv_heads, q_seq, kv_seq, head, v_head;
  if (four_d) {
    q_heads = q[1], q_seq = q[2], head = q[3];
    kv_heads = k[1], kv_seq = k[2], v_head = v[3];
    require_equal(ctx, k[3], head, why);
    require_equal(ctx, v[1], kv_heads, why);
    require_equal(ctx, v[2], kv_seq, why);
  } else {
    const int64_t qn = ctx.attr_int("q_num_heads", 0), kvn = ctx.attr_int("kv_num_heads", 0);
    if (qn <= 0 || kvn <= 0) ctx.fail(ErrorKind::MissingAttribute, "Attention on 3-D inputs needs q_num_heads and kv_num_heads");
    q_heads = SymInt(qn), kv_heads = SymInt(kvn), q_seq = q[1], kv_seq = k[1];
    require_equal(ctx, v[1], kv_seq, why);
    require_divisible(ctx, q[2], q_heads, "Attention: q_num_heads divides Q's hidden size");
    require_divisible(ctx, v[2], kv_heads, "Attention: kv_num_heads divides V's hidden size");
    head = simplified(ctx, floordiv(q[2], q_heads));
    v_head = simplified(ctx, floordiv(v[2], kv_heads));
    require_equal(ctx, k[2], simplified(ctx, kv_heads * head), "Attention: K's hidden size is kv_num_heads * head_size");
  }
  require_divisible(ctx, q_heads, kv_heads, "Attention: q heads are a multiple of kv heads");
  SymInt total = kv_seq;
  if (ctx.has_input(4) != ctx.has_input(5))
    ctx.fail(ErrorKind::InvalidArgument, "Attention: past_key and past_value come together");
  if (ctx.has_input(4)) {
    const SymShape& pk = ctx.shape(4);
    const SymShape& pv = ctx.shape(5);
    if (pk.size() != 4 || pv.size() != 4)
      ctx.fail(ErrorKind::InvalidRank, "Attention: past_key and past_value must be 4-D");
    const char* past = "Attention: past_key/past_value are (batch, kv_num_heads, past, head_size)";
    for (const SymShape* p : {&pk, &pv}) {
      require_equal(ctx, (*p)[0], batch, past);
      require_equal(ctx, (*p)[1], kv_heads, past);
      require_equal(ctx, (*p)[2], pk[2], past);
    }
    require_equal(ctx, pk[3], head, past);
    require_equal(ctx, pv[3], v_head, past);
    total = simplified(ctx, pk[2] + kv_seq);
  }
  const DType t = ctx.dtype(0);
  if (four_d)
    ctx.set_tensor(0, t, {batch, q_heads, q_seq, v_head});
  else
    ctx.set_tensor(0, t, {batch, q_seq, simplified(ctx, q_heads * v_head)});
  if (ctx.wants_output(1)) ctx.set_tensor(1, t, {batch, kv_heads, total, head});
  if (ctx.wants_output(2)) ctx.set_tensor(2, ctx.dtype(2), {batch, kv_heads, total, v_head});
  if (ctx.wants_output(3)) ctx.set_tensor(3, t, {batch, q_heads, q_seq, total});
}

// TensorScatter (opset 24), a KV-cache update: present_cache is past_cache;
// update has its shape but along the sequence dim `axis` (not the batch
// dim 0); write_indices holds one start per batch row.
void tensor_scatter_rule(OpContext& ctx) {
  const SymShape& past = ctx.shape(0);
  const SymShape& update = ctx.shape(1);
  if (past.size() < 2 || update.size() != past.size())
    ctx.fail(ErrorKind::InvalidRank, "TensorScatter: past_cache " + shape_to_string(past) + " and update " +
                                         shape_to_string(update) + " must have one rank of at least 2");
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), static_cast<int64_t>(past.size()));
  if (axis == 0) ctx.fail(ErrorKind::InvalidAxis, "TensorScatter: the sequence axis cannot be the batch axis 0");
  for (size_t i = 0; i < past.size(); ++i)
    if (static_cast<int64_t>(i) != axis)
      require_equal(ctx, update[i], past[i], "TensorScatter: update is the cache's shape but along the sequence axis");
  const std::string mode = ctx.attr_string("mode");
  if (mode != "linear" && mode != "circular")
    ctx.fail(ErrorKind::InvalidAttribute, "TensorScatter: mode must be linear or circular, got '" + mode + "'");
  if (ctx.has_input(2)) require_vector(ctx, 2, past[0], "TensorScatter write_indices");
  same_as_input(ctx);
}

template <bool per_channel>
void group_norm_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() < 2)
    ctx.fail(ErrorKind::InvalidRank, "GroupNormalization needs input of rank >= 2, got " + shape_to_string(x));
  const int64_t groups = ctx.required_attr_int("num_groups");
  if (groups <= 0) ctx.fail(ErrorKind::InvalidAttribute, "GroupNormalization num_groups must be positive");
  require_divisible(ctx, x[1], groups, "GroupNormalization: channels divisible by num_groups");
  // Version 18: scale and bias have one value per group; 21: per channel.
  const SymInt per = per_channel ? x[1] : SymInt(groups);
  require_vector(ctx, 1, per, "GroupNormalization scale");
  require_vector(ctx, 2, per, "GroupNormalization bias");
  same_as_input(ctx);
}

void same_shape_rule(OpContext& ctx) { same_as_input(ctx); }

// ---------------------------------------------------------------- resizing

void resize_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(x.size());
  // Version 10: (X, scales). 11+: (X, roi, scales, sizes); an empty tensor means "absent".
  const size_t scales_at = ctx.declares_input("roi") ? 2 : 1;
  auto present = [&](size_t i) {
    if (!ctx.has_input(i)) return false;
    const SymShape& s = ctx.shape(i);
    return !(s.size() == 1 && s[0].is_static() && s[0].value() == 0);
  };
  const bool has_scales = present(scales_at);
  const bool has_sizes = ctx.declares_input("sizes") && present(3);
  if (has_scales == has_sizes)
    ctx.fail(ErrorKind::InvalidArgument, "Resize needs exactly one of 'scales' and 'sizes'");
  std::vector<int64_t> axes;
  if (ctx.declares_attribute("axes") && ctx.has_attr("axes")) {  // 18+
    axes = normalize_axes(ctx, *ctx.attr_ints("axes"), rank);
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  const std::string policy =
      ctx.declares_attribute("keep_aspect_ratio_policy") ? ctx.attr_string("keep_aspect_ratio_policy") : "stretch";
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    ctx.fail(ErrorKind::InvalidAttribute, "Resize keep_aspect_ratio_policy '" + policy + "' is unknown");
  if (has_scales && policy != "stretch")
    ctx.fail(ErrorKind::InvalidAttribute, "Resize scales cannot be used with keep_aspect_ratio_policy " + policy);
  SymShape out = x;
  if (has_scales) {
    resize_by_scales(ctx, scales_at, axes, out);
  } else if (auto sizes = ctx.ints(3)) {
    if (sizes->size() != axes.size())
      ctx.fail(ErrorKind::InvalidShape, "Resize sizes has " + std::to_string(sizes->size()) + " values for " +
                                            std::to_string(axes.size()) + " axes");
    if (policy == "stretch") {
      for (size_t i = 0; i < axes.size(); ++i) out[static_cast<size_t>(axes[i])] = (*sizes)[i];
    } else {
      keep_aspect_ratio(ctx, policy == "not_larger", axes, *sizes, out);
    }
  } else {
    const std::string why = "Resize sizes '" + ctx.input_name(3) + "' are not known";
    for (int64_t a : axes) out[static_cast<size_t>(a)] = ctx.unknown_size(why);
  }
  for (const SymInt& d : out)
    if (d.is_static() && d.value() < 0)
      ctx.fail(ErrorKind::InvalidShape, "Resize output size " + std::to_string(d.value()) + " is negative");
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void upsample_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  std::vector<int64_t> axes;
  for (size_t i = 0; i < x.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  SymShape out = x;
  if (!ctx.declares_input("scales")) {  // an attribute before 9
    auto scales = ctx.attr_floats("scales");
    if (!scales) ctx.fail(ErrorKind::MissingAttribute, "Upsample needs attribute 'scales' before opset 9");
    std::vector<double> s(scales->begin(), scales->end());
    apply_scales(ctx, s, axes, out);
  } else {
    resize_by_scales(ctx, 1, axes, out);
  }
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

template <bool four_d_only>
void grid_sample_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const SymShape& grid = ctx.shape(1);
  if (x.size() < 3) ctx.fail(ErrorKind::InvalidRank, "GridSample needs input of rank >= 3, got " + shape_to_string(x));
  if (four_d_only && x.size() != 4)
    ctx.fail(ErrorKind::InvalidRank, "GridSample before opset 20 needs a 4-D input, got " + shape_to_string(x));
  if (grid.size() != x.size())
    ctx.fail(ErrorKind::InvalidRank, "GridSample grid " + shape_to_string(grid) + " must have the rank of input " +
                                         shape_to_string(x));
  const int64_t spatial = static_cast<int64_t>(x.size()) - 2;
  require_equal(ctx, grid.back(), spatial, "GridSample: grid's last dim is the number of spatial dims");
  require_equal(ctx, grid[0], x[0], "GridSample: batch sizes agree");
  SymShape out = {x[0], x[1]};
  out.insert(out.end(), grid.begin() + 1, grid.end() - 1);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void affine_grid_rule(OpContext& ctx) {
  const SymShape& theta = ctx.shape(0);
  if (theta.size() != 3) ctx.fail(ErrorKind::InvalidRank, "AffineGrid needs 3-D theta, got " + shape_to_string(theta));
  auto length = static_shape(ctx.shape(1));
  if (ctx.rank(1) != 1 || !length || ((*length)[0] != 4 && (*length)[0] != 5))
    ctx.fail(ErrorKind::InvalidShape, "AffineGrid size must be a 1-D tensor of 4 or 5 values, got shape " +
                                          shape_to_string(ctx.shape(1)));
  const int64_t spatial = (*length)[0] - 2;
  require_equal(ctx, theta[1], spatial, "AffineGrid: theta is (N, 2, 3) or (N, 3, 4)");
  require_equal(ctx, theta[2], spatial + 1, "AffineGrid: theta is (N, 2, 3) or (N, 3, 4)");
  SymShape size;
  if (auto known = ctx.ints(1)) {
    size = *known;
  } else {
    for (int64_t i = 0; i < spatial + 2; ++i)
      size.push_back(ctx.unknown_size("AffineGrid size '" + ctx.input_name(1) + "' is not known"));
  }
  require_equal(ctx, size[0], theta[0], "AffineGrid: batch sizes agree");
  SymShape out = {theta[0]};
  out.insert(out.end(), size.begin() + 2, size.end());
  out.push_back(spatial);
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void col2im_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  if (x.size() != 3)
    ctx.fail(ErrorKind::InvalidRank, "Col2Im needs a 3-D input (N, C*prod(block), L), got " + shape_to_string(x));
  auto n_image = static_shape(ctx.shape(1));
  auto n_block = static_shape(ctx.shape(2));
  if (ctx.rank(1) != 1 || ctx.rank(2) != 1 || !n_image || !n_block || (*n_image)[0] != (*n_block)[0])
    ctx.fail(ErrorKind::InvalidShape, "Col2Im image_shape and block_shape must be 1-D of the same length");
  const int64_t spatial = (*n_image)[0];
  SymShape image;
  if (auto known = ctx.ints(1)) {
    image = *known;
  } else {
    for (int64_t i = 0; i < spatial; ++i)
      image.push_back(ctx.unknown_size("Col2Im image_shape '" + ctx.input_name(1) + "' is not known"));
  }
  SymShape out = {x[0]};
  auto block = ctx.static_ints(2);
  if (block) {
    SymInt block_size = 1;
    for (int64_t b : *block) block_size = block_size * b;
    require_divisible(ctx, x[1], block_size, "Col2Im: channels divisible by the block size");
    out.push_back(floordiv(x[1], block_size));
    // L is the number of block positions over the padded image.
    const WindowAttrs attrs = read_window_attrs(ctx, *block, true, false);
    const SymShape positions = window_output_sizes(ctx, image, attrs);
    require_equal(ctx, x[2], numel(positions), "Col2Im: L equals the number of blocks");
  } else {
    out.push_back(ctx.unknown_size("Col2Im block_shape '" + ctx.input_name(2) + "' is not known"));
  }
  out.insert(out.end(), image.begin(), image.end());
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

// ---------------------------------------------------------------- recurrent networks

void rnn(OpContext& ctx, int64_t gates, bool has_cell) {
  const SymShape& x = ctx.shape(0);
  const SymShape& w = ctx.shape(1);
  const SymShape& r = ctx.shape(2);
  if (x.size() != 3 || w.size() != 3 || r.size() != 3)
    ctx.fail(ErrorKind::InvalidRank, ctx.op_type() + " needs 3-D X, W and R, got " + shape_to_string(x) + ", " +
                                         shape_to_string(w) + ", " + shape_to_string(r));
  const std::string direction = ctx.attr_string("direction", "forward");
  int64_t directions = 1;
  if (direction == "bidirectional") directions = 2;
  else if (direction != "forward" && direction != "reverse")
    ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " direction '" + direction + "' is unknown");
  const int64_t layout = ctx.declares_attribute("layout") ? ctx.attr_int("layout") : 0;  // 14+
  if (layout != 0 && layout != 1) ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " layout must be 0 or 1");
  const SymInt& seq = layout ? x[1] : x[0];
  const SymInt& batch = layout ? x[0] : x[1];
  SymInt hidden = r[2];
  if (ctx.has_attr("hidden_size")) {
    hidden = ctx.attr_int("hidden_size", 0);
    if (hidden.value() <= 0) ctx.fail(ErrorKind::InvalidAttribute, ctx.op_type() + " hidden_size must be positive");
    require_equal(ctx, r[2], hidden, "RNN: R is (directions, gates*hidden, hidden)");
  }
  const std::string why = "RNN: weights agree with direction and hidden_size";
  require_equal(ctx, w[0], directions, why.c_str());
  require_equal(ctx, r[0], directions, why.c_str());
  require_equal(ctx, w[1], hidden * gates, why.c_str());
  require_equal(ctx, r[1], hidden * gates, why.c_str());
  require_equal(ctx, w[2], x[2], "RNN: W's input size matches X");
  if (ctx.has_input(4)) require_vector(ctx, 4, batch, ctx.op_type() + " sequence_lens");
  const DType t = ctx.dtype(0);
  hidden = simplified(ctx, hidden);
  if (ctx.wants_output(0)) {
    ctx.set_tensor(0, t, layout ? SymShape{batch, seq, directions, hidden} : SymShape{seq, directions, batch, hidden});
  }
  const SymShape state = layout ? SymShape{batch, directions, hidden} : SymShape{directions, batch, hidden};
  if (ctx.wants_output(1)) ctx.set_tensor(1, t, state);
  if (has_cell && ctx.wants_output(2)) ctx.set_tensor(2, t, state);
  if (!has_cell && ctx.num_outputs() > 2) ctx.fail(ErrorKind::OutputCount, ctx.op_type() + " has at most 2 outputs");
}

void rnn_rule(OpContext& ctx) { rnn(ctx, 1, false); }
void gru_rule(OpContext& ctx) { rnn(ctx, 3, false); }
void lstm_rule(OpContext& ctx) { rnn(ctx, 4, true); }

// ---------------------------------------------------------------- signal processing

void dft_rule(OpContext& ctx) {
  const SymShape& x = ctx.shape(0);
  const int64_t rank = static_cast<int64_t>(x.size());
  if (rank < 2) ctx.fail(ErrorKind::InvalidRank, "DFT needs input of rank >= 2 (the last dim holds real/imaginary)");
  const bool onesided = ctx.attr_int("onesided") != 0, inverse = ctx.attr_int("inverse") != 0;
  const SymInt& parts = x.back();
  if (onesided) {
    require_equal(ctx, parts, inverse ? 2 : 1,
                  inverse ? "DFT: inverse one-sided DFT needs complex input" : "DFT: one-sided DFT needs real input");
  } else if (!ctx.expect(sym_or(sym_eq(parts, 1), sym_eq(parts, 2)), "DFT: last dim is 1 (real) or 2 (complex)")) {
    ctx.fail(ErrorKind::InvalidShape, "DFT input's last dim must be 1 or 2, got " + parts.to_python());
  }
  SymShape out = x;
  out.back() = onesided && inverse ? 1 : 2;
  int64_t axis = 1;
  if (ctx.declares_input("axis")) {  // an attribute before 20
    axis = -2;
    if (ctx.has_input(2)) {
      auto a = ctx.static_ints(2);
      if (!a || a->size() != 1) {
        // Unknown axis: only a full-length transform keeps the other dims.
        if (onesided || ctx.has_input(1))
          for (int64_t d = 0; d + 1 < rank; ++d) out[static_cast<size_t>(d)] = ctx.unknown_size("DFT axis is not known");
        simplify_all(ctx, out);
        ctx.set_tensor(0, ctx.dtype(0), std::move(out));
        return;
      }
      axis = (*a)[0];
    }
  } else {
    axis = ctx.attr_int("axis");
  }
  if (axis < -rank || axis == -1 || axis >= rank - 1)
    ctx.fail(ErrorKind::InvalidAxis, "DFT axis " + std::to_string(axis) + " is invalid for input rank " +
                                         std::to_string(rank));
  const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  SymInt length = onesided && inverse ? (x[a] - 1) * 2 : x[a];
  if (ctx.has_input(1)) {
    auto n = ctx.scalar_int(1);
    length = n ? *n : ctx.unknown_size("DFT dft_length '" + ctx.input_name(1) + "' is not known");
    if (!ctx.expect(sym_ge(length, 1), "DFT: dft_length >= 1"))
      ctx.fail(ErrorKind::InvalidShape, "DFT dft_length must be positive, got " + length.to_python());
  }
  out[a] = onesided && !inverse ? floordiv(length, 2) + 1 : length;
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void stft_rule(OpContext& ctx) {
  const SymShape& signal = ctx.shape(0);
  if (signal.size() != 3)
    ctx.fail(ErrorKind::InvalidRank, "STFT needs a 3-D signal (batch, length, 1 or 2), got " + shape_to_string(signal));
  const bool onesided = ctx.attr_int("onesided") != 0;
  if (onesided) require_equal(ctx, signal[2], 1, "STFT: one-sided output needs a real signal");
  std::optional<SymInt> frame_length;
  if (ctx.has_input(3)) {
    auto n = ctx.scalar_int(3);
    frame_length = n ? *n : ctx.unknown_size("STFT frame_length '" + ctx.input_name(3) + "' is not known");
  }
  if (ctx.has_input(2)) {
    const SymShape& window = ctx.shape(2);
    if (window.size() != 1) ctx.fail(ErrorKind::InvalidRank, "STFT window must be 1-D, got " + shape_to_string(window));
    if (frame_length) require_equal(ctx, window[0], *frame_length, "STFT: window length = frame_length");
    else frame_length = window[0];
  }
  if (!frame_length) ctx.fail(ErrorKind::MissingInput, "STFT needs a window or a frame_length");
  if (!ctx.expect(sym_ge(*frame_length, 1), "STFT: frame_length >= 1"))
    ctx.fail(ErrorKind::InvalidShape, "STFT frame_length must be positive");
  SymInt frames;
  if (auto step = ctx.scalar_int(1)) {
    if (!ctx.expect(sym_ge(*step, 1), "STFT: frame_step >= 1"))
      ctx.fail(ErrorKind::InvalidShape, "STFT frame_step must be positive");
    if (!ctx.expect(sym_ge(signal[1], *frame_length), "STFT: signal at least one frame long"))
      ctx.fail(ErrorKind::InvalidShape, "STFT signal length " + signal[1].to_python() +
                                            " is shorter than the frame length " + frame_length->to_python());
    frames = floordiv(signal[1] - *frame_length, *step) + 1;
  } else {
    frames = ctx.unknown_size("STFT frame_step '" + ctx.input_name(1) + "' is not known");
  }
  const SymInt bins = onesided ? floordiv(*frame_length, 2) + 1 : *frame_length;
  SymShape out = {signal[0], frames, bins, 2};
  simplify_all(ctx, out);
  ctx.set_tensor(0, ctx.dtype(0), std::move(out));
}

void mel_weight_matrix_rule(OpContext& ctx) {
  auto dtype = dtype_from_onnx(static_cast<int32_t>(ctx.attr_int("output_datatype")));
  if (!dtype) ctx.fail(ErrorKind::InvalidAttribute, "MelWeightMatrix output_datatype is not a known type");
  auto bins = ctx.scalar_int(0);
  auto dft_length = ctx.scalar_int(1);
  SymShape out = {dft_length ? floordiv(*dft_length, 2) + 1
                             : ctx.unknown_size("MelWeightMatrix dft_length '" + ctx.input_name(1) + "' is not known"),
                  bins ? *bins : ctx.unknown_size("MelWeightMatrix num_mel_bins '" + ctx.input_name(0) + "' is not known")};
  for (const SymInt& d : out)
    if (!ctx.expect(sym_ge(d, 0), "MelWeightMatrix: sizes are not negative"))
      ctx.fail(ErrorKind::InvalidShape, "MelWeightMatrix output size " + d.to_python() + " is negative");
  simplify_all(ctx, out);
  ctx.set_tensor(0, *dtype, std::move(out));
}

// ImageDecoder: the image size lives in the encoded bytes.
void image_decoder_rule(OpContext& ctx) {
  if (ctx.rank(0) != 1) ctx.fail(ErrorKind::InvalidRank, "ImageDecoder needs a 1-D encoded stream");
  const std::string format = ctx.attr_string("pixel_format");
  int64_t channels = 3;
  if (format == "Grayscale") channels = 1;
  else if (format != "RGB" && format != "BGR")
    ctx.fail(ErrorKind::InvalidAttribute, "ImageDecoder pixel_format '" + format + "' is not RGB, BGR or Grayscale");
  const SymInt height = ctx.new_unbacked_size({1, kIntOo});
  const SymInt width = ctx.new_unbacked_size({1, kIntOo});
  ctx.set_tensor(0, DType::UInt8, {height, width, channels});
}

}  // namespace

std::span<const OpRuleEntry> nn_rules() {
  static constexpr OpRuleEntry kRules[] = {
      {"", "MatMul", matmul_rule},
      {"", "Gemm", gemm_rule},
      {"", "Einsum", einsum_rule},
      {"", "Conv", conv_rule},
      {"", "ConvTranspose", conv_transpose_rule},
      {"", "DeformConv", deform_conv_rule},
      {"", "MaxPool", pool_rule},
      {"", "AveragePool", pool_rule},
      {"", "LpPool", pool_rule},
      {"", "GlobalAveragePool", global_pool_rule},
      {"", "GlobalMaxPool", global_pool_rule},
      {"", "GlobalLpPool", global_pool_rule},
      {"", "MaxRoiPool", max_roi_pool_rule},
      {"", "RoiAlign", roi_align_rule},
      {"", "MaxUnpool", max_unpool_rule},
      {"", "BatchNormalization", batch_norm_rule},
      {"", "InstanceNormalization", instance_norm_rule},
      {"", "LayerNormalization", layer_norm_rule},
      {"", "RMSNormalization", rms_norm_rule},
      {"", "RotaryEmbedding", rotary_embedding_rule},
      {"", "SwiGLU", swiglu_rule},
      {"", "TensorScatter", tensor_scatter_rule},
      {"", "Attention", attention_rule<false>},
      {"", "Attention", attention_rule<true>, 25},
      {"", "GroupNormalization", group_norm_rule<false>},
      {"", "GroupNormalization", group_norm_rule<true>, 21},
      {"", "LRN", same_shape_rule},
      {"", "MeanVarianceNormalization", same_shape_rule},
      {"", "Resize", resize_rule},
      {"", "Upsample", upsample_rule},
      {"", "GridSample", grid_sample_rule<true>},
      {"", "GridSample", grid_sample_rule<false>, 20},
      {"", "AffineGrid", affine_grid_rule},
      {"", "Col2Im", col2im_rule},
      {"", "RNN", rnn_rule},
      {"", "GRU", gru_rule},
      {"", "LSTM", lstm_rule},
      {"", "DFT", dft_rule},
      {"", "STFT", stft_rule},
      {"", "MelWeightMatrix", mel_weight_matrix_rule},
      {"", "ImageDecoder", image_decoder_rule},
  };
  return kRules;
}

}  // namespace fakeprop::onnx::ops
