// Where a streamed JSON-shaped document goes: JSON text (JsonWriter) or, in
// the Python package, Python objects built directly, with no text between.
// Writers of a document (the report) call the chainable methods here; a
// target implements the primitives below them.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace fakeprop {

class DocumentWriter {
 public:
  virtual ~DocumentWriter() = default;

  DocumentWriter& begin_object() { return open(true), *this; }
  DocumentWriter& end_object() { return close(true), *this; }
  DocumentWriter& begin_array() { return open(false), *this; }
  DocumentWriter& end_array() { return close(false), *this; }
  // The next value is this key's. Keys are written in the order given.
  DocumentWriter& key(std::string_view k) { return write_key(k), *this; }

  DocumentWriter& value(std::string_view s) { return write_string(s), *this; }
  DocumentWriter& value(const char* s) { return value(std::string_view(s)); }
  DocumentWriter& value(const std::string& s) { return value(std::string_view(s)); }
  DocumentWriter& value(bool b) { return write_bool(b), *this; }
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  DocumentWriter& value(Int i) {
    if constexpr (std::is_signed_v<Int>)
      write_int(static_cast<int64_t>(i));
    else
      write_uint(static_cast<uint64_t>(i));
    return *this;
  }
  DocumentWriter& value(double d) { return write_double(d), *this; }
  DocumentWriter& null() { return write_null(), *this; }
  // A part built with nlohmann (small ones: recompiles, stats).
  DocumentWriter& value(const nlohmann::json& j);
  DocumentWriter& value(const std::vector<std::string>& xs);

  // key(k).value(v) in one call.
  template <typename T>
  DocumentWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  DocumentWriter& null_field(std::string_view k) { return key(k).null(); }

 protected:
  virtual void open(bool object) = 0;
  virtual void close(bool object) = 0;
  virtual void write_key(std::string_view k) = 0;
  virtual void write_string(std::string_view s) = 0;
  virtual void write_bool(bool b) = 0;
  virtual void write_int(int64_t i) = 0;
  virtual void write_uint(uint64_t i) = 0;
  virtual void write_double(double d) = 0;
  virtual void write_null() = 0;
};

}  // namespace fakeprop
