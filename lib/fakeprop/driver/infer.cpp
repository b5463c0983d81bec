#include "fakeprop/driver/infer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fakeprop/driver/front_end.h"
#include "fakeprop/fx/interpreter.h"
#include "fakeprop/util/input_file.h"

namespace fakeprop {

ModelFormat detect_format(const std::string& path) {
  // POSIX calls, not a stream: this runs before every load, and a stream's
  // buffer and locale cost more than the 256 bytes it reads.
  const InputFile file = InputFile::open(path);
  char head[256];
  ssize_t got;
  do got = ::pread(file.fd(), head, sizeof head, 0);
  while (got < 0 && errno == EINTR);
  if (got < 0) throw InputError(path + ": " + std::strerror(errno));
  const std::string_view bytes(head, static_cast<size_t>(got));
  for (const FrontEnd& fe : front_ends())
    if (fe.detect(bytes)) return fe.format;
  throw InputError(path + ": neither an ONNX model, a JSON FX graph nor a torch.export archive (.pt2)");
}

namespace {

// `external`: the other files the model names (ONNX external data), set by the run.
RunResult run_once(const std::string& path, const InferOptions& options, std::vector<std::string>& external) {
  const FrontEnd& fe = front_end(detect_format(path));
  RunResult r = fe.run(path, options, external);
  r.model_kind = fe.kind;  // front_end_of finds the front end again by it
  return r;
}

// Overflow inside a node is recorded on the node; one that escapes a run
// happened outside any (creating the graph inputs, checking declared outputs).
template <class Run>
RunResult without_overflow(const std::string& where, const Run& run) {
  try {
    return run();
  } catch (const OverflowError& e) {
    throw InputError(where + ": " + e.what() + " (sizes of the graph inputs or outputs overflow 64 bits)");
  }
}

// mark_dynamic's promise broken: PyTorch raises ConstraintViolationError.
void check_constraints(RunResult& r) {
  const std::string violations = r.env->constraint_violations();
  if (!violations.empty()) r.errors.push_back({"", ErrorKind::ConstraintViolation, violations});
}

// "L['x']:0" -> "L['x'].size()[0]"; a spec without one dim stays as written.
std::string dim_source_of(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon + 1 >= spec.size() ||
      spec.find_first_not_of("0123456789", colon + 1) != std::string::npos)
    return spec;
  return SourceSpecs::size_source(SourceSpecs::normalize_source(spec.substr(0, colon)),
                                  std::stoll(spec.substr(colon + 1)));
}

// One run plus a rerun per specialize_on predicate, each assuming it.
template <class RunOnce>
RunResult infer_with_specializations(const std::string& where, const RunOnce& run_once_with,
                                     const InferOptions& options) {
  RunResult result = without_overflow(where, [&] { return run_once_with(options); });
  check_constraints(result);
  const auto& marks = options.marks.entries();
  for (size_t i = 0; i < marks.size(); ++i) {
    for (size_t j = 0; j < marks[i].specialize_on.size(); ++j) {
      InferOptions assumed = options;
      assumed.marks.entries()[i].active_predicate = j;
      auto run = std::make_shared<RunResult>(without_overflow(where, [&] { return run_once_with(assumed); }));
      check_constraints(*run);
      result.specialized.push_back(
          {marks[i].text, describe_predicate(marks[i].specialize_on[j], dim_source_of(marks[i].spec)), std::move(run)});
    }
  }
  return result;
}

}  // namespace

RunResult infer_file(const std::string& path, const InferOptions& options) {
  std::vector<std::string> external;
  RunResult result =
      infer_with_specializations(path, [&](const InferOptions& o) { return run_once(path, o, external); }, options);
  result.input_files = options.input_files;
  result.input_files.push_back({path, "the input model"});
  for (std::string& data : external) result.input_files.push_back({std::move(data), "the model's external data"});
  return result;
}

RunResult infer_fx_graph(const fx::Graph& graph, const InferOptions& options) {
  if (graph.nodes.size() > options.max_nodes)
    throw InputError(graph.path + ": more than " + std::to_string(options.max_nodes) + " nodes (the node-count limit)");
  RunResult result = infer_with_specializations(
      graph.path, [&](const InferOptions& o) { return fx::run_graph(graph, o); }, options);
  result.input_files = options.input_files;
  return result;
}

int exit_status(const RunResult& result, bool strict) {
  for (const auto& e : result.errors)
    if (e.kind == ErrorKind::ConstraintViolation) return 1;
  if (strict)
    for (const auto& e : result.errors)
      if (fails_strict(e.kind)) return 1;
  return 0;
}

void write_annotated(const RunResult& result, const std::string& model_path, const std::string& out_path) {
  front_end_of(result).write_annotated(result, model_path, out_path);
}

}  // namespace fakeprop
