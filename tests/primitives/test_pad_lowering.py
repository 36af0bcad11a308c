"""``pad`` in compiled programs lowers to fusible ``take``s (``slicing._pad_lowering``):
no library step, so a scan whose body pads (the gradient of a slice) runs natively.
Results are checked against a NumPy float64 reference written as a loop over the
operand's positions, and against the reference interpreter."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import native_loop
from tjit.xla_like.plan import ControlStep, LibraryStep


def np_pad(x, pv, config):
    """XLA's pad in float64 by its definition: operand element ``i`` lands at
    ``lo + i * (interior + 1)`` per dim; positions outside the result are dropped."""
    x = np.asarray(x, np.float64)
    out_shape = [lo + hi + n + max(n - 1, 0) * it for n, (lo, hi, it) in zip(x.shape, config)]
    out = np.full(out_shape, float(pv))
    for idx in np.ndindex(*x.shape):
        at = tuple(lo + i * (it + 1) for i, (lo, _, it) in zip(idx, config))
        if all(0 <= a < n for a, n in zip(at, out_shape)):
            out[at] = x[idx]
    return out


def library_steps(prog):
    """Names of the library steps of ``prog`` and of its bodies."""
    out = []
    for s in prog.steps:
        if isinstance(s, ControlStep):
            for b in s.bodies:
                out += library_steps(b)
        elif isinstance(s, LibraryStep):
            out.append(s.name)
    return out


def program_of(f, *args):
    return tjit.jit(f).lower(*args).compile().executable.program


CONFIGS = [
    ((0, 0, 0), (2, 3, 0)),            # one axis, both sides
    ((1, 0, 0), (0, 0, 0)),            # the leading axis only
    ((0, 0, 0), (-2, 1, 0)),           # a crop and a pad
    ((0, 0, 0), (1, -3, 2)),           # interior padding, cropped at the end
    ((2, 1, 1), (0, 2, 0)),            # two padded axes, one with interior padding
    ((-1, -1, 0), (0, 0, 0)),          # crop only
]


@pytest.mark.parametrize("config", CONFIGS)
def test_constant_padding_value(config):
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    f = lambda x: lax.pad(x, np.float32(-1.5), config)
    assert library_steps(program_of(f, x)) == []
    got = np.asarray(tjit.jit(f)(x))
    np.testing.assert_array_equal(got, np_pad(x, -1.5, config).astype(np.float32))
    np.testing.assert_array_equal(got, np.asarray(tjit.jit(f, backend="interpreter")(x)))


@pytest.mark.parametrize("config", [((0, 0, 0), (2, 3, 0)), ((1, 2, 1), (0, 0, 0)),
                                    ((0, 1, 0), (-1, 2, 3))])
def test_traced_padding_value(config):
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    pv = np.float32(7.25)
    f = lambda x, pv: lax.pad(x, pv, config)
    assert library_steps(program_of(f, x, pv)) == []
    np.testing.assert_array_equal(np.asarray(tjit.jit(f)(x, pv)),
                                  np_pad(x, pv, config).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.uint8])
def test_dtypes(dtype):
    x = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    pv = np.asarray(1, dtype)
    config = ((1, 0, 1), (0, 2, 0))
    f = lambda x: lax.pad(x, pv, config)
    got = np.asarray(tjit.jit(f)(x))
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np_pad(x, pv, config).astype(dtype))


def test_pad_fuses_with_its_consumer():
    """pad then add: one kernel reads the operand through the take, none writes the
    padded array on its own."""
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    y = np.ones((2, 7), np.float32)
    f = lambda x, y: lax.pad(x, np.float32(0), ((0, 0, 0), (1, 2, 0))) * 2 + y
    prog = program_of(f, x, y)
    assert library_steps(prog) == [] and len(prog.kernels) == 1
    np.testing.assert_array_equal(np.asarray(tjit.jit(f)(x, y)),
                                  np_pad(x, 0, ((0, 0, 0), (1, 2, 0))) * 2 + y)


def test_scan_over_slice_gradient_runs_natively(monkeypatch):
    """A recurrence that slices its gates (a GRU cell): its gradient's scan body holds
    pads of the gates' cotangents; they compile, so both scans run natively, with
    the interpreter's results."""
    built = []
    real = native_loop.NativeLoop.build.__func__

    def record(cls, step, runners, env):
        loop = real(cls, step, runners, env)
        built.append(loop is not None)
        return loop
    monkeypatch.setattr(native_loop.NativeLoop, "build", classmethod(record))
    rng = np.random.default_rng(2)
    hid = 8
    w = (rng.standard_normal((hid, 3 * hid)) / 3).astype(np.float32)
    xs = rng.standard_normal((5, 2, 3 * hid)).astype(np.float32)

    def loss(w, xs):
        def step(h, x):
            g = h @ w + x
            z = jax_sigmoid(g[:, :hid])
            n = jnp.tanh(g[:, hid:2 * hid] * g[:, 2 * hid:])
            h = (1 - z) * n + z * h
            return h, jnp.sum(h * h)
        h, ys = lax.scan(step, jnp.zeros((2, hid)), xs)
        return jnp.sum(h) + jnp.sum(ys)

    g = tjit.grad(loss)
    assert library_steps(program_of(g, w, xs)) == []
    got = np.asarray(tjit.jit(g)(w, xs))
    assert built and all(built)
    want = np.asarray(tjit.jit(g, backend="interpreter")(w, xs))
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
    # against a central difference of the loss in float64 along a random direction
    u = rng.standard_normal(w.shape)
    eps = 1e-4
    fd = (loss_np(w + eps * u, xs, hid) - loss_np(w - eps * u, xs, hid)) / (2 * eps)
    np.testing.assert_allclose(np.sum(got * u), fd, rtol=1e-4)


def jax_sigmoid(x):
    return 1 / (1 + jnp.exp(-x))


def loss_np(w, xs, hid):
    w, h, total = np.asarray(w, np.float64), np.zeros((xs.shape[1], hid)), 0.0
    for x in np.asarray(xs, np.float64):
        g = h @ w + x
        z = 1 / (1 + np.exp(-g[:, :hid]))
        n = np.tanh(g[:, hid:2 * hid] * g[:, 2 * hid:])
        h = (1 - z) * n + z * h
        total += np.sum(h * h)
    return np.sum(h) + total
