"""pmap over N CPU devices (threads, one compiled program, collectives as plan steps)
against the vmap(axis_name) oracle and NumPy; its options, errors, composition with
grad and jit, the communicators and ``TJIT_NUM_CPU_DEVICES``."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.parallel.cases import CASES, SHAPE, N
from tjit import lax
from tjit.devices.backend import cpu_device_count
from tjit.devices.collectives import CollectiveAborted, ThreadGroup
from tjit.parallel import compile_spmd


@pytest.fixture
def devices():
    with cpu_device_count(N):
        yield tjit.devices()


def _inputs(seed=0):
    return np.random.default_rng(seed).standard_normal((N,) + SHAPE).astype(np.float32)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_pmap_matches_vmap_and_numpy(case, devices):
    X = _inputs()
    got = tjit.pmap(case.fn, axis_name="i")(X)
    oracle = tjit.vmap(case.fn, axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(got), np.asarray(oracle), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(got), case.ref(X.astype(np.float64)),
                               rtol=1e-5, atol=1e-5)
    assert got.devices() == set(devices)


@pytest.mark.parametrize("name", ["psum", "all_gather_axis1", "psum_scatter",
                                  "all_to_all_tiled", "ppermute_partial", "axis_index"])
def test_pmap_on_reference_interpreter(name, devices):
    case = next(c for c in CASES if c.name == name)
    X = _inputs(1)
    got = tjit.pmap(case.fn, axis_name="i", backend="interpreter")(X)
    np.testing.assert_allclose(np.asarray(got), case.ref(X.astype(np.float64)),
                               rtol=1e-5, atol=1e-5)


def test_collectives_are_plan_steps():
    run = compile_spmd(lambda x: lax.psum(jnp.sin(x), "i") * 2.0 + lax.axis_index("i"),
                       {"i": 4}, (np.ones(3, np.float32),))
    steps = run.compiled.fusion_summary()
    assert ("library", "collective_psum") in steps
    assert ("library", "collective_axis_index") in steps
    with pytest.raises(NameError, match="unbound axis name: i"):
        run(np.ones(3, np.float32))     # no communicator bound in this thread


def test_pmap_options(devices):
    X = _inputs(2)                      # mapped along axis 1 below: shape (N, N, 6)
    f = tjit.pmap(lambda x, y, k: x * k + lax.psum(y, "i"), axis_name="i",
                  in_axes=(1, None, None), out_axes=1, static_broadcasted_argnums=2)
    y = np.float32(0.5)
    got = f(X, y, 3.0)
    np.testing.assert_allclose(np.asarray(got), X * 3.0 + N * 0.5, rtol=1e-6)
    assert f._cache_size() == 1
    f(X, y, 3.0)
    assert f._cache_size() == 1         # compiled once per signature
    f(X, y, 2.0)
    assert f._cache_size() == 2         # a new static value compiles again
    neg = tjit.pmap(lambda x: lax.psum(x, "i"), axis_name="i", in_axes=-1, out_axes=-1)
    Y = X[..., :N]
    np.testing.assert_allclose(np.asarray(neg(Y)), np.broadcast_to(
        Y.sum(-1, keepdims=True), Y.shape), rtol=1e-5, atol=1e-6)
    g = tjit.pmap(lambda x: lax.psum(x, "i"), axis_name="i", out_axes=None)(X)
    np.testing.assert_allclose(np.asarray(g), X.sum(0), rtol=1e-5)
    with pytest.raises(ValueError, match="out_axes=None.*differs across devices"):
        tjit.pmap(lambda x: x, out_axes=None)(X)


def test_pmap_uses_first_devices_and_checks_sizes(devices):
    X = _inputs(3)[:2]
    r = tjit.pmap(lambda x: lax.psum(x, "i"), axis_name="i")(X)
    assert r.devices() == set(devices[:2])
    with pytest.raises(ValueError, match="requires 5 logical devices.*4 devices"):
        tjit.pmap(lambda x: x)(np.ones((5, 2), np.float32))
    with pytest.raises(ValueError, match="mapped axis has size 2 but 4 devices"):
        tjit.pmap(lambda x: x, devices=devices)(X)
    with pytest.raises(tjit.ShapeError, match="different sizes"):
        tjit.pmap(lambda x, y: x + y)(np.ones((2, 3)), np.ones((3, 3)))


def test_pmap_of_grad_and_jit_of_grad_of_pmap(devices):
    rng = np.random.default_rng(4)
    Xb = rng.standard_normal((N, 5, 3)).astype(np.float32)   # a batch per device
    w = rng.standard_normal((3, 2)).astype(np.float32)

    def member_loss(w, xb):
        return lax.pmean(jnp.mean(jnp.tanh(xb @ w) ** 2), "i")

    def np_loss(w):                                           # the global loss, float64
        return np.mean(np.tanh(Xb.astype(np.float64) @ w) ** 2)

    eps = 1e-6
    want = np.zeros_like(w, dtype=np.float64)
    for k in np.ndindex(w.shape):
        e = np.zeros(w.shape)
        e[k] = eps
        want[k] = (np_loss(w + e) - np_loss(w - e)) / (2 * eps)

    def local_loss(w, xb):
        return jnp.mean(jnp.tanh(xb @ w) ** 2)

    # data parallelism as in JAX: each device's gradient, averaged over the devices
    step = tjit.pmap(lambda w, xb: lax.pmean(tjit.grad(local_loss)(w, xb), "i"),
                     axis_name="i", in_axes=(None, 0))
    grads = step(w, Xb)
    for r in range(N):          # every device ends with the same (global) gradient
        np.testing.assert_allclose(np.asarray(grads)[r], want, rtol=1e-4, atol=1e-5)
    # grad through a collective inside pmap (psum's transpose is psum): the vmap oracle
    got = tjit.pmap(tjit.grad(member_loss), axis_name="i", in_axes=(None, 0))(w, Xb)
    oracle = tjit.vmap(tjit.grad(member_loss), axis_name="i", in_axes=(None, 0))(w, Xb)
    np.testing.assert_allclose(np.asarray(got), np.asarray(oracle), rtol=1e-5, atol=1e-6)

    def loss(w):                # pmap inside a scalar loss: same value on every device
        return jnp.mean(tjit.pmap(member_loss, axis_name="i", in_axes=(None, 0))(w, Xb))
    np.testing.assert_allclose(float(loss(w)), np_loss(w), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(tjit.jit(tjit.grad(loss))(w)), want,
                               rtol=1e-4, atol=1e-5)


def test_thread_group_failure_and_mismatch_do_not_hang():
    group = ThreadGroup(2, "i")
    a, b = group.members()
    errors = {}

    def waiting():
        try:
            a.allreduce(np.ones(3), "sum")
        except CollectiveAborted as e:
            errors["a"] = e

    t = threading.Thread(target=waiting)
    t.start()
    group.abort()               # what pmap does when member b raises
    t.join(timeout=10)
    assert not t.is_alive() and "another member" in str(errors["a"])

    group = ThreadGroup(2, "i")
    a, b = group.members()
    out = {}

    def run(c, x, k):
        try:
            out[k] = c.allreduce(x, "sum")
        except ValueError as e:
            out[k] = e

    ts = [threading.Thread(target=run, args=(a, np.ones(3), "a")),
          threading.Thread(target=run, args=(b, np.ones(4), "b"))]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=10)
    assert all(isinstance(out[k], ValueError) and "disagree" in str(out[k]) for k in "ab")


def test_num_cpu_devices_environment_variable():
    code = ("import numpy as np, tjit; from tjit import lax; "
            "print(tjit.device_count(), tjit.local_device_count(), len(tjit.devices())); "
            "print(tjit.pmap(lambda x: lax.psum(x, 'i'), 'i')(np.arange(3.0)).tolist())")
    env = dict(os.environ, TJIT_NUM_CPU_DEVICES="3")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["3 3 3", "[3.0, 3.0, 3.0]"]
    env["TJIT_NUM_CPU_DEVICES"] = "zero"
    bad = subprocess.run([sys.executable, "-c", "import tjit; tjit.devices()"], env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert bad.returncode != 0 and "TJIT_NUM_CPU_DEVICES='zero'" in bad.stderr


def test_divergent_collectives_raise_instead_of_hanging(devices):
    X = np.arange(4.0, dtype=np.float32)
    loop = tjit.pmap(lambda x: lax.fori_loop(0, 2, lambda i, c: c + lax.psum(x, "i"), 0.0),
                     axis_name="i")(X)
    np.testing.assert_allclose(np.asarray(loop), np.full(4, 2 * X.sum()))
    # only the devices with x > 1 reach the psum: the others finish first
    with pytest.raises(RuntimeError, match="not run by every member"):
        tjit.pmap(lambda x: lax.cond(x > 1, lambda v: lax.psum(v, "i"), lambda v: v, x),
                  axis_name="i")(X)
    with pytest.raises(RuntimeError, match="differ across members"):
        tjit.pmap(lambda x: lax.cond(x > 1, lambda v: lax.psum(v, "i"),
                                     lambda v: lax.all_gather(v, "i")[0], x),
                  axis_name="i")(X)


def test_pmap_pytrees_and_keyword_arguments(devices):
    X = _inputs(8)
    out = tjit.pmap(lambda p, *, scale: {"s": lax.psum(p["a"] * scale, "i"),
                                         "i": lax.axis_index("i")},
                    axis_name="i")({"a": X}, scale=np.arange(N, dtype=np.float32))
    want = (X * np.arange(N, dtype=np.float32)[:, None, None]).sum(0)
    np.testing.assert_allclose(np.asarray(out["s"]), np.broadcast_to(want, X.shape),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(out["i"]), np.arange(N))


def test_compile_spmd_runs_with_communicators_bound_by_the_caller():
    # what a multi-process runtime does: one compiled program, its own communicator per
    # member (here two threads of one group), the axis bound around each call
    from tjit.devices.collectives import bind_axis
    run = compile_spmd(lambda x: (lax.pmean(x, "batch"), lax.all_gather(x, "batch")),
                       {"batch": 2}, (np.zeros(3, np.float32),))
    comms = ThreadGroup(2, "batch").members()
    xs = [np.arange(3, dtype=np.float32), np.full(3, 10, np.float32)]
    outs = [None, None]

    def member(r):
        with bind_axis("batch", comms[r]):
            outs[r] = run(xs[r])

    ts = [threading.Thread(target=member, args=(r,)) for r in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=30)
    for mean, gathered in outs:
        np.testing.assert_allclose(np.asarray(mean), (xs[0] + xs[1]) / 2)
        np.testing.assert_allclose(np.asarray(gathered), np.stack(xs))
