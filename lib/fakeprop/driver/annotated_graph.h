// -o for JSON FX graphs and .pt2 programs: the graph with what fakeprop
// found on every node, in the places torch.fx keeps it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace fakeprop {

// `graph_text` (a JSON FX graph, fakeprop.fx/1) with, from `report` (the
// JSON report of a run over it):
//   - each node's meta.val: the VAL of its output (for the output node, the
//     VALs it returns), and meta.unbacked_bindings: the unbacked symbols it
//     binds with their key paths, as the report lists them ({} for none);
//   - the graph's meta.symbols: the report's symbols with ranges and sources,
//     and meta.annotated_by "fakeprop".
// Every member of the input stays (other meta entries, unknown keys); a
// placeholder whose example value sat in meta.val keeps it as `val`, so a
// run over the result sees the inputs the first run saw, and another tool's
// meta.val of any other node is kept as meta.val_input (annotating an
// annotated graph replaces fakeprop's own). A node the report
// lists an error for keeps its own meta.val: what fakeprop gave it is a
// fallback, and the loader falls back to a call's meta.val, so a rerun over
// the result fails over to the same value. Throws InputError("where: ...") when the text is not a graph.
std::string annotate_fx_graph(const std::string& graph_text, const nlohmann::json& report, const std::string& where);

}  // namespace fakeprop
