// Temporary stubs so the project links; replaced by the real intervals.
#include "fakeprop/sym/value_ranges.h"

#include "fakeprop/util/error.h"

namespace fakeprop {

[[noreturn]] static void todo() { throw Error("value_ranges: not implemented yet"); }

ValueRange ValueRange::intersect(const ValueRange&) const { todo(); }
ValueRange ValueRange::hull(const ValueRange&) const { todo(); }
std::string ValueRange::to_string() const { todo(); }
ValueRange range_add(ValueRange, ValueRange) { todo(); }
ValueRange range_neg(ValueRange) { todo(); }
ValueRange range_mul(ValueRange, ValueRange) { todo(); }
ValueRange range_mul(ValueRange, int64_t) { todo(); }
ValueRange range_pow(ValueRange, int64_t) { todo(); }
ValueRange range_floordiv(ValueRange, ValueRange) { todo(); }
ValueRange range_ceildiv(ValueRange, ValueRange) { todo(); }
ValueRange range_mod(ValueRange, ValueRange) { todo(); }
ValueRange range_max(ValueRange, ValueRange) { todo(); }
ValueRange range_min(ValueRange, ValueRange) { todo(); }
ValueRange bound_expr(ExprRef, const SymbolRanges&) { todo(); }

}  // namespace fakeprop
