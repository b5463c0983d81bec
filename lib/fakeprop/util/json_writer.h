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

#include "fakeprop/util/document_writer.h"

namespace fakeprop {

// Where a streamed document goes, a chunk at a time.
using TextSink = std::function<void(std::string_view)>;

class JsonWriter final : public DocumentWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}
  // Streams: whenever `out` passes `chunk` bytes (checked as a container
  // closes), its text goes to `sink` and `out` is cleared, so a report of a
  // million nodes never sits in memory whole. Call finish() at the end.
  JsonWriter(std::string& out, TextSink sink, size_t chunk = size_t{1} << 20)
      : out_(out), sink_(std::move(sink)), chunk_(chunk) {}
  // Hands the text still buffered to the sink (no-op without one).
  void finish();
  // No newlines or indentation (the same document, for machines); call
  // before the first value.
  JsonWriter& compact() {
    compact_ = true;
    return *this;
  }

 protected:
  void open(bool object) override;
  void close(bool object) override;
  void write_key(std::string_view k) override;
  void write_string(std::string_view s) override;
  void write_bool(bool b) override;
  void write_int(int64_t i) override;
  void write_uint(uint64_t i) override;
  void write_double(double d) override;
  void write_null() override;

 private:
  struct Level {
    bool object;
    size_t count;
  };
  void before_value();  // the separator and indentation of an array element
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
