#include "fakeprop/driver/front_end.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "fakeprop/driver/infer.h"
#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

namespace fs = std::filesystem;

std::string sample(const char* dir, const char* name) { return (fs::path(FAKEPROP_TESTDATA) / dir / name).string(); }

TEST(FrontEnd, OneEntryPerFormatWithItsOwnKind) {
  std::set<std::string_view> kinds;
  for (ModelFormat f : {ModelFormat::Onnx, ModelFormat::FxJson, ModelFormat::Pt2}) {
    const FrontEnd& fe = front_end(f);
    EXPECT_EQ(fe.format, f);
    EXPECT_TRUE(kinds.insert(fe.kind).second) << fe.kind;
    EXPECT_TRUE(fe.detect && fe.run && fe.write_annotated && fe.inputs_of);
  }
  EXPECT_EQ(front_ends().size(), kinds.size());
}

TEST(FrontEnd, DetectsByContent) {
  EXPECT_EQ(detect_format(sample("samples", "add_two.onnx")), ModelFormat::Onnx);
  EXPECT_EQ(detect_format(sample("samples", "aliased_inputs.json")), ModelFormat::FxJson);
  EXPECT_EQ(detect_format(sample("pt2", "mlp.pt2")), ModelFormat::Pt2);
  EXPECT_TRUE(front_end(ModelFormat::FxJson).detect("\xEF\xBB\xBF \n{\"nodes\": []}"));
  EXPECT_FALSE(front_end(ModelFormat::FxJson).detect("[{}]"));
}

// A run names its front end by model_kind, which front_end_of reads back;
// only a .pt2's symbols start in ranges the program declares.
TEST(FrontEnd, RunsRecordTheirFrontEnd) {
  const struct {
    std::string path;
    ModelFormat format;
    bool declared_ranges;
  } cases[] = {{sample("samples", "add_two.onnx"), ModelFormat::Onnx, false},
               {sample("samples", "aliased_inputs.json"), ModelFormat::FxJson, false},
               {sample("pt2", "mlp.pt2"), ModelFormat::Pt2, true}};
  for (const auto& c : cases) {
    const RunResult r = infer_file(c.path, InferOptions{});
    EXPECT_EQ(r.model_kind, front_end(c.format).kind) << c.path;
    EXPECT_EQ(&front_end_of(r), &front_end(c.format)) << c.path;
    EXPECT_EQ(r.symbols_in_declared_ranges, c.declared_ranges) << c.path;
  }
}

TEST(FrontEnd, RefusesAResultNoFrontEndMade) {
  RunResult r;
  r.model_path = "m";
  r.model_kind = "tflite";
  EXPECT_THROW(front_end_of(r), InputError);
}

}  // namespace
}  // namespace fakeprop
