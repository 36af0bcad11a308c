"""Every exact elementwise op on every kernel dtype's edge values, computed inside loop
bodies (whose kernels the CPU builds with the many-call vector profile and whose short
contiguous inner loops it keeps rolled), gives the reference interpreter's bits.

The ops' semantics (kernel_semantics.py) are tested at top level elsewhere; a loop body
is compiled by another LLVM pipeline, so each dtype's ops run once more there: in a
fori_loop body over a (4, 16) carry (a contiguous inner extent of 16), over its transpose
(strided reads), and in a scan body over (8, 4) rows. One program per dtype and context,
one output per op, so a failure names the op.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

DTYPES = ["float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
          "int64", "uint64", "bool"]

UNARY = {
    "neg": lambda x: -x, "abs": jnp.abs, "sign": jnp.sign, "floor": jnp.floor,
    "ceil": jnp.ceil, "round_even": jnp.round, "round_away": lax.round, "trunc": jnp.trunc,
    "sqrt": jnp.sqrt, "square": jnp.square, "reciprocal": jnp.reciprocal, "isnan": jnp.isnan,
    "isinf": jnp.isinf, "signbit": jnp.signbit, "invert": jnp.invert,
    "population_count": lax.population_count, "clz": lax.clz, "logical_not": jnp.logical_not,
    "integer_pow3": lambda x: lax.integer_pow(x, 3),
}
BINARY = {
    "add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply, "lax_div": lax.div,
    "lax_rem": lax.rem, "floor_divide": jnp.floor_divide, "remainder": jnp.remainder,
    "maximum": jnp.maximum, "minimum": jnp.minimum, "and": jnp.bitwise_and,
    "or": jnp.bitwise_or, "xor": jnp.bitwise_xor, "shift_left": lax.shift_left,
    "shift_right_arithmetic": lax.shift_right_arithmetic,
    "shift_right_logical": lax.shift_right_logical, "lt": lax.lt, "le": lax.le, "eq": lax.eq,
    "ne": lax.ne, "nextafter": lax.nextafter, "copysign": jnp.copysign, "fmod": jnp.fmod,
}


def _cast_to(dtype):
    return lambda x: lax.convert_element_type(x, dtype)


CASTS = {"to_" + t: _cast_to(t) for t in DTYPES}


def _edge_values(dtype, n=64, seed=0):
    """``n`` values of ``dtype``: its edge cases first, then random ones."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        fi = np.finfo(dt)
        special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5,
                   fi.max, -fi.max, fi.tiny, fi.tiny / 4, 1e10, -1e10, 2.0**31, -2.0**31,
                   2.0**63, 255.5, -129.0, 65535.75]
        rest = rng.standard_normal(n - len(special)) * 50
        return np.concatenate([np.array(special), rest]).astype(dt)
    if dt.kind == "b":
        return rng.random(n) < 0.5
    ii = np.iinfo(dt)
    special = [ii.min, ii.max, 0, 1, 2, 3, 7, 31, 63, ii.min + 1, ii.max - 1]
    special += [-1, -2, -7, -64] if ii.min < 0 else [8, 64, 200]
    rest = rng.integers(max(ii.min, -1000), min(ii.max, 1000), n - len(special), endpoint=True)
    return np.array(special + rest.tolist(), dtype=object).astype(dt)


def _ops_for(x, y):
    """The ops that accept ``x``'s dtype (and ``y``), found by a tiny eager call."""
    ops = {}
    for name, op in list(UNARY.items()) + list(CASTS.items()) + list(BINARY.items()):
        args = (x[:2],) if name in UNARY or name in CASTS else (x[:2], y[:2])
        try:
            with np.errstate(all="ignore"):
                op(*args)
        except (TypeError, ValueError):
            continue
        ops[name] = op
    return ops


def _apply(ops, x, y):
    out = {}
    for name, op in ops.items():
        out[name] = op(x) if name in UNARY or name in CASTS else op(x, y)
    return out


CONTEXTS = {
    # two trips of a fori_loop whose carry holds the inputs: the ops are the body's
    "loop_rows": lambda ops: lambda x, y: lax.fori_loop(
        0, 2, lambda i, c: (c[0], c[1], _apply(ops, c[0], c[1])),
        (x.reshape(4, 16), y.reshape(4, 16), _apply(ops, x.reshape(4, 16), y.reshape(4, 16))))[2],
    "loop_transposed": lambda ops: lambda x, y: lax.fori_loop(
        0, 2, lambda i, c: (c[0], c[1], _apply(ops, c[0].T, c[1].T)),
        (x.reshape(16, 4), y.reshape(16, 4),
         _apply(ops, x.reshape(16, 4).T, y.reshape(16, 4).T)))[2],
    "scan_rows": lambda ops: lambda x, y: lax.scan(
        lambda c, r: (c, _apply(ops, r[0], r[1])), 0,
        (x.reshape(-1, 8, 4), y.reshape(-1, 8, 4)))[1],
}


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind == "f":
        nan = np.isnan(got) & np.isnan(want)
        u = f"u{got.itemsize}"
        return bool(np.all(nan | (got.view(u) == want.view(u))))
    return np.array_equal(got, want)


@pytest.mark.parametrize("context", sorted(CONTEXTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_loop_body_ops_match_interpreter_bits(dtype, context):
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", True)
    try:
        x = _edge_values(dtype, seed=1)
        y = np.roll(_edge_values(dtype, seed=2)[::-1], 5)
        ops = _ops_for(x, y)
        f = CONTEXTS[context](ops)
        got = tjit.jit(f)(x, y)
        want = tjit.jit(f, backend="interpreter")(x, y)
        bad = []
        for name in ops:
            g, w = np.asarray(got[name]), np.asarray(want[name])
            if g.shape != w.shape or g.dtype != w.dtype or not _same_bits(g, w):
                bad.append(name)
        assert not bad, f"{dtype} in {context}: compiled != interpreter for {bad}"
    finally:
        tjit.config.update("enable_x64", old)
