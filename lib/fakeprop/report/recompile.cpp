#include "fakeprop/report/recompile.h"

#include <algorithm>
#include <cctype>
#include <array>
#include <set>
#include <string_view>

#include "fakeprop/sym/parse.h"
#include "fakeprop/tensor/example_strides.h"
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

// One input as an entry sees it: each dim and stride a constant, or dynamic
// (checked by guards), and the example sizes and strides it was compiled at.
struct EntryInput {
  DType dtype = DType::Float32;
  std::vector<std::optional<int64_t>> dims;     // nullopt: dynamic
  std::vector<std::optional<int64_t>> strides;  // nullopt: symbolic
  std::vector<int64_t> hint_sizes, hint_strides;  // empty when a hint is missing
};

struct Entry {
  std::string id;
  std::map<std::string, EntryInput> inputs;
  std::vector<ProducedGuard> guards;
  std::vector<ExprRef> parsed;  // guards over source variables; null when unreadable
  std::map<std::string, ExprRef> source_vars;  // "L['x'].size()[0]" -> symbol __src_k
};

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The end of a bracket group opened at text[i] ('['), quotes skipped; npos when unclosed.
size_t bracket_end(const std::string& text, size_t i) {
  char quote = 0;
  for (size_t k = i + 1; k < text.size(); ++k) {
    const char c = text[k];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == ']') {
      return k;
    }
  }
  return std::string::npos;
}

// The end of a source starting at text[i] (L[...] or G[...] and its chain of
// .attr, .method() and [k]), or i when none starts there.
size_t source_end(const std::string& text, size_t i) {
  if (i + 1 >= text.size() || (text[i] != 'L' && text[i] != 'G') || text[i + 1] != '[') return i;
  if (i > 0 && is_ident_char(text[i - 1])) return i;
  size_t k = bracket_end(text, i + 1);
  if (k == std::string::npos) return i;
  ++k;
  while (k < text.size()) {
    if (text[k] == '[') {
      const size_t close = bracket_end(text, k);
      if (close == std::string::npos) break;
      k = close + 1;
    } else if (text[k] == '.' && k + 1 < text.size() && is_ident_char(text[k + 1])) {
      size_t j = k + 1;
      while (j < text.size() && is_ident_char(text[j])) ++j;
      if (text.compare(j, 2, "()") == 0) j += 2;
      k = j;
    } else {
      break;
    }
  }
  return k;
}

// Guards print over sources such as L['x'].size()[0] and L['x'].stride()[0];
// rename them to variables to parse. Null when the text still does not parse.
ExprRef parse_over_sources(const std::string& text, std::map<std::string, ExprRef>& vars) {
  std::string rewritten;
  size_t i = 0;
  while (i < text.size()) {
    const size_t end = source_end(text, i);
    if (end > i) {
      const std::string src = text.substr(i, end - i);
      auto it = vars.find(src);
      if (it == vars.end()) it = vars.emplace(src, symbol("__src" + std::to_string(vars.size()))).first;
      rewritten += it->second->name();
      i = end;
      continue;
    }
    rewritten += text[i++];
  }
  try {
    return parse_expr(rewritten, [](std::string_view n) { return symbol(n); });
  } catch (const Error&) {
    return nullptr;
  }
}

// A size or stride source of a graph input: L['x'].size()[1] -> {"x", true, 1}.
struct DimSource {
  std::string input;
  bool is_size = true;
  size_t dim = 0;
};
std::optional<DimSource> dim_source(const std::string& src) {
  if (src.compare(0, 3, "L['") != 0) return std::nullopt;
  const size_t q = src.find("']", 3);
  if (q == std::string::npos) return std::nullopt;
  DimSource out;
  out.input = src.substr(3, q - 3);
  std::string rest = src.substr(q + 2);
  if (rest.compare(0, 8, ".size()[") == 0) {
    rest = rest.substr(8);
  } else if (rest.compare(0, 10, ".stride()[") == 0) {
    out.is_size = false;
    rest = rest.substr(10);
  } else {
    return std::nullopt;
  }
  if (rest.size() < 2 || rest.back() != ']') return std::nullopt;
  rest.pop_back();
  if (rest.empty() || rest.size() > 9 ||
      !std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  out.dim = static_cast<size_t>(std::stoull(rest));
  return out;
}

// The strides a call's tensor has: given, or dense in the memory order of
// the example the entry was compiled at; nullopt when neither says.
std::optional<std::vector<int64_t>> call_strides(const EntryInput& ei, const CallInput& in) {
  if (in.strides) return in.strides;
  if (ei.hint_sizes.empty()) return std::nullopt;
  return dense_strides_like(ei.hint_sizes, ei.hint_strides, in.sizes);
}

// An entry compiled over an unbacked size has no hint to order its dims by:
// the call it was compiled for has the sizes, and the strides at them (given,
// or the compiled strides evaluated with each size symbol at the call's size).
void hint_at_call(const ShapeEnv& env, const TensorMeta& meta, const CallInput& in, EntryInput& ei) {
  auto lookup = [&](ExprRef sym) -> std::optional<int64_t> {
    if (auto h = env.hint(sym)) return h;
    for (size_t d = 0; d < meta.sizes.size(); ++d)
      if (env.simplify(meta.sizes[d]).expr() == sym) return in.sizes[d];
    return std::nullopt;
  };
  std::vector<int64_t> strides;
  for (size_t d = 0; d < meta.strides.size(); ++d) {
    std::optional<int64_t> v;
    if (in.strides) v = (*in.strides)[d];
    else try {
        v = evaluate(env.simplify(meta.strides[d]).expr(), lookup);
      } catch (const Error&) {
      }
    if (!v) return;
    strides.push_back(*v);
  }
  ei.hint_sizes = in.sizes;
  ei.hint_strides = std::move(strides);
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
    if (auto strides = call_strides(ei, in); strides && strides->size() == ei.strides.size())
      for (size_t d = 0; d < ei.strides.size(); ++d)
        if (ei.strides[d] && *ei.strides[d] != (*strides)[d])
          return "tensor '" + name + "' stride mismatch at index " + std::to_string(d) + ". expected " +
                 std::to_string(*ei.strides[d]) + ", actual " + std::to_string((*strides)[d]);
  }
  Assignment values;
  for (const auto& [src, var] : e.source_vars) {
    const auto ds = dim_source(src);
    if (!ds) continue;
    auto it = call.find(ds->input);
    if (it == call.end()) continue;
    if (ds->is_size) {
      if (ds->dim < it->second.sizes.size()) values[var] = it->second.sizes[ds->dim];
      continue;
    }
    auto ei = e.inputs.find(ds->input);
    if (ei == e.inputs.end()) continue;
    if (auto strides = call_strides(ei->second, it->second); strides && ds->dim < strides->size())
      values[var] = (*strides)[ds->dim];
  }
  for (size_t g = 0; g < e.parsed.size(); ++g) {
    if (!e.parsed[g]) continue;  // a guard this model cannot read is not checked
    std::optional<int64_t> v;
    try {
      v = evaluate(e.parsed[g], values);
    } catch (const Error& err) {
      // Python's guard raises ZeroDivisionError (a chunk's (s + 1)//2 at a
      // size of 0), and Dynamo reports the exception as the failure.
      const std::string_view what = err.what();
      if (what.find("by zero") == std::string_view::npos) throw;
      return what.find("float") != std::string_view::npos ? "float division by zero"
                                                          : "integer division or modulo by zero";
    }
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
  std::vector<Entry> entries;  // oldest first (ids 0/0, 0/1, ...)
  // Lookup order, most recently used first, as Dynamo's cache entry list: a
  // new entry goes to the front, and so does one a call hits (move_to_front).
  std::vector<size_t> order;
  std::map<std::string, std::vector<int64_t>> first_sizes;  // automatic dynamic's frame state
  std::set<std::string> dynamic_sources;
  bool limit_hit = false;
  std::string log;
  std::set<std::string> ignored;  // call arguments the graph does not take, each said once

  for (size_t ci = 0; ci < calls.size(); ++ci) {
    Call call = calls[ci];
    std::vector<std::string> frame_inputs;
    if (options.graph_inputs)
      std::erase_if(call, [&](const auto& in) {
        if (options.graph_inputs->count(in.first)) return false;
        if (options.takes_frame_inputs) {
          frame_inputs.push_back(in.first);
          return false;
        }
        if (ignored.insert(in.first).second)
          log += "call " + std::to_string(ci) + ": '" + in.first + "' is not an input of the graph; ignored\n";
        return true;
      });
    CallOutcome out;
    out.call = static_cast<int>(ci);
    std::vector<std::string> failures;
    bool hit = false;
    for (size_t i = 0; i < order.size(); ++i) {
      const Entry& e = entries[order[i]];
      const std::string why = first_failure(e, call);
      if (why.empty()) {
        hit = true;
        out.status = CallStatus::Hit;
        out.entry = e.id;
        std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(i), order.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        break;
      }
      failures.push_back(e.id + ": " + why);
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
    opts.frame_inputs = frame_inputs;
    for (const auto& [name, in] : call) {
      opts.input_hints[name] = in.sizes;
      if (in.dtype) opts.input_dtypes[name] = *in.dtype;
      if (in.strides) opts.input_strides[name] = *in.strides;
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
    // torch.compile raises a ConstraintViolationError to the caller: nothing
    // is cached and the program stops at this call.
    const auto violation = std::find_if(r.errors.begin(), r.errors.end(),
                                        [](const ErrorRecord& er) { return er.kind == ErrorKind::ConstraintViolation; });
    if (violation != r.errors.end()) {
      out.status = CallStatus::CompileError;
      log += "    compile failed: " + violation->message.substr(0, violation->message.find('\n')) +
             " (the program stops at this call)\n";
      rep.compiled.push_back({opts.log_frame, std::make_shared<const RunResult>(std::move(r)), failures});
      rep.calls.push_back(std::move(out));
      break;
    }
    Entry e;
    e.id = "0/" + std::to_string(entries.size());
    for (const auto& in : r.inputs) {
      if (!in.val.is_tensor()) continue;
      EntryInput ei;
      ei.dtype = in.val.tensor->meta.dtype;
      auto it = call.find(in.name);
      if (it != call.end() && it->second.dtype) ei.dtype = *it->second.dtype;
      const TensorMeta& meta = in.val.tensor->meta;
      bool hinted = meta.strides.size() == meta.sizes.size();
      for (size_t d = 0; d < meta.sizes.size(); ++d) {
        SymInt s = r.env->simplify(meta.sizes[d]);
        ei.dims.push_back(s.maybe_value());
        if (s.is_static() && dynamic_sources.count(source_of(in.name, d)) && s.value() <= 1) out.zero_one_specialized = true;
        const auto size_hint = r.env->hint(meta.sizes[d]);
        const auto stride_hint = hinted ? r.env->hint(meta.strides[d]) : std::nullopt;
        hinted = size_hint && stride_hint;
        if (hinted) {
          ei.hint_sizes.push_back(*size_hint);
          ei.hint_strides.push_back(*stride_hint);
        }
      }
      if (!hinted) ei.hint_sizes.clear(), ei.hint_strides.clear();
      if (!hinted && it != call.end() && it->second.sizes.size() == meta.sizes.size() &&
          meta.strides.size() == meta.sizes.size())
        hint_at_call(*r.env, meta, it->second, ei);
      // A front end that takes no strides (ONNX) compiled other ones than the
      // call gave: checking them would miss every time.
      const bool took_strides = !(it != call.end() && it->second.strides && *it->second.strides != ei.hint_strides);
      if (took_strides && meta.strides.size() == meta.sizes.size())
        for (const SymInt& st : meta.strides) ei.strides.push_back(r.env->simplify(st).maybe_value());
      e.inputs[in.name] = std::move(ei);
    }
    e.guards = r.env->produce_guards();
    for (const auto& g : e.guards) e.parsed.push_back(parse_over_sources(g.expr, e.source_vars));
    out.status = CallStatus::Compiled;
    out.entry = e.id;
    rep.compiled.push_back({e.id, std::make_shared<const RunResult>(std::move(r)), failures});
    if (out.zero_one_specialized) rep.zero_one_recompiles.push_back(e.id);
    order.insert(order.begin(), entries.size());
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
