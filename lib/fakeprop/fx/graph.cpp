#include "fakeprop/fx/graph.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "fakeprop/util/error.h"

namespace fakeprop::fx {

using nlohmann::json;

const Arg* Node::kwarg(std::string_view name) const {
  for (const auto& [k, v] : kwargs)
    if (k == name) return &v;
  return nullptr;
}

namespace {

constexpr size_t kMaxArgDepth = 64;
// JSON nesting accepted at all (arguments nest at most kMaxArgDepth inside a
// node, itself three levels down); checked while parsing, before any
// recursive walk of the document.
constexpr int kMaxJsonDepth = 100;

class GraphReader {
 public:
  explicit GraphReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(path_ + (node_.empty() ? "" : ": node '" + node_ + "'") + ": " + what);
  }

  Arg read_arg(const json& j, size_t depth) {
    if (depth > kMaxArgDepth) fail("arguments nested deeper than 64 levels");
    Arg a;
    switch (j.type()) {
      case json::value_t::null: return a;
      case json::value_t::boolean:
        a.kind = Arg::Kind::Bool;
        a.b = j.get<bool>();
        return a;
      case json::value_t::number_integer:
      case json::value_t::number_unsigned:
        if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          fail("integer argument out of 64-bit range");
        a.kind = Arg::Kind::Int;
        a.i = j.get<int64_t>();
        return a;
      case json::value_t::number_float:
        a.kind = Arg::Kind::Float;
        a.f = j.get<double>();
        return a;
      case json::value_t::string:
        a.kind = Arg::Kind::String;
        a.s = j.get<std::string>();
        return a;
      case json::value_t::array:
        a.kind = Arg::Kind::List;
        for (const auto& x : j) a.list.push_back(read_arg(x, depth + 1));
        return a;
      case json::value_t::object: return read_tagged(j);
      default: fail("unsupported argument " + j.dump());
    }
  }

  Arg read_tagged(const json& j) {
    Arg a;
    if (j.size() != 1) fail("a tagged argument has exactly one key: " + j.dump().substr(0, 80));
    // Not a structured binding: clang 14 cannot capture those in the lambda below.
    const auto item = j.items().begin();
    const std::string key = item.key();
    const json& v = item.value();
    auto text = [&]() -> std::string {
      if (!v.is_string()) fail("'" + key + "' needs a string: " + j.dump().substr(0, 80));
      return v.get<std::string>();
    };
    if (key == "node") {
      a.kind = Arg::Kind::Node;
      a.s = text();
      // Names are registered as their node is read, so only earlier nodes (and this one) are found.
      if (auto it = names_.find(a.s); it != names_.end() && it->second < node_count_) a.node_index = it->second;
    } else if (key == "dtype") {
      a.kind = Arg::Kind::DType;
      auto dt = dtype_from_name(text());
      if (!dt) fail("unknown dtype '" + text() + "'");
      a.dtype = *dt;
    } else if (key == "device") {
      a.kind = Arg::Kind::Device;
      a.s = text();
      if (!Device::parse(a.s)) fail("unknown device '" + a.s + "'");
    } else if (key == "memory_format") {
      a.kind = Arg::Kind::MemoryFormat;
      a.s = text();
    } else if (key == "layout") {
      a.kind = Arg::Kind::Layout;
      a.s = text();
    } else if (key == "float") {
      const std::string t = text();
      a.kind = Arg::Kind::Float;
      if (t == "inf") a.f = std::numeric_limits<double>::infinity();
      else if (t == "-inf") a.f = -std::numeric_limits<double>::infinity();
      else if (t == "nan") a.f = std::numeric_limits<double>::quiet_NaN();
      else fail("unknown float '" + t + "'");
    } else {
      fail("unknown tagged argument '" + key + "'");
    }
    return a;
  }

  static std::string dim_text(const json& d) {
    if (d.is_number_integer()) return std::to_string(d.get<int64_t>());
    if (d.is_string()) return d.get<std::string>();
    return "";
  }

  std::vector<std::string> read_dims(const json& j, const char* what) {
    if (!j.is_array()) fail(std::string(what) + " must be a list");
    std::vector<std::string> out;
    for (const auto& d : j) {
      std::string t = dim_text(d);
      if (t.empty()) fail(std::string(what) + " entries must be integers or expression strings");
      out.push_back(std::move(t));
    }
    return out;
  }

  ExampleValue read_example(const json& j) {
    ExampleValue ex;
    if (j.is_null()) return ex;
    if (!j.is_object()) {
      ex.kind = ExampleValue::Kind::Other;
      return ex;
    }
    if (j.contains("sym")) {
      ex.kind = ExampleValue::Kind::SymInt;
      ex.sym = dim_text(j["sym"]);
      if (ex.sym.empty()) ex.kind = ExampleValue::Kind::Other;
      return ex;
    }
    if (!j.contains("shape")) fail("example value needs 'shape'");
    ex.kind = ExampleValue::Kind::Tensor;
    ExampleTensor& t = ex.tensor;
    t.shape = read_dims(j["shape"], "shape");
    if (j.contains("stride") && !j["stride"].is_null()) t.stride = read_dims(j["stride"], "stride");
    if (t.stride && t.stride->size() != t.shape.size()) fail("stride and shape differ in length");
    if (j.contains("storage_offset")) {
      t.storage_offset = dim_text(j["storage_offset"]);
      if (t.storage_offset.empty()) fail("storage_offset must be an integer or an expression string");
    }
    if (j.contains("dtype")) {
      if (!j["dtype"].is_string()) fail("dtype must be a string");
      auto dt = dtype_from_name(j["dtype"].get<std::string>());
      if (!dt) fail("unknown dtype '" + j["dtype"].get<std::string>() + "'");
      t.dtype = *dt;
    }
    if (j.contains("device") && !j["device"].is_null()) {
      if (!j["device"].is_string()) fail("device must be a string");
      t.device = Device::parse(j["device"].get<std::string>());
      if (!t.device) fail("unknown device '" + j["device"].get<std::string>() + "'");
    }
    if (j.contains("requires_grad")) {
      if (!j["requires_grad"].is_boolean()) fail("requires_grad must be a boolean");
      t.requires_grad = j["requires_grad"].get<bool>();
    }
    return ex;
  }

  Graph read(const json& root) {
    Graph g;
    g.path = path_;
    if (!root.is_object()) fail("a JSON FX graph is an object with 'nodes'");
    if (root.contains("format") && root["format"] != "fakeprop.fx/1")
      fail("unsupported format " + root["format"].dump() + " (expected \"fakeprop.fx/1\")");
    if (!root.contains("nodes") || !root["nodes"].is_array()) fail("'nodes' must be a list");
    if (root.contains("symbols")) {
      if (!root["symbols"].is_object()) fail("'symbols' must be an object");
      for (const auto& [name, decl] : root["symbols"].items()) {
        SymbolDecl d;
        if (!decl.is_object()) fail("symbol '" + name + "' must be an object");
        if (decl.contains("hint") && !decl["hint"].is_null()) {
          if (!decl["hint"].is_number_integer()) fail("hint of symbol '" + name + "' must be an integer");
          d.hint = decl["hint"].get<int64_t>();
        }
        if (decl.contains("range")) {
          const json& r = decl["range"];
          if (!r.is_array() || r.size() != 2) fail("range of symbol '" + name + "' must be [lo, hi]");
          ValueRange vr;
          for (const json& bound : r)
            if (!bound.is_null() && !bound.is_number_integer())
              fail("range of symbol '" + name + "' must hold integers or null");
          if (!r[0].is_null()) vr.lo = r[0].get<int64_t>();
          if (!r[1].is_null()) vr.hi = r[1].get<int64_t>();
          d.range = vr;
        }
        if (decl.contains("unbacked") && !decl["unbacked"].is_boolean())
          fail("'unbacked' of symbol '" + name + "' must be a boolean");
        d.unbacked = decl.value("unbacked", false);
        g.symbols[name] = d;
      }
    }
    names_.clear();
    for (const auto& jn : root["nodes"]) {
      node_.clear();
      if (!jn.is_object()) fail("each node must be an object");
      Node n;
      if (!jn.contains("name") || !jn["name"].is_string()) fail("node without a 'name'");
      n.name = jn["name"].get<std::string>();
      node_ = n.name;
      if (!names_.emplace(n.name, static_cast<uint32_t>(g.nodes.size())).second) fail("duplicate node name");
      if (!jn.contains("op") || !jn["op"].is_string()) fail("node without an 'op'");
      n.op = jn["op"].get<std::string>();
      if (n.op != "placeholder" && n.op != "get_attr" && n.op != "call_function" && n.op != "output")
        fail("unsupported op '" + n.op + "' (placeholder, get_attr, call_function, output)");
      if (jn.contains("target")) {
        if (!jn["target"].is_string()) fail("'target' must be a string");
        n.target = jn["target"].get<std::string>();
      }
      if (n.op == "call_function" && n.target.empty()) fail("call_function without a target");
      if (jn.contains("args")) {
        if (!jn["args"].is_array()) fail("'args' must be a list");
        for (const auto& a : jn["args"]) n.args.push_back(read_arg(a, 0));
      }
      if (jn.contains("kwargs")) {
        if (!jn["kwargs"].is_object()) fail("'kwargs' must be an object");
        for (const auto& [k, v] : jn["kwargs"].items()) n.kwargs.emplace_back(k, read_arg(v, 0));
      }
      if (jn.contains("val")) n.example = read_example(jn["val"]);
      else if (jn.contains("meta") && jn["meta"].is_object() && jn["meta"].contains("val"))
        n.example = read_example(jn["meta"]["val"]);
      g.nodes.push_back(std::move(n));
      node_count_ = g.nodes.size();
    }
    node_.clear();
    return g;
  }

 private:
  std::string path_;
  std::string node_;
  std::unordered_map<std::string, uint32_t> names_;  // node name -> position, for the nodes read so far
  size_t node_count_ = 0;
};

}  // namespace

Graph parse_graph(const std::string& json_text, const std::string& path_for_errors, size_t max_nodes) {
  // The parser itself is iterative; the depth and node-count limits are
  // enforced from its callback, so a hostile file stops early.
  std::string top_key;
  size_t node_count = 0;
  auto limits = [&](int depth, json::parse_event_t event, json& parsed) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw InputError(path_for_errors + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    if (event == json::parse_event_t::key && depth == 1 && parsed.is_string()) top_key = parsed.get<std::string>();
    if (event == json::parse_event_t::object_start && depth == 2 && top_key == "nodes" && ++node_count > max_nodes)
      throw InputError(path_for_errors + ": more than " + std::to_string(max_nodes) + " nodes (the node-count limit)");
    return true;
  };
  json root;
  try {
    root = json::parse(json_text, limits, true, false);
  } catch (const json::parse_error& e) {
    throw InputError(path_for_errors + ": invalid JSON: " + e.what());
  }
  try {
    return GraphReader(path_for_errors).read(root);
  } catch (const json::exception& e) {
    // A value of an unexpected JSON type that no check above caught.
    throw InputError(path_for_errors + ": invalid JSON FX graph: " + e.what());
  }
}

Graph load_graph(const std::string& path, size_t max_nodes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_graph(ss.str(), path, max_nodes);
}

}  // namespace fakeprop::fx
