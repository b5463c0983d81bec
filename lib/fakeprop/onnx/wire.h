// Protocol-buffer wire format, read in place and written by hand (internal to
// the ONNX loader and writer). The reader never copies payloads: a
// length-delimited field comes back as a view into the input. Every length is
// checked against the end of the enclosing message; sizes are 64-bit so files
// over 2 GB work.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fakeprop::onnx::wire {

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, Len = 2, StartGroup = 3, EndGroup = 4, Fixed32 = 5 };

std::string_view wire_type_name(WireType type);

// Malformed bytes. `offset` is counted from the start of the buffer the
// reader's origin names (the whole file), so messages can point at the byte.
class ParseError : public std::runtime_error {
 public:
  ParseError(const std::string& what, uint64_t offset, bool truncated = false)
      : std::runtime_error(what), offset_(offset), truncated_(truncated) {}
  uint64_t offset() const { return offset_; }
  // The bytes ended inside a field (as in a prefix of a valid message).
  bool truncated() const { return truncated_; }

 private:
  uint64_t offset_;
  bool truncated_;
};

struct Field {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  uint64_t value = 0;        // Varint, Fixed32, Fixed64: the raw bits
  std::string_view payload;  // Len: the bytes; otherwise the encoded value after the tag
  std::string_view encoded;  // the whole field, tag included (for verbatim copies)
  uint64_t offset = 0;       // of the tag, from the origin
};

// Walks the fields of one message. `origin` is the start of the whole buffer
// (for offsets in errors); `message` lies inside it.
class Reader {
 public:
  Reader(const char* origin, std::string_view message) : origin_(origin), pos_(message.data()), end_(message.data() + message.size()) {}

  // Reads the next field; false at the end of the message.
  bool next(Field& field);
  uint64_t offset() const { return static_cast<uint64_t>(pos_ - origin_); }

 private:
  uint64_t read_varint(const char* what);
  [[noreturn]] void fail(const std::string& what, const char* at, bool truncated = false) const;

  const char* origin_;
  const char* pos_;
  const char* end_;
};

// Varint decoding from the front of `bytes`; advances it. Throws ParseError
// (offset from `origin`) on truncation or a varint longer than 10 bytes.
uint64_t take_varint(std::string_view& bytes, const char* origin);

// Field values as the .proto types see them.
inline int64_t as_int64(uint64_t bits) { return static_cast<int64_t>(bits); }
inline int32_t as_int32(uint64_t bits) { return static_cast<int32_t>(bits); }  // int32 is sign-extended on the wire
float as_float(uint64_t fixed32_bits);
double as_double(uint64_t fixed64_bits);

// Writing.
void append_varint(std::string& out, uint64_t value);
void append_tag(std::string& out, uint32_t number, WireType type);
void append_varint_field(std::string& out, uint32_t number, uint64_t value);
void append_len_field(std::string& out, uint32_t number, std::string_view payload);
// Tag and length only, for a payload written separately (a large blob).
void append_len_header(std::string& out, uint32_t number, uint64_t payload_size);
void append_fixed32_field(std::string& out, uint32_t number, uint32_t bits);
void append_fixed64_field(std::string& out, uint32_t number, uint64_t bits);

}  // namespace fakeprop::onnx::wire
