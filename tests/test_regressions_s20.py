"""Regressions found by a hunt over the session's changes (narrow float8/int4 kernel
dtypes, erfc/lgamma/digamma/nextafter/popcount/clz as kernel ops, ...). Each case
compares ``jit`` with the eager path or the reference interpreter, bit for bit where
the values are exact."""

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.lower.llvm import codegen_ops, narrow

NARROW_FLOATS = sorted(narrow.FLOATS, key=lambda d: d.name)
NARROW_INTS = sorted(narrow.INTS, key=lambda d: d.name)


def _every_value(dt):
    """Every value of narrow ``dt`` once (ml_dtypes' canonical bytes)."""
    raw = np.arange(256, dtype=np.uint8).view(dt)
    return raw.astype(np.float32 if dt in narrow.FLOATS else np.int32).astype(dt)


def _same_bits(got, want, what):
    """float32 results equal bit for bit (NaNs of any sign or payload are equal)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, what
    if got.dtype.kind == "f":
        nan = np.isnan(got) & np.isnan(want)
        bad = np.flatnonzero(~nan & (got.view(np.uint32) != want.view(np.uint32)))
    else:
        bad = np.flatnonzero(got != want)
    assert not bad.size, (f"{what}: {bad.size} of {got.size} differ, first at {bad[0]}: "
                          f"jit {got[bad[0]]!r}, eager {want[bad[0]]!r}")


# Ops a kernel computes on a narrow type without rounding the result (codegen_ops'
# _NARROW_EXACT), each read straight from its register by a convert to float32/int32,
# so a register holding a value the type lacks shows. The unary ones were checked only
# through a store, whose encode rounds: jit(lambda x: (-x).astype(float32)) on
# float8_e8m0fnu gave -x (eager: NaN, the type has no sign: jnp.maximum(-x, y) was y
# where eager is NaN), and on the fnuz types -0.0 (eager +0.0: they have no -0).
_UNARY = {"neg": lax.neg, "abs": lax.abs}
_BINARY = {"max": lax.max, "min": lax.min,
           "select": lambda a, b: jnp.where(a > b, a, b), "add": jnp.add}


def test_exact_narrow_ops_hold_values_of_the_type_in_registers():
    assert set(_UNARY) | set(_BINARY) - {"add"} >= codegen_ops._NARROW_EXACT
    xs = {dt.name: _every_value(dt) for dt in NARROW_FLOATS + NARROW_INTS}
    ys = {name: np.roll(x, 37) for name, x in xs.items()}

    def program(xs, ys):
        out = {}
        for name, x in xs.items():
            wide = jnp.float32 if np.dtype(x.dtype) in narrow.FLOATS else jnp.int32
            for op, f in _UNARY.items():
                out[name, op] = f(x).astype(wide)
            for op, f in _BINARY.items():
                out[name, op] = f(x, ys[name]).astype(wide)
            out[name, "max(neg)"] = lax.max(-x, ys[name]).astype(wide)
        return out

    got = tjit.jit(program)(xs, ys)
    want = program({k: jnp.asarray(v) for k, v in xs.items()},
                   {k: jnp.asarray(v) for k, v in ys.items()})
    for key in want:
        _same_bits(got[key], want[key], key)


def test_e8m0_negation_is_nan_in_a_fused_chain():
    """float8_e8m0fnu has no negative values: -x is its NaN, and max(NaN, y) is NaN."""
    dt = np.dtype(ml_dtypes.float8_e8m0fnu)
    x = np.array([0.25, 1.0, 8.0], np.float32).astype(dt)
    y = np.array([2.0, 0.5, 4.0], np.float32).astype(dt)
    got = tjit.jit(lambda a, b: jnp.maximum(-a, b))(x, y)
    assert np.isnan(np.asarray(got).astype(np.float32)).all(), got


# The session's new kernel ops (erfc, lgamma, digamma, nextafter, population_count, clz)
# and narrow-type arithmetic inside transformed programs: batched by vmap, inside scan and
# while bodies (compiled loop bodies) and with a symbolic batch size, against eager calls
# row by row (eager is the library/NumPy path, not the kernels).
_F8 = np.dtype(ml_dtypes.float8_e4m3fn)


def _row_ops(x, k):
    """One row's worth of the new ops: float32 ``x``, int32 ``k``."""
    q = (x * 2.0).astype(_F8)
    return (lax.erfc(x), lax.lgamma(jnp.abs(x) + 0.25), lax.digamma(x),
            lax.nextafter(x, jnp.zeros_like(x)), lax.population_count(k), lax.clz(k),
            (q * q - q).astype(jnp.float32))


def _close(got, want, what):
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (what, i)
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, equal_nan=True,
                                   err_msg=f"{what}: output {i}")


def test_new_kernel_ops_under_vmap_scan_while_and_symbolic_shapes():
    rng = np.random.default_rng(2020)
    x = (rng.standard_normal((5, 9)) * 3).astype(np.float32)
    x[0, :4] = [0.5, -2.5, 1.0, 2.0]          # digamma's zero side, a pole's neighbour
    k = rng.integers(-2**31, 2**31, (5, 9), dtype=np.int64).astype(np.int32)
    k[0, :3] = [0, -1, 1]
    rows = [_row_ops(jnp.asarray(x[i]), jnp.asarray(k[i])) for i in range(5)]
    want = [np.stack([np.asarray(r[j]) for r in rows]) for j in range(7)]

    _close(tjit.jit(tjit.vmap(_row_ops))(x, k), want, "vmap")

    def scanned(x, k):
        return lax.scan(lambda c, xk: (c + 1, _row_ops(*xk)), 0, (x, k))[1]
    _close(tjit.jit(scanned)(x, k), want, "scan body")

    def looped(x, k):
        outs = tuple(jnp.zeros((5, 9), w.dtype) for w in want)

        def body(s):
            i, outs = s
            return i + 1, tuple(o.at[i].set(r) for o, r in zip(outs, _row_ops(x[i], k[i])))
        return lax.while_loop(lambda s: s[0] < 5, body, (0, outs))[1]
    _close(tjit.jit(looped)(x, k), want, "while body")

    poly = tjit.jit(_row_ops, polymorphic_shapes=["(b, 9)", "(b, 9)"])
    for n in (1, 3, 5):
        _close(poly(x[:n], k[:n]), _row_ops(jnp.asarray(x[:n]), jnp.asarray(k[:n])),
               f"symbolic b = {n}")


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "bfloat16", "float16"])
def test_traced_linspace_in_narrow_floats_rounds_once(name):
    # traced linspace stepped in the narrow type: float8_e4m3fn from -1.5 to 6 in 8 points
    # gave [-1.5, -.375, .75, 2, 3, 4, 5.5, 6]; NumPy's float64 values rounded once are
    # [-1.5, -.4375, .625, 1.75, 2.75, 3.75, 5, 6]
    dt = getattr(jnp, name)
    for a, b, n in [(-1.5, 6.0, 8), (0.0, 1.0, 11), (-3.0, 0.25, 5)]:
        want = np.linspace(a, b, n).astype(np.dtype(dt))
        got, step = tjit.jit(lambda a, b: jnp.linspace(a, b, n, dtype=dt, retstep=True))(a, b)
        assert got.dtype == want.dtype and step.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got).astype(np.float64),
                                      want.astype(np.float64))
