// The FX loader's JSON reader: values as nlohmann reads them, exact RFC 8259
// syntax, strict UTF-8 in strings, and the hooks the loader's limits use.
#include "fakeprop/fx/json_document.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace fakeprop::fx {
namespace {

using Type = JsonDocument::Type;

// The message of the SyntaxError parsing `text` throws, or "(parsed)".
std::string syntax_error_of(std::string_view text) {
  try {
    (void)JsonDocument::parse(text);
  } catch (const JsonDocument::SyntaxError& e) {
    return e.message;
  }
  return "(parsed)";
}

TEST(JsonDocument, ScalarsAndContainersInDocumentOrder) {
  const JsonDocument doc = JsonDocument::parse(R"( {"a": [1, -2, 2.5, "x", true, false, null], "b": {}} )");
  const auto& root = doc.root();
  ASSERT_EQ(root.type, Type::Object);
  EXPECT_EQ(root.size, 2u);
  EXPECT_EQ(root.end, doc.entry_count());
  const auto* a = doc.find(root, "a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->type, Type::Array);
  std::vector<Type> types;
  doc.for_each_child(*a, [&](const JsonDocument::Entry& e) { types.push_back(e.type); });
  EXPECT_EQ(types, (std::vector<Type>{Type::Unsigned, Type::Integer, Type::Float, Type::String, Type::Bool, Type::Bool,
                                      Type::Null}));
  EXPECT_EQ(doc.at(doc.index_of(*a) + 1).unsigned_integer, 1u);
  EXPECT_EQ(doc.at(doc.index_of(*a) + 2).integer, -2);
  EXPECT_EQ(doc.at(doc.index_of(*a) + 3).number, 2.5);
  EXPECT_EQ(doc.string(doc.at(doc.index_of(*a) + 4)), "x");
  EXPECT_TRUE(doc.at(doc.index_of(*a) + 5).boolean);
  const auto* b = doc.find(root, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->type, Type::Object);
  EXPECT_EQ(b->size, 0u);
  EXPECT_EQ(doc.find(root, "c"), nullptr);
  EXPECT_EQ(doc.find(*a, "a"), nullptr);  // not an object
  EXPECT_EQ(doc.source_text(*a), R"([1, -2, 2.5, "x", true, false, null])");
  EXPECT_EQ(doc.source_text(*b), "{}");
}

TEST(JsonDocument, NumbersAsNlohmannReadsThem) {
  // The first element of [text] (numbers do not refer to the text).
  auto first = [](const std::string& number) {
    const std::string text = "[" + number + "]";
    return JsonDocument::parse(text).at(1);
  };
  EXPECT_EQ(first("0").type, Type::Unsigned);
  EXPECT_EQ(first("-0").type, Type::Integer);
  EXPECT_EQ(first("-0").integer, 0);
  EXPECT_EQ(first("18446744073709551615").unsigned_integer, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(first("-9223372036854775808").integer, std::numeric_limits<int64_t>::min());
  // Integers that fit neither type become doubles.
  EXPECT_EQ(first("18446744073709551616").type, Type::Float);
  EXPECT_EQ(first("18446744073709551616").number, 18446744073709551616.0);
  EXPECT_EQ(first("-9223372036854775809").type, Type::Float);
  EXPECT_EQ(first("1E+2").number, 100.0);
  EXPECT_EQ(first("-0.0").type, Type::Float);
  EXPECT_TRUE(std::signbit(first("-0.0").number));
  EXPECT_EQ(first("1e-400").number, 0.0);  // underflow is fine
  EXPECT_EQ(syntax_error_of("[1e400]"), "number overflow");
  for (const char* bad : {"01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "NaN", "-Infinity"})
    EXPECT_NE(syntax_error_of(std::string("[") + bad + "]"), "(parsed)") << bad;
}

TEST(JsonDocument, StringsAndEscapes) {
  const JsonDocument doc = JsonDocument::parse(R"({"k\u0041": "a\"b\\c\/d\b\f\n\r\t", "e": "\u00e9\u20ac\ud83d\ude00", "z": "\u0000"})");
  const auto& root = doc.root();
  const auto* ka = doc.find(root, "kA");
  ASSERT_NE(ka, nullptr);
  EXPECT_EQ(doc.key(*ka), "kA");
  EXPECT_EQ(doc.string(*ka), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(doc.string(*doc.find(root, "e")), "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(doc.string(*doc.find(root, "z")), std::string(1, '\0'));
  EXPECT_EQ(syntax_error_of(R"(["\ud800"])"), "high surrogate without a low surrogate");
  EXPECT_EQ(syntax_error_of(R"(["\ud800\u0041"])"), "high surrogate without a low surrogate");
  EXPECT_EQ(syntax_error_of(R"(["\udc00"])"), "low surrogate without a high surrogate");
  EXPECT_EQ(syntax_error_of(R"(["\x"])"), "invalid escape");
  EXPECT_EQ(syntax_error_of(R"(["\u12G4"])"), "invalid \\u escape");
  EXPECT_EQ(syntax_error_of("[\"a\nb\"]"), "control character in a string (must be escaped)");
  EXPECT_EQ(syntax_error_of("[\"abc"), "unexpected end of input in a string");
}

TEST(JsonDocument, StrictUtf8InStrings) {
  // Well-formed sequences of every length pass through unchanged.
  const std::string good = "\xC2\x80 \xDF\xBF \xE0\xA0\x80 \xED\x9F\xBF \xEE\x80\x80 \xF0\x90\x80\x80 \xF4\x8F\xBF\xBF";
  const std::string text = "[\"" + good + "\"]";
  const JsonDocument doc = JsonDocument::parse(text);
  EXPECT_EQ(doc.string(doc.at(1)), good);
  for (const std::string bad : {"\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xED\xA0\x80",
                                "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF",
                                "\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xC3\x28"})
    EXPECT_EQ(syntax_error_of("[\"" + bad + "\"]"), "ill-formed UTF-8 byte") << ::testing::PrintToString(bad);
  // Outside strings any byte that is not JSON is a syntax error too.
  EXPECT_NE(syntax_error_of("[\xC3\xA9]"), "(parsed)");
}

TEST(JsonDocument, SyntaxErrors) {
  EXPECT_EQ(syntax_error_of(""), "unexpected end of input; expected a value");
  EXPECT_EQ(syntax_error_of("   "), "unexpected end of input; expected a value");
  EXPECT_EQ(syntax_error_of("{} x"), "expected end of input");
  EXPECT_EQ(syntax_error_of("{\"a\" 1}"), "expected ':'");
  EXPECT_EQ(syntax_error_of("{1: 2}"), "expected a string key");
  EXPECT_EQ(syntax_error_of("{\"a\": 1,}"), "expected a string key");
  EXPECT_EQ(syntax_error_of("[1,]"), "unexpected character; expected a value");
  EXPECT_EQ(syntax_error_of("[1 2]"), "expected ',' or ']'");
  EXPECT_EQ(syntax_error_of("{\"a\": 1 \"b\": 2}"), "expected ',' or '}'");
  EXPECT_EQ(syntax_error_of("[1"), "unexpected end of input; expected ',' or ']'");
  EXPECT_EQ(syntax_error_of("[tru]"), "invalid literal");
  EXPECT_EQ(syntax_error_of("[nul"), "invalid literal");
  EXPECT_EQ(syntax_error_of("[1] // comment"), "expected end of input");
  EXPECT_EQ(syntax_error_of("/* c */ [1]"), "unexpected character; expected a value");
  try {
    (void)JsonDocument::parse("[1,\n  x]");
    FAIL();
  } catch (const JsonDocument::SyntaxError& e) {
    EXPECT_EQ(e.offset, 6u);  // at the 'x'
  }
}

TEST(JsonDocument, ByteOrderMarkOnlyAtTheStart) {
  EXPECT_EQ(JsonDocument::parse("\xEF\xBB\xBF[1]").root().type, Type::Array);
  EXPECT_NE(syntax_error_of("[1]\xEF\xBB\xBF"), "(parsed)");
  EXPECT_NE(syntax_error_of("\xEF\xBB[1]"), "(parsed)");
}

TEST(JsonDocument, NulByteOutsideStringsEndsTheInput) {
  // As nlohmann reads a string: a NUL where a token would start is the end.
  const std::string after_value("[1]\0 not json", 14);
  EXPECT_EQ(JsonDocument::parse(after_value).root().size, 1u);
  const std::string after_number("[12\0]", 5);
  EXPECT_EQ(syntax_error_of(after_number), "unexpected end of input; expected ',' or ']'");
  EXPECT_EQ(syntax_error_of(std::string("\0[1]", 4)), "unexpected end of input; expected a value");
  EXPECT_EQ(syntax_error_of(std::string("[\"a\0\"]", 6)), "control character in a string (must be escaped)");
  EXPECT_EQ(syntax_error_of(std::string("[tr\0e]", 6)), "invalid literal");
}

TEST(JsonDocument, RepeatedKeysAsInAStdMap) {
  const JsonDocument doc = JsonDocument::parse(R"({"b": 1, "a": 2, "b": 3, "\u0061": 4, "c": 5})");
  EXPECT_EQ(doc.root().size, 5u);  // every member is kept ...
  EXPECT_EQ(doc.find(doc.root(), "b")->unsigned_integer, 3u);  // ... the last one wins
  EXPECT_EQ(doc.find(doc.root(), "a")->unsigned_integer, 4u);
  std::vector<std::pair<std::string, uint64_t>> members;
  for (const auto* m : doc.sorted_members(doc.root())) members.emplace_back(doc.key(*m), m->unsigned_integer);
  EXPECT_EQ(members, (std::vector<std::pair<std::string, uint64_t>>{{"a", 4}, {"b", 3}, {"c", 5}}));
  EXPECT_EQ(doc.distinct_keys(doc.root()), 3u);
  const auto found = doc.find_all<3>(doc.root(), {"c", "b", "zz"});
  EXPECT_EQ(found[0]->unsigned_integer, 5u);
  EXPECT_EQ(found[1]->unsigned_integer, 3u);
  EXPECT_EQ(found[2], nullptr);
}

TEST(JsonDocument, HooksSeeDepthsAndRootKeysInOrder) {
  std::vector<std::string> seen;
  JsonDocument::Hooks hooks;
  hooks.on_container = [&](int depth, bool is_object) {
    seen.push_back((is_object ? "{" : "[") + std::to_string(depth));
  };
  hooks.on_root_key = [&](std::string_view key) { seen.push_back("key " + std::string(key)); };
  (void)JsonDocument::parse(R"({"n\u006fdes": [{"x": {}}, []], "s": {"t": 1}})", hooks);
  EXPECT_EQ(seen, (std::vector<std::string>{"{0", "key nodes", "[1", "{2", "{3", "[2", "key s", "{1"}));
  // A hook that throws stops the parse there.
  hooks.on_container = [](int depth, bool) {
    if (depth >= 3) throw std::runtime_error("too deep");
  };
  hooks.on_root_key = nullptr;
  EXPECT_THROW((void)JsonDocument::parse("[[[[" + std::string(100000, '['), hooks), std::runtime_error);
  EXPECT_NO_THROW((void)JsonDocument::parse("[[[]]]", hooks));
}

}  // namespace
}  // namespace fakeprop::fx
