#include "fakeprop/util/json_writer.h"

#include <algorithm>
#include <charconv>

#include "fakeprop/util/utf8.h"

namespace fakeprop {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t plain = 0;  // start of the run of bytes copied as they are
  auto flush = [&](size_t end) { out.append(text.data() + plain, end - plain); };
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (const size_t n = utf8_sequence_at(text, i)) {
        i += n;
        continue;
      }
      flush(i);
      out.append("\xef\xbf\xbd");  // U+FFFD
      plain = ++i;
      continue;
    }
    flush(i);
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        out.append("\\u00");
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xf]);
    }
    plain = ++i;
  }
  flush(text.size());
  out.push_back('"');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& l = levels_.back();
  if (compact_) {
    if (l.count++) out_.push_back(',');
    return;
  }
  out_.append(l.count++ ? ",\n" : "\n");
  indent(levels_.size());
}

void JsonWriter::write_key(std::string_view k) {
  Level& l = levels_.back();
  const size_t depth = levels_.size();
  // Keys are short plain words: separator, indent, quotes and colon in one append.
  char buf[160];
  const size_t n = 2 + depth * 2 + k.size() + 4;
  const bool plain = !compact_ && n <= sizeof buf && std::all_of(k.begin(), k.end(), [](char c) {
                       const auto u = static_cast<unsigned char>(c);
                       return u >= 0x20 && u < 0x80 && c != '"' && c != '\\';
                     });
  if (plain) {
    char* p = buf;
    if (l.count) *p++ = ',';
    *p++ = '\n';
    p = std::fill_n(p, depth * 2, ' ');
    *p++ = '"';
    p = std::copy(k.begin(), k.end(), p);
    *p++ = '"';
    *p++ = ':';
    *p++ = ' ';
    out_.append(buf, static_cast<size_t>(p - buf));
  } else if (compact_) {
    if (l.count) out_.push_back(',');
    append_json_string(out_, k);
    out_.push_back(':');
  } else {
    out_.append(l.count ? ",\n" : "\n");
    indent(depth);
    append_json_string(out_, k);
    out_.append(": ");
  }
  ++l.count;
  after_key_ = true;
}

void JsonWriter::open(bool object) {
  before_value();
  out_.push_back(object ? '{' : '[');
  levels_.push_back({object, 0});
}

void JsonWriter::close(bool object) {
  const bool empty = levels_.back().count == 0;
  levels_.pop_back();
  if (!empty && !compact_) {
    out_.push_back('\n');
    indent(levels_.size());
  }
  out_.push_back(object ? '}' : ']');
  if (sink_ && out_.size() >= chunk_) finish();
}

void JsonWriter::finish() {
  if (!sink_ || out_.empty()) return;
  sink_(out_);
  out_.clear();
}

void JsonWriter::write_string(std::string_view s) {
  before_value();
  append_json_string(out_, s);
}

void JsonWriter::write_bool(bool b) {
  before_value();
  out_.append(b ? "true" : "false");
}

void JsonWriter::write_null() {
  before_value();
  out_.append("null");
}

void JsonWriter::write_int(int64_t i) {
  before_value();
  char buf[24];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, i).ptr);
}

void JsonWriter::write_uint(uint64_t i) {
  before_value();
  char buf[24];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, i).ptr);
}

void JsonWriter::write_double(double d) {
  before_value();
  out_.append(nlohmann::json(d).dump());  // nlohmann's shortest round-trip form ("1.0", "null" for NaN)
}

DocumentWriter& DocumentWriter::value(const std::vector<std::string>& xs) {
  begin_array();
  for (const auto& x : xs) value(x);
  return end_array();
}

DocumentWriter& DocumentWriter::value(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object:
      begin_object();
      for (const auto& [k, v] : j.items()) key(k).value(v);
      return end_object();
    case nlohmann::json::value_t::array:
      begin_array();
      for (const auto& v : j) value(v);
      return end_array();
    case nlohmann::json::value_t::string: return value(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::boolean: return value(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return value(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return value(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return value(j.get<double>());
    default: return null();
  }
}

}  // namespace fakeprop
