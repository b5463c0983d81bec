#include "fakeprop/fx/json_document.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

#include "fakeprop/util/utf8.h"

namespace fakeprop::fx {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

// Recursive descent; the depth hook bounds the recursion (the loader stops at
// 100 levels). Without a hook the recursion is bounded only by the text.
class JsonParser {
 public:
  JsonParser(std::string_view text, const JsonDocument::Hooks& hooks, JsonDocument& doc)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), hooks_(hooks), doc_(doc) {}

  void parse() {
    // nlohmann skips a UTF-8 byte order mark at the very start.
    if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;
    value(0);
    skip_space();
    if (p_ != end_) fail("expected end of input");
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw JsonDocument::SyntaxError{static_cast<size_t>(p_ - begin_), what};
  }
  uint32_t offset(const char* p) const { return static_cast<uint32_t>(p - begin_); }

  // Also: a NUL byte where a token would start ends the input, as in nlohmann
  // (so text after one, outside a string, is ignored).
  void skip_space() {
    while (p_ != end_ && is_space(*p_)) ++p_;
    if (p_ != end_ && *p_ == '\0') end_ = p_;
  }

  // Appends the value at p_ (after spaces) and returns its index.
  uint32_t value(int depth) {
    skip_space();
    if (p_ == end_) fail("unexpected end of input; expected a value");
    const auto index = static_cast<uint32_t>(doc_.entries_.size());
    doc_.entries_.emplace_back();
    doc_.entries_[index].source = offset(p_);
    switch (*p_) {
      case '{': object(index, depth); break;
      case '[': array(index, depth); break;
      case '"': {
        JsonDocument::Entry& e = doc_.entries_[index];
        e.type = JsonDocument::Type::String;
        bool decoded = false;
        string(e.string.offset, e.string.length, decoded);
        doc_.entries_[index].string_decoded = decoded;
        break;
      }
      case 't': literal("true", JsonDocument::Type::Bool, true, index); break;
      case 'f': literal("false", JsonDocument::Type::Bool, false, index); break;
      case 'n': literal("null", JsonDocument::Type::Null, false, index); break;
      default:
        if (*p_ == '-' || is_digit(*p_)) {
          number(index);
          break;
        }
        fail("unexpected character; expected a value");
    }
    doc_.entries_[index].end = static_cast<uint32_t>(doc_.entries_.size());
    return index;
  }

  void literal(const char* word, JsonDocument::Type type, bool b, uint32_t index) {
    const size_t n = std::strlen(word);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) fail("invalid literal");
    p_ += n;
    doc_.entries_[index].type = type;
    doc_.entries_[index].boolean = b;
  }

  void array(uint32_t index, int depth) {
    if (hooks_.on_container) hooks_.on_container(depth, false);
    doc_.entries_[index].type = JsonDocument::Type::Array;
    ++p_;
    skip_space();
    uint32_t count = 0;
    if (p_ != end_ && *p_ == ']') {
      ++p_;
    } else {
      for (;;) {
        value(depth + 1);
        ++count;
        if (!another_member(']')) break;
      }
    }
    doc_.entries_[index].size = count;
  }

  // After an array element or object member: true past a ',' (another
  // follows), false past `close` (the container ends).
  bool another_member(char close) {
    skip_space();
    if (p_ == end_) fail(close == ']' ? "unexpected end of input; expected ',' or ']'"
                                      : "unexpected end of input; expected ',' or '}'");
    if (*p_ == ',') {
      ++p_;
      return true;
    }
    if (*p_ == close) {
      ++p_;
      return false;
    }
    fail(close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
  }

  void object(uint32_t index, int depth) {
    if (hooks_.on_container) hooks_.on_container(depth, true);
    doc_.entries_[index].type = JsonDocument::Type::Object;
    ++p_;
    skip_space();
    uint32_t count = 0;
    if (p_ != end_ && *p_ == '}') {
      ++p_;
    } else {
      for (;;) {
        skip_space();
        if (p_ == end_ || *p_ != '"') fail("expected a string key");
        uint32_t key_offset = 0, key_length = 0;
        bool key_decoded = false;
        string(key_offset, key_length, key_decoded);
        if (depth == 0 && hooks_.on_root_key)
          hooks_.on_root_key({(key_decoded ? doc_.decoded_.data() : begin_) + key_offset, key_length});
        skip_space();
        if (p_ == end_ || *p_ != ':') fail("expected ':'");
        ++p_;
        const uint32_t member = value(depth + 1);
        JsonDocument::Entry& m = doc_.entries_[member];
        m.key_offset = key_offset;
        m.key_length = key_length;
        m.key_decoded = key_decoded;
        ++count;
        if (!another_member('}')) break;
      }
    }
    doc_.entries_[index].size = count;
  }

  // A string at p_ (the opening quote). Without escapes it stays in the
  // text; with them it is decoded into the document's buffer.
  void string(uint32_t& out_offset, uint32_t& out_length, bool& decoded) {
    ++p_;
    const char* start = p_;
    // Fast scan: plain ASCII up to the closing quote.
    while (p_ != end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      ++p_;
    }
    if (p_ != end_ && *p_ == '"') {
      out_offset = offset(start);
      out_length = static_cast<uint32_t>(p_ - start);
      decoded = false;
      ++p_;
      return;
    }
    // Slow path: validate UTF-8; decode escapes if any.
    std::string* buffer = nullptr;
    size_t buffer_start = 0;
    const char* copied_to = start;  // text before this is in the buffer already (once there is one)
    auto begin_buffer = [&]() {
      if (buffer) return;
      buffer = &doc_.decoded_;
      buffer_start = buffer->size();
    };
    while (true) {
      if (p_ == end_) fail("unexpected end of input in a string");
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c < 0x20) fail("control character in a string (must be escaped)");
      if (c < 0x80) {
        if (c != '\\') {
          ++p_;
          continue;
        }
        begin_buffer();
        buffer->append(copied_to, p_);
        ++p_;
        if (p_ == end_) fail("unexpected end of input in a string");
        switch (*p_) {
          case '"': *buffer += '"'; break;
          case '\\': *buffer += '\\'; break;
          case '/': *buffer += '/'; break;
          case 'b': *buffer += '\b'; break;
          case 'f': *buffer += '\f'; break;
          case 'n': *buffer += '\n'; break;
          case 'r': *buffer += '\r'; break;
          case 't': *buffer += '\t'; break;
          case 'u': {
            uint32_t cp = hex4();
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              // A high surrogate must be followed by an escaped low one.
              if (end_ - p_ < 3 || p_[1] != '\\' || p_[2] != 'u') fail("high surrogate without a low surrogate");
              p_ += 2;
              const uint32_t low = hex4();
              if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate without a low surrogate");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
              fail("low surrogate without a high surrogate");
            }
            append_utf8(*buffer, cp);
            break;
          }
          default: fail("invalid escape");
        }
        ++p_;
        copied_to = p_;
        continue;
      }
      utf8_sequence();
    }
    if (buffer) {
      buffer->append(copied_to, p_);
      out_offset = static_cast<uint32_t>(buffer_start);
      out_length = static_cast<uint32_t>(buffer->size() - buffer_start);
      decoded = true;
    } else {
      out_offset = offset(start);
      out_length = static_cast<uint32_t>(p_ - start);
      decoded = false;
    }
    ++p_;
  }

  // Four hex digits after "\u" (p_ at the 'u'); leaves p_ on the last digit.
  uint32_t hex4() {
    if (end_ - p_ < 5) fail("unexpected end of input in a \\u escape");
    uint32_t cp = 0;
    for (int k = 1; k <= 4; ++k) {
      const int h = hex_value(p_[k]);
      if (h < 0) fail("invalid \\u escape");
      cp = cp * 16 + static_cast<uint32_t>(h);
    }
    p_ += 4;
    return cp;
  }

  // One well-formed multi-byte UTF-8 sequence at p_ (RFC 3629: no overlong
  // forms, no surrogates, nothing above U+10FFFF).
  void utf8_sequence() {
    const size_t length = utf8_sequence_at(std::string_view(p_, static_cast<size_t>(end_ - p_)), 0);
    if (length == 0) fail("ill-formed UTF-8 byte");
    p_ += length;
  }

  // A number, read as nlohmann reads it: without fraction or exponent it is
  // an int64 ('-') or uint64 when it fits; otherwise strtod's double.
  void number(uint32_t index) {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || !is_digit(*p_)) fail("invalid number; expected a digit");
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    bool integral = true;
    if (p_ != end_ && *p_ == '.') {
      integral = false;
      ++p_;
      if (p_ == end_ || !is_digit(*p_)) fail("invalid number; expected a digit after '.'");
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !is_digit(*p_)) fail("invalid number; expected a digit in the exponent");
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    JsonDocument::Entry& e = doc_.entries_[index];
    if (integral) {
      uint64_t magnitude = 0;
      bool fits = true;
      for (const char* d = start + (negative ? 1 : 0); d != p_; ++d) {
        const auto digit = static_cast<uint64_t>(*d - '0');
        if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
          fits = false;
          break;
        }
        magnitude = magnitude * 10 + digit;
      }
      if (fits && !negative) {
        e.type = JsonDocument::Type::Unsigned;
        e.unsigned_integer = magnitude;
        return;
      }
      constexpr uint64_t kMinMagnitude = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1;
      if (fits && negative && magnitude <= kMinMagnitude) {
        e.type = JsonDocument::Type::Integer;
        e.integer = magnitude == kMinMagnitude ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(magnitude);
        return;
      }
    }
    // strtod needs a terminated copy: the text may continue with more digits' worth of anything.
    number_buffer_.assign(start, p_);
    const double number = std::strtod(number_buffer_.c_str(), nullptr);
    // nlohmann refuses numbers too large for a double (out_of_range.406).
    if (!std::isfinite(number)) {
      p_ = start;
      fail("number overflow");
    }
    e.type = JsonDocument::Type::Float;
    e.number = number;
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  const JsonDocument::Hooks& hooks_;
  JsonDocument& doc_;
  std::string number_buffer_;
};

JsonDocument JsonDocument::parse(std::string_view text, const Hooks& hooks) {
  JsonDocument doc;
  if (text.size() >= std::numeric_limits<uint32_t>::max())
    throw SyntaxError{0, "a JSON text of 4 GiB or more is not supported"};
  doc.text_ = text;
  // Compact graphs hold a value per 8 bytes or so, pretty-printed ones fewer:
  // reserved for more, the array never grows (a growth copies all of it and
  // holds both), and the pages past the last value are never touched.
  doc.entries_.reserve(text.size() / 6 + 16);
  JsonParser(text, hooks, doc).parse();
  return doc;
}

const JsonDocument::Entry* JsonDocument::find(const Entry& object, std::string_view name) const {
  if (object.type != Type::Object) return nullptr;
  const Entry* found = nullptr;
  for_each_child(object, [&](const Entry& member) {
    if (key(member) == name) found = &member;
  });
  return found;
}

std::vector<const JsonDocument::Entry*> JsonDocument::sorted_members(const Entry& object) const {
  std::vector<const Entry*> members;
  if (object.type != Type::Object) return members;
  members.reserve(object.size);
  for_each_child(object, [&](const Entry& member) { members.push_back(&member); });
  // Stable, so the last of equal keys stays last; then keep only that one.
  std::stable_sort(members.begin(), members.end(), [&](const Entry* a, const Entry* b) { return key(*a) < key(*b); });
  std::vector<const Entry*> distinct;
  distinct.reserve(members.size());
  for (size_t i = 0; i < members.size(); ++i)
    if (i + 1 == members.size() || key(*members[i]) != key(*members[i + 1])) distinct.push_back(members[i]);
  return distinct;
}

std::string_view JsonDocument::source_text(const Entry& e) const {
  const char* begin = text_.data() + e.source;
  const char* end = text_.data() + text_.size();
  const char* p = begin;
  if (*p == '{' || *p == '[') {
    // The document is valid: match brackets, skipping strings.
    int open = 0;
    for (; p != end; ++p) {
      if (*p == '"') {
        for (++p; p != end && *p != '"'; ++p)
          if (*p == '\\') ++p;
      } else if (*p == '{' || *p == '[') {
        ++open;
      } else if (*p == '}' || *p == ']') {
        if (--open == 0) return {begin, static_cast<size_t>(p + 1 - begin)};
      }
    }
    return {begin, static_cast<size_t>(end - begin)};
  }
  if (*p == '"') {
    for (++p; p != end && *p != '"'; ++p)
      if (*p == '\\') ++p;
    return {begin, static_cast<size_t>(std::min(p + 1, end) - begin)};
  }
  // A number or literal: up to the next delimiter.
  while (p != end && !is_space(*p) && *p != ',' && *p != ']' && *p != '}' && *p != '\0') ++p;
  return {begin, static_cast<size_t>(p - begin)};
}

}  // namespace fakeprop::fx
