"""``TJIT_CUDA_POINTWISE`` (``devices/cuda_pointwise.py``): jitted programs on the
simulated device (``fake_cupy``) in every pointwise variant against the reference
interpreter, the variant reaching the rendered kernels, a bad value's error, and the
program unit's disk-cache entry kept apart per variant. (The CUDA C of each variant is
checked in ``tests/lower/c/test_wide_chunks.py``.)"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices.fake_cupy import FakeDeviceArray, simulated_gpu
from tjit.devices import cuda, cuda_compile, cuda_pointwise
from tjit.xla_like import program_cache
from tjit.xla_like.compile import compile_program
from tjit.xla_like.target import CUDA

F32 = np.float32


@pytest.fixture
def gpu(monkeypatch):
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    with simulated_gpu(monkeypatch) as fake:
        rendered = []
        render_program = cuda.render_program

        def spy(program):
            sources, text = render_program(program)
            rendered.extend(sources.values())
            return sources, text
        monkeypatch.setattr(cuda, "render_program", spy)
        fake.rendered = rendered
        yield fake


def mish(x):
    return x * jnp.tanh(jnp.log1p(jnp.exp(x)))


def ref(f, *args):
    return tjit.jit(f, backend="interpreter")(*args)


@pytest.mark.parametrize("name", cuda_pointwise.VARIANTS)
def test_programs_match_the_interpreter_in_every_variant(gpu, monkeypatch, name, rng):
    monkeypatch.setenv(cuda_pointwise.ENV, name)
    v, u = cuda_pointwise.parse(name)
    x = (rng.standard_normal((3, 5, 67)) * 3).astype(F32)      # (a tail in every variant)
    rows, row = rng.standard_normal((7, 37)).astype(F32), rng.standard_normal(37).astype(F32)

    def fwd(a):     # (a function of this test: jit(mish) would share earlier tests'
        return mish(a)  # compiled signatures, as JAX's cache keyed by the function)
    cases = [(fwd, (x,)), (tjit.grad(lambda a: jnp.sum(mish(a))), (x,)),
             (lambda a, b: jnp.sqrt(jnp.abs(a)) * b - a, (rows, row))]   # (rows of 37)
    for f, args in cases:
        got = tjit.jit(f)(*args)
        assert type(got._value) is FakeDeviceArray
        np.testing.assert_allclose(np.asarray(got), np.asarray(ref(f, *args)),
                                   rtol=2e-6, atol=1e-6)
    wide = [(s.launch.vector, s.launch.unroll) for s in gpu.rendered
            if s.launch.kind == "pointwise" and s.launch.vector > 1]
    assert len(wide) >= len(cases) and set(wide) == {(4 * v, u)}    # (each compiled here)


def test_a_bad_variant_fails_the_compile_naming_the_choices(gpu, monkeypatch):
    monkeypatch.setenv(cuda_pointwise.ENV, "8x8")
    with pytest.raises(ValueError, match=r"TJIT_CUDA_POINTWISE='8x8'.*2x1"):
        tjit.jit(mish)(np.ones(64, F32))


try:
    cuda_compile.nvrtc_version()
    _NO_NVRTC = None
except Exception as e:  # noqa: BLE001
    _NO_NVRTC = f"NVRTC is not usable here ({e})"


@pytest.mark.skipif(_NO_NVRTC is not None, reason=str(_NO_NVRTC))
def test_each_variant_has_its_own_program_unit(monkeypatch, tmp_path):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(program_cache.ENV_VAR, "1")
    monkeypatch.delenv(cuda_pointwise.ENV, raising=False)
    prog = compile_program(tjit.make_jaxpr(mish)(np.ones(4096, F32)), CUDA)
    default = cuda_compile.unit_key(prog, "sm_90")
    keys = {}
    for name in cuda_pointwise.VARIANTS:
        monkeypatch.setenv(cuda_pointwise.ENV, name)
        keys[name] = cuda_compile.unit_key(prog, "sm_90")
    assert keys[cuda_pointwise.DEFAULT] == default and len(set(keys.values())) == len(keys)

    monkeypatch.delenv(cuda_pointwise.ENV)
    cuda_compile.program_unit(prog, "sm_90", cuda.render_program)     # stored: default
    monkeypatch.setenv(cuda_pointwise.ENV, "2x1")
    calls = []

    def render(p):
        calls.append(p)
        return cuda.render_program(p)
    sources, _, image = cuda_compile.program_unit(prog, "sm_90", render)
    assert calls and image[:4] == b"\x7fELF"        # not the default's unit
    assert {s.launch.vector for s in sources.values()} == {8}
    again, _, _ = cuda_compile.program_unit(prog, "sm_90", None)     # now its own entry
    assert [s.text for s in again.values()] == [s.text for s in sources.values()]
