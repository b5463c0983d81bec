// The seam between the driver and the model formats. Each front end is one
// FrontEnd record (driver/front_ends/<format>.cpp), listed once in
// front_ends(); the driver reaches a format only through its record:
// detect_format, infer_file, write_annotated and write_html (driver/infer.h)
// never name a format. A new front end is a new record and a row here.
#pragma once
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

enum class ModelFormat { Onnx, FxJson, Pt2 };  // Pt2: a torch.export.save archive

struct FrontEnd {
  ModelFormat format;
  // RunResult::model_kind of its runs, as reports print it ("onnx", "fx", "pt2").
  std::string_view kind;
  // Whether a file that starts with `head` (its first 256 bytes or fewer)
  // is of this format; asked in front_ends()' order.
  bool (*detect)(std::string_view head);
  // Load the file and run it; `external` gets the other files the model
  // names (an ONNX model's external data), which no output may replace.
  RunResult (*run)(const std::string& path, const InferOptions& options, std::vector<std::string>& external);
  // -o: the model again with what the run found (`result` is a run of it).
  void (*write_annotated)(const RunResult& result, const std::string& model_path, const std::string& out_path);
  // --html's graph.inputs_of: {node: [producer node, graph input or initializer name]}.
  nlohmann::json (*inputs_of)(const std::string& model_path);
};

// Every front end, in the order detection asks them.
std::span<const FrontEnd> front_ends();
const FrontEnd& front_end(ModelFormat format);
// The front end whose run made `result` (by its model_kind); throws
// InputError for a result no front end made (a graph run in process has
// the JSON FX graph's).
const FrontEnd& front_end_of(const RunResult& result);

}  // namespace fakeprop
