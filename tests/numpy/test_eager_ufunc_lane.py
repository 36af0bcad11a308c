"""The eager fast lane's direct ufunc calls (``Primitive.eager_ufunc``) give the bits the
primitive's reference impl gives under the reference interpreter, on every dtype the
primitive takes and on edge values (overflow, inf - inf, log of negatives, integer
wrap-around), and never warn: NumPy's floating-point warnings stay off as JAX's do."""

import warnings

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.primitives import elementwise

_PRIMS = sorted((p for p in vars(elementwise).values()
                 if isinstance(p, tjit.tracing.core.Primitive) and p.eager_ufunc is not None),
                key=lambda p: p.name)


def _edge(dt):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return np.array([True, False, True, False, True, True])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array([info.min, info.max, 0, 1, info.max // 2 + 1, info.min + 1 or 3], dt)
    fin = np.finfo(dt.type(0).real.dtype)
    vals = [fin.max, -fin.max, np.inf, -np.inf, np.nan, -0.5, 0.0, -0.0, fin.tiny, 2.0]
    if dt.kind == "c":
        return np.array([complex(v, w) for v, w in zip(vals, vals[::-1])], dt)
    return np.array(vals, dt)


def _bind(prim, *args):
    return prim.bind(*args)


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


@pytest.mark.parametrize("dt", ["float32", "float16", "complex64", "int8", "uint32", "bool"])
@pytest.mark.parametrize("prim", _PRIMS, ids=lambda p: p.name)
def test_ufunc_lane_matches_interpreter_without_warnings(prim, dt):
    vals = _edge(dt)
    x = tjit.numpy.asarray(vals)
    y = tjit.numpy.asarray(vals[::-1].copy())
    n = 2 if prim.name in {"add", "sub", "mul", "eq", "ne", "lt", "le", "gt", "ge", "and",
                           "or", "xor"} else 1
    args = (x, y)[:n]
    interp = tjit.jit(lambda *a: _bind(prim, *a), backend="interpreter")
    try:
        want = interp(*args)
    except TypeError:  # a dtype the primitive does not take: eager refuses it too
        with pytest.raises(TypeError):
            _bind(prim, *args)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # overflow/invalid/divide must stay quiet
        first, second = _bind(prim, *args), _bind(prim, *args)  # general, then fast lane
    assert _bits(first) == _bits(want)
    assert _bits(second) == _bits(want)
    assert first.weak_type == second.weak_type == want.weak_type


def test_ufunc_lane_is_taken_and_user_warnings_survive():
    """The lane calls the ufunc (a cached call per signature), and NumPy's own error
    state is untouched around it: plain NumPy still warns afterwards."""
    # (the lane's cache empties itself when it passes 4096 signatures: start it empty,
    # so what earlier tests left cannot make it empty itself between the two calls here;
    # and a shape no other test uses: jnp's functions keep the calls of signatures they
    # have seen, which then never reach the primitive's cache again)
    tjit.tracing.core._fast_runs.clear()
    shape = (3, 1, 7)
    x = tjit.numpy.full(shape, 3e38, tjit.numpy.float32)
    for _ in range(2):
        assert np.isinf(np.asarray(x + x)).all()
        assert np.isinf(np.asarray(tjit.numpy.exp(x))).all()
    key = (lax.add.prim, shape, np.dtype(np.float32), False, shape, np.dtype(np.float32),
           False)
    assert key in tjit.tracing.core._fast_runs
    with pytest.warns(RuntimeWarning, match="overflow"):
        np.add(np.float32(3e38) * np.ones(3, np.float32), np.float32(3e38))


def test_weak_and_zero_d_operands_keep_their_type():
    s = tjit.numpy.asarray(2.5)  # weak 0-d float
    for _ in range(2):
        out = s + s
        assert out.weak_type and out.shape == () and out.dtype == np.float32
        assert float(out) == 5.0
        out = tjit.numpy.sin(s)
        assert out.weak_type and isinstance(np.asarray(out), np.ndarray)
        assert float(out) == float(np.sin(np.float32(2.5)))


@pytest.mark.parametrize("dt", ["float32", "float16", "complex64", "int32"])
@pytest.mark.parametrize("scalar", [2.0, -3, 0.1, 1e300, -(10 ** 40), float("nan"), 70000])
def test_python_scalar_operands_match_interpreter(dt, scalar):
    """``a * 2.0`` and ``2.0 * a`` (the scalar lane kept per function) give the
    interpreter's bits, on either side, and a scalar overflowing the dtype gives inf
    without NumPy's cast warning."""
    x = tjit.numpy.asarray(_edge(dt)[:5])
    for op in (tjit.numpy.multiply, tjit.numpy.add, tjit.numpy.subtract):
        for fn in (lambda v, op=op: op(v, scalar), lambda v, op=op: op(scalar, v)):
            try:
                want = tjit.jit(fn, backend="interpreter")(x)
            except (TypeError, OverflowError) as e:  # an int scalar too big for int32
                with pytest.raises(type(e)):
                    fn(x)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got = [fn(x) for _ in range(3)]  # general path, then the kept call
            for g in got:
                assert _bits(g) == _bits(want)
                assert g.weak_type == want.weak_type
