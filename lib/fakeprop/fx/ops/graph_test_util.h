// Test support for the ATen rule tests: small JSON FX graphs written inline
// (placeholders with possibly symbolic example shapes, then calls), run
// through fx::run_graph, and results read back as Python-style strings.
#pragma once
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakeprop/fx/graph.h"
#include "fakeprop/fx/interpreter.h"

namespace fakeprop::fx::testing {

using json = nlohmann::json;

// A tensor example: shape entries are ints or symbol expressions ("s0").
inline json tensor(json shape, std::string dtype = "float32", std::string device = "cpu",
                   json stride = nullptr, json offset = 0) {
  json t = {{"shape", std::move(shape)}, {"dtype", std::move(dtype)}, {"device", std::move(device)},
            {"storage_offset", std::move(offset)}};
  if (!stride.is_null()) t["stride"] = std::move(stride);
  return t;
}
inline json node(const std::string& name) { return {{"node", name}}; }
inline json dtype(const std::string& name) { return {{"dtype", name}}; }

class GraphText {
 public:
  GraphText& symbol(const std::string& name, int64_t hint) {
    symbols_[name] = {{"hint", hint}};
    return *this;
  }
  GraphText& unbacked(const std::string& name) {
    symbols_[name] = {{"unbacked", true}};
    return *this;
  }
  GraphText& input(const std::string& name, json val) {
    nodes_.push_back({{"name", name}, {"op", "placeholder"}, {"target", name}, {"val", std::move(val)}});
    return *this;
  }
  // `args` is a vector, not a json: a braced list of one json value, {node("x")}, initializes a
  // json as a copy of that value under clang and as a list of it under gcc.
  GraphText& call(const std::string& name, const std::string& target, std::vector<json> args,
                  json kwargs = json::object()) {
    nodes_.push_back({{"name", name}, {"op", "call_function"}, {"target", target}, {"args", json(std::move(args))},
                      {"kwargs", std::move(kwargs)}});
    last_ = name;
    return *this;
  }
  // The graph returns these nodes (a tuple), not its last node.
  GraphText& returns(const std::vector<std::string>& names) {
    returns_ = json::array();
    for (const std::string& n : names) returns_.push_back(node(n));
    return *this;
  }
  // A higher-order call's subgraph, passed as {"graph": name}.
  GraphText& subgraph(const std::string& name, const GraphText& g) {
    subgraphs_[name] = g.doc();
    subgraphs_[name].erase("format");
    subgraphs_[name].erase("tracer");
    return *this;
  }
  // Op tests ask for each rule's own guards, as FakeTensorProp runs it;
  // this makes the graph torch.compile's, with make_fx's tensor_meta guards.
  GraphText& traced_by_make_fx() {
    tracer_ = "make_fx";
    return *this;
  }
  json doc() const {
    json doc = {{"format", "fakeprop.fx/1"}, {"tracer", tracer_}, {"nodes", nodes_}};
    doc["nodes"].push_back(
        {{"name", "output"}, {"op", "output"}, {"target", "output"}, {"args", {returns_.is_null() ? node(last_) : returns_}}});
    if (!symbols_.empty()) doc["symbols"] = symbols_;
    if (!subgraphs_.empty()) doc["subgraphs"] = subgraphs_;
    return doc;
  }
  std::string str() const { return doc().dump(); }

 private:
  json returns_;
  json subgraphs_ = json::object();
  json nodes_ = json::array();
  json symbols_ = json::object();
  std::string last_;
  std::string tracer_ = "fake_tensor";
};

struct Ran {
  Graph graph;
  RunResult result;

  const Value& value(const std::string& name) const {
    for (const NodeRecord& r : result.nodes)
      if (r.name == name) return r.outputs.at(0).val;
    throw std::runtime_error("no node " + name);
  }
  const TensorMeta& tensor(const std::string& name, size_t index = 0) const {
    const Value& v = value(name);
    if (v.kind == Value::Kind::List) return (*v.list).at(index).tensor->meta;
    if (!v.is_tensor()) throw std::runtime_error(name + " is not a tensor: " + v.opaque_text());
    return v.tensor->meta;
  }
  std::string error(const std::string& name) const {
    for (const ErrorRecord& e : result.errors)
      if (e.node == name) return std::string(error_kind_name(e.kind)) + ": " + e.message;
    return "";
  }
  std::vector<std::string> guards() const {
    std::vector<std::string> out;
    for (const GuardRecord& g : result.env->guards()) out.push_back(to_python_string(g.expr));
    return out;
  }
};

inline Ran run(const GraphText& g, InferOptions options = {}) {
  Ran r;
  r.graph = parse_graph(g.str(), "test");
  r.result = run_graph(r.graph, options);
  return r;
}

inline std::vector<std::string> strs(const SymShape& xs) {
  std::vector<std::string> out;
  for (const SymInt& x : xs) out.push_back(x.is_static() ? std::to_string(x.value()) : x.to_python());
  return out;
}
inline std::string str(const SymInt& x) { return x.is_static() ? std::to_string(x.value()) : x.to_python(); }

using Strs = std::vector<std::string>;

}  // namespace fakeprop::fx::testing
