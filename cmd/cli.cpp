#include "cli.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "fakeprop/util/error.h"

namespace fakeprop::cli {

namespace {

std::vector<int64_t> parse_dims(const std::string& name, const std::string& text) {
  std::vector<int64_t> dims;
  size_t start = 0;
  std::string body = text;
  if (!body.empty() && body.front() == '[' && body.back() == ']') body = body.substr(1, body.size() - 2);
  if (body.empty()) return dims;  // a scalar
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    if (comma == std::string::npos) comma = body.size();
    std::string item = body.substr(start, comma - start);
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno == ERANGE || v < 0)
      throw InputError("--input " + name + "=" + text + ": '" + item + "' is not a size (a non-negative integer)");
    dims.push_back(v);
    start = comma + 1;
  }
  return dims;
}

}  // namespace

void InferFlags::add_to(CLI::App& app) {
  app.add_option("--dynamic", dynamic, "Mark sources dynamic (backed); comma-separated SPEC, repeatable")
      ->type_name("SPEC");
  app.add_option("--unbacked", unbacked, "Mark sources unbacked (size-like, no hint)")->type_name("SPEC");
  app.add_option("--static", static_, "Mark sources static; wins over --unbacked and --dynamic")->type_name("SPEC");
  app.add_option("--mark", marks,
                 "Mark one source's dims with options, as mark_dynamic/mark_unbacked take them: "
                 "SPEC=KIND[,min=N,max=N,shape_id=ID,strict,specialize_on=PRED,hint_override=N], KIND one of "
                 "dynamic, maybe_dynamic, unbacked, static; repeatable, the last match wins")
      ->type_name("MARK");
  app.add_option("--input", inputs, "Example sizes (hints) for a graph input, e.g. x=8,3,224,224; repeatable")
      ->type_name("NAME=DIMS");
  app.add_option("--device", device, "Device model: cpu or cuda (stride and dtype rules)")
      ->check(CLI::IsMember({"cpu", "cuda", "cuda:0"}));
  app.add_option("--log", log, "Trace ShapeEnv events on stderr: dynamic or +dynamic (TORCH_LOGS is honoured too)")
      ->type_name("dynamic|+dynamic");
  app.add_flag("--no-specialize-zero-one", no_specialize_zero_one,
               "Keep sizes whose hint is 0 or 1 symbolic (PyTorch specializes them by default)");
  app.add_flag("--no-duck-shape", no_duck_shape, "Give equal hints distinct symbols (no duck sizing)");
  app.add_flag("--backed-size-oblivious", backed_size_oblivious, "Size-oblivious reasoning for backed sizes too");
  app.add_flag("--no-assume-static-by-default", no_assume_static_by_default,
               "Make every dim the model fixes dynamic too (torch.compile(dynamic=True))");
  app.add_option("--explain-guard", explain_guard,
                 "Print the causal chain (node, rule, inputs, symbols) when the guard with this sympy text is added "
                 "(TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED)")
      ->type_name("EXPR");
  app.add_option("--explain-symbol", explain_symbol,
                 "Print the causal chain when these symbols are created, e.g. u0,s1 "
                 "(TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL)")
      ->type_name("NAMES");
  app.add_flag("--strict", strict, "Exit 1 on a data-dependent error or an unsupported operator");
}

InferOptions InferFlags::to_options() const {
  InferOptions o;
  auto device_opt = Device::parse(device);
  if (!device_opt) throw InputError("--device " + device + ": expected cpu or cuda");
  o.device = *device_opt;
  for (const auto& s : static_) o.specs.add(DimMark::Static, s);
  for (const auto& s : unbacked) o.specs.add(DimMark::Unbacked, s);
  for (const auto& s : dynamic) o.specs.add(DimMark::Dynamic, s);
  for (const auto& m : marks) o.marks.add(m);
  o.assume_static_by_default = !no_assume_static_by_default;
  o.explain_guard = explain_guard;
  if (o.explain_guard.empty())
    if (const char* env = std::getenv("TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED")) o.explain_guard = env;
  std::string symbols = explain_symbol;
  if (symbols.empty())
    if (const char* env = std::getenv("TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL")) symbols = env;
  for (size_t start = 0; start < symbols.size();) {
    size_t comma = symbols.find(',', start);
    if (comma == std::string::npos) comma = symbols.size();
    std::string name = symbols.substr(start, comma - start);
    name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
    if (!name.empty()) o.explain_symbols.push_back(name);
    start = comma + 1;
  }
  o.specs.add_from_environment();
  for (const auto& in : inputs) {
    size_t eq = in.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--input " + in + ": expected NAME=DIMS, e.g. x=8,3,224,224");
    std::string name = in.substr(0, eq);
    o.input_hints[name] = parse_dims(name, in.substr(eq + 1));
  }
  o.settings.specialize_zero_one = !no_specialize_zero_one;
  o.settings.duck_shape = !no_duck_shape;
  o.settings.backed_size_oblivious = backed_size_oblivious;
  std::string logs = log;
  if (logs.empty())
    if (const char* env = std::getenv("TORCH_LOGS")) logs = env;
  o.log_level = parse_torch_logs(logs);
  if (!log.empty() && o.log_level == LogLevel::Off) throw InputError("--log " + log + ": expected dynamic or +dynamic");
  return o;
}

int run(int argc, char** argv) {
  CLI::App app{"fakeprop: symbolic shape inference for ONNX models and FX graphs, as PyTorch's FakeTensor and ShapeEnv do it",
               "fakeprop"};
  app.set_version_flag("--version", std::string("fakeprop ") + FAKEPROP_VERSION);
  app.require_subcommand(0, 1);
  InferCommand infer;
  CLI::App* infer_app = add_infer_command(app, infer);
  CheckCommand check;
  CLI::App* check_app = add_check_command(app, check);

  // `infer` is the default subcommand: `fakeprop model.onnx ...`.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] != "infer" && args[0] != "check" && args[0] != "-h" && args[0] != "--help" &&
      args[0] != "--version")
    args.insert(args.begin(), "infer");
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fakeprop: error: " << e.what() << "\n";
    return 2;
  }
  try {
    if (infer_app->parsed()) return run_infer(infer);
    if (check_app->parsed()) return run_check(check);
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
