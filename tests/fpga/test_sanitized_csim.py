"""C simulation under g++'s sanitizers (``TJIT_HLS_SANITIZE``, ``devices/hls_compile.py``):
undefined behaviour in a design or in the simulation headers (a stream used after it
died, an out-of-bounds buffer index, a race between dataflow stages) aborts the run
instead of giving a number that depends on the optimization level. One dataflow design
with streams and row reductions (layernorm) and one tiled dot with a partial tile run
at -O0 under address+undefined, and the dataflow design under thread; the results are
checked against NumPy in float64. Each run is a fresh Python with the sanitizer's
runtime preloaded (it must be loaded before the library that uses it)."""

import os
import subprocess
import sys
import textwrap

import pytest

from tjit.devices import hls_compile

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))

_SCRIPT = textwrap.dedent("""
    import numpy as np
    import tjit, tjit.numpy as jnp

    def layernorm(x):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5)

    def dot(a, b):
        return jnp.tanh(a @ b)

    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 48)).astype(np.float32)
    a = rng.standard_normal((20, 32)).astype(np.float32)   # 20 rows: a partial tile of 16
    b = rng.standard_normal((32, 24)).astype(np.float32)
    cases = [(layernorm, (x,), "hls::stream<"), (dot, (a, b), "ARRAY_PARTITION")]
    if "{which}" == "dataflow":
        cases = cases[:1]
    for f, args, marker in cases:
        c = tjit.jit(f).lower(*args).compile(backend="hls")
        (design,) = c.executable.designs.values()
        assert marker in design.text, (f.__name__, "not the design this test is about")
        got = np.asarray(c(*args), np.float64)
        a64 = [np.asarray(t, np.float64) for t in args]
        if f is dot:
            want = np.tanh(a64[0] @ a64[1])
        else:
            m = a64[0].mean(-1, keepdims=True)
            want = (a64[0] - m) / np.sqrt(((a64[0] - m) ** 2).mean(-1, keepdims=True) + 1e-5)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    print("ran", len(cases))
""")


def _runtime(name):
    path = subprocess.run([hls_compile.compiler(), f"-print-file-name={name}"],
                          capture_output=True, text=True, check=False).stdout.strip()
    return path if os.path.isabs(path) and os.path.exists(path) else None


@pytest.mark.parametrize("sanitize, runtime, which", [
    ("address,undefined", "libasan.so", "all"),
    ("thread", "libtsan.so", "dataflow"),
])
def test_designs_run_clean_under_sanitizers(sanitize, runtime, which, tmp_path):
    lib = _runtime(runtime)
    if lib is None:
        pytest.skip(f"{hls_compile.compiler()} has no {runtime}")
    # libstdc++ preloaded too: ASan intercepts __cxa_throw only when libstdc++ is
    # loaded at its start (a region stops its stages by throwing)
    preload = " ".join(p for p in (lib, _runtime("libstdc++.so")) if p)
    env = dict(os.environ, TJIT_HLS_SANITIZE=sanitize, LD_PRELOAD=preload,
               TJIT_CACHE_DIR=str(tmp_path),   # a fresh build, not a cached one
               ASAN_OPTIONS="detect_leaks=0",  # Python's own allocations are not ours
               UBSAN_OPTIONS="print_stacktrace=1", TSAN_OPTIONS="halt_on_error=1")
    r = subprocess.run([sys.executable, "-c", _SCRIPT.format(which=which)], env=env,
                       capture_output=True, text=True, timeout=600, check=False)
    assert r.returncode == 0 and "ran" in r.stdout, (
        f"C simulation under -fsanitize={sanitize} failed:\n{r.stdout[-2000:]}\n"
        f"{r.stderr[-6000:]}")
