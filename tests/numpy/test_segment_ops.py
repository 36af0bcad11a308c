"""jax.ops.segment_sum/prod/max/min against a NumPy loop over the segments."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

_CASES = {  # name -> (NumPy reduction, identity for an empty segment of dtype dt)
    "segment_sum": (np.sum, lambda dt: 0),
    "segment_prod": (np.prod, lambda dt: 1),
    "segment_max": (np.max, lambda dt: -np.inf if dt.kind == "f" else np.iinfo(dt).min),
    "segment_min": (np.min, lambda dt: np.inf if dt.kind == "f" else np.iinfo(dt).max),
}


def _reference(name, data, ids, n, clip=False):
    reduce, identity = _CASES[name]
    if clip:
        ids = np.clip(ids, 0, n - 1)
    out = np.full((n,) + data.shape[1:], identity(data.dtype), data.dtype)
    for s in range(n):  # ids outside [0, n) (negative ones too) belong to no segment
        rows = data[ids == s]
        if len(rows):
            out[s] = reduce(rows, axis=0)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("name", sorted(_CASES))
def test_segment_reductions_against_numpy(name, dtype):
    rng = np.random.default_rng(5)
    data = rng.integers(-3, 4, (11, 2)).astype(dtype)
    ids = rng.integers(-2, 7, 11).astype(np.int32)  # some negative, some >= n, one empty
    op = getattr(tjit.ops, name)
    for n in (5, 8):
        want = _reference(name, data, ids, n)
        got = op(jnp.asarray(data), jnp.asarray(ids), n)
        np.testing.assert_array_equal(np.asarray(got), want)
        assert got.dtype == want.dtype
        jitted = tjit.jit(op, static_argnums=2)(jnp.asarray(data), jnp.asarray(ids), n)
        np.testing.assert_array_equal(np.asarray(jitted), want)
    np.testing.assert_array_equal(np.asarray(op(data, ids, 5, mode="clip")),
                                  _reference(name, data, ids, 5, clip=True))
    # num_segments left out: max(id) + 1 of the concrete ids
    np.testing.assert_array_equal(np.asarray(op(data, ids)),
                                  _reference(name, data, ids, int(ids.max()) + 1))


def test_segment_sum_gradient_and_vmap():
    rng = np.random.default_rng(6)
    data = rng.normal(size=(7, 3)).astype(np.float32)
    ids = np.array([2, 0, 2, 1, 9, 0, -1], np.int32)
    w = rng.normal(size=(4, 3)).astype(np.float32)
    f = lambda d: jnp.sum(tjit.ops.segment_sum(d, ids, 4) ** 2 * w)  # noqa: E731
    seg = _reference("segment_sum", data.astype(np.float64), ids, 4)
    want = np.array([2 * seg[i] * w[i] if 0 <= i < 4 else np.zeros(3) for i in ids])
    np.testing.assert_allclose(np.asarray(tjit.grad(f)(data)), want, rtol=1e-5, atol=1e-5)
    batched = tjit.vmap(lambda d: tjit.ops.segment_max(d, ids, 4))(np.stack([data, -data]))
    for b, d in enumerate([data, -data]):
        np.testing.assert_array_equal(np.asarray(batched[b]),
                                      _reference("segment_max", d, ids, 4))


def test_segment_sum_bad_input_errors():
    with pytest.raises(tjit.errors.ConcretizationTypeError, match="num_segments"):
        tjit.jit(tjit.ops.segment_sum)(jnp.ones(3), jnp.array([0, 1, 1]))
    with pytest.raises(ValueError, match=r"leading axis.*\(4,\).*\(3,\)"):
        tjit.ops.segment_sum(jnp.ones(4), jnp.array([0, 1, 1]), 2)
    with pytest.raises(TypeError, match="integer"):
        tjit.ops.segment_sum(jnp.ones(3), jnp.array([0.0, 1.0, 1.0]), 2)
