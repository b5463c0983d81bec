// The .pt2 loader: srepr sizes, what a serialized program becomes, and the
// one-line errors for broken archives (truncated zips, no program member, an
// unknown schema version, unknown argument kinds, higher-order ops' subgraphs).
#include "fakeprop/fx/pt2_archive.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fakeprop/fx/interpreter.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fx {
namespace {

namespace fs = std::filesystem;

// A program in the shape torch 2.15 writes: x [s0, 4] + w [4], then split in two.
std::string program(const std::string& node_json = "", const std::string& version = R"({"major": 8, "minor": 20})") {
  const std::string nodes = node_json.empty() ? R"(
      {"target": "torch.ops.aten.add.Tensor", "name": "add",
       "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                  {"name": "other", "arg": {"as_tensor": {"name": "p_w"}}, "kind": 1},
                  {"name": "alpha", "arg": {"as_float": "-Infinity"}, "kind": 2}],
       "outputs": [{"as_tensor": {"name": "add"}}], "metadata": {}},
      {"target": "torch.ops.aten.split.Tensor", "name": "split",
       "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "add"}}, "kind": 1},
                  {"name": "split_size", "arg": {"as_int": 2}, "kind": 1},
                  {"name": "dim", "arg": {"as_int": -1}, "kind": 1}],
       "outputs": [{"as_tensors": [{"name": "getitem"}, {"name": "getitem_1"}]}], "metadata": {}},
      {"target": "torch.ops.aten.sym_size.int", "name": "sym_size_int",
       "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                  {"name": "dim", "arg": {"as_int": 0}, "kind": 1}],
       "outputs": [{"as_sym_int": {"as_name": "sym_size_int"}}], "metadata": {}})"
                                              : node_json;
  auto meta = [](const std::string& size0, int64_t stride0) {
    return R"({"dtype": 7, "sizes": [)" + size0 + R"(, {"as_int": 4}], "requires_grad": false,
               "device": {"type": "cpu", "index": null}, "strides": [{"as_int": )" +
           std::to_string(stride0) + R"(}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7})";
  };
  const std::string sym = R"J({"as_expr": {"expr_str": "Symbol('s0', positive=True, integer=True)", "hint": {"as_int": 3}}})J";
  return R"({"graph_module": {"graph": {
      "inputs": [{"as_tensor": {"name": "p_w"}}, {"as_tensor": {"name": "x"}}],
      "outputs": [{"as_tensor": {"name": "getitem"}}, {"as_sym_int": {"as_name": "sym_size_int"}}],
      "nodes": [)" + nodes + R"(],
      "tensor_values": {
        "p_w": {"dtype": 7, "sizes": [{"as_int": 4}], "requires_grad": true, "device": {"type": "cpu", "index": null},
                "strides": [{"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7},
        "x": )" + meta(sym, 4) + R"(, "add": )" + meta(sym, 4) + R"(,
        "getitem": {"dtype": 7, "sizes": [)" + sym + R"(, {"as_int": 2}], "requires_grad": false,
                    "device": {"type": "cpu", "index": null}, "strides": [{"as_int": 4}, {"as_int": 1}],
                    "storage_offset": {"as_int": 0}, "layout": 7},
        "getitem_1": {"dtype": 7, "sizes": [)" + sym + R"(, {"as_int": 2}], "requires_grad": false,
                    "device": {"type": "cpu", "index": null}, "strides": [{"as_int": 4}, {"as_int": 1}],
                    "storage_offset": {"as_int": 2}, "layout": 7}},
      "sym_int_values": {"sym_size_int": )" + sym + R"(},
      "sym_bool_values": {}},
    "signature": {"input_specs": [
        {"parameter": {"arg": {"name": "p_w"}, "parameter_name": "w"}},
        {"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
      "output_specs": []},
    "module_call_graph": []},
  "opset_version": {"aten": 10},
  "range_constraints": {"s0": {"min_val": 2, "max_val": 64}},
  "schema_version": )" + version + R"(,
  "torch_version": "2.15.0"})";
}

std::string error_of_program(const std::string& text) {
  try {
    (void)parse_exported_program(text, "m.pt2: m/models/model.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

// A zip of `members` (name -> bytes), written by libzip and read back.
std::string make_zip(const std::vector<std::pair<std::string, std::string>>& members) {
  const fs::path path = fs::temp_directory_path() / ("fakeprop_pt2_test_" + std::to_string(::getpid()) + ".zip");
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  EXPECT_NE(z, nullptr);
  for (const auto& [name, bytes] : members) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    EXPECT_GE(zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE), 0);
  }
  EXPECT_EQ(zip_close(z), 0);
  std::ifstream in(path, std::ios::binary);
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(path);
  return out;
}

std::string error_of_zip(const std::string& bytes) {
  try {
    (void)parse_pt2_archive(bytes, "m.pt2");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST(Pt2Srepr, BecomesExpressionText) {
  EXPECT_EQ(srepr_to_expr_text("Symbol('s77', positive=True, integer=True)"), "s77");
  EXPECT_EQ(srepr_to_expr_text("Mul(Integer(2), Symbol('s0', positive=True, integer=True))"), "(2*s0)");
  EXPECT_EQ(srepr_to_expr_text("Add(Symbol('s0', integer=True), Integer(-1))"), "(s0 + (-1))");
  EXPECT_EQ(srepr_to_expr_text("FloorDiv(Symbol('s0'), Integer(2))"), "(s0 // 2)");
  EXPECT_EQ(srepr_to_expr_text("Max(Integer(1), Pow(Symbol('s1'), Integer(2)))"), "max(1, (s1)**2)");
  EXPECT_EQ(srepr_to_expr_text("PythonMod(Symbol('u0'), Integer(8))"), "(u0 % 8)");
  // str() text of older archives passes through
  EXPECT_EQ(srepr_to_expr_text("s0 + 1"), "s0 + 1");
  EXPECT_EQ(srepr_to_expr_text("17"), "17");
  // torch 2.15's float sizes (upsample by 1.7, a float arange bound), as its archives write them.
  EXPECT_EQ(srepr_to_expr_text("TruncToInt(Mul(Float('1.7', precision=53), ToFloat(Symbol('s53', positive=True, "
                               "integer=True))))"),
            "TruncToInt((1.7*ToFloat(s53)))");
  EXPECT_EQ(srepr_to_expr_text("CeilToInt(FloatTrueDiv(Add(IntTrueDiv(Symbol('s53', positive=True, integer=True), "
                               "Integer(10)), Float('-2.0', precision=53)), Float('0.5', precision=53)))"),
            "CeilToInt(FloatTrueDiv((IntTrueDiv(s53, 10) + -2.0), 0.5))");
  EXPECT_THROW(srepr_to_expr_text("OpaqueUnaryFn_exp(Symbol('s0'))"), InputError);
  EXPECT_THROW(srepr_to_expr_text("Pow(Symbol('s0'), Integer(-1))"), InputError);
}

TEST(Pt2Program, BecomesAnFxGraph) {
  const Graph g = parse_exported_program(program(), "m.pt2: m/models/model.json");
  std::vector<std::string> seen;
  for (const Node& n : g.nodes) seen.push_back(n.op + " " + n.name + " " + n.target);
  const std::vector<std::string> want = {
      "get_attr p_w w",
      "placeholder x x",
      "call_function add aten.add.Tensor",
      "call_function split aten.split.Tensor",
      "call_function getitem operator.getitem",
      "call_function getitem_1 operator.getitem",
      "call_function sym_size_int aten.sym_size.int",
      "output output output",
  };
  EXPECT_EQ(seen, want);
  const Node& add = g.nodes[2];
  ASSERT_EQ(add.args.size(), 2u);
  EXPECT_EQ(add.args[1].kind, Arg::Kind::Node);
  EXPECT_EQ(add.args[1].node_index, 0u);
  ASSERT_EQ(add.kwargs.size(), 1u);
  EXPECT_EQ(add.kwargs[0].first, "alpha");
  EXPECT_TRUE(std::isinf(add.kwargs[0].second.f) && add.kwargs[0].second.f < 0);
  EXPECT_EQ(g.nodes[5].args[1].i, 1);
  EXPECT_EQ(g.nodes[1].example.tensor.shape, (std::vector<std::string>{"s0", "4"}));
  EXPECT_TRUE(g.nodes[0].example.tensor.requires_grad);
  ASSERT_TRUE(g.symbols.count("s0"));
  EXPECT_EQ(g.symbols.at("s0").hint, 3);
  EXPECT_EQ(g.symbols.at("s0").range->lo, 2);
  EXPECT_EQ(g.symbols.at("s0").range->hi, 64);
  ASSERT_EQ(g.nodes.back().args.size(), 1u);
  EXPECT_EQ(g.nodes.back().args[0].list.size(), 2u);

  // The interpreter runs it: the parameter is no user input.
  const RunResult r = run_graph(g, InferOptions{});
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].source, "L['x']");
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].val.tensor->meta.sizes[1].value(), 2);
}

// The archive's guards_code (guards from the model's own control flow that
// ExportedProgram.module() checks) become fakeprop.program_guard nodes
// after the inputs: guards of the program, so the valid region of s0 is a
// multiple of 3 and a size off it is an assertion_error on that node. A
// guard over a source fakeprop cannot read is not applied, and says so.
TEST(Pt2Program, GuardsCodeBecomesTheProgramsGuards) {
  std::string text = program();
  const std::string guards = R"("guards_code": ["(L['x'].size()[0] % 3) == 0",
                                                "torch.sym_max(1, L['x'].size()[0] // 2) <= 20",
                                                "L['y'].size()[0] > 2", "L['x'].size()[0] @ 2"],
  "range_constraints")";
  text.replace(text.find("\"range_constraints\""), std::string("\"range_constraints\"").size(), guards);
  const Graph g = parse_exported_program(text, "m");
  std::vector<std::string> seen;
  for (const Node& n : g.nodes) seen.push_back(n.name + " " + n.target);
  ASSERT_GE(seen.size(), 6u);
  EXPECT_EQ(seen[2], "guards_code_0 fakeprop.program_guard");
  EXPECT_EQ(seen[5], "guards_code_3 fakeprop.program_guard");
  EXPECT_EQ(seen[6], "add aten.add.Tensor");

  const RunResult r = run_graph(g, InferOptions{});
  std::vector<std::string> guard_texts;
  for (const GuardRecord& gr : r.env->guards())
    if (gr.rule == "guards_code") guard_texts.push_back(gr.node);
  EXPECT_EQ(guard_texts, (std::vector<std::string>{"guards_code_0", "guards_code_1"}));
  // The two it cannot read are not applied, each with a warning on its node.
  EXPECT_TRUE(r.errors.empty());
  std::vector<std::string> warned;
  for (const auto& w : r.warnings)
    if (w.kind == ErrorKind::PrecisionLost) warned.push_back(w.node + ": " + w.message.substr(0, 40));
  EXPECT_EQ(warned, (std::vector<std::string>{"guards_code_2: the program's guard L['y'].size()[0] > 2",
                                              "guards_code_3: the program's guard L['x'].size()[0] @ 2"}));

  // The hint (3) is not a multiple of 2: torch would reject it; so does the guard.
  text.replace(text.find("(L['x'].size()[0] % 3) == 0"), 27, "(L['x'].size()[0] % 2) == 0");
  const RunResult odd = run_graph(parse_exported_program(text, "m"), InferOptions{});
  ASSERT_FALSE(odd.errors.empty());
  EXPECT_EQ(odd.errors[0].node, "guards_code_0");
  EXPECT_EQ(odd.errors[0].kind, ErrorKind::AssertionError);
  EXPECT_EQ(error_of_program(program().replace(program().find("\"range_constraints\""), 19,
                                               "\"guards_code\": [3], \"range_constraints\"")),
            "m.pt2: m/models/model.json: guards_code[0] must be a string, not 3");
}

TEST(Pt2Program, MissingKindsAreKeywords) {
  std::string text = program();
  for (size_t at; (at = text.find(R"(, "kind": 1)")) != std::string::npos;) text.erase(at, 11);
  const Graph g = parse_exported_program(text, "m");
  EXPECT_TRUE(g.nodes[2].args.empty());
  EXPECT_EQ(g.nodes[2].kwargs.size(), 3u);
  const RunResult r = run_graph(g, InferOptions{});
  EXPECT_TRUE(r.errors.empty()) << r.errors[0].message;
}

TEST(Pt2Program, WrongSchemaVersion) {
  EXPECT_EQ(error_of_program(program("", R"({"major": 9, "minor": 0})")),
            "m.pt2: m/models/model.json: serialized schema version 9.0 is not supported (fakeprop reads major "
            "version 8, as torch 2.15 writes)");
  EXPECT_EQ(error_of_program(program("", R"({"minor": 0})")),
            "m.pt2: m/models/model.json: schema_version has no 'major'");
  EXPECT_NE(error_of_program(R"({"graph_module": {}})").find("has no 'schema_version'"), std::string::npos);
  // torch's unversioned 0.0 is read
  EXPECT_NO_THROW(parse_exported_program(program("", R"({"major": 0, "minor": 0})"), "m"));
}

TEST(Pt2Program, UnknownArgumentKindNamesTheNode) {
  const std::string node = R"({"target": "torch.ops.aten.relu.default", "name": "relu",
       "inputs": [{"name": "self", "arg": {"as_quaternion": {"name": "x"}}, "kind": 1}],
       "outputs": [{"as_tensor": {"name": "getitem"}}], "metadata": {}},
      {"target": "torch.ops.aten.sym_size.int", "name": "sym_size_int",
       "inputs": [], "outputs": [{"as_sym_int": {"as_name": "sym_size_int"}}], "metadata": {}})";
  EXPECT_EQ(error_of_program(program(node)),
            "m.pt2: m/models/model.json: node 'getitem': input 'self': unknown argument kind 'as_quaternion'");
  std::string bad_kind = program();
  bad_kind.replace(bad_kind.find(R"("kind": 2)"), 9, R"("kind": 7)");
  EXPECT_EQ(error_of_program(bad_kind), "m.pt2: m/models/model.json: node 'add': input 'alpha': unknown argument kind 7");
}

TEST(Pt2Program, HigherOrderOpsReadTheirSubgraphs) {
  // One tensor output of a higher-order op is still a tuple's element: a getitem of the call.
  const std::string cond = R"({"target": "torch.ops.higher_order.cond", "name": "cond",
       "inputs": [{"name": "", "arg": {"as_bool": true}, "kind": 1},
                  {"name": "", "arg": {"as_graph": {"name": "g", "graph": {"inputs": [{"as_tensor": {"name": "a"}}],
                     "outputs": [{"as_tensor": {"name": "r"}}], "tensor_values": {
                       "a": {"dtype": 7, "sizes": [{"as_int": 2}], "strides": [{"as_int": 1}]},
                       "r": {"dtype": 7, "sizes": [{"as_int": 2}], "strides": [{"as_int": 1}]}},
                     "nodes": [{"target": "torch.ops.aten.relu.default", "name": "r",
                       "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "a"}}, "kind": 1}],
                       "outputs": [{"as_tensor": {"name": "r"}}]}]}}}, "kind": 1},
                  {"name": "", "arg": {"as_graph": {"name": "g", "graph": {}}}, "kind": 1},
                  {"name": "", "arg": {"as_tensors": [{"name": "x"}]}, "kind": 1}],
       "outputs": [{"as_tensor": {"name": "getitem"}}], "is_hop_single_tensor_return": false, "metadata": {}})";
  const Graph g = parse_exported_program(program(cond), "m");
  ASSERT_EQ(g.subgraphs.size(), 1u);  // one per name: the second "g" is the first
  EXPECT_EQ(g.subgraphs[0]->path, "g");
  EXPECT_EQ(g.subgraphs[0]->nodes.size(), 3u);  // a, r, output
  const Node* call = nullptr;
  for (const Node& n : g.nodes)
    if (n.target == "higher_order.cond") call = &n;
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->args[1].kind, Arg::Kind::Graph);
  EXPECT_EQ(call->args[2].s, "g");
  EXPECT_EQ(call->declared_outputs, 1u);
  const std::string broken = R"({"target": "torch.ops.higher_order.cond", "name": "cond",
       "inputs": [{"name": "f", "arg": {"as_graph": {"name": "g", "graph": {}}}, "kind": 1}],
       "outputs": [{"as_tensor": {"name": "getitem"}}], "metadata": {}})";
  EXPECT_NE(error_of_program(program(broken)).find("subgraph 'g': a subgraph has no 'tensor_values'"), std::string::npos)
      << error_of_program(program(broken));
}

TEST(Pt2Program, MalformedPrograms) {
  EXPECT_NE(error_of_program("{\"graph_module\": ").find("m.pt2: m/models/model.json: invalid JSON"), std::string::npos);
  EXPECT_NE(error_of_program("[1, 2]").find("is a JSON object"), std::string::npos);
  EXPECT_NE(error_of_program(std::string(150, '[') + std::string(150, ']')).find("nested deeper"), std::string::npos);
  std::string missing_value = program();
  missing_value.replace(missing_value.find(R"("x": {"dtype")"), 4, R"("y":)");
  EXPECT_EQ(error_of_program(missing_value), "m.pt2: m/models/model.json: tensor 'x' has no entry in tensor_values");
  std::string bad_dtype = program();
  bad_dtype.replace(bad_dtype.find(R"("dtype": 7)"), 10, R"("dtype": 99)");
  EXPECT_EQ(error_of_program(bad_dtype), "m.pt2: m/models/model.json: tensor_values['p_w']: unknown ScalarType 99");
  try {
    (void)parse_exported_program(program(), "m", 3);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("node-count limit"), std::string::npos);
  }
}

TEST(Pt2Archive, ReadsTheProgramMember) {
  const std::string zip = make_zip({{"m/archive_format", "pt2"},
                                    {"m/data/weights/weight_0", std::string(16, '\xff')},
                                    {"m/models/model.json", program()}});
  const Graph g = parse_pt2_archive(zip, "m.pt2");
  EXPECT_EQ(g.path, "m.pt2");
  EXPECT_EQ(g.nodes.size(), 8u);
  // one other program name is read too
  EXPECT_EQ(parse_pt2_archive(make_zip({{"m/models/other.json", program()}}), "m.pt2").nodes.size(), 8u);
  // torch before 2.6
  EXPECT_EQ(parse_pt2_archive(make_zip({{"m/serialized_exported_program.json", program()}}), "m.pt2").nodes.size(), 8u);
}

TEST(Pt2Archive, ZipWithoutProgram) {
  EXPECT_EQ(error_of_zip(make_zip({{"m/archive_format", "pt2"}, {"m/data/weights/weight_0", "xx"}})),
            "m.pt2: a zip without a serialized program (no models/<name>.json member): not a torch.export.save archive");
  EXPECT_EQ(error_of_zip(make_zip({{"m/models/a.json", program()}, {"m/models/b.json", program()}})),
            "m.pt2: the archive holds several programs (m/models/a.json, m/models/b.json) and none is models/model.json");
  EXPECT_EQ(error_of_zip(make_zip({{"m/models/model.json", "{oops"}})).substr(0, 47),
            "m.pt2: m/models/model.json: invalid JSON: [json");
}

TEST(Pt2Archive, TruncatedAndCorruptZips) {
  const std::string zip = make_zip({{"m/archive_format", "pt2"}, {"m/models/model.json", program()}});
  EXPECT_NE(error_of_zip(zip.substr(0, zip.size() / 2)).find("m.pt2: not a readable zip archive"), std::string::npos);
  EXPECT_NE(error_of_zip("PK\x03\x04").find("m.pt2: not a readable zip archive"), std::string::npos);
  EXPECT_NE(error_of_zip(std::string("PK\x03\x04", 4) + std::string(100, '\0')).find("m.pt2:"), std::string::npos);
  // Every cut and a flipped byte at many offsets: an InputError or a graph, never anything else.
  for (size_t cut = 0; cut < zip.size(); cut += 7) {
    try {
      (void)parse_pt2_archive(zip.substr(0, cut), "m.pt2");
    } catch (const InputError&) {
    }
  }
  for (size_t at = 0; at < zip.size(); at += 11) {
    std::string bad = zip;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    try {
      (void)parse_pt2_archive(bad, "m.pt2");
    } catch (const InputError&) {
    }
  }
}

TEST(Pt2Archive, LoadsAFileWithoutReadingWeights) {
  const fs::path mlp = fs::path(FAKEPROP_TESTDATA) / "pt2" / "mlp.pt2";
  const Graph g = load_pt2_archive(mlp.string());
  size_t placeholders = 0, attrs = 0;
  for (const Node& n : g.nodes) {
    placeholders += n.op == "placeholder";
    attrs += n.op == "get_attr";
  }
  EXPECT_EQ(placeholders, 1u);
  EXPECT_EQ(attrs, 4u);
  EXPECT_EQ(g.nodes[0].target, "fc1.weight");
  try {
    (void)load_pt2_archive((fs::path(FAKEPROP_TESTDATA) / "pt2" / "missing.pt2").string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.pt2: No such file or directory"), std::string::npos) << e.what();
  }
}

TEST(Pt2Archive, DetectsZips) {
  EXPECT_TRUE(looks_like_zip(std::string_view("PK\x03\x04rest", 8)));
  EXPECT_FALSE(looks_like_zip("PK"));
  EXPECT_FALSE(looks_like_zip("{\"nodes\": []}"));
}

}  // namespace
}  // namespace fakeprop::fx
