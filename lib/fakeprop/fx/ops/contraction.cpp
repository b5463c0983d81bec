// Contractions that ATen implements as a composite of other ops (einsum),
// replayed through the rules of the ops it calls (composite.h).
#include <algorithm>
#include <cctype>
#include <deque>
#include <string>
#include <vector>

#include "fakeprop/fx/op_context.h"
#include "fakeprop/fx/ops/aten_helpers.h"
#include "fakeprop/fx/ops/composite.h"
#include "fakeprop/fx/ops/families.h"

namespace fakeprop::fx::ops {

namespace {

// ---- einsum (at::native::einsum and its sumproduct_pair) ----

constexpr int kLetters = 26;
constexpr int kLabels = 2 * kLetters;  // A-Z then a-z
constexpr int kEllipsis = kLabels;

int subscript(unsigned char c) { return std::isupper(c) ? c - 'A' : c - 'a' + kLetters; }
char label(int s) { return static_cast<char>(s < kLetters ? 'A' + s : 'a' + s - kLetters); }

// `size != 1` as ATen asks it of a SymInt (a guard when symbolic).
bool not_one(OpContext& ctx, const SymInt& size) { return decide(ctx, sym_ne(size, 1), "einsum"); }

// torch 2.15's sumproduct_pair swaps the operands (and their lo/ro dims) when
// every right-only dim comes before every left-only one, so that bmm writes the
// output's leading dims first. Dims of size 1 in both count as right-only, as
// they are classified before the swap (1,700 random equations agree with torch).
void swap_when_right_leads(TensorValue& left, TensorValue& right, std::vector<int64_t>& lo, std::vector<int64_t>& ro,
                           SymInt& lo_size, SymInt& ro_size) {
  if (lo.empty() || ro.empty() || ro.back() > lo.front()) return;
  std::swap(left, right);
  std::swap(lo, ro);
  std::swap(lo_size, ro_size);
}

// (left * right).sum(sum_dims, keepdim=True) through one bmm: both operands
// have the same rank, size-1 dims broadcast.
TensorValue sumproduct_pair(OpContext& ctx, Composite& c, TensorValue left, TensorValue right,
                            const std::vector<int64_t>& sum_dims) {
  if (sum_dims.empty()) return c.call("aten.mul.Tensor", {Composite::tensor(left), Composite::tensor(right)});
  const int64_t rank = left.meta.dim();
  std::vector<bool> summed(static_cast<size_t>(rank), false);
  for (int64_t d : sum_dims) summed[static_cast<size_t>(d)] = true;
  std::vector<int64_t> lro, lo, ro;
  SymInt lro_size(1), lo_size(1), ro_size(1), sum_size(1);
  for (int64_t i = 0; i < rank; ++i) {
    const size_t k = static_cast<size_t>(i);
    const bool sl = not_one(ctx, left.meta.sizes[k]);
    const bool sr = not_one(ctx, right.meta.sizes[k]);
    if (summed[k]) {
      if (sl && sr) {
        if (!same_size(ctx, left.meta.sizes[k], right.meta.sizes[k], "einsum"))
          ctx.fail(ErrorKind::ShapeMismatch, "non-broadcast dimensions must match");
        sum_size = sum_size * left.meta.sizes[k];
      } else if (sl) {
        left = c.sum(left, {i}, true);
      } else if (sr) {
        right = c.sum(right, {i}, true);
      }
    } else if (sl && sr) {
      if (!same_size(ctx, left.meta.sizes[k], right.meta.sizes[k], "einsum"))
        ctx.fail(ErrorKind::ShapeMismatch, "non-broadcast dimensions must match");
      lro.push_back(i);
      lro_size = lro_size * left.meta.sizes[k];
    } else if (sl) {
      lo.push_back(i);
      lo_size = lo_size * left.meta.sizes[k];
    } else {
      ro.push_back(i);
      ro_size = ro_size * right.meta.sizes[k];
    }
  }
  swap_when_right_leads(left, right, lo, ro, lo_size, ro_size);
  auto concat = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> out;
    for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
    return out;
  };
  SymShape out_size;
  for (int64_t d : lro) out_size.push_back(left.meta.sizes[static_cast<size_t>(d)]);
  for (int64_t d : lo) out_size.push_back(left.meta.sizes[static_cast<size_t>(d)]);
  for (size_t k = 0; k < sum_dims.size(); ++k) out_size.push_back(SymInt(1));
  for (int64_t d : ro) out_size.push_back(right.meta.sizes[static_cast<size_t>(d)]);
  const std::vector<int64_t> lperm = concat({&lro, &lo, &sum_dims, &ro});
  const std::vector<int64_t> rperm = concat({&lro, &sum_dims, &ro, &lo});
  std::vector<int64_t> operm(lperm.size(), -1);
  for (size_t i = 0; i < lperm.size(); ++i) operm[static_cast<size_t>(lperm[i])] = static_cast<int64_t>(i);

  const std::string reshape = "aten.reshape.default";
  left = c.call(reshape, {Composite::tensor(c.permute(left, lperm)), Composite::sizes({lro_size, lo_size, sum_size})});
  right = c.call(reshape, {Composite::tensor(c.permute(right, rperm)), Composite::sizes({lro_size, sum_size, ro_size})});
  TensorValue result = c.call("aten.bmm.default", {Composite::tensor(left), Composite::tensor(right)});
  result = c.call("aten.view.default", {Composite::tensor(result), Composite::sizes(out_size)});
  return c.permute(result, operm);
}

// einsum(equation, tensors, *, path=None)
void einsum(OpContext& ctx) {
  const std::string equation = ctx.string_arg("equation");
  const Value& list = ctx.value("tensors");
  if (list.kind != Value::Kind::List || list.list_length)
    ctx.fail(ErrorKind::TypeError, "einsum: argument 'tensors' (position 1) must be a list of tensors");
  std::vector<TensorValue> operands;
  for (const Value& v : *list.list) {
    if (v.kind != Value::Kind::Tensor) ctx.fail(ErrorKind::TypeError, "einsum(): operands must be tensors");
    operands.push_back(*v.tensor);
  }
  if (operands.empty()) ctx.fail(ErrorKind::InvalidArgument, "einsum(): must provide at least one operand");
  const size_t num_ops = operands.size();
  std::optional<std::vector<SymInt>> path = ctx.optional_int_list("path");
  if (path && path->size() != (num_ops == 1 ? 1 : (num_ops - 1) * 2))
    ctx.fail(ErrorKind::InvalidArgument, "einsum(): expected contraction path given in path parameter to have size " +
                                             std::to_string(num_ops == 1 ? 1 : (num_ops - 1) * 2) + " but got " +
                                             std::to_string(path->size()));
  auto invalid = [&](const std::string& what) { ctx.fail(ErrorKind::InvalidArgument, "einsum(): " + what); };

  // Labels of each operand (kEllipsis for "...").
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> op_labels(num_ops);
  size_t op = 0;
  bool ellipsis_seen = false;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(lhs[i]);
    if (ch == ' ') continue;
    if (ch == '.') {
      if (ellipsis_seen) invalid("found '.' for operand " + std::to_string(op) + " for which an ellipsis was already found");
      if (!(i + 2 < lhs.size() && lhs[++i] == '.' && lhs[++i] == '.'))
        invalid("found '.' for operand " + std::to_string(op) + " that is not part of any ellipsis");
      op_labels[op].push_back(kEllipsis);
      ellipsis_seen = true;
    } else if (ch == ',') {
      if (++op >= num_ops) invalid("fewer operands were provided than specified in the equation");
      ellipsis_seen = false;
    } else if (std::isalpha(ch)) {
      op_labels[op].push_back(subscript(ch));
    } else {
      invalid("invalid subscript given at index " + std::to_string(i) +
              " in the equation string, subscripts must be in [a-zA-Z]");
    }
  }
  if (op != num_ops - 1) invalid("more operands were provided than specified in the equation");

  std::vector<int64_t> label_count(kLabels, 0);
  int64_t ell_num_dim = 0;
  for (size_t i = 0; i < num_ops; ++i) {
    const int64_t ndims = operands[i].meta.dim();
    int64_t nlabels = static_cast<int64_t>(op_labels[i].size());
    bool has_ellipsis = false;
    for (int s : op_labels[i]) {
      if (s == kEllipsis) {
        --nlabels;
        has_ellipsis = true;
        ell_num_dim = std::max(ell_num_dim, ndims - nlabels);
      } else {
        ++label_count[static_cast<size_t>(s)];
      }
    }
    if (has_ellipsis ? nlabels > ndims : nlabels != ndims)
      invalid("the number of subscripts in the equation (" + std::to_string(nlabels) +
              (has_ellipsis ? ") is more than the number of dimensions (" : ") does not match the number of dimensions (") +
              std::to_string(ndims) + ") for operand " + std::to_string(i) +
              (has_ellipsis ? "" : " and no ellipsis was given"));
  }

  // Every operand is aligned to: output dims, then contraction dims.
  std::vector<int64_t> perm_of_label(kLabels, -1);
  int64_t perm_index = 0, ell_index = 0;
  bool ell_in_output = false;
  if (arrow == std::string::npos) {
    perm_index = ell_num_dim;  // implicit output: the ellipsis, then labels seen once, sorted
    ell_in_output = true;
    for (int s = 0; s < kLabels; ++s)
      if (label_count[static_cast<size_t>(s)] == 1) perm_of_label[static_cast<size_t>(s)] = perm_index++;
  } else {
    const std::string rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      const unsigned char ch = static_cast<unsigned char>(rhs[i]);
      if (ch == ' ') continue;
      if (ch == '.') {
        if (ell_in_output) invalid("found '.' for output but an ellipsis (...) was already found");
        if (!(i + 2 < rhs.size() && rhs[++i] == '.' && rhs[++i] == '.'))
          invalid("found '.' for output that is not part of any ellipsis (...)");
        ell_index = perm_index;
        perm_index += ell_num_dim;
        ell_in_output = true;
      } else if (std::isalpha(ch)) {
        const size_t s = static_cast<size_t>(subscript(ch));
        if (label_count[s] == 0 || perm_of_label[s] != -1)
          invalid(std::string("output subscript ") + static_cast<char>(ch) +
                  (perm_of_label[s] > -1 ? " appears more than once in the output"
                                         : " does not appear in the equation for any input operand"));
        perm_of_label[s] = perm_index++;
      } else {
        invalid("invalid subscript given at index " + std::to_string(lhs.size() + 2 + i) +
                " in the equation string, subscripts must be in [a-zA-Z]");
      }
    }
  }
  const int64_t out_num_dim = perm_index;
  if (!ell_in_output) {
    ell_index = perm_index;
    perm_index += ell_num_dim;
  }
  for (size_t s = 0; s < kLabels; ++s)
    if (label_count[s] > 0 && perm_of_label[s] == -1) perm_of_label[s] = perm_index++;

  // Check sizes, take diagonals of repeated labels, unsqueeze missing dims and permute.
  Composite c(ctx);
  std::vector<SymInt> label_size(kLabels, SymInt(1));
  std::vector<SymInt> ell_sizes(static_cast<size_t>(ell_num_dim), SymInt(1));
  std::vector<uint64_t> dim_counts(static_cast<size_t>(perm_index), 0);
  std::deque<TensorValue> ops;
  for (size_t i = 0; i < num_ops; ++i) {
    TensorValue t = operands[i];
    std::vector<int64_t> permutation(static_cast<size_t>(perm_index), -1);
    int64_t dim = 0;
    for (int s : op_labels[i]) {
      if (s == kEllipsis) {
        const int64_t ndim = operands[i].meta.dim() - (static_cast<int64_t>(op_labels[i].size()) - 1);
        for (int64_t j = ell_num_dim - ndim; j < ell_num_dim; ++j) {
          const SymInt size = t.meta.sizes[static_cast<size_t>(dim)];
          SymInt& seen = ell_sizes[static_cast<size_t>(j)];
          if (not_one(ctx, size)) {
            if (!(same_size(ctx, seen, SymInt(1), "einsum") || same_size(ctx, seen, size, "einsum")))
              invalid("dimension " + std::to_string(dim) + " covered by ellipsis in operand " + std::to_string(i) +
                      "has size " + text(size) + " which does not broadcast with previously seen ellipsis with size " +
                      text(seen) + " for the respective dimension");
            seen = size;
            ++dim_counts[static_cast<size_t>(ell_index + j)];
          }
          permutation[static_cast<size_t>(ell_index + j)] = dim++;
        }
      } else if (int64_t& slot = permutation[static_cast<size_t>(perm_of_label[static_cast<size_t>(s)])]; slot == -1) {
        const SymInt size = t.meta.sizes[static_cast<size_t>(dim)];
        SymInt& seen = label_size[static_cast<size_t>(s)];
        if (not_one(ctx, size)) {
          if (!(same_size(ctx, seen, SymInt(1), "einsum") || same_size(ctx, seen, size, "einsum")))
            invalid(std::string("subscript ") + label(s) + " has size " + text(size) + " for operand " +
                    std::to_string(i) + " which does not broadcast with previously seen size " + text(seen));
          seen = size;
          ++dim_counts[static_cast<size_t>(perm_of_label[static_cast<size_t>(s)])];
        }
        slot = dim++;
      } else {  // a repeated label: its diagonal, moved to the first occurrence
        const int64_t prev = slot;
        const SymInt size = t.meta.sizes[static_cast<size_t>(dim)];
        const SymInt prev_size = t.meta.sizes[static_cast<size_t>(prev)];
        if (!same_size(ctx, size, prev_size, "einsum"))
          invalid(std::string("subscript ") + label(s) + " is repeated for operand " + std::to_string(i) +
                  " but the sizes don't match, " + text(size) + " != " + text(prev_size));
        t = c.call("aten.diagonal.default",
                   {Composite::tensor(t), Value::of_int(SymInt(0)), Value::of_int(SymInt(prev)), Value::of_int(SymInt(dim))});
        // movedim(-1, prev): the diagonal, last, goes back to where the label first was
        std::vector<int64_t> order;
        const int64_t rank = t.meta.dim();
        for (int64_t d = 0; d < rank - 1; ++d) {
          if (d == prev) order.push_back(rank - 1);
          order.push_back(d);
        }
        if (prev == rank - 1) order.push_back(rank - 1);
        t = c.permute(t, order);
      }
    }
    for (int64_t& v : permutation)
      if (v == -1) {
        t = c.call("aten.unsqueeze.default", {Composite::tensor(t), Value::of_int(SymInt(dim))});
        v = dim++;
      }
    ops.push_back(c.permute(t, permutation));
  }

  // Contract pairs: left to right, or as the path says.
  size_t step = 0;
  while (ops.size() > 1) {
    int64_t i = 0, j = 1;
    if (path) {
      i = specialize(ctx, (*path)[step++], "einsum path");
      j = specialize(ctx, (*path)[step++], "einsum path");
      if (j < i) std::swap(i, j);
      if (i == j || i < 0 || j >= static_cast<int64_t>(ops.size()))
        invalid("invalid contraction (" + std::to_string(i) + ", " + std::to_string(j) +
                (i == j ? ") cannot contract an operand with itself" : ") operand index is out of bounds"));
    }
    TensorValue a = ops[static_cast<size_t>(i)];
    TensorValue b = ops[static_cast<size_t>(j)];
    ops.erase(ops.begin() + j);
    ops.erase(ops.begin() + i);
    std::vector<int64_t> sum_dims, a_dims_to_sum, b_dims_to_sum;
    for (int64_t d = out_num_dim; d < perm_index; ++d) {
      const size_t k = static_cast<size_t>(d);
      const bool a_has = not_one(ctx, a.meta.sizes[k]);
      if (a_has && not_one(ctx, b.meta.sizes[k])) {
        if (--dim_counts[k] == 1) {
          sum_dims.push_back(d);
          dim_counts[k] = 0;
        }
      } else if (dim_counts[k] == 1) {
        if (not_one(ctx, a.meta.sizes[k])) {
          a_dims_to_sum.push_back(d);
          dim_counts[k] = 0;
        } else if (not_one(ctx, b.meta.sizes[k])) {
          b_dims_to_sum.push_back(d);
          dim_counts[k] = 0;
        }
      }
    }
    if (!a_dims_to_sum.empty()) a = c.sum(a, a_dims_to_sum, true);
    if (!b_dims_to_sum.empty()) b = c.sum(b, b_dims_to_sum, true);
    TensorValue r = sumproduct_pair(ctx, c, std::move(a), std::move(b), sum_dims);
    if (path)
      ops.push_back(std::move(r));
    else
      ops.push_front(std::move(r));
  }

  // The contraction dims, all size 1 by now when there were pairs, go.
  TensorValue result = ops.front();
  if (perm_index > out_num_dim) {
    if (num_ops > 1) {
      SymShape sizes(result.meta.sizes.begin(), result.meta.sizes.begin() + out_num_dim);
      result = c.call("aten.view.default", {Composite::tensor(result), Composite::sizes(sizes)});
    } else {
      std::vector<int64_t> dims;
      for (int64_t d = out_num_dim; d < perm_index; ++d) dims.push_back(d);
      result = c.sum(result, dims, false);
    }
  }
  ctx.set_result(ctx.tensor_result(std::move(result)));
}

}  // namespace

void register_contraction_ops(OpRegistry& r) { r.add("aten.einsum.default", einsum); }

}  // namespace fakeprop::fx::ops
