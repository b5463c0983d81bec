#include "fakeprop/runner/node_runner.h"

#include "fakeprop/sizing/flop_count.h"

#include <algorithm>
#include <exception>
#include <new>
#include <string>

#include "fakeprop/runner/expr_cap.h"
#include "fakeprop/runner/real_values.h"
#include "fakeprop/runner/unbacked_bindings.h"
#include "fakeprop/value/describe_value.h"

namespace fakeprop {

RunResult begin_run(std::string_view model_kind, std::string model_path, const InferOptions& options) {
  RunResult result;
  result.model_path = std::move(model_path);
  result.model_kind = model_kind;
  result.device = options.device;
  result.sizing = options.sizing;
  result.op_rules_given = options.op_rules != nullptr;
  result.op_rules_digest = options.op_rules_digest;
  result.real_values_given = !options.unbacked_values.empty() || options.real_run;
  result.env = std::make_unique<ShapeEnv>(options.settings);
  result.env->log().set_level(options.log_level);
  result.env->log().set_frame(options.log_frame);
  if (!options.unbacked_values.empty()) result.env->set_real_values(options.unbacked_values);
  if (!options.explain_guard.empty() || !options.explain_symbols.empty())
    result.env->set_extended_debug(options.explain_guard, options.explain_symbols);
  return result;
}

std::vector<std::string> checked_input_sources(const InferOptions& options, std::span<const std::string> names) {
  std::vector<std::string> sources;
  sources.reserve(names.size());
  for (const std::string& n : names) sources.push_back(SourceSpecs::input_source(n));
  // A source spec or --mark that names no input is ignored, as torch.compile
  // ignores TORCH_COMPILE_*_SOURCES entries and mark_dynamic / mark_unbacked
  // calls on a tensor the graph does not take (an input whose sizes Dynamo
  // specialized, or that the program never reads): the same command then
  // runs on every frame. (SourceSpecs / DimMarks::check_all_matched remain
  // for a front end that wants the stricter check.)
  for (const auto& [name, dims] : options.input_hints) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    std::string known;
    for (const auto& s : sources) known += (known.empty() ? "" : ", ") + s;
    const auto real = options.real_inputs.find(name);
    throw InputError((real != options.real_inputs.end() ? "--real-input " + real->second.file + ": input '" + name + "'"
                                                        : "--input " + name) +
                     ": the model has no such input; the inputs are: " + known);
  }
  return sources;
}

NodeRecord& NodeRunner::run(Name name, Name op, std::span<const Name> output_names, NodeStep& step) {
  ShapeEnv& e = env();
  e.set_current_node(name);
  if (e.extended_debug_enabled()) {  // copied: nodes nest (an If's branch runs inside it)
    std::vector<std::string> lines{"op " + op};
    step.describe_inputs(lines);
    e.set_node_context([lines] { return lines; });
  }

  if (depth_ == scratch_.size()) scratch_.emplace_back();
  std::vector<Value>& outputs = scratch_[depth_];
  outputs.clear();
  struct Nesting {
    size_t& depth;
    ~Nesting() { --depth; }
  } nesting{++depth_};
  std::string failure;  // why the outputs fall back
  bool rank_unknown = false;
  const std::string_view node = name;  // copied into a record only when something goes wrong
  step.reused = false;
  if (!step.recoverable) {
    step.run(outputs);
  } else try {
    step.run(outputs);
  } catch (const DataDependentError& err) {
    result_.errors.push_back({name.str(), ErrorKind::DataDependent, err.what(), err.suggested_fixes()});
    failure = "data-dependent decision at node '" + name + "'";
  } catch (const OpError& err) {
    // An input of unknown rank is not the node's fault: its outputs lose
    // their shapes (and keep what they can), as a warning.
    rank_unknown = err.kind() == ErrorKind::UnknownRank;
    if (rank_unknown)
      result_.warnings.push_back({name.str(), ErrorKind::PrecisionLost, std::string("output shapes not computed: ") + err.what()});
    else
      result_.errors.push_back({name.str(), err.kind(), err.what()});
    failure = err.kind() == ErrorKind::UnsupportedOp
                  ? "unsupported operator " + op.str()
                  : std::string(error_kind_name(err.kind())) + " at node '" + name + "': " + err.what();
  } catch (const OverflowError& err) {
    result_.errors.push_back({name.str(), ErrorKind::Overflow, err.what()});
    failure = "overflow at node '" + name + "'";
  } catch (const InputError&) {
    throw;
  } catch (const Error& err) {
    result_.errors.push_back({name.str(), ErrorKind::Error, err.what()});
    failure = "error at node '" + name + "': " + err.what();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& err) {
    // A rule's bug (a standard library check that fired): the node fails,
    // named, instead of the whole run. The fuzz targets count these as findings.
    result_.errors.push_back({name.str(), ErrorKind::Internal, err.what()});
    failure = "internal error at node '" + name + "'";
  }
  if (!failure.empty()) {
    outputs.clear();
    step.reused = false;
    step.fallback(outputs, failure, rank_unknown);
  }
  outputs.resize(output_names.size());
  real_scratch_.clear();
  if (failure.empty() && step.run_real(real_scratch_)) {
    real_scratch_.resize(outputs.size());
    tie_to_real(outputs, real_scratch_, e);
  }
  // Reused outputs never need the cap: capping adds a symbol, and a new
  // symbol invalidates what a cache holds. A graph input's value is the
  // user's, not a rule's: it is never capped.
  if (step.recoverable && !step.reused) cap_expression_size(outputs, e, options_.max_expr_nodes, node, result_.warnings);

  NodeRecord& rec = result_.nodes.emplace_back();
  rec.name = name;
  rec.op = op;
  rec.fallback = !failure.empty();
  rec.depth = static_cast<uint16_t>(std::min<size_t>(depth_ - 1, UINT16_MAX));
  bind_unbacked_symbols(rec, e.take_new_unbacked(), outputs);
  for (size_t k = 0; k < output_names.size(); ++k) {
    if (output_names[k].empty()) continue;
    NamedValue& out = rec.outputs.emplace_back();
    out.name = output_names[k];
    out.val = std::move(outputs[k]);
  }
  NodeArguments arguments;
  step.arguments(arguments);
  if (!arguments.args.empty() || !arguments.kwargs.empty()) {
    rec.reads_begin = static_cast<uint32_t>(result_.read_storages.size());
    append_read_storages(arguments, result_.read_storages);
    rec.reads_count = static_cast<uint32_t>(result_.read_storages.size() - rec.reads_begin);
    rec.flops = count_flops(op.view(), arguments, rec.outputs);
  }
  if (ExprRef inside = failure.empty() ? step.nested_flops() : nullptr) try {
      rec.flops = rec.flops ? add(rec.flops, inside) : inside;
    } catch (const OverflowError&) {
      rec.flops = nullptr;  // past 64 bits: not counted, as count_flops does
    }
  if (rec.flops) rec.bytes_read = argument_bytes(arguments);
  return rec;
}

}  // namespace fakeprop
