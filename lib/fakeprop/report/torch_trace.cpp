#include "fakeprop/report/torch_trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "fakeprop/util/error.h"
#include "fakeprop/util/md5.h"
#include "fakeprop/util/output_file.h"
#include "fakeprop/value/describe_value.h"

namespace fakeprop {

namespace {

using Json = nlohmann::ordered_json;

// Where a user frame points: a node's position (1-based, the "line") and op.
struct NodePlace {
  int line;
  std::string_view op;
};

// An unbacked symbol's range when torch's ShapeEnv creates it, which its
// create_unbacked_symbol line gives (_log_create_unbacked_symbol): every
// SymInt starts unknown, [-int_oo, int_oo], whatever a mark, size-likeness or
// an op narrows it to later (those are constrain_symbol_range /
// _update_var_to_range lines in --log); a SymBool starts [0, 1], a SymFloat
// [-oo, oo]. fakeprop keeps only the final range, which a SymBool cannot leave.
std::string creation_range(const SymbolInfo& s) {
  if (s.is_float) return range_text(s);
  // A count bounded by one element ([0, 1] too) is size-like; a SymBool is not.
  if (s.range == ValueRange::boolean() && !s.size_like) return s.range.to_string();
  return ValueRange::unknown().to_string();
}

// A backed input size's range when torch's create_symbol made it, which its
// create_symbol line gives: [2, int_oo] ([0, int_oo] without 0/1
// specialization) within a mark's min/max; guards narrow it later (measured:
// chunk(2) recompiled dynamic logs [2, int_oo] though a guard then asks
// 6 <= size). Symbols that start in declared ranges (a .pt2 archive's)
// fakeprop keeps only as the final ones.
std::string backed_creation_range(const ShapeEnv& env, const SymbolInfo& s, bool declared_ranges) {
  if (s.is_float || declared_ranges || s.sources.empty() || !s.hint ||
      s.sources.front().find(".size()[") == std::string::npos)
    return range_text(s);
  ValueRange r{env.settings().specialize_zero_one ? 2 : 0, kIntOo};
  // A mark's min/max (maybe_mark_dynamic's too) bound the range it was made with.
  if (s.creation_range) r = *s.creation_range;
  else if (s.marked_range) r = r.intersect(*s.marked_range);
  if (!r.contains(*s.hint) || !r.contains(s.range.lo) || !r.contains(s.range.hi)) return range_text(s);
  return r.to_string();
}

class TraceWriter {
 public:
  TraceWriter(const std::string& model_path, const TraceClock& clock) : model_(model_path), clock_(clock) {}

  void compile(const TraceCompile& c) {
    const RunResult& r = *c.run;
    const ShapeEnv& env = *r.env;
    const size_t slash = c.id.find('/');
    frame_id_ = std::stoi(c.id.substr(0, slash));
    frame_compile_id_ = std::stoi(c.id.substr(slash + 1));
    places_.clear();
    int line = 0;
    for (const NodeRecord& n : r.nodes) places_.emplace(n.name.view(), NodePlace{++line, n.op.view()});

    if (!c.recompile_reasons.empty()) {
      // PyTorch's payload: the reason itself when there is one, else a list.
      std::string payload = c.recompile_reasons.size() == 1 ? c.recompile_reasons[0] : list_payload(c.recompile_reasons);
      emit("artifact", Json{{"name", "recompile_reasons"}, {"encoding", "json"}}, payload);
    }
    emit("dynamo_start", Json{{"stack", Json::array({Json{{"line", 1}, {"name", "forward"}, {"filename", intern(model_)}}})}});

    for (const SymbolInfo* s : env.symbols()) {
      const std::string name = s->sym->name();
      if (s->unbacked) {
        emit("create_unbacked_symbol", Json{{"symbol", name},
                                            {"node_id", ++unbacked_ids_},
                                            {"vr", creation_range(*s)},
                                            {"user_stack", user_stack(s->node)},
                                            {"stack", fakeprop_stack("create_unbacked_symint")}});
      } else {
        emit("create_symbol", Json{{"symbol", name},
                                   {"val", hint_text(*s)},
                                   {"vr", backed_creation_range(env, *s, r.symbols_in_declared_ranges)},
                                   {"source", s->sources.empty() ? std::string() : s->sources.front()},
                                   {"user_stack", user_stack(s->node)},
                                   {"stack", fakeprop_stack("create_symbol")}});
      }
    }
    for (const ShapeEnv::RealValueDecision& d : env.real_value_decisions())
      emit("propagate_real_tensors", Json{{"expr", to_sympy_string(d.expr)},
                                          {"result", d.is_int ? std::to_string(d.result) : (d.result ? "True" : "False")},
                                          {"stack", fakeprop_stack("evaluate_expr")}});
    for (const GuardRecord& g : env.guards()) guard_added(g);
    for (const GuardRecord& g : env.runtime_asserts()) guard_added(g);
    for (const SpecializationRecord& s : env.specializations()) {
      Json sources = Json::array();
      for (const std::string& src : env.info(s.sym).sources) sources.push_back(src);
      emit("symbolic_shape_specialization", Json{{"symbol", s.sym->name()},
                                                 {"sources", sources},
                                                 {"value", std::to_string(s.value)},
                                                 {"reason", s.reason},
                                                 {"stack", fakeprop_stack("set_replacement")},
                                                 {"user_stack", user_stack(s.node)}});
    }
    output_graph(r);
    const ErrorRecord* failure = first_failure(r);
    const std::vector<ProducedGuard> produced = env.produce_guards();
    // A compile whose produce_guards raises a constraint violation installs no
    // guards: Dynamo logs the guard set once the guards are built. (The
    // recompile replay counts a compile with another error as compiled.)
    if (!failure || failure->kind != ErrorKind::ConstraintViolation) {
      std::vector<std::string> guard_lines;
      for (const ProducedGuard& g : produced)
        guard_lines.push_back(Json{{"code", g.expr}, {"stack", nullptr}, {"user_stack", user_stack(g.node)}}.dump());
      emit("dynamo_guards", Json::object(), list_text(guard_lines));
    }
    if (!env.runtime_asserts().empty()) {
      Json asserts = Json::array();
      for (const GuardRecord& a : env.runtime_asserts())
        asserts.push_back(Json{{"expr", env.print_over_sources(a.expr)}, {"sym_expr", to_sympy_string(a.expr)},
                               {"node", a.node}, {"rule", a.rule}});
      emit("artifact", Json{{"name", "runtime_asserts"}, {"encoding", "json"}}, asserts.dump(1));
    }
    if (!r.errors.empty()) {
      Json errors = Json::array();
      for (const ErrorRecord& e : r.errors) {
        Json j{{"kind", error_kind_name(e.kind)}, {"message", e.message}, {"node", e.node}};
        if (!e.fixes.empty()) j["fixes"] = e.fixes;
        errors.push_back(std::move(j));
      }
      emit("artifact", Json{{"name", "fakeprop_errors"}, {"encoding", "json"}}, errors.dump(1));
    }
    if (failure) emit("artifact", Json{{"name", "dynamo_error"}, {"encoding", "string"}}, failure->message);
    metrics(c, r, produced.size(), failure);
  }

  std::string take() { return std::move(out_); }

 private:
  // The error that fails the compile: a broken dynamic promise or a
  // data-dependent error first (Dynamo's ConstraintViolationError and
  // GuardOnDataDependentSymNode), else any error but an op without a rule
  // (a graph break in Dynamo) and the inputs it left unknown.
  static const ErrorRecord* first_failure(const RunResult& r) {
    for (const ErrorKind k : {ErrorKind::ConstraintViolation, ErrorKind::DataDependent})
      for (const ErrorRecord& e : r.errors)
        if (e.kind == k) return &e;
    for (const ErrorRecord& e : r.errors)
      if (e.kind != ErrorKind::UnsupportedOp && e.kind != ErrorKind::UnknownInput) return &e;
    return nullptr;
  }

  static std::string fail_type(ErrorKind k) {
    if (k == ErrorKind::ConstraintViolation) return "ConstraintViolationError";
    if (k == ErrorKind::DataDependent) return "GuardOnDataDependentSymNode";
    return std::string(error_kind_name(k));
  }

  void guard_added(const GuardRecord& g) {
    emit("guard_added_fast", Json{{"expr", to_sympy_string(g.expr)},
                                  {"user_stack", user_stack(g.node)},
                                  {"stack", fakeprop_stack(g.rule.empty() ? "evaluate_expr" : g.rule)}});
  }

  void output_graph(const RunResult& r) {
    const ShapeEnv& env = *r.env;
    Json sizes = Json::object();
    std::string text = "graph():\n";
    for (const NodeRecord& n : r.nodes) {
      if (n.outputs.empty()) continue;
      const Value& v = n.outputs[0].val;
      if (v.is_tensor()) {
        Json dims = Json::array();
        for (const SymInt& d : v.tensor->meta.sizes) {
          const SymInt s = env.simplify(d);
          if (s.is_static())
            dims.push_back(s.value());
          else
            dims.push_back(to_sympy_string(s.expr()));
        }
        sizes[std::string(n.name.view())] = std::move(dims);
      }
      text += "    ";
      text += n.name.view();
      text += ": \"";
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        if (k) text += ", ";
        text += describe_value(n.outputs[k].val, env);
      }
      text += "\" = ";
      text += n.op.view();
      text += "\n";
    }
    emit("dynamo_output_graph", Json{{"sizes", sizes}}, text);
  }

  void metrics(const TraceCompile& c, const RunResult& r, size_t guard_count, const ErrorRecord* failure) {
    size_t ops = 0;
    for (const NodeRecord& n : r.nodes)
      if (n.op.view() != "placeholder" && n.op.view() != "get_attr") ++ops;
    const double seconds = r.dispatch.propagate_ms >= 0 ? r.dispatch.propagate_ms / 1000.0 : 0.0;
    Json m{{"compile_id", c.id},
           {"co_name", "forward"},
           {"co_filename", model_},
           {"co_firstlineno", 1},
           {"cache_size", frame_compile_id_},
           {"accumulated_cache_size", frame_compile_id_},
           {"guard_count", guard_count},
           {"shape_env_guard_count", r.env->guards().size()},
           {"graph_op_count", ops},
           {"graph_node_count", r.nodes.size()},
           {"graph_input_count", r.inputs.size()},
           {"start_time", clock_.start_time},
           {"entire_frame_compile_time_s", seconds},
           {"backend_compile_time_s", nullptr},
           {"inductor_compile_time_s", nullptr},
           {"code_gen_time_s", nullptr},
           {"fail_type", nullptr},
           {"fail_reason", nullptr},
           {"fail_user_frame_filename", nullptr},
           {"fail_user_frame_lineno", nullptr},
           {"non_compliant_ops", Json::array()},
           {"compliant_custom_ops", Json::array()},
           {"restart_reasons", Json::array()},
           {"dynamo_time_before_restart_s", 0.0},
           {"recompile_reason", c.recompile_reasons.empty() ? Json(nullptr) : Json(c.recompile_reasons[0])}};
    if (failure) {
      // tlparse needs a fail_reason wherever there is a fail_type.
      m["fail_type"] = fail_type(failure->kind);
      m["fail_reason"] = failure->message;
      if (const auto it = places_.find(failure->node); it != places_.end()) {
        m["fail_user_frame_filename"] = model_;
        m["fail_user_frame_lineno"] = it->second.line;
      }
    }
    emit("compilation_metrics", m);
  }

  Json user_stack(std::string_view node) {
    const auto it = places_.find(node);
    if (node.empty() || it == places_.end()) return nullptr;
    const NodePlace& p = it->second;
    return Json::array({Json{{"line", p.line},
                             {"name", std::string(node)},
                             {"filename", intern(model_)},
                             {"loc", std::string(node) + " = " + std::string(p.op) + "(...)"}}});
  }

  Json fakeprop_stack(std::string_view rule) {
    return Json::array({Json{{"line", 0}, {"name", std::string(rule)}, {"filename", intern("fakeprop")}}});
  }

  // A file name's id for stack frames, declared by a "str" line before its first use.
  int intern(const std::string& path) {
    auto [it, fresh] = strings_.try_emplace(path, static_cast<int>(strings_.size()));
    if (fresh) line(Json{{"str", Json::array({path, it->second})}}, nullptr);
    return it->second;
  }

  // PyTorch's payload text of a list: one JSON value per line between brackets.
  static std::string list_text(const std::vector<std::string>& items) {
    std::string s = "[\n";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ",\n" : "") + items[i];
    return s + "\n]";
  }
  static std::string list_payload(const std::vector<std::string>& items) {
    std::vector<std::string> quoted;
    for (const std::string& i : items) quoted.push_back(Json(i).dump());
    return list_text(quoted);
  }

  // An event of the compile being written; an empty payload is none.
  void emit(const char* event, Json meta, const std::string& payload = std::string()) {
    Json envelope;
    envelope[event] = std::move(meta);
    envelope["frame_id"] = frame_id_;
    envelope["frame_compile_id"] = frame_compile_id_;
    envelope["attempt"] = 0;  // tlparse files a compile's guards under attempt 0
    line(std::move(envelope), payload.empty() ? nullptr : &payload);
  }

  // One header line "V1203 08:30:27.642000 PID fakeprop/torch_trace.cpp:1] {...}", then the
  // payload's lines, each after a tab; the header carries the payload's md5.
  void line(Json envelope, const std::string* payload) {
    if (payload) envelope["has_payload"] = md5_hex(*payload);
    const double t = clock_.start_time + 1e-6 * static_cast<double>(lines_++);
    const auto whole = static_cast<time_t>(std::floor(t));
    const auto micros = static_cast<int>(std::llround((t - static_cast<double>(whole)) * 1e6)) % 1000000;
    std::tm tm{};
    localtime_r(&whole, &tm);
    char head[96];
    std::snprintf(head, sizeof head, "V%02d%02d %02d:%02d:%02d.%06d %lld fakeprop/torch_trace.cpp:1] ", tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros, static_cast<long long>(clock_.pid));
    out_ += head;
    out_ += envelope.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (payload) {
      size_t start = 0;
      while (true) {
        const size_t nl = payload->find('\n', start);
        out_ += "\n\t";
        out_.append(*payload, start, nl == std::string::npos ? std::string::npos : nl - start);
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
    out_ += '\n';
  }

  std::string model_;
  TraceClock clock_;
  std::string out_;
  size_t lines_ = 0;
  int frame_id_ = 0;
  int frame_compile_id_ = 0;
  int64_t unbacked_ids_ = 0;
  std::map<std::string, int> strings_;
  std::unordered_map<std::string_view, NodePlace> places_;
};

}  // namespace

std::string torch_trace_text(std::span<const TraceCompile> compiles, const std::string& model_path,
                             const TraceClock& clock) {
  TraceWriter w(model_path, clock);
  for (const TraceCompile& c : compiles)
    if (c.run) w.compile(c);
  return w.take();
}

std::string write_torch_trace(const std::string& dir, std::span<const TraceCompile> compiles,
                              const std::string& model_path) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir + ": cannot make the trace directory: " + ec.message());
  TraceClock clock;
  clock.pid = static_cast<int64_t>(getpid());
  clock.start_time =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const std::string text = torch_trace_text(compiles, model_path, clock);
  // mkstemps reserves a name no other run has (O_EXCL); the one writer of
  // outputs then fills it (util/output_file.h: synced, write errors reported).
  std::string path = (std::filesystem::path(dir) / "dedicated_log_torch_trace_XXXXXX.log").string();
  const int fd = mkstemps(path.data(), 4);
  if (fd < 0) throw InputError(dir + ": cannot write a trace there: " + std::strerror(errno));
  ::close(fd);
  try {
    write_output_file(path, text, {});
  } catch (const InputError&) {
    std::remove(path.c_str());
    throw;
  }
  return path;
}

}  // namespace fakeprop
