// Microbenchmarks for the expression engine: the static SymInt fast path, an
// interned rebuild of an existing expression, FloorDiv simplification, and
// both printers.
#include <benchmark/benchmark.h>

#include "fakeprop/sym/expr.h"
#include "fakeprop/sym/sym_int.h"
#include "fakeprop/sym/value_ranges.h"

namespace fakeprop {
namespace {

void BM_StaticSymIntAdd(benchmark::State& state) {
  SymInt a = 12345, b = 678;
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    SymInt c = a + b;
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_StaticSymIntAdd);

void BM_StaticSymIntMul(benchmark::State& state) {
  SymInt a = 12345, b = 678;
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    SymInt c = a * b;
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_StaticSymIntMul);

// `2*s0 + 3` already exists: every build is an interning hit.
void BM_BuildInternedAffine(benchmark::State& state) {
  ExprRef s0 = symbol("s0");
  ExprRef three = integer(3);
  for (auto _ : state) {
    ExprRef e = add(mul(s0, 2), three);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_BuildInternedAffine);

void BM_SymbolicSymIntAffine(benchmark::State& state) {
  SymInt s0(symbol("s0"));
  for (auto _ : state) {
    SymInt e = s0 * SymInt(2) + SymInt(3);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_SymbolicSymIntAffine);

// (4*s0 + 2*s1 + 8) // 2 splits into 2*s0 + s1 + 4.
void BM_FloorDivSimplify(benchmark::State& state) {
  ExprRef s0 = symbol("s0"), s1 = symbol("s1");
  ExprRef numerator = add(add(mul(s0, 4), mul(s1, 2)), integer(8));
  ExprRef two = integer(2);
  for (auto _ : state) {
    ExprRef e = floordiv(numerator, two);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_FloorDivSimplify);

// A conv-like output size: (s0 + 2 - 3) // 2 + 1, kept as a FloorDiv node.
void BM_FloorDivConvSize(benchmark::State& state) {
  ExprRef s0 = symbol("s0");
  for (auto _ : state) {
    ExprRef e = add(floordiv(add(s0, integer(-1)), integer(2)), integer(1));
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_FloorDivConvSize);

ExprRef guard_like_expression() {
  ExprRef s0 = symbol("s0"), s1 = symbol("s1");
  return logical_and(eq(mod(add(mul(s0, 3), s1), integer(8)), integer(0)),
                     le(floordiv(add(s0, integer(1)), integer(2)), max(integer(1), s1)));
}

void BM_PrintSympy(benchmark::State& state) {
  ExprRef e = guard_like_expression();
  for (auto _ : state) benchmark::DoNotOptimize(to_sympy_string(e));
}
BENCHMARK(BM_PrintSympy);

void BM_PrintPython(benchmark::State& state) {
  ExprRef e = guard_like_expression();
  for (auto _ : state) benchmark::DoNotOptimize(to_python_string(e));
}
BENCHMARK(BM_PrintPython);

void BM_BoundExpr(benchmark::State& state) {
  ExprRef e = guard_like_expression();
  SymbolRanges ranges = [](ExprRef) { return ValueRange{2, kIntOo}; };
  for (auto _ : state) benchmark::DoNotOptimize(bound_expr(e, ranges));
}
BENCHMARK(BM_BoundExpr);

}  // namespace
}  // namespace fakeprop
