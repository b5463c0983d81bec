#include "fakeprop/util/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace fakeprop {
namespace {

// Expected digests are Python's hashlib.sha256(...).hexdigest().
TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, LengthsAroundThePaddingBoundary) {
  // 55, 56, 64 and 119 bytes: the length fits in the last block, needs another, fills one
  // exactly, spans two blocks with the marker in the second.
  EXPECT_EQ(sha256_hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(56, 'a')), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
  EXPECT_EQ(sha256_hex(std::string(119, 'a')), "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb");
}

TEST(Sha256, ModuloOfTheDigestAsAnInteger) {
  // int(hexdigest, 16) % m: torch names L['x'].size()[0] s77.
  EXPECT_EQ(sha256_mod("L['x'].size()[0]", 100), 77u);
  EXPECT_EQ(sha256_mod("", 100), 49u);
  EXPECT_EQ(sha256_mod("abc", 100), 65u);
  EXPECT_EQ(sha256_mod("L['x'].size()[0]", 1000003), 361211u);
  EXPECT_EQ(sha256_mod(std::string(119, 'a'), 1000003), 674208u);
}

}  // namespace
}  // namespace fakeprop
