#include "cli.h"

#include <algorithm>
#include <cstdlib>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <streambuf>

#include <unistd.h>

#include "fakeprop/util/error.h"
#include "fakeprop/util/heap_trim.h"

namespace fakeprop::cli {

namespace {

// std::cout's buffer, written to file descriptor 1 with the first write
// error kept: a report lost on a full disk or a closed pipe is an error
// (exit 2), not exit 0, and the message says why.
class StdoutBuffer : public std::streambuf {
 public:
  StdoutBuffer() { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* at = pbase();
    while (at < pptr() && error_ == 0) {
      const ssize_t n = ::write(STDOUT_FILENO, at, static_cast<size_t>(pptr() - at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error_ = n < 0 ? errno : ENOSPC;
      else at += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);  // on an error the rest is dropped: the run fails anyway
    return error_ == 0;
  }

  char buffer_[1 << 16];
  int error_ = 0;
};

int flushed(int status, const StdoutBuffer& out) {
  std::cout.flush();
  if (out.error() == 0) return status;
  std::cerr << "fakeprop: error: standard output: " << std::strerror(out.error()) << "\n";
  return 2;
}

}  // namespace

void InferFlags::add_to(CLI::App& app) {
  app.add_option("--dynamic", args.dynamic, "Mark sources dynamic (backed, a symbol each); comma-separated SPEC, repeatable")
      ->type_name("SPEC");
  app.add_option("--unbacked", args.unbacked, "Mark sources unbacked (size-like, no hint)")->type_name("SPEC");
  app.add_option("--static", args.static_, "Mark sources static; wins over --unbacked and --dynamic")->type_name("SPEC");
  app.add_option("--mark", args.marks,
                 "Mark one source's dims with options, as mark_dynamic/mark_unbacked take them: "
                 "SPEC=KIND[,min=N,max=N,shape_id=ID,strict,specialize_on=PRED,hint_override=N], KIND one of "
                 "dynamic, maybe_dynamic, unbacked, static; repeatable, the last match wins")
      ->type_name("MARK");
  app.add_option("--input", args.inputs, "Example sizes (hints) for a graph input, e.g. x=8,3,224,224 (also its rank, where the model gives none); repeatable")
      ->type_name("NAME=DIMS");
  app.add_option("--device", args.device, "Device model: cpu or cuda (stride and dtype rules)")
      ->check(CLI::IsMember({"cpu", "cuda", "cuda:0"}));
  app.add_option("--log", args.log, "Trace ShapeEnv events on stderr: dynamic or +dynamic (TORCH_LOGS is honoured too)")
      ->type_name("dynamic|+dynamic");
  app.add_flag("--no-specialize-zero-one", args.no_specialize_zero_one,
               "Keep sizes whose hint is 0 or 1 symbolic (PyTorch specializes them by default)");
  app.add_flag("--no-duck-shape", args.no_duck_shape, "Give equal hints distinct symbols (no duck sizing)");
  app.add_flag("--backed-size-oblivious", args.backed_size_oblivious, "Size-oblivious reasoning for backed sizes too");
  app.add_flag("--no-assume-static-by-default", args.no_assume_static_by_default,
               "Make every dim the model fixes dynamic too (torch.compile(dynamic=True))");
  app.add_option("--explain-guard", args.explain_guard,
                 "Print the causal chain (node, rule, inputs, symbols) when the guard with this sympy text is added "
                 "(TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED)")
      ->type_name("EXPR");
  app.add_option("--explain-symbol", args.explain_symbol,
                 "Print the causal chain when these symbols are created, e.g. u0,s1 "
                 "(TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL)")
      ->type_name("NAMES");
  app.add_option("--op-rules", args.op_rules,
                 "Rules for custom operators (FX targets, ONNX domain::OpType): their outputs' dtypes, shapes, "
                 "strides, views, requirements and unbacked sizes; repeatable")
      ->type_name("FILE");
  app.add_option("--unbacked-value", args.unbacked_values,
                 "An unbacked symbol's value from a real run, e.g. u0=37: data-dependent decisions on it are taken "
                 "by it and recorded as runtime asserts (propagate_real_tensors); repeatable")
      ->type_name("NAME=INT");
  app.add_option("--real-input", args.real_inputs,
                 "A real tensor for a graph input, [NAME=]FILE.pb (TensorProto) or FILE.npy, or a test data "
                 "directory of input_<N>.pb: it fixes the input's sizes, and its elements (up to 65536) run beside "
                 "the fake values, so unbacked sizes learn their real values (propagate_real_tensors); repeatable")
      ->type_name("[NAME=]FILE");
  app.add_flag("--strict", args.strict, "Exit 1 on a data-dependent error or an unsupported operator");
  app.add_option("--max-nodes", args.max_nodes, "Refuse a model of more nodes, subgraphs and functions included (default 10000000)")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  app.add_option("--max-program-bytes", args.max_program_bytes,
                 "Refuse a JSON FX graph, or a .pt2 archive's program once inflated, of more bytes (default 1073741824)")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  app.add_option("--alloc-round", args.alloc_round,
                 "Memory figures round every storage up to a multiple of N bytes (512: CUDA's caching allocator); "
                 "default 0, exact bytes")
      ->check(CLI::NonNegativeNumber)
      ->type_name("N");
  app.add_option("--dtype-bytes", args.dtype_bytes,
                 "Memory figures count DTYPE's elements as BYTES each, e.g. float32=2 to size a float32 export in "
                 "half precision; repeatable")
      ->type_name("DTYPE=BYTES");
  app.add_option("--max-compression-ratio", args.max_compression_ratio,
                 "Refuse a .pt2 program that inflates to more than R bytes per compressed byte past its first 16 MiB "
                 "(default 50)")
      ->check(CLI::PositiveNumber)
      ->type_name("R");
}

int run(int argc, char** argv) {
  allow_heap_trimming(true);  // this process is fakeprop's own
  CLI::App app{"fakeprop: symbolic shape inference for ONNX models and FX graphs, as PyTorch's FakeTensor and ShapeEnv do it",
               "fakeprop"};
  app.set_version_flag("--version", std::string("fakeprop ") + FAKEPROP_VERSION);
  app.require_subcommand(0, 1);
  InferCommand infer;
  CLI::App* infer_app = add_infer_command(app, infer);
  CheckCommand check;
  CLI::App* check_app = add_check_command(app, check);
  PlanCommand plan;
  CLI::App* plan_app = add_plan_command(app, plan);

  // `infer` is the default subcommand: `fakeprop model.onnx ...`.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] != "infer" && args[0] != "check" && args[0] != "plan" && args[0] != "-h" && args[0] != "--help" &&
      args[0] != "--version")
    args.insert(args.begin(), "infer");
  std::reverse(args.begin(), args.end());
  StdoutBuffer out;
  struct Restore {
    std::streambuf* saved;
    ~Restore() {
      std::cout.flush();
      std::cout.rdbuf(saved);
    }
  } restore{std::cout.rdbuf(&out)};
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    // `fakeprop --help` also lists the options of the default command, which `fakeprop MODEL` takes.
    if (!infer_app->parsed() && !check_app->parsed() && !plan_app->parsed()) {
      std::cout << app.help() << "\nfakeprop MODEL [OPTIONS] runs the default command, infer:\n\n" << infer_app->help();
      return flushed(0, out);
    }
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fakeprop: error: " << e.what() << "\n";
    return 2;
  }
  try {
    if (infer_app->parsed()) return flushed(run_infer(infer), out);
    if (check_app->parsed()) return flushed(run_check(check), out);
    if (plan_app->parsed()) return flushed(run_plan(plan), out);
    std::cout << app.help();
    return 2;
  } catch (const InputError& e) {
    std::cerr << "fakeprop: error: " << e.what() << "\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "fakeprop: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fakeprop: error: internal: " << e.what() << "\n";
    return 3;
  }
}

}  // namespace fakeprop::cli
