#include "fakeprop/report/recompile.h"

#include <algorithm>
#include <cctype>
#include <array>
#include <set>

#include "fakeprop/sym/parse.h"
#include "fakeprop/util/enum_table.h"

namespace fakeprop {

using nlohmann::json;

namespace {

std::vector<int64_t> parse_int_list(const std::string& text, const std::string& what) {
  std::string body = text;
  if (body.size() < 2 || body.front() != '[' || body.back() != ']') throw InputError(what + ": expected [d0,d1,...]");
  body = body.substr(1, body.size() - 2);
  std::vector<int64_t> out;
  size_t start = 0;
  while (!body.empty() && start <= body.size()) {
    size_t comma = body.find(',', start);
    if (comma == std::string::npos) comma = body.size();
    const std::string item = body.substr(start, comma - start);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno == ERANGE || v < 0) throw InputError(what + ": '" + item + "' is not a size");
    out.push_back(v);
    start = comma + 1;
  }
  return out;
}

}  // namespace

Call parse_call(const std::string& text_in) {
  std::string text;
  for (char c : text_in)
    if (!std::isspace(static_cast<unsigned char>(c))) text += c;
  Call call;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t eq = text.find('=', pos);
    if (eq == std::string::npos) throw InputError("--call " + text_in + ": expected NAME=[d0,...]");
    const std::string name = text.substr(pos, eq - pos);
    const size_t close = text.find(']', eq);
    if (name.empty() || close == std::string::npos) throw InputError("--call " + text_in + ": expected NAME=[d0,...]");
    CallInput in;
    in.sizes = parse_int_list(text.substr(eq + 1, close - eq), "--call " + name);
    pos = close + 1;
    while (pos < text.size() && text[pos] == ':') {
      size_t next = pos + 1;
      if (text.compare(next, 7, "stride=") == 0) {
        const size_t c2 = text.find(']', next);
        if (c2 == std::string::npos) throw InputError("--call " + text_in + ": unterminated stride list");
        in.strides = parse_int_list(text.substr(next + 7, c2 - next - 6), "--call " + name + " stride");
        pos = c2 + 1;
        continue;
      }
      size_t stop = next;
      while (stop < text.size() && text[stop] != ':' && text[stop] != ',') ++stop;
      const std::string dt = text.substr(next, stop - next);
      in.dtype = dtype_from_name(dt);
      if (!in.dtype) throw InputError("--call " + text_in + ": unknown dtype '" + dt + "'");
      pos = stop;
    }
    call[name] = std::move(in);
    if (pos < text.size()) {
      if (text[pos] != ',' && text[pos] != ';') throw InputError("--call " + text_in + ": expected ',' between inputs");
      ++pos;
    }
  }
  if (call.empty()) throw InputError("--call: empty call");
  return call;
}

std::vector<Call> parse_workload(const json& doc, const std::string& path) {
  if (!doc.is_array()) throw InputError(path + ": a workload is a JSON list of calls");
  std::vector<Call> calls;
  for (const auto& jc : doc) {
    if (!jc.is_object()) throw InputError(path + ": each call is an object {input: shape}");
    Call call;
    for (const auto& [name, v] : jc.items()) {
      CallInput in;
      const json& shape = v.is_object() ? v.value("shape", json()) : v;
      if (!shape.is_array()) throw InputError(path + ": call input '" + name + "' needs a shape list");
      for (const auto& d : shape) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) throw InputError(path + ": bad size in '" + name + "'");
        in.sizes.push_back(d.get<int64_t>());
      }
      if (v.is_object() && v.contains("dtype")) {
        in.dtype = dtype_from_name(v["dtype"].get<std::string>());
        if (!in.dtype) throw InputError(path + ": unknown dtype in '" + name + "'");
      }
      call[name] = std::move(in);
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

namespace {

// One input dim as an entry sees it: a constant, or dynamic (checked by guards).
struct EntryInput {
  DType dtype = DType::Float32;
  std::vector<std::optional<int64_t>> dims;  // nullopt: dynamic
};

struct Entry {
  std::string id;
  std::map<std::string, EntryInput> inputs;
  std::vector<ProducedGuard> guards;
  std::vector<ExprRef> parsed;  // guards over source variables
  std::map<std::string, ExprRef> source_vars;  // "L['x'].size()[0]" -> symbol __src_k
};

// Guards print over sources such as L['x'].size()[0]; rename them to variables to parse.
ExprRef parse_over_sources(const std::string& text, std::map<std::string, ExprRef>& vars) {
  std::string rewritten;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "L['") == 0) {
      size_t q = text.find("']", i + 3);
      size_t end = q == std::string::npos ? std::string::npos : text.find(']', text.find('[', q + 2) + 1);
      if (q != std::string::npos && text.compare(q + 2, 8, ".size()[") == 0 && end != std::string::npos) {
        const std::string src = text.substr(i, end + 1 - i);
        auto it = vars.find(src);
        if (it == vars.end()) it = vars.emplace(src, symbol("__src" + std::to_string(vars.size()))).first;
        rewritten += it->second->name();
        i = end + 1;
        continue;
      }
    }
    rewritten += text[i++];
  }
  return parse_expr(rewritten, [](std::string_view n) { return symbol(n); });
}

std::string source_of(const std::string& input, size_t dim) {
  return "L['" + input + "'].size()[" + std::to_string(dim) + "]";
}

// Dynamo's first failing check of an entry, or "" when the call passes.
// A guard as Dynamo states it in a recompile reason: over the frame's local
// names (x.size()[0]), not its sources (L['x'].size()[0]). A name that is not
// a Python identifier (an ONNX input such as input.1) keeps its source form.
std::string over_local_names(const std::string& guard) {
  std::string out;
  size_t i = 0;
  while (i < guard.size()) {
    const size_t at = guard.find("L['", i);
    if (at == std::string::npos) break;
    const size_t end = guard.find("']", at + 3);
    if (end == std::string::npos) break;
    const std::string name = guard.substr(at + 3, end - at - 3);
    const bool ident = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                       std::all_of(name.begin(), name.end(),
                                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    const bool starts_word = at == 0 || !(std::isalnum(static_cast<unsigned char>(guard[at - 1])) || guard[at - 1] == '_');
    out += guard.substr(i, at - i);
    out += ident && starts_word ? name : guard.substr(at, end + 2 - at);
    i = end + 2;
  }
  return out + guard.substr(i);
}

std::string first_failure(const Entry& e, const Call& call) {
  for (const auto& [name, ei] : e.inputs) {
    auto it = call.find(name);
    if (it == call.end()) continue;
    const CallInput& in = it->second;
    const DType dt = in.dtype.value_or(ei.dtype);
    if (dt != ei.dtype)
      return "tensor '" + name + "' dtype mismatch. expected " + std::string(dtype_c10_name(ei.dtype)) + ", actual " +
             std::string(dtype_c10_name(dt));
    if (in.sizes.size() != ei.dims.size())
      return "tensor '" + name + "' rank mismatch. expected " + std::to_string(ei.dims.size()) + ", actual " +
             std::to_string(in.sizes.size());
    for (size_t d = 0; d < ei.dims.size(); ++d)
      if (ei.dims[d] && *ei.dims[d] != in.sizes[d])
        return "tensor '" + name + "' size mismatch at index " + std::to_string(d) + ". expected " +
               std::to_string(*ei.dims[d]) + ", actual " + std::to_string(in.sizes[d]);
  }
  Assignment values;
  for (const auto& [src, var] : e.source_vars) {
    // src = L['name'].size()[d]
    const size_t q = src.find("']");
    const std::string name = src.substr(3, q - 3);
    const int64_t d = std::stoll(src.substr(src.rfind('[') + 1));
    auto it = call.find(name);
    if (it != call.end() && d < static_cast<int64_t>(it->second.sizes.size())) values[var] = it->second.sizes[d];
  }
  for (size_t g = 0; g < e.parsed.size(); ++g) {
    auto v = evaluate(e.parsed[g], values);
    if (v && *v == 0)
      return over_local_names(e.guards[g].expr) + (e.guards[g].node.empty() ? "" : "  # node " + e.guards[g].node);
  }
  return "";
}

}  // namespace

namespace {

constexpr std::array kCallStatuses = {
    CallStatusInfo{CallStatus::Hit, "hit"},
    CallStatusInfo{CallStatus::Compiled, "compiled"},
    CallStatusInfo{CallStatus::LimitReached, "limit_reached"},
    CallStatusInfo{CallStatus::CompileError, "compile_error"},
};
static_assert(indexed_by_enum(kCallStatuses, [](const CallStatusInfo& e) { return e.status; },
                              CallStatus::CompileError),
              "kCallStatuses is indexed by CallStatus and lists every status");

}  // namespace

std::span<const CallStatusInfo> call_statuses() { return kCallStatuses; }
std::string_view call_status_name(CallStatus s) { return kCallStatuses[static_cast<size_t>(s)].name; }

json RecompileReport::to_json() const {
  json calls_j = json::array();
  for (const auto& c : calls)
    calls_j.push_back({{"call", c.call},
                       {"status", std::string(call_status_name(c.status))},
                       {"entry", c.entry},
                       {"failures", c.failures},
                       {"zero_one_specialized", c.zero_one_specialized}});
  const double rate = calls.empty() ? 0.0 : static_cast<double>(hits) / static_cast<double>(calls.size());
  return {{"calls", calls_j},
          {"compiles", compiles},
          {"hits", hits},
          {"cache_hit_rate", rate},
          {"dynamic_dims", dynamic_dims},
          {"zero_one_recompiles", zero_one_recompiles},
          {"suggested_spec", suggested_spec}};
}

RecompileReport simulate_recompiles(const std::function<RunResult(const InferOptions&)>& infer,
                                    const InferOptions& base, const std::vector<Call>& calls,
                                    const RecompileOptions& options) {
  RecompileReport rep;
  std::vector<Entry> entries;  // oldest first; lookups go newest first, as Dynamo's cache does
  std::map<std::string, std::vector<int64_t>> first_sizes;  // automatic dynamic's frame state
  std::set<std::string> dynamic_sources;
  bool limit_hit = false;
  std::string log;

  for (size_t ci = 0; ci < calls.size(); ++ci) {
    const Call& call = calls[ci];
    CallOutcome out;
    out.call = static_cast<int>(ci);
    std::vector<std::string> failures;
    bool hit = false;
    for (size_t k = entries.size(); k-- > 0;) {
      const std::string why = first_failure(entries[k], call);
      if (why.empty()) {
        hit = true;
        out.status = CallStatus::Hit;
        out.entry = entries[k].id;
        break;
      }
      failures.push_back(entries[k].id + ": " + why);
    }
    if (hit) {
      ++rep.hits;
      rep.calls.push_back(std::move(out));
      continue;
    }
    out.failures = failures;
    // Dynamo says why before it knows whether the limit lets it compile; once
    // the limit is hit it runs the frame eagerly and says nothing more.
    if (!entries.empty() && !limit_hit) {
      log += "Recompiling function " + options.function_name + " in " + options.location + "\n";
      log += "    triggered by the following guard failure(s):\n";
      for (const auto& f : failures) log += "    - " + f + "\n";
    }
    if (static_cast<int>(entries.size()) >= options.recompile_limit) {
      out.status = CallStatus::LimitReached;
      if (!limit_hit)
        log += "torch._dynamo hit config.recompile_limit (" + std::to_string(options.recompile_limit) + ")\n" +
               "   function: '" + options.function_name + "' (" + options.location + ")\n" +
               "   last reason: " + (failures.empty() ? std::string("?") : failures.front()) + "\n";
      limit_hit = true;
      rep.calls.push_back(std::move(out));
      continue;
    }
    // Automatic dynamic: a dim whose size differs from the first call's becomes dynamic.
    for (const auto& [name, in] : call) {
      auto [it, fresh] = first_sizes.emplace(name, in.sizes);
      if (fresh) continue;
      for (size_t d = 0; d < in.sizes.size() && d < it->second.size(); ++d)
        if (in.sizes[d] != it->second[d]) dynamic_sources.insert(source_of(name, d));
    }
    InferOptions opts = base;
    for (const auto& [name, in] : call) {
      opts.input_hints[name] = in.sizes;
      if (in.dtype) opts.input_dtypes[name] = *in.dtype;
    }
    for (const auto& src : dynamic_sources) {
      const std::string tensor = src.substr(0, src.find(".size()"));
      opts.specs.add(DimMark::Dynamic, tensor + ":" + src.substr(src.rfind('[') + 1, src.size() - src.rfind('[') - 2));
    }
    opts.log_frame = "0/" + std::to_string(entries.size());
    RunResult r;
    try {
      r = infer(opts);
    } catch (const Error& err) {
      // Dynamo would trace the new shapes; a model with fixed ranks cannot take them.
      out.status = CallStatus::CompileError;
      log += "    compile failed: " + std::string(err.what()) + "\n";
      rep.calls.push_back(std::move(out));
      continue;
    }
    Entry e;
    e.id = "0/" + std::to_string(entries.size());
    for (const auto& in : r.inputs) {
      if (!in.val.is_tensor()) continue;
      EntryInput ei;
      ei.dtype = in.val.tensor->meta.dtype;
      auto it = call.find(in.name);
      if (it != call.end() && it->second.dtype) ei.dtype = *it->second.dtype;
      for (size_t d = 0; d < in.val.tensor->meta.sizes.size(); ++d) {
        SymInt s = r.env->simplify(in.val.tensor->meta.sizes[d]);
        ei.dims.push_back(s.maybe_value());
        if (s.is_static() && dynamic_sources.count(source_of(in.name, d)) && s.value() <= 1) out.zero_one_specialized = true;
      }
      e.inputs[in.name] = std::move(ei);
    }
    e.guards = r.env->produce_guards();
    for (const auto& g : e.guards) e.parsed.push_back(parse_over_sources(g.expr, e.source_vars));
    out.status = CallStatus::Compiled;
    out.entry = e.id;
    rep.compiled.push_back({e.id, std::make_shared<const RunResult>(std::move(r)), failures});
    if (out.zero_one_specialized) rep.zero_one_recompiles.push_back(e.id);
    entries.push_back(std::move(e));
    ++rep.compiles;
    rep.calls.push_back(std::move(out));
  }
  rep.dynamic_dims.assign(dynamic_sources.begin(), dynamic_sources.end());
  // Marking every dim that changed dynamic up front avoids the static first compile;
  // unbacked also avoids the 0/1 specializations.
  std::map<std::string, std::vector<std::string>> by_tensor;
  for (const auto& src : dynamic_sources)
    by_tensor[src.substr(0, src.find(".size()"))].push_back(src.substr(src.rfind('[') + 1, src.size() - src.rfind('[') - 2));
  std::string spec;
  for (const auto& [tensor, dims] : by_tensor)
    for (const auto& d : dims) spec += (spec.empty() ? "" : ",") + tensor + ":" + d;
  if (!spec.empty()) rep.suggested_spec = (rep.zero_one_recompiles.empty() ? "--dynamic \"" : "--unbacked \"") + spec + "\"";
  const double rate = calls.empty() ? 0.0 : 100.0 * rep.hits / static_cast<double>(calls.size());
  log += "summary: " + std::to_string(calls.size()) + " calls, " + std::to_string(rep.compiles) + " compiles, cache hit rate " +
         std::to_string(static_cast<int>(rate + 0.5)) + "%\n";
  if (!rep.dynamic_dims.empty()) {
    log += "  became dynamic:";
    for (const auto& d : rep.dynamic_dims) log += " " + d;
    log += "\n";
  }
  if (!rep.zero_one_recompiles.empty()) {
    log += "  recompiles from 0/1 specialization:";
    for (const auto& d : rep.zero_one_recompiles) log += " " + d;
    log += "\n";
  }
  if (!rep.suggested_spec.empty()) log += "  suggestion: " + rep.suggested_spec + " would have avoided the recompiles\n";
  rep.log = log;
  return rep;
}

}  // namespace fakeprop
