#include "torch_graph.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fakeprop::python {

namespace py = pybind11;

namespace {

// Interned attribute and method names, made once.
struct Names {
  py::object op = py::str("op"), name = py::str("name"), target = py::str("target"), args = py::str("args"),
             kwargs = py::str("kwargs"), meta = py::str("meta"), val = py::str("val"),
             example_value = py::str("example_value"), shape = py::str("shape"), stride = py::str("stride"),
             storage_offset = py::str("storage_offset"), dtype = py::str("dtype"), device = py::str("device"),
             requires_grad = py::str("requires_grad"), graph = py::str("graph"), nodes = py::str("nodes"),
             // torch.fx.Node's and FakeTensor's fields behind the properties above (read when present:
             // a property costs a Python call)
             args_field = py::str("_args"), kwargs_field = py::str("_kwargs"), fake_device_field = py::str("_fake_device"),
             untyped_storage = py::str("untyped_storage"), cdata = py::str("_cdata");
};

const Names& names() {
  static const Names* n = new Names();  // never destroyed: Python may be gone by then
  return *n;
}

py::object attr(py::handle o, const py::object& name) {
  PyObject* r = PyObject_GetAttr(o.ptr(), name.ptr());
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

py::object call_method(py::handle o, const py::object& name) {
  PyObject* r = PyObject_CallMethodNoArgs(o.ptr(), name.ptr());
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

// o.field when o has it, else o.fallback.
py::object field_or(py::handle o, const py::object& field, const py::object& fallback) {
  if (PyObject* r = PyObject_GetAttr(o.ptr(), field.ptr())) return py::reinterpret_steal<py::object>(r);
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
  PyErr_Clear();
  return attr(o, fallback);
}

std::string_view text(py::handle s) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s.ptr(), &n);
  if (!p) throw py::error_already_set();
  return {p, static_cast<size_t>(n)};
}

// A target's name (aten.add.Tensor, operator.getitem): asked of Python once
// per target object, which the cache keeps alive so its address stays its own.
const std::string& target_name(py::handle target, const py::object& ask) {
  static auto* cache = new std::unordered_map<PyObject*, std::string>();
  if (auto it = cache->find(target.ptr()); it != cache->end()) return it->second;
  std::string name(text(ask(target)));
  Py_INCREF(target.ptr());
  return cache->emplace(target.ptr(), std::move(name)).first->second;
}

class TorchGraphReader {
 public:
  TorchGraphReader(const py::dict& plan, py::list symbolic)
      : builder_(py::cast<std::string>(plan["path"]), py::cast<size_t>(plan["max_nodes"])),
        state_(plan["state"]),
        tied_(plan["tied"]),
        renames_(plan["names"]),
        examples_(plan["examples"]),
        items_(plan.contains("items") ? py::dict(plan["items"]) : py::dict()),
        specialized_(plan.contains("specialized") ? py::dict(plan["specialized"]) : py::dict()),
        reals_(plan.contains("real_outputs") ? py::dict(plan["real_outputs"]) : py::dict()),
        gradients_(plan.contains("gradients") ? py::dict(plan["gradients"]) : py::dict()),
        symbolic_(std::move(symbolic)) {
    if (plan.contains("guards_code")) guards_code_ = py::list(plan["guards_code"]);
    const py::dict torch = plan["torch"];
    torch_ = torch;
    max_nodes_ = py::cast<size_t>(plan["max_nodes"]);
    node_type_ = torch["node"];
    tensor_type_ = torch["tensor"];
    symint_type_ = torch["symint"];
    dtype_type_ = torch["dtype"];
    device_type_ = torch["device"];
    memory_format_type_ = torch["memory_format"];
    layout_type_ = torch["layout"];
    graph_module_type_ = torch["graph_module"];
    op_overload_type_ = torch["op_overload"];
    ask_target_name_ = torch["target_name"];
    ask_dim_ = torch["dim"];
    ask_attr_value_ = torch["attr_value"];
  }

  // See declared_examples (torch_graph.h).
  bool declare(TorchGraph& g, const std::vector<std::string>& failed) {
    record_symbols_ = false;
    bool changed = false;
    for (size_t p = 0; p < g.graph.nodes.size(); ++p) {
      fx::Node& n = g.graph.nodes[p];
      if (n.op != "call_function" || n.example.kind != fx::ExampleValue::Kind::None) continue;
      if (std::find(failed.begin(), failed.end(), n.name) == failed.end()) continue;
      if (g.nodes[p].is_none()) continue;  // a node of the program's guards
      const py::object v = meta_value(g.nodes[p]);
      if (PyObject_IsInstance(v.ptr(), tensor_type_.ptr()) != 1) {
        if (PyErr_Occurred()) throw py::error_already_set();
        continue;
      }
      n.example = example(v);
      changed = true;
    }
    return changed;
  }

  TorchGraph read(py::handle gm) {
    const Names& k = names();
    // As a list: pybind11's iterator over torch's node list runs past its end.
    PyObject* list = PySequence_List(attr(attr(gm, k.graph), k.nodes).ptr());
    if (!list) throw py::error_already_set();
    py::list nodes = py::reinterpret_steal<py::list>(list);
    builder_.reserve(nodes.size() + guards_code_.size());
    positions_.reserve(nodes.size());
    nodes_ = nodes.ptr();
    Py_ssize_t index = 0;
    for (py::handle n : nodes) {
      if (!read_node(gm, n)) skipped_.push_back(index);
      ++index;
    }
    // One torch.fx node per graph node: those read as no node (a subgraph's
    // get_attr, the guards' call) leave the list.
    for (auto it = skipped_.rbegin(); it != skipped_.rend(); ++it)
      if (PySequence_DelItem(nodes.ptr(), *it) != 0) throw py::error_already_set();
    for (auto [out, leaf] : gradients_) builder_.graph().gradients.emplace(renamed(out), renamed(leaf));
    // The guards' nodes have no torch.fx node: None keeps the list one per graph node.
    for (size_t i = 0; i < guard_count_; ++i)
      if (PyList_Insert(nodes.ptr(), static_cast<Py_ssize_t>(guard_position_ + i), Py_None) != 0)
        throw py::error_already_set();
    return {builder_.take(), std::move(nodes), py::dict()};
  }

 private:
  std::string renamed(py::handle name) const {
    if (renames_.size() > 0)
      if (PyObject* r = PyDict_GetItemWithError(renames_.ptr(), name.ptr())) return std::string(text(r));
    return std::string(text(name));
  }

  // The name a dim takes in the graph: an integer, or the expression text of
  // a SymInt (which is kept for the symbols; a call's declared value keeps
  // the text only: what a fallback takes of it are its static dims).
  std::string dim(py::handle d) {
    if (PyLong_CheckExact(d.ptr())) {
      const long long v = PyLong_AsLongLong(d.ptr());
      if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
      return std::to_string(v);
    }
    if (!record_symbols_) return std::string(text(py::str(d)));
    symbolic_.append(d);
    py::object t = ask_dim_(d);
    if (PyLong_Check(t.ptr())) return std::to_string(py::cast<long long>(t));
    return std::string(text(t));
  }

  std::vector<std::string> dims(const py::object& seq) {
    std::vector<std::string> out;
    const py::tuple t = py::reinterpret_borrow<py::tuple>(seq);
    out.reserve(t.size());
    for (py::handle d : t) out.push_back(dim(d));
    return out;
  }

  // NAME for an object that prints as "torch.NAME" (dtype, memory format,
  // layout: singletons), asked once per object in this read.
  const std::string& printed(py::handle o) {
    if (auto it = printed_.find(o.ptr()); it != printed_.end()) return it->second;
    std::string s(text(py::str(o)));
    if (s.rfind("torch.", 0) == 0) s.erase(0, 6);
    keep_.push_back(py::reinterpret_borrow<py::object>(o));
    return printed_.emplace(o.ptr(), std::move(s)).first->second;
  }

  // A device's text. Every fake tensor holds a torch.device object of its
  // own, so devices are matched by equality (a C comparison) rather than by
  // object, which would print each one.
  const std::string& device_text(py::handle o) {
    for (const auto& [device, text] : devices_) {
      const int equal = PyObject_RichCompareBool(o.ptr(), device.ptr(), Py_EQ);
      if (equal == 1) return text;
      if (equal < 0) throw py::error_already_set();
    }
    return devices_.emplace_back(py::reinterpret_borrow<py::object>(o), std::string(text(py::str(o)))).second;
  }

  fx::ExampleValue example(py::handle v) {
    fx::ExampleValue ex;
    if (v.is_none()) return ex;
    if (PyObject_IsInstance(v.ptr(), tensor_type_.ptr()) == 1) {
      const Names& k = names();
      ex.kind = fx::ExampleValue::Kind::Tensor;
      fx::ExampleTensor& t = ex.tensor;
      t.shape = dims(attr(v, k.shape));
      t.stride = dims(call_method(v, k.stride));
      t.storage_offset = dim(call_method(v, k.storage_offset));
      const std::string& dtype = printed(attr(v, k.dtype));
      const auto dt = dtype_from_name(dtype);
      if (!dt) builder_.fail("unknown dtype '" + dtype + "'");
      t.dtype = *dt;
      // FakeTensor's device is a Python property over its fake device.
      PyObject* fake_device = PyObject_GetAttr(v.ptr(), k.fake_device_field.ptr());
      if (!fake_device) PyErr_Clear();
      const std::string& device =
          device_text(fake_device ? py::reinterpret_steal<py::object>(fake_device) : attr(v, k.device));
      t.device = Device::parse(device);
      if (!t.device) builder_.fail("unknown device '" + device + "'");
      // As recorded: an ExportedProgram's parameters require grad (its
      // calls' values are detached snapshots, but torch.export traced them
      // in grad mode, where SDPA's backend choice, for one, sees the flag),
      // as the .pt2 reader gives them.
      t.requires_grad = PyObject_IsTrue(attr(v, k.requires_grad).ptr()) == 1;
      return ex;
    }
    if (PyBool_Check(v.ptr())) return ex;
    if (PyLong_Check(v.ptr()) || PyObject_IsInstance(v.ptr(), symint_type_.ptr()) == 1) {
      ex.kind = fx::ExampleValue::Kind::SymInt;
      ex.sym = PyLong_Check(v.ptr()) ? std::to_string(py::cast<long long>(v)) : dim(v);
    }
    return ex;
  }

  fx::Arg arg(py::handle a, size_t depth) {
    builder_.check_arg_depth(depth);
    fx::Arg out;
    PyObject* p = a.ptr();
    if (p == Py_None) return out;
    if (Py_IS_TYPE(p, reinterpret_cast<PyTypeObject*>(node_type_.ptr())) ||
        PyObject_IsInstance(p, node_type_.ptr()) == 1) {
      if (auto it = positions_.find(p); it != positions_.end()) return builder_.node_ref(it->second);
      if (auto it = subgraphs_.find(p); it != subgraphs_.end()) {
        out.kind = fx::Arg::Kind::Graph;
        out.i = static_cast<int64_t>(it->second);
        out.s = builder_.graph().subgraphs[it->second]->path;
        return out;
      }
      return builder_.tagged("node", renamed(attr(a, names().name)));  // not an earlier node: reported by name
    }
    if (PyBool_Check(p)) {
      out.kind = fx::Arg::Kind::Bool;
      out.b = p == Py_True;
      return out;
    }
    if (PyLong_Check(p)) {
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
      if (overflow) builder_.fail("integer argument out of 64-bit range");
      out.kind = fx::Arg::Kind::Int;
      out.i = v;
      return out;
    }
    if (PyFloat_Check(p)) {
      out.kind = fx::Arg::Kind::Float;
      out.f = PyFloat_AS_DOUBLE(p);
      return out;
    }
    if (PyUnicode_Check(p)) {
      out.kind = fx::Arg::Kind::String;
      out.s = text(a);
      return out;
    }
    if (PyList_Check(p) || PyTuple_Check(p)) {
      out.kind = fx::Arg::Kind::List;
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(p);
      out.list.reserve(static_cast<size_t>(n));
      for (Py_ssize_t i = 0; i < n; ++i) out.list.push_back(arg(PySequence_Fast_GET_ITEM(p, i), depth + 1));
      return out;
    }
    if (PyObject_IsInstance(p, dtype_type_.ptr()) == 1) return builder_.tagged("dtype", printed(a));
    if (PyObject_IsInstance(p, device_type_.ptr()) == 1) return builder_.tagged("device", device_text(a));
    if (PyObject_IsInstance(p, memory_format_type_.ptr()) == 1) return builder_.tagged("memory_format", printed(a));
    if (PyObject_IsInstance(p, layout_type_.ptr()) == 1) return builder_.tagged("layout", printed(a));
    if (PyDict_Check(p)) {  // flex_attention's kernel_options: [[key, value], ...], which no rule reads
      out.kind = fx::Arg::Kind::List;
      PyObject *key, *value;
      Py_ssize_t pos = 0;
      while (PyDict_Next(p, &pos, &key, &value)) {
        fx::Arg pair;
        pair.kind = fx::Arg::Kind::List;
        pair.list.push_back(arg(py::str(key), depth + 2));
        pair.list.push_back(arg(value, depth + 2));
        out.list.push_back(std::move(pair));
      }
      return out;
    }
    if (PyObject_IsInstance(p, op_overload_type_.ptr()) == 1) {  // the op auto_functionalized / with_effects wrap
      out.kind = fx::Arg::Kind::String;
      out.s = target_name(a, ask_target_name_);
      return out;
    }
    builder_.fail("cannot encode an argument of type " + std::string(Py_TYPE(p)->tp_name));
  }

  py::object meta_value(const py::object& node) {
    const Names& k = names();
    const py::object meta = attr(node, k.meta);
    if (PyObject* v = PyDict_GetItemWithError(meta.ptr(), k.val.ptr())) return py::reinterpret_borrow<py::object>(v);
    if (PyObject* v = PyDict_GetItemWithError(meta.ptr(), k.example_value.ptr()))
      return py::reinterpret_borrow<py::object>(v);
    if (PyErr_Occurred()) throw py::error_already_set();
    return py::none();
  }

  // False for a torch.fx node that becomes no graph node.
  bool read_node(py::handle gm, py::handle handle) {
    const Names& k = names();
    const py::object node = py::reinterpret_borrow<py::object>(handle);
    const py::object name = attr(node, k.name);
    const py::object op_object = attr(node, k.op);
    const std::string_view op = text(op_object);
    if (op != "placeholder" && !guards_added_) add_program_guards();
    // ExportedProgram.module() (torch 2.9+) calls a `_guards_fn` submodule that checks the program's
    // guards on the inputs and returns nothing: no value, nothing to run.
    if (op == "call_module" && text(attr(node, names().target)) == "_guards_fn" &&
        PyObject_Length(py::getattr(node, "users").ptr()) == 0)
      return false;
    // A higher-order op's subgraph (a GraphModule attribute): read into the
    // graph's subgraphs, and its references become subgraph arguments.
    if (op == "get_attr") {
      const py::object target = attr(node, k.target);
      const py::object value = ask_attr_value_(gm, target);
      if (PyObject_IsInstance(value.ptr(), graph_module_type_.ptr()) == 1) {
        read_subgraph(std::string(text(target)), value, node);
        return false;
      }
      if (PyErr_Occurred()) throw py::error_already_set();
    }
    fx::Node& n = builder_.add(renamed(name));
    const uint32_t position = static_cast<uint32_t>(builder_.graph().nodes.size() - 1);
    if (op == "placeholder") {
      if (PyObject* first = PyDict_GetItemWithError(tied_.ptr(), name.ptr())) {
        // A parameter tied to an earlier one (a shared embedding and LM
        // head): a view of it, so that the two have one storage.
        n.op = "call_function";
        n.target = "aten.alias.default";
        n.args.push_back(builder_.tagged("node", std::string(text(first))));
      } else if (PyObject* fqn = PyDict_GetItemWithError(state_.ptr(), name.ptr())) {
        n.op = "get_attr";
        n.target = text(fqn);
        n.example = example(meta_value(node));
      } else {
        n.op = "placeholder";
        n.target = n.name;
        user_inputs_.emplace_back(std::string(text(name)), position);
        PyObject* given = PyDict_GetItemWithError(examples_.ptr(), name.ptr());
        const py::object value = given ? py::reinterpret_borrow<py::object>(given) : meta_value(node);
        n.example = example(value);
        if (n.example.kind == fx::ExampleValue::Kind::Tensor) {
          n.example.tensor.storage = storage_id(value);
          if (PyObject* item = PyDict_GetItemWithError(items_.ptr(), name.ptr()))
            n.example.tensor.item = item_value(item);
          if (PyObject* dims = given ? PyDict_GetItemWithError(specialized_.ptr(), name.ptr()) : nullptr)
            for (py::handle d : py::reinterpret_borrow<py::list>(dims))
              if (py::cast<size_t>(d) < n.example.tensor.shape.size())
                n.example.tensor.specialized.push_back(py::cast<int64_t>(d));
        }
      }
      if (PyErr_Occurred()) throw py::error_already_set();
    } else if (op == "get_attr") {
      n.op = "get_attr";
      const py::object target = attr(node, k.target);
      n.target = text(target);
      py::object v = meta_value(node);
      if (v.is_none()) v = ask_attr_value_(gm, target);
      n.example = example(v);
    } else if (op == "call_function" || op == "output") {
      n.op = op;
      n.target = op == "output" ? "output" : target_name(attr(node, k.target), ask_target_name_);
      const py::object args = field_or(node, k.args_field, k.args);
      const Py_ssize_t count = PyTuple_GET_SIZE(args.ptr());
      n.args.reserve(static_cast<size_t>(count));
      for (Py_ssize_t i = 0; i < count; ++i) n.args.push_back(arg(PyTuple_GET_ITEM(args.ptr(), i), 0));
      const py::object kwargs = field_or(node, k.kwargs_field, k.kwargs);
      PyObject *key, *value;
      Py_ssize_t pos = 0;
      while (PyDict_Next(kwargs.ptr(), &pos, &key, &value)) n.kwargs.emplace_back(std::string(text(key)), arg(value, 0));
      std::sort(n.kwargs.begin(), n.kwargs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      if (n.target.starts_with("higher_order.")) {
        const py::object v = meta_value(node);
        if (PyTuple_Check(v.ptr()) || PyList_Check(v.ptr())) n.declared_outputs = static_cast<uint32_t>(PyObject_Length(v.ptr()));
      }
      if (PyObject* r = PyDict_GetItemWithError(reals_.ptr(), name.ptr())) n.real = real_value(r, 0);
      if (PyErr_Occurred()) throw py::error_already_set();
    } else {
      builder_.fail("op " + std::string(op) + " is not ATen-level (call_module/call_method are not supported)");
    }
    builder_.finish(n);
    positions_.emplace(node.ptr(), position);  // after its own arguments: a node never refers to itself
    return true;
  }

  void read_subgraph(const std::string& name, const py::object& module, const py::object& node) {
    fx::Graph& g = builder_.graph();
    size_t index = 0;
    while (index < g.subgraphs.size() && g.subgraphs[index]->path != name) ++index;
    if (index == g.subgraphs.size()) {
      if (depth_ >= fx::kMaxArgDepth) builder_.fail("subgraphs nested deeper than " + std::to_string(fx::kMaxArgDepth) + " levels");
      py::dict plan;
      plan["path"] = py::str(name);
      plan["max_nodes"] = max_nodes_;
      for (const char* empty : {"state", "tied", "names", "examples"}) plan[empty] = py::dict();
      plan["torch"] = torch_;
      TorchGraphReader sub(plan, py::list());
      sub.depth_ = depth_ + 1;
      TorchGraph read = sub.read(module);
      read.graph.path = name;
      read.graph.exported = true;
      g.subgraphs.push_back(std::make_shared<const fx::Graph>(std::move(read.graph)));
    }
    subgraphs_.emplace(node.ptr(), index);
  }

  // The program's guards_code (graph_export.py puts an ExportedProgram's in
  // the plan), as the .pt2 reader makes them: a fakeprop.program_guard node
  // each, after the inputs, over the guard's text and the user inputs by
  // their torch names (L['x'] is placeholder x).
  void add_program_guards() {
    guards_added_ = true;
    if (guards_code_.size() == 0) return;
    std::vector<std::string> taken;
    const Names& k = names();
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(nodes_); ++i)
      taken.push_back(renamed(attr(PyList_GET_ITEM(nodes_, i), k.name)));
    fx::Arg input_names, inputs;
    input_names.kind = inputs.kind = fx::Arg::Kind::List;
    for (const auto& [torch_name, position] : user_inputs_) {
      fx::Arg a;
      a.kind = fx::Arg::Kind::String;
      a.s = torch_name;
      input_names.list.push_back(std::move(a));
      inputs.list.push_back(builder_.node_ref(position));
    }
    size_t i = 0;
    guard_position_ = builder_.graph().nodes.size();
    guard_count_ = static_cast<size_t>(guards_code_.size());
    for (py::handle g : guards_code_) {
      std::string base = "guards_code_" + std::to_string(i++), node_name = base;
      for (size_t suffix = 1; std::find(taken.begin(), taken.end(), node_name) != taken.end(); ++suffix)
        node_name = base + "_" + std::to_string(suffix);
      fx::Node& n = builder_.add(node_name);
      n.op = "call_function";
      n.target = "fakeprop.program_guard";
      fx::Arg guard;
      guard.kind = fx::Arg::Kind::String;
      guard.s = std::string(text(py::str(g)));
      n.args = {std::move(guard), input_names, inputs};
      builder_.finish(n);
    }
  }

  fx::GraphBuilder builder_;
  size_t max_nodes_ = 0;
  py::dict torch_;
  size_t depth_ = 0;  // how deep a subgraph this reader reads
  std::vector<Py_ssize_t> skipped_;  // torch.fx nodes read as no graph node, by list index
  std::unordered_map<PyObject*, size_t> subgraphs_;  // a subgraph's get_attr node -> its index in Graph::subgraphs
  py::list guards_code_;
  PyObject* nodes_ = nullptr;  // the torch.fx nodes (a list the read holds)
  bool guards_added_ = false;
  size_t guard_position_ = 0, guard_count_ = 0;  // where the guards' nodes are in the graph
  std::vector<std::pair<std::string, uint32_t>> user_inputs_;  // torch name, graph position
  // A user input's storage as a small id, equal for inputs whose tensors
  // (real or fake) share one untyped storage, as FakeTensor's memo shares it.
  // None for a tensor without one (a subclass that refuses untyped_storage()).
  std::optional<int64_t> storage_id(const py::object& tensor) {
    const Names& k = names();
    PyObject* storage = PyObject_CallMethodNoArgs(tensor.ptr(), k.untyped_storage.ptr());
    PyObject* cdata = storage ? PyObject_GetAttr(storage, k.cdata.ptr()) : nullptr;
    Py_XDECREF(storage);
    const long long key = cdata ? PyLong_AsLongLong(cdata) : -1;
    Py_XDECREF(cdata);
    if (!cdata || PyErr_Occurred()) {
      PyErr_Clear();
      return std::nullopt;
    }
    return storage_ids_.try_emplace(key, static_cast<int64_t>(storage_ids_.size())).first->second;
  }

  py::dict state_, tied_, renames_, examples_;
  py::dict items_;  // placeholder -> the value its item() is memoized with (graph_export._item_values / _example_items)
  py::dict specialized_;  // placeholder -> the dims its trace specialized (graph_export._specialized_dims)

  static fx::ExampleTensor::Item item_value(PyObject* v) {
    fx::ExampleTensor::Item item;
    item.is_float = PyFloat_Check(v);
    if (item.is_float) item.f = PyFloat_AS_DOUBLE(v);
    else item.i = py::cast<int64_t>(v);
    return item;
  }
  // Node name -> its output on real inputs, as api._real_outputs describes it.
  py::dict reals_;
  py::dict gradients_;  // graph output node -> leaf node (fx::Graph::gradients)

  // {"shape": [...], "stride": [...]} a tensor, an int, a list of them.
  Value real_value(py::handle v, size_t depth) {
    builder_.check_arg_depth(depth);
    if (PyDict_Check(v.ptr())) {
      TensorValue t;
      for (py::handle d : v.cast<py::dict>()["shape"]) t.meta.sizes.emplace_back(d.cast<int64_t>());
      for (py::handle d : v.cast<py::dict>()["stride"]) t.meta.strides.emplace_back(d.cast<int64_t>());
      return Value::of_tensor(std::move(t));
    }
    if (PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr())) return Value::of_int(SymInt(v.cast<int64_t>()));
    if (PyList_Check(v.ptr())) {
      ValueList items;
      for (py::handle x : v) items.push_back(real_value(x, depth + 1));
      return Value::of_list(std::move(items));
    }
    return Value::of_opaque("no real value");
  }
  std::unordered_map<long long, int64_t> storage_ids_;
  bool record_symbols_ = true;  // dims of SymInts go to symbolic_ (see dim)
  py::list symbolic_;
  py::object graph_module_type_, op_overload_type_;
  py::object node_type_, tensor_type_, symint_type_, dtype_type_, device_type_, memory_format_type_, layout_type_;
  py::object ask_target_name_, ask_dim_, ask_attr_value_;
  std::unordered_map<PyObject*, uint32_t> positions_;  // the torch.fx nodes read so far (kept alive by the list)
  std::unordered_map<PyObject*, std::string> printed_;
  std::vector<py::object> keep_;  // the objects printed_ is keyed by
  std::deque<std::pair<py::object, std::string>> devices_;  // the devices met, each with its text
};

}  // namespace

TorchGraph read_torch_graph(py::handle graph_module, const py::dict& plan, py::list symbolic) {
  TorchGraph g = TorchGraphReader(plan, std::move(symbolic)).read(graph_module);
  g.plan = plan;
  g.graph.exported = plan.contains("exported") && py::cast<bool>(plan["exported"]);
  return g;
}

bool declared_examples(TorchGraph& g, const std::vector<std::string>& failed) {
  if (failed.empty()) return false;
  return TorchGraphReader(g.plan, py::list()).declare(g, failed);
}

void attach_report(const TorchGraph& g, py::handle report) {
  // Records come in node order, without the nodes that have none (the
  // output), so each is found by walking on from the last one's node.
  size_t next = 0;
  auto position_of = [&](std::string_view name) -> std::optional<size_t> {
    for (size_t p = next; p < g.graph.nodes.size(); ++p)
      if (g.graph.nodes[p].name == name) return next = p + 1, p;
    for (size_t p = 0; p < next && p < g.graph.nodes.size(); ++p)
      if (g.graph.nodes[p].name == name) return next = p + 1, p;
    return std::nullopt;
  };
  const Names& k = names();
  static const py::object* keys = new py::object[]{py::str("fakeprop"), py::str("outputs"), py::str("unbacked_bindings")};
  const py::object &key_fakeprop = keys[0], &key_outputs = keys[1], &key_bindings = keys[2];
  // Borrowed references into the report, which the caller holds.
  auto item = [](PyObject* dict, const py::object& key) {
    PyObject* v = PyDict_GetItemWithError(dict, key.ptr());
    if (!v) {
      if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key.ptr());
      throw py::error_already_set();
    }
    return v;
  };
  PyObject* records = item(report.ptr(), k.nodes);
  for (Py_ssize_t r = 0; r < PyList_GET_SIZE(records); ++r) {
    PyObject* rec = PyList_GET_ITEM(records, r);
    const std::optional<size_t> position = position_of(text(item(rec, k.name)));
    if (!position) continue;
    PyObject* outs = item(rec, key_outputs);
    py::object val;
    if (PyList_GET_SIZE(outs) == 1) {
      val = py::reinterpret_borrow<py::object>(item(PyList_GET_ITEM(outs, 0), k.val));
    } else {
      py::list vals(PyList_GET_SIZE(outs));
      for (Py_ssize_t i = 0; i < PyList_GET_SIZE(outs); ++i) {
        PyObject* v = item(PyList_GET_ITEM(outs, i), k.val);
        Py_INCREF(v);
        PyList_SET_ITEM(vals.ptr(), i, v);
      }
      val = std::move(vals);
    }
    py::dict entry;
    if (PyDict_SetItem(entry.ptr(), k.val.ptr(), val.ptr()) != 0 ||
        PyDict_SetItem(entry.ptr(), key_bindings.ptr(), item(rec, key_bindings)) != 0)
      throw py::error_already_set();
    if (g.nodes[*position].is_none()) continue;  // a node of the program's guards
    const py::object meta = attr(g.nodes[*position], k.meta);
    if (PyObject_SetItem(meta.ptr(), key_fakeprop.ptr(), entry.ptr()) != 0) throw py::error_already_set();
  }
}

}  // namespace fakeprop::python
