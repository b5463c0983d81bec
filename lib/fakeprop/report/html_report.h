// --html: one self-contained HTML file that shows a report (the viewer in
// report/html/viewer.html, compiled in, with the report embedded).
#pragma once
#include <string>
#include <string_view>

namespace fakeprop {

// The viewer with `report_json` (a JSON report, any layout) in place of its
// marker. Every '<' of the JSON is written as \u003c, which JSON reads as the
// same character, so no text of the report can close the script element.
std::string html_report(std::string_view report_json);

// The viewer as compiled in (html_viewer.cpp, generated from viewer.html).
std::string_view html_viewer_template();

}  // namespace fakeprop
