"""lax.cond / switch / while_loop / fori_loop / scan / map: values against Python loops and
NumPy (eager and under jit), types and weak types, pytrees, closures over traced values,
printed sub-jaxprs, polymorphic shapes and error messages."""

import collections

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives.control_flow import cond_p, scan_p, while_p
from tjit.tracing.jaxpr import (
    ClosedJaxpr, Jaxpr, JaxprEqn, Var, check_jaxpr, eval_jaxpr, eval_jaxpr_reference)
from tjit.tracing.avals import ShapedArray

DTYPES = [np.float32, np.int32, np.int8, np.uint8, np.float16, np.complex64]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 5, shape).astype(dtype)
    v = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


def _close(actual, expected, rtol=1e-5):
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if np.issubdtype(actual.dtype, np.inexact):
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=1e-6)
    else:
        np.testing.assert_array_equal(actual, expected)


def _all_ways(f, *args):
    """Eager, jit and both interpreters of make_jaxpr's jaxpr (type-checked)."""
    eager = f(*args)
    jitted = tjit.jit(f)(*args)
    closed = tjit.make_jaxpr(f)(*args)
    check_jaxpr(closed)
    leaves = tjit.tree_leaves(args)
    ref = eval_jaxpr_reference(closed.jaxpr, closed.consts, [np.asarray(a) for a in leaves])
    rebind = eval_jaxpr(closed.jaxpr, closed.consts, *leaves)
    return eager, jitted, ref, rebind, closed


def _check_all_ways(f, args, expected):
    eager, jitted, ref, rebind, closed = _all_ways(f, *args)
    exp_leaves = tjit.tree_leaves(expected)
    for got in (tjit.tree_leaves(eager), tjit.tree_leaves(jitted), ref, rebind):
        assert len(got) == len(exp_leaves)
        for g, e in zip(got, exp_leaves):
            _close(g, e)
    assert tjit.tree_structure(eager) == tjit.tree_structure(jitted)
    return closed


# -- cond / switch ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pred", [True, False])
def test_cond_dtypes(dtype, pred):
    x = _data((3, 2), dtype)
    y = _data((3, 2), dtype, seed=1)
    f = lambda p, a, b: lax.cond(p, lambda u, v: u + v, lambda u, v: u * v, a, b)  # noqa
    expected = x + y if pred else x * y
    closed = _check_all_ways(f, (pred, jnp.asarray(x), jnp.asarray(y)), expected)
    assert [e.primitive for e in closed.eqns].count(cond_p) == 1


def test_cond_integer_pred_and_legacy_operand():
    x = jnp.asarray(np.arange(4, dtype=np.float32))
    for p, expected in [(0, np.arange(4) - 1.0), (3, np.arange(4) * 2.0),
                        (jnp.int8(-2), np.arange(4) * 2.0), (np.uint8(0), np.arange(4) - 1.0)]:
        out = lax.cond(p, lambda a: a * 2, lambda a: a - 1, operand=x)
        _close(out, expected.astype(np.float32))
        out = tjit.jit(lambda p, a: lax.cond(p, lambda u: u * 2, lambda u: u - 1, a))(p, x)
        _close(out, expected.astype(np.float32))


def test_cond_pytrees_in_and_out():
    Pair = collections.namedtuple("Pair", "a b")
    ops = {"w": jnp.asarray(np.ones((2, 2), np.float32)), "n": jnp.int32(3)}

    def t(d):
        return Pair(d["w"] * d["n"].astype(jnp.float32), [d["n"] + 1])

    def e(d):
        return Pair(d["w"] - 1.0, [d["n"] - 1])

    f = lambda p, d: lax.cond(p, t, e, d)  # noqa: E731
    for p in (True, False):
        out = f(p, ops)
        jout = tjit.jit(f)(p, ops)
        assert isinstance(out, Pair) and isinstance(jout, Pair)
        _close(out.a, np.full((2, 2), 3.0 if p else 0.0, np.float32))
        _close(jout.a, out.a)
        _close(jout.b[0], np.int32(4 if p else 2))


def test_cond_no_operands_closure_over_traced_values():
    x = jnp.asarray(np.arange(5, dtype=np.float32))

    def f(x, p):
        return lax.cond(p, lambda: x * 2, lambda: x)

    jf = tjit.jit(f)
    _close(jf(x, True), np.arange(5, dtype=np.float32) * 2)
    _close(jf(x, False), np.arange(5, dtype=np.float32))
    closed = tjit.make_jaxpr(f)(x, True)
    check_jaxpr(closed)
    (eqn,) = [e for e in closed.eqns if e.primitive is cond_p]
    # the closed-over x became an explicit operand; each branch takes it as input
    assert closed.jaxpr.invars[0] in eqn.invars
    assert all(len(b.jaxpr.invars) == 1 and not b.consts for b in eqn.params["branches"])


def test_cond_shares_consts_closed_over_by_both_branches():
    c = jnp.asarray(np.arange(3, dtype=np.float32))  # a closed-over concrete array
    d = jnp.asarray(np.ones(3, np.float32))

    def f(x, p):
        return lax.cond(p, lambda: x + c, lambda: x * c + d)

    x = jnp.asarray(np.full(3, 2.0, np.float32))
    closed = tjit.make_jaxpr(f)(x, True)
    (eqn,) = [e for e in closed.eqns if e.primitive is cond_p]
    assert len(eqn.invars) == 1 + 3  # index, x, c, d: c appears once
    _close(tjit.jit(f)(x, True), np.asarray(x) + np.asarray(c))
    _close(tjit.jit(f)(x, False), np.asarray(x) * np.asarray(c) + 1)


def test_cond_weak_types():
    out = lax.cond(True, lambda: 1.0, lambda: 2.0)
    assert out.weak_type and out.dtype == np.float32 and float(out) == 1.0
    out = lax.cond(False, lambda: 1.0, lambda: jnp.float32(2.0))
    assert not out.weak_type and float(out) == 2.0
    jout = tjit.jit(lambda p: lax.cond(p, lambda: 1.0, lambda: jnp.float32(2.0)))(False)
    assert not jout.weak_type
    # a weak cond result does not widen a float16 operand
    h = jnp.asarray(np.ones(2, np.float16))
    assert (h + lax.cond(True, lambda: 1.0, lambda: 2.0)).dtype == np.float16


@pytest.mark.parametrize("index", [-3, 0, 1, 2, 7])
def test_switch_clamps_index(index):
    branches = [lambda a: a + 1, lambda a: a * 10, lambda a: -a]
    x = np.arange(4, dtype=np.int32)
    expected = branches[min(max(index, 0), 2)](x)
    f = lambda i, a: lax.switch(i, branches, a)  # noqa: E731
    closed = _check_all_ways(f, (jnp.int32(index), jnp.asarray(x)), expected)
    (eqn,) = [e for e in closed.eqns if e.primitive is cond_p]
    assert len(eqn.params["branches"]) == 3


def test_switch_single_branch_and_eqn_impl_clamps():
    assert int(lax.switch(5, [lambda: jnp.int32(7)])) == 7
    x = np.float32(1.5)
    branches = tuple(tjit.make_jaxpr(lambda a, k=k: a * k)(x) for k in (1.0, 2.0))
    for idx, k in [(-1, 1.0), (0, 1.0), (1, 2.0), (9, 2.0)]:
        (out,) = cond_p.impl(np, np.int32(idx), np.float32(1.5), branches=branches)
        assert out.dtype == np.float32 and out == 1.5 * k


def test_cond_printed_jaxpr_contains_branches():
    text = str(tjit.make_jaxpr(
        lambda p, x: lax.cond(p, lambda a: jnp.sin(a), lambda a: jnp.cos(a), x))(
            True, np.ones(3, np.float32)))
    assert "cond[" in text and "branches=(" in text
    assert "sin" in text and "cos" in text


# -- while / fori ----------------------------------------------------------------------------
def _gcd_py(a, b):
    while b != 0:
        a, b = b, a % b
    return a


@pytest.mark.parametrize("a,b", [(48, 18), (17, 5), (7, 0), (1071, 462)])
def test_while_loop_gcd(a, b):
    def gcd(a, b):
        return lax.while_loop(lambda c: c[1] != 0, lambda c: (c[1], lax.rem(c[0], c[1])),
                              (a, b))[0]
    expected = np.int32(_gcd_py(a, b))
    _check_all_ways(gcd, (jnp.int32(a), jnp.int32(b)), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int16, np.complex64])
def test_while_loop_dtypes_and_pytree_carry(dtype):
    x0 = _data((3,), dtype)

    def f(x, n):
        def body(c):
            return {"i": c["i"] + 1, "x": c["x"] * 2 + c["x"]}
        return lax.while_loop(lambda c: c["i"] < n, body, {"i": 0, "x": x})

    x = x0.copy()
    for _ in range(4):
        x = (x * 2 + x).astype(dtype)
    out = _check_all_ways(f, (jnp.asarray(x0), jnp.int32(4)), {"i": np.int32(4), "x": x})
    assert any(e.primitive is while_p for e in out.eqns)


def test_while_loop_zero_iterations_and_closure():
    def f(x, lim):
        # the body closes over the traced ``lim`` and the cond over ``x``
        return lax.while_loop(lambda v: jnp.sum(v) < jnp.sum(x) * lim, lambda v: v + lim, x)
    x = jnp.asarray(np.ones(2, np.float32))
    _close(tjit.jit(f)(x, jnp.float32(0.5)), np.ones(2, np.float32))  # cond false at once
    ref = np.ones(2, np.float32)
    while ref.sum() < 2 * 3.0:
        ref = ref + 3.0
    _close(tjit.jit(f)(x, jnp.float32(3.0)), ref)
    _close(f(x, jnp.float32(3.0)), ref)
    text = str(tjit.make_jaxpr(f)(x, jnp.float32(3.0)))
    assert "while[" in text and "body_jaxpr=" in text and "cond_jaxpr=" in text


@pytest.mark.parametrize("lo,hi", [(0, 10), (3, 7), (5, 5), (6, 2)])
def test_fori_loop_concrete_bounds_uses_scan(lo, hi):
    def f(x):
        return lax.fori_loop(lo, hi, lambda i, c: c * 2 + i.astype(jnp.float32), x)
    ref = np.float32(1.5)
    for i in range(lo, hi):
        ref = np.float32(ref * 2 + i)
    closed = _check_all_ways(f, (jnp.float32(1.5),), ref)
    prims = [e.primitive for e in closed.eqns]
    assert scan_p in prims and while_p not in prims


def test_fori_loop_traced_bounds_uses_while():
    def f(x, n):
        return lax.fori_loop(1, n, lambda i, c: c + i * i, x)
    closed = _check_all_ways(f, (jnp.int32(0), jnp.int32(6)), np.int32(sum(i * i for i in
                                                                              range(1, 6))))
    prims = [e.primitive for e in closed.eqns]
    assert while_p in prims and scan_p not in prims
    # mixed index dtypes promote like JAX (weak int lower, int8 upper -> int8 index)
    seen = []
    out = tjit.jit(lambda n: lax.fori_loop(1, n, lambda i, c: seen.append(i.dtype) or c + i,
                                           0))(jnp.int8(3))
    assert int(out) == 1 + 2 and out.dtype == np.int8 and set(seen) == {np.dtype(np.int8)}


def test_fori_loop_weak_init_promotes():
    # the example from the JAX docs: a float Python scalar init
    out = lax.fori_loop(0, 10, lambda i, x: x + 1.0, 0.0)
    assert out.dtype == np.float32 and float(out) == 10.0
    n = jnp.int32(10)
    out = tjit.jit(lambda n: lax.fori_loop(0, n, lambda i, x: x + 1.0, 0.0))(n)
    assert out.dtype == np.float32 and float(out) == 10.0
    # an int Python scalar init whose body makes floats: promoted to float32
    out = lax.fori_loop(0, 4, lambda i, x: x + 1.5, 0)
    assert out.dtype == np.float32 and float(out) == 6.0 and not out.weak_type
    out = lax.while_loop(lambda x: x < 3.0, lambda x: x + 0.5, 0)
    assert out.dtype == np.float32 and float(out) == 3.0


def test_fori_loop_over_array_carry_eager_and_jit():
    x = _data((4,), np.float32)

    def f(x):
        return lax.fori_loop(0, 5, lambda i, c: (c[0] + c[1], c[1] * 0.5), (x, x))

    a, b = x.copy(), x.copy()
    for _ in range(5):
        a, b = a + b, b * np.float32(0.5)
    _check_all_ways(f, (jnp.asarray(x),), (a, b))


# -- scan / map ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.complex64])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_cumsum_vs_numpy(dtype, reverse):
    xs = _data((6, 3), dtype)

    def f(xs):
        return lax.scan(lambda c, x: (c + x, c * 2), jnp.zeros(3, dtype), xs, reverse=reverse)

    order = range(5, -1, -1) if reverse else range(6)
    c = np.zeros(3, dtype)
    ys = np.zeros((6, 3), dtype)
    for i in order:
        ys[i] = c * 2
        c = (c + xs[i]).astype(dtype)
    _check_all_ways(f, (jnp.asarray(xs),), (c, ys))


def test_scan_pytrees_and_multiple_ys():
    xs = {"a": _data((4, 2), np.float32), "b": _data((4,), np.int32, seed=3)}

    def body(carry, x):
        s, n = carry
        s = s + x["a"] * x["b"].astype(jnp.float32)
        return (s, n + 1), {"s": s, "pair": (x["b"] * 2, n)}

    def f(xs):
        return lax.scan(body, (jnp.zeros(2, jnp.float32), 0), xs)

    s, n = np.zeros(2, np.float32), 0
    ys_s, ys_b, ys_n = [], [], []
    for i in range(4):
        s = s + xs["a"][i] * xs["b"][i].astype(np.float32)
        ys_s.append(s)
        ys_b.append(xs["b"][i] * 2)
        ys_n.append(n)
        n += 1
    expected = ((s, np.int32(n)), {"pair": (np.array(ys_b, np.int32), np.array(ys_n, np.int32)),
                                   "s": np.array(ys_s, np.float32)})
    _check_all_ways(f, (xs,), expected)
    (carry, ys) = f(xs)
    assert set(ys) == {"s", "pair"} and carry[1].weak_type


def test_scan_xs_none_with_length_and_zero_length():
    carry, ys = lax.scan(lambda c, x: (c * 3, c), jnp.int32(1), None, length=5)
    assert x_is_none_ok(carry, ys)
    carry, ys = lax.scan(lambda c, x: (c + 1, (c, c * 2.0)), 0, xs=None, length=0)
    assert int(carry) == 0 and ys[0].shape == (0,) and ys[1].dtype == np.float32
    jc, jys = tjit.jit(lambda: lax.scan(lambda c, x: (c * 3, c), jnp.int32(1), None,
                                        length=5))()
    _close(jys, np.array([1, 3, 9, 27, 81], np.int32))
    _close(jc, np.int32(243))


def x_is_none_ok(carry, ys):
    _close(ys, np.array([1, 3, 9, 27, 81], np.int32))
    _close(carry, np.int32(243))
    return True


def test_scan_closure_over_traced_value_and_printed():
    def f(w, xs):
        return lax.scan(lambda c, x: (c + w * x, jnp.sin(c)), jnp.zeros_like(w), xs)
    w = jnp.asarray(_data((3,), np.float32))
    xs = jnp.asarray(_data((5, 3), np.float32, seed=2))
    c = np.zeros(3, np.float32)
    ys = []
    for x in np.asarray(xs):
        ys.append(np.sin(c))
        c = c + np.asarray(w) * x
    closed = _check_all_ways(f, (w, xs), (c, np.array(ys)))
    (eqn,) = [e for e in closed.eqns if e.primitive is scan_p]
    assert eqn.params["num_consts"] == 1 and eqn.params["length"] == 5
    text = str(closed)
    assert "scan[" in text and "jaxpr=" in text and "sin" in text


def test_scan_float64_under_x64(x64):
    xs = np.linspace(0, 1, 7)
    c, ys = tjit.jit(lambda xs: lax.scan(lambda c, x: (c + x * x, c), 0.0, xs))(xs)
    assert c.dtype == np.float64
    np.testing.assert_allclose(np.asarray(c), np.sum(xs * xs), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(ys), np.concatenate([[0], np.cumsum(xs * xs)[:-1]]),
                               rtol=1e-14)


def test_map():
    xs = _data((5, 2), np.float32)
    ys = lax.map(lambda x: (x * x, x.sum()), jnp.asarray(xs))
    _close(ys[0], xs * xs)
    _close(ys[1], xs.sum(axis=1))
    jys = tjit.jit(lambda v: lax.map(jnp.exp, v, batch_size=2))(jnp.asarray(xs))
    _close(jys, np.exp(xs))


def test_nested_control_flow_under_jit():
    def f(xs, p):
        def body(c, x):
            inner = lax.fori_loop(0, 3, lambda i, a: a + x, jnp.zeros_like(x))
            return c + lax.cond(p, lambda: inner, lambda: -inner), c
        return lax.scan(body, jnp.float32(0), xs)
    xs = _data((4,), np.float32)
    for p in (True, False):
        s = np.float32(0)
        ys = []
        for x in xs:
            ys.append(s)
            s = np.float32(s + (3 * x if p else -3 * x))
        _check_all_ways(f, (jnp.asarray(xs), p), (s, np.array(ys, np.float32)))


def test_polymorphic_scan_over_symbolic_length():
    def f(xs):
        return lax.scan(lambda c, x: (c + x, c), jnp.zeros(3, jnp.float32), xs)
    closed = tjit.make_jaxpr(f, polymorphic_shapes=["(b, 3)"])(np.ones((4, 3), np.float32))
    check_jaxpr(closed)
    assert "b" in str(closed.out_avals[1])
    jf = tjit.jit(f, polymorphic_shapes=["(b, 3)"])
    for n in (2, 5):
        xs = _data((n, 3), np.float32, seed=n)
        c, ys = jf(jnp.asarray(xs))
        _close(c, xs.sum(axis=0))
        assert ys.shape == (n, 3)
    assert jf.trace_count == 1


def test_eager_calls_bind_the_primitive(monkeypatch):
    calls = []
    orig = scan_p.impl
    monkeypatch.setattr(scan_p, "impl", lambda *a, **k: calls.append(1) or orig(*a, **k))
    lax.fori_loop(0, 3, lambda i, x: x + 1, 0)
    assert calls == [1]


# -- errors ----------------------------------------------------------------------------------
def test_cond_branch_type_mismatch_message():
    with pytest.raises(TypeError, match=r"lax\.cond: true_fun and false_fun output must have "
                                        r"identical types, got f32\[3\] and f32\[4\]"):
        lax.cond(True, lambda: jnp.zeros(3), lambda: jnp.zeros(4))
    with pytest.raises(TypeError, match=r"identical types, got i32\[\] and f32\[\]"):
        tjit.jit(lambda p: lax.cond(p, lambda: jnp.int32(1), lambda: jnp.float32(1)))(True)
    with pytest.raises(TypeError, match="same type structure"):
        lax.cond(True, lambda: (1.0, 2.0), lambda: [1.0, 2.0])
    with pytest.raises(TypeError, match=r"lax\.switch: branches 0 and 2 output must have "
                                        r"identical types"):
        lax.switch(0, [lambda: jnp.zeros(2), lambda: jnp.ones(2), lambda: jnp.zeros(2, int)])


def test_pred_and_index_errors():
    with pytest.raises(TypeError, match=r"lax\.cond: pred must be a scalar, got bool\[3\]"):
        lax.cond(jnp.asarray([True, False, True]), lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="pred must be a scalar"):
        tjit.jit(lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0))(np.ones(2, bool))
    with pytest.raises(TypeError, match=r"pred must be a boolean or real number scalar, got "
                                        r"c64"):
        lax.cond(1.5j, lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="pred is None"):
        lax.cond(None, lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="should be callable"):
        lax.cond(True, 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match=r"lax\.switch: index type must be an integer"):
        lax.switch(1.0, [lambda: 1.0, lambda: 2.0])
    with pytest.raises(ValueError, match="empty branch sequence"):
        lax.switch(0, [])


def test_python_bool_on_traced_pred_inside_jit():
    with pytest.raises(tjit.errors.TracerBoolConversionError, match="lax.cond"):
        tjit.jit(lambda p, x: x * 2 if p else x)(True, 1.0)


def test_while_carry_type_change_message():
    with pytest.raises(TypeError, match=r"(?s)lax\.while_loop: body_fun carry output must have "
                                        r"the same types.*init_val: input type i32\[\] but "
                                        r"output type f32\[\].*dtypes do not match.*Fix"):
        lax.while_loop(lambda x: x < 10, lambda x: x * 1.5, jnp.int32(1))
    with pytest.raises(TypeError, match=r"init_val\['b'\]: input type f32\[2\] but output type "
                                        r"f32\[4\].*shapes do not match"):
        lax.while_loop(lambda c: c["a"] < 3,
                       lambda c: {"a": c["a"] + 1, "b": jnp.zeros(4)},
                       {"a": 0, "b": jnp.zeros(2)})
    with pytest.raises(TypeError, match="cond_fun must return a boolean scalar, but got output "
                                        r"type\(s\) f32\[2\]"):
        lax.while_loop(lambda x: x, lambda x: x, jnp.zeros(2))
    with pytest.raises(TypeError, match="same pytree structure"):
        lax.while_loop(lambda c: c[0] < 3, lambda c: [c[0] + 1, c[1]], (0, 1.0))


def test_scan_and_fori_carry_errors():
    with pytest.raises(TypeError, match=r"(?s)lax\.scan: the body function carry output must have "
                                        r"the same types.*init\[1\]: input type f32\[\] but "
                                        r"output type f32\[3\]"):
        lax.scan(lambda c, x: ((c[0], c[1] * x), x), (1, jnp.float32(1)), jnp.ones((4, 3)))
    with pytest.raises(TypeError, match=r"(?s)lax\.fori_loop: body_fun carry output.*init_val: "
                                        r"input type i32\[\] but output type f32\[\]"):
        lax.fori_loop(0, 3, lambda i, x: x * 0.5, jnp.int32(4))
    with pytest.raises(TypeError, match="must return a pair"):
        lax.scan(lambda c, x: c, 0, jnp.ones(3))
    with pytest.raises(TypeError, match="lower and upper must be integer scalars"):
        lax.fori_loop(0.0, 3, lambda i, x: x, 0)


def test_scan_length_errors():
    with pytest.raises(ValueError, match="no values to scan over and `length` not provided"):
        lax.scan(lambda c, x: (c, x), 0)
    with pytest.raises(ValueError, match=r"`length` argument of 3 which disagrees with leading "
                                         r"axis sizes \[4\]"):
        lax.scan(lambda c, x: (c, x), 0, jnp.ones(4), length=3)
    with pytest.raises(ValueError, match="different leading axis sizes: 4, 5"):
        lax.scan(lambda c, x: (c, x), 0, (jnp.ones(4), jnp.ones(5)))
    with pytest.raises(ValueError, match="no leading axis"):
        lax.scan(lambda c, x: (c, x), 0, jnp.float32(1))


def test_check_jaxpr_validates_control_flow_eqns():
    closed = tjit.make_jaxpr(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x))(
        True, np.ones(3, np.float32))
    check_jaxpr(closed)
    (eqn,) = [e for e in closed.eqns if e.primitive is cond_p]
    wrong = tjit.make_jaxpr(lambda x: jnp.zeros(2))(np.ones(3, np.float32))
    bad_eqn = eqn.replace(params={"branches": (eqn.params["branches"][0], wrong)})
    j = closed.jaxpr
    bad = ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.outvars,
                            [e if e is not eqn else bad_eqn for e in j.eqns]), closed.consts)
    with pytest.raises(TypeError, match="identical types"):
        check_jaxpr(bad)
    # a while whose body changes the carry type is rejected by the checker too
    body = tjit.make_jaxpr(lambda x: x * 1.5)(np.int32(1))
    cnd = tjit.make_jaxpr(lambda x: x < 3)(np.int32(1))
    v, o = Var(ShapedArray((), np.int32)), Var(ShapedArray((), np.int32))
    eq = JaxprEqn([v], [o], while_p, dict(cond_jaxpr=cnd, body_jaxpr=body, cond_nconsts=0,
                                          body_nconsts=0))
    with pytest.raises(TypeError, match=r"carry element 0: input type i32\[\] but output "
                                        r"type f32\[\]"):
        check_jaxpr(Jaxpr([], [v], [o], [eq]))
