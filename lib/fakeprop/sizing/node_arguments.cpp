#include "fakeprop/sizing/node_arguments.h"

#include <algorithm>

namespace fakeprop {

const Value* NodeArguments::get(size_t position, std::string_view name) const {
  if (position < args.size()) return args[position];
  if (!name.empty())
    for (const auto& [key, value] : kwargs)
      if (key == name) return value;
  return nullptr;
}

namespace {

void append_storages_of(const Value& v, std::vector<int64_t>& out, size_t first, int depth) {
  if (v.tensor && v.is_tensor()) {
    const int64_t s = v.tensor->meta.storage;
    if (s >= 0 && std::find(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), s) == out.end())
      out.push_back(s);
  } else if (v.kind == Value::Kind::List && v.list && depth < 8) {
    for (const Value& x : *v.list) append_storages_of(x, out, first, depth + 1);
  }
}

}  // namespace

void append_read_storages(const NodeArguments& in, std::vector<int64_t>& out) {
  const size_t first = out.size();
  for (const Value* v : in.args)
    if (v) append_storages_of(*v, out, first, 0);
  for (const auto& kv : in.kwargs)
    if (kv.second) append_storages_of(*kv.second, out, first, 0);
}

}  // namespace fakeprop
