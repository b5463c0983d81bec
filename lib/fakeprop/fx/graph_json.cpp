// graph_json: a Graph as the JSON FX graph parse_graph reads (the Python
// package's export_graph writes what it read from a live torch.fx graph).
#include <cmath>
#include <string>

#include "fakeprop/fx/graph.h"
#include "fakeprop/util/json_writer.h"

namespace fakeprop::fx {

namespace {

// A dim as the loader took it: an integer literal, or expression text.
void write_dim(DocumentWriter& w, const std::string& text) {
  size_t used = 0;
  try {
    const long long v = std::stoll(text, &used);
    if (used == text.size()) {
      w.value(static_cast<int64_t>(v));
      return;
    }
  } catch (const std::exception&) {
  }
  w.value(text);
}

void write_dims(DocumentWriter& w, const std::vector<std::string>& dims) {
  w.begin_array();
  for (const std::string& d : dims) write_dim(w, d);
  w.end_array();
}

void write_arg(DocumentWriter& w, const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::None: w.null(); return;
    case Arg::Kind::Bool: w.value(a.b); return;
    case Arg::Kind::Int: w.value(a.i); return;
    case Arg::Kind::Float:
      if (std::isnan(a.f))
        w.begin_object().field("float", "nan").end_object();
      else if (std::isinf(a.f))
        w.begin_object().field("float", a.f > 0 ? "inf" : "-inf").end_object();
      else
        w.value(a.f);
      return;
    case Arg::Kind::String: w.value(a.s); return;
    case Arg::Kind::Node: w.begin_object().field("node", a.s).end_object(); return;
    case Arg::Kind::List:
      w.begin_array();
      for (const Arg& x : a.list) write_arg(w, x);
      w.end_array();
      return;
    case Arg::Kind::DType: w.begin_object().field("dtype", dtype_name(a.dtype)).end_object(); return;
    case Arg::Kind::Device: w.begin_object().field("device", a.s).end_object(); return;
    case Arg::Kind::MemoryFormat: w.begin_object().field("memory_format", a.s).end_object(); return;
    case Arg::Kind::Layout: w.begin_object().field("layout", a.s).end_object(); return;
    case Arg::Kind::Graph: w.begin_object().field("graph", a.s).end_object(); return;
  }
}

void write_example(DocumentWriter& w, const ExampleValue& ex) {
  switch (ex.kind) {
    case ExampleValue::Kind::Tensor: {
      const ExampleTensor& t = ex.tensor;
      w.begin_object().key("shape");
      write_dims(w, t.shape);
      if (t.stride) {
        w.key("stride");
        write_dims(w, *t.stride);
      }
      w.key("storage_offset");
      write_dim(w, t.storage_offset);
      w.field("dtype", dtype_name(t.dtype));
      if (t.device) w.field("device", t.device->str());
      w.field("requires_grad", t.requires_grad);
      if (t.storage) w.field("storage", *t.storage);
      if (t.item) {
        w.key("item");
        if (!t.item->is_float) w.value(t.item->i);
        else if (std::isfinite(t.item->f)) w.value(t.item->f);
        else w.begin_object().field("float", std::isnan(t.item->f) ? "nan" : t.item->f > 0 ? "inf" : "-inf").end_object();
      }
      if (!t.specialized.empty()) {
        w.key("specialized").begin_array();
        for (int64_t d : t.specialized) w.value(d);
        w.end_array();
      }
      w.end_object();
      return;
    }
    case ExampleValue::Kind::SymInt:
      w.begin_object().key("sym");
      write_dim(w, ex.sym);
      w.end_object();
      return;
    case ExampleValue::Kind::None:
    case ExampleValue::Kind::Other: w.null(); return;
  }
}

void write_nodes(DocumentWriter& w, const Graph& g, size_t depth);

// A higher-order op's subgraphs, by name, each with its nodes (and its own subgraphs).
void write_subgraphs(DocumentWriter& w, const Graph& g, size_t depth) {
  if (g.subgraphs.empty()) return;
  if (depth > kMaxArgDepth) throw InputError(g.path + ": subgraphs nested deeper than " + std::to_string(kMaxArgDepth));
  w.key("subgraphs").begin_object();
  for (const auto& sub : g.subgraphs) {
    w.key(sub->path).begin_object();
    write_nodes(w, *sub, depth + 1);
    w.end_object();
  }
  w.end_object();
}

void write_nodes(DocumentWriter& w, const Graph& g, size_t depth) {
  w.key("nodes").begin_array();
  for (const Node& n : g.nodes) {
    w.begin_object().field("name", n.name).field("op", n.op).field("target", n.target);
    if (n.op == "placeholder" || n.op == "get_attr") {
      w.key("val");
      write_example(w, n.example);
    } else {
      w.key("args").begin_array();
      for (const Arg& a : n.args) write_arg(w, a);
      w.end_array();
      if (n.op != "output") {
        w.key("kwargs").begin_object();
        for (const auto& [k, v] : n.kwargs) {
          w.key(k);
          write_arg(w, v);
        }
        w.end_object();
      }
      if (n.declared_outputs) w.field("outputs", static_cast<int64_t>(n.declared_outputs));
    }
    w.end_object();
  }
  w.end_array();
  write_subgraphs(w, g, depth);
}

}  // namespace

std::string graph_json(const Graph& g) {
  std::string out;
  JsonWriter w(out);
  w.compact();
  w.begin_object().field("format", "fakeprop.fx/1");
  write_nodes(w, g, 0);
  if (g.exported)
    w.field("tracer", "export");
  else if (!g.traced_by_make_fx)
    w.field("tracer", "fake_tensor");
  if (!g.gradients.empty()) {
    w.key("gradients").begin_object();
    for (const auto& [out, leaf] : g.gradients) w.field(out, leaf);
    w.end_object();
  }
  if (!g.symbols.empty()) {
    w.key("symbols").begin_object();
    for (const auto& [name, d] : g.symbols) {
      w.key(name).begin_object();
      if (d.hint) w.field("hint", *d.hint);
      if (d.range) {
        w.key("range").begin_array();
        for (int64_t end : {d.range->lo, d.range->hi}) {
          if (end == kIntOo || end == kNegIntOo)
            w.null();
          else
            w.value(end);
        }
        w.end_array();
      }
      if (d.unbacked) w.field("unbacked", true);
      w.end_object();
    }
    w.end_object();
  }
  w.end_object();
  return out;
}

}  // namespace fakeprop::fx
