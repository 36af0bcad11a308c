"""What ``import tjit`` leaves for later: llvmlite's binding (imported by the first
compile) and jnp's generated docstrings (made once, then read from the cache folder;
``tjit/_docs_cache.py``). Either way every docstring is there after import."""

import json
import os
import subprocess
import sys

import pytest

from tjit import _docs_cache

_PROBE = """
import hashlib, inspect, json, sys
import tjit, tjit.numpy as jnp
from tjit import _docs_cache
binding_at_import = "llvmlite.binding" in sys.modules
h = hashlib.sha256()
made = notes = 0
for ns in (jnp, jnp.linalg, jnp.fft):
    for name in ns.__all__:
        f = getattr(ns, name)
        if inspect.isfunction(f):
            doc = f.__doc__ or ""
            h.update((name + "\\0" + doc + "\\0").encode())
            made += "tjit implementation of :func:`numpy." in doc
            notes += "NumPy: :func:`numpy." in doc
import numpy as np
tjit.jit(lambda x: x * 2.0)(np.ones(3, np.float32))
print(json.dumps({"binding_at_import": binding_at_import,
                  "binding_after_jit": "llvmlite.binding" in sys.modules,
                  "docs": h.hexdigest(), "stats": _docs_cache.STATS,
                  "made": made, "notes": notes, "sum_doc": jnp.sum.__doc__}))
"""


def _probe(cache_dir):
    env = dict(os.environ, TJIT_CACHE_DIR=str(cache_dir))
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _tree_state():
    """(path, size, mtime) of tjit's sources: what the docstrings' cache key reads."""
    root = os.path.dirname(os.path.abspath(_docs_cache.__file__))
    state = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:          # (removed meanwhile: the state changed)
                    continue
                state.append((folder, name, st.st_size, st.st_mtime_ns))
    return sorted(state)


def _two_probes(tmp_path):
    """Two fresh imports with one cache folder. Where tjit's sources changed between
    them (another process editing a shared working tree), the second import rightly
    made the docstrings again (the key holds the modules' mtimes): probe again, with
    a new folder, up to three times."""
    for attempt in range(3):
        folder = tmp_path / str(attempt)
        before = _tree_state()
        probes = _probe(folder), _probe(folder)
        if _tree_state() == before:
            break
    return probes


def test_import_defers_llvm_and_reuses_docstrings(tmp_path):
    first, second = _two_probes(tmp_path)
    assert not first["binding_at_import"] and first["binding_after_jit"]
    assert first["stats"] == {"made": 1, "cached": 0}
    assert second["stats"] == {"made": 0, "cached": 1}
    assert second["docs"] == first["docs"]
    # docstrings made from NumPy's, notes added to own ones: there after either import
    assert second["made"] == first["made"] > 10 and second["notes"] == first["notes"] > 50
    assert second["sum_doc"] == first["sum_doc"] and second["sum_doc"].strip()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    return tmp_path


def _namespace():
    def f(x):
        return x

    def g(x):
        """Own docstring."""
        return x
    return {"__all__": ["f", "g"], "f": f, "g": g}


def test_fill_stores_what_make_set_and_sets_it_again(cache_dir):
    ns = _namespace()

    def make():
        ns["f"].__doc__ = "made for f"
    _docs_cache.fill([("toy", ns)], make)
    again = _namespace()

    def fail():
        raise AssertionError("the entry should have been used")
    _docs_cache.fill([("toy", again)], fail)
    assert again["f"].__doc__ == "made for f" and again["g"].__doc__ == "Own docstring."


def test_unusable_entry_makes_docstrings_again(cache_dir):
    ns = _namespace()
    key = _docs_cache._key()
    _docs_cache._cache().put(key, b"not a marshal payload")
    calls = []
    _docs_cache.fill([("toy", ns)], lambda: calls.append(1))
    assert calls == [1]


def test_docstring_cache_key_follows_the_stored_examples_a_cache_hit_never_imports():
    """The key names every file the docstrings are made from: ``_doc_examples.py`` is read
    by the maker only, so a hit never imports it, and its edits must still miss."""
    import os
    from tjit import _docs_cache
    path = os.path.join(os.path.dirname(_docs_cache.__file__), "_doc_examples.py")
    st = os.stat(path)
    before = _docs_cache._key()
    try:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        assert _docs_cache._key() != before
    finally:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _docs_cache._key() == before
