#include "fakeprop/tensor/device.h"

#include <charconv>

namespace fakeprop {

std::string Device::str() const {
  switch (type) {
    case Type::CPU:
      return "cpu";
    case Type::Meta:
      return "meta";
    case Type::CUDA:
      return "cuda:" + std::to_string(index < 0 ? 0 : index);
  }
  return "cpu";
}

std::optional<Device> Device::parse(std::string_view s) {
  if (s == "cpu") return cpu();
  if (s == "meta") return meta();
  if (s == "cuda") return cuda(0);
  constexpr std::string_view kCudaPrefix = "cuda:";
  if (!s.starts_with(kCudaPrefix)) return std::nullopt;
  std::string_view digits = s.substr(kCudaPrefix.size());
  if (digits.empty() || digits.front() == '+' || digits.front() == '-') return std::nullopt;
  int index = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size() || index > kMaxIndex) return std::nullopt;
  return cuda(static_cast<int8_t>(index));
}

}  // namespace fakeprop
