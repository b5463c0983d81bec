#include "fakeprop/fx/op_context.h"
#include "fakeprop/fx/ops/families.h"

namespace fakeprop::fx::ops {

void register_indexing_ops(OpRegistry&) {}

}  // namespace fakeprop::fx::ops
