#include "fakeprop/report/html_report.h"

#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {
constexpr std::string_view kMarker = "/*FAKEPROP_REPORT_JSON*/null";
}  // namespace

std::string html_report(std::string_view report_json) {
  const std::string_view viewer = html_viewer_template();
  const size_t at = viewer.find(kMarker);
  if (at == std::string_view::npos) throw Error("internal: the HTML viewer has no report marker");
  std::string out;
  out.reserve(viewer.size() + report_json.size() + report_json.size() / 16);
  out.append(viewer.substr(0, at));
  for (const char c : report_json) {
    if (c == '<')
      out.append("\\u003c");
    else
      out.push_back(c);
  }
  out.append(viewer.substr(at + kMarker.size()));
  return out;
}

}  // namespace fakeprop
