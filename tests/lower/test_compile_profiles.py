"""Compile profiles (``lower/llvm/profile.py``): small elementwise kernels are built
without vectorization and call the process-wide math library (``mathlink``); the
result bits must be those of the vectorized, inlined build, and the linked code must
load from the disk cache in a fresh process."""

import ctypes
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.lower.test_codegen import assert_bits_equal, edge_values
from tjit.lower.llvm import codegen, mathlib, profile, target
from tjit.xla_like import kernel_ir as K

_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                       ctypes.c_int64)
NAN_BITS = {4: [0x7FC00005, 0xFFC00000, 0x7F800001],
            8: [0x7FF8000000000005, 0xFFF8000000000000, 0x7FF0000000000001]}
UNARY = sorted(n for n in mathlib.MATH_FUNCTIONS if n not in ("pow", "atan2"))
BINARY = ["pow", "atan2"]


def _math_kernel(dt, n):
    """One output per math function of the first (and second) input, ``n`` points."""
    x = K.Load(0, K.Affine(0, (1,)), dt)
    y = K.Load(1, K.Affine(0, (1,)), dt)
    exprs = [K.Op(o, (x,), dt) for o in UNARY] + [K.Op(o, (x, y), dt) for o in BINARY]
    args = (K.Arg(dt, "in"), K.Arg(dt, "in")) + tuple(K.Arg(dt, "out") for _ in exprs)
    stores = tuple(K.Store(i + 2, K.Affine(0, (1,)), e) for i, e in enumerate(exprs))
    return K.Kernel(f"math_{dt.name}_{n}", (n,), args, stores=stores)


def _run(k, name, prof, x, y):
    text = codegen.kernel_to_llvm_ir(k, name)
    fn = _FN(target.compile_ir(text, [name], profile=prof)[name])
    outs = [np.full(len(x), 7, x.dtype) for _ in k.stores]
    bufs = [x, y] + outs
    ptrs = (ctypes.c_void_p * len(bufs))(*[b.ctypes.data for b in bufs])
    fn(ptrs, (ctypes.c_int64 * 1)(0), 0, len(x))
    return outs, text


@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.float64)],
                         ids=lambda d: d.name)
def test_scalar_profile_gives_the_vector_profiles_bits(dt, monkeypatch):
    rng = np.random.default_rng(3)
    bits = np.dtype(f"u{dt.itemsize}")
    # NaNs with a payload, a sign, and a signalling one: which one a result carries must
    # not depend on the build
    nans = np.array(NAN_BITS[dt.itemsize], bits).view(dt)
    e = np.concatenate([edge_values(dt), nans])
    x = np.concatenate([np.repeat(e, len(e)), (rng.standard_normal(500) * 30).astype(dt)])
    y = np.concatenate([np.tile(e, len(e)), (rng.standard_normal(500) * 3).astype(dt)])
    n = len(x)
    k = _math_kernel(dt, n)
    monkeypatch.setattr(profile, "SCALAR_MAX_POINTS", n)     # (all pairs: over the limit)
    assert profile.compile_profile(k) == "scalar"
    small, text = _run(k, f"prof_scalar_{dt.name}", "scalar", x, y)
    assert "tjit_math_sin_" in text and "call" in text        # linked, not inlined
    monkeypatch.setattr(profile, "SCALAR_MAX_POINTS", 0)     # same kernel, vector build
    assert profile.compile_profile(k) == "vector"
    big, text = _run(k, f"prof_vector_{dt.name}", "vector", x, y)
    assert "tjit_math_" not in text
    for name, a, b in zip(UNARY + BINARY, small, big):
        assert_bits_equal(a, b, f"{name} {dt.name}")
        bad = np.flatnonzero(a.view(bits) != b.view(bits))     # NaN payloads too
        assert not bad.size, f"{name} {dt.name}: NaN bits differ at {bad[:5]}"


def test_profile_choice():
    f32 = np.dtype(np.float32)
    assert profile.compile_profile(_math_kernel(f32, profile.SCALAR_MAX_POINTS)) == "scalar"
    assert profile.compile_profile(_math_kernel(f32, profile.SCALAR_MAX_POINTS + 1)) == \
        "vector"
    x = K.Load(0, K.Affine(0, (1,)), f32)   # a small reduction keeps the vector build
    red = K.Kernel("r", (8,), (K.Arg(f32, "in"), K.Arg(f32, "out")),
                   stages=(K.Reduction(x, "add", f32),),
                   stores=(K.Store(1, K.Affine(0, (0,)), K.Stage(0, f32), "outer"),),
                   reduce_axes=(0,))
    assert profile.compile_profile(red) == "vector"
    assert profile.linked_math(red) == ()
    assert "tjit_math_sin_f32" in profile.linked_math(_math_kernel(f32, 16))


def test_linked_kernel_loads_from_disk_in_a_fresh_process(tmp_path):
    """The second process takes the kernel's object code from the disk cache, and the
    math functions it calls too (loaded, published, then the kernel links)."""
    script = textwrap.dedent("""
        import numpy as np, tjit, tjit.numpy as jnp
        from tjit.devices import kernel_cache
        from tjit.lower.llvm import mathlink
        x = np.linspace(-3, 3, 64).astype(np.float32)
        r = tjit.jit(lambda x: jnp.tanh(jnp.sin(x) * 2) + jnp.exp(-x))(x)
        want = np.tanh(np.sin(x) * 2) + np.exp(-x)
        assert np.allclose(np.asarray(r), want, rtol=1e-5, atol=1e-6), (r, want)
        print(kernel_cache.STATS["disk_hits"], kernel_cache.STATS["compiled"],
              mathlink.STATS["compiled"], mathlink.STATS["loaded"])
    """)
    env = dict(os.environ, TJIT_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, check=False, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    assert list(map(int, runs[0].stdout.split()))[2] == 3     # sin, tanh, exp compiled
    hits, compiled, math_compiled, math_loaded = map(int, runs[1].stdout.split())
    assert hits >= 1 and compiled == 0
    assert math_compiled == 0 and math_loaded == 3          # linked from the disk cache
