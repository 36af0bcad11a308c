"""The CPU backend builds a loop body's kernels for many calls (``cpu.control_step`` ->
``kernel_cache.compile_kernel(many_calls=True)``), a cond's at top level for one, and
the results keep their bits (NumPy float32 loop as the reference)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import kernel_cache


@pytest.fixture
def compiled(monkeypatch):
    seen = []
    real = kernel_cache.compile_kernel

    def record(kernel, many_calls=False):
        seen.append((kernel.shape, many_calls))
        return real(kernel, many_calls)
    monkeypatch.setattr(kernel_cache, "compile_kernel", record)
    return seen


def _data():
    rng = np.random.default_rng(7)
    return (rng.standard_normal((16, 16)).astype(np.float32),
            rng.standard_normal(16).astype(np.float32),
            rng.standard_normal(16).astype(np.float32))


def test_while_body_kernels_built_for_many_calls(compiled):
    a, g, h = _data()

    def f(a, g, h):
        def body(c):
            i, w, v = c
            return i + 1, w + v[:, None] * h[None, :], v * np.float32(0.5) + h
        return lax.while_loop(lambda c: c[0] < 9, body, (0, a, g))[1:]

    w, v = tjit.jit(f)(a, g, h)
    rw, rv = a.copy(), g.copy()
    for _ in range(9):
        rw, rv = rw + rv[:, None] * h[None, :], rv * np.float32(0.5) + h
    np.testing.assert_array_equal(np.asarray(w).view(np.uint32), rw.view(np.uint32))
    np.testing.assert_array_equal(np.asarray(v).view(np.uint32), rv.view(np.uint32))
    assert ((16, 16), True) in compiled


def test_top_level_cond_branches_built_for_one_call(compiled):
    a, g, h = _data()

    def f(p, a, g, h):
        return lax.cond(p > 0, lambda: a + g[:, None] * h[None, :], lambda: a - g[:, None])

    got = tjit.jit(f)(np.float32(1), a, g, h)
    want = a + g[:, None] * h[None, :]
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), want.view(np.uint32))
    assert compiled and not any(many for _, many in compiled)


def test_as_text_shows_the_loop_body_build():
    a, g, h = _data()

    def f(a, g, h):
        body = lambda c: (c[0] + 1, c[1] + g[:, None] * h[None, :])
        return lax.while_loop(lambda c: c[0] < 3, body, (0, a))[1]

    text = tjit.jit(f).lower(a, g, h).compile().as_text(llvm=True)
    assert "llvm.loop.unroll.disable" in text    # (the vector build, inner loop rolled)
