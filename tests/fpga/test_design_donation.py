"""Donated buffers inside a dataflow design: the plan writes an output into a donated
argument's buffer once the argument's last reader has run (steps one after another),
and a loop body's carries are donated to its outputs from the second trip on. A
design's stages run at once, so a stage writing the new value into the buffer must not
race a stage of the same design that still reads the old one. Loop bodies (fori_loop,
scan) and direct donated calls, through HLS C simulation and single-work-item OpenCL,
against the reference interpreter."""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import hls_compile

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))

RNG = np.random.default_rng(0)
W = RNG.standard_normal((64, 48)).astype(np.float32)
X = RNG.standard_normal((32, 64)).astype(np.float32)
Y = RNG.standard_normal((32, 48)).astype(np.float32)


def _sgd(w, x, y):
    """An SGD step: a matmul and a row reduction read w, the update writes it."""
    g = x.T @ (x @ w - y) / x.shape[0]
    r = jnp.sum(w * w, axis=1, keepdims=True)
    return w - 0.1 * g - 0.001 * r * w


def _sgd_loop(w, x, y):
    return lax.fori_loop(0, 4, lambda i, w: _sgd(w, x, y), w)


def _side_reader(w):
    """A stage reads w for a value the update does not need (a row sum carried beside
    it): nothing orders it before the stage that writes the new w."""
    def body(i, c):
        w, acc = c
        return w * 0.5 + 1.0, acc + jnp.sum(w, axis=1)
    return lax.fori_loop(0, 4, body, (w, jnp.zeros(w.shape[0], w.dtype)))


def _chain_scan(w):
    """An elementwise chain over several stages, a reversed read and an .at[] update
    of the carry, each trip writing the carry's buffer."""
    def body(c, t):
        a = jnp.tanh(c) * 0.9 + t
        b = a[::-1, :] * 0.5 + jnp.sin(c)
        c = (b - jnp.mean(c, axis=0)).at[3:40, 5].set(c[3:40, 7] * 2.0)
        return c, jnp.sum(c[:, 0])
    return lax.scan(body, w, jnp.arange(5, dtype=w.dtype))


CASES = {"sgd_loop": (_sgd_loop, (W, X, Y)), "side_reader": (_side_reader, (W,)),
         "chain_scan": (_chain_scan, (W,))}


@pytest.mark.parametrize("backend", ["hls", "opencl_swi"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_loop_carry_written_in_place_does_not_race(name, backend):
    f, args = CASES[name]
    want = tjit.tree_util.tree_leaves(tjit.jit(f, backend="interpreter")(*args))
    fn = tjit.jit(f, backend=backend)
    for _ in range(10):                   # (a race shows on some calls only)
        got = tjit.tree_util.tree_leaves(fn(*args))
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-4)


def _direct(backend, f, args, donate):
    """The executable called with ``donate``'s buffers given up, as a loop gives its
    carries (the jit API's donation per backend is its own test)."""
    with warnings.catch_warnings():     # (the jit API's donation is not under test)
        warnings.simplefilter("ignore")
        c = tjit.jit(f, donate_argnums=donate).lower(*args).compile(backend=backend)
    return c.executable


@pytest.mark.parametrize("backend", ["hls", "opencl_swi"])
def test_donated_sgd_update_does_not_race(backend):
    want = np.asarray(tjit.jit(_sgd, backend="interpreter")(W, X, Y))
    exe = _direct(backend, _sgd, (W, X, Y), 0)
    for _ in range(5):
        w = W.copy()
        (got,) = exe.call([w, X, Y], (0,))
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


def _update_and_reduce(w):
    return w * 0.5 + 1.0, jnp.sum(w, axis=1)


@pytest.mark.parametrize("backend", ["hls", "opencl_swi"])
def test_donated_output_beside_a_reader_does_not_race(backend):
    want = [np.asarray(a) for a in
            tjit.jit(_update_and_reduce, backend="interpreter")(W)]
    exe = _direct(backend, _update_and_reduce, (W,), 0)
    for _ in range(5):
        given = W.copy()
        got = exe.call([given], (0,))
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-5)
    if backend == "hls":    # (the race shows on some calls only: the design's choice)
        assert not np.shares_memory(np.asarray(got[0]), given), \
            "the update went into the buffer a concurrent stage still reads"


def test_lone_in_place_update_keeps_the_donated_buffer():
    """An in-place kernel that is the argument's only reader in its design reads each
    element before writing it: the output stays in the donated buffer."""
    exe = _direct("hls", lambda w: w * 0.5 + 1.0, (W,), 0)
    w = W.copy()
    (got,) = exe.call([w], (0,))
    assert np.shares_memory(np.asarray(got), w)
    np.testing.assert_allclose(np.asarray(got), W * 0.5 + 1.0, rtol=1e-6)
