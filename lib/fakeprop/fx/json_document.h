// A small, fast JSON reader for the FX graph loader: one pass over the text
// into a flat array of entries in document order (a container is followed by
// its children), with strings left in the text unless they hold escapes. It
// accepts exactly RFC 8259 JSON as nlohmann::json::parse does (strict UTF-8 in
// strings, no comments, an optional UTF-8 byte order mark at the start, a NUL
// byte outside strings ending the input) and reads numbers the same way, so a
// graph means the same thing to both.
//
// Objects keep every member in document order; lookups follow nlohmann's
// std::map: the last of duplicate keys wins, and sorted_members() gives the
// unique keys in byte order.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fakeprop::fx {

class JsonDocument {
 public:
  enum class Type : uint8_t { Null, Bool, Integer, Unsigned, Float, String, Array, Object };

  // One value. 32 bytes: a document takes about as much memory as its text.
  struct Entry {
    Type type = Type::Null;
    bool boolean = false;
    bool string_decoded = false;  // String: text in the decoded buffer, not the input
    bool key_decoded = false;     // object member: key in the decoded buffer
    uint32_t end = 0;             // index one past this value's last descendant
    uint32_t source = 0;          // byte offset of the value in the text
    uint32_t key_offset = 0;      // object member: its key
    uint32_t key_length = 0;
    union {
      int64_t integer;    // Integer: a number written with '-' that fits int64
      uint64_t unsigned_integer;  // Unsigned: one without '-' that fits uint64
      double number;      // Float: anything else (fraction, exponent, too large)
      struct {
        uint32_t offset;
        uint32_t length;
      } string;           // String
      uint32_t size;      // Array / Object: number of children (duplicate keys counted)
    };
    Entry() : integer(0) {}
  };

  // Where parsing stopped, for messages.
  struct SyntaxError {
    size_t offset;
    std::string message;
  };

  // Checks run while parsing, so a hostile document stops early: called at
  // the start of every array or object with its depth (0 for the root) and,
  // for members of the root object, with each key as it is read. May throw.
  struct Hooks {
    std::function<void(int depth, bool is_object)> on_container;
    std::function<void(std::string_view key)> on_root_key;
  };

  // Throws SyntaxError for text that is not one JSON value (or is 4 GiB or
  // more). The document refers to `text`, which must outlive it.
  static JsonDocument parse(std::string_view text, const Hooks& hooks = {});

  const Entry& root() const { return entries_[0]; }
  const Entry& at(uint32_t index) const { return entries_[index]; }
  uint32_t index_of(const Entry& e) const { return static_cast<uint32_t>(&e - entries_.data()); }
  size_t entry_count() const { return entries_.size(); }

  std::string_view string(const Entry& e) const {
    return {(e.string_decoded ? decoded_.data() : text_.data()) + e.string.offset, e.string.length};
  }
  std::string_view key(const Entry& member) const {
    return {(member.key_decoded ? decoded_.data() : text_.data()) + member.key_offset, member.key_length};
  }
  // The children of an array or object, in document order.
  template <typename F>
  void for_each_child(const Entry& container, F&& f) const {
    for (uint32_t i = index_of(container) + 1; i < container.end; i = entries_[i].end) f(entries_[i]);
  }
  // The value of `name` in an object (the last one when repeated); nullptr if
  // absent or not an object.
  const Entry* find(const Entry& object, std::string_view name) const;
  // The values of several keys of an object in one pass over its members
  // (each the last one when repeated; nullptr when absent).
  template <size_t N>
  std::array<const Entry*, N> find_all(const Entry& object, const std::array<std::string_view, N>& names) const {
    std::array<const Entry*, N> found{};
    if (object.type != Type::Object) return found;
    for_each_child(object, [&](const Entry& member) {
      const std::string_view k = key(member);
      for (size_t i = 0; i < N; ++i)
        if (k == names[i]) {
          found[i] = &member;
          break;
        }
    });
    return found;
  }
  // An object's members, one per distinct key (the last one), sorted by key.
  std::vector<const Entry*> sorted_members(const Entry& object) const;
  // Number of distinct keys of an object (nlohmann's size()).
  size_t distinct_keys(const Entry& object) const { return sorted_members(object).size(); }
  // The value's text as written (from its first byte to its last).
  std::string_view source_text(const Entry& e) const;

 private:
  friend class JsonParser;
  std::string_view text_;
  std::string decoded_;  // strings that held escapes, decoded
  std::vector<Entry> entries_;
};

}  // namespace fakeprop::fx
