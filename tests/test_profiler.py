"""tjit.profiler: the timeline it writes (Chrome trace events, gzip) holds the jitted
calls, the traces/compiles with their causes, and the user's annotations."""
import doctest
import glob
import gzip
import json
import os
import sys
import threading

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import profiler


def _events(path):
    with gzip.open(path) as f:
        doc = json.load(f)
    return [e for e in doc["traceEvents"] if e["ph"] == "X"], doc


def test_a_training_loop_timeline(tmp_path):
    f = tjit.jit(lambda x: jnp.tanh(x) * 3.25)
    step = profiler.annotate_function(lambda x: f(x) + 1, name="my step")
    with profiler.trace(tmp_path, create_perfetto_trace=True):
        outs = []
        for i in range(3):
            with profiler.StepTraceAnnotation("train", step_num=i):
                with profiler.TraceAnnotation("batch", size=4):
                    outs.append(step(jnp.ones(4)))
        thread = threading.Thread(target=lambda: f(jnp.ones(4)), name="worker")
        thread.start()
        thread.join()
    np.testing.assert_allclose(outs[-1], np.tanh(1.0) * 3.25 + 1, rtol=1e-6)
    files = sorted(glob.glob(os.path.join(tmp_path, "plugins", "profile", "*", "*.json.gz")))
    names = {os.path.basename(p) for p in files}
    assert "perfetto_trace.json.gz" in names and len(names) == 2   # + <host>.trace.json.gz
    events, doc = _events(files[0])
    names = [e["name"] for e in events]
    assert names.count("jit(<lambda>)") == 4            # every call, worker thread too
    assert ["train 0", "train 1", "train 2"] == [n for n in names if n.startswith("train")]
    assert names.count("my step") == 3 and names.count("batch") == 3
    batch = next(e for e in events if e["name"] == "batch")
    assert batch["args"] == {"size": 4}
    compiles = [e for e in events if e["cat"] == "compile"]
    assert len(compiles) == 1 and compiles[0]["args"]["cause"] == "first call"
    threads = {e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    assert "worker" in threads
    # spans nest in time: each step holds its batch and its jitted call
    for s in (e for e in events if e["name"].startswith("train")):
        inner = [e for e in events if e["name"] == "batch" and
                 s["ts"] <= e["ts"] and e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 1]
        assert len(inner) == 1


def test_start_stop_errors_and_the_hook_turns_off(tmp_path):
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()
    profiler.start_trace(tmp_path)
    try:
        with pytest.raises(RuntimeError, match="already been started"):
            profiler.start_trace(tmp_path)
        assert tjit.config.jit_hooks
    finally:
        paths = profiler.stop_trace()
    assert not tjit.config.jit_hooks and all(os.path.exists(p) for p in paths)


def test_profiling_with_debug_nans_keeps_both(tmp_path):
    f = tjit.jit(lambda x: jnp.log(x))
    with profiler.trace(tmp_path), tjit.debug_nans():
        with pytest.raises(FloatingPointError, match="in log"):
            f(jnp.float32(-1))
    assert not tjit.config.jit_hooks


def test_profiler_examples_run():
    result = doctest.testmod(sys.modules["tjit.profiler"])
    assert result.attempted > 5 and result.failed == 0
