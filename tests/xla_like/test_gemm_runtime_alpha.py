"""Linear epilogues scaled by run-time scalars fold into the gemm's alpha on the CPU:
a traced 0-d value (``w - lr * (x.T @ g)`` with ``lr`` an argument or computed) is read
at each call, a symbolic size used as a value (``(x.T @ g) / x.shape[0]``) when the
runner binds its sizes. References: NumPy float64, and the unfolded formula's NaN/inf
behaviour where alpha is 0 or not finite."""

import collections

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

RNG = np.random.default_rng(0)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _steps(jitted, *args):
    c = jitted.lower(*args).compile()
    kinds = collections.Counter(kind for kind, _ in c.fusion_summary())
    return kinds["kernel"], kinds["dot"], c.as_text()


def _check(got, want, rtol=2e-5):
    want = np.asarray(want, np.float64)
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=rtol,
                               atol=rtol * max(1.0, float(np.nanmax(np.abs(want)))))


W, X, G = f32(32, 16), f32(64, 32), f32(64, 16)


def _np(a):
    return np.asarray(a, np.float64)


CASES = [
    # name, f, args, reference in float64
    ("sgd step", lambda w, x, g, lr: w - lr * (x.T @ g), (W, X, G, np.float32(0.05)),
     lambda w, x, g, lr: w - lr * (x.T @ g)),
    ("divided by a scalar", lambda x, g, s: (x.T @ g) / s, (X, G, np.float32(-3.0)),
     lambda x, g, s: (x.T @ g) / s),
    ("computed scalar", lambda w, x, g, lr: w * 0.5 - (lr * 0.9) * (x.T @ g),
     (W, X, G, np.float32(0.1)), lambda w, x, g, lr: w * 0.5 - (lr * 0.9) * (x.T @ g)),
    ("scalar squared on an operand", lambda x, g, s: ((s * s) * x).T @ g,
     (X, G, np.float32(1.5)), lambda x, g, s: ((s * s) * x).T @ g),
]


@pytest.mark.parametrize("name,f,args,ref", CASES, ids=[c[0] for c in CASES])
def test_traced_scalar_folds_into_alpha(name, f, args, ref):
    jitted = tjit.jit(f)
    kernels, dots, text = _steps(jitted, *args)
    assert (kernels, dots) == (0, 1), text
    for scalar in (args[-1], np.float32(-2.5), np.float32(1e-3)):    # read at each call
        a = args[:-1] + (scalar,)
        _check(jitted(*a), ref(*[_np(v) for v in a]))


def test_sgd_step_with_zero_or_infinite_alpha_keeps_the_unfused_nans():
    f = tjit.jit(lambda w, x, g, lr: w - lr * (x.T @ g))
    x = X.copy()
    x[3, 5] = np.inf        # row 5 of x.T @ g is +-inf (or NaN)
    for lr in (0.0, np.inf, -0.0):
        lr = np.float32(lr)
        with np.errstate(invalid="ignore", over="ignore"):
            want = _np(W) - np.float64(lr) * (_np(x).T @ _np(G))
        got = np.asarray(f(W, x, G, lr), np.float64)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = np.isfinite(want)
        np.testing.assert_array_equal(got[~ok], want[~ok])
        if ok.any():
            _check(got[ok], want[ok])


def test_symbolic_size_folds_and_follows_the_bound_size():
    f = tjit.jit(lambda x, g: (x.T @ g) / x.shape[0], polymorphic_shapes=("n, 32", "n, 16"))
    kernels, dots, text = _steps(f, X, G)
    assert (kernels, dots) == (0, 1), text
    for n in (64, 5, 300, 64):      # (back to a size bound before: its runner again)
        x, g = f32(n, 32), f32(n, 16)
        _check(f(x, g), (_np(x).T @ _np(g)) / n)


def test_mean_gradient_sgd_under_symbolic_batch():
    def step(w, x, y, lr):
        loss = lambda w: jnp.mean((x @ w - y) ** 2)
        return w - lr * tjit.grad(loss)(w)
    f = tjit.jit(step, polymorphic_shapes=("32, 16", "n, 32", "n, 16", ""))
    for n in (8, 50):
        x, y, lr = f32(n, 32), f32(n, 16), np.float32(0.01)
        want = _np(W) - 0.01 * (2.0 / (n * 16)) * (_np(x).T @ (_np(x) @ _np(W) - _np(y)))
        _check(f(W, x, y, lr), want, rtol=1e-4)
    kernels, dots, text = _steps(f, W, x, y, lr)
    assert dots == 2 and kernels == 1, text    # (the residual; the update folds)


def test_in_a_loop_body_and_with_donation():
    def train(w, x, g, lr):
        return lax.fori_loop(0, 3, lambda i, w: w - lr * (x.T @ g), w)
    want = _np(W) - 3 * 0.05 * (_np(X).T @ _np(G))
    _check(tjit.jit(train)(W, X, G, np.float32(0.05)), want)
    donate = tjit.jit(lambda w, x, g, lr: w - lr * (x.T @ g), donate_argnums=0)
    _check(donate(jnp.asarray(W), X, G, np.float32(0.05)),
           _np(W) - 0.05 * (_np(X).T @ _np(G)))


def test_scalar_of_another_dtype_is_not_folded_and_still_right():
    f = tjit.jit(lambda w, x, g, lr: w - lr.astype(jnp.float32) * (x.T @ g))
    lr = np.float64(0.25)
    _check(f(W, X, G, lr), _np(W) - 0.25 * (_np(X).T @ _np(G)))


def test_size_factor_in_a_loop_body_follows_the_bound_size():
    def train(w, x, g):     # (the body's gemm: w - (1/n) * x.T @ g, in place)
        return lax.fori_loop(0, 3, lambda i, w: w - (x.T @ g) / x.shape[0], w)
    f = tjit.jit(train, polymorphic_shapes=("32, 16", "n, 32", "n, 16"))
    for n in (8, 50, 8):
        x, g = f32(n, 32), f32(n, 16)
        _check(f(W, x, g), _np(W) - 3 * (_np(x).T @ _np(g)) / n)
    body = f.lower(W, x, g).compile().as_text()
    assert "0 fused kernels" in body.split("program scan")[1].splitlines()[0], body


def test_loop_body_gemm_whose_size_factor_is_zero_keeps_the_products_nans(x64):
    # the native loop driver applies the gemm's bound alpha at every iteration: at 0
    # (z empty) BLAS would skip the product, so w came back without the NaNs NumPy gives
    def train(w, x, g, z):
        return lax.fori_loop(0, 3, lambda i, w: w - (x.T @ g) * z.shape[0], w)
    f = tjit.jit(train, polymorphic_shapes=("32, 16", "m, 32", "m, 16", "n"))
    w, x, g = _np(W), _np(X[:8]), _np(G[:8])
    x[0, 0] = np.nan
    for n in (2, 0):
        with np.errstate(invalid="ignore"):
            want = w - 3 * (x.T @ g) * n
        got = np.asarray(f(w, x, g, np.ones(n)))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        _check(np.nan_to_num(got), np.nan_to_num(want))


def test_grouped_gemms_whose_size_factor_is_zero_keep_the_products_nans(x64):
    # two independent dots run as one GemmGroup (one per thread) with the alpha bound
    # once: at n = 0 BLAS skipped both products (no NaNs where NumPy has 256 each)
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal((256, 256)) for _ in range(3))
    a[0, 0] = c[0, 0] = np.nan
    f = tjit.jit(lambda a, b, c, z: ((a @ b) * z.shape[0], (c @ b) * z.shape[0]),
                 polymorphic_shapes=(None, None, None, "n"))
    for n in (2, 0, 2):
        with np.errstate(invalid="ignore"):
            want = ((a @ b) * n, (c @ b) * n)
        for got, ref in zip(f(a, b, c, np.ones(n)), want):
            np.testing.assert_array_equal(np.isnan(np.asarray(got)), np.isnan(ref))
            _check(np.nan_to_num(np.asarray(got)), np.nan_to_num(ref))


@pytest.mark.parametrize("name, f, scale", [
    # constant factors, each finite, whose product is 0 or inf in float32: BLAS would get
    # alpha 0 (zeros, was 0.0 for 4e-20) or inf (inf and NaN, was inf for 4e20)
    ("operands_underflow", lambda x, y: (x * 1e-30) @ (y * 1e-30), 1e20),
    ("operands_overflow", lambda x, y: (x * 1e30) @ (y * 1e30), 1e-20),
    ("epilogue_overflow", lambda x, y: ((x * 1e25) @ y) * 1e25, 1e-15),
])
def test_constant_alpha_past_the_dtype_is_not_folded(name, f, scale):
    x = np.abs(f32(4, 8)) * np.float32(scale)
    y = np.abs(f32(8, 4)) * np.float32(scale)
    want = f(_np(x), _np(y))
    assert np.all(np.isfinite(want)) and np.all(want != 0)
    _check(tjit.jit(f)(x, y), want, rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_size_factor_of_zero_keeps_the_products_nans(x64, dtype):
    # alpha = n = 0: BLAS would skip the product (0 where NumPy gives NaN * 0 = NaN);
    # float64's "least usable alpha" is 0.0 itself (half its least subnormal rounds to 0)
    a = f32(4, 5).astype(dtype)
    a[0, 0] = np.nan
    b = f32(5, 3).astype(dtype)
    f = tjit.jit(lambda a, b, x: (a @ b) * x.shape[0], polymorphic_shapes=(None, None, "n"))
    for n in (0, 2):
        with np.errstate(invalid="ignore"):
            want = (_np(a) @ _np(b)) * n
        got = np.asarray(f(a, b, np.ones(n, dtype)))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        _check(np.nan_to_num(got), np.nan_to_num(want))
