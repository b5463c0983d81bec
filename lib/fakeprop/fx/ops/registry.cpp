#include "fakeprop/fx/op_context.h"
#include "fakeprop/fx/ops/families.h"

namespace fakeprop::fx {

void register_all_aten_ops(OpRegistry& r) {
  ops::register_pointwise_ops(r);
  ops::register_view_ops(r);
  ops::register_factory_ops(r);
  ops::register_reduction_ops(r);
  ops::register_nn_ops(r);
  ops::register_indexing_ops(r);
  ops::register_data_dependent_ops(r);
  ops::register_sym_ops(r);
  ops::register_spectral_ops(r);
  ops::register_contraction_ops(r);
  ops::register_complex_ops(r);
  ops::register_higher_order_ops(r);
}

}  // namespace fakeprop::fx
