#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fakeprop {

// Two bytes, as c10::Device (its DeviceIndex is int8_t): every tensor
// record carries one.
struct Device {
  enum class Type : uint8_t { CPU, CUDA, Meta };
  static constexpr int kMaxIndex = INT8_MAX;
  Type type = Type::CPU;
  int8_t index = -1;  // -1: no index (cpu, meta)

  static Device cpu() { return {}; }
  static Device cuda(int8_t i = 0) { return {Type::CUDA, i}; }
  static Device meta() { return {Type::Meta, -1}; }
  bool is_cpu() const { return type == Type::CPU; }
  bool is_cuda() const { return type == Type::CUDA; }
  bool operator==(const Device&) const = default;
  std::string str() const;  // "cpu", "cuda:0", "meta"
  // "cpu", "cuda", "cuda:1", "meta"; "cuda" means cuda:0.
  static std::optional<Device> parse(std::string_view s);
};

}  // namespace fakeprop
