"""Boolean-mask indexing shapes against NumPy: for several operands, every mask shape
that a prefix (or a run of dims after ints/slices/None/...) could take — matching,
mismatching, empty (a size-0 mask dim fits any dim, as in NumPy and JAX), 0-d True/False
— alone and mixed with ints, slices, None and Ellipsis. Each index is read (eager, jit)
and written through ``.at[...].set``; a NumPy IndexError must be a tjit IndexError."""

import itertools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

OPERANDS = [(1,), (1, 3), (2, 3, 4), (0, 2), (3,), ()]
_RNG = np.random.default_rng(0)


def _mask_shapes(shape):
    """Mask shapes for dims starting at 0: each prefix length, each dim matching, 0 or off."""
    for k in range(1, len(shape) + 1):
        options = [sorted({d, 0, d + 1}) for d in shape[:k]]
        yield from itertools.product(*options)


def _mask(shape):
    return _RNG.random(shape) < 0.5 if shape else np.asarray(True)


def _indices(shape):
    out = [True, False, np.True_, np.False_]
    for ms in _mask_shapes(shape):
        m = _mask(ms)
        out += [m, (m,), (m, ...), (..., m) if m.ndim <= len(shape) else (m,), (None, m)]
        if len(shape) > m.ndim:
            out += [(m, 0), (m, slice(None, None, -1)), (m, None, ...), (m, [0])]
        if m.ndim < len(shape):  # the mask after an int / slice
            rest = _mask(ms[:len(shape) - 1])
            out += [(0, rest), (slice(None), rest), (Ellipsis, rest)]
    out += [np.zeros(0, bool), (True, ...), (False, None), (..., True), (None, False, ...)]
    if shape:
        out += [(0, True), (slice(1), False), ([0], True), (True, [0])]
    return out


CASES = [(s, i) for s in OPERANDS for i in _indices(s)]


def _id(case):
    s, idx = case
    idx = idx if isinstance(idx, tuple) else (idx,)
    parts = [f"b{list(e.shape)}" if isinstance(e, np.ndarray) else repr(e) for e in idx]
    return f"{list(s)}[{','.join(parts)}]".replace(" ", "")


@pytest.mark.parametrize("shape,idx", CASES, ids=[_id(c) for c in CASES])
def test_bool_mask_index_matches_numpy(shape, idx):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    try:
        want = x[idx]
    except IndexError as e:
        if "out of bounds" in str(e):  # an int past a size-0 dim (JAX's bounds rules):
            try:                         # an error, or a selection of nothing
                assert jnp.asarray(x)[idx].size == 0
            except IndexError:
                pass
            return
        with pytest.raises(IndexError):
            jnp.asarray(x)[idx]
        with pytest.raises(IndexError):
            jnp.asarray(x).at[idx].set(-1.0)
        return
    got = jnp.asarray(x)[idx]
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(tjit.jit(lambda a: a[idx])(x), want)
    ref = x.copy()
    ref[idx] = -1.0
    np.testing.assert_array_equal(jnp.asarray(x).at[idx].set(-1.0), ref)


def test_empty_mask_on_a_size_one_axis():
    # the reported case: NumPy and JAX give an empty selection, not an IndexError
    x = jnp.arange(3.0).reshape(1, 3)
    assert x[np.zeros(0, bool)].shape == (0, 3)
    assert x[:, np.zeros(0, bool)].shape == (1, 0)
    assert jnp.ones(1)[jnp.zeros(0, bool)].shape == (0,)


def test_mismatched_mask_names_the_axis_and_sizes():
    with pytest.raises(IndexError, match="boolean index did not match indexed array along "
                                         "axis 1; size of axis is 3 but size of corresponding "
                                         "boolean axis is 2"):
        jnp.ones((2, 3))[:, np.array([True, False])]
