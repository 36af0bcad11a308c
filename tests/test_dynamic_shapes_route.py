"""The short way of a call at a size not cached to its family's dynamic programs
(``dynamic_shapes.Route``: a generated flattener, then one generated match of the
leaves' kinds, shapes and guards). Checked against the full path it replaces
(``Family.lookup`` through ``Pattern.bind``, the per-shape interpreter) and NumPy, and
every retrace, specialization and log message of the full path must still happen."""

import logging

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import dynamic_shapes as dyn
from tjit.tracing.core import Array as ArrayImpl  # the concrete class jit routes

RNG = np.random.default_rng(3)


def _randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _reference(f):
    return tjit.jit(f, backend="interpreter", dynamic_shapes=False)


def mlp(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


PARAMS = [(_randn(6, 8), _randn(8)), (_randn(8, 3), _randn(3))]


def _mlp64(x):
    for w, b in PARAMS[:-1]:
        x = np.tanh(x.astype(np.float64) @ w + b)
    w, b = PARAMS[-1]
    return x @ w + b


def _routed_calls(f, monkeypatch):
    """Count the calls that the route served (wrapping it, not changing it)."""
    served = []
    match = dyn.Route.match

    def counting(self, leaves, array_type):
        hit = match(self, leaves, array_type)
        served.append(hit is not None)
        return hit
    monkeypatch.setattr(dyn.Route, "match", counting)
    return served


def test_new_sizes_of_a_pytree_call_take_the_route(monkeypatch):
    f = tjit.jit(mlp)
    p = [(jnp.asarray(w), jnp.asarray(b)) for w, b in PARAMS]
    served = _routed_calls(f, monkeypatch)
    sizes = [4, 7, 9, 2, 13, 30, 7, 5, 64, 3]
    for n in sizes:
        x = _randn(n, 6)
        np.testing.assert_allclose(f(p, jnp.asarray(x)), _mlp64(x), rtol=1e-4, atol=1e-5)
    assert f.trace_count == 2 and f.compile_count == 2
    # the sizes after the second, new or not the last one called: all by the route
    assert sum(served) == len(sizes) - 2


def test_positional_calls_fill_the_exact_cache_up_to_its_bound(monkeypatch):
    monkeypatch.setattr(dyn, "MAX_CACHED_SIZES", 5)
    f = tjit.jit(lambda x, y: jnp.sin(x) * y)
    served = _routed_calls(f, monkeypatch)
    for n in range(2, 20):
        x, y = _randn(n, 3), _randn(n, 3)
        np.testing.assert_allclose(f(jnp.asarray(x), jnp.asarray(y)),
                                   np.sin(x.astype(np.float64)) * y, rtol=1e-5, atol=1e-6)
    assert f.trace_count == 2 and any(served)
    assert len(f._fast_cache) <= 5 + 2     # (the two traced sizes, then the bound)


@pytest.mark.parametrize("name, fn", [
    ("parity", lambda x, y: (x * 2.0 if x.shape[0] % 2 == 0 else x - 1.0, y + 1.0)),
    ("order", lambda x, y: (x[: x.shape[0] // 2] if x.shape[0] > 6 else x * 3.0, y * y)),
    ("shared", lambda x, y: (x + y, jnp.sum(x, axis=1))),
    ("two symbols", lambda x, y: (jnp.sum(x, axis=0) * 2.0, y[: min(y.shape[0], 5)])),
])
def test_generated_match_agrees_with_pattern_bind(name, fn):
    f = tjit.jit(fn)
    ref = _reference(fn)
    shared = name == "shared"
    for n, m in ((4, 5), (6, 7), (9, 8), (12, 11), (7, 3)):
        x, y = _randn(n, 3), _randn(n if shared else m, 3)
        for got, want in zip(f(jnp.asarray(x), jnp.asarray(y)), ref(x, y)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    (fam,) = f._families.values()
    route = f._route
    assert route is not None and route.family is fam
    for n in range(16):
        for m in range(9):
            x, y = jnp.zeros((n, 3)), jnp.zeros((m, 3))
            hit = route.match([x, y], ArrayImpl)
            want = fam.lookup([(n, 3), (m, 3)])
            assert (hit[0] if hit is not None else None) is want, (n, m)
    # a leaf of another dtype, weak type or rank is not this family's
    x = jnp.zeros((8, 3))
    assert route.match([x, jnp.zeros((8, 3), jnp.int32)], ArrayImpl) is None
    assert route.match([x, jnp.zeros((8, 3, 1))], ArrayImpl) is None
    assert route.match([x, np.zeros((8, 3), np.float32)], ArrayImpl) is None
    assert route.match([x, jnp.asarray(2.0) + jnp.zeros((8, 3))], ArrayImpl) is not None


def test_what_the_route_does_not_serve_takes_the_full_path(caplog):
    f = tjit.jit(mlp)
    p = [(jnp.asarray(w), jnp.asarray(b)) for w, b in PARAMS]
    for n in (4, 7, 9):
        f(p, jnp.asarray(_randn(n, 6)))
    assert f._route is not None and f.trace_count == 2
    with caplog.at_level(logging.DEBUG, logger="tjit.compiles"):
        # size 1: specialized, as sizes 0 and 1 always are
        x = _randn(1, 6)
        np.testing.assert_allclose(f(p, jnp.asarray(x)), _mlp64(x), rtol=1e-4, atol=1e-5)
        assert f.trace_count == 3
        # another dtype of the input: a new family, explained
        x = _randn(5, 6).astype(np.float16)
        np.testing.assert_allclose(f(p, jnp.asarray(x)), _mlp64(x), rtol=2e-2, atol=2e-2)
        assert f.trace_count == 4
        # another rank of a parameter, and another structure
        f([(jnp.asarray(PARAMS[0][0]), jnp.asarray(PARAMS[0][1][None])), p[1]],
          jnp.asarray(_randn(5, 6)))
        assert f.trace_count == 5
        f(p[:1] + [p[1], (jnp.eye(3), jnp.zeros(3))], jnp.asarray(_randn(5, 6)))
        assert f.trace_count == 6
        # weak-typed scalar in place of a bias: its own family too
        f([p[0], (p[1][0], jnp.asarray(0.5))], jnp.asarray(_randn(5, 6)))
        assert f.trace_count == 7
    text = caplog.text
    assert "size 1 in dim 0 is specialized" in text
    assert "dtype of arg x changed" in text
    assert "rank of arg" in text and "new pytree structure" in text
    # and the first family is still served by its program, with no more traces
    x = _randn(23, 6)
    np.testing.assert_allclose(f(p, jnp.asarray(x)), _mlp64(x), rtol=1e-4, atol=1e-5)
    assert f.trace_count == 7


def test_a_widened_family_rebuilds_the_match():
    f = tjit.jit(lambda x: jnp.exp(x).sum(1))
    for shape in ((3, 4), (5, 4), (7, 4), (7, 6), (9, 10), (11, 3), (2, 2)):
        x = _randn(*shape)
        np.testing.assert_allclose(f(jnp.asarray(x)), np.exp(x.astype(np.float64)).sum(1),
                                   rtol=1e-5)
    assert f.trace_count == 3


def test_config_change_and_clear_cache_leave_the_route():
    f = tjit.jit(lambda x: x * 2.0)
    for n in (3, 5, 7):
        f(jnp.asarray(_randn(n)))
    assert f._route is not None
    f.clear_cache()
    assert f._route is None
    np.testing.assert_allclose(f(jnp.asarray(np.ones(9, np.float32))), np.full(9, 2.0))
    assert f.trace_count == 3     # (the first shape again after the clear)


def test_donation_through_the_route():
    f = tjit.jit(lambda d, y: {"z": d["x"] * 2.0 + y}, donate_argnums=0)
    for b in (3, 5, 8, 11):
        x, y = jnp.asarray(_randn(b, 4)), jnp.asarray(_randn(b, 4))
        want = np.asarray(x) * 2.0 + np.asarray(y)
        np.testing.assert_allclose(f({"x": x}, y)["z"], want, rtol=1e-6)
        assert x.is_deleted()
    assert f.trace_count == 2


def test_off_means_no_route():
    f = tjit.jit(lambda x: x + 1.0, dynamic_shapes=False)
    for n in (3, 5, 7):
        f(jnp.asarray(np.ones(n, np.float32)))
    assert f._route is None and f.trace_count == 3
