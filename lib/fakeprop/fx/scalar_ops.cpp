#include "fakeprop/fx/scalar_ops.h"

#include <algorithm>
#include <optional>

#include "fakeprop/util/error.h"

namespace fakeprop::fx {

bool is_scalar_target(std::string_view target, std::string_view& op) {
  for (std::string_view prefix : {"operator.", "_operator."}) {
    if (target.starts_with(prefix)) {
      op = target.substr(prefix.size());
      return true;
    }
  }
  static constexpr std::string_view kOthers[] = {
      "math.floor", "math.ceil", "math.trunc", "builtins.round", "round",
      "torch.sym_float", "torch.sym_int", "torch.sym_max", "torch.sym_min", "torch.sym_not", "torch.sym_ite",
      "torch.sym_sum",
  };
  for (std::string_view t : kOthers) {
    if (target == t) {
      op = t.starts_with("torch.") ? t.substr(6) : t.starts_with("builtins.") ? t.substr(9) : t;
      return true;
    }
  }
  return false;
}

namespace {

std::optional<SymInt> int_of(const Value& v) {
  if (v.kind == Value::Kind::Int) return v.i;
  if (v.kind == Value::Kind::Bool && v.b.is_static()) return SymInt(v.b.value() ? 1 : 0);
  return std::nullopt;
}

// A float operand as an expression: a SymFloat's own, a constant's node, or
// an int converted as Python converts it (float(n)).
std::optional<ExprRef> float_of(const Value& v) {
  if (v.kind == Value::Kind::Float) return v.float_expr ? v.float_expr : float_const(v.f);
  if (auto i = int_of(v)) return to_float(i->expr());
  return std::nullopt;
}

bool is_float(const Value& v) { return v.kind == Value::Kind::Float; }

Value float_value(ExprRef e, const ShapeEnv& env) { return Value::of_symfloat(env.simplify(e)); }

Value int_value(ExprRef e, const ShapeEnv& env) { return Value::of_int(env.simplify(SymInt(e))); }

Value bool_value(const SymBool& c, const ShapeEnv& env) {
  return Value::of_bool(c.is_static() ? c : SymBool(env.simplify(c.expr())));
}

// Builder errors (division by zero, a complex power) as the op's error.
template <typename F>
auto python_op(const std::string& target, F&& f) {
  try {
    return f();
  } catch (const OpError&) {
    throw;
  } catch (const OverflowError& e) {
    throw OpError(ErrorKind::InvalidArgument, target + ": OverflowError: " + e.what());
  } catch (const Error& e) {
    throw OpError(ErrorKind::InvalidArgument, target + ": " + e.what());
  }
}

Value getitem(std::span<const Value* const> args) {
  if (args.size() != 2) throw OpError(ErrorKind::TypeError, "operator.getitem takes 2 arguments");
  auto idx = int_of(*args[1]);
  if (args[0]->kind != Value::Kind::List || !idx || !idx->is_static())
    throw OpError(ErrorKind::TypeError, "operator.getitem needs a tuple and a constant index");
  const auto n = static_cast<int64_t>(args[0]->list->size());
  int64_t i = idx->value() < 0 ? idx->value() + n : idx->value();
  if (i < 0 || i >= n) throw OpError(ErrorKind::IndexError, "tuple index out of range");
  return (*args[0]->list)[static_cast<size_t>(i)];
}

// One-operand calls: neg, not_, math.floor/ceil/trunc, round, sym_float, sym_int, sym_not.
std::optional<Value> unary(std::string_view op, const Value& a, ShapeEnv& env) {
  if ((op == "not_" || op == "sym_not") && a.kind == Value::Kind::Bool) return bool_value(sym_not(a.b), env);
  if (op == "neg") {
    if (is_float(a)) return float_value(float_neg(*float_of(a)), env);
    if (auto i = int_of(a)) return Value::of_int(env.simplify(-*i));
    return std::nullopt;
  }
  if (op == "sym_float") {
    if (auto f = float_of(a)) return float_value(*f, env);
    return std::nullopt;
  }
  using ToInt = ExprRef (*)(ExprRef);
  ToInt to_int = op == "math.floor" ? floor_to_int
                 : op == "math.ceil" ? ceil_to_int
                 : op == "math.trunc" || op == "sym_int" ? trunc_to_int
                 : op == "round" ? round_to_int
                                 : nullptr;
  if (!to_int) return std::nullopt;
  if (is_float(a)) return int_value(to_int(*float_of(a)), env);
  if (auto i = int_of(a)) return Value::of_int(*i);  // of an int, the int itself
  return std::nullopt;
}

std::optional<Value> binary_float(std::string_view op, ExprRef a, ExprRef b, ShapeEnv& env) {
  if (op == "add") return float_value(float_add(a, b), env);
  if (op == "sub") return float_value(float_sub(a, b), env);
  if (op == "mul") return float_value(float_mul(a, b), env);
  if (op == "truediv") return float_value(float_truediv(a, b), env);
  if (op == "pow") return float_value(float_pow(a, b), env);
  if (op == "sym_max") return float_value(float_max(a, b), env);
  if (op == "sym_min") return float_value(float_min(a, b), env);
  if (op == "eq") return bool_value(SymBool(eq(a, b)), env);
  if (op == "ne") return bool_value(SymBool(ne(a, b)), env);
  if (op == "lt") return bool_value(SymBool(lt(a, b)), env);
  if (op == "le") return bool_value(SymBool(le(a, b)), env);
  if (op == "gt") return bool_value(SymBool(gt(a, b)), env);
  if (op == "ge") return bool_value(SymBool(ge(a, b)), env);
  return std::nullopt;
}

std::optional<Value> binary_int(std::string_view op, const SymInt& a, const SymInt& b, ShapeEnv& env) {
  auto simplified = [&](SymInt x) { return Value::of_int(env.simplify(x)); };
  if (op == "add") return simplified(a + b);
  if (op == "sub") return simplified(a - b);
  if (op == "mul") return simplified(a * b);
  if (op == "floordiv") return simplified(floordiv(a, b));
  if (op == "mod") return simplified(mod(a, b));
  if (op == "truediv") return float_value(int_truediv(a.expr(), b.expr()), env);
  if (op == "pow" && b.is_static() && b.value() >= 0) return simplified(SymInt(pow(a.expr(), b.value())));
  if (op == "pow" && b.is_static()) return float_value(float_pow(to_float(a.expr()), to_float(b.expr())), env);
  if (op == "sym_max") return simplified(sym_max(a, b));
  if (op == "sym_min") return simplified(sym_min(a, b));
  if (op == "eq") return bool_value(sym_eq(a, b), env);
  if (op == "ne") return bool_value(sym_ne(a, b), env);
  if (op == "lt") return bool_value(sym_lt(a, b), env);
  if (op == "le") return bool_value(sym_le(a, b), env);
  if (op == "gt") return bool_value(sym_gt(a, b), env);
  if (op == "ge") return bool_value(sym_ge(a, b), env);
  return std::nullopt;
}

// torch.sym_ite(b, t, f): t if b else f, on ints. A b decided without a
// guard picks its side. torch gives an undecided one Piecewise((t, b), (f,
// True)); where b is item() of a bool tensor, Eq(u, 1) with u in [0, 1] (an
// unbacked SymBool, as ShapeEnv makes it), that is exactly f + (t - f)*u,
// which is what torch asserts on: HF VITS checks torch._check(t.all()) in
// export as sym_ite(item(_is_all_true(t)), 1, 0) and asserts u == 1. Any
// other undecided b gives a fresh unbacked int within t's and f's ranges.
Value sym_ite(const std::string& target, std::span<const Value* const> args, ShapeEnv& env) {
  if (args.size() != 3 || args[0]->kind != Value::Kind::Bool)
    throw OpError(ErrorKind::TypeError, target + " takes a SymBool and two values");
  const SymBool& b = args[0]->b;
  auto t = int_of(*args[1]), f = int_of(*args[2]);
  if (args[1]->kind == Value::Kind::Bool || args[2]->kind == Value::Kind::Bool || !t || !f)
    throw OpError(ErrorKind::UnsupportedOp, "no rule for " + target + " other than on ints");
  std::optional<bool> known = b.is_static() ? std::optional<bool>(b.value()) : env.maybe_evaluate_static(b.expr());
  if (known) return Value::of_int(env.simplify(*known ? *t : *f));
  const ExprRef cond = env.simplify(b.expr());
  if (cond->kind() == ExprKind::Eq) {
    for (size_t side = 0; side < 2; ++side) {
      const ExprRef u = cond->arg(side), one = cond->arg(1 - side);
      if (u->is_symbol() && one->is_integer() && one->value() == 1) {
        const ValueRange r = env.bound(u);
        if (r.lo >= 0 && r.hi <= 1) return Value::of_int(env.simplify(*f + (*t - *f) * SymInt(u)));
      }
    }
  }
  const ValueRange rt = env.bound(t->expr()), rf = env.bound(f->expr());
  return Value::of_int(SymInt(env.create_unbacked_symint(false, ValueRange{std::min(rt.lo, rf.lo), std::max(rt.hi, rf.hi)})));
}

// torch.sym_sum([a, b, ...]): Dynamo's sum of SymInts (a flattened Add).
Value sym_sum(const std::string& target, std::span<const Value* const> args, ShapeEnv& env) {
  if (args.size() != 1 || args[0]->kind != Value::Kind::List || !args[0]->list)
    throw OpError(ErrorKind::TypeError, target + " takes one list of ints");
  SymInt total(0);
  for (const Value& v : *args[0]->list) {
    auto i = int_of(v);
    if (!i) throw OpError(ErrorKind::UnsupportedOp, "no rule for " + target + " other than on ints");
    total = total + *i;
  }
  return Value::of_int(env.simplify(total));
}

}  // namespace

Value eval_scalar_call(const std::string& target, std::string_view op, std::span<const Value* const> args,
                       ShapeEnv& env) {
  if (op == "getitem") return getitem(args);
  if (op == "sym_ite") return sym_ite(target, args, env);
  if (op == "sym_sum") return sym_sum(target, args, env);
  return python_op(target, [&]() -> Value {
    // round(x, None), as torch.export records round(x).
    const bool one_operand = args.size() == 1 || (op == "round" && args.size() == 2 && args[1]->is_none());
    if (one_operand) {
      if (auto v = unary(op, *args[0], env)) return *v;
      throw OpError(ErrorKind::TypeError, target + " is supported on ints, floats and their symbolic forms only");
    }
    // and_ / or_ on SymBools: what torch.export writes for sym_and / sym_or
    // (a runtime assert of `a >= 0 and a <= n`).
    if ((op == "and_" || op == "or_") && args.size() == 2 && args[0]->kind == Value::Kind::Bool &&
        args[1]->kind == Value::Kind::Bool)
      return bool_value(op == "and_" ? sym_and(args[0]->b, args[1]->b) : sym_or(args[0]->b, args[1]->b), env);
    if (args.size() != 2) throw OpError(ErrorKind::TypeError, target + " takes 2 arguments");
    const Value &x = *args[0], &y = *args[1];
    if (is_float(x) || is_float(y)) {
      auto a = float_of(x), b = float_of(y);
      if (!a || !b) throw OpError(ErrorKind::TypeError, target + " is supported on ints, floats and their symbolic forms only");
      if (auto v = binary_float(op, *a, *b, env)) return *v;
      throw OpError(ErrorKind::UnsupportedOp, "no rule for " + target + " on floats");
    }
    auto a = int_of(x), b = int_of(y);
    if (!a || !b)
      throw OpError(ErrorKind::TypeError,
                    target + " is supported on ints, floats and their symbolic forms (and_, or_, not_: on SymBools) only");
    if (auto v = binary_int(op, *a, *b, env)) return *v;
    throw OpError(ErrorKind::UnsupportedOp, "no rule for " + target);
  });
}

}  // namespace fakeprop::fx
