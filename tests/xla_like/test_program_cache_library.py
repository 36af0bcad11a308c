"""Programs with library steps (sort, fft, linalg, gathers, scatters, loops and conds
around them) in the persistent program cache: stored by one process, read back by a new
process (one subprocess for all cases), and there bit-identical to the freshly compiled
program and equal to the reference interpreter; a step that cannot be written as data
keeps its program out of the cache, counted by reason; an entry that names a primitive
or factory this tjit no longer has is reported and recompiled.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import disk_cache
from tjit.tracing.core import Primitive
from tjit.xla_like import program_cache as pc
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import ControlStep, LibraryStep
from tjit.xla_like.target import CPU

from tests.xla_like.sources_still import run_while_sources_hold_still

F32 = np.float32
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _spd(a):
    return a @ a.T + a.shape[0] * jnp.eye(a.shape[0], dtype=a.dtype)


def _mlp_loss(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return jnp.sum(x * x)


def _cases():
    """(name, function, list of argument tuples): every kind of library step; the
    ``sizes`` case runs at three sizes (from the second on a symbolic program whose
    library steps take their sizes at run time)."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((6, 6)).astype(F32)
    v = rng.standard_normal((4, 33)).astype(F32)
    params = [(rng.standard_normal((8, 8)).astype(F32) * 0.3,
               rng.standard_normal(8).astype(F32)) for _ in range(2)]
    idx = np.array([1, 3, 3, 0], np.int32)
    return [
        ("sort", lambda v: jnp.sort(v, axis=-1) * 2 + jnp.argsort(v, axis=0), [(v,)]),
        ("top_k", lambda v: lax.top_k(v, 3)[0] - 1, [(v,)]),
        ("cumsum", lambda v: jnp.cumsum(jnp.tanh(v), axis=1), [(v,)]),
        ("fft", lambda v: jnp.abs(jnp.fft.fft(v)) + jnp.fft.irfft(jnp.fft.rfft(v), n=33), [(v,)]),
        ("solve_inv", lambda a: jnp.linalg.solve(_spd(a), a) + jnp.linalg.inv(_spd(a)),
         [(a,)]),
        ("eigh_cholesky", lambda a: (jnp.linalg.eigh(a + a.T)[0],
                                     jnp.linalg.cholesky(_spd(a))), [(a,)]),
        ("svd_qr", lambda a: (jnp.linalg.svd(a)[1], jnp.abs(jnp.linalg.qr(a)[1])), [(a,)]),
        ("gather_scatter", tjit.grad(lambda v: jnp.sum(jnp.sin(v[idx]) ** 2)), [(v,)]),
        ("sort_grad", tjit.grad(lambda v: jnp.sum(jnp.sort(v, axis=-1)[:, -5:] ** 2)),
         [(v,)]),
        ("mlp_grad", tjit.grad(_mlp_loss), [(params, rng.standard_normal((5, 8)).astype(F32))]),
        ("cond_sort", lambda v: lax.cond(v.sum() > 0, lambda u: jnp.sort(u, axis=0),
                                         lambda u: -u, v), [(v,), (-np.abs(v),)]),
        ("loop_sort", lambda v: lax.fori_loop(0, 3, lambda i, u: jnp.sort(u * 0.5 + i), v),
         [(v,)]),
        ("sizes", lambda v: jnp.sort(v, axis=0)[::-1] + jnp.fft.fft(v, axis=0).real,
         [(rng.standard_normal((n, 5)).astype(F32),) for n in (4, 7, 11)]),
    ]


def run_cases():
    """Every case's results as raw bytes and the program cache's hits and stores."""
    out = {}
    before = dict(pc.STATS)
    for name, f, arg_sets in _cases():
        g = tjit.jit(f)
        for k, args in enumerate(arg_sets):
            for n, leaf in enumerate(tjit.tree_leaves(g(*args))):
                out[f"{name}/{k}/{n}"] = np.asarray(leaf)
    return out, {k: pc.STATS[k] - before[k] for k in ("hits", "stored", "misses",
                                                      "not_stored", "bad_entries")}


_CHILD = """
import sys
import numpy as np
from tests.xla_like import test_program_cache_library as T
results, stats = T.run_cases()
np.savez(sys.argv[1], **{k.replace("/", "|"): v for k, v in results.items()})
print(stats["hits"], stats["stored"], stats["misses"], stats["bad_entries"])
"""


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(pc.ENV_VAR, "1")
    # each tjit.jit(f) stands for a new process: it shares no compiled signatures with
    # an earlier jit of f (tjit.api._share_caches, as JAX's cache keyed by the function)
    monkeypatch.setattr(tjit.api, "_share_caches", lambda *args: None)
    pc._DIGESTS.clear()      # (the sources as they are now, as the new process sees them)
    return tmp_path


def _run_child(folder, npz):
    """_CHILD in a new process on the cache ``folder``: its results and (hits, stored,
    misses, bad entries)."""
    env = dict(os.environ, PYTHONPATH=ROOT, TJIT_CACHE_DIR=str(folder))
    r = subprocess.run([sys.executable, "-c", _CHILD, str(npz)], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    results = {k.replace("|", "/"): v for k, v in np.load(npz).items()}
    return results, tuple(map(int, r.stdout.split()[-4:]))


def test_library_programs_read_back_by_a_new_process_are_bit_identical(cache):
    """One new process compiles and stores every case, a second reads them all back.
    (New processes, both: the test session's own code may be older than the sources the
    key is made of; rerun if the sources change meanwhile.)"""
    def attempt(n):
        folder = cache / f"try{n}"
        fresh, (hits, stored, misses, bad) = _run_child(folder, cache / f"fresh{n}.npz")
        assert hits == 0 and stored == misses >= len(_cases()) and bad == 0, \
            (hits, stored, misses, bad)      # (the sizes case compiles more than one)
        loaded, stats = _run_child(folder, cache / f"loaded{n}.npz")
        assert stats == (stored, 0, 0, 0), stats
        return fresh, loaded
    fresh, loaded = run_while_sources_hold_still(attempt)
    assert sorted(loaded) == sorted(fresh)
    for key, want in fresh.items():
        got = loaded[key]
        assert got.dtype == want.dtype and got.shape == want.shape, key
        assert got.tobytes() == want.tobytes(), f"{key}: loaded program differs from fresh"
    for name, f, arg_sets in _cases():        # and the fresh programs are right
        interp = tjit.jit(f, backend="interpreter")
        for k, args in enumerate(arg_sets):
            for n, leaf in enumerate(tjit.tree_leaves(interp(*args))):
                want = np.asarray(leaf)
                scale = 1 + float(np.max(np.abs(want)))
                np.testing.assert_allclose(fresh[f"{name}/{k}/{n}"], want, rtol=1e-4,
                                           atol=1e-5 * scale, err_msg=name)


def _sort_program(rng):
    x = rng.standard_normal(20).astype(F32)
    closed = tjit.make_jaxpr(lambda x: jnp.sort(x) * 2)(x)
    program = compile_program(closed, CPU)
    return closed, program, next(s for s in program.steps if isinstance(s, LibraryStep)
                                 and not isinstance(s, ControlStep))


def test_steps_that_cannot_be_written_as_data_are_not_stored_and_counted(cache, rng,
                                                                        monkeypatch):
    _, program, step = _sort_program(rng)
    monkeypatch.setattr(pc, "NOT_STORED", pc.NOT_STORED.__class__())
    key = "ab" * 32
    monkeypatch.setattr(step, "fn", lambda xp, env, x: [xp.sort(x)])     # a closure
    assert pc.store(key, program) is False
    monkeypatch.setattr(step, "primitive", Primitive("sort"))      # not a tjit attribute
    monkeypatch.setattr(step, "fn", None)
    assert pc.store(key, program) is False
    assert dict(pc.NOT_STORED) == {"library step sort holds a closure": 1,
                                   "primitive sort is not a module attribute of tjit": 1}
    assert disk_cache.get(key) is None


def test_collective_steps_keep_their_program_out_and_say_why(cache, monkeypatch):
    """A collective's step holds the process's communicators: not data."""
    monkeypatch.setattr(pc, "NOT_STORED", pc.NOT_STORED.__class__())
    x = np.arange(4, dtype=F32).reshape(1, 4)
    before = dict(pc.STATS)
    out = tjit.pmap(lambda v: lax.psum(v, "i") * 2, axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(out), x * 2)
    assert pc.STATS["stored"] == before["stored"]
    assert pc.NOT_STORED["library step collective_psum holds a closure"] >= 1, pc.NOT_STORED


def test_entries_naming_what_this_tjit_lacks_are_recompiled(cache, rng, monkeypatch):
    """An entry written by another tjit whose primitive or factory is gone (the key's
    source digest normally keeps such entries apart) is reported and recompiled; an
    entry of another entry format is never read."""
    x = rng.standard_normal(20).astype(F32)
    f = lambda x: jnp.sort(x) * 2
    _, program, _ = _sort_program(rng)
    key = pc.program_key(tjit.make_jaxpr(f)(x), CPU)
    payload = pc.dumps((program, pc._by_position(program)))
    for old, new in ((b"sort_p", b"sort_q"), (b"primitive_call", b"primitive_kall")):
        assert old in payload
        disk_cache.put(key, payload.replace(old, new))
        before = dict(pc.STATS)
        with pytest.warns(RuntimeWarning, match="unusable"):
            out = tjit.jit(f)(x)
        assert pc.STATS["bad_entries"] - before["bad_entries"] == 1
        assert pc.STATS["stored"] - before["stored"] == 1
        np.testing.assert_array_equal(np.asarray(out), np.sort(x) * 2)
        before = dict(pc.STATS)
        tjit.jit(f)(x)                 # the replaced entry is good
        assert pc.STATS["hits"] - before["hits"] == 1
    monkeypatch.setattr(pc, "FORMAT", pc.FORMAT + 1)
    assert pc.program_key(tjit.make_jaxpr(f)(x), CPU) != key
    before = dict(pc.STATS)
    np.testing.assert_array_equal(np.asarray(tjit.jit(f)(x)), np.sort(x) * 2)
    assert pc.STATS["hits"] == before["hits"] and pc.STATS["misses"] - before["misses"] == 1


@pytest.mark.opencl
def test_a_library_step_with_jaxpr_parameters_on_opencl(cache):
    """On OpenCL a while_loop's reverse sweep is a library step whose parameters hold
    jaxprs: stored, read back, bit-identical, equal to the interpreter."""
    from tjit.devices import opencl_context
    reason = opencl_context.unavailable_reason()
    if reason is not None:
        pytest.skip(f"no usable OpenCL: {reason}")

    def f(x):
        def body(c):
            return c[0] + 1, jnp.tanh(c[1]) * 1.1
        out = lax.while_loop(lambda c: (c[1].sum() < 50) & (c[0] < 7), body, (0, x))[1]
        return jnp.sum(out) + jnp.sort(x)[1]
    x = np.linspace(0.1, 1, 8).astype(F32)
    g = tjit.grad(f)
    before = dict(pc.STATS)
    fresh = np.asarray(tjit.jit(g, backend="opencl")(x))
    loaded = np.asarray(tjit.jit(g, backend="opencl")(x))
    assert (pc.STATS["stored"] - before["stored"], pc.STATS["hits"] - before["hits"]) == (1, 1)
    assert loaded.tobytes() == fresh.tobytes()
    np.testing.assert_allclose(fresh, np.asarray(tjit.jit(g, backend="interpreter")(x)),
                               rtol=1e-5, atol=1e-6)
