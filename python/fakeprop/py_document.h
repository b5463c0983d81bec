// A DocumentWriter that builds Python objects (dict, list, str, int, float,
// bool, None) as the report is written: the package gets the report with no
// JSON text between. Call with the GIL held.
#pragma once
#include <pybind11/pybind11.h>

#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakeprop/util/document_writer.h"

namespace fakeprop::python {

class PyDocumentWriter final : public DocumentWriter {
 public:
  PyDocumentWriter() = default;
  PyDocumentWriter(const PyDocumentWriter&) = delete;
  PyDocumentWriter& operator=(const PyDocumentWriter&) = delete;
  ~PyDocumentWriter() override;

  // The document written so far (its root value).
  pybind11::object take();

 protected:
  void open(bool object) override;
  void close(bool object) override;
  void write_key(std::string_view k) override;
  void write_string(std::string_view s) override { put(string(s)); }
  void write_bool(bool b) override { put(pybind11::bool_(b).release().ptr()); }
  void write_int(int64_t i) override { put(checked(PyLong_FromLongLong(i))); }
  void write_uint(uint64_t i) override { put(checked(PyLong_FromUnsignedLongLong(i))); }
  void write_double(double d) override { put(checked(PyFloat_FromDouble(d))); }
  void write_null() override { put(pybind11::none().release().ptr()); }

 private:
  static PyObject* checked(PyObject* o) {
    if (!o) throw pybind11::error_already_set();
    return o;
  }
  // A new reference to the str for `s`: a document repeats its keys, dtype
  // names and dim expressions, so each distinct string is made once.
  PyObject* string(std::string_view s);
  void put(PyObject* value);  // steals `value`

  std::vector<PyObject*> stack_;  // open containers (borrowed: the parent or root_ owns them)
  PyObject* root_ = nullptr;
  PyObject* key_ = nullptr;  // the pending key of the innermost object
  std::unordered_map<std::string_view, PyObject*> strings_;  // views into the str objects they own
  int gc_was_enabled_ = PyGC_Disable();  // building many containers would run collections
};

}  // namespace fakeprop::python
