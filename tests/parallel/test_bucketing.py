"""psum/pmax/pmin of a pytree issue one collective per dtype (the leaves of a dtype
flattened into one operand), and pmean divides by the static axis size (no collective
to count the members); values against NumPy and the vmap oracle, gradients against
finite differences."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.devices.backend import cpu_device_count
from tjit.tracing.axis_env import extend_axis_env

N = 4


def _tree(seed=0):
    rng = np.random.default_rng(seed)
    return {"w": rng.standard_normal((N, 3, 2)).astype(np.float32),
            "b": rng.standard_normal((N, 2)).astype(np.float32),
            "s": rng.standard_normal((N,)).astype(np.float32),
            "k": rng.integers(-5, 5, (N, 3)).astype(np.int32)}


def _collective_eqns(fn, member):
    with extend_axis_env("i", N):
        jaxpr = tjit.make_jaxpr(fn)(member)
    return [e.primitive.name for e in jaxpr.jaxpr.eqns if e.primitive.name in
            ("psum", "pmax", "pmin", "all_gather")]


@pytest.mark.parametrize("name,ref", [("psum", np.sum), ("pmax", np.max),
                                      ("pmin", np.min), ("pmean", np.mean)])
def test_one_collective_per_dtype_and_values(name, ref):
    X = _tree()
    fn = lambda t: getattr(lax, name)(t, "i")   # noqa: E731
    member = {k: v[0] for k, v in X.items()}
    # float32 leaves share one collective, int32 has its own; pmean adds none
    assert _collective_eqns(fn, member) == ["psum" if name == "pmean" else name] * 2
    with cpu_device_count(N):
        got = tjit.pmap(fn, axis_name="i")(X)
    oracle = tjit.vmap(fn, axis_name="i")(X)
    for k, v in X.items():
        want = ref(v.astype(np.float64), axis=0)
        for out in (got[k], oracle[k]):
            out = np.asarray(out)
            assert out.shape == v.shape
            np.testing.assert_allclose(out, np.broadcast_to(want, v.shape), rtol=1e-6,
                                       atol=1e-6, err_msg=f"{name} {k}")
        assert np.asarray(got[k]).dtype == np.asarray(oracle[k]).dtype


def test_pmean_of_a_scalar_and_the_dtype_it_gives():
    x = np.arange(N, dtype=np.int32)
    assert _collective_eqns(lambda v: lax.pmean(v, "i"), x[0]) == ["psum"]
    got = tjit.vmap(lambda v: lax.pmean(v, "i"), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(got), np.full(N, x.mean()))


def test_gradient_of_bucketed_psum_against_finite_differences():
    X = _tree(1)
    C = {k: np.random.default_rng(2).standard_normal(v.shape) for k, v in X.items()
         if v.dtype == np.float32}

    def loss(t):
        s = tjit.vmap(lambda m: lax.psum(m, "i"), axis_name="i")(t)
        return sum((s[k] * C[k] * tjit.numpy.tanh(t[k])).sum() for k in C)

    floats = {k: X[k] for k in C}
    g = tjit.grad(loss)(floats)
    x64 = {k: v.astype(np.float64) for k, v in floats.items()}
    eps = 1e-3
    for k in C:
        for idx in [(0,) + (0,) * (x64[k].ndim - 1), (N - 1,) + (1,) * (x64[k].ndim - 1)]:
            def f(delta):
                t = {j: v.copy() for j, v in x64.items()}
                t[k][idx] += delta
                s = {j: np.broadcast_to(v.sum(0), v.shape) for j, v in t.items()}
                return sum((s[j] * C[j] * np.tanh(t[j])).sum() for j in C)
            fd = (f(eps) - f(-eps)) / (2 * eps)
            np.testing.assert_allclose(np.asarray(g[k])[idx], fd, rtol=2e-3, atol=2e-3)


def test_data_parallel_example_step_does_one_allreduce():
    """examples/train_mlp_data_parallel.py's step averages the loss and every gradient
    leaf (all float32) in one collective."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[2] / "examples" / "train_mlp_data_parallel.py"
    spec = importlib.util.spec_from_file_location("train_mlp_data_parallel", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rng = np.random.default_rng(0)
    params = [{"w": rng.standard_normal((16, 64)).astype(np.float32), "b": np.zeros(64, np.float32)},
              {"w": rng.standard_normal((64, 4)).astype(np.float32), "b": np.zeros(4, np.float32)}]
    x = rng.standard_normal((32, 16)).astype(np.float32)
    y = rng.standard_normal((32, 4)).astype(np.float32)
    with extend_axis_env("data", 2):
        jaxpr = tjit.make_jaxpr(mod.local_step)(params, x, y, 0.05)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert names.count("psum") == 1, names
