#include "fakeprop/util/name_pool.h"

#include <limits>
#include <stdexcept>

namespace fakeprop {

Name NamePool::intern(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > std::numeric_limits<uint32_t>::max()) throw std::length_error("name longer than 4 GiB");
  const uint32_t id = ids_.insert_with(s, [&] {
    // The length, then the characters, in one arena copy.
    const auto n = static_cast<uint32_t>(s.size());
    char* at = arena_.allocate(sizeof n + s.size());
    std::memcpy(at, &n, sizeof n);
    std::memcpy(at + sizeof n, s.data(), s.size());
    return std::string_view(at + sizeof n, s.size());
  }).first;
  return Name(ids_.name(id).data());
}

}  // namespace fakeprop
