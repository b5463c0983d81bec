// MD5 (RFC 1321), for the payload checksums of TORCH_TRACE logs: tlparse
// checks each payload against the md5 hex digest its header carries. Not for
// anything that needs a secure hash.
#pragma once
#include <string>
#include <string_view>

namespace fakeprop {

// The 32 lowercase hex digits of the MD5 digest of `bytes`.
std::string md5_hex(std::string_view bytes);

}  // namespace fakeprop
