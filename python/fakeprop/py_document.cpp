#include "py_document.h"

#include <cstring>
#include <functional>

namespace fakeprop::python {

namespace py = pybind11;

namespace {

// Every byte counts: parameter names share long heads and tails
// ("model_layers_1_self_attn_q_proj_weight"), so a hash of a few bytes
// would chain them.
uint64_t hash_of(std::string_view s) { return std::hash<std::string_view>{}(s); }

PyObject* new_dict(Py_ssize_t entries) {
#if PY_VERSION_HEX < 0x030D0000
  return _PyDict_NewPresized(entries);
#else
  (void)entries;
  return PyDict_New();
#endif
}

}  // namespace

PyDocumentWriter::~PyDocumentWriter() {
  for (PyObject* o : items_) Py_XDECREF(o);
  for (const Slot& s : strings_) Py_XDECREF(s.str);
  if (gc_was_enabled_) PyGC_Enable();
}

py::object PyDocumentWriter::take() {
  if (!open_.empty() || items_.empty()) return py::none();
  PyObject* root = items_.back();
  items_.pop_back();
  return py::reinterpret_steal<py::object>(root);
}

PyObject* PyDocumentWriter::string(std::string_view s) {
  const uint64_t h = hash_of(s);
  size_t mask = strings_.size() - 1;
  size_t i = h & mask;
  for (; strings_[i].str; i = (i + 1) & mask) {
    const Slot& slot = strings_[i];
    if (slot.hash == h && slot.utf8.size() == s.size() && std::memcmp(slot.utf8.data(), s.data(), s.size()) == 0) {
      Py_INCREF(slot.str);
      return slot.str;
    }
  }
  PyObject* str = checked(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(str, &size);  // what the str holds ("replace" may differ from s)
  if (!utf8) {
    Py_DECREF(str);
    throw py::error_already_set();
  }
  if (2 * (string_count_ + 1) > strings_.size()) {
    std::vector<Slot> old(strings_.size() * 2);
    old.swap(strings_);
    mask = strings_.size() - 1;
    for (const Slot& o : old)
      if (o.str) {
        size_t j = o.hash & mask;
        while (strings_[j].str) j = (j + 1) & mask;
        strings_[j] = o;
      }
    i = h & mask;
    while (strings_[i].str) i = (i + 1) & mask;
  }
  strings_[i] = {h, str, std::string_view(utf8, static_cast<size_t>(size))};
  ++string_count_;
  Py_INCREF(str);
  return str;
}

void PyDocumentWriter::open(bool /*object*/) { open_.push_back(items_.size()); }

void PyDocumentWriter::close(bool object) {
  const size_t start = open_.back();
  open_.pop_back();
  const size_t n = items_.size() - start;
  PyObject* c;
  if (object) {
    c = checked(new_dict(static_cast<Py_ssize_t>(n / 2)));
    for (size_t k = start; k + 1 < items_.size(); k += 2)
      if (PyDict_SetItem(c, items_[k], items_[k + 1]) != 0) {
        Py_DECREF(c);
        throw py::error_already_set();
      }
    for (size_t k = start; k < items_.size(); ++k) Py_DECREF(items_[k]);
  } else {
    c = checked(PyList_New(static_cast<Py_ssize_t>(n)));
    for (size_t k = 0; k < n; ++k) PyList_SET_ITEM(c, static_cast<Py_ssize_t>(k), items_[start + k]);  // steals
  }
  items_.resize(start);
  items_.push_back(c);
}

}  // namespace fakeprop::python
