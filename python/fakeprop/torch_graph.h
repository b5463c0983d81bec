// Reads a live torch.fx graph (a GraphModule's, or an ExportedProgram's)
// into the fx::Graph every front end runs, as graph_export.py describes:
// the C++ side of export_graph and propagate, so that no JSON text is made
// for a run in process. Python decides what concerns the program as a whole
// (its signature, the state placeholders, tied parameters, renames, example
// inputs) and hands it over as a plan; this reads the nodes.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "fakeprop/fx/graph.h"

namespace fakeprop::python {

// The plan (a dict, made by graph_export.py):
//   path       the name the graph goes by in errors and in the report
//   max_nodes  the node-count limit
//   state      placeholder name -> FQN: parameters, buffers and constants, read as get_attr
//   tied       placeholder name -> the earlier state placeholder it is the same tensor as
//   names      placeholder name -> the name to give it
//   examples   placeholder name -> its example value (instead of meta['val'])
//   exported   whether the program is an ExportedProgram (read by graph_export.py)
//   torch      the torch types and helpers: node, tensor, symint, dtype, device,
//              memory_format, layout; target_name(target), dim(symint), attr_value(gm, target)
struct TorchGraph {
  fx::Graph graph;
  pybind11::list nodes;  // the torch.fx nodes, one per graph node, in order (None for a guards_code node)
  pybind11::dict plan;   // the plan it was read with (for declared_examples)
};

// Every SymInt met in an example value is appended to `symbolic`
// (graph_export.py turns them into the graph's symbols).
TorchGraph read_torch_graph(pybind11::handle graph_module, const pybind11::dict& plan, pybind11::list symbolic);

// Gives each call node named in `failed` that has no example yet its
// declared value (its meta['val'] tensor) as the example a failed call falls
// back to, as the .pt2 reader gives one to every call with a tensor output;
// true when some node got one. Reading them only for the nodes that failed
// keeps a run without failures from paying for every node's value.
bool declared_examples(TorchGraph& g, const std::vector<std::string>& failed);

// node.meta["fakeprop"] = {"val": VAL, "unbacked_bindings": {...}} for every
// node of `g` that `report` (the run's, as Python objects) has a record of.
void attach_report(const TorchGraph& g, pybind11::handle report);

}  // namespace fakeprop::python
