#include "fakeprop/options/source_spec.h"

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

// Entries longer than this are exact names only, never compiled as regexes:
// std::regex's compiler recursion grows with the pattern.
constexpr size_t kMaxPatternLength = 512;
// Counted repetitions ({n}, {n,m}) copy their operand n or m times when the
// regex is compiled; the product of all bounds in one pattern is capped so
// that ((a{1000}){1000}){1000} is refused instead of exhausting memory.
constexpr uint64_t kMaxRepetitionProduct = 10000;
// Regexes are matched against source names up to this length. Matching runs
// in polynomial time (see make_regex), but a longer name is refused with a
// clear error rather than matched slowly; exact names of any length match.
constexpr size_t kMaxRegexSubjectLength = 4096;

// The product of the counted-repetition bounds in `pattern` (saturating).
uint64_t repetition_product(const std::string& pattern) {
  uint64_t product = 1;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      ++i;
      continue;
    }
    if (pattern[i] != '{') continue;
    uint64_t bound = 0;
    bool digits = false;
    for (size_t j = i + 1; j < pattern.size() && pattern[j] != '}'; ++j) {
      const char c = pattern[j];
      if (c == ',') {
        bound = 0;  // the upper bound (or the lower one when open-ended) counts
        continue;
      }
      if (!std::isdigit(static_cast<unsigned char>(c))) break;
      digits = true;
      bound = std::min<uint64_t>(bound * 10 + static_cast<uint64_t>(c - '0'), kMaxRepetitionProduct + 1);
    }
    if (digits) product = std::min<uint64_t>(product * std::max<uint64_t>(bound, 1), kMaxRepetitionProduct + 1);
  }
  return product;
}

// libstdc++'s default executor backtracks: (a*)*b takes exponential time and
// its recursion depth grows with the subject, so a long name can overflow the
// stack. __polynomial selects its breadth-first (Thompson) executor, linear
// in the subject for a fixed pattern; it rejects back-references, which then
// leave the entry an exact name, like any pattern that is not a valid regex.
std::regex make_regex(const std::string& pattern) {
  const auto flags = std::regex::ECMAScript | std::regex_constants::__polynomial;
  // A back-reference is refused before libstdc++ sees it: its compiler reads
  // the number with signed overflow (UB) before __polynomial rejects it.
  for (size_t i = 0; i + 1 < pattern.size(); ++i)
    if (pattern[i] == '\\') {
      if (pattern[i + 1] >= '1' && pattern[i + 1] <= '9') return std::regex("(?!)", flags);
      ++i;
    }
  try {
    return std::regex(pattern, flags);
  } catch (const std::regex_error&) {
    return std::regex("(?!)", flags);  // matches nothing
  }
}

}  // namespace

std::string SourceSpecs::input_source(const std::string& name) { return "L['" + name + "']"; }

std::string SourceSpecs::size_source(const std::string& tensor_source, int64_t dim) {
  return tensor_source + ".size()[" + std::to_string(dim) + "]";
}

std::string SourceSpecs::stride_source(const std::string& tensor_source, int64_t dim) {
  return tensor_source + ".stride()[" + std::to_string(dim) + "]";
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
    e.pattern = normalize_source(pattern);
    e.text = item;
    if (e.pattern.size() > kMaxPatternLength) {
      // Too long to compile as a regex (its compiler recurses); still an exact name.
      e.regex = make_regex("(?!)");
    } else {
      if (repetition_product(e.pattern) > kMaxRepetitionProduct)
        throw InputError("source spec '" + item.substr(0, 80) + "': counted repetitions ({n}) multiply to more than " +
                         std::to_string(kMaxRepetitionProduct));
      // Not a valid regex: it can still match by exact name.
      e.regex = make_regex(e.pattern);
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
  if (source.size() > kMaxRegexSubjectLength)
    throw InputError("source spec '" + e.text.substr(0, 80) + "': the source name '" + source.substr(0, 40) + "...' has " +
                     std::to_string(source.size()) + " characters; regular expressions are matched against names of at most " +
                     std::to_string(kMaxRegexSubjectLength) + " (give the name exactly)");
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
