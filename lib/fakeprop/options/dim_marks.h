// Per-dim marks with options (--mark), as torch._dynamo's mark_dynamic,
// maybe_mark_dynamic, mark_unbacked and mark_static take them:
//
//   --mark "SPEC=KIND[,OPTION...]"
//   KIND:    dynamic | maybe_dynamic | unbacked | static
//   OPTION:  min=N  max=N  shape_id=ID  strict  hint_override=N
//            specialize_on=PRED   (repeatable; PRED over `x`, the dim's size)
//
// SPEC is one source-spec entry (exact name or start-anchored regex, `:N`
// for one dim; L[x] and x mean L['x']). `dynamic` is mark_dynamic: a
// specialization of the dim, or a guard excluding part of its range, is a
// constraint violation. `maybe_dynamic` never is. `strict` makes an unbacked
// (or maybe_dynamic) dim behave the same way. Several marks of one dim combine
// as torch's calls on one tensor do (`DimMarks::for_dim`).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fakeprop/options/source_spec.h"
#include "fakeprop/sym/shape_env.h"

namespace fakeprop {

struct InferOptions;
struct InputSpecialization;
struct ErrorRecord;

enum class MarkKind : uint8_t { Dynamic, MaybeDynamic, Unbacked, Static };

struct DimMarkOptions {
  std::string text;  // as given, for messages
  std::string spec;  // the SPEC part
  MarkKind kind = MarkKind::Dynamic;
  std::optional<int64_t> min, max, hint_override;
  std::string shape_id;
  bool strict = false;
  std::vector<std::string> specialize_on;  // predicate texts over `x`
  // Set in the options of a specialize_on run: the predicate this run assumes.
  std::optional<size_t> active_predicate;
  // An unbacked dim also given mark_dynamic: that call's range (min/max are
  // then mark_unbacked's bounds, which are runtime asserts).
  std::optional<ValueRange> unbacked_constraint;

  ValueRange range() const;
  // The range min/max ask for within `sizes`, or nullopt without either
  // (mark_dynamic's StrictMinMaxConstraint against its RelaxedUnspecConstraint).
  std::optional<ValueRange> marked_range(ValueRange sizes) const {
    if (!min && !max) return std::nullopt;
    return range().intersect(sizes);
  }
  // Constraint violations apply (mark_dynamic, or strict).
  bool is_strict() const { return kind == MarkKind::Dynamic || strict; }
};

class DimMarks {
 public:
  // Parses one --mark value; throws InputError naming the problem.
  void add(const std::string& text);
  // The marks matching dim `dim` of `tensor_source`, combined in order as
  // torch 2.15's calls on one tensor combine (see dim_marks.cpp), or nullopt.
  std::optional<DimMarkOptions> for_dim(const std::string& tensor_source, int64_t dim) const;
  // Marks that matched none of `sources`: InputError naming the sources.
  void check_all_matched(const std::vector<std::string>& sources) const;
  bool empty() const { return marks_.empty(); }
  std::vector<DimMarkOptions>& entries() { return marks_; }
  const std::vector<DimMarkOptions>& entries() const { return marks_; }

 private:
  std::vector<DimMarkOptions> marks_;
  std::vector<SourceSpecs> matchers_;  // one entry each, parallel to marks_
};

// What the options say about one input dim, after precedence: --static, then
// --mark (last wins), then --unbacked, then --dynamic; a dim the model fixes
// becomes dynamic when assume_static_by_default is off.
struct DimPlan {
  DimMark mark = DimMark::Unmarked;
  std::shared_ptr<const DimMarkOptions> options;  // the combined marks, or null
  // Dynamic only because assume_static_by_default is off (dynamic=True):
  // duck sized, as Dynamo's DimDynamic.DUCK. Marks and dynamic sources are
  // DimDynamic.DYNAMIC: a symbol of their own.
  bool duck = false;
};
DimPlan plan_input_dim(const InferOptions& o, const std::string& tensor_source, int64_t dim, bool fixed_in_model);

// Where the marked dims of one run's inputs are made; shared by the front ends.
class InputDimFactory {
 public:
  InputDimFactory(ShapeEnv& env, std::vector<InputSpecialization>& specializations, std::vector<ErrorRecord>& warnings)
      : env_(env), specializations_(specializations), warnings_(warnings) {}

  // A dim with plan.mark != Unmarked. `hint` is required for Static and Dynamic;
  // `preferred_name` names the symbol (an ONNX dim_param).
  SymInt create(const DimPlan& plan, const std::string& tensor_source, int64_t dim, std::optional<int64_t> hint,
                const std::string& preferred_name = "");
  // After every input: dims that share a shape_id are asserted equal.
  void finish();
  // A dynamic dim whose example was 0 or 1 stayed that constant: the report says
  // why and how to keep it symbolic.
  void record_zero_one(const std::string& tensor_source, int64_t dim, int64_t value);

 private:
  SymInt create_dynamic(const DimPlan& plan, const std::string& tensor_source, int64_t dim, int64_t hint,
                        const std::string& preferred_name);
  bool apply_predicate(const DimMarkOptions& m, const std::string& dsrc, SymInt& size, int64_t& hint);

  ShapeEnv& env_;
  std::vector<InputSpecialization>& specializations_;
  std::vector<ErrorRecord>& warnings_;
  struct Member {
    std::string id, source;
    SymInt size;
  };
  std::vector<Member> shape_ids_;
};

// The predicate text of a specialize_on run over the dim's source.
std::string describe_predicate(const std::string& predicate, const std::string& dim_source);

}  // namespace fakeprop
