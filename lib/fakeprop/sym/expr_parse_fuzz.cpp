// Fuzz target: the expression parser (FX example sizes, symbol ranges), then
// what is done with a parsed expression: both printers, evaluation with every
// symbol bound, and ShapeEnv simplification. Intentional errors
// (fakeprop::Error: syntax, division by zero, overflow) are fine; anything
// else escaping or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fakeprop/sym/parse.h"
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/error.h"

namespace fakeprop::fuzz {

int expr_parse(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ShapeEnv env;
    const ExprRef e = parse_expr(text, [&](std::string_view name) { return symbol(name); });
    (void)to_python_string(e);
    (void)to_sympy_string(e);
    (void)expr_size(e);
    Assignment values;
    int64_t next = 2;
    for (ExprRef s : free_symbols(e)) values[s] = next++;
    (void)evaluate(e, values);
    (void)env.simplify(e);
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::expr_parse(data, size); }
#endif
