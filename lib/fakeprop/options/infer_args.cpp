#include "fakeprop/options/infer_args.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "fakeprop/util/error.h"

namespace fakeprop {

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

InferOptions InferArgs::to_options() const {
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
  for (const auto& uv : unbacked_values) {
    const size_t eq = uv.find('=');
    const std::string name = eq == std::string::npos ? "" : uv.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : uv.substr(eq + 1);
    // u<N>: the unbacked integers decisions are taken on (a zuf<N> float never is).
    const bool named = name.size() >= 2 && name[0] == 'u' && name.find_first_not_of("0123456789", 1) == std::string::npos;
    char* end = nullptr;
    errno = 0;
    const long long v = value.empty() ? 0 : std::strtoll(value.c_str(), &end, 10);
    if (!named || value.empty() || *end != '\0' || errno != 0)
      throw InputError("--unbacked-value " + uv + ": expected NAME=INT for an unbacked symbol, e.g. u0=37");
    o.unbacked_values[name] = v;
  }
  o.real_run = real_run;  // read_options sets it too for the real inputs it reads
  if (max_nodes) o.max_nodes = static_cast<size_t>(max_nodes);
  if (max_program_bytes) o.file_limits.max_program_bytes = max_program_bytes;
  if (max_compression_ratio) o.file_limits.max_compression_ratio = max_compression_ratio;
  if (alloc_round < 0) throw InputError("--alloc-round " + std::to_string(alloc_round) + ": expected a byte count >= 0");
  o.sizing.alloc_round = alloc_round;
  for (const std::string& db : dtype_bytes) {
    const size_t eq = db.find('=');
    const auto dtype = eq == std::string::npos ? std::nullopt : dtype_from_name(db.substr(0, eq));
    const std::string count = eq == std::string::npos ? "" : db.substr(eq + 1);
    char* end = nullptr;
    errno = 0;
    const long long v = count.empty() ? 0 : std::strtoll(count.c_str(), &end, 10);
    if (!dtype || count.empty() || *end != '\0' || errno != 0 || v <= 0 || v > 64)
      throw InputError("--dtype-bytes " + db + ": expected DTYPE=BYTES, e.g. float32=2");
    o.sizing.dtype_bytes[*dtype] = v;
  }
  return o;
}

}  // namespace fakeprop
