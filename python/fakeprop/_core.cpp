// fakeprop._core: the library behind the CLI, as a Python extension. It holds
// no logic of its own: Python's keyword arguments fill the same InferArgs the
// CLI's flags fill, and a run returns the same JSON report text and exit
// status the CLI would print and return.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <new>
#include <string>

#include "fakeprop/driver/infer.h"
#include "fakeprop/options/infer_args.h"
#include "fakeprop/report/report.h"
#include "fakeprop/util/error.h"

namespace py = pybind11;

namespace fakeprop {
namespace {

std::vector<std::string> string_list(const py::dict& d, const char* key) {
  if (!d.contains(key)) return {};
  return d[key].cast<std::vector<std::string>>();
}

std::string string_item(const py::dict& d, const char* key, std::string fallback = "") {
  return d.contains(key) ? d[key].cast<std::string>() : fallback;
}

bool bool_item(const py::dict& d, const char* key) { return d.contains(key) && d[key].cast<bool>(); }

InferArgs args_from(const py::dict& d) {
  InferArgs a;
  a.dynamic = string_list(d, "dynamic");
  a.unbacked = string_list(d, "unbacked");
  a.static_ = string_list(d, "static");
  a.marks = string_list(d, "marks");
  a.inputs = string_list(d, "inputs");
  a.device = string_item(d, "device", "cpu");
  a.log = string_item(d, "log");
  a.no_specialize_zero_one = bool_item(d, "no_specialize_zero_one");
  a.no_duck_shape = bool_item(d, "no_duck_shape");
  a.backed_size_oblivious = bool_item(d, "backed_size_oblivious");
  a.no_assume_static_by_default = bool_item(d, "no_assume_static_by_default");
  a.strict = bool_item(d, "strict");
  a.explain_guard = string_item(d, "explain_guard");
  a.explain_symbol = string_item(d, "explain_symbol");
  return a;
}

// The report text and the CLI's exit status. The GIL is released while
// the run works: it touches no Python object.
template <class Run>
py::tuple report_of(const py::dict& args, const Run& run) {
  const InferArgs a = args_from(args);
  std::string text;
  int status = 0;
  {
    py::gil_scoped_release release;
    const InferOptions options = a.to_options();
    const RunResult result = run(options);
    text = report_json(result, nlohmann::json::object(), /*compact=*/true);
    status = exit_status(result, a.strict);
  }
  return py::make_tuple(py::str(text), status);
}

}  // namespace
}  // namespace fakeprop

PYBIND11_MODULE(_core, m) {
  using namespace fakeprop;
  m.doc() = "fakeprop's C++ core (use the fakeprop package, not this module)";
  m.attr("version") = FAKEPROP_VERSION;

  // Errors become the classes of fakeprop.errors, with the text the CLI
  // prints after "fakeprop: error: ".
  py::register_exception_translator([](std::exception_ptr p) {
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
        return report_of(args, [&](const InferOptions& o) { return infer_file(path, o); });
      },
      py::arg("path"), py::arg("args"), "Run one model file: (report JSON text, CLI exit status).");
  m.def(
      "run_fx_json",
      [](const std::string& text, const std::string& name, const py::dict& args) {
        return report_of(args, [&](const InferOptions& o) { return infer_fx_json(text, name, o); });
      },
      py::arg("text"), py::arg("name"), py::arg("args"),
      "Run a JSON FX graph held in memory: (report JSON text, CLI exit status).");
}
