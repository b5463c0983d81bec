#include "fakeprop/fx/pt2_archive.h"

#include <zip.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "fakeprop/fx/libzip.h"
#include "fakeprop/util/error.h"
#include "fakeprop/util/mapped_file.h"

namespace fakeprop::fx {

namespace {

using json = nlohmann::json;

// ---- sympy srepr -> expression text ----

class SreprReader {
 public:
  explicit SreprReader(std::string_view s) : s_(s) {}

  struct Syntax {};  // not srepr: the caller keeps the text as it is

  std::string read() {
    std::string out = term(0);
    skip_space();
    if (pos_ != s_.size()) throw Syntax{};
    return out;
  }

 private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string identifier() {
    skip_space();
    const size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  std::string term(int depth) {
    if (depth > 200) throw InputError("size expression nested deeper than 200 levels");
    skip_space();
    if (pos_ >= s_.size()) throw Syntax{};
    const char c = s_[pos_];
    if (c == '\'' || c == '"') {
      const size_t end = s_.find(c, pos_ + 1);
      if (end == std::string_view::npos) throw Syntax{};
      std::string text(s_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return text;
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      const size_t start = pos_;
      if (c == '-') ++pos_;
      const size_t digits = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (pos_ == digits) throw Syntax{};
      std::string text(s_.substr(start, pos_ - start));
      return c == '-' ? "(" + text + ")" : text;
    }
    std::string head = identifier();
    if (head.empty()) throw Syntax{};
    if (!eat('(')) return head;  // a bare name (True, or a symbol in str() form)
    std::vector<std::string> args;
    if (!eat(')')) {
      do {
        // keyword arguments (Symbol's assumptions) are skipped
        const size_t save = pos_;
        const std::string key = identifier();
        if (!key.empty() && eat('=')) {
          (void)term(depth + 1);
          continue;
        }
        pos_ = save;
        args.push_back(term(depth + 1));
      } while (eat(','));
      if (!eat(')')) throw Syntax{};
    }
    return apply(head, args);
  }

  static std::string join(const std::vector<std::string>& args, const char* sep) {
    std::string out = "(";
    for (size_t i = 0; i < args.size(); ++i) out += (i ? sep : "") + args[i];
    return out + ")";
  }

  std::string apply(const std::string& head, const std::vector<std::string>& args) {
    auto arity = [&](size_t n) {
      if (args.size() != n) throw InputError("sympy " + head + " with " + std::to_string(args.size()) + " arguments");
    };
    if (head == "Symbol") {
      arity(1);
      return args[0];
    }
    if (head == "Integer") {
      arity(1);
      return args[0];
    }
    if (head == "Add" || head == "Mul") {
      if (args.empty()) throw InputError("sympy " + head + " without arguments");
      return join(args, head == "Add" ? " + " : "*");
    }
    if (head == "Pow") {
      arity(2);
      const std::string& e = args[1];
      if (e.empty() || e.find_first_not_of("0123456789") != std::string::npos)
        throw InputError("sympy Pow with exponent " + e + " is not an integer size");
      return "(" + args[0] + ")**" + e;
    }
    if (head == "FloorDiv" || head == "CleanDiv") {
      arity(2);
      return "(" + args[0] + " // " + args[1] + ")";
    }
    if (head == "Mod" || head == "PythonMod") {
      arity(2);
      return "(" + args[0] + " % " + args[1] + ")";
    }
    if (head == "Max" || head == "Min") {
      if (args.empty()) throw InputError("sympy " + head + " without arguments");
      std::string out = head == "Max" ? "max(" : "min(";
      for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
      return out + ")";
    }
    // torch's float functions (torch/utils/_sympy/functions.py), read by parse_expr by these names.
    if (head == "Float") {  // Float('1.7000000000000000', precision=53): the digits round-trip
      arity(1);
      if (args[0].find_first_of(".eE") == std::string::npos) return args[0] + ".0";
      return args[0];
    }
    if (head == "ToFloat" || head == "FloorToInt" || head == "CeilToInt" || head == "TruncToInt" ||
        head == "RoundToInt" || head == "OpaqueUnaryFn_sqrt") {
      arity(1);
      return head + join(args, ", ");
    }
    if (head == "IntTrueDiv" || head == "FloatTrueDiv" || head == "FloatPow") {
      arity(2);
      return head + join(args, ", ");
    }
    if (head == "PowByNatural") {
      arity(2);
      return apply("Pow", args);
    }
    throw InputError("size expression uses sympy " + head + ", which fakeprop has no form for");
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// ---- the schema's enums ----

std::optional<std::string_view> scalar_type_name(int64_t v) {
  switch (v) {
    case 1: return "uint8";
    case 2: return "int8";
    case 3: return "int16";
    case 4: return "int32";
    case 5: return "int64";
    case 6: return "float16";
    case 7: return "float32";
    case 8: return "float64";
    case 9: return "complex32";
    case 10: return "complex64";
    case 11: return "complex128";
    case 12: return "bool";
    case 13: return "bfloat16";
    case 28: return "uint16";
    case 29: return "float8_e4m3fn";
    case 30: return "float8_e5m2";
    case 31: return "float8_e4m3fnuz";
    case 32: return "float8_e5m2fnuz";
    case 33: return "float8_e8m0fnu";
    case 34: return "uint32";
    case 35: return "uint64";
    default: return std::nullopt;
  }
}

std::optional<std::string_view> memory_format_name(int64_t v) {
  switch (v) {
    case 1: return "contiguous_format";
    case 2: return "channels_last";
    case 3: return "channels_last_3d";
    case 4: return "preserve_format";
    default: return std::nullopt;
  }
}

std::optional<std::string_view> layout_name(int64_t v) {
  switch (v) {
    case 1: return "sparse_coo";
    case 2: return "sparse_csr";
    case 3: return "sparse_csc";
    case 4: return "sparse_bsr";
    case 5: return "sparse_bsc";
    case 6: return "_mkldnn";
    case 7: return "strided";
    default: return std::nullopt;
  }
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// ---- the program JSON -> Graph ----

class ProgramReader {
 public:
  ProgramReader(const json& root, std::string where, size_t max_nodes)
      : root_(root), where_(std::move(where)), max_nodes_(max_nodes) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(where_ + (node_.empty() ? "" : ": node '" + node_ + "'") + ": " + what);
  }

  const json& field(const json& object, const char* key, const std::string& what) const {
    if (!object.is_object()) fail(what + " must be an object");
    auto it = object.find(key);
    if (it == object.end()) fail(what + " has no '" + key + "'");
    return *it;
  }
  const json* optional_field(const json& object, const char* key) const {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
  }
  int64_t integer(const json& j, const std::string& what) const {
    if (j.is_number_integer() && !(j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX)))
      return j.get<int64_t>();
    fail(what + " must be a 64-bit integer, not " + j.dump().substr(0, 60));
  }
  std::string string(const json& j, const std::string& what) const {
    if (!j.is_string()) fail(what + " must be a string, not " + j.dump().substr(0, 60));
    return j.get<std::string>();
  }
  const json& array(const json& j, const std::string& what) const {
    if (!j.is_array()) fail(what + " must be a list");
    return j;
  }
  // A union ({"as_x": value}): its one key and value.
  std::pair<std::string, const json*> union_member(const json& j, const std::string& what) const {
    if (!j.is_object() || j.size() != 1) fail(what + " must be an object with one key, not " + j.dump().substr(0, 80));
    return {j.begin().key(), &j.begin().value()};
  }

  Graph read() {
    if (!root_.is_object()) fail("a serialized ExportedProgram is a JSON object");
    check_version();
    const json& gm = field(root_, "graph_module", "the program");
    const json& graph = field(gm, "graph", "graph_module");
    tensor_values_ = &field(graph, "tensor_values", "graph");
    if (!tensor_values_->is_object()) fail("'tensor_values' must be an object");
    if (const json* s = optional_field(graph, "sym_int_values")) sym_int_values_ = s;
    read_ranges();
    const json& nodes = array(field(graph, "nodes", "graph"), "'nodes'");
    if (nodes.size() > max_nodes_)
      fail("more than " + std::to_string(max_nodes_) + " nodes (the node-count limit)");
    g_.nodes.reserve(nodes.size() + 16);
    read_inputs(field(gm, "signature", "graph_module"), graph);
    read_guards_code(nodes);
    for (const json& jn : nodes) read_node(jn);
    node_.clear();
    read_outputs(graph);
    if (g_.nodes.size() > max_nodes_)
      fail("more than " + std::to_string(max_nodes_) + " nodes (the node-count limit)");
    for (Node& n : g_.nodes) {
      n.record_name = g_.names->intern(n.name);
      n.record_op = g_.names->intern(n.op == "call_function" ? n.target : n.op);
    }
    return std::move(g_);
  }

 private:
  void check_version() {
    const json& v = field(root_, "schema_version", "the program");
    const int64_t major = integer(field(v, "major", "schema_version"), "schema_version.major");
    const int64_t minor = integer(field(v, "minor", "schema_version"), "schema_version.minor");
    if (major != kPt2SchemaMajor && !(major == 0 && minor == 0))
      fail("serialized schema version " + std::to_string(major) + "." + std::to_string(minor) +
           " is not supported (fakeprop reads major version " + std::to_string(kPt2SchemaMajor) +
           ", as torch 2.15 writes)");
  }

  void read_ranges() {
    const json* ranges = optional_field(root_, "range_constraints");
    if (!ranges) return;
    if (!ranges->is_object()) fail("'range_constraints' must be an object");
    for (auto it = ranges->begin(); it != ranges->end(); ++it) {
      const std::string& name = it.key();
      if (!is_identifier(name)) continue;  // a constraint on an expression, not a symbol
      const std::string what = "range_constraints['" + name + "']";
      ValueRange vr;
      if (const json* lo = optional_field(*it, "min_val")) vr.lo = integer(*lo, what + ".min_val");
      if (const json* hi = optional_field(*it, "max_val")) vr.hi = integer(*hi, what + ".max_val");
      if (vr.lo > vr.hi) fail(what + " is empty");
      SymbolDecl& d = g_.symbols[name];
      d.unbacked = !name.empty() && name[0] == 'u';
      // range_constraints admit 0 and 1 where the trace assumed a backed
      // size >= 2 (export's 0/1 convention); the symbol's own range, as
      // ShapeEnv's var_to_range has it, starts at 2.
      if (!d.unbacked && vr.lo < 2) vr.lo = 2;
      d.range = vr;
    }
  }

  // guards_code: the guards torch.export.save writes from the model's own
  // Python control flow and checks (`(L['x'].size()[2] % 16) == 0`), which
  // ExportedProgram.module() checks at each call. Each becomes a
  // fakeprop.program_guard node after the inputs (ops/sym.cpp), over the
  // guard's text and the user inputs by name, so that it is recorded as a
  // guard of the program and bounds what sizes it accepts.
  void read_guards_code(const json& nodes) {
    const json* guards = optional_field(root_, "guards_code");
    if (!guards) return;
    const json& list = array(*guards, "'guards_code'");
    if (list.empty()) return;
    if (list.size() > max_nodes_) fail("more than " + std::to_string(max_nodes_) + " guards_code entries");
    std::vector<std::string> taken;
    collect_names(nodes, taken, 0);
    Arg names, inputs;
    names.kind = inputs.kind = Arg::Kind::List;
    for (const Node& n : g_.nodes) {
      if (n.op != "placeholder") continue;
      Arg name;
      name.kind = Arg::Kind::String;
      name.s = n.name;
      names.list.push_back(std::move(name));
      inputs.list.push_back(ref(n.name));
    }
    for (size_t i = 0; i < list.size(); ++i) {
      Arg text;
      text.kind = Arg::Kind::String;
      text.s = string(list[i], "guards_code[" + std::to_string(i) + "]");
      Node& n = add_node(fresh_name("guards_code_" + std::to_string(i), taken), "call_function");
      n.target = "fakeprop.program_guard";
      n.args = {std::move(text), names, inputs};
    }
  }

  // A SymInt ({"as_int": 3} or {"as_expr": {"expr_str": ..., "hint": {"as_int": 3}}}) as dim text.
  std::string sym_int_text(const json& j, const std::string& what) {
    auto [key, v] = union_member(j, what);
    if (key == "as_int") return std::to_string(integer(*v, what));
    if (key != "as_expr") fail(what + ": unknown SymInt kind '" + key + "'");
    const std::string srepr = string(field(*v, "expr_str", what), what + ".expr_str");
    std::string text;
    try {
      text = srepr_to_expr_text(srepr);
    } catch (const InputError& e) {
      fail(what + ": " + e.what());
    }
    if (const json* hint = optional_field(*v, "hint")) {
      auto [hkey, hv] = union_member(*hint, what + ".hint");
      if (hkey == "as_int" && is_identifier(text) && !(text[0] >= '0' && text[0] <= '9')) {
        SymbolDecl& d = g_.symbols[text];
        if (!d.hint && !d.unbacked) d.hint = integer(*hv, what + ".hint");
      }
    }
    return text;
  }

  ExampleTensor tensor_meta(const json& m, const std::string& name) {
    const std::string what = "tensor_values['" + name + "']";
    ExampleTensor t;
    const int64_t st = integer(field(m, "dtype", what), what + ".dtype");
    const auto dname = scalar_type_name(st);
    if (!dname) fail(what + ": unknown ScalarType " + std::to_string(st));
    const auto dt = dtype_from_name(*dname);
    if (!dt) fail(what + ": dtype " + std::string(*dname) + " is not supported");
    t.dtype = *dt;
    for (const json& d : array(field(m, "sizes", what), what + ".sizes")) t.shape.push_back(sym_int_text(d, what + ".sizes"));
    if (const json* strides = optional_field(m, "strides")) {
      std::vector<std::string> s;
      for (const json& d : array(*strides, what + ".strides")) s.push_back(sym_int_text(d, what + ".strides"));
      if (s.size() != t.shape.size()) fail(what + ": strides and sizes differ in length");
      t.stride = std::move(s);
    }
    if (const json* off = optional_field(m, "storage_offset")) t.storage_offset = sym_int_text(*off, what + ".storage_offset");
    if (const json* dev = optional_field(m, "device")) t.device = device(*dev, what + ".device");
    if (const json* rg = optional_field(m, "requires_grad")) {
      if (!rg->is_boolean()) fail(what + ".requires_grad must be a boolean");
      t.requires_grad = rg->get<bool>();
    }
    return t;
  }

  Device device(const json& d, const std::string& what) {
    std::string text = string(field(d, "type", what), what + ".type");
    if (const json* index = optional_field(d, "index")) text += ":" + std::to_string(integer(*index, what + ".index"));
    auto dev = Device::parse(text);
    if (!dev) fail(what + ": unknown device '" + text + "'");
    return *dev;
  }

  ExampleValue tensor_example(const std::string& name) {
    auto it = tensor_values_->find(name);
    if (it == tensor_values_->end()) fail("tensor '" + name + "' has no entry in tensor_values");
    ExampleValue ex;
    ex.kind = ExampleValue::Kind::Tensor;
    ex.tensor = tensor_meta(*it, name);
    return ex;
  }

  ExampleValue sym_int_example(const std::string& name) {
    ExampleValue ex;
    if (!sym_int_values_ || !sym_int_values_->contains(name)) return ex;
    ex.kind = ExampleValue::Kind::SymInt;
    ex.sym = sym_int_text((*sym_int_values_)[name], "sym_int_values['" + name + "']");
    return ex;
  }

  Node& add_node(std::string name, std::string op) {
    if (!positions_.emplace(name, static_cast<uint32_t>(g_.nodes.size())).second) fail("duplicate value name '" + name + "'");
    Node& n = g_.nodes.emplace_back();
    n.name = std::move(name);
    n.op = std::move(op);
    return n;
  }

  // A name no value has yet: `base`, else base_1, base_2, ...
  std::string fresh_name(const std::string& base, const std::vector<std::string>& taken = {}) const {
    auto free = [&](const std::string& s) {
      return !positions_.count(s) && std::find(taken.begin(), taken.end(), s) == taken.end();
    };
    if (free(base)) return base;
    for (size_t k = 1;; ++k)
      if (const std::string s = base + "_" + std::to_string(k); free(s)) return s;
  }

  Arg ref(const std::string& name) const {
    Arg a;
    a.kind = Arg::Kind::Node;
    a.s = name;
    if (auto it = positions_.find(name); it != positions_.end()) a.node_index = it->second;
    return a;
  }

  // The name inside {"name": ...} (TensorArgument and friends).
  std::string named(const json& j, const std::string& what) const { return string(field(j, "name", what), what + ".name"); }

  void read_inputs(const json& signature, const json& graph) {
    const json& specs = array(field(signature, "input_specs", "signature"), "'input_specs'");
    (void)graph;
    for (const json& spec : specs) {
      auto [kind, v] = union_member(spec, "an input spec");
      if (kind == "user_input") {
        auto [akind, a] = union_member(field(*v, "arg", "user_input"), "user_input.arg");
        if (akind == "as_tensor") {
          const std::string name = named(*a, "user_input.arg");
          Node& n = add_node(name, "placeholder");
          n.target = name;
          n.example = tensor_example(name);
        } else if (akind == "as_sym_int" || akind == "as_sym_float" || akind == "as_sym_bool") {
          auto [skind, s] = union_member(*a, "user_input.arg");
          if (skind != "as_name") fail("a user input " + akind + " without a name");
          const std::string name = string(*s, "user_input.arg");
          Node& n = add_node(name, "placeholder");
          n.target = name;
          if (akind == "as_sym_int") n.example = sym_int_example(name);
        } else {
          // A constant the export specialized on: a placeholder with no example.
          Node& n = add_node(fresh_name("input"), "placeholder");
          n.target = n.name;
        }
      } else if (kind == "parameter" || kind == "buffer" || kind == "tensor_constant") {
        const char* target_key = kind == "parameter" ? "parameter_name" : kind == "buffer" ? "buffer_name" : "tensor_constant_name";
        const std::string name = named(field(*v, "arg", kind), kind);
        Node& n = add_node(name, "get_attr");
        n.target = string(field(*v, target_key, kind), kind + "." + target_key);
        n.example = tensor_example(name);
      } else if (kind == "custom_obj" || kind == "token") {
        const std::string name = named(field(*v, "arg", kind), kind);
        Node& n = add_node(name, "get_attr");
        n.target = kind == "custom_obj" ? string(field(*v, "custom_obj_name", "custom_obj"), "custom_obj_name") : name;
        n.example.kind = ExampleValue::Kind::Other;
        // A token (with_effects' ordering) is an empty tensor the program declares.
        if (kind == "token" && tensor_values_->contains(name)) n.example = tensor_example(name);
      } else if (kind == "constant_input") {
        const std::string name = string(field(*v, "name", "constant_input"), "constant_input.name");
        Node& n = add_node(name, "placeholder");
        n.target = name;
        const json& value = field(*v, "value", "constant_input");
        if (auto [ck, cv] = union_member(value, "constant_input.value"); ck == "as_int") {
          n.example.kind = ExampleValue::Kind::SymInt;
          n.example.sym = std::to_string(integer(*cv, "constant_input.value"));
        } else {
          n.example.kind = ExampleValue::Kind::Other;
        }
      } else {
        fail("unknown input spec kind '" + kind + "'");
      }
    }
  }

  static Arg int_arg(int64_t v) {
    Arg a;
    a.kind = Arg::Kind::Int;
    a.i = v;
    return a;
  }
  static Arg list_arg(std::vector<Arg> items) {
    Arg a;
    a.kind = Arg::Kind::List;
    a.list = std::move(items);
    return a;
  }
  double float_value(const json& j, const std::string& what) const {
    if (j.is_number()) return j.get<double>();
    if (j.is_string()) {
      const std::string s = j.get<std::string>();
      if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
      if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
    }
    fail(what + " must be a number, not " + j.dump().substr(0, 60));
  }
  bool boolean(const json& j, const std::string& what) const {
    if (!j.is_boolean()) fail(what + " must be a boolean");
    return j.get<bool>();
  }

  // {"as_name": n} -> a reference, {"as_int"/"as_float"/"as_bool": v} -> a literal.
  Arg sym_arg(const json& j, const char* literal_key, const std::string& what) const {
    auto [key, v] = union_member(j, what);
    if (key == "as_name") return ref(string(*v, what));
    if (key != literal_key) fail(what + ": unknown kind '" + key + "'");
    Arg a;
    if (key == "as_int") return int_arg(integer(*v, what));
    if (key == "as_float") {
      a.kind = Arg::Kind::Float;
      a.f = float_value(*v, what);
    } else {
      a.kind = Arg::Kind::Bool;
      a.b = boolean(*v, what);
    }
    return a;
  }

  Arg argument(const json& j, const std::string& what, size_t depth = 0) {
    if (depth > kMaxArgDepth) fail("arguments nested deeper than " + std::to_string(kMaxArgDepth) + " levels");
    const auto [key, vp] = union_member(j, what);
    const json& v = *vp;
    const std::string list_what = what + "." + std::string(key);  // clang 14 lambdas cannot capture bindings
    auto each = [&](auto&& f) {
      std::vector<Arg> items;
      for (const json& x : array(v, list_what)) items.push_back(f(x));
      return list_arg(std::move(items));
    };
    Arg a;
    if (key == "as_none") return a;
    if (key == "as_tensor") return ref(named(v, what));
    if (key == "as_tensors") return each([&](const json& x) { return ref(named(x, what)); });
    if (key == "as_nested_tensors")
      return each([&](const json& x) {
        std::vector<Arg> inner;
        for (const json& t : array(x, what)) inner.push_back(ref(named(t, what)));
        return list_arg(std::move(inner));
      });
    if (key == "as_optional_tensor" || key == "as_optional_tensors") {
      auto optional = [&](const json& x) {
        auto [k, t] = union_member(x, what);
        if (k == "as_none") return Arg{};
        if (k != "as_tensor") fail(what + ": unknown optional tensor kind '" + k + "'");
        return ref(named(*t, what));
      };
      return key == "as_optional_tensor" ? optional(v) : each(optional);
    }
    if (key == "as_int") return int_arg(integer(v, what));
    if (key == "as_ints") return each([&](const json& x) { return int_arg(integer(x, what)); });
    if (key == "as_int_lists")
      return each([&](const json& x) {
        std::vector<Arg> inner;
        for (const json& i : array(x, what)) inner.push_back(int_arg(integer(i, what)));
        return list_arg(std::move(inner));
      });
    auto float_of = [&](const json& x) {
      Arg f;
      f.kind = Arg::Kind::Float;
      f.f = float_value(x, what);
      return f;
    };
    if (key == "as_float") return float_of(v);
    if (key == "as_floats") return each(float_of);
    if (key == "as_float_lists")
      return each([&](const json& x) {
        std::vector<Arg> inner;
        for (const json& f : array(x, what)) inner.push_back(float_of(f));
        return list_arg(std::move(inner));
      });
    auto bool_of = [&](const json& x) {
      Arg b;
      b.kind = Arg::Kind::Bool;
      b.b = boolean(x, what);
      return b;
    };
    if (key == "as_bool") return bool_of(v);
    if (key == "as_bools") return each(bool_of);
    auto string_of = [&](const json& x) {
      Arg s;
      s.kind = Arg::Kind::String;
      s.s = string(x, what);
      return s;
    };
    if (key == "as_string" || key == "as_operator") return string_of(v);
    if (key == "as_strings") return each(string_of);
    if (key == "as_sym_int") return sym_arg(v, "as_int", what);
    if (key == "as_sym_ints") return each([&](const json& x) { return sym_arg(x, "as_int", what); });
    if (key == "as_sym_float") return sym_arg(v, "as_float", what);
    if (key == "as_sym_floats") return each([&](const json& x) { return sym_arg(x, "as_float", what); });
    if (key == "as_sym_bool") return sym_arg(v, "as_bool", what);
    if (key == "as_sym_bools") return each([&](const json& x) { return sym_arg(x, "as_bool", what); });
    if (key == "as_scalar_type") {
      const int64_t st = integer(v, what);
      const auto name = scalar_type_name(st);
      const auto dt = name ? dtype_from_name(*name) : std::nullopt;
      if (!dt) fail(what + ": unsupported ScalarType " + std::to_string(st));
      a.kind = Arg::Kind::DType;
      a.dtype = *dt;
      return a;
    }
    if (key == "as_memory_format") {
      const auto name = memory_format_name(integer(v, what));
      if (!name) fail(what + ": unknown MemoryFormat " + v.dump());
      a.kind = Arg::Kind::MemoryFormat;
      a.s = *name;
      return a;
    }
    if (key == "as_layout") {
      const auto name = layout_name(integer(v, what));
      if (!name) fail(what + ": unknown Layout " + v.dump());
      a.kind = Arg::Kind::Layout;
      a.s = *name;
      return a;
    }
    if (key == "as_device") {
      a.kind = Arg::Kind::Device;
      a.s = device(v, what).str();
      return a;
    }
    if (key == "as_graph") return subgraph_arg(v, what, depth);
    if (key == "as_custom_obj" || key == "as_complex" || key == "as_string_to_argument")
      fail(what + ": " + key + " arguments are not supported");
    fail(what + ": unknown argument kind '" + key + "'");
  }

  // A higher-order op's subgraph ({"name": ..., "graph": {...}}): read as a
  // graph of its own into this graph's subgraphs, once per name (a subgraph
  // invoke_subgraph calls twice is written twice).
  Arg subgraph_arg(const json& v, const std::string& what, size_t depth) {
    const std::string name = string(field(v, "name", what), what + ".name");
    Arg a;
    a.kind = Arg::Kind::Graph;
    a.s = name;
    for (size_t i = 0; i < g_.subgraphs.size(); ++i)
      if (g_.subgraphs[i]->path == name) {
        a.i = static_cast<int64_t>(i);
        return a;
      }
    if (depth_ + depth >= kMaxArgDepth) fail(what + ": subgraphs nested deeper than " + std::to_string(kMaxArgDepth) + " levels");
    ProgramReader sub(field(v, "graph", what), where_ + ": subgraph '" + name + "'", max_nodes_);
    sub.depth_ = depth_ + depth + 1;
    Graph g = sub.read_subgraph();
    g.path = name;
    g.exported = true;
    a.i = static_cast<int64_t>(g_.subgraphs.size());
    g_.subgraphs.push_back(std::make_shared<const Graph>(std::move(g)));
    return a;
  }

 public:
  // A subgraph: its inputs become placeholders, in order.
  Graph read_subgraph() {
    const json& graph = root_;
    tensor_values_ = &field(graph, "tensor_values", "a subgraph");
    if (!tensor_values_->is_object()) fail("'tensor_values' must be an object");
    if (const json* s = optional_field(graph, "sym_int_values")) sym_int_values_ = s;
    const json& nodes = array(field(graph, "nodes", "a subgraph"), "'nodes'");
    if (nodes.size() > max_nodes_) fail("more than " + std::to_string(max_nodes_) + " nodes (the node-count limit)");
    g_.nodes.reserve(nodes.size() + 16);
    size_t k = 0;
    for (const json& in : array(field(graph, "inputs", "a subgraph"), "'inputs'")) {
      auto [kind, a] = union_member(in, "a subgraph input");
      std::string name;
      if (kind == "as_tensor") name = named(*a, "a subgraph input");
      else if (kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float") {
        auto [skind, sv] = union_member(*a, "a subgraph input");
        if (skind == "as_name") name = string(*sv, "a subgraph input");
      }
      if (name.empty()) name = fresh_name("arg" + std::to_string(k));
      ++k;
      Node& n = add_node(name, "placeholder");
      n.target = name;
      if (kind == "as_tensor") n.example = tensor_example(name);
      else if (kind == "as_sym_int") n.example = sym_int_example(name);
    }
    for (const json& jn : nodes) read_node(jn);
    node_.clear();
    read_outputs(graph);
    for (Node& n : g_.nodes) {
      n.record_name = g_.names->intern(n.name);
      n.record_op = g_.names->intern(n.op == "call_function" ? n.target : n.op);
    }
    return std::move(g_);
  }

 private:
  static std::string fx_target(const std::string& t) {
    if (t.rfind("torch.ops.", 0) == 0) return t.substr(10);
    if (t.rfind("_operator.", 0) == 0) return "operator." + t.substr(10);
    return t;
  }

  // A node's outputs: one value (the node is named after it) or several
  // (the node plus a getitem per output).
  void read_node(const json& jn) {
    node_.clear();
    if (!jn.is_object()) fail("each node must be an object");
    std::string torch_name;
    if (const json* nm = optional_field(jn, "name")) torch_name = string(*nm, "a node's name");
    const std::string target = string(field(jn, "target", "a node"), "a node's target");
    node_ = torch_name.empty() ? target : torch_name;
    const bool higher_order = target.rfind("torch.ops.higher_order.", 0) == 0;
    const json& outputs = array(field(jn, "outputs", "a node"), "'outputs'");
    // Output names, and whether the node returns one value (a higher-order
    // op returns a tuple unless the program says it returns one tensor).
    std::string single;
    const json* hop_single = optional_field(jn, "is_hop_single_tensor_return");
    const bool tuple = higher_order && !(hop_single && hop_single->is_boolean() && hop_single->get<bool>());
    if (outputs.size() == 1 && !tuple) {
      auto [k, v] = union_member(outputs[0], "an output");
      if (k == "as_tensor") single = named(*v, "an output");
      else if (k == "as_sym_int" || k == "as_sym_float" || k == "as_sym_bool") {
        auto [sk, sv] = union_member(*v, "an output");
        if (sk == "as_name") single = string(*sv, "an output");
      }
    }
    std::vector<std::string> output_names;
    for (const json& o : outputs) collect_names(o, output_names, 0);
    std::string name = !single.empty() ? single : fresh_name(torch_name.empty() ? "node" : torch_name, output_names);
    node_ = name;

    Node n;
    n.name = name;
    n.op = "call_function";
    n.target = fx_target(target);
    for (const json& in : array(field(jn, "inputs", "a node"), "'inputs'")) {
      const std::string arg_name = optional_field(in, "name") ? string(in["name"], "an input's name") : "";
      const std::string what = "input '" + arg_name + "'";
      Arg a = argument(field(in, "arg", what), what);
      int64_t kind = 0;
      if (const json* k = optional_field(in, "kind")) kind = integer(*k, what + ".kind");
      if (kind < 0 || kind > 2) fail(what + ": unknown argument kind " + std::to_string(kind));
      // UNKNOWN (archives before kinds were written): by name when it has one.
      const bool positional = kind == 1 || (kind == 0 && arg_name.empty());
      if (positional) {
        if (!n.kwargs.empty()) fail(what + ": a positional argument after a keyword one");
        n.args.push_back(std::move(a));
      } else {
        n.kwargs.emplace_back(arg_name, std::move(a));
      }
    }
    if (!single.empty() && outputs[0].contains("as_tensor")) n.example = tensor_example(single);
    if (higher_order && single.empty()) n.declared_outputs = static_cast<uint32_t>(outputs.size());
    Node& added = add_node(name, "call_function");
    const std::string node_name = added.name;
    n.name = node_name;
    added = std::move(n);
    if (single.empty()) add_getitems(node_name, outputs, 0);
  }

  // Every value name in an output (for choosing a node name none of them has).
  void collect_names(const json& o, std::vector<std::string>& out, size_t depth) {
    if (depth > kMaxArgDepth) fail("outputs nested deeper than " + std::to_string(kMaxArgDepth) + " levels");
    if (o.is_array()) {
      for (const json& x : o) collect_names(x, out, depth + 1);
    } else if (o.is_object()) {
      for (const auto& [k, v] : o.items()) {
        if ((k == "name" || k == "as_name") && v.is_string()) out.push_back(v.get<std::string>());
        else collect_names(v, out, depth + 1);
      }
    }
  }

  // getitem nodes for the outputs of `source`, a tuple (or list) of them.
  void add_getitems(const std::string& source, const json& outputs, size_t depth) {
    if (depth > kMaxArgDepth) fail("outputs nested deeper than " + std::to_string(kMaxArgDepth) + " levels");
    if (outputs.size() == 1 && outputs[0].is_object() && outputs[0].contains("as_tensors") && depth == 0) {
      add_getitems(source, outputs[0]["as_tensors"], depth + 1);  // Tensor[]: the list itself
      return;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const json& o = outputs[i];
      std::string item;
      const json* nested = nullptr;
      if (o.is_object() && o.contains("name") && depth > 0) {
        item = named(o, "an output");
      } else {
        auto [k, v] = union_member(o, "an output");
        if (k == "as_none") continue;
        if (k == "as_tensor") item = named(*v, "an output");
        else if (k == "as_sym_int" || k == "as_sym_float" || k == "as_sym_bool") {
          auto [sk, sv] = union_member(*v, "an output");
          if (sk != "as_name") continue;  // a constant output
          item = string(*sv, "an output");
        } else if (k == "as_tensors" || k == "as_optional_tensors") {
          nested = v;
          item = fresh_name(source + "_" + std::to_string(i));
        } else {
          fail("unsupported output kind '" + k + "'");
        }
      }
      Node& g = add_node(item, "call_function");
      g.target = "operator.getitem";
      g.args = {ref(source), int_arg(static_cast<int64_t>(i))};
      if (!nested && tensor_values_->contains(item)) g.example = tensor_example(item);
      const std::string parent = g.name;
      if (nested) add_getitems(parent, *nested, depth + 1);
    }
  }

  void read_outputs(const json& graph) {
    const json& outputs = array(field(graph, "outputs", "graph"), "'outputs'");
    Node& out = add_node(fresh_name("output"), "output");
    out.target = "output";
    std::vector<Arg> items;
    for (const json& o : outputs) items.push_back(argument(o, "a graph output"));
    out.args.push_back(list_arg(std::move(items)));
  }

  const json& root_;
  std::string where_;
  size_t max_nodes_;
  std::string node_;
  Graph g_;
  const json* tensor_values_ = nullptr;
  const json* sym_int_values_ = nullptr;
  std::unordered_map<std::string, uint32_t> positions_;
  size_t depth_ = 0;  // how deep a subgraph this reader reads
};

// ---- the zip ----

// Closers run only once libzip is loaded (they close what it opened).
struct ZipCloser {
  void operator()(zip_t* z) const { libzip({}).discard(z); }
};
struct ZipFileCloser {
  void operator()(zip_file_t* f) const { libzip({}).fclose(f); }
};

// A member's bytes, inflated as they arrive: its recorded size is not
// trusted past --max-program-bytes and the compression ratio.
std::string read_member(zip_t* z, const LibZip& zip, const std::string& path, const std::string& member,
                        zip_uint64_t index, uint64_t archive_bytes, const FileLimits& limits) {
  const std::string where = path + ": " + member;
  zip_stat_t st;
  zip.stat_init(&st);
  if (zip.stat_index(z, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    throw InputError(where + ": cannot read the member's size: " + zip.strerror(z));
  if (st.size > limits.max_program_bytes)
    throw InputError(where + ": records " + std::to_string(st.size) + " bytes, over the limit of " +
                     std::to_string(limits.max_program_bytes) + " for a program (--max-program-bytes)");
  // What the member may inflate to: the program limit, and a ratio to the
  // bytes it really occupies in the archive (a zip bomb stops there).
  uint64_t compressed = archive_bytes;
  if ((st.valid & ZIP_STAT_COMP_SIZE) && st.comp_size < compressed) compressed = st.comp_size;
  const uint64_t by_ratio = compressed > (UINT64_MAX - FileLimits::kRatioFreeBytes) / limits.max_compression_ratio
                                ? UINT64_MAX
                                : FileLimits::kRatioFreeBytes + compressed * limits.max_compression_ratio;
  const bool ratio_binds = by_ratio < limits.max_program_bytes;
  const uint64_t cap = ratio_binds ? by_ratio : limits.max_program_bytes;
  std::unique_ptr<zip_file_t, ZipFileCloser> f(zip.fopen_index(z, index, 0));
  if (!f) throw InputError(where + ": cannot open the member: " + zip.strerror(z));
  // Filled as bytes arrive: the recorded size is not trusted, but an honest
  // one (within the cap) is reserved, so the text is never copied to grow.
  constexpr size_t kChunk = size_t{1} << 20;
  std::string text;
  text.reserve(static_cast<size_t>(std::min<uint64_t>(st.size, cap)) + kChunk);
  for (;;) {
    const size_t at = text.size();
    text.resize(at + kChunk);
    const zip_int64_t n = zip.fread(f.get(), text.data() + at, kChunk);
    if (n < 0) throw InputError(where + ": cannot read the member: " + zip.file_strerror(f.get()));
    text.resize(at + static_cast<size_t>(n));
    if (text.size() > cap)
      throw InputError(where + ": inflates past " + std::to_string(cap) + " bytes" +
                       (ratio_binds ? " from " + std::to_string(compressed) + " compressed (--max-compression-ratio " +
                                          std::to_string(limits.max_compression_ratio) + ")"
                                    : " (--max-program-bytes)"));
    if (n == 0) break;
  }
  if (text.size() < st.size)
    throw InputError(where + ": the member ends after " + std::to_string(text.size()) + " of " + std::to_string(st.size) + " bytes");
  if (text.size() > st.size) throw InputError(where + ": the member is longer than its recorded size");
  return text;
}

// Parameters and buffers saved once under several names (a GPT-2's shared
// embedding and LM head: one path_name in the weights config) are one
// tensor in torch: their get_attr nodes share one storage.
void share_tied_storages(Graph& g, const std::string& config_text, const std::string& where) {
  json config;
  try {
    config = json::parse(config_text, [&](int depth, json::parse_event_t event, json&) {
      if (depth > kMaxJsonDepth && (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start))
        throw json_too_deep(where);
      return true;
    });
  } catch (const json::exception& e) {
    throw InputError(where + ": invalid JSON: " + e.what());
  }
  const json* entries = config.is_object() && config.contains("config") ? &config["config"] : nullptr;
  if (!entries || !entries->is_object()) return;
  std::map<std::string, std::string> file_of;  // target -> path_name
  std::map<std::string, int> sharing;          // path_name -> how many targets
  for (auto it = entries->begin(); it != entries->end(); ++it) {
    if (!it.value().is_object() || !it.value().contains("path_name") || !it.value()["path_name"].is_string()) continue;
    const std::string file = it.value()["path_name"].get<std::string>();
    file_of[it.key()] = file;
    ++sharing[file];
  }
  std::map<std::string, int64_t> group;
  // Far from the ids a JSON FX graph's placeholders declare.
  const int64_t base = int64_t{1} << 40;
  for (Node& n : g.nodes) {
    if (n.op != "get_attr" || n.example.kind != ExampleValue::Kind::Tensor) continue;
    const auto f = file_of.find(n.target);
    if (f == file_of.end() || sharing[f->second] < 2) continue;
    const auto [it, fresh] = group.try_emplace(f->second, base + static_cast<int64_t>(group.size()));
    (void)fresh;
    n.example.tensor.storage = it->second;
  }
}

Graph read_archive(zip_t* z, const std::string& path, uint64_t archive_bytes, size_t max_nodes,
                   const FileLimits& limits) {
  const LibZip& zip = libzip(path);
  const zip_int64_t count = zip.get_num_entries(z, 0);
  if (count < 0) throw InputError(path + ": not a readable zip archive");
  // models/<name>.json under the archive's root folder (or at the top).
  std::vector<std::pair<std::string, zip_uint64_t>> programs;
  std::optional<std::pair<std::string, zip_uint64_t>> legacy;
  std::map<std::string, zip_uint64_t> members;  // every name, for the program's weights config
  for (zip_int64_t i = 0; i < count; ++i) {
    const char* raw = zip.get_name(z, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_GUESS);
    if (!raw) continue;
    const std::string name = raw;
    members.emplace(name, static_cast<zip_uint64_t>(i));
    // [root/]models/<name>.json
    std::vector<std::string_view> parts;
    for (size_t start = 0;;) {
      const size_t slash = name.find('/', start);
      parts.push_back(std::string_view(name).substr(start, slash == std::string::npos ? std::string::npos : slash - start));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    const bool json_file = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
    if (json_file && parts.size() >= 2 && parts.size() <= 3 && parts[parts.size() - 2] == "models")
      programs.emplace_back(name, static_cast<zip_uint64_t>(i));
    const std::string legacy_name = "serialized_exported_program.json";
    if (name.size() >= legacy_name.size() &&
        name.compare(name.size() - legacy_name.size(), legacy_name.size(), legacy_name) == 0 &&
        std::count(name.begin(), name.end(), '/') <= 1)
      legacy.emplace(name, static_cast<zip_uint64_t>(i));
  }
  std::optional<std::pair<std::string, zip_uint64_t>> chosen;
  for (const auto& p : programs)
    if (p.first.size() >= 17 && p.first.compare(p.first.size() - 17, 17, "models/model.json") == 0) chosen = p;
  if (!chosen && programs.size() == 1) chosen = programs[0];
  if (!chosen && programs.size() > 1) {
    std::string names;
    for (const auto& p : programs) names += (names.empty() ? "" : ", ") + p.first;
    throw InputError(path + ": the archive holds several programs (" + names + ") and none is models/model.json");
  }
  if (!chosen) chosen = legacy;
  if (!chosen)
    throw InputError(path + ": a zip without a serialized program (no models/<name>.json member): not a torch.export.save archive");
  const auto& [member, index] = *chosen;
  const std::string where = path + ": " + member;
  const std::string text = read_member(z, zip, path, member, index, archive_bytes, limits);
  Graph g = parse_exported_program(text, where, max_nodes);
  g.exported = true;
  g.path = path;
  // [root/]models/NAME.json keeps its weights' names in [root/]data/weights/NAME_weights_config.json.
  const size_t models = member.rfind("models/");
  if (models != std::string::npos && member.size() > 5) {
    const std::string program = member.substr(models + 7, member.size() - 5 - models - 7);
    const std::string config = member.substr(0, models) + "data/weights/" + program + "_weights_config.json";
    if (auto it = members.find(config); it != members.end())
      share_tied_storages(g, read_member(z, zip, path, config, it->second, archive_bytes, limits), path + ": " + config);
  }
  return g;
}

}  // namespace

std::string srepr_to_expr_text(std::string_view srepr) {
  try {
    return SreprReader(srepr).read();
  } catch (const SreprReader::Syntax&) {
    return std::string(srepr);
  }
}

bool looks_like_zip(std::string_view head) { return head.size() >= 4 && head.substr(0, 4) == std::string_view("PK\x03\x04", 4); }

Graph parse_exported_program(std::string_view json_text, const std::string& where, size_t max_nodes) {
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end(), [&](int depth, json::parse_event_t event, json&) {
      if (depth > kMaxJsonDepth && (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start))
        throw json_too_deep(where);
      return true;
    });
  } catch (const json::exception& e) {
    throw InputError(where + ": invalid JSON: " + e.what());
  }
  return ProgramReader(root, where, max_nodes).read();
}

Graph parse_pt2_archive(std::string_view bytes, const std::string& path_for_errors, size_t max_nodes,
                        const FileLimits& limits) {
  const LibZip& zip = libzip(path_for_errors);
  zip_error_t error;
  zip.error_init(&error);
  zip_source_t* src = zip.source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (!src) {
    const std::string text = zip.error_strerror(&error);
    zip.error_fini(&error);
    throw InputError(path_for_errors + ": " + text);
  }
  zip_t* z = zip.open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!z) {
    zip.source_free(src);
    const std::string text = zip.error_strerror(&error);
    zip.error_fini(&error);
    throw InputError(path_for_errors + ": not a readable zip archive: " + text);
  }
  zip.error_fini(&error);
  std::unique_ptr<zip_t, ZipCloser> owner(z);
  return read_archive(z, path_for_errors, bytes.size(), max_nodes, limits);
}

Graph load_pt2_archive(const std::string& path, size_t max_nodes, const FileLimits& limits) {
  // Mapped, not opened by libzip: the file is opened as every input is
  // (regular files only, util/input_file.h), and pages are read on demand.
  const std::shared_ptr<MappedFile> file = MappedFile::open(path);
  return parse_pt2_archive(file->bytes(), path, max_nodes, limits);
}

}  // namespace fakeprop::fx
