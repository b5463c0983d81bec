// The JSON FX graph front end's record (fakeprop.fx/1 text, run by fx/'s
// interpreter), and what it shares with the .pt2 reader's: -o writes a JSON
// FX graph with meta on every node, --html draws the arguments' edges.
#include <memory>
#include <string_view>
#include <vector>

#include "fakeprop/driver/annotated_graph.h"
#include "fakeprop/driver/front_ends/front_ends.h"
#include "fakeprop/fx/interpreter.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/heap_trim.h"
#include "fakeprop/util/input_file.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop {

void write_annotated_fx_graph(const RunResult& result, const std::string& model_path, const std::string& out_path,
                              std::string (*graph_text)(const std::string& model_path)) {
  if (out_path.ends_with(".onnx") || out_path.ends_with(".pt2"))
    throw InputError(out_path + ": -o writes a JSON FX graph for this model; name the file .json");
  // Refused before the model is read again.
  OutputFile out(out_path, result.input_files);
  const std::string text = graph_text(model_path);
  const nlohmann::json report = nlohmann::json::parse(report_json(result, nlohmann::json::object(), true));
  out.write(annotate_fx_graph(text, report, model_path) + "\n");
  out.commit();
}

namespace {

void arg_nodes(const fx::Arg& a, nlohmann::json& out) {
  if (a.kind == fx::Arg::Kind::Node) out.push_back(a.s);
  for (const fx::Arg& x : a.list) arg_nodes(x, out);
}

}  // namespace

nlohmann::json fx_graph_inputs_of(const fx::Graph& g) {
  nlohmann::json inputs_of = nlohmann::json::object();
  for (const fx::Node& n : g.nodes) {
    if (n.op == "output") continue;  // not a node of the report
    nlohmann::json ins = nlohmann::json::array();
    for (const fx::Arg& a : n.args) arg_nodes(a, ins);
    for (const auto& kw : n.kwargs) arg_nodes(kw.second, ins);
    inputs_of[n.name] = std::move(ins);
  }
  return inputs_of;
}

namespace {

// A JSON object, after a UTF-8 byte order mark and whitespace.
bool looks_like_fx_json(std::string_view head) {
  size_t i = head.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  return i < head.size() && head[i] == '{';
}

// Graphs the command line ran, never destroyed: it ends its process right
// after, and freeing a large graph's nodes one by one costs a good part of
// building them. Reachable from here, so LeakSanitizer reports no leak.
std::vector<std::unique_ptr<fx::Graph>>* kept_graphs = nullptr;

RunResult run_fx_json(const std::string& path, const InferOptions& options, std::vector<std::string>&) {
  auto graph = std::make_unique<fx::Graph>(fx::load_graph(path, options.max_nodes, options.file_limits));
  RunResult result = fx::run_graph(*graph, options);
  // Only the command line allows trimming: it owns its process (heap_trim.h).
  if (heap_trimming_allowed()) {
    if (!kept_graphs) kept_graphs = new std::vector<std::unique_ptr<fx::Graph>>();
    kept_graphs->push_back(std::move(graph));
  }
  return result;
}

void write_annotated_fx_json(const RunResult& result, const std::string& model_path, const std::string& out_path) {
  write_annotated_fx_graph(result, model_path, out_path, [](const std::string& path) { return read_input_file(path); });
}

nlohmann::json fx_json_inputs_of(const std::string& model_path) {
  return fx_graph_inputs_of(fx::load_graph(model_path));
}

}  // namespace

FrontEnd fx_json_front_end() {
  return {ModelFormat::FxJson, "fx", looks_like_fx_json, run_fx_json, write_annotated_fx_json, fx_json_inputs_of};
}

}  // namespace fakeprop
