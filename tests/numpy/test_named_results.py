"""Functions that return several arrays return NumPy 2's (and JAX's, the Array API's)
named tuples: same type name, same fields, each field equal to NumPy's, eagerly and
through jit (a named tuple is a pytree node, so jit gives it back)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

X = np.array([3.0, 1.0, np.nan, 3.0, -0.0, 0.0, np.nan, 2.0], np.float32)
M = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32)

# (name, the call on np or jnp, static size for jit or None to jit the call as it is)
NAMED = [
    ("unique_all", lambda m, x: m.unique_all(x), X),
    ("unique_counts", lambda m, x: m.unique_counts(x), X),
    ("unique_inverse", lambda m, x: m.unique_inverse(x), X.reshape(2, 4)),
    ("linalg.eigh", lambda m, x: m.linalg.eigh(x), M),
    ("linalg.qr", lambda m, x: m.linalg.qr(x), M),
    ("linalg.svd", lambda m, x: m.linalg.svd(x), M),
    ("linalg.slogdet", lambda m, x: m.linalg.slogdet(x), M),
]


def _check(got, want, name):
    assert type(got).__name__ == type(want).__name__, (name, type(got))
    assert got._fields == want._fields, (name, got._fields)
    for field in want._fields:
        g, w = np.asarray(getattr(got, field)), np.asarray(getattr(want, field))
        assert g.shape == w.shape, (name, field, g.shape, w.shape)
        if field in ("eigenvectors", "Q", "R", "U", "Vh"):  # defined up to signs
            g, w = np.abs(g), np.abs(w)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, equal_nan=True,
                                   err_msg=f"{name}.{field}")


@pytest.mark.parametrize("name,call,x", NAMED, ids=[n[0] for n in NAMED])
def test_named_result_matches_numpy(name, call, x):
    _check(call(jnp, x), call(np, x), name)


@pytest.mark.parametrize("name,call,x", NAMED, ids=[n[0] for n in NAMED])
def test_named_result_survives_jit(name, call, x):
    want = call(np, x)
    if name.startswith("unique"):  # data-dependent size: static under jit
        fn = getattr(jnp, name)
        n = len(want.values)
        got = tjit.jit(lambda a: fn(a, size=n))(x)
    else:
        got = tjit.jit(lambda a: call(jnp, a))(x)
    _check(got, want, name)


def test_unique_results_unpack_like_tuples():
    values, counts = jnp.unique_counts(np.array([2, 1, 2]))
    np.testing.assert_array_equal(values, [1, 2])
    np.testing.assert_array_equal(counts, [1, 2])
    r = jnp.unique_all(np.array([2, 1, 2]))
    assert len(r) == 4 and r[0] is r.values
