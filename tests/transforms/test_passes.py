"""IR clean-up passes: dce, cse, fold_constants, simplify. Each pass must keep the program's
meaning (results compared with the unsimplified jaxpr, both run by eval_jaxpr_reference),
produce jaxprs that pass check_jaxpr, and never mutate its input."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives.control_flow import cond_p, scan_p
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import Primitive
from tjit.tracing.jaxpr import Literal, check_jaxpr, eval_jaxpr_reference
from tjit.transforms import passes
from tjit.transforms.passes import FOLD_MAX_ELEMENTS, cse, dce, fold_constants, simplify

PASSES = [dce, cse, fold_constants, simplify]


def _run(closed, args):
    return eval_jaxpr_reference(closed.jaxpr, closed.consts, [np.asarray(a) for a in args])


def _apply(p, closed, args):
    """Run pass ``p``; check types, non-mutation and unchanged results."""
    before = str(closed)
    n_before = len(closed.eqns)
    out = p(closed)
    assert out is not closed
    assert str(closed) == before and len(closed.eqns) == n_before  # input untouched
    check_jaxpr(out)
    assert [(a.shape, a.dtype, a.weak_type) for a in out.out_avals] == \
        [(a.shape, a.dtype, a.weak_type) for a in closed.out_avals]
    for got, ref in zip(_run(out, args), _run(closed, args)):
        got, ref = np.asarray(got), np.asarray(ref)
        assert got.dtype == ref.dtype and got.shape == ref.shape
        np.testing.assert_array_equal(got, ref)
    return out


def _prims(closed):
    return [e.primitive.name for e in closed.eqns]


X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)


# -- dce ---------------------------------------------------------------------------------------
def test_dce_removes_unused_equations_and_consts():
    c = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))

    def f(x):
        dead = jnp.exp(x) * c      # unused, and the only user of c
        dead2 = jnp.sin(dead)       # noqa: F841
        return jnp.tanh(x) + 1.0

    closed = tjit.make_jaxpr(f)(X)
    assert len(closed.eqns) == 5 and len(closed.consts) == 1
    out = _apply(dce, closed, [X])
    assert _prims(out) == ["tanh", "add"] and out.consts == []


def test_dce_keeps_effectful_equations():
    effect_p = Primitive("test_effect")
    effect_p.effectful = True
    effect_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    effect_p.def_impl(lambda xp, x: x)

    closed = tjit.make_jaxpr(lambda x: (effect_p.bind(x), effect_p.bind(x), x * 2)[2])(X)
    out = _apply(dce, closed, [X])
    assert _prims(out) == ["test_effect", "test_effect", "mul"]
    out = _apply(cse, closed, [X])
    assert _prims(out).count("test_effect") == 2  # never merged
    folded = _apply(fold_constants,
                    tjit.make_jaxpr(lambda x: effect_p.bind(jnp.float32(2)) + x)(X), [X])
    assert "test_effect" in _prims(folded)  # never folded
    # a cond containing an effect is kept although its result is unused
    closed = tjit.make_jaxpr(
        lambda p, x: (lax.cond(p, lambda: effect_p.bind(x), lambda: x), x + 1)[1])(True, X)
    assert "cond" in _prims(_apply(simplify, closed, [True, X]))


def test_dce_prunes_cond_outputs_and_operands():
    def f(p, x, y):
        a, b = lax.cond(p, lambda: (jnp.sin(x), jnp.cos(y)), lambda: (x * 2, y * 3))
        return a
    closed = tjit.make_jaxpr(f)(True, X, X)
    for p in (True, False):
        out = _apply(dce, closed, [p, X, X])
    (eqn,) = [e for e in out.eqns if e.primitive is cond_p]
    assert len(eqn.outvars) == 1 and len(eqn.invars) == 2  # index and x; y is dead
    for b in eqn.params["branches"]:
        assert len(b.jaxpr.eqns) == 1 and len(b.jaxpr.invars) == 1
    assert _prims(out) == ["convert_element_type", "cond"]


def test_dce_prunes_scan_ys_and_dead_carries():
    def f(xs):
        def body(c, x):
            a, b, n = c
            return (a + x, b * x, n + 1), (jnp.sin(a), a * 2)
        (a, b, n), (ys_sin, ys2) = lax.scan(body, (jnp.float32(0), jnp.float32(1), 0), xs)
        return a, ys2  # b, n and ys_sin are dead
    xs = np.arange(1, 5, dtype=np.float32)
    closed = tjit.make_jaxpr(f)(xs)
    out = _apply(dce, closed, [xs])
    (eqn,) = [e for e in out.eqns if e.primitive is scan_p]
    assert eqn.params["num_carry"] == 1 and len(eqn.outvars) == 2
    assert [e.primitive.name for e in eqn.params["jaxpr"].jaxpr.eqns] == ["add", "mul"]


def test_dce_scan_keeps_carry_read_by_live_outputs():
    def f(xs):
        def body(c, x):
            a, b = c
            return (a + b, b + x), a   # a's update reads b: b must stay
        (a, b), ys = lax.scan(body, (jnp.float32(0), jnp.float32(1)), xs)
        return a
    xs = np.arange(5, dtype=np.float32)
    out = _apply(dce, tjit.make_jaxpr(f)(xs), [xs])
    (eqn,) = [e for e in out.eqns if e.primitive is scan_p]
    assert eqn.params["num_carry"] == 2 and len(eqn.outvars) == 2


# -- cse ---------------------------------------------------------------------------------------
def test_cse_merges_equal_equations():
    def f(x):
        a = jnp.sin(x) * 2.0
        b = jnp.sin(x) * 2.0          # same as a
        c = jnp.sin(x) * 3.0          # different literal
        s0 = jnp.sum(x, axis=0)
        s1 = jnp.sum(x, axis=1)       # different params
        return a + b + c, s0, s1, jnp.sum(x, axis=0)
    closed = tjit.make_jaxpr(f)(X)
    out = _apply(cse, closed, [X])
    assert _prims(closed).count("sin") == 3 and _prims(out).count("sin") == 1
    assert _prims(out).count("mul") == 2
    assert _prims(out).count("reduce_sum") == 2
    assert out.jaxpr.outvars[1] is out.jaxpr.outvars[3]


def test_cse_literals_compare_by_value_and_dtype():
    def f(x, i):
        return x + 1.0, x + 1.0, i + 1, x + 2.0
    closed = tjit.make_jaxpr(f)(X, np.int32(3))
    out = _apply(cse, closed, [X, np.int32(3)])
    assert _prims(out) == ["add", "add", "add"]


def test_cse_inside_sub_jaxprs_and_shared_bodies():
    def f(p, x):
        return lax.cond(p, lambda: jnp.exp(x) + jnp.exp(x), lambda: x)
    closed = tjit.make_jaxpr(f)(True, X)
    out = _apply(cse, closed, [True, X])
    (eqn,) = [e for e in out.eqns if e.primitive is cond_p]
    assert [e.primitive.name for e in eqn.params["branches"][1].jaxpr.eqns] == ["exp", "add"]


# -- constant folding --------------------------------------------------------------------------
def test_fold_small_constants_into_consts_and_literals():
    def f(x):
        k = jnp.asarray(np.arange(3.0, dtype=np.float32)) * 2 + 1   # foldable array
        # (not jnp.arange(3.0): an iota, which folding keeps, as JAX's arange)
        s = jnp.float32(2) * jnp.float32(3) + 1     # foldable scalar
        return x * k + s
    closed = tjit.make_jaxpr(f)(X)
    out = _apply(fold_constants, closed, [X])
    out = _apply(dce, out, [X])
    # the arithmetic is folded; the broadcast to x's shape stays (it fuses for free)
    assert _prims(out) == ["broadcast_in_dim", "mul", "add"]
    (const,) = out.consts
    np.testing.assert_array_equal(np.asarray(const), np.arange(3.0, dtype=np.float32) * 2 + 1)
    lits = [v for e in out.eqns for v in e.invars if isinstance(v, Literal)]
    assert [float(np.asarray(v.val)) for v in lits] == [7.0]


def test_fold_threshold():
    n = FOLD_MAX_ELEMENTS + 1

    def f(x):
        big = jnp.ones(n) * 2.0
        small = jnp.ones(FOLD_MAX_ELEMENTS) * 2.0
        return x + big.sum(), x + small.sum()
    x = np.float32(1)
    out = _apply(simplify, tjit.make_jaxpr(f)(x), [x])
    assert "mul" in _prims(out) and _prims(out).count("add") == 2
    assert all(c.size <= FOLD_MAX_ELEMENTS for c in out.consts)


def test_fold_outputs_become_literals_consts_or_inputs():
    c = jnp.asarray(np.arange(4, dtype=np.int32))

    def f(x):
        return x, jnp.int32(6) * 7, c * 2
    closed = tjit.make_jaxpr(f)(X)
    out = _apply(simplify, closed, [X])
    assert out.eqns == []
    a, b, d = out.jaxpr.outvars
    assert a is out.jaxpr.invars[0]
    assert isinstance(b, Literal) and int(np.asarray(b.val)) == 42
    assert d in out.jaxpr.constvars
    r = tjit.jit(f)(X)
    assert int(r[1]) == 42 and r[1].dtype == np.int32
    np.testing.assert_array_equal(np.asarray(r[2]), np.arange(4) * 2)


def test_fold_does_not_touch_values_depending_on_inputs_and_keeps_errors_for_runtime():
    def f(x):
        return x * 2 + jnp.int32(5) // jnp.int32(0)
    x = np.int32(3)
    closed = tjit.make_jaxpr(f)(x)
    out = _apply(fold_constants, closed, [x])
    assert "mul" in _prims(out)


def test_fold_inlines_cond_with_known_predicate():
    def f(x):
        return lax.cond(True, lambda: jnp.sin(x), lambda: jnp.cos(x)), \
            lax.switch(5, [lambda: x + 1, lambda: x - 1], )
    closed = tjit.make_jaxpr(f)(X)
    assert _prims(closed).count("cond") == 2
    out = _apply(simplify, closed, [X])
    assert "cond" not in _prims(out)
    assert sorted(_prims(out)) == ["sin", "sub"]


def test_fold_inside_loop_bodies():
    def f(xs):
        return lax.scan(lambda c, x: (c + x * (jnp.float32(2) * 3), c), jnp.float32(0), xs)
    xs = np.arange(4, dtype=np.float32)
    out = _apply(fold_constants, tjit.make_jaxpr(f)(xs), [xs])
    (eqn,) = [e for e in out.eqns if e.primitive is scan_p]
    body = eqn.params["jaxpr"]
    assert [e.primitive.name for e in body.jaxpr.eqns] == ["mul", "add"] and not body.consts


# -- whole pipeline on random programs ---------------------------------------------------------
def _random_program(seed):
    rng = np.random.default_rng(seed)
    ops = [jnp.sin, jnp.exp, jnp.tanh, lambda a: a * 2.0, lambda a: a + 1.0, jnp.negative]
    binops = [jnp.add, jnp.multiply, jnp.subtract, jnp.maximum]
    plan = [(rng.integers(0, 3), rng.integers(0, 6), rng.integers(0, 4),
             rng.integers(0, 100, 2)) for _ in range(12)]
    const = jnp.asarray(rng.standard_normal(3).astype(np.float32))

    def f(x):
        vals = [x, const, jnp.float32(0.5) * const]
        for kind, u, b, (i, j) in plan:
            a, c = vals[i % len(vals)], vals[j % len(vals)]
            if kind == 0:
                vals.append(ops[u](a))
            elif kind == 1:
                vals.append(binops[b](a, c))
            else:
                vals.append(ops[u](a))
                vals.append(ops[u](a))  # a duplicate for cse
        return vals[-1], vals[len(vals) // 2]
    return f


@pytest.mark.parametrize("seed", range(8))
def test_passes_preserve_random_programs(seed):
    f = _random_program(seed)
    x = np.linspace(-1, 1, 3).astype(np.float32)
    closed = tjit.make_jaxpr(f)(x)
    for p in PASSES:
        out = _apply(p, closed, [x])
        assert len(out.eqns) <= len(closed.eqns)
    out = _apply(simplify, closed, [x])
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x)[0]), np.asarray(f(x)[0]), rtol=1e-6)
    assert passes.simplify(out).eqns.__len__() == len(out.eqns)  # a fixed point


def test_jit_uses_simplify():
    def f(x):
        dead = jnp.exp(x)  # noqa: F841
        return jnp.sin(x) + jnp.sin(x)
    text = tjit.jit(f).lower(X).as_text()
    assert text.count("sin") == 1 and "exp" not in text
