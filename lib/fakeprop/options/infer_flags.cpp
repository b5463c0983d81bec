#include "fakeprop/options/infer_flags.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <type_traits>

#include "fakeprop/util/error.h"

namespace fakeprop {

std::span<const InferFlag> infer_flags() {
  static const InferFlag table[] = {
      {"--dynamic", "dynamic", &InferArgs::dynamic},
      {"--unbacked", "unbacked", &InferArgs::unbacked},
      {"--static", "static", &InferArgs::static_},
      {"--mark", "marks", &InferArgs::marks},
      {"--input", "inputs", &InferArgs::inputs},
      {"--device", "device", &InferArgs::device},
      {"--log", "log", &InferArgs::log},
      {"--no-specialize-zero-one", "no_specialize_zero_one", &InferArgs::no_specialize_zero_one},
      {"--no-duck-shape", "no_duck_shape", &InferArgs::no_duck_shape},
      {"--backed-size-oblivious", "backed_size_oblivious", &InferArgs::backed_size_oblivious},
      {"--no-assume-static-by-default", "no_assume_static_by_default", &InferArgs::no_assume_static_by_default},
      {"--explain-guard", "explain_guard", &InferArgs::explain_guard},
      {"--explain-symbol", "explain_symbol", &InferArgs::explain_symbol},
      {"--op-rules", "op_rules", &InferArgs::op_rules, false},
      {"--unbacked-value", "unbacked_values", &InferArgs::unbacked_values},
      {"--real-input", "real_inputs", &InferArgs::real_inputs},
      {"--strict", "strict", &InferArgs::strict},
      {"--max-nodes", "max_nodes", &InferArgs::max_nodes},
      {"--max-program-bytes", "max_program_bytes", &InferArgs::max_program_bytes},
      {"--alloc-round", "alloc_round", &InferArgs::alloc_round},
      {"--dtype-bytes", "dtype_bytes", &InferArgs::dtype_bytes},
      {"--max-compression-ratio", "max_compression_ratio", &InferArgs::max_compression_ratio},
  };
  return table;
}

std::vector<std::string> recorded_flags(const InferArgs& args) {
  static const InferArgs defaults;
  std::vector<std::string> out;
  for (const InferFlag& f : infer_flags()) {
    if (!f.recorded) continue;
    const std::string flag(f.flag);
    std::visit(
        [&](auto member) {
          using Member = std::remove_cvref_t<decltype(args.*member)>;
          if (args.*member == defaults.*member) return;
          if constexpr (std::is_same_v<Member, bool>) {
            out.push_back(flag);
          } else if constexpr (std::is_same_v<Member, std::vector<std::string>>) {
            for (const std::string& v : args.*member) out.insert(out.end(), {flag, v});
          } else if constexpr (std::is_same_v<Member, std::string>) {
            out.insert(out.end(), {flag, args.*member});
          } else {
            out.insert(out.end(), {flag, std::to_string(args.*member)});
          }
        },
        f.member);
  }
  return out;
}

namespace {

template <typename Int>
Int parse_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const bool digits = !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-');
  const long long v = digits ? std::strtoll(text.c_str(), &end, 10) : 0;
  if (!digits || *end != '\0' || errno != 0 || (std::is_unsigned_v<Int> && v < 0))
    throw InputError(flag + " " + text + ": not a number");
  return static_cast<Int>(v);
}

}  // namespace

InferArgs args_from_flags(const std::vector<std::string>& flags) {
  InferArgs args;
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& flag = flags[i];
    const InferFlag* row = nullptr;
    for (const InferFlag& f : infer_flags())
      if (f.flag == flag) row = &f;
    if (!row) throw InputError(flag + ": not an inference option");
    std::visit(
        [&](auto member) {
          using Member = std::remove_cvref_t<decltype(args.*member)>;
          if constexpr (std::is_same_v<Member, bool>) {
            args.*member = true;
          } else {
            if (i + 1 == flags.size()) throw InputError(flag + ": needs a value");
            const std::string& value = flags[++i];
            if constexpr (std::is_same_v<Member, std::vector<std::string>>)
              (args.*member).push_back(value);
            else if constexpr (std::is_same_v<Member, std::string>)
              args.*member = value;
            else
              args.*member = parse_number<Member>(flag, value);
          }
        },
        row->member);
  }
  return args;
}

}  // namespace fakeprop
