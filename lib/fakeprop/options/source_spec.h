// Which input dims are dynamic, unbacked or static: PyTorch's
// TORCH_COMPILE_{DYNAMIC,UNBACKED,STATIC}_SOURCES grammar. Entries are
// comma-separated, spaces removed; each is an exact tensor source name or a
// regex matched at the start (re.match), optionally with ":N" for one dim.
// L[x] and x are accepted for L['x']. Static wins over unbacked over dynamic.
#pragma once
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace fakeprop {

enum class DimMark : uint8_t { Unmarked, Dynamic, Unbacked, Static };

struct SourceSpecEntry {
  std::string text;     // as written (after normalization)
  std::string pattern;  // the source part
  std::optional<int64_t> dim;
  std::regex regex;
};

class SourceSpecs {
 public:
  // Throws InputError on a malformed entry.
  void add(DimMark mark, const std::string& spec_list);
  // From TORCH_COMPILE_*_SOURCES when set.
  void add_from_environment();
  DimMark classify(const std::string& tensor_source, int64_t dim) const;
  // Entries that matched none of `sources`: InputError naming the sources that exist.
  void check_all_matched(const std::vector<std::string>& sources) const;
  bool empty() const { return entries_.empty(); }

  // "x", "L[x]" -> "L['x']"; anything else unchanged.
  static std::string normalize_source(const std::string& s);
  // PyTorch's source name of graph input `name`.
  static std::string input_source(const std::string& name);
  static std::string size_source(const std::string& tensor_source, int64_t dim);
  static std::string stride_source(const std::string& tensor_source, int64_t dim);

 private:
  struct Marked {
    DimMark mark;
    SourceSpecEntry entry;
  };
  static bool matches(const SourceSpecEntry& e, const std::string& source);
  std::vector<Marked> entries_;
};

}  // namespace fakeprop
