// SHA-256 (FIPS 180-4), for naming backed symbols as PyTorch does: its
// ShapeEnv numbers a symbol by the digest of its source's name. Not for
// anything that needs a secure hash.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fakeprop {

// The 32 bytes of the SHA-256 digest of `bytes`, most significant first.
std::array<uint8_t, 32> sha256(std::string_view bytes);
// The same as 64 lowercase hex digits (hashlib's hexdigest()).
std::string sha256_hex(std::string_view bytes);
// The digest read as one 256-bit big-endian integer, modulo `m` (m > 0):
// Python's int(hexdigest, 16) % m.
uint32_t sha256_mod(std::string_view bytes, uint32_t m);

}  // namespace fakeprop
