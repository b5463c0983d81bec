// The memory policy of a run that owns its model (the command line's): it
// keeps what its report reads and no more. Nothing reads a main-graph node
// once it ran (records hold pooled names), and nothing reads a value's known
// elements (folded shape vectors, constant masks) once its last reader ran:
// the report never prints them. glibc keeps the freed holes inside the heap
// resident, so in a large graph the freed pages are handed back sixteen times
// over the run, where the process allows it (util/heap_trim.h: the command
// line does, a host process such as Python's does not).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fakeprop/onnx/model.h"
#include "fakeprop/onnx/scope.h"
#include "fakeprop/onnx/value_numbering.h"

namespace fakeprop::onnx {

class ConsumingRun {
 public:
  // `g` is the main graph, run in `order` (positions of g.nodes).
  ConsumingRun(Graph& g, const ValueNumbering& names, const std::vector<size_t>& order);
  // After the node at position `pos` of the order ran in `scope`.
  void node_ran(size_t pos, Scope& scope);

 private:
  Graph& graph_;
  const ValueNumbering& names_;
  const std::vector<size_t>& order_;
  std::vector<uint32_t> last_read_;  // by value id: the position of its last reader
  size_t trim_every_;  // 0: never trim
};

}  // namespace fakeprop::onnx
