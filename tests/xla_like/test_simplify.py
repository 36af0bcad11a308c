"""Tests of the HLO simplifier (tjit/xla_like/simplify.py) and of the HLO oracle
(tests/xla_like/hlo_eval.py).

Whole programs: jaxpr -> lower_jaxpr -> evaluate_module must equal the reference jaxpr
interpreter bit for bit (validates the lowering and the oracle); simplify must keep the
results (bit for bit except where a documented rule changes rounding) and shrink the
graph. Rule tests build tiny modules by hand and evaluate them on edge values (-0.0,
inf, NaN, overflow, subnormals) before and after simplification.
"""

import itertools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.xla_like.hlo_eval import evaluate_module
from tjit import lax, nn
from tjit.tracing.jaxpr import eval_jaxpr_reference, specialize
from tjit.tracing.shapes import symbol
from tjit.xla_like import hlo
from tjit.xla_like.lowering import lower_jaxpr
from tjit.xla_like.simplify import exp_range, lossless, simplify

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


def same_bits(a, b):
    """Equal dtype, shape and bits (any NaN equals any NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        na, nb = np.isnan(a), np.isnan(b)
        return bool((na == nb).all()) and a[~na].tobytes() == b[~nb].tobytes()
    return a.tobytes() == b.tobytes()


def opcodes(m):
    return [i.opcode for i in m.instrs]


def count(m, op):
    return opcodes(m).count(op)


def ulp_error(got, ref, dtype):
    """Max |got - ref| in units of the spacing of ref (rounded to dtype)."""
    ref = np.asarray(ref, np.float64)
    sp = np.maximum(np.spacing(np.abs(ref).astype(dtype)), np.finfo(dtype).smallest_subnormal)
    return float(np.max(np.abs(got.astype(np.float64) - ref) / sp))


# ----------------------------------------------------------------------------------------
# Whole programs.

def _mlp_loss(params, x, y):
    w1, w2 = params
    h = jnp.tanh(x @ w1)
    return jnp.mean((h @ w2 - y) ** 2)


def _layernorm(x, g, b):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-5) * g + b


def _programs():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((4, 8)) * 6).astype(np.float32)
    x[0, :4] = [0.0, -0.0, 30.0, -120.0]
    g = rng.standard_normal(8).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    w1 = rng.standard_normal((8, 16)).astype(np.float32)
    w2 = rng.standard_normal((16, 2)).astype(np.float32)
    y = rng.standard_normal((4, 2)).astype(np.float32)
    xi = rng.integers(-100, 100, (4, 8)).astype(np.int32)
    return {
        # name: (function, args, exact after simplify?)
        "mish": (nn.mish, (x,), False),
        "mish_grad": (tjit.jit(tjit.grad(lambda v: jnp.sum(nn.mish(v)))), (x,), False),
        "softmax": (lambda v: nn.softmax(v, axis=-1), (x,), True),
        "softmax_grad": (tjit.jit(tjit.grad(lambda v: jnp.sum(nn.softmax(v) * v))), (x,),
                         True),
        "layernorm": (_layernorm, (x, g, b), True),
        "layernorm_grad": (tjit.jit(tjit.grad(lambda v, g, b: jnp.sum(_layernorm(v, g, b)
                                                                       ** 2))), (x, g, b),
                           True),
        "mlp_grad": (tjit.jit(tjit.grad(_mlp_loss)), ((w1, w2), x, y), True),
        "layout": (lambda v: jnp.negative(jnp.negative(
            v.reshape(32).reshape(2, 16).reshape(4, 8).T.T)), (x,), True),
        "int_ops": (lambda v: ((v * 1 + 0 - 0) // 1).astype(jnp.int8).astype(jnp.int32)
                    + (v - v), (xi,), True),
        "cube": (lambda v: v ** 3 / 4.0, (x,), True),
        "library": (lambda v: jnp.sort(v, axis=1)[:, ::2] + 1.0, (x,), True),
        "while": (lambda v: lax.fori_loop(0, 3, lambda i, c: c * 1.0 + jnp.exp(c) * i, v),
                  (x,), True),
        "scan": (lambda v: lax.scan(lambda c, r: (c + r, jnp.tanh(c) * 1.0), v[0], v,
                                    reverse=True), (x,), True),
        "switch": (lambda v: lax.switch(jnp.int32(1), [jnp.sin, lambda u: u + 0.0], v),
                   (x,), True),
        "take": (lambda v: jnp.take(v, jnp.array([[3, -1], [0, 9]]), axis=1,
                                    mode="fill", fill_value=2.0) * 1.0 + v[jnp.array([1, 0])].sum(),
                 (x,), True),
    }


def _flat(args):
    return tjit.tree_util.tree_leaves(args)


@pytest.mark.parametrize("name", sorted(_programs()))
def test_program_lower_and_simplify(name):
    f, args, exact = _programs()[name]
    closed = tjit.make_jaxpr(f)(*args)
    flat = [np.asarray(a) for a in _flat(args)]
    ref = eval_jaxpr_reference(closed.jaxpr, closed.consts, flat)
    m = lower_jaxpr(closed)
    text = m.text()
    low = evaluate_module(m, flat)
    for r, lo in zip(ref, low):
        assert same_bits(np.asarray(r), lo), name
    s = simplify(m)
    assert m.text() == text  # the input module is not mutated
    assert s.params == m.params and all(p is q for p, q in zip(s.params, m.params))
    out = evaluate_module(s, flat)
    for lo, o in zip(low, out):
        if exact:
            assert same_bits(lo, o), name
        else:
            np.testing.assert_allclose(o, lo, rtol=3e-6, atol=1e-6)
    assert len(s.instrs) <= len(m.instrs)
    assert simplify(s).text() == s.text()  # a fixed point


def _simplified(name):
    f, args, _ = _programs()[name]
    m = lower_jaxpr(tjit.make_jaxpr(f)(*args))
    return m, simplify(m)


@pytest.mark.parametrize("name", ["mish", "mish_grad"])
def test_mish_pattern_rewritten(name):
    m, s = _simplified(name)
    assert count(m, "tanh") == 1 and count(m, "log1p") == 1
    assert count(s, "tanh") == 0 and count(s, "log1p") == 0
    assert count(s, "exp") == 1 and count(s, "div") == 1


def test_layout_chains_collapse():
    m, s = _simplified("layout")
    assert count(m, "reshape") == 3 and count(m, "transpose") == 2 and count(m, "neg") == 2
    assert opcodes(s) == ["parameter"]  # the whole program is the identity
    assert s.outputs[0] is s.params[0]


def test_softmax_keepdims_reshapes_removed():
    m, s = _simplified("softmax")
    assert count(m, "reshape") == 4
    assert count(s, "reshape") == 0 and count(s, "exp") == 1 and count(s, "reduce") == 2


def test_int_identities_and_cube():
    _, s = _simplified("int_ops")
    # x*1 + 0 - 0, // 1 (div, rem, compares, and, select), v - v -> 0;
    # int32 -> int8 -> int32 is not lossless: kept
    assert opcodes(s) == ["parameter", "convert", "convert"]
    _, s = _simplified("cube")
    assert count(s, "mul") == 3 and count(s, "div") == 0  # x*x*x kept, / 4 -> * 0.25


def test_library_kept_and_not_merged():
    _, s = _simplified("library")
    assert count(s, "library") == 1

    def f(v):
        return jnp.sort(v) + jnp.sort(v)

    x = np.arange(6.0, dtype=np.float32)[::-1].copy()
    s = simplify(lower_jaxpr(tjit.make_jaxpr(f)(x)))
    assert count(s, "library") == 2  # host calls are never merged by CSE
    np.testing.assert_array_equal(evaluate_module(s, [x])[0], 2 * np.sort(x))


def test_dead_library_dropped():
    x = np.ones((2, 3), np.float32)
    m = lower_jaxpr(tjit.make_jaxpr(lambda v: (jnp.sort(v), v + 1.0)[1])(x))
    assert count(m, "library") == 1
    s = simplify(m)
    assert count(s, "library") == 0 and count(s, "get") == 0
    np.testing.assert_array_equal(evaluate_module(s, [x])[0], x + 1)


def _poly(x):
    t = jnp.tanh(x).T.T - jnp.max(x, axis=1, keepdims=True)
    i = lax.broadcasted_iota(jnp.float32, x.shape, 1) + (lax.iota(jnp.int32, 8) // 2 - 1)
    return (t + jnp.arange(8.0, dtype=jnp.float32) * 0.5, jnp.sum(x * 2.0, axis=0),
            nn.mish(x) + i)


def test_polymorphic_program():
    x = np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32)
    closed = tjit.make_jaxpr(_poly, polymorphic_shapes=["(b, 8)"])(x)
    m = lower_jaxpr(closed)
    assert any(not isinstance(d, int) for d in m.params[0].shape)
    s = simplify(m)
    assert count(s, "transpose") == 0 and count(s, "reshape") == 0 and count(s, "tanh") == 1
    # // 2: (r != 0) & (r < 0) left; three iotas: the two written and jnp.arange's
    assert count(s, "and") == 1 and count(s, "iota") == 3
    for n in (3, 5):
        xn = np.random.default_rng(n).standard_normal((n, 8)).astype(np.float32)
        env = {symbol("b"): n}
        sj = specialize(closed, env)
        ref = eval_jaxpr_reference(sj.jaxpr, sj.consts, [xn])
        low, out = evaluate_module(m, [xn], env), evaluate_module(s, [xn], {"b": n})
        for r, lo in zip(ref, low):
            assert same_bits(np.asarray(r), lo)
        assert same_bits(low[0], out[0]) and same_bits(low[1], out[1])
        np.testing.assert_allclose(out[2], low[2], rtol=3e-6, atol=1e-6)  # Mish rewrite


def test_oracle_rejects_wrong_declared_dtype():
    b = hlo.Builder()
    p = b.add("parameter", (), (3,), F32, index=0)
    bad = b.add("exp", (p,), (3,), F64)
    m = hlo.HloModule("bad", [p], b.instrs, [bad])
    with pytest.raises(AssertionError, match="declared float64"):
        evaluate_module(m, [np.ones(3, np.float32)])
    with pytest.raises(ValueError, match="takes 1 arguments"):
        evaluate_module(m, [])


# ----------------------------------------------------------------------------------------
# Rule tests on hand-built modules.

def module(build, *dtypes, shape=None):
    """A module with one parameter per dtype (of ``shape``, default (n,)) and the
    outputs ``build(builder, *params)`` returns (an Instr or a list)."""
    b = hlo.Builder()
    shape = shape or (EDGE_N,)
    ps = [b.add("parameter", (), shape, d, index=k) for k, d in enumerate(dtypes)]
    out = build(b, *ps)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return hlo.HloModule("t", ps, b.instrs, outs)


def edge_values(dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        v = [False, True]
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        v = [info.min, info.max, 0, 1, -1, 2, 7, -7, 127, 128, 255, 256, -129, 2 ** 24 + 1,
             -(2 ** 31), 2 ** 31 - 1, 2 ** 40 + 3]
        v = [int(np.clip(t, info.min, info.max)) for t in v]
    else:
        fi = np.finfo(dtype)
        v = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-3, float(fi.tiny), -float(fi.tiny),
             float(fi.smallest_subnormal), float(fi.max), -float(fi.max), np.inf, -np.inf,
             np.nan, 88.5, 100.0, -100.0, -104.5, 709.5, -745.5, 1e10, -3e9, 2.0 ** 24 + 1]
    v = (v * EDGE_N)[:EDGE_N]
    with np.errstate(all="ignore"):
        return np.array(v, dtype=np.float64 if dtype.kind == "f" else object).astype(dtype)


EDGE_N = 32


def check_rule(m, dtypes, *, fired, exact=True):
    """Simplify ``m``; assert ``fired(before, after)``; evaluate both on edge values."""
    s = simplify(m)
    assert fired(m, s), s.text()
    rng = np.random.default_rng(0)
    args = [edge_values(d) for d in dtypes]
    args = [a if k == 0 else rng.permutation(a) for k, a in enumerate(args)]
    before, after = evaluate_module(m, args), evaluate_module(s, args)
    if exact:
        for x, y in zip(before, after):
            assert same_bits(x, y), (args, x, y)
    return s, args, before, after


def const(b, value, dtype, shape=(EDGE_N,)):
    return b.broadcast(b.constant(value, dtype), shape, ())


def gone(op):
    return lambda m, s: count(m, op) > 0 and count(s, op) == 0


def kept(op):
    return lambda m, s: count(s, op) == count(m, op) > 0


@pytest.mark.parametrize("dtype", [F32, F64, np.dtype(np.int32), np.dtype(np.bool_)])
def test_mul_by_one(dtype):
    m = module(lambda b, x: [b.elementwise("mul", [x, const(b, 1, dtype)]),
                             b.elementwise("mul", [const(b, 1, dtype), x])], dtype)
    s, *_ = check_rule(m, [dtype], fired=gone("mul"))
    assert s.outputs == [s.params[0]] * 2


@pytest.mark.parametrize("dtype,rewritten", [(F32, False), (F64, False),
                                             (np.dtype(np.int32), True),
                                             (np.dtype(np.uint8), True)])
def test_mul_by_zero(dtype, rewritten):
    m = module(lambda b, x: b.elementwise("mul", [x, const(b, 0, dtype)]), dtype)
    check_rule(m, [dtype], fired=gone("mul") if rewritten else kept("mul"))


@pytest.mark.parametrize("dtype,zero,rewritten", [
    (F32, 0.0, False), (F32, -0.0, True), (F64, -0.0, True), (F64, 0.0, False),
    (np.dtype(np.int32), 0, True), (np.dtype(np.bool_), False, True)])
def test_add_zero(dtype, zero, rewritten):
    m = module(lambda b, x: [b.elementwise("add", [x, const(b, zero, dtype)]),
                             b.elementwise("add", [const(b, zero, dtype), x])], dtype)
    check_rule(m, [dtype], fired=gone("add") if rewritten else kept("add"))


@pytest.mark.parametrize("dtype,zero,rewritten", [
    (F32, 0.0, True), (F32, -0.0, False), (F64, 0.0, True), (np.dtype(np.int64), 0, True)])
def test_sub_zero(dtype, zero, rewritten):
    m = module(lambda b, x: b.elementwise("sub", [x, const(b, zero, dtype)]), dtype)
    check_rule(m, [dtype], fired=gone("sub") if rewritten else kept("sub"))


@pytest.mark.parametrize("dtype,zero,rewritten", [
    (F32, -0.0, True), (F32, 0.0, False), (np.dtype(np.int32), 0, True),
    (np.dtype(np.uint16), 0, True)])
def test_zero_sub_is_neg(dtype, zero, rewritten):
    m = module(lambda b, x: b.elementwise("sub", [const(b, zero, dtype), x]), dtype)
    s, *_ = check_rule(m, [dtype], fired=gone("sub") if rewritten else kept("sub"))
    assert count(s, "neg") == int(rewritten)


@pytest.mark.parametrize("dtype,rewritten", [(F32, False), (np.dtype(np.int32), True)])
def test_sub_self(dtype, rewritten):
    m = module(lambda b, x: b.elementwise("sub", [x, x]), dtype)
    check_rule(m, [dtype], fired=gone("sub") if rewritten else kept("sub"))


@pytest.mark.parametrize("dtype,c,rewritten", [
    (F32, 2.0, True), (F32, 0.25, True), (F32, -4.0, True), (F32, 2.0 ** -126, True),
    (F32, 2.0 ** 127, True), (F32, 2.0 ** -149, False), (F32, 3.0, False), (F32, 0.0, False),
    (F32, -0.0, False), (F32, np.inf, False), (F32, np.nan, False), (F64, 2.0 ** -1022, True),
    (F64, 0.1, False), (np.dtype(np.int32), 1, True), (np.dtype(np.int32), 2, False)])
def test_div_by_constant(dtype, c, rewritten):
    m = module(lambda b, x: b.elementwise("div", [x, const(b, c, dtype)]), dtype)
    check_rule(m, [dtype], fired=gone("div") if rewritten else kept("div"))


@pytest.mark.parametrize("dtype,c1,c2,rewritten", [
    (F32, 2.0, 1.0, True), (F32, -0.5, 2.0 ** 100, True), (F64, 2.0, 1.0, True),
    (F32, 3.0, 1.0, False), (F32, 2.0, 0.0, False)])
def test_div_by_select_of_constants(dtype, c1, c2, rewritten):
    def build(b, x, y):
        p = b.elementwise("lt", [y, const(b, 0.0, dtype)])
        return b.elementwise("div", [x, b.elementwise("select", [p, const(b, c1, dtype),
                                                                 const(b, c2, dtype)])])
    check_rule(module(build, dtype, dtype), [dtype, dtype],
               fired=gone("div") if rewritten else kept("div"))


def test_div_by_uniform_constant_array_and_subnormal_results():
    x = np.array([1e-38, 3e-39, -1e-45, 1.5, np.inf, -0.0, np.nan, 3.4e38] * 4, np.float32)
    m = module(lambda b, v: b.elementwise("div", [v, b.constant(np.full(EDGE_N, 8.0,
                                                                        np.float32))]), F32)
    s = simplify(m)
    assert count(s, "div") == 0 and count(s, "mul") == 1
    assert same_bits(evaluate_module(m, [x])[0], evaluate_module(s, [x])[0])


@pytest.mark.parametrize("dtype", [F32, F64, np.dtype(np.int32), np.dtype(np.bool_)])
@pytest.mark.parametrize("op", ["max", "min"])
def test_eq_of_max_or_min_is_a_comparison(op, dtype):
    """eq(x, max(x, y)) -> ge(x, y) etc., bit-exact on NaN, signed zeros, infinities;
    the constant may be another instruction of the same value (-0.0 vs 0.0 too)."""
    zero = -0.0 if dtype.kind == "f" else 0

    def build(b, x, y):
        return [b.elementwise("eq", [x, b.elementwise(op, [x, y])]),
                b.elementwise("eq", [b.elementwise(op, [x, y]), y]),
                b.elementwise("eq", [const(b, zero, dtype),
                                     b.elementwise(op, [x, const(b, 0, dtype)])])]
    s, *_ = check_rule(module(build, dtype, dtype), [dtype, dtype], fired=gone("eq"))
    assert count(s, op) == 0 and count(s, "ge" if op == "max" else "le") == 3


def test_relu_gradient_reads_the_pre_activation_only():
    """The relu tie test no longer loads the materialized relu output."""
    rng = np.random.default_rng(0)
    w1, w2 = rng.standard_normal((8, 16), np.float32), rng.standard_normal((16, 3), np.float32)
    x = rng.standard_normal((4, 8), np.float32)

    def loss(w1, w2, x):                     # h feeds a dot: it is materialized
        return jnp.sum((jnp.maximum(x @ w1, 0.0) @ w2) ** 2)
    c = tjit.jit(tjit.grad(loss)).lower(w1, w2, x).compile()
    (relu_grad,) = [k for k in c.kernels() if "select" in str(k)]
    assert len([a for a in relu_grad.args if a.role == "in"]) == 2, c.as_text()
    h = np.maximum(x.astype(np.float64) @ w1, 0)
    want = x.T @ ((2 * (h @ w2) @ w2.T) * (h > 0))
    np.testing.assert_allclose(np.asarray(c(w1, w2, x)), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op,dtype", [("neg", F32), ("neg", np.dtype(np.int8)),
                                      ("not", np.dtype(np.bool_)), ("not", np.dtype(np.int32)),
                                      ("not", np.dtype(np.uint8))])
def test_involutions(op, dtype):
    m = module(lambda b, x: b.elementwise(op, [b.elementwise(op, [x])]), dtype)
    s, *_ = check_rule(m, [dtype], fired=gone(op))
    assert s.outputs[0] is s.params[0]


@pytest.mark.parametrize("dtype", [np.dtype(np.bool_), np.dtype(np.int32),
                                   np.dtype(np.uint8)])
def test_bitwise_identities(dtype):
    ones = True if dtype == np.bool_ else np.array(-1).astype(dtype)

    def build(b, x):
        z, o = const(b, 0, dtype), const(b, ones, dtype)
        outs = [b.elementwise(op, list(ab)) for op in ("and", "or", "xor")
                for c in (z, o) for ab in ((x, c), (c, x))]
        if dtype == np.bool_:
            outs += [b.elementwise("ne", [x, z]), b.elementwise("eq", [o, x])]
        else:
            outs += [b.elementwise("rem", [x, const(b, 1, dtype)])]
        return outs

    m = module(build, dtype)
    s, *_ = check_rule(m, [dtype], fired=lambda m, s: count(s, "and") + count(s, "or") +
                       count(s, "ne") + count(s, "eq") + count(s, "rem") == 0)
    assert count(s, "xor") == 2  # xor with all ones is not(x): left alone


def test_select_rules():
    bool_ = np.dtype(np.bool_)
    m = module(lambda b, p, x, y: [b.elementwise("select", [p, x, x]),
                                   b.elementwise("select", [const(b, True, bool_), x, y]),
                                   b.elementwise("select", [const(b, False, bool_), x, y])],
               bool_, F32, F32)
    s, *_ = check_rule(m, [bool_, F32, F32], fired=gone("select"))
    assert s.outputs == [s.params[1], s.params[1], s.params[2]]


DTYPES = sorted(hlo.KERNEL_DTYPES, key=str)


@pytest.mark.parametrize("a", DTYPES, ids=str)
def test_convert_chains_exhaustive(a):
    """Every chain a -> mid -> c the simplifier shortens gives the same values."""
    x = edge_values(a)
    n_rewritten = 0
    for mid, c in itertools.product(DTYPES, DTYPES):
        if mid == a:
            continue
        m = module(lambda b, v, mid=mid, c=c: b.convert(b.convert(v, mid), c), a)
        s = simplify(m)
        if count(s, "convert") < count(m, "convert"):
            n_rewritten += 1
            assert lossless(a, mid)
            assert same_bits(evaluate_module(m, [x])[0], evaluate_module(s, [x])[0]), (mid, c)
    assert n_rewritten > 0 or not any(lossless(a, d) for d in DTYPES if d != a)


def test_convert_rules_examples():
    i32, i8 = np.dtype(np.int32), np.dtype(np.int8)
    m = module(lambda b, v: b.convert(b.convert(v, F64), F32), F32)
    assert opcodes(simplify(m)) == ["parameter"]  # widen then narrow back
    m = module(lambda b, v: b.convert(b.convert(v, F64), i8), i32)
    assert count(simplify(m), "convert") == 2  # float->int saturates, int->int wraps
    x = np.array([300] * EDGE_N, np.int32)
    direct = evaluate_module(module(lambda b, v: b.convert(v, i8), i32), [x])[0]
    assert not same_bits(evaluate_module(m, [x])[0], direct)  # so the rule must not fire
    m = module(lambda b, v: b.add("convert", (v,), v.shape, F32), F32)
    assert opcodes(simplify(m)) == ["parameter"]


def test_layout_rules():
    shape = (2, 3, 4)

    def build(b, x):
        t = b.add("transpose", (x,), (3, 4, 2), F32, perm=(1, 2, 0))
        t = b.add("transpose", (t,), (4, 2, 3), F32, perm=(1, 2, 0))   # total (2, 0, 1)
        r = b.add("reshape", (b.add("reshape", (x,), (6, 4), F32),), (24,), F32)
        z = b.add("reshape", (b.add("reshape", (x,), (24,), F32),), shape, F32)
        br = b.add("broadcast", (b.add("broadcast", (x,), (5, 2, 3, 4), F32, dims=(1, 2, 3)),),
                   (7, 5, 2, 3, 4), F32, dims=(1, 2, 3, 4))
        one = b.add("reshape", (x,), (2, 1, 3, 4), F32)
        ex = b.add("broadcast", (b.add("broadcast", (one,), (2, 1, 3, 4), F32,
                                       dims=(0, 1, 2, 3)),), (2, 5, 3, 4), F32,
                   dims=(0, 1, 2, 3))
        sl = b.add("slice", (x,), shape, F32, start=(0, 0, 0), limit=shape, strides=(1, 1, 1))
        rd = b.add("reduce", (x,), shape, F32, axes=(), monoid="sum")
        # reshapes that only add/drop 1-dims feeding a broadcast (keepdims patterns)
        k1 = b.add("reduce", (x,), (2, 4), F32, axes=(1,), monoid="sum")
        k2 = b.add("reshape", (b.add("reshape", (k1,), (2, 1, 4), F32),), (2, 4), F32)
        u1 = b.add("broadcast", (b.add("reshape", (k1,), (1, 2, 1, 4), F32),),
                   (3, 2, 5, 4), F32, dims=(0, 1, 2, 3))
        u2 = b.add("broadcast", (b.add("reshape", (k1,), (2, 1, 4), F32),), (2, 6, 4), F32,
                   dims=(0, 1, 2))
        keep = b.add("broadcast", (b.add("reshape", (k1,), (8,), F32),), (3, 8), F32,
                     dims=(1,))                  # merges dims: kept
        return [t, r, z, br, ex, sl, rd, k2, u1, u2, keep]

    m = module(build, F32, shape=shape)
    s = simplify(m)
    assert count(s, "transpose") == 1 and count(s, "reshape") == 2
    assert count(s, "broadcast") == 5 and count(s, "slice") == 0 and count(s, "reduce") == 1
    assert s.outputs[7] is s.outputs[8].operands[0] is s.outputs[9].operands[0]
    assert [i.attrs["perm"] for i in s.instrs if i.opcode == "transpose"] == [(2, 0, 1)]
    assert s.outputs[2] is s.params[0] and s.outputs[5] is s.params[0]
    x = np.arange(24, dtype=np.float32).reshape(shape)
    for p, q in zip(evaluate_module(m, [x]), evaluate_module(s, [x])):
        assert same_bits(p, q)


def test_scalar_layout_and_uniform_constants():
    def build(b, x):
        c = b.constant(np.float32(2.5))
        r = b.add("reshape", (c,), (1, 1), F32)
        r = b.add("reshape", (b.broadcast(r, (4, 1, 1, 1), (1, 2)),), (4,), F32)
        t = b.add("transpose", (b.broadcast(c, (2, 4), ()),), (4, 2), F32, perm=(1, 0))
        u = b.constant(np.full((4,), -0.0, np.float32))
        return [b.elementwise("mul", [x, r]), t, b.elementwise("add", [x, u])]

    m = module(build, F32, shape=(4,))
    s = simplify(m)
    assert count(s, "reshape") == 0 and count(s, "transpose") == 0
    assert all(i.ndim == 0 for i in s.instrs if i.opcode == "constant")
    assert count(s, "add") == 0  # the uniform -0.0 array was recognized
    x = np.array([1.0, -0.0, np.inf, np.nan], np.float32)
    for p, q in zip(evaluate_module(m, [x]), evaluate_module(s, [x])):
        assert same_bits(p, q)


def test_constant_folding():
    i32 = np.dtype(np.int32)

    def build(b, x):
        def c(v, d=F32):
            return b.constant(v, d)

        outs = [b.elementwise("add", [c(2.0), c(3.0)]),
                b.elementwise("div", [c(7, i32), c(0, i32)]),     # tjit: x / 0 = -1
                b.elementwise("rem", [c(-7, i32), c(2, i32)]),    # dividend's sign
                b.convert(c(1e10), i32),                           # saturates
                b.convert(c(np.nan), i32),                         # NaN -> 0
                b.elementwise("max", [c(np.nan), c(1.0)]),         # NaN propagates
                b.elementwise("round", [c(-2.5)]), b.elementwise("round_even", [c(-2.5)]),
                b.elementwise("select", [c(True, np.bool_), c(1.0), c(2.0)]),
                b.elementwise("lt", [c(1.0), c(np.nan)]),
                b.broadcast(b.elementwise("mul", [c(-0.0), c(5.0)]), (EDGE_N,), ())]
        return outs + [b.elementwise("exp", [c(1.0)]),                 # not folded
                       b.elementwise("add", [x, b.broadcast(b.elementwise(
                           "sub", [c(1.0), c(1.0)]), (EDGE_N,), ())])]

    m = module(build, F32)
    s = simplify(m)
    assert count(s, "exp") == 1 and count(s, "add") == 1
    assert set(opcodes(s)) <= {"parameter", "constant", "broadcast", "exp", "add"}
    x = edge_values(F32)
    got, want = evaluate_module(s, [x]), evaluate_module(m, [x])
    for p, q in zip(got, want):
        assert same_bits(p, q)
    assert got[1] == -1 and got[3] == 2 ** 31 - 1 and got[4] == 0 and np.isnan(got[5])
    assert got[6] == -3 and got[7] == -2 and np.signbit(got[10]).all()


def test_cse_and_dce():
    def build(b, x):
        e1, e2 = b.elementwise("exp", [x]), b.elementwise("exp", [x])
        pz, nz = const(b, 0.0, F32), const(b, -0.0, F32)
        b.elementwise("log", [x])  # dead
        return [b.elementwise("add", [e1, e2]), b.elementwise("max", [x, pz]),
                b.elementwise("max", [x, nz])]

    m = module(build, F32)
    s = simplify(m)
    assert count(s, "exp") == 1 and count(s, "log") == 0
    assert count(s, "constant") == 2  # +0.0 and -0.0 are different constants
    assert s.outputs[1] is not s.outputs[2]
    x = edge_values(F32)
    for p, q in zip(evaluate_module(m, [x]), evaluate_module(s, [x])):
        assert same_bits(p, q)


def test_params_and_outputs_order():
    m = module(lambda b, x, y: [y, b.elementwise("neg", [b.elementwise("neg", [x])]), x],
               F32, F32)
    s = simplify(m)
    assert s.params == m.params and s.outputs == [m.params[1], m.params[0], m.params[0]]


# ----------------------------------------------------------------------------------------
# Transcendental compositions.

def _wide(dtype, n=4001):
    lim = 800.0 if dtype == F64 else 120.0
    x = np.concatenate([np.linspace(-lim, lim, n), -np.logspace(-40, 2.5, 300),
                        np.logspace(-40, 2.5, 300), edge_values(dtype)])
    with np.errstate(all="ignore"):
        return x.astype(dtype)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_exp_of_log(dtype):
    m = module(lambda b, x: b.elementwise("exp", [b.elementwise("log", [x])]), dtype,
               shape=(len(_wide(dtype)),))
    s = simplify(m)
    assert count(s, "exp") == 0 and count(s, "log") == 0
    x = _wide(dtype)
    before, after = evaluate_module(m, [x])[0], evaluate_module(s, [x])[0]
    pos = np.isfinite(x) & (x > 0)
    assert same_bits(before[~pos], after[~pos])   # NaN, negatives, inf, ±0 (-> +0.0)
    assert same_bits(after[pos], x[pos])          # exact now (even exp(log(FLT_MAX)))
    # the composition is off by about |log x| ulps (log's absolute error, scaled by exp)
    normal = pos & (x > np.finfo(dtype).tiny) & (x < np.finfo(dtype).max / 2)
    err = np.abs(before[normal] - x[normal]) / (x[normal] * np.finfo(dtype).eps)
    assert (err <= 2 + np.abs(np.log(x[normal]))).all()


@pytest.mark.parametrize("dtype", [F32, F64])
def test_log_of_exp(dtype):
    x = _wide(dtype)
    lo, hi = exp_range(dtype)
    inf = dtype.type(np.inf)
    x = np.concatenate([x, [lo, hi, np.nextafter(lo, -inf), np.nextafter(hi, inf)]]).astype(
        dtype)
    m = module(lambda b, v: b.elementwise("log", [b.elementwise("exp", [v])]), dtype,
               shape=x.shape)
    s = simplify(m)
    assert count(s, "exp") == 0 and count(s, "log") == 0
    before, after = evaluate_module(m, [x])[0], evaluate_module(s, [x])[0]
    special = ~np.isfinite(before) | (x == 0)
    assert same_bits(before[special], after[special])       # overflow, NaN, -0.0 -> +0.0
    normal = np.isfinite(before) & (x > np.log(np.finfo(dtype).tiny)) & (x != 0)
    assert same_bits(after[normal], x[normal])
    np.testing.assert_allclose(before[normal], x[normal], rtol=4 * np.finfo(dtype).eps,
                               atol=4 * np.finfo(dtype).eps)
    assert np.isfinite(after[np.isfinite(before)]).all()   # subnormal exp: still finite


def _softplus_forms(b, x):
    dt = x.dtype
    zero = const(b, 0.0, dt, x.shape)
    direct = b.elementwise("log1p", [b.elementwise("exp", [x])])
    tail = b.elementwise("log1p", [b.elementwise("exp", [b.elementwise(
        "neg", [b.elementwise("abs", [x])])])])
    lae = b.elementwise("add", [tail, b.elementwise("max", [zero, x])])
    guarded = b.elementwise("select", [b.elementwise("ne", [x, x]),
                                       b.elementwise("add", [x, zero]), lae])
    return [b.elementwise("tanh", [f]) for f in (direct, lae, guarded)]


@pytest.mark.parametrize("dtype", [F32, F64])
def test_tanh_softplus_rewrite(dtype):
    x = _wide(dtype)
    m = module(_softplus_forms, dtype, shape=x.shape)
    s = simplify(m)
    assert count(s, "tanh") == 0 and count(s, "log1p") == 0 and count(s, "exp") == 1
    with np.errstate(all="ignore"):
        ref = np.tanh(np.log1p(np.exp(x.astype(np.float64))))
    if dtype == F64:  # float64 reference for float64: mpmath on a subset
        import mpmath
        mpmath.mp.dps = 40
        k = np.flatnonzero(np.isfinite(x) & (x < 40))[::7]
        x, ref = x[k], np.array([float(mpmath.tanh(mpmath.log1p(mpmath.exp(mpmath.mpf(
            float(v)))))) for v in x[k]])
        m = module(_softplus_forms, dtype, shape=x.shape)
        s = simplify(m)
    before, after = evaluate_module(m, [x]), evaluate_module(s, [x])
    for p, q in zip(before, after):
        nan = np.isnan(ref)
        assert (np.isnan(q) == nan).all()
        assert ulp_error(q[~nan], ref[~nan], dtype) <= 4
        assert ulp_error(p[~nan], ref[~nan], dtype) <= 4
    if dtype == F32:
        edge = np.isin(x, [np.inf, -np.inf]) | np.isnan(x)
        for q in after:
            assert same_bits(q[edge], np.where(np.isnan(x[edge]), np.nan,
                                               np.where(x[edge] > 0, 1.0, 0.0)).astype(dtype))


def test_tanh_alone_not_rewritten():
    m = module(lambda b, x: b.elementwise("tanh", [b.elementwise("log1p", [x])]), F32)
    assert kept("tanh")(m, simplify(m))


@pytest.mark.parametrize("batched", [False, True])
def test_transposed_dot_becomes_swapped_dot(batched):
    # the weight gradient of x @ w is dot(dy, x) transposed: BLAS should write it in the
    # layout its consumer reads, so the transpose disappears and the operands swap
    rng = np.random.default_rng(1)
    if batched:
        x = rng.standard_normal((3, 5, 4)).astype(np.float32)
        w = rng.standard_normal((3, 4, 6)).astype(np.float32)

        def loss(w, x):
            return jnp.sum(jnp.tanh(jnp.einsum("bij,bjk->bik", x, w)))
    else:
        x = rng.standard_normal((5, 4)).astype(np.float32)
        w = rng.standard_normal((4, 6)).astype(np.float32)

        def loss(w, x):
            return jnp.sum(jnp.tanh(x @ w))
    closed = tjit.make_jaxpr(tjit.grad(loss))(w, x)
    m = lower_jaxpr(closed)
    s = simplify(m)
    assert count(m, "transpose") >= 1 and count(s, "transpose") == 0
    assert count(s, "dot") == count(m, "dot")
    want = eval_jaxpr_reference(closed.jaxpr, closed.consts, [w, x])[0]
    np.testing.assert_allclose(evaluate_module(s, [w, x])[0], want, rtol=1e-5, atol=1e-6)
    # and through the compiled path, against float64 NumPy
    t = np.tanh(x.astype(np.float64) @ w if not batched else
                np.einsum("bij,bjk->bik", x.astype(np.float64), w))
    dy = 1 - t ** 2
    ref = x.T @ dy if not batched else np.einsum("bij,bik->bjk", x, dy)
    np.testing.assert_allclose(np.asarray(tjit.jit(tjit.grad(loss))(w, x)), ref,
                               rtol=1e-4, atol=1e-5)


def test_transposed_dot_with_other_users_kept():
    # dot(a, b) used both as is and transposed: swapping would compute two products
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    s = simplify(lower_jaxpr(tjit.make_jaxpr(lambda a, b: ((a @ b).T, a @ b))(a, b)))
    assert count(s, "dot") == 1 and count(s, "transpose") == 1


def test_full_reduce_split_and_reshape_sunk_to_the_loads():
    x = np.linspace(-2, 2, 1 << 16, dtype=np.float32)
    closed = tjit.make_jaxpr(lambda v: jnp.sum(jnp.exp(v) * v))(x)
    s = simplify(lower_jaxpr(closed))
    assert count(s, "reduce") == 2
    # the rank-1 input is reshaped to rows at the parameter, below exp and mul
    (r,) = [i for i in s.instrs if i.opcode == "reshape"]
    assert r.operands[0].opcode == "parameter" and len(r.shape) == 2
    want = np.sum(np.exp(x.astype(np.float64)) * x)
    np.testing.assert_allclose(evaluate_module(s, [x])[0], want, rtol=1e-6)


def test_dot_transpose_operand_folded_into_dimension_numbers():
    rng = np.random.default_rng(3)
    u, v = rng.standard_normal((6, 4)).astype(np.float32), rng.standard_normal((5, 4)).astype(
        np.float32)
    closed = tjit.make_jaxpr(lambda u, v: u @ v.T)(u, v)
    s = simplify(lower_jaxpr(closed))
    assert opcodes(s) == ["parameter", "parameter", "dot"]
    np.testing.assert_allclose(evaluate_module(s, [u, v])[0], u.astype(np.float64) @ v.T,
                               rtol=1e-5)
    # a transpose that would reorder the free dims of a batched operand is kept
    a = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    b = rng.standard_normal((2, 5, 6)).astype(np.float32)
    closed = tjit.make_jaxpr(lambda a, b: jnp.einsum("bijk,bkl->bjil", a, b))(a, b)
    s = simplify(lower_jaxpr(closed))
    want = np.einsum("bijk,bkl->bjil", a.astype(np.float64), b)
    np.testing.assert_allclose(evaluate_module(s, [a, b])[0], want, rtol=1e-5, atol=1e-5)
