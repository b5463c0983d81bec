#include "fakeprop/graph/source_spec.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "fakeprop/util/error.h"

namespace fakeprop {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Entries longer than this are refused: std::regex recursion grows with the
// pattern, and a spec is a short list of names.
constexpr size_t kMaxPatternLength = 512;

}  // namespace

std::string SourceSpecs::input_source(const std::string& name) { return "L['" + name + "']"; }

std::string SourceSpecs::size_source(const std::string& tensor_source, int64_t dim) {
  return tensor_source + ".size()[" + std::to_string(dim) + "]";
}

std::string SourceSpecs::normalize_source(const std::string& s) {
  if (is_identifier(s) && s != "L" && s != "G") return input_source(s);
  // L[x] -> L['x'] (only when the bracket holds a bare identifier)
  if (s.size() > 3 && (s[0] == 'L' || s[0] == 'G') && s[1] == '[') {
    size_t close = s.find(']');
    if (close != std::string::npos) {
      std::string inner = s.substr(2, close - 2);
      if (is_identifier(inner)) return s.substr(0, 1) + "['" + inner + "']" + s.substr(close + 1);
    }
  }
  return s;
}

void SourceSpecs::add(DimMark mark, const std::string& spec_list) {
  std::string compact;
  for (char c : spec_list)
    if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
  size_t start = 0;
  while (start <= compact.size()) {
    size_t comma = compact.find(',', start);
    if (comma == std::string::npos) comma = compact.size();
    std::string item = compact.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    SourceSpecEntry e;
    std::string pattern = item;
    // ":N" selects one dim; a trailing ":digits" is never part of a source name.
    size_t colon = item.rfind(':');
    if (colon != std::string::npos && colon + 1 < item.size() &&
        std::all_of(item.begin() + colon + 1, item.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      pattern = item.substr(0, colon);
      const std::string digits = item.substr(colon + 1);
      if (digits.size() > 9) throw InputError("source spec '" + item + "': dimension index too large");
      e.dim = std::stoll(digits);
    }
    if (pattern.empty()) throw InputError("source spec '" + item + "': empty source name");
    if (pattern.size() > kMaxPatternLength) throw InputError("source spec '" + item.substr(0, 40) + "...': longer than 512 characters");
    e.pattern = normalize_source(pattern);
    e.text = item;
    try {
      e.regex = std::regex(e.pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error&) {
      // Not a valid regex: it can still match by exact name.
      e.regex = std::regex("(?!)");
    }
    entries_.push_back({mark, std::move(e)});
  }
}

void SourceSpecs::add_from_environment() {
  static const std::pair<const char*, DimMark> vars[] = {
      {"TORCH_COMPILE_DYNAMIC_SOURCES", DimMark::Dynamic},
      {"TORCH_COMPILE_UNBACKED_SOURCES", DimMark::Unbacked},
      {"TORCH_COMPILE_STATIC_SOURCES", DimMark::Static},
  };
  for (const auto& [var, mark] : vars)
    if (const char* v = std::getenv(var); v && *v) add(mark, v);
}

bool SourceSpecs::matches(const SourceSpecEntry& e, const std::string& source) {
  if (e.pattern == source) return true;
  try {
    // re.match: anchored at the start only.
    return std::regex_search(source, e.regex, std::regex_constants::match_continuous);
  } catch (const std::regex_error&) {
    return false;  // e.g. error_complexity on pathological patterns
  }
}

DimMark SourceSpecs::classify(const std::string& tensor_source, int64_t dim) const {
  DimMark best = DimMark::Unmarked;
  for (const auto& m : entries_) {
    if (m.entry.dim && *m.entry.dim != dim) continue;
    if (!matches(m.entry, tensor_source)) continue;
    if (static_cast<int>(m.mark) > static_cast<int>(best)) best = m.mark;
  }
  return best;
}

void SourceSpecs::check_all_matched(const std::vector<std::string>& sources) const {
  for (const auto& m : entries_) {
    bool hit = std::any_of(sources.begin(), sources.end(), [&](const std::string& s) { return matches(m.entry, s); });
    if (hit) continue;
    std::string known;
    for (const auto& s : sources) known += (known.empty() ? "" : ", ") + s;
    throw InputError("source spec '" + m.entry.text + "' matches no input; the inputs are: " +
                     (known.empty() ? "(none)" : known));
  }
}

}  // namespace fakeprop
