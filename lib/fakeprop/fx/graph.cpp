#include "fakeprop/fx/graph.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "fakeprop/fx/json_document.h"
#include "fakeprop/util/error.h"
#include "fakeprop/util/input_file.h"

namespace fakeprop::fx {

const Arg* Node::kwarg(std::string_view name) const {
  for (const auto& [k, v] : kwargs)
    if (k == name) return &v;
  return nullptr;
}

const Graph* Graph::subgraph(std::string_view name) const {
  for (const auto& g : subgraphs)
    if (g->path == name) return g.get();
  return nullptr;
}

GraphBuilder::GraphBuilder(std::string path, size_t max_nodes, size_t expected_nodes) : max_nodes_(max_nodes) {
  graph_.path = std::move(path);
  graph_.nodes.reserve(expected_nodes);
  positions_.reserve(expected_nodes);  // the name pool finds only operator names
}

void GraphBuilder::fail(const std::string& what) const {
  throw InputError(graph_.path + (current_.empty() ? "" : ": node '" + current_ + "'") + ": " + what);
}

Node& GraphBuilder::add(std::string_view name) {
  current_ = name;
  if (graph_.nodes.size() >= max_nodes_)
    throw InputError(graph_.path + ": more than " + std::to_string(max_nodes_) + " nodes (the node-count limit)");
  // One probe: the name is stored only when new (a duplicate fails).
  Name stored;
  if (!positions_.insert_with(name, [&] { return (stored = graph_.names->store(name)).view(); }).second)
    fail("duplicate node name");
  Node& n = graph_.nodes.emplace_back();
  n.name = name;
  n.record_name = stored;
  return n;
}

void GraphBuilder::finish(Node& n) {
  n.record_op = graph_.names->intern(n.op == "call_function" ? n.target : n.op);
  current_.clear();
}

Arg GraphBuilder::tagged(std::string_view tag, std::string text) const {
  Arg a;
  if (tag == "node") {
    a.kind = Arg::Kind::Node;
    // Only earlier nodes are found: the last one added is the node being read.
    if (const uint32_t at = positions_.find(text); at != StringIds::kNone && at + 1 < graph_.nodes.size())
      a.node_index = at;
    a.s = std::move(text);
  } else if (tag == "dtype") {
    a.kind = Arg::Kind::DType;
    auto dt = dtype_from_name(text);
    if (!dt) fail("unknown dtype '" + text + "'");
    a.dtype = *dt;
  } else if (tag == "device") {
    a.kind = Arg::Kind::Device;
    if (!Device::parse(text)) fail("unknown device '" + text + "'");
    a.s = std::move(text);
  } else if (tag == "memory_format") {
    a.kind = Arg::Kind::MemoryFormat;
    a.s = std::move(text);
  } else if (tag == "layout") {
    a.kind = Arg::Kind::Layout;
    a.s = std::move(text);
  } else if (tag == "graph") {
    a.kind = Arg::Kind::Graph;  // found by name when it runs (Graph::subgraph)
    a.s = std::move(text);
  } else if (tag == "float") {
    a.kind = Arg::Kind::Float;
    if (text == "inf") a.f = std::numeric_limits<double>::infinity();
    else if (text == "-inf") a.f = -std::numeric_limits<double>::infinity();
    else if (text == "nan") a.f = std::numeric_limits<double>::quiet_NaN();
    else fail("unknown float '" + text + "'");
  } else {
    fail("unknown tagged argument '" + std::string(tag) + "'");
  }
  return a;
}

Arg GraphBuilder::node_ref(uint32_t position) const {
  Arg a;
  a.kind = Arg::Kind::Node;
  a.node_index = position;
  a.s = graph_.nodes[position].name;
  return a;
}

void GraphBuilder::reserve(size_t nodes) {
  graph_.nodes.reserve(nodes);
  positions_.reserve(nodes);
}

Graph GraphBuilder::take() {
  current_.clear();
  return std::move(graph_);
}

namespace {


using Json = JsonDocument::Entry;
using JsonType = JsonDocument::Type;

// Reads the graph from the parsed document. The checks, their order and
// their messages are those of the nlohmann::json reader this replaced, and
// JSON values mean what they meant there (the last of repeated keys wins;
// kwargs and symbols come in key order).
class GraphReader {
 public:
  GraphReader(const JsonDocument& doc, GraphBuilder& builder) : doc_(doc), b_(builder) {}

  [[noreturn]] void fail(const std::string& what) const { b_.fail(what); }

  // The value as nlohmann's dump() writes it, for messages: the value's own
  // text parsed again by nlohmann (only ever on the way to an error).
  std::string dump(const Json& j) const {
    const std::string_view text = doc_.source_text(j);
    return nlohmann::json::parse(text.begin(), text.end()).dump();
  }

  std::string text_of(const Json& j) const { return std::string(doc_.string(j)); }
  const Json* member(const Json& object, std::string_view key) const { return doc_.find(object, key); }
  static bool is_integer(const Json& j) { return j.type == JsonType::Integer || j.type == JsonType::Unsigned; }
  // nlohmann's get<int64_t>(): an unsigned value above INT64_MAX wraps.
  static int64_t as_int64(const Json& j) {
    return j.type == JsonType::Integer ? j.integer : static_cast<int64_t>(j.unsigned_integer);
  }

  Arg read_arg(const Json& j, size_t depth) {
    b_.check_arg_depth(depth);
    Arg a;
    switch (j.type) {
      case JsonType::Null: return a;
      case JsonType::Bool:
        a.kind = Arg::Kind::Bool;
        a.b = j.boolean;
        return a;
      case JsonType::Integer:
      case JsonType::Unsigned:
        if (j.type == JsonType::Unsigned && j.unsigned_integer > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          fail("integer argument out of 64-bit range");
        a.kind = Arg::Kind::Int;
        a.i = as_int64(j);
        return a;
      case JsonType::Float:
        a.kind = Arg::Kind::Float;
        a.f = j.number;
        return a;
      case JsonType::String:
        a.kind = Arg::Kind::String;
        a.s = text_of(j);
        return a;
      case JsonType::Array:
        a.kind = Arg::Kind::List;
        a.list.reserve(j.size);
        doc_.for_each_child(j, [&](const Json& x) { a.list.push_back(read_arg(x, depth + 1)); });
        return a;
      case JsonType::Object: return read_tagged(j);
    }
    fail("unsupported argument " + dump(j));
  }

  Arg read_tagged(const Json& j) {
    // One member (the usual {"node": "x"}) needs no sorting to find the key.
    const Json* only = j.size == 1 ? &doc_.at(doc_.index_of(j) + 1) : nullptr;
    if (!only) {
      const std::vector<const Json*> members = doc_.sorted_members(j);
      if (members.size() != 1) fail("a tagged argument has exactly one key: " + dump(j).substr(0, 80));
      only = members[0];
    }
    const std::string_view key = doc_.key(*only);
    const std::string_view known[] = {"node", "dtype", "device", "memory_format", "layout", "float"};
    if (std::find(std::begin(known), std::end(known), key) != std::end(known) && only->type != JsonType::String)
      fail("'" + std::string(key) + "' needs a string: " + dump(j).substr(0, 80));
    return b_.tagged(key, only->type == JsonType::String ? text_of(*only) : std::string());
  }

  std::string dim_text(const Json& d) const {
    if (is_integer(d)) return std::to_string(as_int64(d));
    if (d.type == JsonType::String) return text_of(d);
    return "";
  }

  std::vector<std::string> read_dims(const Json& j, const char* what) {
    if (j.type != JsonType::Array) fail(std::string(what) + " must be a list");
    std::vector<std::string> out;
    out.reserve(j.size);
    doc_.for_each_child(j, [&](const Json& d) {
      std::string t = dim_text(d);
      if (t.empty()) fail(std::string(what) + " entries must be integers or expression strings");
      out.push_back(std::move(t));
    });
    return out;
  }

  ExampleValue read_example(const Json& j) {
    ExampleValue ex;
    if (j.type == JsonType::Null) return ex;
    if (j.type != JsonType::Object) {
      ex.kind = ExampleValue::Kind::Other;
      return ex;
    }
    const auto [sym, shape, stride, offset, dtype, device, grad, storage, item, specialized] = doc_.find_all<10>(
        j, {"sym", "shape", "stride", "storage_offset", "dtype", "device", "requires_grad", "storage", "item",
            "specialized"});
    if (sym) {
      ex.kind = ExampleValue::Kind::SymInt;
      ex.sym = dim_text(*sym);
      if (ex.sym.empty()) ex.kind = ExampleValue::Kind::Other;
      return ex;
    }
    if (!shape) fail("example value needs 'shape'");
    ex.kind = ExampleValue::Kind::Tensor;
    ExampleTensor& t = ex.tensor;
    t.shape = read_dims(*shape, "shape");
    if (stride && stride->type != JsonType::Null) t.stride = read_dims(*stride, "stride");
    if (t.stride && t.stride->size() != t.shape.size()) fail("stride and shape differ in length");
    if (offset) {
      t.storage_offset = dim_text(*offset);
      if (t.storage_offset.empty()) fail("storage_offset must be an integer or an expression string");
    }
    if (dtype) {
      if (dtype->type != JsonType::String) fail("dtype must be a string");
      auto dt = dtype_from_name(doc_.string(*dtype));
      if (!dt) fail("unknown dtype '" + text_of(*dtype) + "'");
      t.dtype = *dt;
    }
    if (device && device->type != JsonType::Null) {
      if (device->type != JsonType::String) fail("device must be a string");
      t.device = Device::parse(doc_.string(*device));
      if (!t.device) fail("unknown device '" + text_of(*device) + "'");
    }
    if (grad) {
      if (grad->type != JsonType::Bool) fail("requires_grad must be a boolean");
      t.requires_grad = grad->boolean;
    }
    if (storage && storage->type != JsonType::Null) {
      if (!is_integer(*storage) || as_int64(*storage) < 0)
        fail("storage must be a non-negative integer (inputs with one id share a storage)");
      t.storage = as_int64(*storage);
    }
    if (item && item->type != JsonType::Null) t.item = read_item(*item, t);
    if (specialized && specialized->type != JsonType::Null) {
      if (specialized->type != JsonType::Array) fail("specialized must be a list of dims");
      doc_.for_each_child(*specialized, [&](const Json& d) {
        if (!is_integer(d) || as_int64(d) < 0 || as_int64(d) >= static_cast<int64_t>(t.shape.size()))
          fail("specialized entries must be dims of the value's shape");
        t.specialized.push_back(as_int64(d));
      });
    }
    return ex;
  }

  // The value FakeTensor memoizes item() of: only for the 0-d integer and
  // float64 tensors whose item() it memoizes.
  ExampleTensor::Item read_item(const Json& j, const ExampleTensor& t) {
    if (!t.shape.empty()) fail("'item' needs a 0-d tensor (shape [])");
    ExampleTensor::Item item;
    if (t.dtype == DType::Float64) {
      if (j.type == JsonType::Object) {
        const Arg special = read_tagged(j);
        if (special.kind != Arg::Kind::Float) fail("'item' must be a number");
        item.f = special.f;
      } else if (is_integer(j) || j.type == JsonType::Float) {
        item.f = is_integer(j) ? static_cast<double>(as_int64(j)) : j.number;
      } else {
        fail("'item' must be a number");
      }
      item.is_float = true;
      return item;
    }
    const DType memoized[] = {DType::Int8, DType::Int16, DType::Int32, DType::Int64};
    if (std::find(std::begin(memoized), std::end(memoized), t.dtype) == std::end(memoized))
      fail("'item' is only for int8, int16, int32, int64 and float64 tensors (as FakeTensor memoizes item())");
    if (!is_integer(j)) fail("'item' of an integer tensor must be an integer");
    item.i = as_int64(j);
    return item;
  }

  void read_symbols(const Json& symbols, Graph& g) {
    if (symbols.type != JsonType::Object) fail("'symbols' must be an object");
    for (const Json* entry : doc_.sorted_members(symbols)) {
      const std::string name(doc_.key(*entry));
      const Json& decl = *entry;
      SymbolDecl d;
      if (decl.type != JsonType::Object) fail("symbol '" + name + "' must be an object");
      if (const Json* hint = member(decl, "hint"); hint && hint->type != JsonType::Null) {
        if (!is_integer(*hint)) fail("hint of symbol '" + name + "' must be an integer");
        d.hint = as_int64(*hint);
      }
      if (const Json* r = member(decl, "range")) {
        if (r->type != JsonType::Array || r->size != 2) fail("range of symbol '" + name + "' must be [lo, hi]");
        const Json& lo = doc_.at(doc_.index_of(*r) + 1);
        const Json& hi = doc_.at(lo.end);
        for (const Json* bound : {&lo, &hi})
          if (bound->type != JsonType::Null && !is_integer(*bound))
            fail("range of symbol '" + name + "' must hold integers or null");
        ValueRange vr;
        if (lo.type != JsonType::Null) vr.lo = as_int64(lo);
        if (hi.type != JsonType::Null) vr.hi = as_int64(hi);
        d.range = vr;
      }
      const Json* unbacked = member(decl, "unbacked");
      if (unbacked && unbacked->type != JsonType::Bool) fail("'unbacked' of symbol '" + name + "' must be a boolean");
      d.unbacked = unbacked && unbacked->boolean;
      g.symbols[name] = d;
    }
  }

  // Fills `n`, a default node.
  void read_node(const Json& jn) {
    if (jn.type != JsonType::Object) fail("each node must be an object");
    const auto [name, op, target, args, kwargs, val, meta, outputs] =
        doc_.find_all<8>(jn, {"name", "op", "target", "args", "kwargs", "val", "meta", "outputs"});
    if (!name || name->type != JsonType::String) fail("node without a 'name'");
    Node& n = b_.add(doc_.string(*name));
    if (!op || op->type != JsonType::String) fail("node without an 'op'");
    n.op = doc_.string(*op);
    if (n.op != "placeholder" && n.op != "get_attr" && n.op != "call_function" && n.op != "output")
      fail("unsupported op '" + n.op + "' (placeholder, get_attr, call_function, output)");
    if (target) {
      if (target->type != JsonType::String) fail("'target' must be a string");
      n.target = doc_.string(*target);
    }
    if (n.op == "call_function" && n.target.empty()) fail("call_function without a target");
    if (args) {
      if (args->type != JsonType::Array) fail("'args' must be a list");
      n.args.reserve(args->size);
      doc_.for_each_child(*args, [&](const Json& a) { n.args.push_back(read_arg(a, 0)); });
    }
    if (outputs) {
      if (!is_integer(*outputs) || as_int64(*outputs) < 0 || as_int64(*outputs) > UINT32_MAX)
        fail("'outputs' must be a count of outputs");
      n.declared_outputs = static_cast<uint32_t>(as_int64(*outputs));
    }
    if (kwargs) {
      if (kwargs->type != JsonType::Object) fail("'kwargs' must be an object");
      if (kwargs->size > 0) {
        const std::vector<const Json*> members = doc_.sorted_members(*kwargs);
        n.kwargs.reserve(members.size());
        for (const Json* v : members) n.kwargs.emplace_back(std::string(doc_.key(*v)), read_arg(*v, 0));
      }
    }
    if (val) {
      n.example = read_example(*val);
    } else if (meta && meta->type == JsonType::Object) {
      if (const Json* meta_val = member(*meta, "val")) n.example = read_example(*meta_val);
    }
    b_.finish(n);
  }

  Graph read() {
    Graph& g = b_.graph();
    const Json& root = doc_.root();
    if (root.type != JsonType::Object) fail("a JSON FX graph is an object with 'nodes'");
    if (const Json* format = member(root, "format");
        format && !(format->type == JsonType::String && doc_.string(*format) == "fakeprop.fx/1"))
      fail("unsupported format " + dump(*format) + " (expected \"fakeprop.fx/1\")");
    const Json* nodes = member(root, "nodes");
    if (!nodes || nodes->type != JsonType::Array) fail("'nodes' must be a list");
    if (const Json* symbols = member(root, "symbols")) read_symbols(*symbols, g);
    if (const Json* tracer = member(root, "tracer")) {
      const std::string_view t = tracer->type == JsonType::String ? doc_.string(*tracer) : std::string_view();
      if (t != "make_fx" && t != "export" && t != "fake_tensor")
        fail("'tracer' must be \"make_fx\", \"export\" or \"fake_tensor\", not " + dump(*tracer));
      g.exported = t == "export";
      g.traced_by_make_fx = t != "fake_tensor";
    }
    if (const Json* gradients = member(root, "gradients")) {
      if (gradients->type != JsonType::Object) fail("'gradients' must be an object of node names");
      for (const Json* entry : doc_.sorted_members(*gradients)) {
        if (entry->type != JsonType::String)
          fail("gradient '" + std::string(doc_.key(*entry)) + "' must name a leaf node");
        g.gradients.emplace(std::string(doc_.key(*entry)), doc_.string(*entry));
      }
    }
    doc_.for_each_child(*nodes, [&](const Json& jn) { read_node(jn); });
    read_subgraphs(root, g, 0);
    return b_.take();
  }

  // "subgraphs": {"name": {"nodes": [...], "subgraphs": {...}}}, a higher-order op's graphs.
  void read_subgraphs(const Json& owner, Graph& g, size_t depth) {
    const Json* subs = member(owner, "subgraphs");
    if (!subs) return;
    if (subs->type != JsonType::Object) fail("'subgraphs' must be an object of graphs by name");
    if (depth >= kMaxArgDepth) fail("subgraphs nested deeper than " + std::to_string(kMaxArgDepth) + " levels");
    for (const Json* entry : doc_.sorted_members(*subs)) {
      const std::string name(doc_.key(*entry));
      const Json* nodes = entry->type == JsonType::Object ? member(*entry, "nodes") : nullptr;
      if (!nodes || nodes->type != JsonType::Array) fail("subgraph '" + name + "' must have a list of 'nodes'");
      GraphBuilder sub(name, b_.max_nodes(), nodes->size);
      GraphReader reader(doc_, sub);
      doc_.for_each_child(*nodes, [&](const Json& jn) { reader.read_node(jn); });
      Graph& read = sub.graph();
      read.exported = g.exported;
      reader.read_subgraphs(*entry, read, depth + 1);
      g.subgraphs.push_back(std::make_shared<const Graph>(sub.take()));
    }
  }

 private:
  const JsonDocument& doc_;
  GraphBuilder& b_;
};

// The document, or an InputError with the message nlohmann::json gives for
// the same text (as before this parser; both stop at the same place, so no
// limit is passed there first).
JsonDocument parse_document(const std::string& json_text, const std::string& path_for_errors,
                            const JsonDocument::Hooks& hooks) {
  // A UTF-8 byte order mark (Windows editors write one) is not JSON, but
  // says nothing against the text after it.
  const std::string_view text =
      std::string_view(json_text).starts_with("\xEF\xBB\xBF") ? std::string_view(json_text).substr(3) : json_text;
  try {
    return JsonDocument::parse(text, hooks);
  } catch (const JsonDocument::SyntaxError& e) {
    try {
      const nlohmann::json accepted = nlohmann::json::parse(text);
      (void)accepted;
    } catch (const nlohmann::json::exception& nl) {
      // parse_error, or out_of_range for a number too large for a double
      // (which escaped as an internal error before this parser).
      throw InputError(path_for_errors + ": invalid JSON: " + nl.what());
    }
    throw InputError(path_for_errors + ": invalid JSON: " + e.message + " at byte " + std::to_string(e.offset));
  }
}

}  // namespace

InputError json_too_deep(const std::string& where) {
  return InputError(where + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
}

Graph parse_graph(const std::string& json_text, const std::string& path_for_errors, size_t max_nodes) {
  // The depth and node-count limits are checked as the parser meets each
  // container, so a hostile file stops early.
  bool in_nodes = false;  // inside the value of the root's "nodes" key
  size_t node_count = 0;
  JsonDocument::Hooks hooks;
  hooks.on_root_key = [&](std::string_view key) { in_nodes = key == "nodes"; };
  hooks.on_container = [&](int depth, bool is_object) {
    if (depth >= kMaxJsonDepth)
      throw json_too_deep(path_for_errors);
    if (is_object && depth == 2 && in_nodes && ++node_count > max_nodes)
      throw InputError(path_for_errors + ": more than " + std::to_string(max_nodes) + " nodes (the node-count limit)");
  };
  const JsonDocument doc = parse_document(json_text, path_for_errors, hooks);
  const JsonDocument::Entry* nodes = doc.root().type == JsonType::Object ? doc.find(doc.root(), "nodes") : nullptr;
  GraphBuilder builder(path_for_errors, max_nodes, nodes && nodes->type == JsonType::Array ? nodes->size : 0);
  return GraphReader(doc, builder).read();
}

std::map<std::string, SymbolDecl> parse_symbols(const std::string& json_text, const std::string& path_for_errors) {
  JsonDocument::Hooks hooks;
  hooks.on_container = [&](int depth, bool) {
    if (depth >= kMaxJsonDepth)
      throw json_too_deep(path_for_errors);
  };
  const JsonDocument doc = parse_document(json_text, path_for_errors, hooks);
  GraphBuilder builder(path_for_errors, 0);
  GraphReader(doc, builder).read_symbols(doc.root(), builder.graph());
  return std::move(builder.graph().symbols);
}

Graph load_graph(const std::string& path, size_t max_nodes, const FileLimits& limits) {
  return parse_graph(InputFile::open(path).read_all(limits.max_program_bytes, "--max-program-bytes"), path, max_nodes);
}

}  // namespace fakeprop::fx
