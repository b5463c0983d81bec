#include "py_document.h"

namespace fakeprop::python {

namespace py = pybind11;

PyDocumentWriter::~PyDocumentWriter() {
  Py_XDECREF(root_);
  Py_XDECREF(key_);
  for (auto& [text, s] : strings_) Py_DECREF(s);
  if (gc_was_enabled_) PyGC_Enable();
}

py::object PyDocumentWriter::take() {
  PyObject* root = root_;
  root_ = nullptr;
  return root ? py::reinterpret_steal<py::object>(root) : py::none();
}

PyObject* PyDocumentWriter::string(std::string_view s) {
  if (auto it = strings_.find(s); it != strings_.end()) {
    Py_INCREF(it->second);
    return it->second;
  }
  PyObject* str = checked(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(str, &size);
  if (!utf8) {
    Py_DECREF(str);
    throw py::error_already_set();
  }
  strings_.emplace(std::string_view(utf8, static_cast<size_t>(size)), str);
  Py_INCREF(str);
  return str;
}

void PyDocumentWriter::put(PyObject* value) {
  if (stack_.empty()) {
    Py_XDECREF(root_);
    root_ = value;
    return;
  }
  PyObject* parent = stack_.back();
  int rc;
  if (PyDict_Check(parent)) {
    rc = PyDict_SetItem(parent, key_ ? key_ : Py_None, value);
    Py_XDECREF(key_);
    key_ = nullptr;
  } else {
    rc = PyList_Append(parent, value);
  }
  Py_DECREF(value);
  if (rc != 0) throw py::error_already_set();
}

void PyDocumentWriter::open(bool object) {
  PyObject* c = checked(object ? PyDict_New() : PyList_New(0));
  Py_INCREF(c);  // put() hands one reference to the parent
  put(c);
  stack_.push_back(c);
  Py_DECREF(c);  // the parent (or root_) keeps it alive
}

void PyDocumentWriter::close(bool /*object*/) { stack_.pop_back(); }

void PyDocumentWriter::write_key(std::string_view k) {
  Py_XDECREF(key_);
  key_ = string(k);
}

}  // namespace fakeprop::python
