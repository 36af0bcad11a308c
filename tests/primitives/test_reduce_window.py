"""``lax.reduce_window`` (sum / max / min) and ``select_and_gather_add`` /
``select_and_scatter_add`` against NumPy references written as loops over output
positions; gradients (first and second order) against float64 finite differences, vmap
against a Python loop, and the errors."""

import itertools

import numpy as np
import pytest

import tjit
from tests.primitives.harness import OpRecord, check_record
from tests.transforms.check import check_grads, check_vmap
from tjit import lax
from tjit.tracing.errors import ShapeError


def _framed(x, fill, padding, base_dilation):
    dil = [(d - 1) * b + 1 if d else 0 for d, b in zip(x.shape, base_dilation)]
    lo = [max(p[0], 0) for p in padding]
    hi = [max(p[1], 0) for p in padding]
    xp = np.full([d + a + b for d, a, b in zip(dil, lo, hi)], fill, x.dtype)
    xp[tuple(slice(a, a + d, b) for a, d, b in zip(lo, dil, base_dilation))] = x
    crop = tuple(slice(max(-p[0], 0), n - max(-p[1], 0)) for p, n in zip(padding, xp.shape))
    # positions of x's elements in the framed array (None: cropped away)
    return xp[crop], crop


def _windows(shape, wd, ws, wdil):
    kd = [(k - 1) * r + 1 for k, r in zip(wd, wdil)]
    out = [max((n - k) // s + 1, 0) if n >= k else 0 for n, k, s in zip(shape, kd, ws)]
    for pos in itertools.product(*map(range, out)):
        yield pos, tuple(slice(p * s, p * s + k, r) for p, s, k, r in zip(pos, ws, kd, wdil))
    return out


def np_reduce_window(x, fill, op, wd, ws, padding, bd, wdil):
    xp, _ = _framed(x, fill, padding, bd)
    kd = [(k - 1) * r + 1 for k, r in zip(wd, wdil)]
    out_shape = [max((n - k) // s + 1, 0) if n >= k else 0 for n, k, s in zip(xp.shape, kd, ws)]
    out = np.empty(out_shape, x.dtype)
    for pos, win in _windows(xp.shape, wd, ws, wdil):
        out[pos] = op(xp[win])
    return out


def np_select_and_gather(t, x, is_max, wd, ws, padding, bd, wdil):
    fill = -np.inf if is_max else np.inf
    xp, _ = _framed(x, fill, padding, bd)
    tp, _ = _framed(t, 0.0, padding, bd)
    kd = [(k - 1) * r + 1 for k, r in zip(wd, wdil)]
    out_shape = [max((n - k) // s + 1, 0) if n >= k else 0 for n, k, s in zip(xp.shape, kd, ws)]
    out = np.empty(out_shape, t.dtype)
    for pos, win in _windows(xp.shape, wd, ws, wdil):
        vals = xp[win].ravel()
        k = int(np.argmax(vals) if is_max else np.argmin(vals))   # first extreme
        out[pos] = tp[win].ravel()[k]
    return out


def np_select_and_scatter(src, x, is_max, wd, ws, padding, bd, wdil):
    fill = -np.inf if is_max else np.inf
    xp, _ = _framed(x, fill, padding, bd)
    acc = np.zeros(xp.shape, src.dtype)
    for pos, win in _windows(xp.shape, wd, ws, wdil):
        vals = xp[win].ravel()
        k = int(np.argmax(vals) if is_max else np.argmin(vals))
        idx = np.unravel_index(k, xp[win].shape)
        full = tuple(sl.start + i * sl.step for sl, i in zip(win, idx))
        acc[full] += src[pos]
    # back to x's positions: the inverse of _framed
    dil = [(d - 1) * b + 1 if d else 0 for d, b in zip(x.shape, bd)]
    lo = [max(p[0], 0) for p in padding]
    hi = [max(p[1], 0) for p in padding]
    big = np.zeros([d + a + b for d, a, b in zip(dil, lo, hi)], src.dtype)
    crop = tuple(slice(max(-p[0], 0), n - max(-p[1], 0)) for p, n in zip(padding, big.shape))
    big[crop] = acc
    return big[tuple(slice(a, a + d, b) for a, d, b in zip(lo, dil, bd))]


MONOIDS = {"sum": (lax.add, 0.0, np.sum), "max": (lax.max, -np.inf, np.max),
           "min": (lax.min, np.inf, np.min)}

# (name, shape, window, strides, padding, base_dilation, window_dilation)
CASES = [
    ("2x2 pool", (2, 6, 6, 3), (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4, None, None),
    ("3x3 stride 2 SAME", (2, 7, 5, 2), (1, 3, 3, 1), (1, 2, 2, 1), "SAME", None, None),
    ("overlapping padded", (3, 7, 6), (1, 3, 2), (1, 2, 1), ((0, 0), (1, 2), (0, 1)), None,
     None),
    ("dilated", (2, 7, 6), (1, 3, 2), (1, 2, 1), ((0, 0), (1, 2), (0, 1)), (1, 1, 2),
     (1, 2, 1)),
    ("negative padding", (8, 7), (2, 3), (2, 1), ((-1, 1), (2, -2)), None, None),
    ("1-d", (11,), (4,), (3,), "SAME_LOWER", None, None),
    ("SAME dilated", (2, 5, 6), (1, 2, 3), (1, 2, 2), "SAME", (1, 2, 1), (1, 1, 2)),
]


def _params(case, shape=None):
    _, s, wd, ws, pad, bd, wdil = case
    shape = s if shape is None else shape
    if isinstance(pad, str):
        k_dil = [(k - 1) * r + 1 for k, r in zip(wd, wdil or (1,) * len(s))]
        pad = lax.padtype_to_pads(shape, k_dil, ws, pad)  # JAX: the undilated shape
    return (wd, ws, tuple(map(tuple, pad)), bd or (1,) * len(s), wdil or (1,) * len(s))


RECORDS = []
for _case in CASES:
    for _kind, (_comp, _init, _op) in MONOIDS.items():
        for _dt in ("float32", "int32"):
            _p = _params(_case)
            _fill = _init if _dt == "float32" else {"sum": 0, "max": np.iinfo(np.int32).min,
                                                    "min": np.iinfo(np.int32).max}[_kind]
            RECORDS.append(OpRecord(
                f"{_kind} {_case[0]} {_dt}",
                lambda x, c=_comp, i=_fill, p=_p: lax.reduce_window(x, i, c, *p),
                lambda x, i=_fill, o=_op, p=_p: np_reduce_window(x, i, o, *p),
                ((_case[1], _dt),), (f"reduce_window_{_kind}",), rtol=1e-5, atol=1e-5))
    for _sel, _is_max in (("ge", True), ("le", False)):
        _p = _params(_case)
        RECORDS.append(OpRecord(
            f"select_and_gather_add {_sel} {_case[0]}",
            lambda t, x, s=_sel, p=_p: lax.select_and_gather_add(t, x, s, *p),
            lambda t, x, m=_is_max, p=_p: np_select_and_gather(t, x, m, *p),
            ((_case[1], "float32"), (_case[1], "float32")), ("select_and_gather_add",)))
        _out = np_reduce_window(np.zeros(_case[1]), 0.0, np.sum, *_p).shape
        RECORDS.append(OpRecord(
            f"select_and_scatter_add {_sel} {_case[0]}",
            lambda s_, x, s=_sel, p=_p: lax.select_and_scatter_add(s_, x, s, *p),
            lambda s_, x, m=_is_max, p=_p: np_select_and_scatter(s_, x, m, *p),
            ((_out, "float32"), (_case[1], "float32")), ("select_and_scatter_add",),
            rtol=1e-5, atol=1e-5))


@pytest.mark.parametrize("record", RECORDS, ids=str)
def test_reduce_window_records(record):
    check_record(record)


def test_ties_nan_and_signed_zero():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [np.nan, 0.0, -0.0, 5.0]], np.float32)
    t = np.arange(8, dtype=np.float32).reshape(2, 4)
    p = ((2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1))
    got = np.asarray(lax.reduce_window(x, -np.inf, lax.max, *p))
    np.testing.assert_array_equal(np.isnan(got), [[True, False, False]])
    assert got[0, 1] == 3.0 and got[0, 2] == 5.0
    # NaN is the max of window 0; window 1's tie of 3.0 at (0, 1) and (0, 2): the first
    g = lax.select_and_gather_add(t, x, "ge", *p)
    np.testing.assert_array_equal(g, [[4.0, 1.0, 7.0]])
    s = lax.select_and_scatter_add(np.ones((1, 3), np.float32), x, "ge", *p)
    np.testing.assert_array_equal(s, [[0, 1, 0, 0], [1, 0, 0, 1]])
    pz = ((1, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1))
    xz = np.array([[-0.0, 0.0], [0.0, -0.0]], np.float32)
    mx = lax.reduce_window(xz, -np.inf, lax.max, *pz)
    mn = lax.reduce_window(xz, np.inf, lax.min, *pz)
    assert not np.signbit(np.asarray(mx)).any() and np.signbit(np.asarray(mn)).all()


GRAD_CASES = [c for c in CASES]


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c[0])
def test_grads_vs_finite_differences(case, kind):
    comp, init, _ = MONOIDS[kind]
    p = _params(case)
    # distinct values far apart: finite differences never cross a tie of max/min
    n = int(np.prod(case[1]))
    x = np.random.default_rng(0).permutation(n).reshape(case[1]) * 0.1

    def f(x):
        return lax.reduce_window(x, init, comp, *p)
    check_grads(f, (x,), order=2, eps=1e-4, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize("case", [CASES[1], CASES[3]], ids=lambda c: c[0])
def test_vmap_of_values_and_grads(case, kind):
    comp, init, _ = MONOIDS[kind]
    p = _params(case)
    xs = np.random.default_rng(1).standard_normal((3,) + case[1]).astype(np.float32)

    def f(x):
        return lax.reduce_window(x, init, comp, *p)

    def loss(x):
        return (f(x) ** 2).sum()
    check_vmap(f, (np.moveaxis(xs, 0, 1),), in_axes=1)
    check_vmap(tjit.grad(loss), (xs,), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tjit.jit(tjit.vmap(tjit.grad(loss)))(xs),
                               tjit.vmap(tjit.grad(loss))(xs), rtol=1e-6, atol=1e-6)


def test_select_vmap_one_operand_mapped():
    p = _params(CASES[2])
    rng = np.random.default_rng(2)
    x = rng.standard_normal(CASES[2][1]).astype(np.float32)
    ts = rng.standard_normal((2,) + CASES[2][1]).astype(np.float32)
    check_vmap(lambda t, x: lax.select_and_gather_add(t, x, "ge", *p), (ts, x),
               in_axes=(0, None))
    out = np_reduce_window(x, 0.0, np.sum, *p).shape
    ss = rng.standard_normal((2,) + out).astype(np.float32)
    xs = rng.standard_normal((2,) + CASES[2][1]).astype(np.float32)
    check_vmap(lambda s, x: lax.select_and_scatter_add(s, x, "le", *p), (ss, xs),
               in_axes=(0, 0))


def test_errors():
    x = np.ones((4, 4), np.float32)
    with pytest.raises(TypeError, match=r"lax.reduce_window: computation must return"):
        lax.reduce_window(x, 1.0, lambda a, b: (a, b), (2, 2), (1, 1), "VALID")
    with pytest.raises(ShapeError, match=r"reduce_window_max: window_dimensions \(2,\) needs "
                                         r"one entry per dim of the operand of shape \(4, 4\)"):
        lax.reduce_window(x, -np.inf, lax.max, (2,), (1,), ((0, 0),))
    with pytest.raises(ShapeError, match="window_strides must be positive"):
        lax.reduce_window(x, -np.inf, lax.max, (2, 2), (0, 1), "VALID")
