#include "fakeprop/util/md5.h"

#include <array>
#include <cmath>
#include <cstdint>

namespace fakeprop {

namespace {

// K[i] = floor(|sin(i + 1)| * 2^32), as RFC 1321 defines the table; a double
// holds each product exactly enough for the floor to be the RFC's value
// (the test vectors check it).
std::array<uint32_t, 64> sine_table() {
  std::array<uint32_t, 64> k{};
  for (int i = 0; i < 64; ++i) k[i] = static_cast<uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0));
  return k;
}

constexpr uint8_t kShift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

uint32_t rotate_left(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

struct State {
  uint32_t a = 0x67452301, b = 0xefcdab89, c = 0x98badcfe, d = 0x10325476;

  void block(const unsigned char* p) {
    static const std::array<uint32_t, 64> k = sine_table();
    uint32_t m[16];
    for (int i = 0; i < 16; ++i)
      m[i] = uint32_t{p[4 * i]} | uint32_t{p[4 * i + 1]} << 8 | uint32_t{p[4 * i + 2]} << 16 |
             uint32_t{p[4 * i + 3]} << 24;
    uint32_t A = a, B = b, C = c, D = d;
    for (int i = 0; i < 64; ++i) {
      const int round = i / 16;
      uint32_t f;
      int g;
      switch (round) {
        case 0: f = (B & C) | (~B & D); g = i; break;
        case 1: f = (D & B) | (~D & C); g = (5 * i + 1) % 16; break;
        case 2: f = B ^ C ^ D; g = (3 * i + 5) % 16; break;
        default: f = C ^ (B | ~D); g = (7 * i) % 16; break;
      }
      f += A + k[i] + m[g];
      A = D;
      D = C;
      C = B;
      B += rotate_left(f, kShift[round][i % 4]);
    }
    a += A;
    b += B;
    c += C;
    d += D;
  }
};

}  // namespace

std::string md5_hex(std::string_view bytes) {
  State s;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t whole = bytes.size() / 64 * 64;
  for (size_t off = 0; off < whole; off += 64) s.block(p + off);
  // The tail, 0x80, zeros up to 56 mod 64, then the length in bits (little-endian).
  unsigned char tail[128] = {};
  const size_t rest = bytes.size() - whole;
  for (size_t i = 0; i < rest; ++i) tail[i] = p[whole + i];
  tail[rest] = 0x80;
  const size_t tail_size = rest < 56 ? 64 : 128;
  const uint64_t bits = static_cast<uint64_t>(bytes.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 8 + i] = static_cast<unsigned char>(bits >> (8 * i));
  for (size_t off = 0; off < tail_size; off += 64) s.block(tail + off);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(32);
  for (uint32_t word : {s.a, s.b, s.c, s.d})
    for (int i = 0; i < 4; ++i) {
      const auto byte = static_cast<unsigned char>(word >> (8 * i));
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  return out;
}

}  // namespace fakeprop
