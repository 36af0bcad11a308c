"""The gather impl's single-axis lane (``xp.take`` on clamped indices) against the
general impl (broadcast index arrays) and a NumPy take written from JAX's rules:
out-of-bounds starts clamp ('clip', 'promise_in_bounds') or give the fill value
('fill'). Gathers that are not a whole-slice take along one axis keep the general impl."""

import numpy as np
import pytest

from tjit.primitives import indexing as P

_RNG = np.random.default_rng(14)


def _dn(axis, ndim, nb):
    rank = ndim + nb - 1
    offset = tuple(range(axis)) + tuple(range(axis + nb, rank))
    return P.GatherDimensionNumbers(offset, (axis,), (axis,))


def _reference(x, idx, axis, mode, fill_value):
    n = x.shape[axis]
    k = np.minimum(idx[..., 0], np.iinfo(np.int64).max).astype(np.int64) \
        if idx.dtype == np.uint64 else idx[..., 0].astype(np.int64)
    out = np.take(x, np.clip(k, 0, n - 1), axis)
    if mode == "fill":
        ok = ((k >= 0) & (k < n)).reshape((1,) * axis + k.shape + (1,) * (x.ndim - axis - 1))
        fv = P.default_fill_value(x.dtype) if fill_value is None else fill_value
        out = np.where(ok, out, np.asarray(fv, x.dtype))
    return out


_CASES = [(shape, axis, ishape, idt, mode, dt)
          for shape, axis in (((7,), 0), ((5, 4), 0), ((5, 4), 1), ((3, 4, 5), 1),
                              ((3, 4, 5), 2))
          for ishape in ((3,), (2, 3), ())
          for idt in (np.int32, np.int8, np.uint8, np.uint64)
          for mode in ("fill", "clip", "promise_in_bounds")
          for dt in (np.float32, np.int16, np.bool_)]


@pytest.mark.parametrize("shape,axis,ishape,idt,mode,dt", _CASES)
def test_take_lane_matches_general_impl_and_numpy(shape, axis, ishape, idt, mode, dt,
                                                  monkeypatch):
    x = (_RNG.normal(size=shape) * 5).astype(dt)
    n = shape[axis]
    raw = _RNG.integers(-2 * n, 2 * n, size=ishape + (1,))
    idx = (np.abs(raw) if np.dtype(idt).kind == "u" else raw).astype(idt)
    if idt == np.uint64:
        idx.reshape(-1)[0] = np.uint64(2**64 - 2)
    params = dict(dimension_numbers=_dn(axis, len(shape), len(ishape)),
                  slice_sizes=tuple(1 if d == axis else s for d, s in enumerate(shape)),
                  mode=mode, fill_value=None)
    assert P._take_axis(params["dimension_numbers"], params["slice_sizes"], shape,
                        idx.shape) == axis
    got = P._gather_impl(np, x, idx, **params)
    with monkeypatch.context() as m:
        m.setattr(P, "_take_axis", lambda *a: None)
        general = P._gather_impl(np, x, idx, **params)
    assert got.dtype == general.dtype == x.dtype and got.shape == general.shape
    assert got.tobytes() == general.tobytes()
    np.testing.assert_array_equal(got, _reference(x, idx, axis, mode, None))


def test_other_gathers_keep_the_general_impl():
    dn = P.GatherDimensionNumbers((1,), (0,), (0,))
    assert P._take_axis(dn, (1, 2), (5, 4), (3, 1)) is None          # a partial window
    assert P._take_axis(P.GatherDimensionNumbers((2,), (1,), (1,)), (5, 1), (5, 4),
                        (2, 3, 1)) is None                            # batch dims elsewhere
    assert P._take_axis(P.GatherDimensionNumbers((0,), (1,), (1,)), (5, 1), (5, 4),
                        (2, 3, 1)) == 1                               # ... or in place
    assert P._take_axis(P.GatherDimensionNumbers((), (0, 1), (0, 1)), (1, 1), (5, 4),
                        (3, 2)) is None                               # two indexed axes


def test_fill_value_given():
    x = np.arange(6, dtype=np.float32)
    idx = np.array([[0], [9], [-1]], np.int32)
    got = P._gather_impl(np, x, idx, dimension_numbers=_dn(0, 1, 1), slice_sizes=(1,),
                         mode="fill", fill_value=-7.5)
    np.testing.assert_array_equal(got, np.array([0, -7.5, -7.5], np.float32))
