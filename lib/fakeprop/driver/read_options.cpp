#include "fakeprop/driver/read_options.h"

#include "fakeprop/custom_ops/op_rules.h"
#include "fakeprop/driver/real_inputs.h"
#include "fakeprop/util/error.h"

namespace fakeprop {

InferOptions read_options(const InferArgs& args) {
  InferOptions o = args.to_options();
  if (!args.op_rules.empty()) {
    o.op_rules = custom_ops::OpRuleSet::load(args.op_rules);
    o.op_rules_digest = o.op_rules->digest();
  }
  for (const std::string& path : args.op_rules) o.input_files.push_back({path, "an --op-rules file"});
  o.real_inputs = read_real_inputs(args.real_inputs, args.real_input_arrays, o.max_fold_elements);
  o.real_run = o.real_run || !o.real_inputs.empty();
  for (const auto& [name, t] : o.real_inputs)
    if (!t.file.empty()) o.input_files.push_back({t.file, "a --real-input file"});
  for (const auto& [name, t] : o.real_inputs) {
    const auto given = o.input_hints.find(name);
    if (given != o.input_hints.end() && given->second != t.sizes)
      throw InputError("--real-input " + t.file + ": its shape differs from --input " + name);
    o.input_hints[name] = t.sizes;
  }
  return o;
}

}  // namespace fakeprop
