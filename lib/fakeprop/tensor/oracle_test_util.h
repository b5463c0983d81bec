// Helpers for the tests that replay testdata/tensor_oracle (recorded from
// PyTorch by scripts/gen_tensor_oracle.py).
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "fakeprop/tensor/dtype.h"
#include "fakeprop/tensor/tensor_meta.h"

namespace fakeprop::oracle {

inline nlohmann::json load(const std::string& file) {
  const std::string path = std::string(FAKEPROP_TESTDATA) + "/tensor_oracle/" + file;
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot open " << path;
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(in);
}

inline DType dtype(const nlohmann::json& name) {
  std::optional<DType> t = dtype_from_name(name.get<std::string>());
  if (!t) ADD_FAILURE() << "unknown dtype " << name;
  return t.value_or(DType::Undefined);
}

inline SymShape shape(const nlohmann::json& dims) {
  SymShape out;
  for (const auto& d : dims) out.emplace_back(d.get<int64_t>());
  return out;
}

// Static shapes as JSON arrays, for comparison with the oracle.
inline nlohmann::json to_json(const SymShape& dims) {
  nlohmann::json out = nlohmann::json::array();
  for (const SymInt& d : dims) {
    if (d.is_static()) out.push_back(d.value());
    else out.push_back(d.to_python());
  }
  return out;
}

inline void report_count(const char* what, size_t n) {
  std::cout << "[ oracle   ] compared " << n << " " << what << " cases\n";
}

}  // namespace fakeprop::oracle
