#include "fakeprop/driver/annotated_graph.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

using Ordered = nlohmann::ordered_json;

constexpr std::string_view kAnnotatedBy = "fakeprop";

// The object at `key` of `obj`, made one when absent; a member of another
// kind is kept under "<key>_input" so that nothing the input held is lost.
Ordered& object_member(Ordered& obj, const std::string& key) {
  // Values are moved out before members are added: an ordered_json object is
  // a vector, and an insertion may move every member.
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_object()) {
    if (it != obj.end()) {
      Ordered kept = std::move(*it);
      obj[key + "_input"] = std::move(kept);
    }
    obj[key] = Ordered::object();
  }
  return obj[key];
}

}  // namespace

std::string annotate_fx_graph(const std::string& graph_text, const nlohmann::json& report, const std::string& where) {
  Ordered graph = Ordered::parse(graph_text, nullptr, /*allow_exceptions=*/false);
  if (!graph.is_object() || !graph.contains("nodes") || !graph["nodes"].is_array())
    throw InputError(where + ": not a JSON FX graph (an object with 'nodes')");

  // A graph fakeprop annotated before: its meta.val entries are fakeprop's own.
  const bool reannotating = graph.contains("meta") && graph["meta"].is_object() &&
                            graph["meta"].value("annotated_by", "") == kAnnotatedBy;
  std::unordered_map<std::string_view, const nlohmann::json*> records;
  for (const auto& n : report.at("nodes")) records.emplace(n.at("name").get_ref<const std::string&>(), &n);
  std::unordered_set<std::string> failed;
  for (const auto& e : report.at("errors"))
    if (e.at("node").is_string()) failed.insert(e.at("node").get<std::string>());

  for (Ordered& node : graph["nodes"]) {
    if (!node.is_object() || !node.contains("name") || !node["name"].is_string()) continue;
    const std::string name = node["name"].get<std::string>();
    const std::string op = node.value("op", "");
    if (failed.count(name)) continue;
    if (op == "output") {
      const nlohmann::json& outs = report.at("outputs");
      const bool returns_list = node.contains("args") && node["args"].is_array() && !node["args"].empty() &&
                                node["args"][0].is_array();
      if (!returns_list && outs.size() != 1) continue;
      nlohmann::json val = nlohmann::json::array();
      for (const auto& o : outs) val.push_back(o.at("val"));
      object_member(node, "meta")["val"] = returns_list ? Ordered(val) : Ordered(val[0]);
      continue;
    }
    const auto rec = records.find(name);
    if (rec == records.end()) continue;
    const nlohmann::json& outputs = rec->second->at("outputs");
    if (outputs.empty()) continue;
    // Another tool's meta.val stays: a leaf's as its example, else beside
    // fakeprop's. (`meta` is taken after `node` gains its members.)
    const bool leaf = op == "placeholder" || op == "get_attr";
    const auto input_meta = node.find("meta");
    if (!reannotating && input_meta != node.end() && input_meta->is_object() && input_meta->contains("val")) {
      Ordered theirs = (*input_meta)["val"];
      if (leaf && !node.contains("val"))
        node["val"] = std::move(theirs);
      else if (!input_meta->contains("val_input"))
        (*input_meta)["val_input"] = std::move(theirs);
    }
    Ordered& meta = object_member(node, "meta");
    meta["val"] = outputs[0].at("val");
    meta["unbacked_bindings"] = rec->second->at("unbacked_bindings");
  }
  Ordered& graph_meta = object_member(graph, "meta");
  graph_meta["annotated_by"] = kAnnotatedBy;
  graph_meta["symbols"] = report.at("symbols");
  return graph.dump();
}

}  // namespace fakeprop
