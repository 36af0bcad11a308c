"""A CUDA program's rendered kernels and cubin cached under its program key
(``cuda_compile.program_unit``): NVRTC runs without a GPU, so this runs wherever CuPy
and NVRTC import. A process that finds the unit renders and compiles nothing; a bad
entry is reported and rebuilt."""

import pickle

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import cuda_compile, disk_cache
from tjit.xla_like import program_cache
from tjit.xla_like.compile import compile_program
from tjit.xla_like.target import CUDA

try:
    cuda_compile.nvrtc_version()
except Exception as e:  # noqa: BLE001
    pytest.skip(f"NVRTC is not usable here ({e})", allow_module_level=True)

from tjit.devices import cuda  # (after the skip)

ARCH = "sm_90"


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(program_cache.ENV_VAR, "1")
    return tmp_path


def _program(n=256):
    x = np.linspace(-1, 1, n).astype(np.float32)

    def f(x):
        y = lax.fori_loop(0, 3, lambda i, v: jnp.sin(v) * 1.5 + i, x)
        return jnp.exp(y).sum(), y / (1 + y * y)
    return compile_program(tjit.make_jaxpr(f)(x), CUDA)


def _refuse(program):
    raise AssertionError("rendered although the unit was cached")


def test_a_cached_unit_skips_rendering_and_nvrtc(cache, monkeypatch):
    first = _program()
    assert first.cache_key is not None
    sources, mkey, image = cuda_compile.program_unit(first, ARCH, cuda.render_program)
    kernels = cuda_compile.program_kernels(first)
    assert len(kernels) >= 2 and image[:4] == b"\x7fELF"

    second = _program()                 # (from the program cache: new kernel objects)
    monkeypatch.setattr(cuda_compile, "compile_source", _refuse)
    got, mkey2, image2 = cuda_compile.program_unit(second, ARCH, _refuse)
    assert (mkey2, image2) == (mkey, image)
    assert [got[id(k)] for k in cuda_compile.program_kernels(second)] == \
        [sources[id(k)] for k in kernels]


def test_a_program_without_a_key_is_rendered_each_time(cache, monkeypatch):
    monkeypatch.setenv(program_cache.ENV_VAR, "0")
    prog = _program()
    assert prog.cache_key is None and cuda_compile.unit_key(prog, ARCH) is None
    calls = []

    def render(p):
        calls.append(1)
        return cuda.render_program(p)
    cuda_compile.program_unit(prog, ARCH, render)
    cuda_compile.program_unit(prog, ARCH, render)
    assert len(calls) == 2


@pytest.mark.parametrize("bad", [b"junk", "wrong format", "no elf", "other program"])
def test_a_bad_unit_entry_is_reported_and_rebuilt(cache, bad):
    prog = _program()
    sources, mkey, image = cuda_compile.program_unit(prog, ARCH, cuda.render_program)
    kernels = [sources[id(k)] for k in cuda_compile.program_kernels(prog)]
    payload = {"wrong format": pickle.dumps((99, kernels, mkey, image)),
               "no elf": pickle.dumps((cuda_compile.UNIT_FORMAT, kernels, mkey, b"text")),
               "other program": pickle.dumps((cuda_compile.UNIT_FORMAT, kernels[:1], mkey,
                                              image))}.get(bad, bad)
    key = cuda_compile.unit_key(prog, ARCH)
    disk_cache.put(key, payload)
    with pytest.warns(RuntimeWarning, match="unusable"):
        got, mkey2, image2 = cuda_compile.program_unit(prog, ARCH, cuda.render_program)
    assert (mkey2, image2) == (mkey, image) and got == sources
    got, _, _ = cuda_compile.program_unit(prog, ARCH, _refuse)    # replaced: good again
    assert got == sources


def test_the_unit_key_follows_the_arch_and_nvrtc(cache, monkeypatch):
    prog = _program()
    key = cuda_compile.unit_key(prog, ARCH)
    assert cuda_compile.unit_key(prog, "sm_80") != key
    monkeypatch.setattr(cuda_compile, "nvrtc_version", lambda: (99, 0))
    assert cuda_compile.unit_key(prog, ARCH) != key
