"""Eager small-op lanes and cheaper paths of session 22: each gives the answers of an
independent reference (NumPy float64, a Python sort) on its first and repeated calls,
and steps aside where its assumptions fail (another signature, weak operands, a trace,
the debug_nans checks).

- numpy/_dot_lane: dot and matmul call the kept dot_general runner directly;
- numpy/_shape.transpose: ``a.T`` calls the kept transpose runner;
- primitives/reductions: top_k orders short rows by one stable sort;
- primitives/sort_fast: few elements are sorted stably outright;
- primitives/structural: small broadcasts are filled copies (full_like, zeros);
- primitives/digamma_reference: fewer NumPy calls, every shape and region;
- stop_gradient (eager identity), select_n's impl, log_softmax's eager branch test;
- transforms/custom_derivatives: plain positional arities kept per function;
- xla_like/program_cache: primitive references by their own name;
- tracing/dtypes: numeric dtypes' predicates from the kind letter;
- tracing/core.set_current_trace: a class, restoring the trace on errors too.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.numpy import _dot_lane
from tjit.tracing import core as tracing_core
from tjit.tracing.core import current_trace, set_current_trace

_RNG = np.random.default_rng(22)


# -- dot / matmul lane --------------------------------------------------------------------
_DOT_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)),
               ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5))]


@pytest.mark.parametrize("sa,sb", _DOT_SHAPES)
@pytest.mark.parametrize("dt", [np.float32, np.int32, np.bool_])
def test_dot_repeated_calls_match_numpy(sa, sb, dt):
    a = (_RNG.standard_normal(sa) * 3).astype(dt)
    b = (_RNG.standard_normal(sb) * 3).astype(dt)
    want = np.dot(a.astype(np.float64), b.astype(np.float64))
    ta, tb = jnp.asarray(a), jnp.asarray(b)
    for i in range(3):   # the first call records the signature, the next ones take the lane
        got = jnp.dot(ta, tb)
        assert got.shape == want.shape and got.dtype == dt and not got.weak_type
        if dt == np.bool_:
            np.testing.assert_array_equal(np.asarray(got), want != 0)
        else:
            np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=1e-5,
                                       atol=1e-4)
    assert _dot_lane.dot(ta, tb) is not None   # (the lane did engage)


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((4,), (4,))])
def test_matmul_repeated_calls_match_numpy(sa, sb):
    a = _RNG.standard_normal(sa).astype(np.float32)
    b = _RNG.standard_normal(sb).astype(np.float32)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    ta, tb = jnp.asarray(a), jnp.asarray(b)
    for _ in range(3):
        got = ta @ tb
        assert got.shape == want.shape and got.dtype == np.float32
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_dot_lane_steps_aside_for_weak_mixed_and_new_signatures(monkeypatch):
    # an empty table of kept runners: "not seen yet" must not depend on the tests before
    monkeypatch.setattr(tracing_core, "_fast_runs", {})
    x = jnp.asarray(np.arange(4, dtype=np.float32))
    assert float(jnp.dot(x, x)) == 14.0
    w = lax.convert_element_type(x, np.float32, weak_type=True)
    assert _dot_lane.dot(w, w) is None and _dot_lane.dot(w, x) is None
    both_weak = jnp.dot(w, w)
    assert float(both_weak) == 14.0 and both_weak.weak_type          # JAX keeps it weak
    i = jnp.asarray(np.arange(4, dtype=np.int32))
    assert _dot_lane.dot(x, i) is None
    mixed = jnp.dot(x, i)
    assert mixed.dtype == np.float32 and float(mixed) == 14.0
    y = jnp.asarray(np.arange(5, dtype=np.float32))
    assert _dot_lane.dot(y, y) is None                      # a shape not seen yet
    with pytest.raises(TypeError, match="dot"):
        jnp.dot(x, y)                                       # and errors still raise
    with pytest.raises(TypeError, match="dot"):
        jnp.dot(x, y)


def test_dot_lane_is_not_taken_under_a_trace_or_the_nan_checks():
    x = jnp.asarray(np.array([np.inf, 1.0], np.float32))
    z = jnp.asarray(np.array([0.0, 1.0], np.float32))
    assert np.isnan(float(jnp.dot(x, z)))
    assert np.isnan(float(jnp.dot(x, z)))                   # (signature kept)
    jaxpr = str(tjit.make_jaxpr(lambda a: jnp.dot(a, z))(x))
    assert "dot_general" in jaxpr                           # recorded, not computed
    with tjit.debug_nans():
        with pytest.raises(FloatingPointError):
            jnp.dot(x, z)
    g = tjit.grad(lambda a: jnp.dot(a, jnp.asarray(np.array([2.0, 3.0], np.float32))))(
        jnp.asarray(np.array([1.0, 1.0], np.float32)))
    np.testing.assert_array_equal(np.asarray(g), [2.0, 3.0])


# -- top_k --------------------------------------------------------------------------------
def _top_k_reference(row, k):
    """Largest first, NaN above +inf, ties (and -0.0 == 0.0) in ascending index order:
    a Python sort of (value rank, index)."""
    def rank(v):
        return (1, 0.0) if np.isnan(v) else (0, float(v))
    order = sorted(range(len(row)), key=lambda i: (tuple(-r for r in rank(row[i])), i))
    return order[:k]


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.float16, np.uint8, np.int8])
def test_top_k_short_rows_match_a_python_sort(dt):
    for n in (1, 5, 16, 128, 129, 300):
        x = _RNG.integers(-3, 4, (3, n)).astype(dt)          # many ties
        if dt in (np.float32, np.float16):
            x[0, :: max(1, n // 3)] = np.nan
            x[1, 0] = -0.0
        for k in sorted({0, 1, min(3, n), n}):
            vals, idx = lax.top_k(jnp.asarray(x), k)
            assert idx.dtype == np.int32 and vals.dtype == dt
            for r in range(3):
                want = _top_k_reference(list(x[r]), k)
                np.testing.assert_array_equal(np.asarray(idx)[r], want)
                np.testing.assert_array_equal(np.asarray(vals)[r], x[r][want])


def test_top_k_along_a_leading_axis_and_eager_equals_jit():
    x = _RNG.standard_normal((6, 4)).astype(np.float32)
    vals, idx = lax.top_k(jnp.asarray(x.T), 2)              # rows of length 6
    want = np.argsort(-x, axis=0, kind="stable")[:2].T
    np.testing.assert_array_equal(np.asarray(idx), want)
    jv, ji = tjit.jit(lambda a: lax.top_k(a, 2))(x.T)
    np.testing.assert_array_equal(np.asarray(ji), np.asarray(idx))
    np.testing.assert_array_equal(np.asarray(jv), np.asarray(vals))


# -- small broadcasts, full_like ------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (8,), (3, 5), (4096,), (4097,), (64, 65)])
def test_full_like_and_zeros_are_filled_and_immutable(shape):
    for dt, fill in ((np.float32, 1.5), (np.int8, -3), (np.float16, 1e6), (np.bool_, True)):
        x = jnp.zeros(shape, dt)
        out = lax.full_like(x, fill)
        want = np.full(shape, fill).astype(dt) if dt != np.float16 else \
            np.full(shape, np.float16(np.inf))
        assert out.shape == shape and out.dtype == dt
        np.testing.assert_array_equal(np.asarray(out), want)
        np.testing.assert_array_equal(np.asarray(x), np.zeros(shape, dt))
        if shape:
            with pytest.raises(ValueError):                 # immutable, as before
                np.asarray(out)[...] = 0


def test_broadcast_in_dim_of_a_row_matches_numpy():
    row = _RNG.standard_normal(5).astype(np.float32)
    for rows in (1, 7, 900):                                 # filled, then viewed (> 4096)
        got = lax.broadcast_in_dim(jnp.asarray(row), (rows, 5), (1,))
        np.testing.assert_array_equal(np.asarray(got), np.broadcast_to(row, (rows, 5)))


# -- set_current_trace ------------------------------------------------------------------------
def test_set_current_trace_restores_the_trace_after_an_error():
    before = current_trace()
    marker = object()
    with pytest.raises(KeyError):
        with set_current_trace(marker) as t:
            assert t is marker and current_trace() is marker
            raise KeyError("inside")
    assert current_trace() is before
    # nested, as transformations nest them
    with set_current_trace(1):
        with set_current_trace(2):
            assert current_trace() == 2
        assert current_trace() == 1
    assert current_trace() is before


# -- a.T ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 3, 4)])
def test_transpose_property_repeated_calls_match_numpy(shape):
    x = _RNG.standard_normal(shape).astype(np.float32)
    a = jnp.asarray(x)
    w = lax.convert_element_type(a, np.float32, weak_type=True)
    for _ in range(3):   # (the first call keeps the runner the next ones call)
        np.testing.assert_array_equal(np.asarray(a.T), x.T)
        np.testing.assert_array_equal(np.asarray(jnp.transpose(a)), x.T)
        assert not a.T.weak_type and w.T.weak_type
        np.testing.assert_array_equal(np.asarray(w.T), x.T)
    assert "transpose" in str(tjit.make_jaxpr(lambda v: v.T)(x)) or len(shape) < 2


# -- sort of few elements ------------------------------------------------------------------
@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int32, np.bool_])
def test_small_sorts_keep_the_stable_order_of_zeros_and_nans(dt):
    """Sorted bits against Python's stable sort (NaNs last, -0.0 == 0.0 in their order)."""
    for n in (1, 7, 40, 256, 257):
        x = (_RNG.integers(-2, 3, n) * 0.5).astype(dt)
        if dt in (np.float32, np.float16):
            x[_RNG.integers(0, n, 3)] = -0.0
            x[_RNG.integers(0, n, 2)] = np.nan
            x[_RNG.integers(0, n, 1)] = -np.nan
        order = sorted(range(n), key=lambda i: (bool(np.isnan(x[i])),
                                                0.0 if np.isnan(x[i]) else float(x[i])))
        want = x[order]
        for _ in range(2):
            got = np.asarray(jnp.sort(jnp.asarray(x)))
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


# -- stop_gradient, select_n, log_softmax's eager branch --------------------------------------
def test_eager_stop_gradient_is_the_identity_and_still_stops_gradients():
    x = jnp.asarray(np.array([1.0, -2.0], np.float32))
    assert lax.stop_gradient(x) is x
    w = lax.convert_element_type(x, np.float32, weak_type=True)
    np.testing.assert_array_equal(np.asarray(lax.stop_gradient(w)), [1.0, -2.0])
    g = tjit.grad(lambda v: jnp.sum(v * lax.stop_gradient(v)))(x)
    np.testing.assert_array_equal(np.asarray(g), [1.0, -2.0])  # d/dv v*c = c


def test_select_of_two_like_cases_matches_numpy_where_and_checks_the_rest():
    a = _RNG.standard_normal((3, 4)).astype(np.float32)
    b = _RNG.standard_normal((3, 4)).astype(np.float32)
    m = a > b
    for _ in range(2):
        np.testing.assert_array_equal(
            np.asarray(lax.select(jnp.asarray(m), jnp.asarray(a), jnp.asarray(b))),
            np.where(m, a, b))
    np.testing.assert_array_equal(                           # a 0-d predicate
        np.asarray(lax.select(jnp.asarray(True), jnp.asarray(a), jnp.asarray(b))), a)
    with pytest.raises(TypeError, match="select_n"):
        lax.select(jnp.asarray(m), jnp.asarray(a), jnp.asarray(b.astype(np.int32)))


def test_log_softmax_eager_branch_agrees_with_masks_on_nan_inf_and_empty():
    from tjit.nn.functions import _eager_branch

    def by_masks(v):
        small = v < 2
        if not small.any():
            return "log"
        return "log1p" if small.all() and (v >= 1).all() else None
    picks = [np.nan, np.inf, 0.0, 0.5, 1.0, 1.5, 1.999, 2.0, 3.0]
    for n in range(5):
        for _ in range(60):
            v = _RNG.choice(picks, n).astype(np.float32)
            assert _eager_branch(jnp.asarray(v)) == by_masks(v), v


# -- custom_jvp's argument resolution ------------------------------------------------------
def test_custom_jvp_arguments_resolve_with_the_kept_arity():
    """Positional calls skip inspect.signature once a function's plain arity is kept;
    keywords, defaults and bad calls still go through it."""
    @tjit.custom_jvp
    def f(x, y=2.0):
        return x * y

    f.defjvp(lambda p, t: (f(*p), t[0] * p[1] + t[1] * p[0]))
    x = jnp.asarray(np.float32(3.0))
    for _ in range(2):
        assert float(f(x, 4.0)) == 12.0                      # plain positional
        assert float(f(x)) == 6.0                            # default filled
        assert float(f(x, y=5.0)) == 15.0                    # keyword moved
        assert float(tjit.grad(f)(x, 4.0)) == 4.0
        assert float(tjit.grad(f, argnums=1)(x, 4.0)) == 3.0
        with pytest.raises(TypeError, match="custom_jvp function f"):
            f(x, 1.0, 2.0)

    @tjit.custom_jvp
    def g(*xs):                                              # no plain arity
        return xs[0] + xs[1]

    g.defjvp(lambda p, t: (g(*p), t[0] + t[1]))
    assert float(tjit.grad(g)(x, x)) == 1.0


# -- the program cache's primitive references ------------------------------------------------
def test_every_primitive_reference_names_the_primitive_itself():
    """References found by the own-name lookup and by the scan both load back the very
    primitive (what a stored program's unpickling needs)."""
    import sys
    from tjit.tracing.core import Primitive
    from tjit.xla_like import program_cache as pc
    prims = {v for name, mod in list(sys.modules.items())
             if mod is not None and name.startswith("tjit.")
             for v in list(vars(mod).values()) if isinstance(v, Primitive)}
    assert len(prims) > 100
    for p in prims:
        own = pc._own_name_ref(p)
        if own is not None:
            assert pc._primitive_named(*own) is p and own[1] == f"{p.name}_p"
        assert pc._primitive_named(*pc._primitive_ref(p)) is p


# -- eager digamma of every shape ------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 5)])
def test_eager_digamma_of_every_shape_and_region_matches_scipy(shape):
    """Each region (asymptotic, shifted by 0-4 pairs, reflected, NaN) alone and mixed in
    one array, on 0-d to 2-D inputs, against SciPy's float64 digamma away from the
    poles (where SciPy is accurate), and eager against jit."""
    import scipy.special
    n = int(np.prod(shape))
    for lo, hi in ((12.0, 40.0), (0.2, 1.9), (0.2, 9.9), (-8.7, -0.2), (-6.3, 25.0)):
        x = np.linspace(lo, hi, n).reshape(shape) + 0.013
        got = np.asarray(tjit.scipy.special.digamma(x.astype(np.float32)), np.float64)
        want = scipy.special.digamma(x.astype(np.float32).astype(np.float64))
        np.testing.assert_allclose(got, want.astype(np.float32), rtol=4e-7, atol=1e-6)
        jitted = np.asarray(tjit.jit(tjit.scipy.special.digamma)(x.astype(np.float32)))
        np.testing.assert_allclose(jitted, got, rtol=3e-7, atol=1e-7)
    if n:
        x = np.full(shape, np.nan, np.float32)
        assert np.isnan(np.asarray(tjit.scipy.special.digamma(x))).all()


# -- dtype predicates by kind letter -------------------------------------------------------
def test_dtype_predicates_answer_as_issubdtype_and_the_ml_dtypes_sets():
    import ml_dtypes
    from tjit.tracing import dtypes as D
    cands = [np.dtype(t) for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64, np.float16, np.float32, np.float64, np.longdouble, np.complex64,
        np.complex128, object, "U3", "S2", "V4", "M8[s]", "m8[s]")]
    for name in dir(ml_dtypes):
        try:
            cands.append(np.dtype(getattr(ml_dtypes, name)))
        except (TypeError, ValueError):   # (ml_dtypes' functions and modules)
            pass
    for dt in cands:
        for pred, kind, extra in ((D.is_float, np.floating, D.ML_FLOATS),
                                  (D.is_inexact, np.inexact, D.ML_FLOATS),
                                  (D.is_int, np.integer, D._SMALL_INT_SET),
                                  (D.is_unsigned, np.unsignedinteger, D.SMALL_UNSIGNED)):
            for d in (dt, dt.type):   # (a dtype object and a scalar type)
                assert pred(d) == bool(np.issubdtype(d, kind) or d in extra), (pred, d)
