// The front ends' records (driver/front_end.h), one file each, and what the
// two readers of FX graphs (a JSON FX graph, a .pt2 program) share.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "fakeprop/driver/front_end.h"
#include "fakeprop/fx/graph.h"

namespace fakeprop {

FrontEnd onnx_front_end();
FrontEnd fx_json_front_end();
FrontEnd pt2_front_end();

// -o for a run of an FX graph: `graph_text` gives the graph as a JSON FX
// graph, read again only once the output is known not to be refused.
void write_annotated_fx_graph(const RunResult& result, const std::string& model_path, const std::string& out_path,
                              std::string (*graph_text)(const std::string& model_path));
// --html's edges of an FX graph: the nodes each node's arguments name, in argument order.
nlohmann::json fx_graph_inputs_of(const fx::Graph& graph);

}  // namespace fakeprop
