// Fuzz target: an --op-rules file, then each rule it holds run on a fixed
// call (two tensors with a backed and an unbacked size, an int keyword);
// a rule with a schema is first checked against the call as the FX
// interpreter checks it (x, y by position, k by keyword).
// Intentional errors (fakeprop::Error: the file's syntax, a requirement
// that fails, a kind mismatch) are fine; anything else escaping or a
// sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fakeprop/custom_ops/op_rules.h"
#include "fakeprop/fx/aten_schema.h"
#include "fakeprop/fx/graph.h"
#include "fakeprop/options/infer_options.h"
#include "fakeprop/tensor/tensor_meta.h"

namespace fakeprop::fuzz {

int op_rules(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  custom_ops::OpRuleSet set;
  try {
    set.add(text, "fuzz.rules");
  } catch (const Error&) {
    return 0;
  }
  for (const custom_ops::OpRule& rule : set.rules()) {
    try {
      ShapeEnv env;
      StorageIds storage;
      InferOptions options;
      auto tensor = [&](SymShape sizes) {
        TensorValue t;
        t.meta.strides = contiguous_strides(sizes, &env);
        t.meta.sizes = std::move(sizes);
        t.meta.storage = storage.next();
        return Value::of_tensor(std::move(t));
      };
      const Value x = tensor({env.create_symbol(6, "L['x'].size()[0]"), 4});
      const Value y = tensor({SymInt(env.create_unbacked_symint(true)), 4});
      const Value k = Value::of_int(SymInt(3));
      const Value* inputs[] = {&x, &y, &k};
      custom_ops::OpRuleCall call;
      call.inputs = inputs;
      if (rule.schema) {
        call.inputs = call.inputs.first(2);
        fx::Node node;
        node.args.resize(2);
        node.args[0].kind = node.args[1].kind = fx::Arg::Kind::Node;
        fx::Arg k_arg;
        k_arg.kind = fx::Arg::Kind::Int;
        k_arg.i = 3;
        node.kwargs.emplace_back("k", k_arg);
        const std::pair<std::string_view, const Value*> kwargs[] = {{"k", &k}};
        if (fx::check_call(rule.schema->schema, node, call.inputs, kwargs)) continue;
      }
      call.named = [&](std::string_view name) -> std::optional<Value> {
        if (name == "k") return k;
        return std::nullopt;
      };
      RuleContext ctx(env, storage, options);
      (void)custom_ops::run_op_rule(rule, call, ctx);
    } catch (const Error&) {
    }
  }
  return 0;
}

}  // namespace fakeprop::fuzz

#ifndef FAKEPROP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fakeprop::fuzz::op_rules(data, size); }
#endif
