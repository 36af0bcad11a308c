"""Every primitive under ``jit`` on the CUDA backend, without a GPU: the simulated device
(``fake_cupy``) in strict mode holds library steps and eager ops to what the installed
CuPy offers (names, ufunc methods), so a step that would raise on a GPU raises here.

Checks: every case of ``coverage_cases`` (each primitive but collectives, callbacks
and the like) matches the reference interpreter on the device; a case that copied host
data to the device is one of a ``host_only`` primitive (LAPACK forms, SciPy functions
CuPy lacks: run on host copies and counted); ``ufunc_methods``' folds and scans equal
NumPy's ufunc methods; host-only primitives against SciPy/NumPy in jit and eagerly.
``benchmarks/cuda_coverage.py`` prints the same survey as a table (and OpenCL's).
"""

import numpy as np
import pytest
import scipy.linalg
import scipy.special

import tjit
import tjit.numpy as jnp
from tests.devices.coverage_cases import all_cases, split_static
from tests.devices.fake_cupy import FakeDeviceArray, simulated_gpu
from tests.primitives import edge_cases as E
from tjit import lax
from tjit.primitives import ufunc_methods
from tjit.primitives.base import REGISTRY

F32 = np.float32

#: primitives no case jits alone: they need a mesh, a callback or a transformation
NOT_JITTED_ALONE = {"psum", "pmax", "pmin", "all_gather", "psum_scatter", "all_to_all",
                    "ppermute", "axis_index", "shard_map", "debug_callback",
                    "pure_callback", "io_callback", "check", "custom_lin",
                    "while_transpose"}


@pytest.fixture
def gpu(monkeypatch):
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    with simulated_gpu(monkeypatch, strict=True) as fake:
        yield fake


def _same(got, want):
    g, w = np.asarray(got), np.asarray(want)
    if g.shape != w.shape or g.dtype != w.dtype:
        return False
    if g.dtype.kind in "fc":
        tol = 1e-2 if g.dtype.itemsize <= 2 else 2e-5
        return np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True)
    return np.array_equal(g, w)


def test_every_primitive_has_a_case():
    missing = set(REGISTRY) - set(all_cases()) - NOT_JITTED_ALONE
    assert not missing, f"primitives without a coverage case: {sorted(missing)}"


def test_every_primitive_runs_on_the_device(gpu):
    failures, uploads_by = [], {}
    for prim, cases in all_cases().items():
        if prim in E.LOOSE:     # (the simplifier's rounding rewrites: not a primitive)
            continue
        for case in cases:
            f, args = split_static(case)
            want = tjit.jit(f, backend="interpreter")(*args)
            dev = [tjit.device_put(a) for a in args]
            before = gpu.host_uploads
            try:
                got = tjit.jit(f, backend="cuda")(*dev)
            except Exception as e:
                failures.append(f"{prim}/{case.name}: {type(e).__name__}: {e}"[:300])
                continue
            if gpu.host_uploads > before:
                uploads_by[f"{prim}/{case.name}"] = prim
            got, want = tjit.tree_leaves(got), tjit.tree_leaves(want)
            if len(got) != len(want) or not all(
                    type(g._value) is FakeDeviceArray and _same(g, w)
                    for g, w in zip(got, want)):
                failures.append(f"{prim}/{case.name}: differs from the interpreter")
    assert not failures, "\n".join(failures)
    stray = {c for c, p in uploads_by.items() if not getattr(REGISTRY.get(p), "host_only",
                                                             None)}
    assert not stray, f"library steps that computed on the host: {sorted(stray)}"
    assert "geqrf/qr(mode='raw')" in uploads_by    # (the check sees a host step)


@pytest.mark.parametrize("n", range(1, 10))
def test_ufunc_methods_fold_and_scan_match_numpy(gpu, n):
    rng = np.random.default_rng(n)
    ints = rng.integers(-2 ** 31, 2 ** 31, (n, 3, n), dtype=np.int64).astype(np.int32)
    bools = rng.random((n, 3, n)) < 0.3
    floats = rng.standard_normal((n, 3, n)).astype(F32)
    floats[rng.random(floats.shape) < 0.1] = np.nan
    for axis in (0, 2):
        for name, x in [("bitwise_and", ints), ("bitwise_or", ints), ("bitwise_xor", ints),
                        ("logical_xor", bools), ("maximum", floats)]:
            got = ufunc_methods.reduce(gpu, name, gpu.asarray(x), axis)
            want = getattr(np, name).reduce(x, axis=axis)
            assert type(got) is FakeDeviceArray
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{name} {axis}")
        for name, x in [("maximum", floats), ("minimum", floats), ("logical_or", bools),
                        ("bitwise_xor", ints)]:
            got = ufunc_methods.accumulate(gpu, name, gpu.asarray(x), axis)
            want = getattr(np, name).accumulate(x, axis=axis)
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{name} {axis}")


@pytest.mark.parametrize("name", ["multiply", "subtract", "logical_or", "bitwise_xor",
                                  "maximum"])
def test_ufunc_methods_at_matches_numpy(gpu, name):
    rng = np.random.default_rng(7)
    for n_targets, n in [(1, 1), (3, 17), (5, 64), (40, 33)]:
        index = rng.integers(0, n_targets, n)
        if name in ("logical_or",):
            out, values = rng.random(n_targets) < 0.2, rng.random(n) < 0.2
        elif name == "bitwise_xor":
            out, values = (rng.integers(-99, 99, k, dtype=np.int32) for k in (n_targets, n))
        else:   # (products of numbers near 1 and sums of small integers: exact in float64)
            out = rng.integers(-3, 4, n_targets).astype(np.float64)
            values = (2.0 ** rng.integers(-2, 3, n) if name == "multiply"
                      else rng.integers(-5, 6, n).astype(np.float64))
        want = out.copy()
        getattr(np, name).at(want, index, values)
        got = gpu.asarray(out)
        ufunc_methods.at(gpu, name, got, gpu.asarray(index), gpu.asarray(values))
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{n_targets}, {n}")


def test_strict_device_refuses_what_cupy_lacks(gpu):
    x = gpu.asarray(np.arange(6, dtype=np.int32))
    with pytest.raises(TypeError):
        np.maximum.accumulate(x)        # (CuPy's accumulate: add only)
    with pytest.raises(TypeError):
        np.multiply.at(x, [0, 0], 2)    # (CuPy's at: add, maximum, minimum, bitwise)
    with pytest.raises(TypeError):
        scipy.special.gammaln(x)        # (a SciPy ufunc CuPy does not dispatch)
    with pytest.raises(AttributeError, match="not in the installed CuPy"):
        gpu.ediff1d_typo                # noqa: B018
    np.testing.assert_array_equal(np.asarray(np.add.accumulate(x)), np.arange(6).cumsum())


def test_cumulative_and_bitwise_reductions_on_the_device(gpu):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 7)).astype(F32)
    x[1, 2] = np.nan
    ints = rng.integers(-1000, 1000, (5, 7), dtype=np.int32)
    xd, id_ = tjit.device_put(x), tjit.device_put(ints)
    for axis in (0, 1):
        for got, want in [
                (tjit.jit(lambda v: lax.cummax(v, axis=axis))(xd),
                 np.fmax.accumulate(np.where(np.isnan(x), np.inf, x), axis=axis)),
                (lax.cummin(xd, axis=axis),          # (eager on the device)
                 np.fmin.accumulate(np.where(np.isnan(x), -np.inf, x), axis=axis))]:
            # (NaN propagates: where a NaN was seen the result is NaN)
            seen = np.logical_or.accumulate(np.isnan(x), axis=axis)
            assert type(got._value) is FakeDeviceArray
            np.testing.assert_array_equal(np.asarray(got), np.where(seen, np.nan, want))
        for fn, ufunc in [(lax.reduce_and, np.bitwise_and), (lax.reduce_or, np.bitwise_or),
                          (lax.reduce_xor, np.bitwise_xor)]:
            got = tjit.jit(lambda v: fn(v, axes=(axis,)))(id_)
            np.testing.assert_array_equal(np.asarray(got), ufunc.reduce(ints, axis=axis))
    assert np.asarray(lax.cummax(tjit.device_put(np.array([-0.0, 0.0, -0.0], F32)),
                                 axis=0)).tobytes() == np.array([-0.0, 0.0, 0.0], F32).tobytes()


def test_host_only_primitives_round_trip_counted(gpu):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 4)).astype(F32)
    q = tjit.jit(lambda v: lax.linalg.householder_product(*lax.linalg.geqrf(v)))
    compiled = q.lower(a).compile()
    before = gpu.host_uploads
    got = compiled(tjit.device_put(a))
    assert type(got._value) is FakeDeviceArray and gpu.host_uploads > before
    assert compiled.executable.counts["host_steps"] == 2
    assert "host steps" in compiled.as_text() and "geqrf" in compiled.as_text()
    np.testing.assert_allclose(np.asarray(got), np.linalg.qr(a.astype(np.float64))[0],
                               rtol=1e-5, atol=1e-5)
    m = rng.standard_normal((5, 5)).astype(F32)
    h = lax.linalg.hessenberg(tjit.device_put(m))[0]      # eager on the device
    assert type(h._value) is FakeDeviceArray
    np.testing.assert_allclose(np.triu(np.asarray(h), -1), scipy.linalg.hessenberg(
        m.astype(np.float64)), rtol=1e-4, atol=1e-4)
    w = tjit.jit(lambda v: jnp.sort_complex(jnp.linalg.eigvals(v)))(tjit.device_put(m))
    np.testing.assert_allclose(np.asarray(w), np.sort_complex(np.linalg.eigvals(
        m.astype(np.float64))), rtol=1e-4, atol=1e-4)
    x = np.linspace(-2, 2, 9)
    got = tjit.jit(lambda v: tjit.scipy.special.hyp1f1(0.5, 1.5, v))(tjit.device_put(x))
    np.testing.assert_allclose(np.asarray(got), scipy.special.hyp1f1(0.5, 1.5, x),
                               rtol=1e-6)
