// torch.export.save archives (.pt2) as FX graphs: the program JSON
// (`<root>/models/<name>.json`, torch/_export/serde/schema.py) becomes the
// fx::Graph that scripts/fx2json.py would have written for the same
// ExportedProgram, so the FX interpreter, reports, marks and recompiles run
// on it unchanged. Only the zip's directory and the program member are read,
// never the weights (`data/...`): tensor metadata comes from the program's
// tensor_values.
//
// What the graph looks like:
//  - user inputs are placeholders named as torch names them (`x`,
//    `input_ids`), in the signature's order; parameters, buffers, tensor
//    constants (and custom objects, tokens) are get_attr nodes whose target is
//    the module path (`fc1.weight`), never user sources;
//  - ops are call_function nodes with the target spelled as fx2json does
//    (`torch.ops.aten.add.Tensor` -> `aten.add.Tensor`, `_operator.getitem`
//    -> `operator.getitem`); arguments of kind POSITIONAL are args, KEYWORD
//    (and, in archives without kinds, every named one) kwargs;
//  - an op with several outputs (or a Tensor[] output) is one node named as
//    torch's node plus an operator.getitem node per output, as in the FX graph;
//  - range_constraints become Graph::symbols ranges, size hints their hints;
//    sizes in sympy's srepr (`Mul(Integer(2), Symbol('s0', ...))`) become
//    fakeprop's expression text (`2*s0`).
// Anything malformed, an unknown schema major version, a higher-order op
// (subgraph arguments) or an unknown argument kind is an InputError naming the
// file, the member and the node: one line, exit 2 in the CLI.
#pragma once
#include <string>
#include <string_view>

#include "fakeprop/fx/graph.h"
#include "fakeprop/options/limits.h"

namespace fakeprop::fx {

// The schema major version fakeprop reads (torch 2.15 writes 8.20); torch
// itself loads only its own major (and the unversioned 0.0).
inline constexpr int kPt2SchemaMajor = 8;

// True when `head` starts with a zip local file header ("PK\x03\x04").
bool looks_like_zip(std::string_view head);

// The archive at `path`, or the one in `bytes` (tests, fuzzing). The program
// read is `models/model.json` (torch.export.load's default), else the
// archive's only `models/*.json`; archives of torch before 2.6
// (`serialized_exported_program.json`) are read too. The program member is
// inflated within `limits` (options/limits.h) whatever sizes it records.
Graph load_pt2_archive(const std::string& path, size_t max_nodes = kDefaultMaxNodes, const FileLimits& limits = {});
Graph parse_pt2_archive(std::string_view bytes, const std::string& path_for_errors,
                        size_t max_nodes = kDefaultMaxNodes, const FileLimits& limits = {});
// One serialized ExportedProgram (the member's JSON text); `where` names it in
// messages ("model.pt2: model/models/model.json").
Graph parse_exported_program(std::string_view json_text, const std::string& where,
                             size_t max_nodes = kDefaultMaxNodes);

// sympy's srepr of a size expression ("Add(Symbol('s0', integer=True),
// Integer(1))", "TruncToInt(Mul(Float('1.7', precision=53), ToFloat(...)))")
// as fakeprop's expression text ("(s0 + 1)"); text that is not srepr (older
// archives wrote str(expr): "s0 + 1") is returned as it is. Throws
// InputError for srepr heads fakeprop has no form for.
std::string srepr_to_expr_text(std::string_view srepr);

}  // namespace fakeprop::fx
