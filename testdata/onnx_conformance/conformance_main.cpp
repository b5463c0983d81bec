// fakeprop_conformance: runs ONNX's backend node tests (as written by
// scripts/gen_onnx_node_tests.py) through fakeprop and compares every
// output's dtype and shape with the real outputs of test_data_set_0.
//
//   fakeprop_conformance DIR [--filter OP]... [--case NAME]... [--dynamic]
//                        [--fold-int-inputs] [--known-failures FILE]
//                        [--threshold 0.98] [--verbose] [--quiet]
//
// Each case runs with the test's input shapes as --input hints. A symbolic
// output dim is evaluated with the backed hints; a dim that still holds an
// unbacked symbol (data-dependent) passes when the real size lies in its
// range. Any error recorded during the run fails the case (a fallback value
// would otherwise pass by being unknown).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance_onnx_check.h"
#include "fakeprop/onnx/interpreter.h"
#include "fakeprop/onnx/model.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace fakeprop;

namespace {

struct Options {
  fs::path dir;
  std::set<std::string> filters;  // op types; empty: all
  std::set<std::string> cases;    // case names; empty: all
  bool dynamic = false;           // every input dim a backed symbol
  bool fold_int_inputs = false;   // small integer inputs become initializers with known data
  bool onnx_check = true;         // cross-check with libonnx shape inference
  bool verbose = false;
  bool quiet = false;
  double threshold = 0.98;
  fs::path known_failures;
  fs::path disagreements;  // documented libonnx disagreements
};

struct CaseResult {
  std::string name;
  std::string op;
  bool passed = false;
  std::vector<std::string> problems;
  std::vector<std::string> onnx_disagreements;
  size_t onnx_compared = 0;  // values compared with libonnx
  std::vector<std::string> notes;  // harness adjustments, shown with --verbose
};

std::string join(const std::vector<std::string>& xs, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? sep : "") + xs[i];
  return out;
}

std::string shape_text(const json& shape) {
  std::vector<std::string> dims;
  for (const auto& d : shape) dims.push_back(std::to_string(d.get<int64_t>()));
  return "[" + join(dims) + "]";
}

std::string got_shape_text(const TensorMeta& m, const ShapeEnv& env) {
  std::vector<std::string> dims;
  for (const auto& d : m.sizes) dims.push_back(env.simplify(d).to_python());
  return "[" + join(dims) + "]";
}

std::string onnx_dtype_name(int32_t t) {
  auto d = dtype_from_onnx(t);
  return d ? std::string(dtype_name(*d)) : "onnx type " + std::to_string(t);
}

// Compares one fakeprop value with one expected manifest entry; appends problems.
class Comparer {
 public:
  explicit Comparer(const ShapeEnv& env) : env_(env) {}

  void compare(const Value& got, const json& want, const std::string& what, std::vector<std::string>& problems) {
    const std::string kind = want.value("kind", "tensor");
    if (kind == "tensor") return compare_tensor(got, want, what, problems);
    if (kind == "sequence") return compare_sequence(got, want["elements"], what, problems);
    if (kind == "optional") {
      const json& elem = want["element"];
      if (elem.is_null()) {
        if (!is_empty_optional(got) && !got.maybe_none)
          problems.push_back(what + ": expected an empty optional, got " + describe(got));
        return;
      }
      if (is_empty_optional(got)) {
        problems.push_back(what + ": expected an optional holding a value, got an empty optional");
        return;
      }
      return compare(got, elem, what, problems);
    }
    problems.push_back(what + ": values of kind '" + kind + "' are not compared");
  }

  static bool is_empty_optional(const Value& v) {
    return v.is_empty_optional();
  }

 private:
  std::string describe(const Value& v) const {
    switch (v.kind) {
      case Value::Kind::None: return "no value";
      case Value::Kind::Tensor: return "a tensor " + got_shape_text(v.tensor->meta, env_);
      case Value::Kind::List: return "a sequence";
      case Value::Kind::Opaque: return "an unknown value (" + v.opaque_text() + ")";
      default: return "a scalar";
    }
  }

  // Does symbolic size `d` agree with the real size `real`?
  bool dim_matches(const SymInt& d, int64_t real, std::string& why) const {
    SymInt s = env_.simplify(d);
    if (s.is_static()) {
      if (s.value() == real) return true;
      why = "is " + std::to_string(s.value());
      return false;
    }
    if (auto h = env_.hint(s)) {
      if (*h == real) return true;
      why = s.to_python() + " evaluates to " + std::to_string(*h);
      return false;
    }
    ValueRange r = env_.bound(s.expr());
    if (r.contains(real)) return true;
    why = "data-dependent " + s.to_python() + " has range " + r.to_string();
    return false;
  }

  void compare_tensor(const Value& got, const json& want, const std::string& what,
                      std::vector<std::string>& problems) const {
    if (!got.is_tensor()) {
      problems.push_back(what + ": expected a tensor, got " + describe(got));
      return;
    }
    const TensorMeta& m = got.tensor->meta;
    const int32_t want_dtype = want["dtype"].get<int32_t>();
    if (dtype_to_onnx(m.dtype) != want_dtype)
      problems.push_back(what + ": dtype " + std::string(dtype_name(m.dtype)) + ", expected " +
                         onnx_dtype_name(want_dtype));
    const json& shape = want["shape"];
    if (static_cast<size_t>(m.dim()) != shape.size()) {
      problems.push_back(what + ": shape " + got_shape_text(m, env_) + ", expected " + shape_text(shape) + " (rank)");
      return;
    }
    for (size_t k = 0; k < shape.size(); ++k) {
      std::string why;
      if (!dim_matches(m.sizes[k], shape[k].get<int64_t>(), why)) {
        problems.push_back(what + ": shape " + got_shape_text(m, env_) + ", expected " + shape_text(shape) + " (dim " +
                           std::to_string(k) + " " + why + ")");
        return;
      }
    }
  }

  void compare_sequence(const Value& got, const json& elems, const std::string& what,
                        std::vector<std::string>& problems) {
    if (got.kind != Value::Kind::List) {
      problems.push_back(what + ": expected a sequence of " + std::to_string(elems.size()) + " tensors, got " +
                         describe(got));
      return;
    }
    if (got.list_length) {
      std::string why;
      if (!dim_matches(*got.list_length, static_cast<int64_t>(elems.size()), why))
        problems.push_back(what + ": sequence length " + why + ", expected " + std::to_string(elems.size()));
      if (got.list->empty()) return;
      for (size_t k = 0; k < elems.size(); ++k)
        compare(got.list->front(), elems[k], what + "[" + std::to_string(k) + "]", problems);
      return;
    }
    if (got.list->size() != elems.size()) {
      problems.push_back(what + ": sequence of " + std::to_string(got.list->size()) + " elements, expected " +
                         std::to_string(elems.size()));
      return;
    }
    for (size_t k = 0; k < elems.size(); ++k)
      compare((*got.list)[k], elems[k], what + "[" + std::to_string(k) + "]", problems);
  }

  const ShapeEnv& env_;
};

// Small integer graph inputs become initializers holding the test's data
// (--fold-int-inputs), as they would be constants in a real model.
void fold_int_inputs(onnx::Model& model, const json& manifest) {
  for (const auto& in : manifest["inputs"]) {
    if (!in.contains("data")) continue;
    const std::string name = in["name"].get<std::string>();
    const int32_t dtype = in["dtype"].get<int32_t>();
    auto bytes = std::make_shared<std::string>();
    for (const auto& x : in["data"]) {
      const int64_t v = x.get<int64_t>();
      if (dtype == 7) {
        bytes->append(reinterpret_cast<const char*>(&v), sizeof v);
      } else if (dtype == 6) {
        const int32_t w = static_cast<int32_t>(v);
        bytes->append(reinterpret_cast<const char*>(&w), sizeof w);
      } else {
        bytes->push_back(static_cast<char>(v != 0));
      }
    }
    auto t = std::make_shared<onnx::TensorRef>();
    t->name = name;
    for (const auto& d : in["shape"]) t->dims.push_back(d.get<int64_t>());
    t->data_type = dtype;
    t->storage = onnx::TensorRef::Storage::Raw;
    t->bytes = *bytes;
    model.keepalive.push_back(bytes);
    model.graph.initializers.push_back(t);
  }
}

// Sequence and optional graph inputs have no --input hints: the runner builds
// them inside the model from tensor inputs of the test's element shapes
// (SequenceConstruct / SequenceEmpty / Optional nodes producing the input's
// name), so every element has its real shape.
class NonTensorInputs {
 public:
  explicit NonTensorInputs(onnx::Model& model) : model_(model) {}

  void materialize(const json& manifest) {
    for (const auto& in : manifest["inputs"]) {
      const std::string kind = in.value("kind", "tensor");
      if (kind != "sequence" && kind != "optional") continue;
      const std::string name = in["name"].get<std::string>();
      auto& inputs = model_.graph.inputs;
      auto it = std::find_if(inputs.begin(), inputs.end(), [&](const onnx::ValueInfo& vi) { return vi.name == name; });
      if (it == inputs.end()) continue;
      const onnx::TypeInfo declared = it->type;
      inputs.erase(it);
      produce(name, in, declared);
    }
  }

 private:
  static onnx::TypeInfo tensor_type(const json& elem) {
    onnx::TypeInfo t;
    t.kind = onnx::TypeInfo::Kind::Tensor;
    t.elem_type = elem["dtype"].get<int32_t>();
    std::vector<onnx::Dim> dims;
    for (const auto& d : elem["shape"]) dims.push_back({onnx::Dim::Kind::Value, d.get<int64_t>(), ""});
    t.shape = std::move(dims);
    return t;
  }

  void add_node(const std::string& op, std::vector<std::string> inputs, const std::string& output,
                std::vector<onnx::Attribute> attrs = {}) {
    NamePool& names = *model_.names;
    onnx::Node n;
    n.name = names.intern("conformance_input_" + output);
    n.op_type = names.intern(op);
    for (const auto& i : inputs) n.inputs.push_back(names.intern(i));
    n.outputs = {names.intern(output)};
    n.attributes = std::move(attrs);
    // Before the nodes that read it (the list only appends).
    decltype(model_.graph.nodes) nodes;
    nodes.push_back(std::move(n));
    for (onnx::Node& x : model_.graph.nodes) nodes.push_back(std::move(x));
    model_.graph.nodes = std::move(nodes);
  }

  void produce(const std::string& name, const json& entry, const onnx::TypeInfo& declared) {
    const std::string kind = entry.value("kind", "tensor");
    if (kind == "tensor") {
      model_.graph.inputs.push_back({name, tensor_type(entry)});
      return;
    }
    if (kind == "sequence") {
      const json& elems = entry["elements"];
      if (elems.empty()) {
        onnx::Attribute dtype;
        dtype.name = "dtype";
        dtype.type = onnx::Attribute::Type::Int;
        dtype.i = declared.elem && declared.elem->elem_type ? declared.elem->elem_type : 1;
        add_node("SequenceEmpty", {}, name, {dtype});
        return;
      }
      std::vector<std::string> parts;
      for (size_t k = 0; k < elems.size(); ++k) {
        parts.push_back(name + "__" + std::to_string(k));
        model_.graph.inputs.push_back({parts.back(), tensor_type(elems[k])});
      }
      add_node("SequenceConstruct", parts, name);
      return;
    }
    // optional
    const json& elem = entry["element"];
    if (elem.is_null()) {
      onnx::Attribute type;
      type.name = "type";
      type.type = onnx::Attribute::Type::TypeProto;
      type.rare.get_or_create().tp = std::make_shared<onnx::TypeInfo>(declared.elem ? *declared.elem : onnx::TypeInfo{});
      add_node("Optional", {}, name, {type});
      return;
    }
    const std::string inner = name + "__value";
    add_node("Optional", {inner}, name);
    produce(inner, elem, declared.elem ? *declared.elem : onnx::TypeInfo{});
  }

  onnx::Model& model_;
};

// Sources as exact regular expressions ([ ] ' . escaped; commas kept as separators).
std::string regex_escaped(const std::string& spec) {
  std::string out;
  for (char c : spec) {
    if (std::strchr("[]().*+?^$|\\{}", c)) out += '\\';
    out += c;
  }
  return out;
}

// A few node tests declare input shapes their data contradicts (e.g.
// CastLike's 'like' declared [3, 4], given [1]); the data is what runs, so
// the declaration is replaced by the real shape. Returns a note per change.
std::vector<std::string> correct_input_declarations(onnx::Model& model, const json& manifest) {
  std::vector<std::string> notes;
  for (const auto& in : manifest["inputs"]) {
    if (in.value("kind", "tensor") != "tensor") continue;
    for (auto& vi : model.graph.inputs) {
      if (vi.name != in["name"].get<std::string>() || vi.type.kind != onnx::TypeInfo::Kind::Tensor || !vi.type.shape)
        continue;
      const json& shape = in["shape"];
      bool contradicts = vi.type.shape->size() != shape.size();
      for (size_t k = 0; !contradicts && k < shape.size(); ++k) {
        const onnx::Dim& d = (*vi.type.shape)[k];
        contradicts = d.kind == onnx::Dim::Kind::Value && d.value != shape[k].get<int64_t>();
      }
      if (!contradicts) continue;
      std::vector<onnx::Dim> dims;
      for (const auto& d : shape) dims.push_back({onnx::Dim::Kind::Value, d.get<int64_t>(), ""});
      vi.type.shape = std::move(dims);
      notes.push_back("input '" + vi.name + "' is declared with another shape than its data " + shape_text(shape) +
                      "; the data's shape is used");
    }
  }
  return notes;
}

CaseResult run_case(const fs::path& case_dir, const json& manifest, const Options& opts) {
  CaseResult res;
  res.name = manifest["name"].get<std::string>();
  res.op = manifest["op"].get<std::string>();
  InferOptions options;
  std::set<std::string> folded;
  if (opts.fold_int_inputs)
    for (const auto& in : manifest["inputs"])
      if (in.contains("data")) folded.insert(in["name"].get<std::string>());
  for (const auto& in : manifest["inputs"]) {
    if (in.value("kind", "tensor") != "tensor" || folded.count(in["name"].get<std::string>())) continue;
    std::vector<int64_t> dims;
    for (const auto& d : in["shape"]) dims.push_back(d.get<int64_t>());
    options.input_hints[in["name"].get<std::string>()] = dims;
  }
  try {
    onnx::Model model = onnx::load_model((case_dir / manifest["model"].get<std::string>()).string());
    res.notes = correct_input_declarations(model, manifest);
    if (opts.fold_int_inputs) fold_int_inputs(model, manifest);
    NonTensorInputs(model).materialize(manifest);
    if (opts.dynamic) {
      // Every dim of every tensor input a backed symbol, except the small
      // integer inputs that carry shapes, axes or indices (their length is
      // part of the operator's signature).
      std::string spec;
      for (const auto& vi : model.graph.inputs) {
        bool carries_ints = false;
        for (const auto& in : manifest["inputs"])
          carries_ints |= in["name"].get<std::string>() == vi.name && in.contains("data");
        bool is_init = false;
        for (const auto& t : model.graph.initializers) is_init |= t->name == vi.name;
        if (!carries_ints && !is_init && vi.type.kind == onnx::TypeInfo::Kind::Tensor)
          spec += (spec.empty() ? "" : ",") + SourceSpecs::input_source(vi.name);
      }
      if (!spec.empty()) options.specs.add(DimMark::Dynamic, regex_escaped(spec));
    }
    RunResult r = onnx::run_model(model, options);
    for (const auto& e : r.errors)
      res.problems.push_back("error" + (e.node.empty() ? std::string() : " at node '" + e.node + "'") + " [" +
                             std::string(error_kind_name(e.kind)) + "]: " + e.message);
    Comparer cmp(*r.env);
    const json& outs = manifest["outputs"];
    for (size_t k = 0; k < outs.size(); ++k) {
      const std::string name = outs[k]["name"].get<std::string>();
      const Value* got = nullptr;
      for (const auto& o : r.outputs)
        if (o.name == name) got = &o.val;
      if (!got) {
        res.problems.push_back("output '" + name + "' is missing");
        continue;
      }
      cmp.compare(*got, outs[k], "output '" + name + "'", res.problems);
    }
    if (opts.onnx_check)
      res.onnx_disagreements = conformance::cross_check_with_onnx(case_dir / manifest["model"].get<std::string>(),
                                                                  manifest, r, opts.fold_int_inputs, res.onnx_compared);
  } catch (const std::exception& e) {
    res.problems.push_back(std::string("run failed: ") + e.what());
  }
  res.passed = res.problems.empty();
  return res;
}

// "name  # reason" lines; names without a reason are rejected.
std::map<std::string, std::string> read_reason_list(const fs::path& path, bool& ok) {
  std::map<std::string, std::string> out;
  ok = true;
  if (path.empty()) return out;
  std::ifstream in(path);
  if (!in) {
    std::cerr << "fakeprop_conformance: cannot read " << path << "\n";
    ok = false;
    return out;
  }
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    auto hash = line.find('#', first);
    std::string name = line.substr(first, hash == std::string::npos ? std::string::npos : hash - first);
    name.erase(name.find_last_not_of(" \t") + 1);
    std::string reason = hash == std::string::npos ? "" : line.substr(hash + 1);
    reason.erase(0, reason.find_first_not_of(" \t"));
    if (reason.empty()) {
      std::cerr << path.string() << ":" << lineno << ": '" << name << "' has no reason (write 'name  # why')\n";
      ok = false;
    }
    out[name] = reason;
  }
  return out;
}

int usage() {
  std::cerr << "usage: fakeprop_conformance DIR [--filter OP]... [--case NAME]... [--dynamic] [--fold-int-inputs]\n"
               "                            [--no-onnx-check] [--known-failures FILE] [--disagreements FILE]\n"
               "                            [--threshold RATE] [--verbose] [--quiet]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--filter") opts.filters.insert(next());
    else if (a == "--case") opts.cases.insert(next());
    else if (a == "--dynamic") opts.dynamic = true;
    else if (a == "--fold-int-inputs") opts.fold_int_inputs = true;
    else if (a == "--no-onnx-check") opts.onnx_check = false;
    else if (a == "--known-failures") opts.known_failures = next();
    else if (a == "--disagreements") opts.disagreements = next();
    else if (a == "--threshold") opts.threshold = std::stod(next());
    else if (a == "--verbose" || a == "-v") opts.verbose = true;
    else if (a == "--quiet" || a == "-q") opts.quiet = true;
    else if (a == "--help" || a == "-h") return usage(), 0;
    else if (!a.empty() && a[0] == '-') return usage();
    else opts.dir = a;
  }
  if (opts.dir.empty()) return usage();
  if (!fs::is_directory(opts.dir)) {
    std::cerr << "fakeprop_conformance: " << opts.dir << " is not a directory; generate it with "
                 "/usr/bin/python3 scripts/gen_onnx_node_tests.py " << opts.dir << "\n";
    return 2;
  }
  bool lists_ok = true, ok2 = true;
  auto known = read_reason_list(opts.known_failures, lists_ok);
  auto documented = read_reason_list(opts.disagreements, ok2);
  lists_ok = lists_ok && ok2;

  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(opts.dir))
    if (entry.is_directory() && fs::exists(entry.path() / "manifest.json")) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());

  std::vector<CaseResult> results;
  for (const auto& d : dirs) {
    json manifest;
    try {
      std::ifstream in(d / "manifest.json");
      manifest = json::parse(in);
    } catch (const std::exception& e) {
      std::cerr << "fakeprop_conformance: " << (d / "manifest.json") << ": " << e.what() << "\n";
      return 2;
    }
    const std::string name = manifest["name"].get<std::string>();
    if (!opts.cases.empty() && !opts.cases.count(name)) continue;
    if (!opts.filters.empty()) {
      bool hit = opts.filters.count(manifest["op"].get<std::string>()) != 0;
      for (const auto& op : manifest["ops"]) hit = hit || opts.filters.count(op.get<std::string>());
      if (!hit) continue;
    }
    results.push_back(run_case(d, manifest, opts));
  }

  // Per-op summary, then details of every failure.
  std::map<std::string, std::pair<int, int>> per_op;  // op -> (passed, total)
  for (const auto& r : results) {
    auto& [p, t] = per_op[r.op];
    p += r.passed;
    ++t;
  }
  if (!opts.quiet) {
    std::cout << "per operator (passed/total):\n";
    for (const auto& [op, pt] : per_op)
      if (opts.verbose || pt.first != pt.second)
        std::cout << "  " << op << ": " << pt.first << "/" << pt.second << (pt.first == pt.second ? "" : "  FAIL")
                  << "\n";
  }
  int passed = 0, failed = 0, known_failed = 0, unexpected = 0, now_passing = 0;
  int disagreements = 0, undocumented_disagreements = 0;
  size_t onnx_compared = 0;
  for (const auto& r : results) {
    const bool is_known = known.count(r.name) != 0;
    if (r.passed) {
      ++passed;
      if (is_known) {
        ++now_passing;
        std::cout << "NOW PASSING (remove from known failures): " << r.name << "\n";
      }
    } else {
      ++failed;
      is_known ? ++known_failed : ++unexpected;
      if (!opts.quiet || !is_known) {
        std::cout << (is_known ? "KNOWN FAIL " : "FAIL ") << r.name << " (" << r.op << ")";
        if (is_known) std::cout << "  # " << known[r.name];
        std::cout << "\n";
        if (!is_known || opts.verbose) {
          for (const auto& p : r.problems) std::cout << "    " << p << "\n";
          for (const auto& n : r.notes) std::cout << "    note: " << n << "\n";
        }
      }
    }
    onnx_compared += r.onnx_compared;
    for (const auto& d : r.onnx_disagreements) {
      ++disagreements;
      const bool doc = documented.count(r.name) != 0;
      if (!doc) ++undocumented_disagreements;
      if (!opts.quiet || !doc)
        std::cout << (doc ? "ONNX DISAGREES (documented) " : "ONNX DISAGREES ") << r.name << ": " << d
                  << (doc ? "  # " + documented[r.name] : "") << "\n";
    }
  }
  const int total = passed + failed;
  const double rate = total ? static_cast<double>(passed) / total : 1.0;
  std::printf("known failures: %d, unexpected failures: %d, known failures now passing: %d\n", known_failed,
              unexpected, now_passing);
  if (opts.onnx_check)
    std::printf("libonnx disagreements: %d (%d undocumented) over %zu values with a static shape in both\n",
                disagreements, undocumented_disagreements, onnx_compared);
  std::printf("pass rate %.1f%% (threshold %.1f%%)\n", 100.0 * rate, 100.0 * opts.threshold);
  std::printf("%d passed, %d failed\n", passed, failed);
  if (!lists_ok) return 1;
  return rate + 1e-12 >= opts.threshold ? 0 : 1;
}
