// A streaming JSON writer whose output is byte-for-byte what nlohmann's
// dump(2) prints for the same document: reports of graphs with a million
// nodes are written without building a DOM (building one cost more than the
// whole propagation). Keys are written in the order given; callers give them
// sorted, as nlohmann's std::map-backed objects print them.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace fakeprop {

// Where a streamed document goes, a chunk at a time.
using TextSink = std::function<void(std::string_view)>;

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}
  // Streams: whenever `out` passes `chunk` bytes (checked as a container
  // closes), its text goes to `sink` and `out` is cleared, so a report of a
  // million nodes never sits in memory whole. Call finish() at the end.
  JsonWriter(std::string& out, TextSink sink, size_t chunk = size_t{1} << 20)
      : out_(out), sink_(std::move(sink)), chunk_(chunk) {}
  // Hands the text still buffered to the sink (no-op without one).
  void finish();
  // No newlines or indentation (the same document, for machines: the
  // Python package parses it); call before the first value.
  JsonWriter& compact() {
    compact_ = true;
    return *this;
  }

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  // The next value is this key's.
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  JsonWriter& value(Int i) {
    if constexpr (std::is_signed_v<Int>)
      return write_int(static_cast<int64_t>(i));
    else
      return write_uint(static_cast<uint64_t>(i));
  }
  JsonWriter& value(double d);
  JsonWriter& null();
  // A document built with nlohmann (small parts: recompiles, stats), laid out as dump(2) would at this depth.
  JsonWriter& value(const nlohmann::json& j);
  // A list of strings.
  JsonWriter& value(const std::vector<std::string>& xs);

  // key(k).value(v) in one call.
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  JsonWriter& null_field(std::string_view k) { return key(k).null(); }

 private:
  struct Level {
    bool object;
    size_t count;
  };
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  void before_value();  // the separator and indentation of an array element
  JsonWriter& write_int(int64_t i);
  JsonWriter& write_uint(uint64_t i);
  void indent(size_t depth) { out_.append(depth * 2, ' '); }

  std::string& out_;
  TextSink sink_;
  size_t chunk_ = 0;
  std::vector<Level> levels_;
  bool after_key_ = false;
  bool compact_ = false;
};

// `text` as a JSON string literal (quotes included), escaped as nlohmann
// escapes it; a byte that breaks UTF-8 becomes U+FFFD instead of an error.
void append_json_string(std::string& out, std::string_view text);

}  // namespace fakeprop
