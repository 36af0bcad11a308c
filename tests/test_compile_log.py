"""The compile log (tjit/compile_log.py): every trace and compile says which function,
why (first call, new shape and the dims made dynamic, static arg changed, fallback,
kernels from the disk cache) and the time per stage, through Python's logging."""

import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import compile_log
from tjit.config import config

LOGGER = "tjit.compiles"


@pytest.fixture
def log_compiles(caplog):
    config.update("log_compiles", True)
    caplog.set_level(logging.WARNING, logger=LOGGER)
    yield caplog
    config.update("log_compiles", False)


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def test_first_call_and_a_new_shape_made_dynamic(log_compiles):
    def scale_rows(x):
        return x * 2.0

    f = tjit.jit(scale_rows)
    f(np.ones((3, 4), np.float32))
    f(np.ones((3, 4), np.float32))           # a hit: nothing logged
    f(np.ones((5, 4), np.float32))
    f(np.ones((6, 4), np.float32))           # served by the dynamic program
    msgs = _messages(log_compiles)
    assert len(msgs) == 2, msgs
    assert "trace+compile of scale_rows (first call)" in msgs[0]
    assert "new shape for arg x: (3, 4) → (5, 4), now dynamic in dim 0" in msgs[1]
    for m in msgs:
        for stage in ("trace", "simplify", "compile"):
            assert f"{stage} " in m.split("[", 1)[1], m
    assert all(r.levelno == logging.WARNING for r in log_compiles.records)


def test_static_arg_changed(log_compiles):
    def power(x, n):
        return x ** n

    f = tjit.jit(power, static_argnames="n")
    f(np.ones(3, np.float32), n=2)
    f(np.ones(3, np.float32), n=3)
    msgs = _messages(log_compiles)
    assert "static arg n changed (n: 2 → 3)" in msgs[1], msgs


def test_dtype_change_and_pytree_paths(log_compiles):
    def apply(params, x):
        return x @ params["w"]

    f = tjit.jit(apply)
    p = {"w": np.ones((4, 2), np.float32)}
    f(p, np.ones((3, 4), np.float32))
    f(p, np.ones((3, 4), np.int32))
    f({"w": np.ones((4, 5), np.float32)}, np.ones((3, 4), np.float32))
    msgs = _messages(log_compiles)
    assert "dtype of arg x changed: float32 → int32" in msgs[1], msgs
    assert "new shape for arg params['w']: (4, 2) → (4, 5), now dynamic in dim 1" in msgs[2]


def test_fallback_is_logged_with_the_line(log_compiles):
    def branchy(x):     # (int() of a size needs the concrete size: order comparisons
        for _ in range(int(x.shape[0]) % 2):    # are guarded instead)
            x = x * 2.0
        return x

    f = tjit.jit(branchy)
    f(np.ones(2, np.float32))
    f(np.ones(5, np.float32))
    f(np.ones(6, np.float32))
    msgs = _messages(log_compiles)
    fell = [m for m in msgs if "fell back to per-shape specialization" in m]
    assert len(fell) == 1 and "int(x.shape[0])" in fell[0], msgs
    assert "per-shape specialization since" in msgs[-1]


def test_shape_change_without_dynamic_shapes(log_compiles):
    f = tjit.jit(lambda x: x + 1.0, dynamic_shapes=False)
    f(np.ones(3, np.float32))
    f(np.ones(4, np.float32))
    assert "(3,) → (4,) (automatic dynamic shapes are off)" in _messages(log_compiles)[1]


def test_cache_hit_on_disk(log_compiles, tmp_path, monkeypatch):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))   # (read at every lookup)
    c = float(np.random.default_rng().integers(1 << 20)) / 7.0   # a kernel never seen

    def fresh(x):
        return jnp.sin(x) * c + 1.0

    tjit.jit(fresh)(np.ones(5, np.float32))
    tjit.clear_caches()
    tjit.jit(fresh)(np.ones(5, np.float32))
    msgs = _messages(log_compiles)
    assert "kernels: 1 compiled" in msgs[0], msgs
    assert "cache hit on disk" in msgs[-1], msgs


def test_dynamic_program_kernels_come_from_disk(log_compiles, tmp_path, monkeypatch):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    c = float(np.random.default_rng().integers(1 << 20)) / 11.0

    def fresh(x):
        return jnp.cos(x) * c - 2.0

    for _ in range(2):
        tjit.clear_caches()
        f = tjit.jit(fresh)
        for n in (3, 5):
            np.testing.assert_allclose(f(np.ones(n, np.float32)), np.cos(1.0) * c - 2.0,
                                       rtol=1e-5)
    msgs = _messages(log_compiles)
    assert "now dynamic in dim 0" in msgs[1] and "kernels: 1 compiled" in msgs[1], msgs
    assert "now dynamic in dim 0" in msgs[3] and "cache hit on disk" in msgs[3], msgs


def test_lower_compile_and_make_jaxpr_are_logged(log_compiles):
    def affine(x):
        return x * 3.0 + 1.0

    tjit.jit(affine).lower(np.ones(4, np.float32)).compile()
    tjit.make_jaxpr(affine)(np.ones(4, np.float32))
    msgs = _messages(log_compiles)
    assert msgs[0].startswith("trace of affine (lower())"), msgs
    assert msgs[1].startswith("compile of affine (Lowered.compile())"), msgs
    assert msgs[2].startswith("trace of affine (make_jaxpr)"), msgs


def test_silent_by_default_but_at_debug(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    tjit.jit(lambda x: x - 1.0)(np.ones(2, np.float32))
    recs = [r for r in caplog.records if r.name == LOGGER]
    assert recs and all(r.levelno == logging.DEBUG for r in recs)


def test_stage_helper_reports_into_the_record():
    with compile_log.recording("f", "test") as rec:
        with compile_log.stage("fuse"):
            pass
        compile_log.current().add("llvm", 0.25)
    assert set(rec.stages) == {"fuse", "llvm"} and rec.stages["llvm"] == 0.25
    with compile_log.stage("fuse"):      # no record open: nothing to report into
        assert compile_log.current() is None


def test_environment_variable_logs_to_stderr():
    code = ("import numpy as np, tjit\n"
            "def double(x):\n    return x * 2.0\n"
            "tjit.jit(double)(np.ones(3, np.float32))\n")
    env = dict(os.environ, TJIT_LOG="compiles")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert "trace+compile of double (first call)" in r.stderr
