"""Linear epilogues folded into BLAS gemms (``xla_like/gemm_epilogue.py``).

Oracles: NumPy in float64 (and the unfolded path for the bits that must not change).
Checked through the public inspection API (``fusion_summary``, ``as_text``): which
patterns fold, which must not (the product read twice, a non-linear epilogue, a
broadcast term, integer dots), in-place accumulation into donated buffers, the
NumPy fallback, symbolic sizes, threads vs one thread, and native loops.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import blas

RNG = np.random.default_rng(11)
FOLDED = ("dot", "dot_general+linear_epilogue")


def _f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _summary(fn, *args):
    return tjit.jit(fn).lower(*args).compile().fusion_summary()


def _close(got, want, dtype=np.float32):
    tol = 2e-5 if np.dtype(dtype) == np.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol * 50)


CASES = [
    # fn, reference on float64 inputs, arg shapes
    ("sgd", lambda w, a, g: w - 0.01 * (a.T @ g), None, [(64, 48), (96, 64), (96, 48)]),
    ("residual", lambda x, h, w: x + h @ w, None, [(40, 30), (40, 20), (20, 30)]),
    ("residual_flipped", lambda x, h, w: h @ w + x, None, [(40, 30), (40, 20), (20, 30)]),
    ("scaled", lambda a, b: (a @ b) / 8.0, None, [(33, 17), (17, 29)]),
    ("negated", lambda a, b: -(a @ b.T), None, [(33, 17), (29, 17)]),
    ("weight_decay", lambda w, a, g: w - 0.1 * (a.T @ g + 0.5 * w), None,
     [(24, 16), (8, 24), (8, 16)]),
    ("batched", lambda x, a, b: 2.0 * x - jnp.einsum("bij,bjk->bik", a, b), None,
     [(3, 12, 10), (3, 12, 7), (3, 7, 10)]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,fn,_,shapes", CASES, ids=[c[0] for c in CASES])
def test_linear_epilogue_folds_into_the_gemm(name, fn, _, shapes, dtype, x64):
    args = [_f(*s, dtype=dtype) for s in shapes]
    summary = _summary(fn, *args)
    assert FOLDED in summary and ("dot", "dot_general") not in summary, summary
    assert not [s for s in summary if s[0] == "kernel"], summary
    want = fn(*[a.astype(np.float64) for a in args])
    _close(tjit.jit(fn)(*args), np.asarray(want), dtype)


@pytest.mark.parametrize("fn", [
    lambda a, b: jnp.maximum(a @ b, 0.0),                 # not linear
    lambda a, b: (a @ b) * (a @ b),                        # product times itself
    lambda a, b: a @ b + jnp.sum(a @ b),                   # the product read twice
    lambda a, b: a @ b + jnp.arange(b.shape[1], dtype=a.dtype),  # broadcast term
    lambda a, b: (a @ b) * 0.0 + 1.0,                      # x*0 must keep NaN semantics
], ids=["relu", "square", "read_twice", "broadcast", "times_zero"])
def test_non_linear_or_shared_epilogues_stay_kernels(fn):
    a, b = _f(20, 30), _f(30, 25)
    summary = _summary(fn, a, b)
    assert FOLDED not in summary, summary
    got = np.asarray(tjit.jit(fn)(a, b))
    ref = np.asarray(tjit.jit(fn, backend="interpreter")(a, b))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_dot_output_that_is_returned_is_not_folded():
    a, b, x = _f(20, 30), _f(30, 25), _f(20, 25)
    f = lambda a, b, x: (a @ b, x - a @ b)             
    p, q = tjit.jit(f)(a, b, x)
    ref = a.astype(np.float64) @ b
    _close(p, ref)
    _close(q, x - ref)


def test_integer_dots_keep_their_kernel():
    a = RNG.integers(-5, 5, (12, 9)).astype(np.int32)
    b = RNG.integers(-5, 5, (9, 7)).astype(np.int32)
    x = RNG.integers(-5, 5, (12, 7)).astype(np.int32)
    f = lambda x, a, b: x - 3 * (a @ b)                 
    assert FOLDED not in _summary(f, x, a, b)
    np.testing.assert_array_equal(np.asarray(tjit.jit(f)(x, a, b)), x - 3 * (a @ b))


def test_fold_shows_in_the_program_text():
    w, a, g = _f(16, 8), _f(4, 16), _f(4, 8)
    text = tjit.jit(lambda w, a, g: w - 0.5 * (a.T @ g)).lower(w, a, g).compile().as_text()
    assert "dot (BLAS, -0.5*dot + 1*%" in text, text


def test_nan_and_inf_in_the_accumulated_term_propagate():
    w, a, g = _f(16, 8), _f(4, 16), _f(4, 8)
    w[0, 0], w[1, 1] = np.nan, np.inf
    got = np.asarray(tjit.jit(lambda w, a, g: w - 0.5 * (a.T @ g))(w, a, g))
    assert np.isnan(got[0, 0]) and np.isposinf(got[1, 1])
    _close(got[2:], (w - 0.5 * (a.T.astype(np.float64) @ g))[2:])


@pytest.mark.parametrize("serial", [False, True])
def test_threads_and_one_thread_agree(serial, monkeypatch):
    """Big enough to split across threads: every block copies its part of X first."""
    monkeypatch.setenv("TJIT_NUM_THREADS", "1" if serial else "2")
    w, a, g = _f(300, 260), _f(200, 300), _f(200, 260)
    f = lambda w, a, g: w - 0.01 * (a.T @ g)            
    assert blas.PARALLEL_MIN_MACS < 300 * 260 * 200
    _close(tjit.jit(f)(w, a, g), w - 0.01 * (a.T.astype(np.float64) @ g))


def test_numpy_fallback_applies_alpha_and_beta(monkeypatch):
    monkeypatch.setattr(blas.GemmCall, "build", classmethod(lambda cls, *a, **k: None))
    w, a, g = _f(30, 20), _f(10, 30), _f(10, 20)
    f = lambda w, a, g: 0.5 * w - 0.25 * (a.T @ g)      
    assert FOLDED in _summary(f, w, a, g)
    _close(tjit.jit(f)(w, a, g), 0.5 * w - 0.25 * (a.T.astype(np.float64) @ g))


def test_donated_weights_are_updated_in_place():
    w, a, g = _f(128, 64), _f(32, 128), _f(32, 64)
    f = tjit.jit(lambda w, a, g: w - 0.01 * (a.T @ g), donate_argnums=0)
    x = jnp.asarray(w)
    ptr = x._value.ctypes.data
    out = f(x, a, g)
    assert out._value.ctypes.data == ptr
    _close(out, w - 0.01 * (a.T.astype(np.float64) @ g))
    # A NumPy argument is never written, donated or not.
    w2 = w.copy()
    with pytest.warns(UserWarning, match="NumPy array"):
        _close(f(w2, a, g), w - 0.01 * (a.T.astype(np.float64) @ g))
    np.testing.assert_array_equal(w2, w)


def test_donated_weight_read_by_another_dot_is_correct():
    """``w`` feeds the input gradient (``d @ w.T``) and gets the update: the update may
    only overwrite ``w`` after the other product has read it, and the two must never
    run side by side in one gemm group."""
    w, h, d = _f(256, 192), _f(64, 256), _f(64, 192)

    def step(w, h, d):
        return w - 0.1 * (h.T @ d), d @ w.T
    f = tjit.jit(step, donate_argnums=0)
    x = jnp.asarray(w)
    ptr = x._value.ctypes.data
    got_w, got_dx = f(x, h, d)
    assert got_w._value.ctypes.data == ptr
    w64 = w.astype(np.float64)
    _close(got_dx, d @ w64.T)
    _close(got_w, w64 - 0.1 * (h.T.astype(np.float64) @ d))


def test_polymorphic_batch_folds_once_for_every_size():
    f = tjit.jit(lambda w, a, g: w - 0.1 * (a.T @ g), abstracted_axes=(None, {0: "b"},
                                                                       {0: "b"}))
    w = _f(16, 8)
    for n in (3, 17, 40):
        a, g = _f(n, 16), _f(n, 8)
        _close(f(w, a, g), w - 0.1 * (a.T.astype(np.float64) @ g))


def test_sgd_loop_with_folded_updates_runs_natively(monkeypatch):
    from tjit.devices import native_loop
    calls = []
    run = native_loop.NativeLoop.__call__
    monkeypatch.setattr(native_loop.NativeLoop, "__call__",
                        lambda self, args, *rest: calls.append(self.kind) or
                        run(self, args, *rest))
    x, y, w0 = _f(32, 6), _f(32, 3), _f(6, 3) * 0.3

    def train(w):
        return lax.fori_loop(0, 20, lambda i, w: w - 0.05 * (x.T @ (x @ w - y)), w)
    got = tjit.jit(train)(w0)
    assert calls
    w = w0.astype(np.float64)
    for _ in range(20):
        w = w - 0.05 * (x.T @ (x @ w - y))
    _close(got, w)
