// A second pybind11 extension, for the hostile-files tests: it throws plain
// C++ exceptions, which must reach Python as pybind11 translates them by
// default (RuntimeError, ValueError) whatever fakeprop._core registered, as
// torch's do in a process that has imported fakeprop.
#include <pybind11/pybind11.h>

#include <stdexcept>

PYBIND11_MODULE(translator_probe, m) {
  m.def("throw_runtime_error", [] { throw std::runtime_error("probe"); });
  m.def("throw_invalid_argument", [] { throw std::invalid_argument("probe"); });
}
