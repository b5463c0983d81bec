#include "fakeprop/options/infer_flags.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <type_traits>

#include "fakeprop/util/error.h"

namespace fakeprop {

std::span<const InferFlag> infer_flags() {
  using C = InferFlag::Check;
  static const InferFlag table[] = {
      {"--dynamic", "dynamic", "dynamic", &InferArgs::dynamic, "SPEC",
       "Mark sources dynamic (backed, a symbol each); comma-separated SPEC, repeatable"},
      {"--unbacked", "unbacked", "unbacked", &InferArgs::unbacked, "SPEC", "Mark sources unbacked (size-like, no hint)"},
      {"--static", "static", "static", &InferArgs::static_, "SPEC",
       "Mark sources static; wins over --unbacked and --dynamic"},
      {"--mark", "marks", "marks", &InferArgs::marks, "MARK",
       "Mark one source's dims with options, as mark_dynamic/mark_unbacked take them: "
       "SPEC=KIND[,min=N,max=N,shape_id=ID,strict,specialize_on=PRED,hint_override=N], KIND one of "
       "dynamic, maybe_dynamic, unbacked, static; repeatable, marks of one dim combine as torch's calls do"},
      {"--input", "inputs", "inputs", &InferArgs::inputs, "NAME=DIMS",
       "Example sizes (hints) for a graph input, e.g. x=8,3,224,224 (also its rank, where the model gives none); "
       "repeatable"},
      {"--device", "device", "device", &InferArgs::device, "", "Device model: cpu or cuda (stride and dtype rules)",
       C::Device},
      {"--log", "log", "log", &InferArgs::log, "dynamic|+dynamic",
       "Trace ShapeEnv events on stderr: dynamic or +dynamic (TORCH_LOGS is honoured too)"},
      {"--no-specialize-zero-one", "specialize_zero_one", "no_specialize_zero_one", &InferArgs::no_specialize_zero_one,
       "", "Keep sizes whose hint is 0 or 1 symbolic (PyTorch specializes them by default)"},
      {"--no-duck-shape", "duck_shape", "no_duck_shape", &InferArgs::no_duck_shape, "",
       "Give equal hints distinct symbols (no duck sizing)"},
      {"--backed-size-oblivious", "backed_size_oblivious", "backed_size_oblivious", &InferArgs::backed_size_oblivious,
       "", "Size-oblivious reasoning for backed sizes too"},
      {"--no-assume-static-by-default", "assume_static_by_default", "no_assume_static_by_default",
       &InferArgs::no_assume_static_by_default, "",
       "Make every dim the model fixes dynamic too (torch.compile(dynamic=True))"},
      {"--explain-guard", "explain_guard", "explain_guard", &InferArgs::explain_guard, "EXPR",
       "Print the causal chain (node, rule, inputs, symbols) when the guard with this sympy text is added "
       "(TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED)"},
      {"--explain-symbol", "explain_symbol", "explain_symbol", &InferArgs::explain_symbol, "NAMES",
       "Print the causal chain when these symbols are created, e.g. u0,s1 "
       "(TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL)"},
      {"--op-rules", "op_rules", "op_rules", &InferArgs::op_rules, "FILE",
       "Rules for custom operators (FX targets, or their torch.library schemas; ONNX domain::OpType): "
       "their outputs' dtypes, shapes, strides, views, requirements and unbacked sizes; repeatable",
       C::None, false},
      {"--unbacked-value", "unbacked_values", "unbacked_values", &InferArgs::unbacked_values, "NAME=INT",
       "An unbacked symbol's value from a real run, e.g. u0=37: data-dependent decisions on it are taken "
       "by it and recorded as runtime asserts (propagate_real_tensors); repeatable"},
      {"--real-input", "real_inputs", "real_inputs", &InferArgs::real_inputs, "[NAME=]FILE",
       "A real tensor for a graph input, [NAME=]FILE.pb (TensorProto) or FILE.npy, or a test data "
       "directory of input_<N>.pb: it fixes the input's sizes, and its elements (up to 65536) run beside "
       "the fake values, so unbacked sizes learn their real values (propagate_real_tensors); repeatable"},
      {"--strict", "strict", "strict", &InferArgs::strict, "", "Exit 1 on a data-dependent error or an unsupported operator"},
      {"--max-nodes", "max_nodes", "max_nodes", &InferArgs::max_nodes, "N",
       "Refuse a model of more nodes, subgraphs and functions included (default 10000000)", C::Positive},
      {"--max-program-bytes", "max_program_bytes", "max_program_bytes", &InferArgs::max_program_bytes, "N",
       "Refuse a JSON FX graph, or a .pt2 archive's program once inflated, of more bytes (default 1073741824)",
       C::Positive},
      {"--alloc-round", "alloc_round", "alloc_round", &InferArgs::alloc_round, "N",
       "Memory figures round every storage up to a multiple of N bytes (512: CUDA's caching allocator); "
       "default 0, exact bytes",
       C::NonNegative},
      {"--dtype-bytes", "dtype_bytes", "dtype_bytes", &InferArgs::dtype_bytes, "DTYPE=BYTES",
       "Memory figures count DTYPE's elements as BYTES each, e.g. float32=2 to size a float32 export in "
       "half precision; repeatable"},
      {"--max-compression-ratio", "max_compression_ratio", "max_compression_ratio", &InferArgs::max_compression_ratio,
       "R",
       "Refuse a .pt2 program that inflates to more than R bytes per compressed byte past its first 16 MiB "
       "(default 50)",
       C::Positive},
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
