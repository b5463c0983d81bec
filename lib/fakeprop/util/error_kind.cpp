#include "fakeprop/util/error_kind.h"

#include <array>

#include "fakeprop/util/enum_table.h"

namespace fakeprop {

namespace {

using K = ErrorKind;
constexpr bool kFailsStrict = true, kPassesStrict = false;
constexpr bool kWarning = true, kError = false;

// The single source of every kind's name, meaning and policy. The report
// schema lists the same names and descriptions (error_kind_test checks).
constexpr std::array kTable = {
    ErrorKindInfo{K::InvalidArgument, "invalid_argument",
                  "An input or argument holds a value the operator does not accept.", kPassesStrict, kError},
    ErrorKindInfo{K::InvalidAttribute, "invalid_attribute",
                  "An attribute has the wrong type or a value the operator does not accept.", kPassesStrict, kError},
    ErrorKindInfo{K::MissingAttribute, "missing_attribute", "A required attribute is absent.", kPassesStrict, kError},
    ErrorKindInfo{K::MissingInput, "missing_input", "A required input or argument is absent.", kPassesStrict, kError},
    ErrorKindInfo{K::InputCount, "input_count",
                  "A subgraph body has the wrong number of inputs.", kPassesStrict, kError},
    ErrorKindInfo{K::OutputCount, "output_count",
                  "A node or subgraph body has a number of outputs the operator does not allow.",
                  kPassesStrict, kError},
    ErrorKindInfo{K::TypeError, "type_error",
                  "A value has a dtype or type the operator does not accept, or values that must agree in type do not.",
                  kPassesStrict, kError},
    ErrorKindInfo{K::DeviceMismatch, "device_mismatch",
                  "Tensors on different devices meet in one operator.", kPassesStrict, kError},
    ErrorKindInfo{K::InvalidRank, "invalid_rank",
                  "A tensor has a rank the operator does not accept, or ranks that must agree do not.",
                  kPassesStrict, kError},
    ErrorKindInfo{K::ShapeMismatch, "shape_mismatch", "Sizes that must agree provably differ.", kPassesStrict, kError},
    ErrorKindInfo{K::InvalidShape, "invalid_shape",
                  "A shape, or a size computed from one, is invalid (negative, of the wrong length, ...).",
                  kPassesStrict, kError},
    ErrorKindInfo{K::InvalidAxis, "invalid_axis",
                  "An axis is out of range for the rank, or repeated.", kPassesStrict, kError},
    ErrorKindInfo{K::IndexError, "index_error", "An index, dim or position is out of range.", kPassesStrict, kError},
    ErrorKindInfo{K::InvalidSplit, "invalid_split",
                  "Split sizes do not divide or add up to the split dim.", kPassesStrict, kError},
    ErrorKindInfo{K::InvalidSlice, "invalid_slice",
                  "Slice starts, ends, axes and steps are inconsistent.", kPassesStrict, kError},
    ErrorKindInfo{K::InvalidPerm, "invalid_perm",
                  "A permutation does not permute the tensor's dims.", kPassesStrict, kError},
    ErrorKindInfo{K::InvalidMemoryFormat, "invalid_memory_format",
                  "A memory format does not fit the tensor's rank.", kPassesStrict, kError},
    ErrorKindInfo{K::ViewError, "view_error",
                  "The result cannot be a view of the input's strides.", kPassesStrict, kError},
    ErrorKindInfo{K::DivisionByZero, "division_by_zero",
                  "An integer division or modulo by zero.", kPassesStrict, kError},
    ErrorKindInfo{K::AssertionError, "assertion_error",
                  "An assertion in the graph (_assert_scalar) provably fails.", kPassesStrict, kError},
    ErrorKindInfo{K::UnknownInput, "unknown_input",
                  "An input whose value, length or shape the rule needs is not known.", kPassesStrict, kError},
    ErrorKindInfo{K::EmptySequence, "empty_sequence",
                  "A sequence that must hold an element is empty.", kPassesStrict, kError},
    ErrorKindInfo{K::EmptyOptional, "empty_optional",
                  "An optional that must hold a value is empty.", kPassesStrict, kError},
    ErrorKindInfo{K::LoopNotStable, "loop_not_stable",
                  "Loop-carried shapes still change after the most passes of the body tried.", kPassesStrict, kError},
    ErrorKindInfo{K::NotImplemented, "not_implemented",
                  "PyTorch has no kernel for these inputs (e.g. their dtype).", kPassesStrict, kError},
    ErrorKindInfo{K::Internal, "internal",
                  "fakeprop could not evaluate the node (a bug in fakeprop).", kPassesStrict, kError},
    ErrorKindInfo{K::Overflow, "overflow", "A size, stride or element count overflows 64 bits.", kPassesStrict, kError},
    ErrorKindInfo{K::Error, "error", "Any other failure while evaluating a node.", kPassesStrict, kError},
    ErrorKindInfo{K::UnsupportedOp, "unsupported_op",
                  "No shape rule for the operator; its outputs are unknown.", kFailsStrict, kError},
    ErrorKindInfo{K::DataDependent, "data_dependent",
                  "A decision depends on a data-dependent value; fixes lists torch._check calls that would decide it.",
                  kFailsStrict, kError},
    ErrorKindInfo{K::ConstraintViolation, "constraint_violation",
                  "A dim marked dynamic or strict was specialized or constrained (exit 1 even without --strict).",
                  kFailsStrict, kError},
    ErrorKindInfo{K::UnknownRank, "unknown_rank",
                  "A graph input has unknown rank (no shape in the model, no --input): its readers' outputs keep "
                  "their element types and lose their shapes.",
                  kPassesStrict, kWarning},
    ErrorKindInfo{K::ValueInfoConflict, "value_info_conflict",
                  "A computed tensor contradicts the model's value_info for it.", kPassesStrict, kError},
    ErrorKindInfo{K::PrecisionLost, "precision_lost",
                  "A size first became unknown (a fresh unbacked symbol) at this node, or its outputs' shapes because an "
                  "input's rank is unknown.", kPassesStrict, kWarning},
    ErrorKindInfo{K::ExpressionTooLarge, "expression_too_large",
                  "An output expression grew too large and was replaced by a fresh unbacked symbol.",
                  kPassesStrict, kWarning},
    ErrorKindInfo{K::SpecializedInput, "specialized_input",
                  "A dynamic input dim of size 0 or 1 was specialized to that constant, as PyTorch does.",
                  kPassesStrict, kWarning},
    ErrorKindInfo{K::NegativeDim, "negative_dim",
                  "A declared dim_value is negative (some exporters write -1 for unknown); it is read as an unknown "
                  "size.",
                  kPassesStrict, kWarning},
    ErrorKindInfo{K::UnknownOpset, "unknown_opset",
                  "The model imports an ai.onnx opset newer than any ONNX release fakeprop's rules follow; the "
                  "newest known opset's rules apply.",
                  kPassesStrict, kWarning},
    ErrorKindInfo{K::DuplicateInput, "duplicate_input",
                  "Two graph inputs have one name; the value is defined by the last of them.",
                  kPassesStrict, kWarning},
    ErrorKindInfo{K::ExtraInputs, "extra_inputs",
                  "A node names more inputs than its operator's schema allows at the model's opset; the rest are "
                  "not read.",
                  kPassesStrict, kWarning},
};

static_assert(indexed_by_enum(kTable, [](const ErrorKindInfo& e) { return e.kind; }, ErrorKind::ExtraInputs),
              "kTable is indexed by ErrorKind and lists every kind");

}  // namespace

std::span<const ErrorKindInfo> error_kinds() { return kTable; }

const ErrorKindInfo& error_kind_info(ErrorKind k) { return kTable[static_cast<size_t>(k)]; }

std::optional<ErrorKind> parse_error_kind(std::string_view name) {
  for (const ErrorKindInfo& i : kTable)
    if (i.name == name) return i.kind;
  return std::nullopt;
}

}  // namespace fakeprop
