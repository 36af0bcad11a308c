"""A program's kernels compiled on threads (``lower/llvm/parallel.py`` through
``kernel_cache.compile_kernels``): the same object bytes as one at a time, errors still
raised, results equal to the reference interpreter's, and the disk entries they leave
hit in a later process."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import kernel_cache
from tjit.lower.llvm import parallel, target
from tjit.xla_like import kernel_ir as K

F32 = np.dtype(np.float32)


def _irs():
    """LLVM IR of a few kernels of different profiles: row sums of two row counts (a
    vector-profile reduction each), a small elementwise one with exp (scalar profile)."""
    from tjit.lower.llvm import codegen
    from tjit.lower.llvm.profile import compile_profile
    out = []
    for rows in (8192, 64):
        load = K.Load(0, K.Affine(0, (32, 1)), F32)
        k = K.Kernel("k", (rows, 32), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                     stages=(K.Reduction(K.Op("mul", (load, load), F32), "sum", F32),),
                     stores=(K.Store(1, K.Affine(0, (1, 0)), K.Stage(0, F32), "outer"),),
                     reduce_axes=(1,))
        out.append((k, compile_profile(k)))
    e = K.Op("exp", (K.Load(0, K.Affine(0, (1,)), F32),), F32)
    k = K.Kernel("k", (100,), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                 stores=(K.Store(1, K.Affine(0, (1,)), e),))
    out.append((k, compile_profile(k)))
    return [(codegen.kernel_to_llvm_ir(k, f"tjit_par_test_{i}", p), p)
            for i, (k, p) in enumerate(out)], [k for k, _ in out]


def test_threads_give_the_serial_bytes(monkeypatch):
    jobs, kernels = _irs()
    for k in kernels:       # (the scalar profile calls the process's math library)
        kernel_cache._load_math(k, "scalar" if k.shape == (100,) else "vector")
    assert {p for _, p in jobs} == {"vector", "scalar"}
    serial = [target.emit_object(ir, p) for ir, p in jobs]
    monkeypatch.setattr(parallel, "_usable_cores", lambda: 4)
    assert parallel.threads_for(len(jobs)) == 3
    assert parallel.emit_objects(jobs * 2) == serial * 2
    monkeypatch.setattr(parallel, "MAX_THREADS", 1)
    assert parallel.threads_for(len(jobs)) == 1
    assert parallel.emit_objects(jobs) == serial


def test_invalid_ir_raises_on_a_thread(monkeypatch):
    monkeypatch.setattr(parallel, "_usable_cores", lambda: 2)
    jobs, _ = _irs()
    with pytest.raises(ValueError, match="generated LLVM IR is invalid"):
        parallel.emit_objects([jobs[0], ("define void @f( {", "vector")])


#: IR that parses but does not verify (a use its definition does not dominate)
_NOT_DOMINATING = """define i32 @tjit_par_not_dominating() {
entry:
  br label %b
b:
  ret i32 %x
c:
  %x = add i32 1, 1
  br label %b
}
"""


def test_modules_are_disposed_before_their_context_is_handed_back(monkeypatch):
    """A thread's LLVM context is used without llvmlite's lock by whichever thread takes
    it next, so the module parsed into it must be disposed of before the hand-back (a
    module left to garbage collection was disposed after it, racing with the next
    owner's passes in the same context)."""
    jobs, kernels = _irs()
    kernel_cache._load_math(kernels[0], "vector")
    parsed, open_at_hand_back = [], []
    real_parse, real_give = parallel.llvm.parse_assembly, parallel._give_state

    def parse(text, context=None):
        parsed.append(real_parse(text, context=context))
        return parsed[-1]

    def give(state):
        open_at_hand_back.append(not parsed[-1].closed)
        real_give(state)
    monkeypatch.setattr(parallel.llvm, "parse_assembly", parse)
    monkeypatch.setattr(parallel, "_give_state", give)
    assert parallel._emit(*jobs[0])                         # compiled,
    with pytest.raises(ValueError, match="generated LLVM IR is invalid"):
        parallel._emit(_NOT_DOMINATING, "vector")      # parsed, then failed to verify
    assert len(parsed) == 2 and open_at_hand_back == [False, False]


def _program(w, x):
    y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    s = jnp.sum(y * y, axis=(1, 2))             # row sums of two row counts
    return jnp.tanh(y).mean(), s, jnp.sum(w * w, axis=(0, 1, 2))


def _args():
    rng = np.random.default_rng(5)
    return (rng.standard_normal((3, 3, 4, 8)).astype(np.float32),
            rng.standard_normal((2, 6, 6, 4)).astype(np.float32))


def test_program_compiled_on_threads_matches_interpreter(monkeypatch, tmp_path):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(parallel, "_usable_cores", lambda: 2)
    batches = []
    real = parallel.emit_objects
    monkeypatch.setattr(parallel, "emit_objects", lambda jobs, max_threads=None:
                        batches.append(len(jobs)) or real(jobs, max_threads))
    monkeypatch.setenv("TJIT_NUM_THREADS", "2")
    kernel_cache.clear()
    w, x = _args()
    got = tjit.jit(tjit.value_and_grad(lambda w, x: _program(w, x)[0]))(w, x)
    ref = tjit.jit(tjit.value_and_grad(lambda w, x: _program(w, x)[0]),
                   backend="interpreter")(w, x)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-4, atol=1e-6)
    outs = tjit.jit(_program)(w, x)
    refs = tjit.jit(_program, backend="interpreter")(w, x)
    for g, r in zip(outs, refs):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    assert batches and max(batches) >= 2     # (the kernels went through the threads)


def test_one_runtime_thread_compiles_one_kernel_at_a_time(monkeypatch, tmp_path):
    """``$TJIT_NUM_THREADS=1``: the user asked tjit for one core; kernels then compile
    one after another on the calling thread."""
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TJIT_NUM_THREADS", "1")
    monkeypatch.setattr(parallel, "_usable_cores", lambda: 4)
    on_threads = []
    real = parallel._emit
    monkeypatch.setattr(parallel, "_emit", lambda ir, *a: on_threads.append(
        "tjit_kernel_" in ir) or real(ir, *a))   # (a runtime helper may build here)
    kernel_cache.clear()
    w, x = _args()
    w = w * 1.5       # (kernels of their own: other constants than the tests above)
    outs = tjit.jit(lambda w, x: _program(w * 0.5, x))(w, x)
    refs = tjit.jit(lambda w, x: _program(w * 0.5, x), backend="interpreter")(w, x)
    for g, r in zip(outs, refs):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    assert kernel_cache.STATS["compiled"] and not any(on_threads)


CHILD = r"""
import json, sys
sys.path.insert(0, {root!r})
import numpy as np
import tjit
from tjit.devices import kernel_cache
from tjit.lower.llvm import parallel
parallel._usable_cores = lambda: 2
from tests.lower.test_llvm_parallel import _program, _args
outs = tjit.jit(_program)(*_args())
print(json.dumps({{"stats": kernel_cache.STATS,
                  "outs": [np.asarray(o).tolist() for o in outs]}}))
"""


def test_disk_entries_of_a_threaded_compile_hit_in_a_later_process(tmp_path):
    env = dict(os.environ, TJIT_CACHE_DIR=str(tmp_path), TJIT_PROGRAM_CACHE="0")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = CHILD.format(root=root)
    runs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    first, second = runs
    assert first["stats"]["compiled"] >= 2 and first["stats"]["disk_hits"] == 0
    assert second["stats"]["compiled"] == 0
    assert second["stats"]["disk_hits"] == first["stats"]["compiled"]
    assert first["outs"] == second["outs"]
