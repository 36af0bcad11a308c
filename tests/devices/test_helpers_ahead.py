"""Runtime helpers built on a thread beside a program's kernels (``helpers_ahead``): which
ones a plan foresees, that a failing build is left to the helper's real use, and, in a
fresh process with an empty disk cache, that the first call's results equal the
reference interpreter's with the helpers built ahead."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import blas, cpu_top_k, helpers_ahead, threads
from tjit.lower.llvm import parallel


def _program(fn, *args):
    return tjit.jit(fn).lower(*args).compile().executable.program


@pytest.fixture
def nothing_built(monkeypatch):
    """As in a fresh process on a 2-core AVX-512 host: no helper built yet."""
    monkeypatch.setattr(blas, "own_sgemm_used", lambda: True)
    monkeypatch.setattr(blas, "own_sgemm_ready", lambda: False)
    monkeypatch.setattr(threads, "runtime_ready", lambda: False)
    monkeypatch.setattr(threads, "default_num_threads", lambda: 2)
    monkeypatch.setattr(parallel, "_usable_cores", lambda: 2)


def _names(program):
    return [f.__name__ for f in helpers_ahead._wanted(program, 1 << 19)]


def test_foreseen_helpers(nothing_built):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((512, 256)).astype(np.float32)
    b = rng.standard_normal((256, 128)).astype(np.float32)
    # a big float32 product: the own sgemm, split across threads
    assert _names(_program(lambda a, b: a @ b, a, b)) == ["prepare_own_sgemm",
                                                          "native_available"]
    # a thin product (fewer columns than the tile), small: neither
    assert _names(_program(lambda a, b: a @ b, a[:8, :16], b[:16, :4])) == []
    # a big elementwise kernel: the thread runtime
    x = np.ones((1024, 1024), np.float32)
    assert _names(_program(lambda x: jnp.exp(x) * 2, x)) == ["native_available"]
    assert _names(_program(lambda x: x * 2, x[:8])) == []
    # a product inside a loop body counts too
    def loop(a, b):
        return tjit.lax.fori_loop(0, 3, lambda i, c: c @ b[:128, :128], a[:, :128])
    assert "prepare_own_sgemm" in _names(_program(loop, a, b))


def test_float64_product_wants_the_threads_only(nothing_built, x64):
    a = np.ones((512, 256))
    assert _names(_program(lambda a: a @ a.T, a)) == ["native_available"]


def test_nothing_foreseen_once_built(monkeypatch):
    monkeypatch.setattr(blas, "own_sgemm_ready", lambda: True)
    monkeypatch.setattr(threads, "runtime_ready", lambda: True)
    a = np.ones((512, 256), np.float32)
    assert helpers_ahead.start(_program(lambda a: a @ a.T, a), 1 << 19) is None


def test_a_failing_build_is_left_to_its_use(nothing_built, monkeypatch):
    def broken():
        raise RuntimeError("no LLVM today")
    monkeypatch.setattr(blas, "prepare_own_sgemm", broken)
    monkeypatch.setattr(threads, "native_available", broken)
    a = np.ones((512, 256), np.float32)
    t = helpers_ahead.start(_program(lambda a: a @ a.T, a), 1 << 19)
    assert t is not None
    t.join(60)
    assert not t.is_alive()


CHILD = r"""
import json
import numpy as np
import tjit, tjit.numpy as jnp
from tjit.devices import blas, cpu_top_k, helpers_ahead, threads
from tjit.lower.llvm import parallel
parallel._usable_cores = lambda: 2
started = []
real = helpers_ahead.start
helpers_ahead.start = lambda *a: started.append(real(*a)) or started[-1]
rng = np.random.default_rng(1)
x = rng.standard_normal((2048, 64)).astype(np.float32)
c = rng.standard_normal((96, 64)).astype(np.float32)
f = lambda x, c: (jnp.argmin(jnp.sum(x * x, 1)[:, None] - 2 * x @ c.T, axis=1),
                  jnp.tanh(x @ c.T).sum(0))
got = tjit.jit(f)(x, c)
ref = tjit.jit(f, backend="interpreter")(x, c)
print(json.dumps({"started": [t is not None for t in started],
                  "own": blas.own_sgemm_used(), "own_ready": blas.own_sgemm_ready(),
                  "argmin_equal": bool(np.array_equal(got[0], ref[0])),
                  "err": float(np.max(np.abs(np.asarray(got[1]) - np.asarray(ref[1]))))}))
"""


def test_first_call_in_a_fresh_process_with_helpers_ahead(tmp_path):
    env = dict(os.environ, TJIT_CACHE_DIR=str(tmp_path), TJIT_PROGRAM_CACHE="0")
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["started"][0] == (out["own"] or threads.default_num_threads() > 1)
    assert out["own_ready"] == out["own"]
    assert out["argmin_equal"] and out["err"] < 1e-3


def test_top_k_function_foreseen(nothing_built, monkeypatch):
    """A top_k library step wants its compiled row selection, and the thread runtime when
    its rows will be split (as cpu_top_k will decide), each built once per dtype."""
    monkeypatch.setattr(cpu_top_k, "built", lambda dtype: False)
    big = np.ones((1024, 256), np.float32)

    def top2(x):
        return tjit.lax.top_k(x, 8)[0], tjit.lax.top_k(x * 2, 4)[1]
    wanted = helpers_ahead._wanted(_program(top2, big), 1 << 19)
    assert threads.native_available in wanted
    made = [f for f in wanted if f is not threads.native_available]
    assert [f.args for f in made] == [(np.dtype(np.float32),)]
    # 8 rows: one chunk, no thread runtime; still the function
    wanted = helpers_ahead._wanted(_program(lambda x: tjit.lax.top_k(x, 8), big[:8]), 1 << 19)
    assert [getattr(f, "args", None) for f in wanted] == [(np.dtype(np.float32),)]
    monkeypatch.setattr(cpu_top_k, "built", lambda dtype: True)
    assert helpers_ahead._wanted(_program(lambda x: tjit.lax.top_k(x, 8), big[:8]),
                                 1 << 19) == []


TOP_K_CHILD = r"""
import json
import numpy as np
import tjit
from tjit.devices import cpu_top_k, helpers_ahead, threads
from tjit.lower.llvm import parallel
parallel._usable_cores = lambda: 2
threads.default_num_threads = lambda: 2
wanted = []
real = helpers_ahead._wanted
helpers_ahead._wanted = lambda *a: wanted.append(len(real(*a))) or real(*a)
x = np.random.default_rng(2).standard_normal((512, 300)).astype(np.float32)
x[3, :5] = x[3, 10]                     # ties: the lower index first
vals, idx = tjit.jit(lambda x: tjit.lax.top_k(x, 6))(x)
order = np.argsort(-x, axis=1, kind="stable")[:, :6]
print(json.dumps({"wanted": wanted, "built": cpu_top_k.built(np.float32),
                  "runtime": threads.runtime_ready(),
                  "idx": bool(np.array_equal(np.asarray(idx), order)),
                  "vals": bool(np.array_equal(np.asarray(vals),
                                              np.take_along_axis(x, order, 1)))}))
"""


def test_top_k_first_call_with_helpers_ahead(tmp_path):
    env = dict(os.environ, TJIT_CACHE_DIR=str(tmp_path), TJIT_PROGRAM_CACHE="0")
    r = subprocess.run([sys.executable, "-c", TOP_K_CHILD], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["wanted"] == [2] and out["built"] and out["runtime"]
    assert out["idx"] and out["vals"]
