// --html: the report, with the graph's edges, in the self-contained viewer.
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "fakeprop/driver/infer.h"
#include "fakeprop/fx/pt2_archive.h"
#include "fakeprop/onnx/model.h"
#include "fakeprop/report/html_report.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop {

namespace {

// Each node's inputs: the node that produced each, or the graph input or
// initializer it names. ONNX: the main graph's nodes (a subgraph's values
// show on the node that owns the subgraph).
nlohmann::json onnx_inputs_of(const std::string& model_path) {
  const onnx::Model model = onnx::load_model(model_path);
  std::unordered_map<std::string_view, std::string_view> producer;
  for (const onnx::Node& n : model.graph.nodes)
    for (const Name& o : n.outputs)
      if (!o.view().empty()) producer.emplace(o.view(), n.name.view());
  nlohmann::json inputs_of = nlohmann::json::object();
  for (const onnx::Node& n : model.graph.nodes) {
    nlohmann::json ins = nlohmann::json::array();
    for (const Name& i : n.inputs) {
      if (i.view().empty()) continue;  // an omitted optional input
      const auto p = producer.find(i.view());
      ins.push_back(std::string(p != producer.end() ? p->second : i.view()));
    }
    inputs_of[n.name.str()] = std::move(ins);
  }
  return inputs_of;
}

void arg_nodes(const fx::Arg& a, nlohmann::json& out) {
  if (a.kind == fx::Arg::Kind::Node) out.push_back(a.s);
  for (const fx::Arg& x : a.list) arg_nodes(x, out);
}

// FX: the nodes each node's arguments name, in argument order.
nlohmann::json fx_inputs_of(const fx::Graph& g) {
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

}  // namespace

void write_html(const RunResult& result, const nlohmann::json& extra, const std::string& model_path,
                const std::string& out_path) {
  nlohmann::json members = extra.is_object() ? extra : nlohmann::json::object();
  nlohmann::json inputs_of;
  if (result.model_kind == "onnx")
    inputs_of = onnx_inputs_of(model_path);
  else if (result.model_kind == "pt2")
    inputs_of = fx_inputs_of(fx::load_pt2_archive(model_path));
  else
    inputs_of = fx_inputs_of(fx::load_graph(model_path));
  members["graph"] = {{"inputs_of", std::move(inputs_of)}};
  write_output_file(out_path, html_report(report_json(result, members, /*compact=*/true)), result.input_files);
}

}  // namespace fakeprop
