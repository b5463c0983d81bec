// The kinds of problem a run records, errors and warnings alike (the report
// schema gives both the same "problem" object). One enumerator per JSON
// name, so a kind cannot be misspelt at the place that raises it and the
// schema, the --strict exit policy and the docs read one table
// (error_kind.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace fakeprop {

enum class ErrorKind : uint8_t {
  // An operator rule rejected its inputs or attributes.
  InvalidArgument,
  InvalidAttribute,
  MissingAttribute,
  MissingInput,
  InputCount,
  OutputCount,
  TypeError,
  DeviceMismatch,
  InvalidRank,
  ShapeMismatch,
  InvalidShape,
  InvalidAxis,
  IndexError,
  InvalidSplit,
  InvalidSlice,
  InvalidPerm,
  InvalidMemoryFormat,
  ViewError,
  DivisionByZero,
  AssertionError,
  UnknownInput,
  EmptySequence,
  EmptyOptional,
  LoopNotStable,
  NotImplemented,
  Internal,
  Overflow,
  Error,
  // Recorded by the interpreters and the driver, not by a rule.
  UnsupportedOp,
  DataDependent,
  ConstraintViolation,
  UnknownRank,
  ValueInfoConflict,
  // Warnings.
  PrecisionLost,
  ExpressionTooLarge,
  SpecializedInput,
  // What a model file holds that ONNX's checker rejects, read anyway.
  NegativeDim,
  UnknownOpset,
  DuplicateInput,
  ExtraInputs,
};

struct ErrorKindInfo {
  ErrorKind kind;
  std::string_view name;         // the JSON text: contract, never renamed silently
  std::string_view description;  // one line; the schema repeats it
  bool fails_strict;             // an error of this kind makes `infer --strict` exit 1
  bool warning;                  // recorded in `warnings`, not `errors`
};

// Every kind, in enumerator order.
std::span<const ErrorKindInfo> error_kinds();

const ErrorKindInfo& error_kind_info(ErrorKind k);
inline std::string_view error_kind_name(ErrorKind k) { return error_kind_info(k).name; }
inline bool fails_strict(ErrorKind k) { return error_kind_info(k).fails_strict; }
std::optional<ErrorKind> parse_error_kind(std::string_view name);

}  // namespace fakeprop
