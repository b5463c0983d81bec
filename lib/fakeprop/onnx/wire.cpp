#include "fakeprop/onnx/wire.h"

#include <bit>
#include <cstring>

namespace fakeprop::onnx::wire {

namespace {

constexpr uint32_t kMaxFieldNumber = (1u << 29) - 1;

// Decodes a varint at [pos, end); returns nullptr on truncation or overlong
// encoding, with `*why` set.
const char* decode_varint(const char* pos, const char* end, uint64_t* value, const char** why, bool* truncated) {
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos == end) {
      *why = "truncated varint";
      *truncated = true;
      return nullptr;
    }
    const auto byte = static_cast<uint8_t>(*pos++);
    // The 10th byte carries only the top bit of a 64-bit value.
    if (i == 9 && byte > 1) {
      *why = "varint longer than 64 bits";
      return nullptr;
    }
    result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = result;
      return pos;
    }
  }
  *why = "varint longer than 10 bytes";
  return nullptr;
}

}  // namespace

std::string_view wire_type_name(WireType type) {
  switch (type) {
    case WireType::Varint: return "varint";
    case WireType::Fixed64: return "fixed64";
    case WireType::Len: return "length-delimited";
    case WireType::StartGroup: return "start-group";
    case WireType::EndGroup: return "end-group";
    case WireType::Fixed32: return "fixed32";
  }
  return "invalid";
}

void Reader::fail(const std::string& what, const char* at, bool truncated) const {
  throw ParseError(what, static_cast<uint64_t>(at - origin_), truncated);
}

uint64_t Reader::read_varint(const char* what) {
  uint64_t value = 0;
  const char* why = nullptr;
  bool truncated = false;
  const char* after = decode_varint(pos_, end_, &value, &why, &truncated);
  if (after == nullptr) fail(std::string(why) + " in " + what, pos_, truncated);
  pos_ = after;
  return value;
}

bool Reader::next(Field& field) {
  if (pos_ == end_) return false;
  const char* start = pos_;
  const uint64_t tag = read_varint("field tag");
  const uint64_t number = tag >> 3;
  const auto type_bits = static_cast<uint8_t>(tag & 7);
  if (number == 0 || number > kMaxFieldNumber) fail("invalid field number " + std::to_string(number), start);
  field.number = static_cast<uint32_t>(number);
  field.offset = static_cast<uint64_t>(start - origin_);
  field.value = 0;
  const char* value_start = pos_;
  switch (type_bits) {
    case 0:
      field.type = WireType::Varint;
      field.value = read_varint("varint field");
      break;
    case 1:
    case 5: {
      const size_t width = type_bits == 1 ? 8 : 4;
      field.type = type_bits == 1 ? WireType::Fixed64 : WireType::Fixed32;
      if (static_cast<size_t>(end_ - pos_) < width) {
        fail("truncated " + std::string(wire_type_name(field.type)) + " value of field " + std::to_string(number),
             start, true);
      }
      uint64_t bits = 0;
      for (size_t i = 0; i < width; ++i) bits |= static_cast<uint64_t>(static_cast<uint8_t>(pos_[i])) << (8 * i);
      field.value = bits;
      pos_ += width;
      break;
    }
    case 2: {
      field.type = WireType::Len;
      const char* length_at = pos_;
      const uint64_t length = read_varint("field length");
      if (length > static_cast<uint64_t>(end_ - pos_)) {
        fail("length " + std::to_string(length) + " of field " + std::to_string(number) + " runs past the end of its message (" +
                 std::to_string(end_ - pos_) + " bytes left)",
             length_at, true);
      }
      field.payload = std::string_view(pos_, static_cast<size_t>(length));
      pos_ += length;
      break;
    }
    case 3:
    case 4:
      fail("field " + std::to_string(number) + " uses protobuf groups, which ONNX never does", start);
    default:
      fail("invalid wire type " + std::to_string(type_bits) + " of field " + std::to_string(number), start);
  }
  if (field.type != WireType::Len) field.payload = std::string_view(value_start, static_cast<size_t>(pos_ - value_start));
  field.encoded = std::string_view(start, static_cast<size_t>(pos_ - start));
  return true;
}

uint64_t take_varint(std::string_view& bytes, const char* origin) {
  uint64_t value = 0;
  const char* why = nullptr;
  bool truncated = false;
  const char* after = decode_varint(bytes.data(), bytes.data() + bytes.size(), &value, &why, &truncated);
  if (after == nullptr) {
    throw ParseError(std::string(why) + " in packed values", static_cast<uint64_t>(bytes.data() - origin), truncated);
  }
  bytes.remove_prefix(static_cast<size_t>(after - bytes.data()));
  return value;
}

float as_float(uint64_t fixed32_bits) { return std::bit_cast<float>(static_cast<uint32_t>(fixed32_bits)); }
double as_double(uint64_t fixed64_bits) { return std::bit_cast<double>(fixed64_bits); }

void append_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void append_tag(std::string& out, uint32_t number, WireType type) {
  append_varint(out, (static_cast<uint64_t>(number) << 3) | static_cast<uint64_t>(type));
}

void append_varint_field(std::string& out, uint32_t number, uint64_t value) {
  append_tag(out, number, WireType::Varint);
  append_varint(out, value);
}

void append_len_header(std::string& out, uint32_t number, uint64_t payload_size) {
  append_tag(out, number, WireType::Len);
  append_varint(out, payload_size);
}

void append_len_field(std::string& out, uint32_t number, std::string_view payload) {
  append_len_header(out, number, payload.size());
  out.append(payload);
}

void append_fixed32_field(std::string& out, uint32_t number, uint32_t bits) {
  append_tag(out, number, WireType::Fixed32);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

void append_fixed64_field(std::string& out, uint32_t number, uint64_t bits) {
  append_tag(out, number, WireType::Fixed64);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

}  // namespace fakeprop::onnx::wire
