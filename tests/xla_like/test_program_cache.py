"""The persistent program cache (``xla_like/program_cache``): a program read back from
disk computes what the reference interpreter computes; its key changes with the
program, the target, the options, the versions and the compiler's sources; bad
entries are recompiled with a warning; processes writing one entry at once are safe.
"""

import os
import pathlib
import pickle
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import disk_cache
from tjit.tracing.core import Primitive
from tjit.xla_like import program_cache as pc
from tjit.xla_like.compile import compile_program
from tjit.xla_like.target import CPU, CUDA

from tests.xla_like.sources_still import run_while_sources_hold_still

F32 = np.float32
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def cache(monkeypatch, tmp_path):
    """The program cache on, in a folder of its own."""
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(pc.ENV_VAR, "1")
    # each tjit.jit(f) stands for a new process: it shares no compiled signatures with
    # an earlier jit of f (tjit.api._share_caches, as JAX's cache keyed by the function)
    monkeypatch.setattr(tjit.api, "_share_caches", lambda *args: None)
    return tmp_path


def _stats(fn, *args):
    """``fn(*args)`` and what it did to the program cache's counters."""
    before = dict(pc.STATS)
    out = fn(*args)
    return out, {k: pc.STATS[k] - before[k] for k in pc.STATS}


def _mlp_loss(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return jnp.sum(x * x)


def _cases(rng):
    x = rng.standard_normal(300).astype(F32)
    m = rng.standard_normal((12, 40)).astype(F32)
    params = [(rng.standard_normal((8, 8)).astype(F32) * 0.3, rng.standard_normal(8).astype(F32))
              for _ in range(3)]
    return [
        ("elementwise", lambda x: jnp.tanh(jnp.exp(-x * x) + jnp.sin(x) * 2 - jnp.log1p(x * x)),
         (x,)),
        ("softmax", lambda m: tjit.nn.softmax(m, axis=-1), (m,)),
        ("mlp grad", tjit.grad(_mlp_loss), (params, rng.standard_normal((5, 8)).astype(F32))),
        ("fori_loop", lambda x: lax.fori_loop(0, 7, lambda i, v: v * 0.9 + i, x), (x,)),
        ("constant", lambda m: m @ np.arange(40 * 3, dtype=F32).reshape(40, 3) + 1.5, (m,)),
    ]


def _check(got, want):
    for g, w in zip(tjit.tree_leaves(got), tjit.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_programs_from_the_cache_compute_as_the_interpreter(cache, rng):
    for name, f, args in _cases(rng):
        want = tjit.jit(f, backend="interpreter")(*args)
        fresh, d1 = _stats(tjit.jit(f), *args)
        assert d1["stored"] == 1 and d1["hits"] == 0, (name, d1)
        again, d2 = _stats(tjit.jit(f), *args)    # a new jit: traced, read back
        assert d2["hits"] == 1 and d2["stored"] == 0, (name, d2)
        _check(fresh, want)
        _check(again, want)


def test_a_hit_returns_the_same_plan(cache, rng):
    _, f, args = _cases(rng)[2]
    closed = tjit.make_jaxpr(f)(*args)
    first = compile_program(closed, CPU)
    second, d = _stats(compile_program, tjit.make_jaxpr(f)(*args), CPU)
    assert d["hits"] == 1
    assert second.cache_key == first.cache_key is not None
    assert second.text() == first.text()


def test_dynamic_shapes_and_donation_from_the_cache(cache, rng):
    f = lambda x, y: (jnp.sin(x) * y).sum(0)
    for rep in range(2):
        g = tjit.jit(f)
        for n in (5, 9, 13):      # a symbolic program from the second size on
            x, y = (rng.standard_normal((n, 4)).astype(F32) for _ in range(2))
            got, d = _stats(g, x, y)
            _check(got, f(np.float64(x), y))
            if n < 13:    # (13: the symbolic program serves it, nothing compiled)
                assert d["hits"] == rep and d["stored"] == 1 - rep, (rep, n, d)
    x = rng.standard_normal((7, 4)).astype(F32)
    for rep in range(2):      # declared symbols: one program for every n, read back
        got, d = _stats(tjit.jit(f, polymorphic_shapes=["(n, 4)", "(n, 4)"]), x, x)
        assert d["hits"] == rep and d["stored"] == 1 - rep, (rep, d)
        _check(got, f(np.float64(x), x))
    g = lambda x: x * 2 + 1
    x = rng.standard_normal(64).astype(F32)
    _, d = _stats(tjit.jit(g, donate_argnums=0), tjit.device_put(x))
    _, d2 = _stats(tjit.jit(g), x)           # other donation: another key
    assert d["stored"] == 1 and d2["stored"] == 1 and d2["hits"] == 0
    out, d3 = _stats(tjit.jit(g, donate_argnums=0), tjit.device_put(x))
    assert d3["hits"] == 1
    _check(out, x * 2 + 1)


def test_the_key_follows_program_target_options_and_versions(cache, monkeypatch):
    x = np.ones(16, F32)
    key = lambda f, target=CPU, donated=(), budget=None: pc.program_key(
        tjit.make_jaxpr(f)(x), target, donated, budget)
    base = key(lambda x: x * 1.5)
    assert base is not None and base == key(lambda x: x * 1.5)
    assert key(lambda x: x * 1.5000001) != base                 # a literal's value
    assert key(lambda x: x * 1.5 + np.ones(16, F32)) != key(
        lambda x: x * 1.5 + np.full(16, 2, F32))                # a constant's bytes
    assert key(lambda x: x + 1.5) != base                       # the primitive
    assert key(lambda x: x * 1.5, target=CUDA) != base
    assert key(lambda x: x * 1.5, donated=(0,)) != base
    assert key(lambda x: x * 1.5, budget=1 << 20) != base
    monkeypatch.setattr(tjit, "__version__", "0.0.0-other")
    assert key(lambda x: x * 1.5) != base
    monkeypatch.undo()
    monkeypatch.setenv(pc.ENV_VAR, "0")
    assert key(lambda x: x * 1.5) is None


def test_the_source_digest_follows_edits(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text("A = 1\n")
    before = pc.files_digest(str(tmp_path))
    pc._DIGESTS.pop(str(tmp_path))
    src.write_text("A = 22\n")
    assert pc.files_digest(str(tmp_path)) != before


_KEY_AFTER_AN_EDIT = textwrap.dedent("""
    import os, sys, types
    import numpy as np
    import tjit, tjit.numpy as jnp
    from tjit.xla_like import program_cache as pc
    from tjit.xla_like.target import CPU

    closed = tjit.make_jaxpr(lambda x: jnp.sin(x) * 2)(np.ones(3, np.float32))
    if sys.argv[1] == "edited":      # every compiler file changes after the import
        real_stat = os.stat
        def stat(path, *args, **kwargs):
            st = real_stat(path, *args, **kwargs)
            if os.sep + "xla_like" + os.sep in str(path):
                return types.SimpleNamespace(st_size=st.st_size + 1,
                                             st_mtime_ns=st.st_mtime_ns + 10**9)
            return st
        os.stat = stat
    print(pc.program_key(closed, CPU))
    pc._DIGESTS.clear()               # as a process started after the edit sees them
    print(pc.program_key(closed, CPU))
""")


def test_a_process_keys_by_the_sources_it_imported(cache):
    """Compiler sources edited (or upgraded) after a process imported them do not give
    its programs, compiled by the code it loaded, the edited sources' key: a process
    started after the edit would read them."""
    env = dict(os.environ, PYTHONPATH=ROOT, TJIT_PROGRAM_CACHE="1")

    def attempt(n):
        keys = []
        for how in ("untouched", "edited"):
            r = subprocess.run([sys.executable, "-c", _KEY_AFTER_AN_EDIT, how], env=env,
                               cwd=ROOT, capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, r.stderr[-2000:]
            keys.append(r.stdout.split())
        return keys
    (loaded, untouched_again), (loaded_edit, new_process) = run_while_sources_hold_still(
        attempt)
    assert loaded == untouched_again != "None"
    assert loaded_edit == loaded and new_process != loaded


def test_what_the_key_cannot_name_is_not_cached(cache):
    triple_p = Primitive("test_triple")     # rules outside tjit: edits would go unseen
    triple_p.def_impl(lambda xp, x: x * 3)
    triple_p.def_abstract_eval(lambda a: a)
    x = np.linspace(-1, 1, 10).astype(F32)
    f = lambda x: triple_p.bind(x) + 1
    assert _entry_key(f, x) is None
    out, d = _stats(tjit.jit(f), x)
    assert d["not_keyed"] == 1 and d["stored"] == 0
    np.testing.assert_allclose(np.asarray(out), x * 3 + 1, rtol=1e-6)
    enc = pc._Encoder()
    for param in (lambda v: v, object(), np.array([object()])):   # closures, user objects
        with pytest.raises(pc._NotKeyable):
            enc.value(param)


def test_library_steps_are_stored_and_read_back(cache, rng):
    """(More in test_program_cache_library.py: every kind, read by a new process.)"""
    x = rng.standard_normal(50).astype(F32)
    for rep in range(2):
        out, d = _stats(tjit.jit(lambda x: jnp.sort(x) * 2), x)
        assert d["stored"] == 1 - rep and d["hits"] == rep and d["not_stored"] == 0
        np.testing.assert_array_equal(np.asarray(out), np.sort(x) * 2)


def _entry_key(f, *args, target=CPU):
    return pc.program_key(tjit.make_jaxpr(f)(*args), target)


def test_a_corrupt_entry_is_reported_and_recompiled(cache, rng):
    f = lambda x: jnp.cos(x) * 3
    x = rng.standard_normal(40).astype(F32)
    tjit.jit(f)(x)
    key = _entry_key(f, x)
    for bad in (b"not a pickle", pickle.dumps({"a": 1}), pickle.dumps(1)[:-1]):
        disk_cache.put(key, bad)      # framing intact, payload bad
        with pytest.warns(RuntimeWarning, match="unusable"):
            out, d = _stats(tjit.jit(f), x)
        assert d["bad_entries"] == 1 and d["stored"] == 1
        np.testing.assert_allclose(np.asarray(out), np.cos(x) * 3, rtol=1e-5, atol=1e-6)
    path = pathlib.Path(disk_cache.default_cache().path(key))   # truncated: disk_cache's check
    path.write_bytes(path.read_bytes()[:100])
    with pytest.warns(RuntimeWarning, match="invalid"):
        out, d = _stats(tjit.jit(f), x)
    assert d["stored"] == 1
    np.testing.assert_allclose(np.asarray(out), np.cos(x) * 3, rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, d = _stats(tjit.jit(f), x)         # the replaced entry is good
    assert d["hits"] == 1


_WORKER = textwrap.dedent("""
    import numpy as np
    import tjit, tjit.numpy as jnp
    from tjit.xla_like import program_cache as pc

    def run():
        before = dict(pc.STATS)
        x = np.linspace(-3, 3, 257).astype(np.float32)
        f = lambda x: jnp.tanh(x) * jnp.exp(-x * x) + x / 7
        out = np.asarray(tjit.jit(f)(x))
        x = x.astype(np.float64)
        np.testing.assert_allclose(out, np.tanh(x) * np.exp(-x * x) + x / 7, rtol=1e-5,
                                   atol=1e-6)
        return pc.STATS["hits"] - before["hits"], pc.STATS["stored"] - before["stored"]

    if __name__ == "__main__":
        print(*run())
""")


def _run_workers(n, folder):
    """``n`` processes running _WORKER at once on the cache ``folder``: their (hits, stored)."""
    env = dict(os.environ, TJIT_CACHE_DIR=str(folder), TJIT_PROGRAM_CACHE="1",
               PYTHONPATH=ROOT)
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(n)]
    counts = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        counts.append(tuple(map(int, out.split()[-2:])))
    return counts


def test_processes_writing_one_entry_at_once(cache):
    """Two processes compile and store one program at once; a third, started after
    both, reads it back. (New processes, all three: the test session's own code may be
    older than the sources the key is made of; rerun if the sources change meanwhile.)"""
    def attempt(n):
        folder = cache / f"try{n}"
        writers = _run_workers(2, folder)
        # each compiled and stored it, or (started late) read the other's entry
        assert all(c in ((0, 1), (1, 0)) for c in writers), writers
        assert _run_workers(1, folder) == [(1, 0)]
    run_while_sources_hold_still(attempt)


def test_cross_process_checks_are_rerun_when_the_sources_change(monkeypatch):
    """A try during which tjit's sources changed gives no verdict (its processes may
    have keyed programs by two different compilers); a try while they held still does."""
    from tests.xla_like import sources_still
    stamps = iter([{"a.py": (1, 1)}, {"a.py": (1, 2)}, {"a.py": (1, 2)}, {"a.py": (1, 2)}])
    monkeypatch.setattr(sources_still, "snapshot", lambda: next(stamps))
    tries = []

    def attempt(n):
        tries.append(n)
        assert n == 1, "judged on a try during which the sources changed"
        return "read back"
    assert run_while_sources_hold_still(attempt) == "read back" and tries == [0, 1]
    monkeypatch.setattr(sources_still, "snapshot", lambda: {"a.py": (1, 1)})
    with pytest.raises(AssertionError, match="judged on a try"):    # held still: a verdict
        run_while_sources_hold_still(lambda n: attempt(n + 5))
    stamps = iter(range(10))
    monkeypatch.setattr(sources_still, "snapshot", lambda: {"a.py": (1, next(stamps))})
    with pytest.raises(pytest.fail.Exception, match="changed during each of 3 tries"):
        run_while_sources_hold_still(lambda n: "never judged")


def test_a_donated_loop_carry_from_the_cache_is_updated_in_place(cache, rng):
    """Program tables keyed by step identity (loop donations) survive the round trip."""
    def f(x):
        return lax.fori_loop(0, 5, lambda i, v: v * 0.5 + 1.0, x)
    for rep in range(2):
        x0 = rng.standard_normal((16, 8)).astype(F32)
        x = jnp.asarray(x0)
        ptr = np.asarray(x).ctypes.data
        out, d = _stats(tjit.jit(f, donate_argnums=0), x)
        assert d["hits"] == rep and d["stored"] == 1 - rep, (rep, d)
        want = x0.astype(np.float64)
        for _ in range(5):
            want = want * 0.5 + 1.0
        np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)
        assert x.is_deleted() and np.asarray(out).ctypes.data == ptr
