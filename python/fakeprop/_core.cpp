// fakeprop._core: the library behind the CLI, as a Python extension. It holds
// no logic of its own: Python's keyword arguments fill the same InferArgs the
// CLI's flags fill, and a run returns the same report and exit status the CLI
// would print and return (as JSON text for files, as Python objects for a
// graph read in process).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>

#include "fakeprop/driver/check.h"
#include "fakeprop/driver/infer.h"
#include "fakeprop/driver/plan.h"
#include "fakeprop/driver/read_options.h"
#include "fakeprop/driver/request.h"
#include "fakeprop/options/infer_args.h"
#include "fakeprop/options/infer_flags.h"
#include "fakeprop/report/report.h"
#include "fakeprop/sym/expr.h"
#include "fakeprop/util/error.h"
#include "fakeprop/util/heap_trim.h"
#include "py_document.h"
#include "torch_graph.h"

namespace py = pybind11;

namespace fakeprop {
namespace {

std::string string_item(const py::dict& d, const char* key) {
  PyObject* v = PyDict_GetItemString(d.ptr(), key);  // borrowed; no error set
  return v ? py::handle(v).cast<std::string>() : std::string();
}

// One pass over the entries the package set (api.py's _args leaves out the
// defaults), so a call with no options costs no lookups. The keys are the
// option table's (options/infer_flags.h), plus the package's own.
InferArgs args_from(const py::dict& d) {
  static const std::unordered_map<std::string_view, const InferFlag*> by_key = [] {
    std::unordered_map<std::string_view, const InferFlag*> m;
    for (const InferFlag& f : infer_flags()) m.emplace(f.key, &f);
    return m;
  }();
  InferArgs a;
  for (const auto& entry : d) {
    const py::handle key = entry.first, value = entry.second;
    const std::string name = key.cast<std::string>();
    if (name == "real_input_arrays") {
      for (auto item : value.cast<py::list>()) {
        auto pair = item.cast<py::tuple>();
        a.real_input_arrays.emplace_back(pair[0].cast<std::string>(), pair[1].cast<std::string>());
      }
      continue;
    }
    if (name == "real_run") {
      a.real_run = value.cast<bool>();
      continue;
    }
    if (name == "output" || name == "html" || name == "calls" || name == "workload" || name == "trace_dir" ||
        name == "stats" || name == "recompile_limit")
      continue;  // the request's (report_of)
    auto it = by_key.find(name);
    if (it == by_key.end()) throw py::key_error("fakeprop._core: unknown option " + name);
    std::visit(
        [&](auto member) { a.*member = value.cast<std::remove_reference_t<decltype(a.*member)>>(); },
        it->second->member);
  }
  return a;
}

// The report (as Python objects) and the CLI's exit status of a run over
// the file `path`: the request the CLI's `infer` makes (driver/request.h),
// with its outputs, calls, workload, trace and stats from `args`. The GIL is
// released while the run works: it touches no Python object.
py::tuple report_of(const std::string& path, const py::dict& args) {
  const InferArgs a = args_from(args);
  InferRequest req;
  req.model = path;
  req.output_path = string_item(args, "output");
  req.html_path = string_item(args, "html");
  req.workload_path = string_item(args, "workload");
  req.trace_dir = string_item(args, "trace_dir");
  if (args.contains("calls")) req.calls = args["calls"].cast<std::vector<std::string>>();
  if (args.contains("stats")) req.stats = args["stats"].cast<bool>();
  if (args.contains("recompile_limit")) req.recompile_limit = args["recompile_limit"].cast<int>();
  InferOutcome outcome;
  {
    py::gil_scoped_release release;
    req.options = read_options(a);
    outcome = run_request(req);
  }
  python::PyDocumentWriter w;
  write_report(*outcome.result, outcome.extra, w);
  return py::make_tuple(w.take(), exit_status(*outcome.result, a.strict));
}

// `fakeprop check` over model files: the request driver/check.h runs for
// the CLI, with its options from `args` and its own from `check`. Returns
// (the --json document's text, the summary the CLI prints, the exit code).
py::tuple check_of(const std::vector<std::string>& models, const py::dict& args, const py::dict& check) {
  CheckRequest req;
  req.models = models;
  req.args = args_from(args);
  req.baseline = string_item(check, "baseline");
  req.shard = string_item(check, "shard");
  if (check.contains("update")) req.update = check["update"].cast<bool>();
  if (check.contains("nodes")) req.nodes = check["nodes"].cast<bool>();
  if (check.contains("jobs")) req.jobs = check["jobs"].cast<unsigned>();
  if (check.contains("max_peak_growth")) req.max_peak_growth = check["max_peak_growth"].cast<double>();
  CheckOutcome outcome;
  {
    py::gil_scoped_release release;
    outcome = run_check(req);
  }
  return py::make_tuple(outcome.document().dump(2) + "\n", outcome.summary(), outcome.exit_code);
}

PlanRequest plan_request(const std::string& where, const py::dict& plan) {
  PlanRequest req;
  req.model = where;
  req.budget = string_item(plan, "budget");
  req.html_path = string_item(plan, "html");
  for (const char* key : {"solve", "at", "set"})
    if (plan.contains(key)) {
      auto xs = plan[key].cast<std::vector<std::string>>();
      (std::string_view(key) == "solve" ? req.solve : std::string_view(key) == "at" ? req.at : req.set) = std::move(xs);
    }
  return req;
}

// `fakeprop plan` over the file `path`: (the plan as JSON text, its exit status).
py::tuple plan_of(const std::string& path, const py::dict& args, const py::dict& plan) {
  const InferArgs a = args_from(args);
  PlanRequest req = plan_request(path, plan);
  PlanOutcome outcome;
  {
    py::gil_scoped_release release;
    req.options = read_options(a);
    outcome = run_plan(req);
  }
  return py::make_tuple(outcome.report.dump(), outcome.status);
}

// A torch.fx graph read in process (torch_graph.h), ready to run.
using FxProgram = python::TorchGraph;

// The report as Python objects and the CLI's exit status; with `attach`,
// node.meta["fakeprop"] on every node of the torch.fx graph it was read from.
// A call that fails falls back to its declared value, as in the CLI's run
// of the program's .pt2; those values are read only for the calls that
// failed, and the run is made again until no failed call has one unread.
py::tuple run_program(FxProgram& program, const py::dict& args, bool attach) {
  const InferArgs a = args_from(args);
  const InferOptions options = read_options(a);
  auto run = [&] {
    py::gil_scoped_release release;
    return infer_fx_graph(program.graph, options);
  };
  RunResult result = run();
  for (size_t rounds = 0; rounds < program.graph.nodes.size(); ++rounds) {
    std::vector<std::string> failed;
    for (const ErrorRecord& e : result.errors)
      if (!e.node.empty()) failed.push_back(e.node);
    if (!python::declared_examples(program, failed)) break;
    result = run();
  }
  const int status = exit_status(result, a.strict);
  py::object report;
  {
    python::PyDocumentWriter w;
    write_report(result, nlohmann::json::object(), w);
    report = w.take();
  }
  if (attach) python::attach_report(program, report);
  return py::make_tuple(report, status);
}

}  // namespace
}  // namespace fakeprop

PYBIND11_MODULE(_core, m) {
  using namespace fakeprop;
  m.doc() = "fakeprop's C++ core (use the fakeprop package, not this module)";
  m.attr("version") = FAKEPROP_VERSION;

  // Errors become the classes of fakeprop.errors, with the text the CLI
  // prints after "fakeprop: error: ". Local to this module: a global
  // translator would also catch what other extensions sharing pybind11's
  // internals (torch's) throw, and turn their errors into fakeprop's.
  py::register_local_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    auto raise = [](const char* cls, const std::string& text) {
      py::object type = py::module_::import("fakeprop.errors").attr(cls);
      PyErr_SetString(type.ptr(), text.c_str());
    };
    try {
      std::rethrow_exception(p);
    } catch (const InputError& e) {
      raise("InputError", e.what());
    } catch (const Error& e) {
      raise("Error", e.what());
    } catch (const std::bad_alloc&) {
      PyErr_NoMemory();
    } catch (const py::error_already_set&) {
      throw;
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::exception& e) {
      raise("InternalError", std::string("internal: ") + e.what());
    }
  });

  m.def(
      "run_file",
      [](const std::string& path, const py::dict& args) {
        return report_of(path, args);
      },
      py::arg("path"), py::arg("args"), "Run one model file: (report as Python objects, CLI exit status).");

  m.def("plan_file", &plan_of, py::arg("path"), py::arg("args"), py::arg("plan"),
        "`fakeprop plan` over one model file: (plan as JSON text, exit status).");

  m.def(
      "infer_flags",
      [] {
        py::list rows;
        for (const InferFlag& f : infer_flags()) {
          // The member's kind, which says how api.py turns a Python value into it.
          static constexpr const char* kinds[] = {"list", "flag", "text", "count", "bytes"};
          rows.append(py::make_tuple(std::string(f.flag), std::string(f.keyword), std::string(f.key),
                                     kinds[f.member.index()], std::string(f.help)));
        }
        return rows;
      },
      "The option table: (flag, Python keyword, extension key, kind, help) per inference option.");

  m.def("check_files", &check_of, py::arg("models"), py::arg("args"), py::arg("check"),
        "`fakeprop check` over model files: (--json text, summary text, exit code).");

  m.def("heap_trims_done", &heap_trims_done,
        "How many times this process handed its free heap back to the system (the package never does).");
  m.def("interned_expr_count", &interned_expr_count,
        "How many interned symbolic expressions this process holds (they are shared by every run).");

  py::class_<FxProgram>(m, "FxProgram", "A torch.fx graph read into fakeprop (see graph_export.py).")
      .def_property_readonly("input_names",
                             [](const FxProgram& p) {
                               py::list out;
                               for (const fx::Node& n : p.graph.nodes)
                                 if (n.op == "placeholder") out.append(py::str(n.name));
                               return out;
                             })
      .def("set_symbols",
           [](FxProgram& p, const std::string& json_text) { p.graph.symbols = fx::parse_symbols(json_text, p.graph.path); },
           py::arg("json_text"), "Hints and ranges of its symbols, as a JSON FX graph's 'symbols'.")
      .def("to_json", [](const FxProgram& p) { return fx::graph_json(p.graph); },
           "The graph as a JSON FX graph (fakeprop.fx/1) text.")
      .def(
          "plan",
          [](FxProgram& program, const py::dict& args, const py::dict& plan) {
            const InferArgs a = args_from(args);
            PlanRequest req = plan_request(program.graph.path, plan);
            PlanOutcome outcome;
            {
              py::gil_scoped_release release;
              req.options = read_options(a);
              outcome = plan_run(std::make_unique<RunResult>(infer_fx_graph(program.graph, req.options)), req);
            }
            return py::make_tuple(outcome.report.dump(), outcome.status);
          },
          py::arg("args"), py::arg("plan"), "`fakeprop plan` over it: (plan as JSON text, exit status).")
      .def("run", &run_program, py::arg("args"), py::arg("attach") = false,
           "Run it: (report as Python objects, CLI exit status); with attach, also set node.meta['fakeprop'].");
  m.def(
      "read_torch_graph",
      [](py::handle graph_module, const py::dict& plan, py::list symbolic) {
        return python::read_torch_graph(graph_module, plan, std::move(symbolic));
      },
      py::arg("graph_module"), py::arg("plan"), py::arg("symbolic"),
      "Read a live torch.fx graph as the plan says (graph_export.py); SymInts met go to `symbolic`.");
}
