"""Kernels that differ only in the extent of their thread-split axis (a row count)
render the same LLVM IR (``codegen.shared_ir_key``), so the kernel cache compiles them
once; the shared function computes each kernel's own result."""

import ctypes
import dataclasses
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.lower import kernel_corpus as corpus
from tjit.devices import kernel_cache
from tjit.lower.llvm import codegen
from tjit.lower.llvm.profile import compile_profile
from tjit.lower.llvm.split import split_axis
from tjit.xla_like import kernel_ir as K


def _with_extent(k, n):
    p = split_axis(k)
    return dataclasses.replace(k, shape=k.shape[:p] + (n,) + k.shape[p + 1:])


def test_equal_keys_mean_equal_ir_over_the_corpus():
    """For every corpus kernel with a constant split extent, the kernel at other extents
    (2, the extent + 5, 3x + 7: across the choices the extent sways) has the same IR
    wherever it has the same key, and the key ignores nothing else: the IR at another
    extent never differs under an equal key."""
    same_key = 0
    for case in corpus.all_cases():
        k = case.kernel
        p = split_axis(k)
        if p is None or type(k.shape[p]) is not int or k.shape[p] < 2 or k.hyperplane:
            continue
        profile = compile_profile(k)
        key = codegen.shared_ir_key(k, profile)
        assert key is not None, case.name
        ir = codegen.kernel_to_llvm_ir(k, "f", profile, clamp_end=False)
        for n in (2, k.shape[p] + 5, 3 * k.shape[p] + 7):
            other = _with_extent(k, n)
            if codegen.shared_ir_key(other, profile) == key:
                same_key += 1
                assert codegen.kernel_to_llvm_ir(other, "f", profile, clamp_end=False) == ir, \
                    (case.name, n)
    assert same_key > 50    # (the corpus has hundreds of such kernels)


def test_key_keeps_what_the_extent_does_not_set():
    """The key changes with the kernel's other facts: a reversed row (an offset made
    from the extent) or another inner extent is another build."""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    a = tjit.jit(lambda x: jnp.sum(x * x, axis=1)).lower(x).compile().kernels()[0]
    b = tjit.jit(lambda x: jnp.sum(x * x, axis=1)).lower(x.reshape(3, 4)).compile().kernels()[0]
    ka, kb = (getattr(k, "kernel", k) for k in (a, b))
    assert codegen.shared_ir_key(ka, "vector") != codegen.shared_ir_key(kb, "vector")
    assert codegen.shared_ir_key(ka, "vector") != codegen.shared_ir_key(ka, "scalar")


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))


@pytest.mark.parametrize("rows_a,rows_b,cols", [(1500, 70, 37), (4099, 3, 41)])
def test_row_counts_compile_once_and_match_the_interpreter(empty_cache, rows_a, rows_b, cols):
    """Row sums and an elementwise map over two arrays that differ only in their row
    count: one compile per form (a shared body for each vector-profile pair, counted by
    the kernel cache), results equal to the reference interpreter's (the larger array
    is split across threads)."""
    def f(a, b):
        return (jnp.sum(a * a + 0.25, axis=1), jnp.sum(b * b + 0.25, axis=1),
                jnp.tanh(a) * 3.0 - a, jnp.tanh(b) * 3.0 - b)

    rng = np.random.default_rng(rows_b)
    a = rng.standard_normal((rows_a, cols)).astype(np.float32)
    b = rng.standard_normal((rows_b, cols)).astype(np.float32)
    before = dict(kernel_cache.STATS)
    got = tjit.jit(f)(a, b)
    compiled = kernel_cache.STATS["compiled"] - before["compiled"]
    want = tjit.jit(f, backend="interpreter")(a, b)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=2e-5)
    forms = set()
    for k in tjit.jit(f).lower(a, b).compile().kernels():
        k = getattr(k, "kernel", k)
        profile = compile_profile(k)
        key = codegen.shared_ir_key(k, profile) if profile == "vector" else None
        forms.add(key or kernel_cache._build_hash(k, profile))
    assert len(forms) < 4       # (at least the two row sums share a body)
    assert compiled == len(forms)


_PROBE = """
import json, numpy as np, tjit, tjit.numpy as jnp
from tjit.devices import disk_cache, kernel_cache
f = lambda a, b: (jnp.sum(a * a + 0.25, axis=1), jnp.sum(b * b + 0.25, axis=1))
rng = np.random.default_rng(5)
a, b = rng.standard_normal((3000, 45)).astype(np.float32), rng.standard_normal((90, 45)).astype(np.float32)
got = tjit.jit(f)(a, b)
want = tjit.jit(f, backend="interpreter")(a, b)
ok = all(np.allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=2e-5) for g, w in zip(got, want))
print(json.dumps({"ok": ok, "compiled": kernel_cache.STATS["compiled"],
                  "disk_hits": disk_cache.STATS["hits"]}))
"""


def test_a_second_process_loads_body_and_wrappers_from_disk(tmp_path):
    env = dict(os.environ, TJIT_CACHE_DIR=str(tmp_path))
    runs = [json.loads(subprocess.run([sys.executable, "-c", _PROBE], env=env, check=True,
                                      capture_output=True, text=True, timeout=300)
                       .stdout.strip().splitlines()[-1]) for _ in range(2)]
    assert runs[0]["ok"] and runs[1]["ok"]
    assert runs[0]["compiled"] == 1                  # one body for both row sums
    assert runs[1]["compiled"] == 0 and runs[1]["disk_hits"] >= 2   # body, wrappers


def test_shared_body_clamps_each_kernels_range():
    """Two kernels of one body, each called with a range past its own extent: each
    writes its own rows only (the wrapper clamps ``end``), equal to the kernel IR's
    NumPy evaluator."""
    x = np.random.default_rng(3).standard_normal((40, 64)).astype(np.float32)
    k = tjit.jit(lambda x: jnp.exp(x) - x).lower(x).compile().kernels()[0]
    k = getattr(k, "kernel", k)
    k37, k23 = (dataclasses.replace(_with_extent(k, n), name=f"k{n}") for n in (37, 23))
    fns = kernel_cache.compile_kernels([k37, k23])     # (both new: one body)
    assert fns["k37"].body is fns["k23"].body
    for k, fn in ((k37, fns["k37"]), (k23, fns["k23"])):
        rows = k.shape[0]
        out = np.full((48, 64), 7.0, np.float32)
        src = np.ascontiguousarray(x[:rows])
        argv = (ctypes.c_void_p * 2)(src.ctypes.data, out.ctypes.data)
        fn(argv, (ctypes.c_int64 * 1)(0), 0, 48)          # past the extent: clamped
        want = np.full((rows, 64), np.nan, np.float32)
        K.evaluate(k, [src.reshape(-1), want.reshape(-1)])
        np.testing.assert_allclose(out[:rows], want, rtol=3e-7)    # (exp within an ulp)
        assert (out[rows:] == 7.0).all()


def test_a_kernel_wrapped_again_while_its_old_wrappers_are_loaded():
    """A kernel whose wrapper died while another wrapper of the same module lives is
    wrapped again with other kernels: other code, other names, no clash."""
    x = np.random.default_rng(4).standard_normal((40, 72)).astype(np.float32)
    k = tjit.jit(lambda x: jnp.sin(x) * x).lower(x).compile().kernels()[0]
    k = getattr(k, "kernel", k)
    k29, k31, k53 = (dataclasses.replace(_with_extent(k, n), name=f"k{n}") for n in (29, 31, 53))
    first = kernel_cache.compile_kernels([k29, k31])
    kept = first["k31"]             # (holds the module, so k29's old wrapper stays loaded)
    del first
    kernel_cache.clear()
    again = kernel_cache.compile_kernels([k29, k53])
    assert again["k29"].body is again["k53"].body
    src = np.ascontiguousarray(x[:29])
    out = np.zeros((29, 72), np.float32)
    again["k29"]((ctypes.c_void_p * 2)(src.ctypes.data, out.ctypes.data),
                 (ctypes.c_int64 * 1)(0), 0, 29)
    np.testing.assert_allclose(out, np.sin(src) * src, rtol=3e-7, atol=1e-7)
    assert kept.body is not None
