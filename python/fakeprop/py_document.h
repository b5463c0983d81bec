// A DocumentWriter that builds Python objects (dict, list, str, int, float,
// bool, None) as the report is written: the package gets the report with no
// JSON text between. Call with the GIL held.
#pragma once
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string_view>
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
  void write_key(std::string_view k) override { put(string(k)); }
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
  void put(PyObject* value) { items_.push_back(value); }  // steals `value`

  // The values (and, in an object, the keys before them) of the open
  // containers, each made at its close with its final size: no list grows
  // and no dict resizes while the report is built.
  std::vector<PyObject*> items_;
  std::vector<size_t> open_;  // where each open container's items start
  // The strings made so far, by content: an open-addressing table of str
  // objects (owned), sized a power of two and kept at most half full.
  struct Slot {
    uint64_t hash = 0;
    PyObject* str = nullptr;
    std::string_view utf8;  // str's own UTF-8 form, which it keeps
  };
  std::vector<Slot> strings_ = std::vector<Slot>(256);
  size_t string_count_ = 0;
  int gc_was_enabled_ = PyGC_Disable();  // building many containers would run collections
};

}  // namespace fakeprop::python
