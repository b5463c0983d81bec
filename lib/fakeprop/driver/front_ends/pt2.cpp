// The .pt2 front end's record: a torch.export.save archive, whose program
// fx/pt2_archive.h reads into the FX graph fx/'s interpreter runs. Its
// symbols start in the program's range_constraints, which the run records
// for the TORCH_TRACE log (RunResult::symbols_in_declared_ranges).
#include "fakeprop/driver/front_ends/front_ends.h"
#include "fakeprop/fx/interpreter.h"
#include "fakeprop/fx/pt2_archive.h"

namespace fakeprop {

namespace {

RunResult run_pt2(const std::string& path, const InferOptions& options, std::vector<std::string>&) {
  RunResult r = fx::run_graph(fx::load_pt2_archive(path, options.max_nodes, options.file_limits), options);
  r.symbols_in_declared_ranges = true;
  return r;
}

void write_annotated_pt2(const RunResult& result, const std::string& model_path, const std::string& out_path) {
  write_annotated_fx_graph(result, model_path, out_path,
                           [](const std::string& path) { return fx::graph_json(fx::load_pt2_archive(path)); });
}

nlohmann::json pt2_inputs_of(const std::string& model_path) {
  return fx_graph_inputs_of(fx::load_pt2_archive(model_path));
}

}  // namespace

FrontEnd pt2_front_end() {
  return {ModelFormat::Pt2, "pt2", fx::looks_like_zip, run_pt2, write_annotated_pt2, pt2_inputs_of};
}

}  // namespace fakeprop
