// node.meta['unbacked_bindings']: where each unbacked symbol a node created
// first appears in its output, as PyTorch's pytree key paths print.
#pragma once
#include <vector>

#include "fakeprop/value/run_result.h"

namespace fakeprop {

// `outputs` are the node's results; a node with one result uses paths
// relative to it (".size()[0]", ""), several results are indexed ("[1].size()[0]").
void bind_unbacked_symbols(NodeRecord& rec, const std::vector<ExprRef>& fresh, const std::vector<Value>& outputs);

}  // namespace fakeprop
