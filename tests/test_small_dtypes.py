"""The narrow ml_dtypes types (float8_*, float6_*, float4_e2m1fn, int4/uint4/int2/uint2/
int1/uint1): names, finfo/iinfo, JAX's promotion table, casts (ml_dtypes' rounding is the
reference), arithmetic computed in float32 and rounded once (float64 references), dots
with preferred_element_type, reductions, comparisons and printing; eager, jit and the
reference interpreter agree.

The jit checks also guard a class of defect: cache and CSE keys built from
``dtype.str``, which is '|V1' for every one-byte ml_dtypes type, so a program compiled
for float8_e4m3fn ran on float8_e5m2 or int4 inputs.
"""

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
import tjit.lax as lax
from tjit.tracing import dtypes
from tjit.tracing.jaxpr import eval_jaxpr_reference

FLOATS = [t.name for t in dtypes.SMALL_FLOATS]
INTS = [t.name for t in dtypes.SMALL_INTS]
F8 = [n for n in FLOATS if n.startswith("float8")]


def _dt(name):
    return np.dtype(getattr(ml_dtypes, name))


def _all_values(name):
    """Every value of a narrow dtype: all bit patterns of a float, the range of an int."""
    dt = _dt(name)
    if name in INTS:
        info = ml_dtypes.iinfo(dt)
        return np.arange(info.min, info.max + 1).astype(dt)
    return np.arange(2 ** ml_dtypes.finfo(dt).bits, dtype=np.uint8).view(dt)


def _same_bits(got, want, zero_signs=True):
    """Equal values with equal signs of zero (NaNs equal whatever their bits)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(g) & np.isnan(w)
    bad = ~nan & ((g != w) | (zero_signs & (np.signbit(g) != np.signbit(w))))
    assert not bad.any(), (f"{bad.sum()} of {bad.size} differ, e.g. at "
                           f"{np.flatnonzero(bad)[:3]}: {g.ravel()[bad.ravel()][:3]} vs "
                           f"{w.ravel()[bad.ravel()][:3]}")


def _three_ways(fn, *args):
    """``fn`` eagerly, under jit and through the reference interpreter (NumPy impls)."""
    eager = fn(*args)
    jitted = tjit.jit(fn)(*args)
    closed = tjit.make_jaxpr(fn)(*args)
    interp, = eval_jaxpr_reference(closed.jaxpr, closed.consts, [np.asarray(a) for a in args])
    return eager, jitted, np.asarray(interp)


# -- names, finfo, iinfo -------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS + INTS)
def test_names_are_ml_dtypes_types(name):
    t = getattr(jnp, name)
    assert jnp.dtype(t) == _dt(name)
    assert jnp.zeros(3, t).dtype == _dt(name)
    assert jnp.issubdtype(t, jnp.floating if name in FLOATS else jnp.integer)
    assert jnp.issubdtype(t, jnp.number) and not jnp.issubdtype(t, jnp.complexfloating)
    assert jnp.isdtype(t, "real floating" if name in FLOATS else "integral")
    bits = (ml_dtypes.finfo if name in FLOATS else ml_dtypes.iinfo)(_dt(name)).bits
    assert tjit.dtypes.itemsize_bits(t) == bits
    assert jnp.zeros(5, t).nbytes == 5   # one byte an element, as ml_dtypes holds them


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_is_ml_dtypes(name):
    got, want = jnp.finfo(getattr(jnp, name)), ml_dtypes.finfo(_dt(name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_subnormal", "nmant", "nexp"):
        assert getattr(got, attr) == getattr(want, attr), attr


@pytest.mark.parametrize("name", INTS)
def test_iinfo_is_ml_dtypes(name):
    got, want = jnp.iinfo(getattr(jnp, name)), ml_dtypes.iinfo(_dt(name))
    assert (got.min, got.max, got.bits) == (want.min, want.max, want.bits)


def test_signed_unsigned_categories():
    assert jnp.issubdtype(jnp.int4, jnp.signedinteger)
    assert not jnp.issubdtype(jnp.uint4, jnp.signedinteger)
    assert jnp.issubdtype(jnp.uint2, jnp.unsignedinteger)
    assert jnp.isdtype(jnp.int2, "signed integer") and not jnp.isdtype(jnp.int2, "numeric") is False


# -- promotion -------------------------------------------------------------------------
# JAX's promotion results for every pair with a narrow type among NARROW + COMMON + the
# weak Python types, produced with JAX 0.10.2 (jnp.promote_types on each pair, keeping
# the pairs that promote; every other pair raised TypePromotionError). Symmetric: each
# pair is listed once.
COMMON = ["bool", "int8", "uint8", "int32", "bfloat16", "float16", "float32"]
WEAK = {"int": int, "float": float, "complex": complex}
_F8_ROWS = {f: {"bool": f, "float": f, "int": f, "int32": f, "int8": f, "uint8": f, f: f}
            for f in FLOATS}
_INT_ROWS = {i: {"bool": i, "int": i, i: i} for i in INTS}
JAX_PROMOTIONS = {**{(a, b): r for a, row in _F8_ROWS.items() for b, r in row.items()},
                  **{(a, b): r for a, row in _INT_ROWS.items() for b, r in row.items()}}


def _type(name):
    return WEAK.get(name) or getattr(jnp, name)


@pytest.mark.parametrize("a", FLOATS + INTS)
def test_promotion_matches_jax(a):
    for b in FLOATS + INTS + COMMON + list(WEAK):
        want = JAX_PROMOTIONS.get((a, b))
        for x, y in ((a, b), (b, a)):
            if want is None:
                with pytest.raises(tjit.dtypes.TypePromotionError, match="implicit"):
                    jnp.promote_types(_type(x), _type(y))
            else:
                assert jnp.promote_types(_type(x), _type(y)) == _dt(want), (x, y)


def test_python_scalars_keep_the_narrow_type_and_mixed_arrays_refuse():
    x = jnp.asarray([1.0, 2.0], jnp.float8_e4m3fn)
    assert (x * 2).dtype == x.dtype and (x + 0.5).dtype == x.dtype and (2.0 - x).dtype == x.dtype
    i = jnp.asarray([1, 2], jnp.int4)
    assert (i + 3).dtype == i.dtype
    with pytest.raises(tjit.dtypes.TypePromotionError, match="int4"):
        i + 0.5
    with pytest.raises(tjit.dtypes.TypePromotionError,
                       match="float8_e4m3fn.*float32|float32.*float8_e4m3fn"):
        x + jnp.ones(2, jnp.float32)
    with pytest.raises(tjit.dtypes.TypePromotionError, match="8-bit floats"):
        x + jnp.ones(2, jnp.float8_e5m2)


# -- casts ------------------------------------------------------------------------------
def _cast_sources():
    rng = np.random.default_rng(0)
    spread = rng.standard_normal(400) * 10.0 ** rng.integers(-12, 8, 400)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 0.5, 1.5, 2.5, 3.5, 448.0,
                464.0, 480.0, 57344.0, 61440.0, 1e-40]
    return np.concatenate([spread, specials]).astype(np.float32)


@pytest.mark.parametrize("name", FLOATS)
def test_cast_from_float32_rounds_as_ml_dtypes(name):
    """Round to nearest even; overflow gives inf where the type has it and NaN in the fn/fnuz
    types (as ml_dtypes, as XLA); NaN stays NaN; -0.0 keeps its sign where the type has
    one."""
    src = _cast_sources()
    want = src.astype(_dt(name))
    for got in _three_ways(lambda a: a.astype(getattr(jnp, name)), jnp.asarray(src)):
        _same_bits(got, want)


@pytest.mark.parametrize("name", FLOATS + INTS)
def test_cast_to_float32_is_exact(name):
    v = _all_values(name)
    for got in _three_ways(lambda a: a.astype(jnp.float32), jnp.asarray(v)):
        _same_bits(got, v.astype(np.float64).astype(np.float32))


@pytest.mark.parametrize("name", INTS)
def test_int_cast_wraps_as_ml_dtypes(name):
    src = np.arange(-20, 20, dtype=np.int32)
    want = src.astype(_dt(name))
    for got in _three_ways(lambda a: a.astype(getattr(jnp, name)), jnp.asarray(src)):
        _same_bits(got, want)


@pytest.mark.parametrize("src", FLOATS + INTS)
def test_casts_between_narrow_types(src):
    """Every value of ``src`` to every other narrow type: the exact value (float64 or
    int64 hold them all) rounded once by ml_dtypes; a float to an int truncates and
    saturates, NaN giving 0 (JAX's convert). ml_dtypes itself has no cast for some pairs
    (float8_e8m0fnu to float8_e4m3fn, int4 to uint4)."""
    v = _all_values(src)
    for dst in FLOATS + INTS:
        if dst == src:
            continue
        if src in FLOATS and dst in INTS:
            info = ml_dtypes.iinfo(_dt(dst))
            f = np.nan_to_num(v.astype(np.float64), nan=0.0, posinf=info.max, neginf=info.min)
            want = np.clip(np.trunc(f), info.min, info.max).astype(np.int64).astype(_dt(dst))
        else:
            want = v.astype(np.float64 if src in FLOATS else np.int64).astype(_dt(dst))
        eager, jitted, interp = _three_ways(lambda a: a.astype(getattr(jnp, dst)),
                                            jnp.asarray(v))
        for got in (eager, jitted, interp):
            # (float4/float6 have no NaN: what a NaN becomes there is unspecified)
            keep = ~np.isnan(v.astype(np.float64)) if dst.startswith(("float4", "float6")) \
                else slice(None)
            _same_bits(np.asarray(got)[keep], want[keep])


# -- arithmetic ----------------------------------------------------------------------------
_BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
           "divide": np.divide, "maximum": np.maximum, "minimum": np.minimum}


@pytest.mark.parametrize("name", F8 + ["float4_e2m1fn", "float6_e3m2fn"])
@pytest.mark.parametrize("op", sorted(_BINARY))
def test_binary_ops_round_the_exact_result_once(name, op):
    """Every pair of values (all bit patterns of the type): the float64 result rounded to
    the type is the reference (float32 is wide enough that computing there and rounding
    again rounds the same: 24 >= 2 * 4 + 2 bits)."""
    v = _all_values(name)
    x, y = np.repeat(v, v.size), np.tile(v, v.size)
    if op == "divide" and name == "float8_e8m0fnu":
        pytest.skip("division by these powers of two is exact; covered by multiply")
    with np.errstate(all="ignore"):
        want = _BINARY[op](x.astype(np.float64), y.astype(np.float64)).astype(_dt(name))
    fn = getattr(jnp, op)
    for got in _three_ways(fn, jnp.asarray(x), jnp.asarray(y)):
        # (which zero max(-0.0, 0.0) gives is unspecified, in NumPy as in XLA)
        _same_bits(got, want, zero_signs=op not in ("maximum", "minimum"))


@pytest.mark.parametrize("name", F8)
@pytest.mark.parametrize("op", ["sqrt", "exp", "tanh", "negative", "abs", "floor"])
def test_unary_ops_round_the_float64_result(name, op):
    v = _all_values(name)
    with np.errstate(all="ignore"):
        want = getattr(np, op)(v.astype(np.float64)).astype(_dt(name))
    got_eager, got_jit, got_interp = _three_ways(getattr(jnp, op), jnp.asarray(v))
    if op in ("exp", "tanh"):
        # float32's exp/tanh are within an ulp of float32 of the truth, so rounding them to
        # 8 bits can differ only where the float64 value is within that of a tie
        f32 = getattr(np, op)(v.astype(np.float32)).astype(_dt(name))
        _same_bits(got_eager, f32)
    else:
        _same_bits(got_eager, want)
    _same_bits(got_jit, got_eager)
    _same_bits(got_interp, got_eager)


@pytest.mark.parametrize("name", INTS)
def test_int_arithmetic_wraps(name):
    v = _all_values(name)
    x, y = np.repeat(v, v.size), np.tile(v, v.size)
    info = ml_dtypes.iinfo(_dt(name))
    span = info.max - info.min + 1
    for op, ref in (("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply)):
        exact = ref(x.astype(np.int64), y.astype(np.int64))
        want = ((exact - info.min) % span + info.min).astype(_dt(name))
        for got in _three_ways(getattr(jnp, op), jnp.asarray(x), jnp.asarray(y)):
            _same_bits(got, want)


@pytest.mark.parametrize("name", INTS)
def test_int_unary_ops_keep_the_type_and_wrap(name):
    """ml_dtypes' int4/int2 ufuncs for negative, invert, abs, square return int8; the
    primitives give the declared type, wrapping as the type's arithmetic does."""
    v = _all_values(name)
    info = ml_dtypes.iinfo(_dt(name))
    span = info.max - info.min + 1
    i = v.astype(np.int64)
    for op, exact in (("negative", -i), ("abs", np.abs(i)), ("square", i * i),
                      ("invert", (-i - 1) if info.min < 0 else (info.max - i))):
        want = ((exact - info.min) % span + info.min).astype(_dt(name))
        for got in _three_ways(getattr(jnp, op), jnp.asarray(v)):
            _same_bits(got, want)


@pytest.mark.parametrize("name", F8 + INTS)
def test_comparisons(name):
    v = _all_values(name)
    x, y = np.repeat(v, v.size), np.tile(v, v.size)
    fx, fy = x.astype(np.float64), y.astype(np.float64)
    for op in ("less", "equal", "greater_equal", "not_equal"):
        want = getattr(np, op)(fx, fy)
        for got in _three_ways(getattr(jnp, op), jnp.asarray(x), jnp.asarray(y)):
            np.testing.assert_array_equal(got, want)


# -- dots ----------------------------------------------------------------------------------
def _small_matrix(rng, name, shape):
    """Values exact in the type: small integers (and halves where the type has them)."""
    hi = 3 if name in ("float4_e2m1fn", "int2") else 6
    lo = 0 if name.startswith("u") else -hi
    v = rng.integers(lo, hi + 1, shape).astype(np.float64)
    if name in ("float8_e8m0fnu",):
        v = 2.0 ** rng.integers(-3, 4, shape)
    return v.astype(_dt(name))


@pytest.mark.parametrize("name", F8 + ["float4_e2m1fn", "int4", "uint4"])
def test_dot_with_preferred_element_type(name):
    rng = np.random.default_rng(1)
    a, b = _small_matrix(rng, name, (5, 7)), _small_matrix(rng, name, (7, 3))
    exact = a.astype(np.float64) @ b.astype(np.float64)
    pref = jnp.float32 if name in FLOATS else jnp.int32

    def f(p, q):
        return jnp.dot(p, q, preferred_element_type=pref)

    for got in _three_ways(f, jnp.asarray(a), jnp.asarray(b)):
        assert np.asarray(got).dtype == np.dtype(pref)
        np.testing.assert_array_equal(np.asarray(got).astype(np.float64), exact)
    # without it: the narrow type, the exact sum rounded once
    for got in _three_ways(jnp.matmul, jnp.asarray(a), jnp.asarray(b)):
        _same_bits(got, exact.astype(_dt(name)))
    got = tjit.jit(lambda p, q: jnp.einsum("ij,jk->ik", p, q, preferred_element_type=pref))(
        a, b)
    np.testing.assert_array_equal(np.asarray(got).astype(np.float64), exact)


def test_quantized_matmul_program():
    """The fp8 training pattern: cast float32 to float8 with a scale, matmul into float32."""
    rng = np.random.default_rng(2)
    w, x = rng.standard_normal((16, 8)).astype(np.float32), rng.standard_normal((4, 16))
    x = x.astype(np.float32)

    def f(x, w):
        sx, sw = jnp.max(jnp.abs(x)) / 448.0, jnp.max(jnp.abs(w)) / 448.0
        x8, w8 = (x / sx).astype(jnp.float8_e4m3fn), (w / sw).astype(jnp.float8_e4m3fn)
        return jnp.dot(x8, w8, preferred_element_type=jnp.float32) * (sx * sw)

    sx, sw = np.abs(x).max() / np.float32(448), np.abs(w).max() / np.float32(448)
    x8 = (x / sx).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    w8 = (w / sw).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    want = (x8 @ w8) * (np.float64(sx) * np.float64(sw))
    for got in (f(x, w), tjit.jit(f)(x, w)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
    # and the quantization error is that of float8 (about 2**-4 relative), not more
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x, w)), x.astype(np.float64) @ w,
                               rtol=0.3, atol=0.3)


# -- reductions ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", F8)
def test_sum_accumulates_in_float32(name):
    """A float8 sum of forty 10s stalls at 256 when accumulated in float8; tjit sums in
    float32 and rounds once (XLA's CPU sum accumulates in the narrow type: JAX gives 416
    for float8_e4m3fn, the rounded exact sum is 384)."""
    if name == "float8_e8m0fnu":
        v = np.full(40, 8.0)
    else:
        v = np.full(40, 10.0)
    x = v.astype(_dt(name))
    want = x.astype(np.float64).sum().astype(_dt(name))
    for got in _three_ways(jnp.sum, jnp.asarray(x)):
        _same_bits(got, want)


@pytest.mark.parametrize("name", F8 + INTS)
def test_max_min_argmax(name):
    v = _all_values(name)
    f = v.astype(np.float64)
    keep = ~np.isnan(f)
    x = v[keep]
    for fn, ref in ((jnp.max, np.max), (jnp.min, np.min), (jnp.argmax, np.argmax)):
        want = ref(x.astype(np.float64))
        for got in _three_ways(fn, jnp.asarray(x)):
            assert np.asarray(got).astype(np.float64) == want, (fn.__name__, got, want)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e4m3fnuz", "float4_e2m1fn"])
def test_masked_max_of_a_type_without_inf(name):
    """The identity of max is -inf, which these types cannot hold (it becomes NaN): an
    all-masked max is finfo.min (as JAX's), a partly masked one ignores the masked values."""
    x = jnp.asarray(np.array([1.0, 2.0, 3.0]).astype(_dt(name)))
    where = jnp.asarray([True, False, False])
    assert float(jnp.max(x, where=where, initial=-1.0)) == 1.0
    assert float(jnp.max(x, where=jnp.zeros(3, bool), initial=-1.0)) == -1.0
    assert float(tjit.jit(lambda a: jnp.max(a, where=where, initial=-1.0))(x)) == 1.0


def test_int4_sum_promotes_to_the_default_int():
    """JAX's sum promotes narrow ints to the default int (its own int4 sum crashes in
    np.iinfo); the mean is float32."""
    x = jnp.asarray(np.array([7, 7, 7, -8]).astype(ml_dtypes.int4))
    assert jnp.sum(x).dtype == np.int32 and int(jnp.sum(x)) == 13
    assert jnp.mean(x).dtype == np.float32 and float(jnp.mean(x)) == 3.25


# -- the jit caches tell the types apart ---------------------------------------------------
def test_dtype_keys_are_unique():
    keys = {dtypes.key(t) for t in dtypes.SUPPORTED}
    assert len(keys) == len(dtypes.SUPPORTED)


@pytest.fixture
def program_cache(monkeypatch, tmp_path):
    """The persistent program cache on (the suite turns it off), in a folder of its own."""
    from tjit.xla_like import program_cache as pc
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(pc.ENV_VAR, "1")


@pytest.mark.parametrize("cache", ["memory", "program cache"])
def test_one_function_jitted_on_every_narrow_type(cache, request):
    """One jitted function called on each type in turn: each call gets its own program
    (dtype.str is '|V1' for all of these: program-cache keys from it reused the first
    type's program)."""
    if cache == "program cache":
        request.getfixturevalue("program_cache")
    f = tjit.jit(lambda a: (jnp.maximum(a, a), a.astype(jnp.float32)))
    for name in FLOATS + INTS:
        v = _all_values(name)
        out, f32 = f(jnp.asarray(v))
        assert out.dtype == _dt(name), name
        _same_bits(out, v)
        _same_bits(f32, v.astype(np.float32))


def test_cse_keeps_casts_to_different_narrow_types_apart():
    f = tjit.jit(lambda a: (a.astype(jnp.float8_e4m3fn).astype(jnp.float32),
                            a.astype(jnp.float8_e5m2).astype(jnp.float32)))
    src = np.array([0.3, 100.0, 500.0, 1e5], np.float32)
    p, q = f(src)
    _same_bits(p, src.astype(ml_dtypes.float8_e4m3fn).astype(np.float32))
    _same_bits(q, src.astype(ml_dtypes.float8_e5m2).astype(np.float32))


# -- random, printing ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz"])
def test_random_samplers(name):
    """JAX's bits: a uniform float8 keeps its mantissa's worth of the 8 random bits drawn
    (so float8_e5m2 has four values in [0, 1)); the first values are JAX 0.10.2's."""
    key = tjit.random.key(0)
    u = tjit.random.uniform(key, (1000,), getattr(jnp, name))
    assert u.dtype == _dt(name)
    f = np.asarray(u).astype(np.float64)
    nmant = ml_dtypes.finfo(_dt(name)).nmant
    np.testing.assert_array_equal(np.unique(f), np.arange(2 ** nmant) / 2 ** nmant)
    n = tjit.random.normal(key, (1000,), getattr(jnp, name))
    assert n.dtype == _dt(name) and np.isfinite(np.asarray(n).astype(np.float64)).all()
    if name == "float8_e4m3fn":
        u3, n3 = (np.asarray(fn(key, (3,), jnp.float8_e4m3fn)).astype(float)
                  for fn in (tjit.random.uniform, tjit.random.normal))
        np.testing.assert_array_equal(u3, [0.625, 0.5, 0.125])
        np.testing.assert_array_equal(n3, [0.375, 0.078125, -0.9375])


@pytest.mark.parametrize("name", ["float4_e2m1fn", "float6_e3m2fn", "float8_e8m0fnu"])
def test_random_samplers_refuse_types_that_cannot_hold_them(name):
    with pytest.raises(TypeError, match=f"random.uniform: .*{name}.*astype"):
        tjit.random.uniform(tjit.random.key(0), (3,), getattr(jnp, name))


def test_printing():
    x = jnp.asarray([1.5, 300.0], jnp.float8_e4m3fn)
    assert repr(x) == "Array([1.5, 288], dtype=float8_e4m3fn)"
    assert repr(jnp.asarray([7, -8], jnp.int4)) == "Array([7, -8], dtype=int4)"
    text = str(tjit.make_jaxpr(lambda a: a.astype(jnp.float32))(x))
    assert "a:f8_e4m3fn[2]" in text
    assert "i4[2]" in str(tjit.make_jaxpr(lambda a: a)(jnp.zeros(2, jnp.int4)))


# -- transformations ----------------------------------------------------------------------
def test_grad_through_float8_casts():
    """The tangent of a float8 cast is the cast of the tangent (straight through, as
    JAX): d/dx sum(f32(f8(x))**2) = 2 * f32(f8(x)); a float8 input gets a float8 grad."""
    x = np.array([0.3, 1.7, -2.2], np.float32)
    q = x.astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
    f8 = jnp.float8_e4m3fn
    for grad in (tjit.grad, lambda f: tjit.jit(tjit.grad(f))):
        g = grad(lambda a: (a.astype(f8).astype(jnp.float32) ** 2).sum())(x)
        assert g.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(g), 2 * q)
        g8 = grad(lambda a: (a * a).astype(jnp.float32).sum())(x.astype(f8))
        assert g8.dtype == _dt("float8_e4m3fn")
        _same_bits(g8, (2 * q.astype(np.float64)).astype(_dt("float8_e4m3fn")))


def test_vmap_of_a_float8_dot_matches_a_loop():
    rng = np.random.default_rng(3)
    a = _small_matrix(rng, "float8_e4m3fn", (4, 3, 5))
    b = _small_matrix(rng, "float8_e4m3fn", (4, 5, 2))

    def f(p, q):
        return jnp.dot(p, q, preferred_element_type=jnp.float32)

    got = tjit.vmap(f)(a, b)
    want = np.stack([a[i].astype(np.float64) @ b[i].astype(np.float64) for i in range(4)])
    np.testing.assert_array_equal(np.asarray(got), want)


def test_debug_nans_sees_float8_nans():
    x = jnp.asarray([1.0, 2.0], jnp.float8_e5m2)
    nan = np.array([np.nan, 1.0]).astype(ml_dtypes.float8_e5m2)
    old = tjit.config.debug_nans
    tjit.config.update("debug_nans", True)
    try:
        with pytest.raises(FloatingPointError, match="nan"):
            x + nan
    finally:
        tjit.config.update("debug_nans", old)


# -- orderings with NaNs ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz"])
def test_sort_puts_nans_last(name):
    """ml_dtypes' own sort stops at a NaN (np.sort of [3, nan, -1] in float8 is unchanged)."""
    rng = np.random.default_rng(4)
    v = rng.standard_normal(50)
    v[[3, 17, 30]] = np.nan
    x = v.astype(_dt(name))
    want = np.sort(x.astype(np.float64))
    for got in _three_ways(jnp.sort, jnp.asarray(x)):
        _same_bits(np.asarray(got).astype(np.float64), want, zero_signs=False)
    order = np.asarray(jnp.argsort(jnp.asarray(x)))
    np.testing.assert_array_equal(x.astype(np.float64)[order], want)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2"])
def test_nan_reductions_in_types_without_inf(name):
    """nanmax replaces NaNs by -inf, which float8_e4m3fn cannot hold (it becomes NaN
    again): it uses finfo.min there, as JAX."""
    v = np.array([[np.nan, -1.0, 2.0, 0.5], [np.nan, np.nan, np.nan, np.nan]])
    x = jnp.asarray(v.astype(_dt(name)))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = [np.nanmax(v, 1), np.nanmin(v, 1)]
    for fn, ref in zip((jnp.nanmax, jnp.nanmin), want):
        got = np.asarray(fn(x, axis=1)).astype(np.float64)
        np.testing.assert_array_equal(got, ref)
        got = np.asarray(tjit.jit(lambda a: fn(a, axis=1))(x)).astype(np.float64)
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(jnp.nanargmax(x, axis=1), [2, -1])
    np.testing.assert_array_equal(jnp.nanargmin(x, axis=1), [1, -1])


def test_every_narrow_type_takes_the_table_path():
    """The eager lanes pick the table path by ``dtypes.is_one_byte``, two attribute tests
    standing for ``is_small``: they must agree on every dtype (float8_e5m2's kind is "f",
    not "V": a kind test alone left its eager ops on ml_dtypes' loops, ~6x slower)."""
    from tjit.primitives import base
    for dt in dtypes.SUPPORTED:
        assert dtypes.is_one_byte(dt) == dtypes.is_small(dt), dt
    for name in FLOATS + INTS:
        for key in [k for k in base._TABLES if k[1] == _dt(name)]:
            del base._TABLES[key]     # (tables earlier tests made: this op must make one)
        v = jnp.asarray(np.zeros(base.TABLE_MIN_SIZE, _dt(name)))
        np.asarray(jnp.maximum(v, v))
        assert any(dt == _dt(name) for _, dt in base._TABLES), name


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float8_e5m2fnuz", "int4"])
def test_large_operands_take_the_table_path_with_the_same_values(name):
    """Operands of at least TABLE_MIN_SIZE one-byte elements are computed by lookup in a
    table of the op on every byte pattern: the values must be ml_dtypes' own."""
    from tjit.primitives.base import TABLE_MIN_SIZE
    v = np.tile(_all_values(name), TABLE_MIN_SIZE // 16)
    assert v.size >= TABLE_MIN_SIZE
    w = np.roll(v, 7)
    ops = ["negative", "abs", "square"] + ([] if name in INTS else ["exp", "sqrt", "tanh"])
    with np.errstate(all="ignore"):
        for op in ops:
            want = getattr(np, op)(v.astype(np.float64)).astype(_dt(name)) if name in FLOATS \
                else getattr(jnp, op)(jnp.asarray(v[:256])).__array__()
            got = np.asarray(getattr(jnp, op)(jnp.asarray(v)))
            if name in INTS:
                _same_bits(got[:256], want)
            elif op in ("exp", "tanh"):
                _same_bits(got, getattr(np, op)(v.astype(np.float32)).astype(_dt(name)))
            else:
                _same_bits(got, want)
        for op in ("add", "multiply", "maximum", "less"):
            ref = getattr(np, op)(v.astype(np.float64), w.astype(np.float64))
            if op != "less":
                if name in INTS:
                    info = ml_dtypes.iinfo(_dt(name))
                    span = info.max - info.min + 1
                    ref = (ref - info.min) % span + info.min
                ref = ref.astype(_dt(name))
            got = np.asarray(getattr(jnp, op)(jnp.asarray(v), jnp.asarray(w)))
            if op == "less":
                np.testing.assert_array_equal(got, ref)
            else:
                _same_bits(got, ref, zero_signs=op != "maximum")


@pytest.mark.parametrize("name", FLOATS + INTS)
def test_large_casts_take_the_table_path_with_the_same_values(name):
    from tjit.primitives.base import TABLE_MIN_SIZE
    v = _all_values(name)
    big = np.tile(v, -(-TABLE_MIN_SIZE // v.size))
    for dst in ("float32", "int8", "uint8", "bool", "float8_e5m2", "int4", "bfloat16"):
        if dst == name:
            continue
        small = np.asarray(jnp.asarray(v).astype(dst))     # the element-wise path
        got = np.asarray(jnp.asarray(big).astype(dst))
        _same_bits(got, np.tile(small, big.size // v.size)) if dst != "bool" else \
            np.testing.assert_array_equal(got, np.tile(small, big.size // v.size))


# -- functions that work on the bits -------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
def test_signbit_and_copysign_of_every_value(name):
    """(signbit bitcast to an integer of the item's byte width: a KeyError for one-byte
    types, which also broke remainder, divmod, floor_divide, modf and copysign)"""
    v = _all_values(name)
    for got in _three_ways(jnp.signbit, jnp.asarray(v)):
        np.testing.assert_array_equal(got, np.signbit(v.astype(np.float32)))
    one = np.ones_like(v)
    want = np.copysign(one.astype(np.float64), v.astype(np.float64)).astype(_dt(name))
    _same_bits(jnp.copysign(jnp.asarray(one), jnp.asarray(v)), want)


@pytest.mark.parametrize("name", F8 + ["float4_e2m1fn"])
def test_remainder_and_hypot_round_the_float64_result(name):
    v = _all_values(name)
    v = v[np.isfinite(v.astype(np.float32))]
    x, y = np.repeat(v, v.size), np.tile(v, v.size)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        want_rem = np.remainder(x64, y64).astype(_dt(name))
        want_hypot = np.hypot(x64, y64).astype(_dt(name))
    # (x % 0 is NaN, which float4 has not: which zero it becomes is unspecified)
    keep = y64 != 0
    _same_bits(jnp.remainder(jnp.asarray(x[keep]), jnp.asarray(y[keep])), want_rem[keep])
    _same_bits(jnp.hypot(jnp.asarray(x), jnp.asarray(y)), want_hypot)


def _bits_reference(name, x, fn):
    """``fn`` on the two's-complement bit pattern of each value of a narrow int type, in
    Python ints, read back as the type (a reference for shifts, popcount and clz)."""
    bits = ml_dtypes.iinfo(_dt(name)).bits
    out = [fn(int(v) & ((1 << bits) - 1), bits) & ((1 << bits) - 1) for v in x]
    signed = name in [t.name for t in dtypes.SMALL_SIGNED]
    return np.array([o - (1 << bits) if signed and o >> (bits - 1) else o for o in out],
                    np.int64).astype(_dt(name))


@pytest.mark.parametrize("name", INTS)
def test_shifts_popcount_and_clz_use_the_types_own_width(name):
    """(they worked on the byte NumPy stores an int4 in: int4 -8 >> 1 gave 4 and
    clz(int4 1) gave 7)"""
    v = _all_values(name)
    x, y = np.repeat(v, v.size), np.tile(v, v.size)
    yi = [int(a) for a in y]

    def arith(p, bits, n):
        s = p - (1 << bits) if p >> (bits - 1) else p
        return s >> (n if 0 <= n < bits else bits - 1)
    cases = {
        lax.shift_left: lambda p, bits, n: p << n if 0 <= n < bits else 0,
        lax.shift_right_logical: lambda p, bits, n: p >> n if 0 <= n < bits else 0,
        lax.shift_right_arithmetic: arith}
    for op, ref in cases.items():
        it = iter(yi)
        want = _bits_reference(name, x, lambda p, bits: ref(p, bits, next(it)))
        for got in _three_ways(op, jnp.asarray(x), jnp.asarray(y)):
            np.testing.assert_array_equal(np.asarray(got).astype(np.int64),
                                          want.astype(np.int64), err_msg=f"{op.__name__}")
    unary = {lax.population_count: lambda p, bits: bin(p).count("1"),
             lax.clz: lambda p, bits: bits - p.bit_length()}
    for op, ref in unary.items():
        want = _bits_reference(name, v, ref)
        for got in _three_ways(op, jnp.asarray(v)):
            np.testing.assert_array_equal(np.asarray(got).astype(np.int64),
                                          want.astype(np.int64), err_msg=f"{op.__name__}")


def test_program_cache_keys_tell_dtype_parameters_apart():
    """(a dtype in a parameter was keyed by dtype.str, '|V1' for every one-byte type)"""
    from tjit.xla_like import program_cache

    def digest(v):
        enc = program_cache._Encoder()
        enc.value(v)
        return enc.digest()
    narrow = [*dtypes.SMALL_FLOATS, *dtypes.SMALL_INTS]
    assert len({digest(t) for t in narrow}) == len(narrow)
    assert len({digest(t.type) for t in narrow}) == len(narrow)


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("op", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
def test_set_operations_with_nans(name, op):
    """(NumPy's set operations sort with ml_dtypes' sort, which stops at a NaN: union1d
    of a float8 array with another gave 15 values out of 14)"""
    a = np.array([-2.0, -1.5, -0.0, 0.0, 0.5, 1.0, 3.0, np.nan, 6.0, 0.25, np.nan])
    b = np.array([3.0, np.nan, 0.5, 7.0])
    a, b = a.astype(name), b.astype(name)
    got = getattr(jnp, op)(jnp.asarray(a), jnp.asarray(b))
    want = getattr(np, op)(a.astype(np.float64), b.astype(np.float64)).astype(name)
    _same_bits(got, want)


@pytest.mark.parametrize("name", F8 + ["float4_e2m1fn", "bfloat16"])
def test_floor_divide_round_and_i0_compute_in_float32(name):
    """(they computed their steps in the narrow type: float8_e4m3fn 0.043 // 0.0059 gave
    6, not 7; bfloat16 13.0625 // -0.0444 gave -292, not -294; i0(0) of a float8 0.875)"""
    if name == "bfloat16":
        v = (np.random.default_rng(0).standard_normal(300) * 10).astype(name)
    else:
        v = _all_values(name)
    v = v[np.isfinite(v.astype(np.float32))]
    x, y = np.repeat(v, v.size), np.tile(v, v.size)
    x, y = x[y.astype(np.float64) != 0], y[y.astype(np.float64) != 0]
    dt = np.dtype(name)
    with np.errstate(over="ignore"):   # (float8_e8m0fnu's largest quotients)
        want = np.floor_divide(x.astype(np.float64), y.astype(np.float64)).astype(dt)
    _same_bits(jnp.floor_divide(jnp.asarray(x), jnp.asarray(y)), want, zero_signs=False)
    _same_bits(jnp.round(jnp.asarray(v), 1), np.round(v.astype(np.float64), 1).astype(dt))
    small = v[np.abs(v.astype(np.float64)) < 10]
    _same_bits(jnp.i0(jnp.asarray(small)), np.i0(small.astype(np.float64)).astype(dt))


@pytest.mark.parametrize("name", INTS)
def test_median_and_quantiles_of_narrow_ints_are_float32(name):
    """(the array met the Python float q in one promotion: TypePromotionError for int4)"""
    v = _all_values(name)
    x = jnp.asarray(v)
    for got, want in [(jnp.median(x), np.median(v.astype(np.float64))),
                      (jnp.percentile(x, 30), np.percentile(v.astype(np.float64), 30)),
                      (jnp.nanquantile(x, 0.9), np.nanquantile(v.astype(np.float64), 0.9))]:
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
