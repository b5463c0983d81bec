// The library's entry point for one model file: detect the format, load,
// run under fake mode. Throws InputError for unreadable input.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "fakeprop/driver/front_end.h"
#include "fakeprop/fx/graph.h"
#include "fakeprop/options/infer_options.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

// From the content (the first front end of front_ends() whose test its
// first bytes pass), not the extension.
ModelFormat detect_format(const std::string& path);
RunResult infer_file(const std::string& path, const InferOptions& options);
// A graph already read (the Python package's live torch.fx graphs); its path
// stands for the file.
RunResult infer_fx_graph(const fx::Graph& graph, const InferOptions& options);

// The CLI's exit status for a run: 1 when a --mark dynamic/strict promise
// broke (PyTorch's ConstraintViolationError), or with `strict` when a node
// hit an error of a kind that fails_strict(); else 0.
int exit_status(const RunResult& result, bool strict);

// Write the annotated model (-o), as the front end that made `result`
// writes it: ONNX with value_info for every value; a JSON FX graph or .pt2
// program as a JSON FX graph with meta on every node (annotated_graph.h).
void write_annotated(const RunResult& result, const std::string& model_path, const std::string& out_path);

// Write the HTML report (--html, report/html_report.h): the JSON report with
// `extra`'s members (recompiles, stats) and the graph's edges as
// graph.inputs_of ({node: [producer node, graph input or initializer name]}),
// in the self-contained viewer. Never over the model; atomic.
void write_html(const RunResult& result, const nlohmann::json& extra, const std::string& model_path,
                const std::string& out_path);

}  // namespace fakeprop
