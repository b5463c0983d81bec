// The JSON FX-style graph (schemas/fx_graph.schema.json): what make_fx,
// torch.export and AOTAutograd produce, one node per ATen call.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fakeprop/options/limits.h"
#include "fakeprop/sym/value_ranges.h"
#include "fakeprop/tensor/tensor_meta.h"
#include "fakeprop/util/name_pool.h"

namespace fakeprop::fx {

// An argument as written in the graph: a literal, a reference to a node, or a list.
struct Arg {
  enum class Kind : uint8_t { None, Bool, Int, Float, String, Node, List, DType, Device, MemoryFormat, Layout };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;  // String text, Node name, Device text, MemoryFormat / Layout name
  DType dtype = DType::Undefined;
  std::vector<Arg> list;
  // Node: the position in Graph::nodes of the earlier node named `s`, set by
  // the loader so the interpreter need not look names up; kNoNode when the
  // name is not an earlier node (the interpreter reports it when it gets there).
  static constexpr uint32_t kNoNode = UINT32_MAX;
  uint32_t node_index = kNoNode;

  bool is_none() const { return kind == Kind::None; }
};

// An example value for a placeholder / get_attr: sizes may be symbol names
// or expressions over them ("s0", "2*s0").
struct ExampleTensor {
  std::vector<std::string> shape;   // each an integer or a symbolic expression, as text
  std::optional<std::vector<std::string>> stride;
  std::string storage_offset = "0";
  DType dtype = DType::Float32;
  std::optional<Device> device;     // absent: the --device model
  bool requires_grad = false;
};

// Example value of a placeholder that is a SymInt (torch.export passes them).
struct ExampleValue {
  enum class Kind : uint8_t { None, Tensor, SymInt, Other } kind = Kind::None;
  ExampleTensor tensor;
  std::string sym;  // SymInt: integer or expression text
};

struct Node {
  std::string name;
  std::string op;      // placeholder, get_attr, call_function, output
  std::string target;  // aten.add.Tensor, operator.getitem, ...; placeholder: its target name
  std::vector<Arg> args;
  std::vector<std::pair<std::string, Arg>> kwargs;
  ExampleValue example;  // placeholder / get_attr
  // The name and operator ("aten.add.Tensor", or op for non-calls) its run
  // record shows, interned in Graph::names at load: a run copies pointers.
  Name record_name;
  Name record_op;

  const Arg* kwarg(std::string_view name) const;
};

struct SymbolDecl {
  std::optional<int64_t> hint;
  std::optional<ValueRange> range;
  bool unbacked = false;
};

struct Graph {
  std::string path;
  std::vector<Node> nodes;
  std::map<std::string, SymbolDecl> symbols;  // optional hints/ranges of symbols named in examples
  std::shared_ptr<NamePool> names = std::make_shared<NamePool>();
};

// Throws InputError naming the file and node for anything malformed.
// More than `max_nodes` nodes, or JSON nested deeper than 100 levels, is an
// InputError too.
Graph load_graph(const std::string& path, size_t max_nodes = kDefaultMaxNodes);
Graph parse_graph(const std::string& json_text, const std::string& path_for_errors, size_t max_nodes = kDefaultMaxNodes);

}  // namespace fakeprop::fx
