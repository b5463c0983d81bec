#include "fakeprop/sym/shape_env.h"

namespace fakeprop {

namespace {
[[noreturn]] void not_yet() { throw Error("ShapeEnv: not implemented yet"); }
}  // namespace

ShapeEnv::ShapeEnv(ShapeEnvSettings settings) : settings_(settings), log_(std::make_unique<DynamicLog>()) {}
ShapeEnv::~ShapeEnv() = default;

SymInt ShapeEnv::create_symbol(int64_t, const std::string&, DimDynamic, ValueRange, const std::string&) { not_yet(); }
ExprRef ShapeEnv::create_named_symbol(const std::string&, std::optional<int64_t>, ValueRange, const std::string&) {
  not_yet();
}
ExprRef ShapeEnv::create_unbacked_symint(bool, ValueRange) { not_yet(); }
ExprRef ShapeEnv::create_unbacked_symbool() { not_yet(); }
void ShapeEnv::constrain_symbol_range(ExprRef, ValueRange, const std::string&) { not_yet(); }
void ShapeEnv::add_source(ExprRef, const std::string&) { not_yet(); }
void ShapeEnv::mark_dynamic(ExprRef) { not_yet(); }
bool ShapeEnv::is_symbol_known(ExprRef) const { not_yet(); }
const SymbolInfo& ShapeEnv::info(ExprRef) const { not_yet(); }
std::vector<const SymbolInfo*> ShapeEnv::symbols() const { not_yet(); }
std::vector<ExprRef> ShapeEnv::take_new_unbacked() { not_yet(); }
ExprRef ShapeEnv::simplify(ExprRef) const { not_yet(); }
SymInt ShapeEnv::simplify(const SymInt&) const { not_yet(); }
ValueRange ShapeEnv::bound(ExprRef, bool) const { not_yet(); }
std::optional<int64_t> ShapeEnv::hint(ExprRef) const { not_yet(); }
std::optional<int64_t> ShapeEnv::hint(const SymInt&) const { not_yet(); }
std::optional<bool> ShapeEnv::maybe_evaluate_static(ExprRef, bool) const { not_yet(); }
bool ShapeEnv::evaluate(const SymBool&, const char*) { not_yet(); }
int64_t ShapeEnv::evaluate_int(const SymInt&, const char*) { not_yet(); }
bool ShapeEnv::statically_known_true(const SymBool&) const { not_yet(); }
bool ShapeEnv::guard_or_false(const SymBool&, const char*) { not_yet(); }
bool ShapeEnv::guard_or_true(const SymBool&, const char*) { not_yet(); }
bool ShapeEnv::guard_size_oblivious(const SymBool&, const char*) { not_yet(); }
bool ShapeEnv::expect_true(const SymBool&, const char*) { not_yet(); }
void ShapeEnv::defer_runtime_assert(const SymBool&, const char*) { not_yet(); }
std::vector<std::pair<ExprRef, int64_t>> ShapeEnv::divisibility_facts() const { not_yet(); }
std::vector<ProducedGuard> ShapeEnv::produce_guards() const { not_yet(); }
std::string ShapeEnv::source_of(ExprRef) const { not_yet(); }
std::string ShapeEnv::print_over_sources(ExprRef) const { not_yet(); }
std::string ShapeEnv::constraint_violations() const { not_yet(); }

}  // namespace fakeprop
