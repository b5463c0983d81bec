// Cost of the tensor-model helpers on concrete shapes: what one binary
// elementwise op (broadcast + promotion + output strides) costs.
#include <benchmark/benchmark.h>

#include "fakeprop/sym/shape_env.h"
#include "fakeprop/tensor/tensor_meta.h"

namespace fakeprop {
namespace {

TensorMeta concrete(SymShape sizes) {
  TensorMeta t;
  t.strides = contiguous_strides(sizes);
  t.sizes = std::move(sizes);
  return t;
}

void BM_BinaryOpConcrete(benchmark::State& state) {
  ShapeEnv env;
  const TensorMeta a = concrete({8, 64, 56, 56});
  const TensorMeta b = concrete({1, 64, 1, 1});
  const TensorMeta* ops[] = {&a, &b};
  const PromotionOperand operands[] = {{DType::Float32, OperandKind::Tensor}, {DType::Float16, OperandKind::Tensor}};
  for (auto _ : state) {
    SymShape out = broadcast_shapes(a.sizes, b.sizes, env);
    auto dtypes = elementwise_dtypes(operands, PromotionKind::Default);
    SymShape strides = elementwise_output_strides(ops, out, env);
    Device d = common_device(ops, "aten.add.Tensor");
    benchmark::DoNotOptimize(out);
    benchmark::DoNotOptimize(dtypes);
    benchmark::DoNotOptimize(strides);
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_BinaryOpConcrete);

void BM_BroadcastConcrete(benchmark::State& state) {
  ShapeEnv env;
  const SymShape a{8, 64, 56, 56}, b{64, 1, 1};
  for (auto _ : state) benchmark::DoNotOptimize(broadcast_shapes(a, b, env));
}
BENCHMARK(BM_BroadcastConcrete);

}  // namespace
}  // namespace fakeprop
