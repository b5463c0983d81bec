#include "fakeprop/options/dim_marks.h"

#include <gtest/gtest.h>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/value/run_result.h"
#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

const std::string kX = "L['x']";
const std::string kX0 = "L['x'].size()[0]";

TEST(DimMarks, ParsesKindAndEveryOption) {
  DimMarks marks;
  marks.add("L[x]:0 = unbacked, min=2, max=64, shape_id=batch, strict, hint_override=32, specialize_on=x%16==0");
  ASSERT_EQ(marks.entries().size(), 1u);
  const DimMarkOptions* m = &marks.entries()[0];
  EXPECT_EQ(m->kind, MarkKind::Unbacked);
  EXPECT_EQ(m->min, 2);
  EXPECT_EQ(m->max, 64);
  EXPECT_EQ(m->shape_id, "batch");
  EXPECT_TRUE(m->strict);
  EXPECT_EQ(m->hint_override, 32);
  EXPECT_EQ(m->specialize_on, std::vector<std::string>{"x%16==0"});
  EXPECT_FALSE(marks.for_dim(kX, 1));  // the :0 suffix selects one dim
  // torch's strict mark_unbacked records the strictness and nothing else.
  const std::optional<DimMarkOptions> c = marks.for_dim(kX, 0);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, MarkKind::MaybeDynamic);
  EXPECT_TRUE(c->is_strict());
  EXPECT_FALSE(c->min || c->max || c->hint_override || !c->specialize_on.empty() || !c->shape_id.empty());
}

TEST(DimMarks, MarksOfOneDimCombineAsTorchsCallsOnOneTensor) {
  DimMarks marks;
  marks.add("x=maybe_dynamic");
  marks.add("x:1=static");  // a dynamic mark wins over a static one
  EXPECT_EQ(marks.for_dim(kX, 0)->kind, MarkKind::MaybeDynamic);
  EXPECT_EQ(marks.for_dim(kX, 1)->kind, MarkKind::MaybeDynamic);
  marks.add("x:2=static");
  EXPECT_EQ(marks.for_dim(kX, 2)->kind, MarkKind::MaybeDynamic);

  DimMarks a;  // maybe_mark_dynamic after mark_dynamic is ignored
  a.add("x:0=dynamic,min=5,max=6");
  a.add("x:0=maybe_dynamic");
  EXPECT_EQ(a.for_dim(kX, 0)->kind, MarkKind::Dynamic);
  EXPECT_EQ(a.for_dim(kX, 0)->max, 6);

  DimMarks b;  // mark_dynamic replaces the range, and without one declares none
  b.add("x:0=maybe_dynamic,min=3,max=9");
  b.add("x:0=dynamic");
  EXPECT_EQ(b.for_dim(kX, 0)->kind, MarkKind::Dynamic);
  EXPECT_FALSE(b.for_dim(kX, 0)->min || b.for_dim(kX, 0)->max);

  DimMarks u;  // unbacked wins; its bounds stay runtime asserts, mark_dynamic's range constrains
  u.add("x:0=dynamic,min=2,max=8");
  u.add("x:0=unbacked,min=1,max=4");
  const std::optional<DimMarkOptions> c = u.for_dim(kX, 0);
  EXPECT_EQ(c->kind, MarkKind::Unbacked);
  EXPECT_EQ(c->max, 4);
  EXPECT_TRUE(c->is_strict());
  ASSERT_TRUE(c->unbacked_constraint);
  EXPECT_EQ(c->unbacked_constraint->hi, 8);

  DimMarks w;  // strictness gives way to a maybe_mark_dynamic range (a warning only)
  w.add("x:0=maybe_dynamic,min=2,max=8");
  w.add("x:0=unbacked,strict");
  EXPECT_FALSE(w.for_dim(kX, 0)->is_strict());
}

TEST(DimMarks, PredicatesMayHoldCommasInsideCalls) {
  DimMarks marks;
  marks.add("x:0=dynamic,specialize_on=max(x, 4)==8,max=16");
  EXPECT_EQ(marks.for_dim(kX, 0)->specialize_on, std::vector<std::string>{"max(x,4)==8"});
  EXPECT_EQ(marks.for_dim(kX, 0)->max, 16);
}

TEST(DimMarks, RefusesMalformedMarks) {
  DimMarks marks;
  EXPECT_THROW(marks.add("x:0"), InputError);                              // no kind
  EXPECT_THROW(marks.add("x:0=elastic"), InputError);                      // unknown kind
  EXPECT_THROW(marks.add("x:0=dynamic,min=abc"), InputError);              // not an integer
  EXPECT_THROW(marks.add("x:0=dynamic,min=9,max=3"), InputError);          // empty range
  EXPECT_THROW(marks.add("x:0=dynamic,colour=red"), InputError);           // unknown option
  EXPECT_THROW(marks.add("x:0=static,max=3"), InputError);                 // static takes no range
  EXPECT_THROW(marks.add("x:0=dynamic,specialize_on=y==3"), InputError);   // only x
  EXPECT_THROW(marks.add("x:0=dynamic,specialize_on=x+3"), InputError);    // not a condition
  EXPECT_TRUE(marks.empty());
}

TEST(DimMarks, UnmatchedMarkNamesTheSources) {
  DimMarks marks;
  marks.add("L['y']:0=dynamic");
  try {
    marks.check_all_matched({kX});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("L['x']"), std::string::npos) << e.what();
  }
}

TEST(PlanInputDim, StaticSpecWinsThenMarkThenSpecs) {
  InferOptions o;
  o.specs.add(DimMark::Dynamic, "x");
  EXPECT_EQ(plan_input_dim(o, kX, 0, true).mark, DimMark::Dynamic);
  o.marks.add("x:0=unbacked");
  EXPECT_EQ(plan_input_dim(o, kX, 0, true).mark, DimMark::Unbacked);
  EXPECT_NE(plan_input_dim(o, kX, 0, true).options, nullptr);
  o.specs.add(DimMark::Static, "x");
  EXPECT_EQ(plan_input_dim(o, kX, 0, true).mark, DimMark::Static);
}

TEST(PlanInputDim, AssumeStaticByDefaultOffMakesFixedDimsDynamic) {
  InferOptions o;
  EXPECT_EQ(plan_input_dim(o, kX, 0, true).mark, DimMark::Unmarked);
  o.assume_static_by_default = false;
  EXPECT_EQ(plan_input_dim(o, kX, 0, true).mark, DimMark::Dynamic);
  EXPECT_EQ(plan_input_dim(o, kX, 0, false).mark, DimMark::Unmarked);  // a dim_param keeps the model's policy
}

std::optional<int64_t> constant(const SymInt& s) { return s.is_static() ? std::optional<int64_t>(s.value()) : std::nullopt; }

struct Factory {
  ShapeEnv env;
  std::vector<InputSpecialization> specs;
  std::vector<ErrorRecord> warnings;
  InputDimFactory make{env, specs, warnings};
};

TEST(InputDimFactory, MarkDynamicOnSizeOneIsNoViolationWithoutARange) {
  // torch.compile's RelaxedUnspecConstraint does not complain about 0/1.
  InferOptions o;
  o.marks.add("x:0=dynamic");
  Factory f;
  EXPECT_EQ(constant(f.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 1)), 1);
  EXPECT_EQ(f.env.constraint_violations(), "");
}

TEST(InputDimFactory, MarkDynamicWithARangeOnSizeOneIsAViolation) {
  InferOptions o;
  o.marks.add("x:0=dynamic,min=1");
  Factory f;
  SymInt s = f.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 1);
  EXPECT_EQ(constant(s), 1);
  ASSERT_EQ(f.specs.size(), 1u);
  EXPECT_NE(f.env.constraint_violations().find("You marked L['x'].size()[0] as dynamic but your code specialized it "
                                               "to be a constant (1)"),
            std::string::npos);
}

TEST(InputDimFactory, MaybeDynamicOnSizeOneIsNot) {
  InferOptions o;
  o.marks.add("x:0=maybe_dynamic");
  Factory f;
  EXPECT_EQ(constant(f.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 1)), 1);
  EXPECT_EQ(f.env.constraint_violations(), "");
}

TEST(InputDimFactory, DynamicRangeAndHintOutsideIt) {
  InferOptions o;
  o.marks.add("x:0=dynamic,min=4,max=64,hint_override=48");
  Factory f;
  SymInt s = f.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 8);
  ASSERT_TRUE(s.is_symbolic());
  EXPECT_EQ(f.env.info(s.expr()).range, (ValueRange{4, 64}));
  EXPECT_EQ(f.env.info(s.expr()).hint_override, 48);
  Factory g;
  EXPECT_THROW(g.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 100), InputError);
}

TEST(InputDimFactory, UnbackedMinMaxAreRuntimeAsserts) {
  InferOptions o;
  o.marks.add("x:0=unbacked,min=2,max=64");
  Factory f;
  SymInt u = f.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 8);
  ASSERT_TRUE(u.is_symbolic());
  EXPECT_TRUE(f.env.info(u.expr()).unbacked);
  ASSERT_EQ(f.env.runtime_asserts().size(), 2u);
  EXPECT_EQ(to_python_string(f.env.runtime_asserts()[0].expr), "u0 >= 2");
  EXPECT_EQ(to_python_string(f.env.runtime_asserts()[1].expr), "u0 <= 64");
  EXPECT_EQ(f.env.bound(u.expr()), (ValueRange{2, 64}));
}

TEST(InputDimFactory, ShapeIdAssertsEquality) {
  InferOptions o;
  o.marks.add("x:0=maybe_dynamic,shape_id=b");
  o.marks.add("y:0=maybe_dynamic,shape_id=b");
  Factory f;
  SymInt a = f.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 8);
  SymInt b = f.make.create(plan_input_dim(o, "L['y']", 0, true), "L['y']", 0, 8);
  f.make.finish();
  ASSERT_TRUE(a.is_symbolic() && b.is_symbolic());
  EXPECT_EQ(f.env.simplify(b.expr()), f.env.simplify(a.expr()));
  ASSERT_EQ(f.env.guards().size(), 1u);
  EXPECT_EQ(f.env.guards()[0].rule, "shape_id");
}

TEST(InputDimFactory, ShapeIdWithDifferentHintsIsBadInput) {
  InferOptions o;
  o.marks.add("x:0=maybe_dynamic,shape_id=b");
  o.marks.add("y:0=maybe_dynamic,shape_id=b");
  Factory f;
  f.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 8);
  f.make.create(plan_input_dim(o, "L['y']", 0, true), "L['y']", 0, 9);
  EXPECT_THROW(f.make.finish(), InputError);
}

TEST(InputDimFactory, SpecializeOnEqualityMakesTheDimConstant) {
  InferOptions o;
  o.marks.add("x:0=dynamic,specialize_on=x==32");
  o.marks.entries()[0].active_predicate = 0;
  Factory f;
  EXPECT_EQ(constant(f.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 8)), 32);
}

// torch's create_symbol checks a one-value StrictMinMaxConstraint before it
// looks at DimDynamic: mark_unbacked beside mark_dynamic(min=2, max=2) is
// the static 2, and an example of another size is its error.
TEST(InputDimFactory, UnbackedWithAOneValueDynamicRangeIsThatValue) {
  InferOptions o;
  o.marks.add("x:0=unbacked");
  o.marks.add("x:0=dynamic,min=2,max=2");
  Factory f;
  const DimPlan plan = plan_input_dim(o, kX, 0, true);
  EXPECT_EQ(plan.mark, DimMark::Unbacked);
  SymInt s = f.make.create(plan, kX, 0, 2);
  ASSERT_TRUE(s.is_static());
  EXPECT_EQ(s.value(), 2);
  try {
    (void)f.make.create(plan, kX, 0, 1);
    ADD_FAILURE() << "expected the static constraint's error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "Static shape constraint of 2 does not match input size of 1, for " + kX0);
  }
}

// maybe_mark_dynamic(min=v, max=v) is a StrictMinMaxConstraint too (warn_only),
// and create_symbol makes any of one value static: no symbol, another size an error.
TEST(InputDimFactory, MaybeDynamicWithAOneValueRangeIsStatic) {
  InferOptions o;
  o.marks.add("x:0=maybe_dynamic,min=2,max=2");
  Factory f;
  const DimPlan plan = plan_input_dim(o, kX, 0, true);
  SymInt s = f.make.create(plan, kX, 0, 2);
  ASSERT_TRUE(s.is_static());
  EXPECT_EQ(s.value(), 2);
  EXPECT_EQ(f.env.constraint_violations(), "");
  try {
    (void)f.make.create(plan, kX, 0, 3);
    ADD_FAILURE() << "expected the static constraint's error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "Static shape constraint of 2 does not match input size of 3, for " + kX0);
  }
}

TEST(InputDimFactory, SpecializeOnDivisibilityMovesTheHintAndGuards) {
  InferOptions o;
  o.marks.add("x:0=maybe_dynamic,specialize_on=x%16==0");
  o.marks.entries()[0].active_predicate = 0;
  Factory f;
  SymInt s = f.make.create(plan_input_dim(o, kX, 0, true), kX, 0, 20);
  ASSERT_TRUE(s.is_symbolic());
  EXPECT_EQ(f.env.hint(s), 32);  // the first size >= 20 that satisfies it
  ASSERT_EQ(f.env.guards().size(), 1u);
  EXPECT_EQ(f.env.guards()[0].rule, "specialize_on");
  EXPECT_EQ(describe_predicate("x%16==0", kX0), "L['x'].size()[0] % 16 == 0");
}

}  // namespace
}  // namespace fakeprop
