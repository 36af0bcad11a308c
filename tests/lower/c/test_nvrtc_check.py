"""The end-of-session NVRTC check (``nvrtc_check.py``) on a tiny test file run by a
pytest of its own: a kernel whose CUDA source does not compile fails the run with a
report naming it, the test that made it, its source and NVRTC's log; good kernels
pass and are remembered in the disk cache."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.lower.c import runners

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

TINY = textwrap.dedent('''
    import dataclasses
    import os

    import numpy as np

    import tjit
    import tjit.numpy as jnp
    from tests.lower.c import nvrtc_check

    if os.environ.get("BREAK_RENDER"):
        _render = nvrtc_check.render

        def _broken(kernel, dialect, *args, **kwargs):   # valid C, but not CUDA's
            src = _render(kernel, dialect, *args, **kwargs)
            return dataclasses.replace(src, body=src.body.replace(
                "{", "{ int* p = malloc(4); this_is_not_cuda(p);", 1))

        nvrtc_check.render = _broken


    def test_sine():
        x = np.linspace(-2, 2, 16, dtype=np.float32)
        got = tjit.jit(lambda v: jnp.sin(v) * 2 + 1)(x)
        np.testing.assert_allclose(np.asarray(got), np.sin(x) * 2 + 1, rtol=1e-6)
''')


def _run(tmp_path, **env):
    (tmp_path / "tiny_test.py").write_text(TINY)
    base = {k: v for k, v in os.environ.items() if k != "TJIT_NVRTC_CHECK"}   # (default)
    env = dict(base, PYTHONPATH=ROOT, TJIT_CACHE_DIR=str(tmp_path / "cache"), **env)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "tests.lower.c.nvrtc_check", str(tmp_path / "tiny_test.py")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                       check=False)
    return r.returncode, r.stdout + r.stderr


@pytest.mark.skipif(runners.nvrtc_unavailable() is not None,
                    reason=str(runners.nvrtc_unavailable()))
@pytest.mark.parametrize("depth", ["syntax", "ptx"])
def test_broken_render_fails_the_run(tmp_path, depth):
    rc, out = _run(tmp_path, BREAK_RENDER="1", TJIT_NVRTC_CHECK=depth)
    assert "1 passed" in out, out          # the test itself passes ...
    assert rc == 1, out                    # ... the run fails
    assert "kernels failed to compile as CUDA" in out, out
    assert "tiny_test.py::test_sine" in out, out             # who made the kernel
    assert "this_is_not_cuda(p)" in out, out                 # its source
    assert "NVRTC log:" in out and "error" in out.split("NVRTC log:")[1], out


@pytest.mark.skipif(runners.nvrtc_unavailable() is not None,
                    reason=str(runners.nvrtc_unavailable()))
def test_good_kernels_pass_and_are_remembered(tmp_path):
    rc, out = _run(tmp_path)
    assert rc == 0, out
    assert "0 known to compile" in out and "; 0 failed" in out, out
    first = out.split("nvrtc check: ")[1].split(" distinct kernels")[0]
    assert int(first) >= 1, out
    rc, out = _run(tmp_path)                 # same renderer, same NVRTC: nothing to do
    assert rc == 0, out
    assert f"{first} distinct kernels, {first} known to compile, 0 checked" in out, out


def test_skips_with_a_reason(tmp_path):
    rc, out = _run(tmp_path, TJIT_NVRTC_CHECK="0")
    assert rc == 0, out
    assert "nvrtc check skipped: TJIT_NVRTC_CHECK=0" in out, out


def _new_kernels(*calls):
    """The kernels ``calls`` make that the session had not recorded before."""
    from tests.lower.c import collect_kernels
    before = set(collect_kernels.SEEN)
    for f, x in calls:
        np.asarray(tjit.jit(f)(x))
    return [(h, k, "here") for h, k in collect_kernels.SEEN.items() if h not in before]


def test_ptx_depth_compiles_one_variant_per_key_and_leaves_out_the_rest():
    from tests.lower.c import nvrtc_check
    x32 = np.linspace(-1, 1, 4099, dtype=np.float32)
    todo = _new_kernels((lambda v: jnp.sin(v) * 3.5 + 1.25, x32),
                        (lambda v: jnp.cos(v) * 3.5 - 1.25, x32),
                        (lambda v: jnp.tanh(v) * 3.5 + 1.25, x32.astype(np.int32)))
    assert len(todo) == 3
    ptx = nvrtc_check.Checker(nvrtc_check.DEPTHS["ptx"])
    deep = ptx._render(todo)
    n = len(nvrtc_check.cuda_pointwise.VARIANTS) - 1       # the non-default variants
    # every kernel's default rendering goes to PTX; the first float32 kernel's variants
    # too; the second's (same variants, same operand types) are left out; the
    # float32-from-int32 kernel's operand types are new: its variants go to PTX
    assert len(deep) == 3 + 2 * n, [s.entry for *_, s in deep]
    second = nvrtc_check.render(todo[1][1], "cuda")
    assert [s.entry for _, k, _, s in deep if k is todo[1][1]] == [second.entry]
    assert ptx.variants == {"deep": 2 * n, "skipped": n}
    assert {nvrtc_check.variant_key(v, second)
            for v in nvrtc_check._variant_names(second)} <= ptx.variant_keys
    syntax = nvrtc_check.Checker(nvrtc_check.DEPTHS["syntax"])   # every variant
    assert len(syntax._render(todo)) == 3 + 3 * n and syntax.variants["skipped"] == 0
