#include "fakeprop/onnx/consuming_run.h"

#include <algorithm>

#include "fakeprop/util/heap_trim.h"

namespace fakeprop::onnx {

namespace {

// By value id: the position in `order` of the last node reading it, or
// kNeverDead for values the graph returns and values no node reads.
constexpr uint32_t kNeverDead = UINT32_MAX;
std::vector<uint32_t> last_reads(const Graph& g, const ValueNumbering& names, const std::vector<size_t>& order) {
  std::vector<uint32_t> last(names.size(), kNeverDead);
  for (size_t pos = 0; pos < order.size(); ++pos)
    for (auto ids : {names.inputs(order[pos]), names.implicit_inputs(order[pos])})
      for (uint32_t id : ids)
        if (id != ValueNumbering::kNone) last[id] = static_cast<uint32_t>(pos);
  for (const auto& o : g.outputs)
    if (const uint32_t id = names.id(o.name); id != ValueNumbering::kNone) last[id] = kNeverDead;
  return last;
}

// Drops a tensor's known elements, unless another value (a dispatch cache
// entry, an Identity's output) shares the tensor and may still be read.
void drop_known_elements(Value& v) {
  if (!v.is_tensor() || !(v.tensor->data || v.tensor->real || v.tensor->float_exprs) || v.tensor.use_count() != 1)
    return;
  TensorValue bare;
  bare.meta = v.tensor->meta;
  v.tensor = std::make_shared<const TensorValue>(std::move(bare));
}

// Below this many nodes a run's freed holes are too few to be worth a trim.
constexpr size_t kTrimFromNodes = 4096;

}  // namespace

ConsumingRun::ConsumingRun(Graph& g, const ValueNumbering& names, const std::vector<size_t>& order)
    : graph_(g),
      names_(names),
      order_(order),
      last_read_(last_reads(g, names, order)),
      // Sixteen trims at most: each walks the allocator's free lists.
      trim_every_(heap_trimming_allowed() && order.size() >= kTrimFromNodes ? std::max<size_t>(512, order.size() / 16)
                                                                            : 0) {}

void ConsumingRun::node_ran(size_t pos, Scope& scope) {
  const size_t i = order_[pos];
  graph_.nodes.release(i);
  for (auto ids : {names_.inputs(i), names_.implicit_inputs(i)})
    for (uint32_t id : ids)
      if (id != ValueNumbering::kNone && last_read_[id] == pos)
        if (Value* v = scope.local(id)) drop_known_elements(*v);
  if (trim_every_ != 0 && (pos + 1) % trim_every_ == 0) trim_heap();
}

}  // namespace fakeprop::onnx
