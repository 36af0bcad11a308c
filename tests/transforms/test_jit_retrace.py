"""Transformations of a jitted function trace it once per signature, not once per call
(a training loop's ``g = grad(jit(loss)); g(params)``), as JAX's pjit caches its trace.

The count of traces is a Python side effect inside the function. Oracles: NumPy in
float64 (closed forms), central differences, a Python loop for vmap.
"""

import gc
import weakref

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

X = np.float32([0.5, -1.25, 2.0, 0.75])


def counted(body):
    """``(f, count)``: ``f`` runs ``body`` and adds one to ``count[0]`` per trace."""
    count = [0]

    def f(*args):
        count[0] += 1
        return body(*args)
    return f, count


def loss_body(x):
    return jnp.sum(jnp.tanh(x) ** 2 + jnp.sin(x) * x)


def loss_grad64(x):
    x = np.asarray(x, np.float64)
    t = np.tanh(x)
    return 2 * t * (1 - t ** 2) + np.cos(x) * x + np.sin(x)


def fd_grad(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    out = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        out.append((f(x + e) - f(x - e)) / (2 * eps))
    return np.array(out)


def loss64(x):
    return np.sum(np.tanh(x) ** 2 + np.sin(x) * x)


@pytest.mark.parametrize("make", [
    lambda f: tjit.grad(tjit.jit(f)),
    lambda f: lambda x: tjit.value_and_grad(tjit.jit(f))(x)[1],
    lambda f: lambda x: tjit.grad(tjit.jit(f))(x),     # jit and grad applied anew per call
    lambda f: tjit.jit(lambda x: tjit.grad(tjit.jit(f))(x)),
    lambda f: tjit.vmap(tjit.grad(tjit.jit(f)), in_axes=None, axis_size=1),
], ids=["grad", "value_and_grad", "grad_rebuilt", "jit_of_grad", "under_vmap"])
def test_grad_of_jit_traces_once_per_signature(make):
    f, count = counted(loss_body)
    g = make(f)
    for k in range(4):
        got = np.asarray(g(jnp.asarray(X * (1 + k))))
        got = got[0] if got.ndim == 2 else got
        np.testing.assert_allclose(got, loss_grad64(X * (1 + k)), rtol=2e-5, atol=1e-6)
    assert count[0] == 1
    np.testing.assert_allclose(np.asarray(g(jnp.asarray(X[:3]))).reshape(-1),
                               loss_grad64(X[:3]), rtol=2e-5, atol=1e-6)   # a new shape
    assert count[0] == 2
    np.testing.assert_allclose(np.asarray(g(jnp.asarray(X, jnp.float16))).reshape(-1),
                               loss_grad64(X), rtol=2e-2, atol=1e-2)       # a new dtype
    assert count[0] == 3
    np.testing.assert_allclose(fd_grad(loss64, X), loss_grad64(X), rtol=1e-5)


def test_value_and_grad_of_jit_matches_float64():
    f, count = counted(loss_body)
    vg = tjit.value_and_grad(tjit.jit(f))
    for _ in range(3):
        v, g = vg(jnp.asarray(X))
    assert float(v) == pytest.approx(loss64(X.astype(np.float64)), rel=1e-6)
    np.testing.assert_allclose(np.asarray(g), loss_grad64(X), rtol=2e-5, atol=1e-6)
    assert count[0] == 1


def test_vmap_of_jit_traces_once_and_matches_a_loop():
    f, count = counted(lambda x, w: jnp.tanh(x @ w) * 2.0 + jnp.sum(x))
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((5, 3)).astype(np.float32)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    vf = tjit.vmap(tjit.jit(f), in_axes=(0, None))
    want = np.stack([np.tanh(x.astype(np.float64) @ w) * 2.0 + x.sum() for x in xs])
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(vf(jnp.asarray(xs), jnp.asarray(w))), want,
                                   rtol=1e-5, atol=1e-5)
    assert count[0] == 1
    vf(jnp.asarray(xs[:4]), jnp.asarray(w))   # another batch size, same per-row trace
    assert count[0] == 1
    vf(jnp.asarray(xs[:, :2]), jnp.asarray(w[:2]))   # rows of another shape
    assert count[0] == 2
    # an enclosing vmap's own trace (not eager) reuses the function's trace too
    ww = tjit.vmap(lambda x: tjit.vmap(tjit.jit(f), in_axes=(0, None))(x, jnp.asarray(w)))
    for _ in range(2):
        got = np.asarray(ww(jnp.asarray(np.stack([xs, xs]))))
        np.testing.assert_allclose(got, np.stack([want, want]), rtol=1e-5, atol=1e-5)
    assert count[0] == 2


def test_jvp_jacrev_hessian_of_jit_trace_once():
    f, count = counted(loss_body)
    jf = tjit.jit(f)
    x, t = jnp.asarray(X), np.float32([1.0, -0.5, 0.25, 2.0])
    for _ in range(3):
        y, ty = tjit.jvp(jf, (x,), (t,))
        h = tjit.hessian(jf)(x)
        jr = tjit.jacrev(tjit.jit(lambda v: jnp.tanh(v) * v))(x)
    assert float(y) == pytest.approx(loss64(X.astype(np.float64)), rel=1e-6)
    assert float(ty) == pytest.approx(float(loss_grad64(X) @ t), rel=1e-5)
    hess = np.array([fd_grad(lambda v, i=i: loss_grad64(v)[i], X) for i in range(X.size)])
    np.testing.assert_allclose(np.asarray(h), hess, rtol=1e-4, atol=1e-4)
    x64 = X.astype(np.float64)
    np.testing.assert_allclose(np.asarray(jr), np.diag(np.tanh(x64) + x64 * (
        1 - np.tanh(x64) ** 2)), rtol=1e-5, atol=1e-6)
    assert count[0] == 1    # jvp and hessian share jit(f)'s one trace


def test_grad_of_grad_of_jit_reuses_the_trace_under_the_outer_transformation():
    f, count = counted(lambda x: jnp.sum(jnp.sin(x) ** 3))
    jf = tjit.jit(f)
    gg = tjit.grad(lambda s: tjit.grad(lambda u: jf(u * jnp.ones(3, jnp.float32)))(s))
    for s in (0.3, 0.7, -1.1):
        # d2/ds2 of 3 sin(s)^3 = 3 (6 sin cos^2 - 3 sin^3)
        want = 3 * (6 * np.sin(s) * np.cos(s) ** 2 - 3 * np.sin(s) ** 3)
        assert float(gg(s)) == pytest.approx(want, rel=1e-4)
    assert count[0] == 1


def test_nested_jit_traced_by_an_enclosing_jit_once():
    f, count = counted(lambda x: jnp.exp(x) * 2.0)
    g = tjit.jit(f)
    x = jnp.asarray(X)
    for k in range(3):   # a new enclosing function per round: traced each time
        out = tjit.jit(lambda y, k=k: g(y) + float(k))(x)
        np.testing.assert_allclose(np.asarray(out), np.exp(X.astype(np.float64)) * 2 + k,
                                   rtol=1e-6)
    assert count[0] == 1


def test_clear_caches_traces_again():
    f, count = counted(loss_body)
    g, vf = tjit.grad(tjit.jit(f)), tjit.vmap(tjit.jit(f))
    x = jnp.asarray(X)
    for _ in range(2):   # (both transform f at the same signature: one trace)
        np.testing.assert_allclose(np.asarray(g(x)), loss_grad64(X), rtol=2e-5, atol=1e-6)
        vf(jnp.stack([x, x]))
    assert count[0] == 1
    tjit.clear_caches()
    g(x)
    assert count[0] == 2
    vf(jnp.stack([x, x]))
    g(x)
    assert count[0] == 2


def test_closed_over_python_values_are_baked_in_per_signature_as_jit():
    scale = [2.0]
    f, count = counted(lambda x: jnp.sum(x * x) * scale[0])
    jf = tjit.jit(f)
    g = tjit.grad(jf)
    x = jnp.asarray(X)
    np.testing.assert_allclose(np.asarray(g(x)), 4 * X, rtol=1e-6)
    scale[0] = 3.0   # as jit(f)(x): the trace of this signature is kept (JAX's semantics)
    np.testing.assert_allclose(np.asarray(g(x)), 4 * X, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tjit.vmap(jf)(jnp.stack([x, x]))),
                               2 * np.stack([X @ X, X @ X]), rtol=1e-6)
    assert count[0] == 1
    tjit.clear_caches()
    np.testing.assert_allclose(np.asarray(g(x)), 6 * X, rtol=1e-6)


def test_a_jitted_function_closing_over_a_traced_value_is_traced_per_call():
    box = {}

    @tjit.jit
    def scaled(x):
        return x * box["y"]

    def outer(y):
        box["y"] = y    # a tracer of grad's trace: the inner trace is valid for this call
        return jnp.sum(scaled(jnp.ones(3, jnp.float32))) * y

    for y in (2.0, 5.0):   # d/dy 3 y^2 = 6 y
        v, g = tjit.value_and_grad(outer)(y)
        assert (float(v), float(g)) == pytest.approx((3 * y * y, 6 * y), rel=1e-6)


def test_weak_types_and_x64_are_part_of_the_signature():
    f, count = counted(lambda x: x * x * 3.0)
    g = tjit.grad(tjit.jit(f))
    weak = g(1.5)
    assert weak.dtype == np.float32 and weak.weak_type and float(weak) == 9.0
    strong = g(np.float32(1.5))
    assert strong.dtype == np.float32 and not strong.weak_type and float(strong) == 9.0
    assert count[0] == 2
    g(np.float32(2.5))
    assert count[0] == 2
    with tjit.enable_x64(True):
        wide = g(np.float64(1.5))
        assert wide.dtype == np.float64 and float(wide) == 9.0
    assert count[0] == 3


def test_float0_tangents_through_jvp_of_jit():
    f, count = counted(lambda x, n: (x * n, n * 2))
    jf = tjit.jit(f)
    x, n = jnp.asarray(X), jnp.asarray(np.int32([1, 2, 3, 4]))
    t = np.float32([1.0, 1.0, 0.5, 0.0])
    for _ in range(3):
        (y, m), (ty, tm) = tjit.jvp(jf, (x, n), (t, np.zeros(4, tjit.dtypes.float0)))
    np.testing.assert_allclose(np.asarray(ty), t * np.float32([1, 2, 3, 4]))
    np.testing.assert_allclose(np.asarray(y), X * np.float32([1, 2, 3, 4]))
    assert tm.dtype == tjit.dtypes.float0 and tm.shape == (4,)
    np.testing.assert_array_equal(np.asarray(m), [2, 4, 6, 8])
    assert count[0] == 1
    gi = tjit.grad(tjit.jit(lambda x, n: jnp.sum(x * n)), argnums=(0, 1), allow_int=True)
    gx, gn = gi(x, n)
    np.testing.assert_allclose(np.asarray(gx), [1, 2, 3, 4])
    assert gn.dtype == tjit.dtypes.float0 and gn.shape == (4,)


def test_disable_jit_runs_the_function_each_call():
    f, count = counted(loss_body)
    g = tjit.grad(tjit.jit(f))
    with tjit.disable_jit():
        for _ in range(2):
            np.testing.assert_allclose(np.asarray(g(jnp.asarray(X))), loss_grad64(X),
                                       rtol=2e-5, atol=1e-6)
    assert count[0] == 2


def test_errors_still_name_the_transformation():
    g = tjit.grad(tjit.jit(lambda x: x * 2.0))
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output"):
        g(jnp.asarray(X))
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
        g(jnp.asarray(np.int32([1, 2])))


def test_the_kept_transformations_do_not_keep_the_function_alive():
    def make():
        def loss(x):
            return jnp.sum(x * x)
        return loss
    loss = make()
    ref = weakref.ref(loss)
    jl = tjit.jit(loss)
    tjit.grad(jl)(jnp.asarray(X))
    tjit.vmap(jl)(jnp.asarray(np.stack([X, X])))
    tjit.grad(tjit.grad(lambda s, f=jl: f(s * jnp.ones(2, jnp.float32))))(1.0)
    del loss, jl
    gc.collect()
    assert ref() is None


def test_jit_of_a_bound_method_outlives_the_first_wrapper():
    class Model:
        def __init__(self):
            self.scale = 3.0

        def loss(self, x):
            return jnp.sum(x * x) * self.scale
    m = Model()
    first = tjit.jit(m.loss)
    tjit.grad(first)(jnp.asarray(X))
    second = tjit.jit(m.loss)   # an equal bound method: the caches of the first jit
    del first
    gc.collect()
    np.testing.assert_allclose(np.asarray(tjit.grad(second)(jnp.asarray(X[:3]))),
                               6 * X[:3], rtol=1e-6)   # (a new shape: traced again)


def test_a_jitted_function_inside_an_eager_grad_runs_its_primal_half_compiled():
    # (grad of a function that calls jit(f): f's outputs and residuals come from one
    # program per signature and perturbed inputs; its tangents from the recorded jaxpr)
    f, count = counted(lambda w, x, n: (jnp.sum(jnp.tanh(x @ w) ** 2), n * 2,
                                        jnp.tanh(x @ w)))
    jf = tjit.jit(f)
    rng = np.random.default_rng(1)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    n = jnp.asarray(np.int32([1, 2]))

    def loss(w, x):
        s, m, h = jf(w, x, n)
        return s * 3.0 + jnp.sum(h) + jnp.sum(m).astype(jnp.float32)

    def loss64(w, x):
        h = np.tanh(x.astype(np.float64) @ w.reshape(3, 2))
        return 3 * np.sum(h ** 2) + np.sum(h) + 6
    for argnums in (0, (0, 1)):
        g = tjit.value_and_grad(loss, argnums=argnums)
        for _ in range(3):
            v, gs = g(jnp.asarray(w), jnp.asarray(x))
        assert float(v) == pytest.approx(loss64(w, x), rel=1e-5)
        gw = gs if argnums == 0 else gs[0]
        np.testing.assert_allclose(np.asarray(gw).ravel(), fd_grad(
            lambda v: loss64(v, x), w.ravel()), rtol=1e-3, atol=1e-4)
        if argnums != 0:
            np.testing.assert_allclose(np.asarray(gs[1]).ravel(), fd_grad(
                lambda v: loss64(w, v.reshape(4, 3)), x.ravel()), rtol=1e-3, atol=1e-4)
    assert count[0] == 1
    assert len(jf._eager_calls) == 2   # (one program per perturbed inputs: w; w and x)
    # a vjp function of it is called again, and batched by jacrev
    out, pullback = tjit.vjp(lambda w: jf(w, jnp.asarray(x), n)[2], jnp.asarray(w))
    (ct,) = pullback(jnp.ones((4, 2), jnp.float32))
    (ct2,) = pullback(jnp.ones((4, 2), jnp.float32) * 2)
    np.testing.assert_allclose(np.asarray(out), np.tanh(x.astype(np.float64) @ w), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(ct2), 2 * np.asarray(ct), rtol=1e-6)
    for _ in range(2):   # (the second batches the kept linear call's pair again)
        jac = tjit.jacrev(lambda w: jf(w, jnp.asarray(x), n)[2])(jnp.asarray(w))
        np.testing.assert_allclose(np.asarray(jac).sum(axis=(0, 1)), np.asarray(ct),
                                   rtol=1e-5)
    assert count[0] == 1


def test_a_jitted_function_inside_an_eager_vmap_runs_batched_and_compiled():
    from tjit import lax
    f, count = counted(lambda x, w, n: (jnp.tanh(x @ w) - lax.psum(x, "i")[0],
                                        w.sum() * 2.0, n + 1))
    jf = tjit.jit(f)
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((3, 5)).astype(np.float32)   # mapped along axis 1
    w = rng.standard_normal((3, 2)).astype(np.float32)
    n = jnp.asarray(np.int32(4))
    vf = tjit.vmap(lambda x: jf(x, jnp.asarray(w), n), in_axes=1, axis_name="i")
    for _ in range(3):
        y, c, m = vf(jnp.asarray(xs))
    x64 = xs.astype(np.float64)
    total = x64.sum(axis=1)
    want = np.stack([np.tanh(x64[:, k] @ w) - total[0] for k in range(5)])
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(c), np.full(5, 2 * w.astype(np.float64).sum()),
                               rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(m), np.full(5, 5))
    assert count[0] == 1
    assert len(jf._eager_calls) == 1
