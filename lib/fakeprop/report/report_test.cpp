// The JSON report is streamed by JsonWriter; its text must be exactly what
// nlohmann prints for the same document (sorted keys, dump(2) layout), which
// is what parsing it and printing it again gives.
#include "fakeprop/report/report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "fakeprop/driver/infer.h"

namespace fakeprop {
namespace {

using nlohmann::json;

void expect_canonical(const std::string& text, const std::string& what) {
  const json doc = json::parse(text);
  EXPECT_EQ(text, doc.dump(2)) << what;
  EXPECT_EQ(doc["format"], "fakeprop.report/1") << what;
}

TEST(ReportJson, EverySampleIsCanonical) {
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FAKEPROP_TESTDATA "/samples")) {
    if (entry.path().extension() != ".onnx") continue;
    const RunResult r = infer_file(entry.path().string(), InferOptions{});
    const std::string text = report_json(r);
    expect_canonical(text, entry.path().string());
    EXPECT_EQ(json::parse(text)["nodes"].size(), r.nodes.size());
    ++checked;
  }
  EXPECT_GE(checked, 8u);
}

TEST(ReportJson, SymbolicRunWithMarksAndExtrasIsCanonical) {
  InferOptions o;
  o.marks.add("x:0=maybe_dynamic,specialize_on=x==32,specialize_on=x%16==0");
  const RunResult r = infer_file(FAKEPROP_TESTDATA "/samples/reshape_by_8.onnx", o);
  ASSERT_EQ(r.specialized.size(), 2u);
  const json extra = {{"stats", {{"nodes", 3}, {"phases", {{"load_ms", nullptr}, {"report_ms", 0.25}}}}},
                      {"recompiles", {{"log", "line\n"}, {"compiles", json::array()}}}};
  const std::string text = report_json(r, extra);
  expect_canonical(text, "reshape_by_8 with marks");
  const json doc = json::parse(text);
  EXPECT_EQ(doc["specialize_on"].size(), 2u);
  EXPECT_EQ(doc["stats"], extra["stats"]);
  EXPECT_EQ(doc["recompiles"], extra["recompiles"]);
  EXPECT_FALSE(doc["guards"].empty());
}

TEST(ReportJson, DataDependentRunWithFixesAndBindingsIsCanonical) {
  const RunResult r = infer_file(FAKEPROP_TESTDATA "/samples/item_chunk.json", InferOptions{});
  const std::string text = report_json(r);
  expect_canonical(text, "item_chunk");
  const json doc = json::parse(text);
  bool has_fixes = false, has_binding = false;
  for (const auto& e : doc["errors"]) has_fixes |= e.contains("fixes");
  for (const auto& n : doc["nodes"]) has_binding |= !n["unbacked_bindings"].empty();
  EXPECT_TRUE(has_fixes);
  EXPECT_TRUE(has_binding);
}

TEST(ReportJson, FxGraphIsCanonical) {
  const RunResult r = infer_file(FAKEPROP_TESTDATA "/fx/add_relu.json", InferOptions{});
  expect_canonical(report_json(r), "add_relu.json");
}

// Streamed in small chunks, the report is the same text plus a newline, and
// no chunk is empty.
TEST(ReportJson, StreamedInChunksIsTheSameText) {
  const RunResult r = infer_file(FAKEPROP_TESTDATA "/samples/tiny_attention.onnx", InferOptions{});
  const json extra = {{"stats", {{"phases", {{"load_ms", 1.5}}}}}};
  for (size_t chunk : {size_t{1}, size_t{64}, size_t{1} << 20}) {
    std::string streamed;
    size_t calls = 0;
    stream_report_json(r, extra, [&](std::string_view part) {
      EXPECT_FALSE(part.empty());
      streamed.append(part);
      ++calls;
    }, chunk);
    EXPECT_EQ(streamed, report_json(r, extra) + "\n") << "chunk " << chunk;
    if (chunk == 64) {
      EXPECT_GT(calls, 10u);
    }
  }
}

}  // namespace
}  // namespace fakeprop
