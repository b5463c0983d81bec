// --html: the report, with the graph's edges, in the self-contained viewer.
#include <nlohmann/json.hpp>
#include <string>

#include "fakeprop/driver/front_end.h"
#include "fakeprop/driver/infer.h"
#include "fakeprop/report/html_report.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop {

void write_html(const RunResult& result, const nlohmann::json& extra, const std::string& model_path,
                const std::string& out_path) {
  nlohmann::json members = extra.is_object() ? extra : nlohmann::json::object();
  members["graph"] = {{"inputs_of", front_end_of(result).inputs_of(model_path)}};
  write_output_file(out_path, html_report(report_json(result, members, /*compact=*/true)), result.input_files);
}

}  // namespace fakeprop
