#include "fakeprop/sizing/flop_count.h"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

using Shape = std::vector<ExprRef>;

// A needed tensor or size is not there (a failed node's input): no count.
struct NotCountable {};

Shape shape_of(const Value* v) {
  if (!v || !v->is_tensor()) throw NotCountable{};
  Shape s;
  s.reserve(v->tensor->meta.sizes.size());
  for (const SymInt& d : v->tensor->meta.sizes) s.push_back(d.expr());
  return s;
}

ExprRef product(std::span<const ExprRef> xs) {
  ExprRef r = integer(1);
  for (ExprRef x : xs) r = mul(r, x);
  return r;
}

ExprRef at(const Shape& s, int64_t i) {
  const int64_t n = static_cast<int64_t>(s.size());
  if (i < 0) i += n;
  if (i < 0 || i >= n) throw NotCountable{};
  return s[static_cast<size_t>(i)];
}

// The i-th tensor a node produced: its i-th output, or element i of the tuple it returned.
const Value* output_tensor(const OutputList& outputs, size_t i) {
  if (outputs.size() == 1 && outputs[0].val.kind == Value::Kind::List) {  // an FX call's tuple
    const Value& tuple = outputs[0].val;
    return tuple.list && !tuple.list_length && tuple.list->size() > i ? &(*tuple.list)[i] : nullptr;
  }
  return outputs.size() > i ? &outputs[i].val : nullptr;
}

bool flag(const Value* v, bool otherwise) {
  if (!v || v->kind != Value::Kind::Bool || !v->b.is_static()) return otherwise;
  return v->b.value();
}

ExprRef mm_count(ExprRef m, ExprRef k, ExprRef n) { return mul(mul(mul(m, n), k), 2); }

ExprRef bmm_count(ExprRef b, ExprRef m, ExprRef k, ExprRef n) { return mul(b, mm_count(m, k, n)); }

// flop_counter.conv_flop_count: the output's (for a transposed
// convolution, the input's) spatial points times the filter times the
// batch and both channel counts, times two.
ExprRef conv_count(const Shape& x, const Shape& w, const Shape& out, bool transposed) {
  if (x.size() < 2 || w.size() < 2) throw NotCountable{};
  const Shape& spatial_from = transposed ? x : out;
  if (spatial_from.size() < 2) throw NotCountable{};
  const ExprRef points = product(std::span(spatial_from).subspan(2));
  const ExprRef filter = product(std::span(w).subspan(2));
  return mul(mul(mul(mul(mul(points, filter), x[0]), w[0]), w[1]), 2);
}

Shape swapped_channels(Shape s) {
  if (s.size() >= 2) std::swap(s[0], s[1]);
  return s;
}

// flop_counter.sdpa_flop_count over [B, H, L, E] query, key and value.
ExprRef sdpa_count(const Shape& q, const Shape& k, const Shape& v) {
  if (q.size() != 4 || k.size() != 4 || v.size() != 4) throw NotCountable{};
  const ExprRef bh = mul(q[0], q[1]);
  return add(bmm_count(bh, q[2], q[3], k[2]), bmm_count(bh, q[2], k[2], v[3]));
}

// flop_counter.sdpa_backward_flop_count: the scores recomputed and four
// gradient products.
ExprRef sdpa_backward_count(const Shape& q, const Shape& k, const Shape& v) {
  if (q.size() != 4 || k.size() != 4 || v.size() != 4) throw NotCountable{};
  const ExprRef bh = mul(q[0], q[1]);
  const ExprRef sq = q[2], dq = q[3], sk = k[2], dv = v[3];
  ExprRef total = bmm_count(bh, sq, dq, sk);
  total = add(total, bmm_count(bh, sq, dv, sk));
  total = add(total, bmm_count(bh, sk, sq, dv));
  total = add(total, bmm_count(bh, sq, sk, dq));
  return add(total, bmm_count(bh, dq, sq, sk));
}

// torch.matmul's count: what it dispatches to. A product with a vector on
// the right (mv, dot, or a folded mv) counts nothing; everything else
// becomes mm or bmm over the output's elements times the contracted size.
ExprRef matmul_count(const Shape& a, const Shape& b, const Shape& out) {
  if (a.empty() || b.empty()) throw NotCountable{};
  if (b.size() == 1) return nullptr;
  return mul(mul(product(out), a.back()), 2);
}

// One einsum operand's letters, '.'-free: an ellipsis becomes one private
// character (a control character, never a letter) per dim it covers,
// numbered from the right so that broadcast dims of different operands match.
char ellipsis_dim(size_t j) { return static_cast<char>(1 + j % 30); }
bool is_ellipsis_dim(char c) { return c >= 1 && c <= 30; }

std::string expand_ellipsis(std::string_view term, size_t rank) {
  const size_t dots = term.find("...");
  if (dots == std::string_view::npos) return std::string(term);
  const size_t letters = term.size() - 3;
  if (rank < letters) throw NotCountable{};
  const size_t covered = rank - letters;
  std::string out(term.substr(0, dots));
  for (size_t j = covered; j-- > 0;) out.push_back(ellipsis_dim(j));
  out += term.substr(dots + 3);
  return out;
}

// torch.einsum's count for two or more operands, contracted left to right
// (torch's order without opt_einsum): each pairwise contraction is a bmm
// over the dims both keep (batch), each one's own kept dims and the summed
// dims; dims only one operand has and nothing later needs are summed first,
// for free.
ExprRef einsum_count(std::string equation, std::span<const Shape> operands) {
  std::string spaced;
  for (char c : equation)
    if (c != ' ') spaced.push_back(c);
  equation = spaced;
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != operands.size() || terms.size() < 2) return nullptr;
  std::map<char, ExprRef> size;
  std::vector<std::string> letters;
  for (size_t i = 0; i < terms.size(); ++i) {
    letters.push_back(expand_ellipsis(terms[i], operands[i].size()));
    if (letters.back().size() != operands[i].size()) throw NotCountable{};
    for (size_t d = 0; d < letters.back().size(); ++d) {
      const char c = letters.back()[d];
      auto [it, inserted] = size.try_emplace(c, operands[i][d]);
      if (!inserted && as_integer(it->second) == std::optional<int64_t>(1)) it->second = operands[i][d];  // broadcast
    }
  }
  std::string output;
  if (arrow != std::string::npos) {
    size_t ellipsis_dims = 0;
    for (const auto& l : letters)
      for (char c : l)
        if (is_ellipsis_dim(c)) ellipsis_dims = std::max(ellipsis_dims, static_cast<size_t>(c));
    std::string rhs = equation.substr(arrow + 2);
    const size_t dots = rhs.find("...");
    if (dots != std::string::npos) {
      std::string e;
      for (size_t j = ellipsis_dims; j-- > 0;) e.push_back(ellipsis_dim(j));
      rhs = rhs.substr(0, dots) + e + rhs.substr(dots + 3);
    }
    output = rhs;
  } else {
    std::map<char, int> count;
    for (const auto& l : letters)
      for (char c : l) ++count[c];
    for (const auto& [c, n] : count)
      if (n == 1 || is_ellipsis_dim(c)) output.push_back(c);
  }
  for (char c : output)
    if (!size.count(c)) return nullptr;  // not an equation torch accepts
  ExprRef total = integer(0);
  std::string left = letters[0];
  for (size_t i = 1; i < letters.size(); ++i) {
    const std::string& right = letters[i];
    std::string later = output;
    for (size_t j = i + 1; j < letters.size(); ++j) later += letters[j];
    auto has = [](const std::string& s, char c) { return s.find(c) != std::string::npos; };
    ExprRef batch = integer(1), own_left = integer(1), own_right = integer(1), summed = integer(1);
    std::string kept;
    std::string seen;
    for (char c : left + right) {
      if (has(seen, c)) continue;
      seen.push_back(c);
      const bool l = has(left, c), r = has(right, c), needed = has(later, c);
      if (l && r) {
        (needed ? batch : summed) = mul(needed ? batch : summed, size.at(c));
      } else if (needed) {
        (l ? own_left : own_right) = mul(l ? own_left : own_right, size.at(c));
      }
      if (needed) kept.push_back(c);
    }
    total = add(total, bmm_count(batch, own_left, summed, own_right));
    left = kept;
  }
  return total;
}

std::string string_argument(const Value* v) {
  if (!v || v->kind != Value::Kind::Opaque) throw NotCountable{};
  return v->opaque_text();
}

std::vector<Shape> list_shapes(const Value* v) {
  if (!v || v->kind != Value::Kind::List || !v->list || v->list_length) throw NotCountable{};
  std::vector<Shape> out;
  for (const Value& x : *v->list) out.push_back(shape_of(&x));
  return out;
}

std::optional<int64_t> int_attribute(const NodeArguments& in, std::string_view name) {
  const auto text = in.attribute(name);
  if (!text) return std::nullopt;
  try {
    return std::stoll(*text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

using Counter = ExprRef (*)(const NodeArguments&, const OutputList&);

ExprRef conv_call_count(const NodeArguments& in, const OutputList& out, bool transposed) {
  Shape x = shape_of(in.get(0)), w = shape_of(in.get(1)), y = shape_of(output_tensor(out, 0));
  if (x.size() + 1 == w.size()) {  // an unbatched input: torch adds the batch dim
    x.insert(x.begin(), integer(1));
    y.insert(y.begin(), integer(1));
  }
  return conv_count(x, w, y, transposed);
}

const std::unordered_map<std::string_view, Counter>& aten_counters() {
  static const std::unordered_map<std::string_view, Counter> table = [] {
    std::unordered_map<std::string_view, Counter> t;
    Counter mm = [](const NodeArguments& in, const OutputList&) -> ExprRef {
      const Shape a = shape_of(in.get(0)), b = shape_of(in.get(1));
      if (a.size() != 2 || b.size() != 2) throw NotCountable{};
      return mm_count(a[0], a[1], b[1]);
    };
    t["aten.mm"] = mm;
    t["aten._scaled_mm"] = mm;
    t["aten.addmm"] = [](const NodeArguments& in, const OutputList&) -> ExprRef {
      const Shape a = shape_of(in.get(1)), b = shape_of(in.get(2));
      if (a.size() != 2 || b.size() != 2) throw NotCountable{};
      return mm_count(a[0], a[1], b[1]);
    };
    t["aten.bmm"] = [](const NodeArguments& in, const OutputList&) -> ExprRef {
      const Shape a = shape_of(in.get(0)), b = shape_of(in.get(1));
      if (a.size() != 3 || b.size() != 3) throw NotCountable{};
      return bmm_count(a[0], a[1], a[2], b[2]);
    };
    t["aten.baddbmm"] = [](const NodeArguments& in, const OutputList&) -> ExprRef {
      const Shape a = shape_of(in.get(1)), b = shape_of(in.get(2));
      if (a.size() != 3 || b.size() != 3) throw NotCountable{};
      return bmm_count(a[0], a[1], a[2], b[2]);
    };
    Counter convolution = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      return conv_count(shape_of(in.get(0)), shape_of(in.get(1)), shape_of(output_tensor(out, 0)),
                        flag(in.get(6, "transposed"), false));
    };
    for (std::string_view op : {"aten.convolution", "aten._convolution", "aten.cudnn_convolution",
                                "aten.convolution_overrideable", "aten._slow_conv2d_forward"})
      t[op] = convolution;
    t["aten.convolution_backward"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      const Shape grad_out = shape_of(in.get(0)), x = shape_of(in.get(1)), w = shape_of(in.get(2));
      const bool transposed = flag(in.get(7, "transposed"), false);
      const Value* mask = in.get(10, "output_mask");
      if (!mask || mask->kind != Value::Kind::List || !mask->list || mask->list->size() < 2) throw NotCountable{};
      ExprRef total = integer(0);
      if (flag(&(*mask->list)[0], false))
        total = add(total, conv_count(grad_out, w, shape_of(output_tensor(out, 0)), !transposed));
      if (flag(&(*mask->list)[1], false)) {
        const Shape grad_w = swapped_channels(shape_of(output_tensor(out, 1)));
        total = add(total, transposed ? conv_count(swapped_channels(grad_out), swapped_channels(x), grad_w, false)
                                      : conv_count(swapped_channels(x), swapped_channels(grad_out), grad_w, false));
      }
      return total;
    };
    Counter sdpa = [](const NodeArguments& in, const OutputList&) -> ExprRef {
      return sdpa_count(shape_of(in.get(0)), shape_of(in.get(1)), shape_of(in.get(2)));
    };
    for (std::string_view op :
         {"aten._scaled_dot_product_efficient_attention", "aten._scaled_dot_product_flash_attention",
          "aten._scaled_dot_product_flash_attention_for_cpu", "aten._scaled_dot_product_cudnn_attention",
          "higher_order.flex_attention"})  // flex: torch's formula is SDPA's (no sparsity hint in a graph)
      t[op] = sdpa;
    Counter sdpa_backward = [](const NodeArguments& in, const OutputList&) -> ExprRef {
      return sdpa_backward_count(shape_of(in.get(1)), shape_of(in.get(2)), shape_of(in.get(3)));
    };
    for (std::string_view op : {"aten._scaled_dot_product_efficient_attention_backward",
                                "aten._scaled_dot_product_flash_attention_backward",
                                "aten._scaled_dot_product_flash_attention_for_cpu_backward",
                                "aten._scaled_dot_product_cudnn_attention_backward"})
      t[op] = sdpa_backward;
    // Composite ops torch's counter decomposes before counting.
    t["aten.scaled_dot_product_attention"] = [](const NodeArguments& in, const OutputList&) -> ExprRef {
      const Shape q = shape_of(in.get(0)), k = shape_of(in.get(1)), v = shape_of(in.get(2));
      if (q.size() < 2 || k.size() < 2 || v.size() < 2) throw NotCountable{};
      const ExprRef batch = product(std::span(q).first(q.size() - 2));
      return add(bmm_count(batch, at(q, -2), at(q, -1), at(k, -2)), bmm_count(batch, at(q, -2), at(k, -2), at(v, -1)));
    };
    t["aten.linear"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      const Shape x = shape_of(in.get(0)), w = shape_of(in.get(1));
      if (w.size() != 2) return nullptr;  // a vector weight: mv or dot
      return matmul_count(x, {w[1], w[0]}, shape_of(output_tensor(out, 0)));
    };
    t["aten.matmul"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      return matmul_count(shape_of(in.get(0)), shape_of(in.get(1)), shape_of(output_tensor(out, 0)));
    };
    t["aten.einsum"] = [](const NodeArguments& in, const OutputList&) -> ExprRef {
      const std::vector<Shape> operands = list_shapes(in.get(1, "tensors"));
      return einsum_count(string_argument(in.get(0, "equation")), operands);
    };
    Counter conv_nd = [](const NodeArguments& in, const OutputList& out) {
      return conv_call_count(in, out, false);
    };
    for (std::string_view op : {"aten.conv1d", "aten.conv2d", "aten.conv3d"}) t[op] = conv_nd;
    Counter conv_transpose_nd = [](const NodeArguments& in, const OutputList& out) {
      return conv_call_count(in, out, true);
    };
    for (std::string_view op : {"aten.conv_transpose1d", "aten.conv_transpose2d", "aten.conv_transpose3d"})
      t[op] = conv_transpose_nd;
    return t;
  }();
  return table;
}

const std::unordered_map<std::string_view, Counter>& onnx_counters() {
  static const std::unordered_map<std::string_view, Counter> table = [] {
    std::unordered_map<std::string_view, Counter> t;
    t["MatMul"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      return matmul_count(shape_of(in.get(0)), shape_of(in.get(1)), shape_of(output_tensor(out, 0)));
    };
    t["Gemm"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      const Shape a = shape_of(in.get(0)), y = shape_of(output_tensor(out, 0));
      if (a.size() != 2 || y.size() != 2) throw NotCountable{};
      const ExprRef k = int_attribute(in, "transA").value_or(0) != 0 ? a[0] : a[1];
      return mm_count(y[0], k, y[1]);
    };
    t["Conv"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      return conv_count(shape_of(in.get(0)), shape_of(in.get(1)), shape_of(output_tensor(out, 0)), false);
    };
    t["ConvTranspose"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      return conv_count(shape_of(in.get(0)), shape_of(in.get(1)), shape_of(output_tensor(out, 0)), true);
    };
    t["Einsum"] = [](const NodeArguments& in, const OutputList&) -> ExprRef {
      if (!in.has_attributes()) return nullptr;
      const auto equation = in.attribute("equation");
      if (!equation) throw NotCountable{};
      std::vector<Shape> operands;
      for (const Value* v : in.args) operands.push_back(shape_of(v));
      return einsum_count(*equation, operands);
    };
    // ONNX Attention (opset 23): [B, H, S, E] inputs, or [B, S, H*E] with the head counts as attributes.
    t["Attention"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      Shape q = shape_of(in.get(0)), k = shape_of(in.get(1)), v = shape_of(in.get(2));
      if (const Value* present_key = output_tensor(out, 1); present_key && present_key->is_tensor())
        k = shape_of(present_key);
      if (const Value* present_value = output_tensor(out, 2); present_value && present_value->is_tensor())
        v = shape_of(present_value);
      if (q.size() == 4 && k.size() == 4 && v.size() == 4) return sdpa_count(q, k, v);
      if (q.size() != 3 || k.size() != 3 || v.size() != 3) throw NotCountable{};
      const auto q_heads = int_attribute(in, "q_num_heads"), kv_heads = int_attribute(in, "kv_num_heads");
      if (!q_heads || !kv_heads || *kv_heads <= 0 || *q_heads % *kv_heads != 0) throw NotCountable{};
      // scores: B*Hq*Sq*Sk*Eq; weighted values: B*Hq*Sq*Sk*Ev, Hq*Ev = V's width times Hq/Hkv
      const ExprRef value_width = mul(v[2], *q_heads / *kv_heads);
      return add(mm_count(mul(q[0], q[1]), q[2], k[1]), mm_count(mul(q[0], q[1]), k[1], value_width));
    };
    t["com.microsoft.MultiHeadAttention"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      const Shape q = shape_of(in.get(0)), k = shape_of(in.get(1)), y = shape_of(output_tensor(out, 0));
      if (q.size() != 3 || y.size() != 3) throw NotCountable{};
      ExprRef keys;
      if (k.size() == 3) keys = k[1];
      else if (k.size() == 4) keys = k[2];
      else throw NotCountable{};
      return add(mm_count(mul(q[0], q[1]), q[2], keys), mm_count(mul(q[0], q[1]), keys, y[2]));
    };
    // com.microsoft.Attention: the packed QKV projection, then attention over
    // the past and present keys (equal Q, K and V widths).
    t["com.microsoft.Attention"] = [](const NodeArguments& in, const OutputList& out) -> ExprRef {
      const Shape x = shape_of(in.get(0)), w = shape_of(in.get(1));
      if (x.size() != 3 || w.size() != 2) throw NotCountable{};
      if (in.attribute("qkv_hidden_sizes")) throw NotCountable{};
      const ExprRef tokens = mul(x[0], x[1]);
      ExprRef keys = x[1];
      if (const Value* present = output_tensor(out, 1); present && present->is_tensor()) {
        const Shape p = shape_of(present);
        if (p.size() == 5) keys = p[3];
      }
      const Shape y = shape_of(output_tensor(out, 0));
      if (y.size() != 3) throw NotCountable{};
      const ExprRef projection = mm_count(tokens, w[0], w[1]);
      return add(projection, add(mm_count(tokens, y[2], keys), mm_count(tokens, keys, y[2])));
    };
    return t;
  }();
  return table;
}

// "aten.mm.default" -> "aten.mm": torch's counter registers overload packets.
std::string_view packet_of(std::string_view op) {
  const size_t first = op.find('.');
  if (first == std::string_view::npos) return op;
  const size_t second = op.find('.', first + 1);
  return second == std::string_view::npos ? op : op.substr(0, second);
}

// The counter for an op, through a small cache by the name's address (records
// name ops from interned pools), checked against the name itself.
Counter counter_of(std::string_view op) {
  struct Entry {
    const char* address = nullptr;
    std::string name;
    Counter counter = nullptr;
  };
  thread_local Entry cache[16];
  Entry& e = cache[(reinterpret_cast<uintptr_t>(op.data()) >> 3) & 15];
  if (e.address == op.data() && e.name == op) return e.counter;
  // A higher-order op with a formula of its own (flex_attention) is in the ATen table, as in torch's registry.
  const bool aten = op.starts_with("aten.") || op.starts_with("higher_order.");
  const auto& table = aten ? aten_counters() : onnx_counters();
  const auto it = table.find(aten ? packet_of(op) : op);
  e = {op.data(), std::string(op), it == table.end() ? nullptr : it->second};
  return e.counter;
}

}  // namespace

ExprRef count_flops(std::string_view op, const NodeArguments& in, const OutputList& outputs) {
  const Counter counter = counter_of(op);
  if (!counter) return nullptr;
  try {
    ExprRef flops = counter(in, outputs);
    if (flops && as_integer(flops) == std::optional<int64_t>(0)) return nullptr;
    return flops;
  } catch (const NotCountable&) {
    return nullptr;
  } catch (const OverflowError&) {
    return nullptr;
  }
}

ExprRef tensor_bytes(const TensorMeta& t) {
  ExprRef n = integer(element_size(t.dtype));
  for (const SymInt& d : t.sizes) n = mul(n, d.expr());
  return n;
}

ExprRef argument_bytes(const NodeArguments& in) {
  ExprRef total = integer(0);
  auto add_value = [&](const Value* v, auto& self, int depth) -> void {
    if (!v) return;
    if (v->is_tensor()) total = add(total, tensor_bytes(v->tensor->meta));
    else if (v->kind == Value::Kind::List && v->list && !v->list_length && depth < 8)
      for (const Value& x : *v->list) self(&x, self, depth + 1);
  };
  try {
    for (const Value* v : in.args) add_value(v, add_value, 0);
    for (const auto& kv : in.kwargs) add_value(kv.second, add_value, 0);
  } catch (const OverflowError&) {
    return nullptr;
  }
  return total;
}

}  // namespace fakeprop
