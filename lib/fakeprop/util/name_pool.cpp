#include "fakeprop/util/name_pool.h"

#include <limits>
#include <stdexcept>

namespace fakeprop {

Name NamePool::intern(std::string_view s) {
  if (s.empty()) return {};
  if (const uint32_t id = ids_.find(s); id != StringIds::kNone) return Name(ids_.name(id).data());
  if (s.size() > std::numeric_limits<uint32_t>::max()) throw std::length_error("name longer than 4 GiB");
  // The length, then the characters, in one arena copy.
  const auto n = static_cast<uint32_t>(s.size());
  char* at = arena_.allocate(sizeof n + s.size());
  std::memcpy(at, &n, sizeof n);
  std::memcpy(at + sizeof n, s.data(), s.size());
  ids_.insert(std::string_view(at + sizeof n, s.size()));
  return Name(at + sizeof n);
}

}  // namespace fakeprop
