#include "fakeprop/util/name_pool.h"

#include <limits>
#include <stdexcept>

namespace fakeprop {

Name NamePool::intern(std::string_view s) {
  if (s.empty()) return {};
  const uint32_t id = ids_.insert_with(s, [&] { return store(s).view(); }).first;
  return Name(ids_.name(id).data());
}

Name NamePool::store(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > std::numeric_limits<uint32_t>::max()) throw std::length_error("name longer than 4 GiB");
  // The length, then the characters, in one arena copy.
  const auto n = static_cast<uint32_t>(s.size());
  char* at = arena_.allocate(sizeof n + s.size());
  std::memcpy(at, &n, sizeof n);
  std::memcpy(at + sizeof n, s.data(), s.size());
  return Name(at + sizeof n);
}

}  // namespace fakeprop
