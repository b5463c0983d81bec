#include "fakeprop/util/json_writer.h"

#include <gtest/gtest.h>

namespace fakeprop {
namespace {

using nlohmann::json;

std::string written(const json& j, bool compact = false) {
  std::string out;
  JsonWriter w(out);
  if (compact) w.compact();
  w.value(j);
  return out;
}

TEST(JsonWriter, EscapesEveryAsciiByteAsNlohmannDoes) {
  for (int c = 0; c < 128; ++c) {
    const std::string s = std::string("a") + static_cast<char>(c) + "b";
    std::string out;
    append_json_string(out, s);
    EXPECT_EQ(out, json(s).dump()) << "byte " << c;
  }
}

TEST(JsonWriter, KeepsValidUtf8AndReplacesBrokenBytes) {
  for (const std::string s : {"\xc3\xa9t\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "mixed \xce\xbb x"}) {
    std::string out;
    append_json_string(out, s);
    EXPECT_EQ(out, json(s).dump());
  }
  std::string out;
  append_json_string(out, "a\xff" "b\xc3");  // a stray byte and a truncated sequence
  EXPECT_EQ(out, "\"a\xef\xbf\xbd" "b\xef\xbf\xbd\"");
  out.clear();
  append_json_string(out, "\xed\xa0\x80");  // a surrogate: each byte replaced
  EXPECT_EQ(out, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
}

TEST(JsonWriter, LaysOutDocumentsAsDump2) {
  const json docs[] = {
      json::object(),
      json::array(),
      json{{"a", 1}},
      json{{"a", json::array()}, {"b", json::object()}, {"c", nullptr}, {"d", true}, {"e", "x\ny"}},
      json{{"nested", {{"deeper", {1, 2, {{"k", {3, json::array({json::object()})}}}}}}}, {"z", -7}},
      json::array({1, -2, 3.5, 1e300, 0.1, 2.0, "s", false, nullptr, json::array({json::array()})}),
      json{{"big", std::numeric_limits<int64_t>::min()}, {"u", std::numeric_limits<uint64_t>::max()}},
  };
  for (const json& j : docs) EXPECT_EQ(written(j), j.dump(2));
  for (const json& j : docs) EXPECT_EQ(written(j, /*compact=*/true), j.dump()) << "compact";
  EXPECT_EQ(written(json{{"a\"b", 1}}, true), R"({"a\"b":1})");  // a key that needs escaping
}

TEST(JsonWriter, StreamingCallsMatchTheSameDocument) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("list").begin_array().value(1).value("two").begin_object().end_object().end_array();
  w.field("name", std::string("n")).null_field("none");
  w.key("obj").begin_object().field("x", int64_t{-3}).field("y", 0.5).field("v", std::vector<std::string>{"p", "q"});
  w.end_object().end_object();
  const json want = {{"list", {1, "two", json::object()}},
                     {"name", "n"},
                     {"none", nullptr},
                     {"obj", {{"x", -3}, {"y", 0.5}, {"v", {"p", "q"}}}}};
  // Keys are written in the order given; nlohmann sorts them ("v" before "x").
  EXPECT_NE(out, want.dump(2));
  EXPECT_EQ(json::parse(out), want);
}

}  // namespace
}  // namespace fakeprop
