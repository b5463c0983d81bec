// Temporary stubs so the project links; replaced by the real SymInt.
#include "fakeprop/sym/sym_int.h"

#include "fakeprop/util/error.h"

namespace fakeprop {

[[noreturn]] static void todo() { throw Error("sym_int: not implemented yet"); }

SymInt::SymInt(ExprRef) { todo(); }
ExprRef SymInt::expr() const { todo(); }
std::string SymInt::to_python() const { todo(); }
std::string SymInt::to_sympy() const { todo(); }
SymInt operator+(const SymInt&, const SymInt&) { todo(); }
SymInt operator-(const SymInt&, const SymInt&) { todo(); }
SymInt operator-(const SymInt&) { todo(); }
SymInt operator*(const SymInt&, const SymInt&) { todo(); }
SymInt floordiv(const SymInt&, const SymInt&) { todo(); }
SymInt mod(const SymInt&, const SymInt&) { todo(); }
SymInt ceildiv(const SymInt&, const SymInt&) { todo(); }
SymInt sym_max(const SymInt&, const SymInt&) { todo(); }
SymInt sym_min(const SymInt&, const SymInt&) { todo(); }
SymBool::SymBool(ExprRef) { todo(); }
ExprRef SymBool::expr() const { todo(); }
std::string SymBool::to_python() const { todo(); }
std::string SymBool::to_sympy() const { todo(); }
SymBool sym_eq(const SymInt&, const SymInt&) { todo(); }
SymBool sym_ne(const SymInt&, const SymInt&) { todo(); }
SymBool sym_lt(const SymInt&, const SymInt&) { todo(); }
SymBool sym_le(const SymInt&, const SymInt&) { todo(); }
SymBool sym_gt(const SymInt&, const SymInt&) { todo(); }
SymBool sym_ge(const SymInt&, const SymInt&) { todo(); }
SymBool sym_and(const SymBool&, const SymBool&) { todo(); }
SymBool sym_or(const SymBool&, const SymBool&) { todo(); }
SymBool sym_not(const SymBool&) { todo(); }

}  // namespace fakeprop
