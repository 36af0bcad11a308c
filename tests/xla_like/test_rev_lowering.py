"""``lax.rev`` / ``jnp.flip`` lower to the HLO ``rev`` op, an index map (``n - 1 - i``
along the reversed dims) that fuses like a transpose: no library step, one kernel with
its producer and consumers, native loops for loop bodies that flip.

Values against the reference interpreter and NumPy (``np.flip``), plans through
``fusion_summary`` / ``as_text``.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

RNG = np.random.default_rng(21)


def _arr(shape, dtype):
    if np.dtype(dtype) == np.bool_:
        return RNG.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind == "i":
        return RNG.integers(-50, 50, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def _kinds(fn, *args, **jit_kw):
    return [k for k, _ in tjit.jit(fn, **jit_kw).lower(*args).compile().fusion_summary()]


def _same(fn, args, want, **jit_kw):
    got = np.asarray(tjit.jit(fn, **jit_kw)(*args))
    ref = np.asarray(tjit.jit(fn, backend="interpreter")(*args))
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_])
@pytest.mark.parametrize("dims", [(0,), (2,), (0, 1), (0, 1, 2)])
def test_rev_fuses_with_its_consumer(dims, dtype, x64):
    x = _arr((5, 4, 7), dtype)
    f = lambda x: lax.rev(x, dims) ^ x if dtype == np.bool_ else lax.rev(x, dims) * 2 + x
    assert _kinds(f, x) == ["kernel"]
    want = np.flip(x, dims) ^ x if dtype == np.bool_ else np.flip(x, dims) * 2 + x
    _same(f, (x,), want)


def test_flip_fuses_with_transpose_slice_and_reduction():
    x = _arr((6, 9), np.float32)
    f = lambda x: jnp.sum(jnp.transpose(jnp.flip(jnp.exp(x), 1))[::2] * 3, axis=0)
    assert _kinds(f, x) == ["kernel"]
    want = np.sum(np.transpose(np.flip(np.exp(x.astype(np.float64)), 1))[::2] * 3, axis=0)
    got = np.asarray(tjit.jit(f)(x))
    np.testing.assert_allclose(got, np.asarray(tjit.jit(f, backend="interpreter")(x)),
                               rtol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("n", [1, 2, 13])
def test_flip_of_a_symbolic_batch(n):
    jit_kw = {"polymorphic_shapes": ["(b, 3)"]}
    f = lambda x: jnp.flip(x, 0) - x[::-1] * 0.5
    x = _arr((n, 3), np.float32)
    assert _kinds(f, x, **jit_kw) == ["kernel"]
    _same(f, (x,), np.flip(x, 0) - x[::-1] * np.float32(0.5), **jit_kw)


def test_rev_of_rev_cancels():
    x = _arr((4, 5), np.float32)
    f = lambda x: lax.rev(lax.rev(x, (0,)), (0, 1)) + 1
    text = tjit.jit(f).lower(x).compile().as_text()
    assert "-1*i1" in text and "-5*i0" not in text, text    # only dim 1 is reversed
    _same(f, (x,), np.flip(x, 1) + np.float32(1))
    assert _kinds(lambda x: jnp.flip(jnp.flip(x)) * 2, x) == ["kernel"]


def test_conv_input_gradient_has_no_library_step():
    """The transpose of a convolution flips its kernel: that flip is now a kernel."""
    x, w = _arr((2, 3, 9, 9), np.float32), _arr((4, 3, 3, 3), np.float32)

    def loss(x, w):
        return jnp.sum(jnp.tanh(lax.conv_general_dilated(x, w, (1, 1), "SAME")))
    g = tjit.jit(tjit.grad(loss))
    assert "library" not in _kinds(tjit.grad(loss), x, w)
    ref = tjit.jit(tjit.grad(loss), backend="interpreter")(x, w)
    np.testing.assert_allclose(np.asarray(g(x, w)), np.asarray(ref), rtol=1e-4, atol=1e-5)


def test_loop_body_that_flips_runs_natively(monkeypatch):
    from tjit.devices import native_loop
    calls = []
    run = native_loop.NativeLoop.__call__
    monkeypatch.setattr(native_loop.NativeLoop, "__call__",
                        lambda self, args, *rest: calls.append(self.kind) or
                        run(self, args, *rest))
    x = _arr((8, 5), np.float32)

    def f(x):
        return lax.fori_loop(0, 7, lambda i, c: jnp.flip(c, 0) * 0.5 + x, x)
    got = np.asarray(tjit.jit(f)(x))
    assert calls
    want = x.astype(np.float64)
    for _ in range(7):
        want = np.flip(want, 0) * 0.5 + x
    np.testing.assert_allclose(got, np.asarray(tjit.jit(f, backend="interpreter")(x)),
                               rtol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-5)
