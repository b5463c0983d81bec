// The JSON FX-style graph (schemas/fx_graph.schema.json): what make_fx,
// torch.export and AOTAutograd produce, one node per ATen call.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakeprop/options/limits.h"
#include "fakeprop/sym/value_ranges.h"
#include "fakeprop/tensor/tensor_meta.h"
#include "fakeprop/util/error.h"
#include "fakeprop/util/boxed.h"
#include "fakeprop/util/name_pool.h"
#include "fakeprop/value/value.h"

namespace fakeprop::fx {

// An argument as written in the graph: a literal, a reference to a node, or a list.
struct Arg {
  // Graph: a higher-order op's subgraph (torch.cond's branches, a loop's
  // body), `s` its name and `i` its position in the enclosing Graph::subgraphs.
  enum class Kind : uint8_t { None, Bool, Int, Float, String, Node, List, DType, Device, MemoryFormat, Layout, Graph };
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
  // Placeholders with one id share one storage (inputs that alias: a view
  // beside its base, one tensor passed twice); absent: a storage of its own.
  std::optional<int64_t> storage;
  // A 0-d input's value, known when it was traced (a Python float Dynamo
  // wrapped, a scalar tensor make_fx fakified with a source): FakeTensor then
  // memoizes item() as a backed symbol with this hint (its item_memo).
  struct Item {
    bool is_float = false;
    int64_t i = 0;
    double f = 0;
  };
  std::optional<Item> item;
  // Dims the traced graph holds as constants although it was traced with
  // symbolic sizes: the trace specialized them (a composite such as
  // take_along_dim read the size; linspace's steps is an int). A run that
  // makes one of them symbolic guards it equal to its size, as the trace did.
  // Written where an example replaced the traced value.
  std::vector<int64_t> specialized;
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
  // The number of outputs the program declares for a call that returns a
  // tuple (0: not declared): auto_functionalized's results before its bases.
  uint32_t declared_outputs = 0;
  // A call's output on the user's real inputs (propagate_real_tensors, from
  // the package's real run): concrete sizes and integers; unset when unknown.
  Boxed<Value> real;
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
  // "gradients": a node the graph outputs -> the leaf (placeholder or
  // get_attr) whose .grad it becomes, as a joint graph's backward signature
  // says (gradients_to_parameters, gradients_to_user_inputs).
  std::map<std::string, std::string> gradients;
  std::shared_ptr<NamePool> names = std::make_shared<NamePool>();
  // Made by torch.export (a .pt2 archive, an ExportedProgram in process): the
  // decisions only torch.compile's fake tensors make are not made.
  bool exported = false;
  // Traced by make_fx, as torch.compile's AOTAutograd traces the graph Dynamo
  // built: each value's tensor_meta guards its layout. False for a graph run
  // op by op under FakeTensorMode (FakeTensorProp), which asks nothing more.
  // JSON "tracer": "make_fx" (the default), "export" (sets `exported`) or
  // "fake_tensor".
  bool traced_by_make_fx = true;
  // The subgraphs of this graph's higher-order calls (Arg::Kind::Graph
  // points here): each a graph of its own, its placeholders the call's
  // operands, its output node what the call gets back.
  std::vector<std::shared_ptr<const Graph>> subgraphs;
  // The subgraph named `name`; null when there is none.
  const Graph* subgraph(std::string_view name) const;
};

// Assembles a Graph node by node for every reader (the JSON text, the
// Python package's live torch.fx graphs), so that they agree: node names are
// unique, a node argument refers to an earlier node by position, and each
// node's record name and operator are interned once.
// Limits every reader of a graph enforces before it recurses: arguments nest
// at most kMaxArgDepth inside a node; a JSON document at most kMaxJsonDepth.
inline constexpr size_t kMaxArgDepth = 64;
inline constexpr int kMaxJsonDepth = 100;
// "where: JSON nested deeper than 100 levels".
InputError json_too_deep(const std::string& where);

class GraphBuilder {
 public:
  GraphBuilder(std::string path, size_t max_nodes, size_t expected_nodes = 0);
  // A new node named `name`; throws InputError for a repeated name or one
  // node past the limit. Fill it, then call finish().
  Node& add(std::string_view name);
  void finish(Node& n);
  // An argument of one of the tagged kinds: node (a reference to an earlier
  // node), dtype, device, memory_format, layout, float ("inf", "-inf", "nan"),
  // graph (a subgraph of the graph, by name).
  // Throws InputError for an unknown tag or value.
  Arg tagged(std::string_view tag, std::string text) const;
  // A reference to the earlier node at `position` (a reader that knows it
  // need not go by name).
  Arg node_ref(uint32_t position) const;
  void reserve(size_t nodes);
  // "path: node 'name': what" (the node being read, if any).
  [[noreturn]] void fail(const std::string& what) const;
  // fail()s when `depth` is past kMaxArgDepth.
  void check_arg_depth(size_t depth) const {
    if (depth > kMaxArgDepth) fail("arguments nested deeper than " + std::to_string(kMaxArgDepth) + " levels");
  }
  const std::string& path() const { return graph_.path; }
  size_t max_nodes() const { return max_nodes_; }
  Graph& graph() { return graph_; }
  Graph take();

 private:
  Graph graph_;
  size_t max_nodes_;
  std::string current_;  // the node being read
  StringIds positions_;  // node names (views into graph_.names); a name's id is its node's position
};

// The `symbols` member of a JSON FX graph ({"s0": {"hint": 4, "range": [2, null]}}).
std::map<std::string, SymbolDecl> parse_symbols(const std::string& json_text, const std::string& path_for_errors);

// The graph as a JSON FX graph (fakeprop.fx/1), which parse_graph reads back
// to the same graph.
std::string graph_json(const Graph& g);

// Throws InputError naming the file and node for anything malformed.
// More than `max_nodes` nodes, or JSON nested deeper than 100 levels, is an
// InputError too.
Graph load_graph(const std::string& path, size_t max_nodes = kDefaultMaxNodes, const FileLimits& limits = {});
Graph parse_graph(const std::string& json_text, const std::string& path_for_errors, size_t max_nodes = kDefaultMaxNodes);

}  // namespace fakeprop::fx
