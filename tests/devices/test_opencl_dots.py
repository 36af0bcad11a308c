"""Dots and donation on the "opencl" backend (PoCL in CI), against the reference
interpreter and NumPy in float64.

Dots: OpenCL has no BLAS, so a float dot is a kernel (``lower/c/tiled_dot.py``: work-group
tiles in local memory); shapes around it in one jitted function (one PoCL build): ones,
odd sizes, empty operands and an empty contraction, matrix-vector, transposed operands,
float32 and float64 (tile sizes, batches and epilogues are checked bit for bit in
``tests/lower/c/test_tiled_dot.py``), and the SGD update ``w - lr * (x.T @ g)`` folded
into the dot's kernel.

Donation: a donated argument's device buffer becomes the output's (the same
``cl.Buffer``), its host array the result's; the results are those of the call without
donation; the donated Array is deleted, as in JAX, and an argument that cannot be given
up is left intact.
"""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import opencl_context
from tjit.xla_like.compile import compile_program
from tjit.xla_like.target import opencl_target

REASON = opencl_context.unavailable_reason()
pytestmark = [pytest.mark.opencl,
              pytest.mark.skipif(REASON is not None, reason=f"no usable OpenCL: {REASON}")]


def _dots(a, b, e, v, bt, z0, z1, z2):
    return (a @ b,                  # odd (33, 17) @ (17, 65): tiled
            a[:1] @ b,              # one row (a vector-matrix product: a row kernel)
            a @ b[:, :1],           # one column
            a[:1, :1] @ b[:1, :1],  # 1 x 1
            a @ v,                  # matrix-vector
            a.T[:, :33] @ e,        # a transposed operand: (17, 33) @ (33, 9)
            a @ bt.T,               # (33, 17) @ (17, 65) with b given transposed
            z0 @ b,                 # (0, 17) @ (17, 65): empty
            z1 @ z2)                # (5, 0) @ (0, 4): empty contraction -> zeros


def _dots_np(a, b, e, v, bt, z0, z1, z2):
    return (a @ b, a[:1] @ b, a @ b[:, :1], a[:1, :1] @ b[:1, :1], a @ v,
            a.T[:, :33] @ e, a @ bt.T, z0 @ b, z1 @ z2)


def _operands(dtype, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(33, 17), (17, 65), (33, 9), (17,), (65, 17), (0, 17), (5, 0), (0, 4)]
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _dots64(a, b, e, v, bt, z0, z1, z2):
    return a @ b, a.T[:, :33] @ e, z1 @ z2


def _dots64_np(a, b, e, v, bt, z0, z1, z2):
    return a @ b, a.T[:, :33] @ e, z1 @ z2


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dot_shapes_against_interpreter_and_numpy(dtype, request):
    """The shapes around the tiled kernels (tile sizes, batches and epilogues are
    ``tests/lower/c/test_tiled_dot.py``'s) through jit; float64 on a few (each dot
    kernel costs PoCL a second or two to build)."""
    fn, np_fn = _dots, _dots_np
    if dtype == "float64":
        request.getfixturevalue("x64")
        fn, np_fn = _dots64, _dots64_np
    args = _operands(dtype)
    f = tjit.jit(fn, backend="opencl")
    got = f(*args)
    want = tjit.jit(fn, backend="interpreter")(*args)
    ref = np_fn(*[x.astype(np.float64) for x in args])
    tol = 2e-5 if dtype == "float32" else 1e-12
    for n, (g, w, r) in enumerate(zip(got, want, ref)):
        g = np.asarray(g)
        assert g.dtype == dtype and g.shape == r.shape, (n, g.dtype, g.shape, r.shape)
        np.testing.assert_allclose(g, np.asarray(w), rtol=tol, atol=tol, err_msg=f"dot {n}")
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol, err_msg=f"dot {n}")
    src = f.lower(*args).compile().as_text(source=True)
    assert src.count("__local float" if dtype == "float32" else "__local double") >= 4


def _sgd(w, x, g):
    return w - 0.1 * (x.T @ g)


def test_sgd_update_folds_into_the_dot_kernel():
    """``w - lr * (x.T @ g)`` is one kernel (no product written and read back), and the
    weight gradient of a jitted training step comes out in the weight's layout, so the
    update folds there too."""
    rng = np.random.default_rng(1)
    w, x, g = (rng.standard_normal(s).astype(np.float32) for s in [(40, 24), (16, 40),
                                                                     (16, 24)])
    c = tjit.jit(_sgd, backend="opencl").lower(w, x, g).compile()
    assert [k for k, _ in c.fusion_summary()] == ["kernel"]
    np.testing.assert_allclose(np.asarray(c(w, x, g)), w - 0.1 * (x.T.astype(np.float64) @ g),
                               rtol=1e-5, atol=1e-5)

    def loss(p, x, y):
        return jnp.mean((jnp.tanh(x @ p[0]) @ p[1] - y) ** 2)

    def step(p, x, y):
        return [a - 0.1 * b for a, b in zip(p, tjit.grad(loss)(p, x, y))]

    p = [rng.standard_normal((16, 32)).astype(np.float32) * 0.3,
         rng.standard_normal((32, 4)).astype(np.float32) * 0.3]
    xb = rng.standard_normal((8, 16)).astype(np.float32)
    yb = rng.standard_normal((8, 4)).astype(np.float32)
    prog = compile_program(tjit.jit(step).lower(p, xb, yb).jaxpr, opencl_target())
    writers = [s for s in prog.steps if set(s.outs) & set(prog.outputs)]
    assert len(writers) == 2 and all(s.kernel.reduce_axes for s in writers), prog.text()


# ----------------------------------------------------------------------------------------
# Donation.

class _Spy:
    """Records the DevArrays the device uploads (``put``) and downloads (``fetch``)."""

    def __init__(self, monkeypatch):
        dev = opencl_context.get()
        self.puts, self.fetches = [], []
        put, fetch = dev.put, dev.fetch

        def spy_put(host):
            a = put(host)
            self.puts.append(a)
            return a

        def spy_fetch(a, into=None):
            self.fetches.append(a)
            return fetch(a, into)
        monkeypatch.setattr(dev, "put", spy_put)
        monkeypatch.setattr(dev, "fetch", spy_fetch)


def _sgd_args(seed=2):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in [(40, 24), (16, 40), (16, 24)]]


def test_donated_buffer_holds_the_output(monkeypatch):
    w0, x, g = _sgd_args()
    want = np.asarray(tjit.jit(_sgd, backend="opencl")(jnp.asarray(w0), x, g))
    f = tjit.jit(_sgd, backend="opencl", donate_argnums=0)
    f(jnp.asarray(w0), x, g)      # (built and warmed: the spy sees one call)
    w = jnp.asarray(w0)
    host_id = id(w._value)
    spy = _Spy(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # the donation is usable: no warning
        out = f(w, x, g)
    uploaded = [a for a in spy.puts if a.shape == w0.shape]
    (fetched,) = spy.fetches
    assert len(uploaded) == 1 and fetched.buf is uploaded[0].buf    # the same cl buffer
    assert id(out._value) == host_id        # downloaded into the donated host array
    assert w.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        w + 1
    np.testing.assert_array_equal(np.asarray(out), want)    # as without donation


def test_argument_not_given_up_is_intact(monkeypatch):
    """An Array with another reference to its buffer, and a NumPy array (tjit never
    writes into those: a warning says so), keep their values; the results are equal."""
    w0, x, g = _sgd_args(3)
    f = tjit.jit(_sgd, backend="opencl", donate_argnums=0)
    want = np.asarray(tjit.jit(_sgd, backend="opencl")(w0, x, g))
    w = jnp.asarray(w0.copy())
    view = np.asarray(w)        # a second reference: the buffer is not given up
    spy = _Spy(monkeypatch)
    out = f(w, x, g)
    np.testing.assert_array_equal(np.asarray(out), want)
    np.testing.assert_array_equal(view, w0)
    assert all(a.buf is not b.buf for a in spy.fetches for b in spy.puts if b.buf is not None)
    w_np = w0.copy()
    with pytest.warns(UserWarning, match="NumPy array"):
        out = f(w_np, x, g)
    np.testing.assert_array_equal(np.asarray(out), want)
    np.testing.assert_array_equal(w_np, w0)


def test_training_loop_with_donated_parameters():
    """Several SGD steps with every parameter donated match the steps without donation
    bit for bit; each step's old parameters are deleted."""
    rng = np.random.default_rng(4)

    def loss(p, x, y):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    def step(p, x, y):
        g = tjit.grad(loss)(p, x, y)
        return {k: p[k] - 0.05 * g[k] for k in p}

    p0 = {"w": rng.standard_normal((12, 3)).astype(np.float32) * 0.3,
          "b": np.zeros(3, np.float32)}
    x = rng.standard_normal((10, 12)).astype(np.float32)
    y = rng.standard_normal((10, 3)).astype(np.float32)
    plain = tjit.jit(step, backend="opencl")
    donating = tjit.jit(step, backend="opencl", donate_argnums=0)
    pa = {k: jnp.asarray(v) for k, v in p0.items()}
    pb = {k: jnp.asarray(v) for k, v in p0.items()}
    for _ in range(3):
        old = pb
        pa, pb = plain(pa, x, y), donating(pb, x, y)
        assert all(v.is_deleted() for v in old.values())
    for k in p0:
        np.testing.assert_array_equal(np.asarray(pb[k]), np.asarray(pa[k]), err_msg=k)
    ref = {k: jnp.asarray(v) for k, v in p0.items()}
    for _ in range(3):
        ref = tjit.jit(step, backend="interpreter")(ref, x, y)
    for k in p0:
        np.testing.assert_allclose(np.asarray(pb[k]), np.asarray(ref[k]), rtol=1e-5,
                                   atol=1e-6, err_msg=k)


def test_loop_carries_update_their_own_buffers(monkeypatch):
    """A while loop's carries, and a scan's, are updated in the buffer the previous trip
    wrote (no device copy per trip); a donated argument handed to the loop as its first
    carry is deleted without a warning; results as the interpreter's."""
    from tjit import lax
    dev = opencl_context.get()
    copies = []
    copy = dev.copy
    monkeypatch.setattr(dev, "copy", lambda *a, **k: copies.append(a[2]) or copy(*a, **k))

    def halve(x, n):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 0.5 + 1.0),
                              (0, x))[1]

    def smooth(x, xs):
        return lax.scan(lambda c, r: (c * 0.9 + r, jnp.sum(c)), x, xs)

    rng = np.random.default_rng(6)
    x = rng.standard_normal(1000).astype(np.float32)
    xs = rng.standard_normal((12, 1000)).astype(np.float32)
    for fn, rest in ((halve, (25,)), (smooth, (xs,))):
        want = tjit.jit(fn, backend="interpreter")(x, *rest)
        f = tjit.jit(fn, backend="opencl")
        f(x, *rest)
        copies.clear()
        got = f(x, *rest)
        # at most the first trip copies the caller's carry (scan rows: 4 KB each, counted
        # apart: they are the xs slices)
        assert sum(n == x.nbytes for n in copies) <= 1 + (len(xs) if fn is smooth else 0)
        d = tjit.jit(fn, backend="opencl", donate_argnums=0)
        xa = jnp.asarray(x.copy())
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got_d = d(xa, *rest)
        assert xa.is_deleted()
        for g, gd, w in zip(*(tjit.tree_util.tree_leaves(t) for t in (got, got_d, want))):
            np.testing.assert_array_equal(np.asarray(gd), np.asarray(g))
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)
