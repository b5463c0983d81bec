// The expression-size cap applied to every node's outputs: an expression
// that grows past the limit becomes a fresh unbacked symbol with a warning
// naming the node, instead of growing without bound through later nodes.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fakeprop/options/limits.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

// The number of nodes in `e` as a tree (a shared subexpression counts once
// per use, as a printer would write it), counted only up to `cap` + 1: the
// walk stops there, so a DAG whose tree is exponentially large costs at most
// `cap` steps.
size_t bounded_expr_size(ExprRef e, size_t cap);

// Whether cap_expression_size would replace anything in `v` (an expression
// over `max_nodes`), without copying it.
bool has_oversized_expression(const Value& v, size_t max_nodes);

// Replaces every symbolic size, stride, storage offset, known integer
// element and SymInt in `values` whose expression exceeds `max_nodes` by a
// fresh unbacked symbol (size-like where the value is a size), the same
// symbol wherever the same expression occurs. When anything was replaced, a
// warning of kind ErrorKind::ExpressionTooLarge naming `node` is appended to
// `warnings`. Returns the number of expressions replaced. The new symbols are
// unbacked, so ShapeEnv::take_new_unbacked reports them for unbacked_bindings.
size_t cap_expression_size(std::vector<Value>& values, ShapeEnv& env, size_t max_nodes, std::string_view node,
                           std::vector<ErrorRecord>& warnings);

}  // namespace fakeprop
