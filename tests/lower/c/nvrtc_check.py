"""A pytest plugin: every kernel the test session makes is rendered as CUDA and checked
by NVRTC for ``compute_90``, so a CUDA syntax or type error fails the run even on a
machine without a GPU (NVRTC needs none).

``tests/conftest.py`` registers it for every run. Kernels come from
``collect_kernels`` (the CPU backend's compiled kernels and those the OpenCL, CUDA and
FPGA builders render). At the end of the session they are rendered (in recording
order) and compiled in batches of ``runners.BATCH`` sources per translation unit, the
batches side by side in threads (NVRTC releases the GIL); if any kernel failed, the run fails (exit status 1)
with a report naming each failing kernel, the test that first made it, its CUDA source
and NVRTC's log. A failed batch is compiled again one source at a time to find the
culprits. Not while the tests run: NVRTC's tens of MB of working memory made the
resident-memory bound of tests/devices/test_kernel_cache_memory.py fail, and on two
busy cores compiling in the background saved little (measured: 27.6 s of NVRTC, 18.8 s
still waited at the end, against 15.5 s all at the end, for 240 kernels).

Two depths, chosen by ``TJIT_NVRTC_CHECK``:

* default (``syntax``): NVRTC's front end only (``-fdevice-syntax-only``: parsing,
  name lookup, types: syntax and type errors), ~30x cheaper than code generation;
* ``ptx``: the whole compile to PTX. The whole suite (8331 distinct kernels) took 328 s
  of NVRTC (187 s wall on two busy cores, +37 % on the suite), hence not the default;
  ``tests/lower/c/test_cuda.py`` compiles every conformance kernel to PTX anyway;
* ``0``: skipped. It is also skipped, with the reason printed, when NVRTC is not
  importable (``pip install cupy-cuda12x nvidia-cuda-nvrtc-cu12``: in the test extra).

Options are the CUDA runtime's (``cuda_compile.compile_source``: no flush-to-zero, no
FMA contraction, IEEE division and square root). Vectorized pointwise kernels are also
compiled in every other pointwise variant a user may pick (``TJIT_CUDA_POINTWISE``,
``devices/cuda_pointwise.py``). At the ``syntax`` depth every variant source goes
through the front end. At the ``ptx`` depth one variant per :func:`variant_key` (the
variant and its operands' types and roles: what a variant adds to the default
rendering, whose expression code is compiled to PTX for every kernel) goes through the
whole compile and the others are not rendered: a vectorized kernel has four variant
sources, each ~2.4x its default's PTX time (unrolled chunks), and the whole suite's
13,492 other variant sources took 8 s to render and ~30 s of NVRTC's front end in CI
for code the representatives and the default renderings already cover.
``tests/lower/c/test_wide_chunks.py`` compiles its variant corpus to PTX anyway. Kernels
that passed are remembered in
the tjit disk cache, keyed by their kernel hash under a digest of the renderer's
sources (``tjit/lower``, ``tjit/xla_like``), the NVRTC version, the options and the
depth, so a repeated run compiles only new kernels.
"""

import hashlib
import os
import pathlib
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import tjit
from tests.lower.c import collect_kernels, runners
from tjit.devices import cuda_pointwise, disk_cache
from tjit.devices.cuda_compile import CudaCompileError, compile_source, options
from tjit.lower.c import render
from tjit.xla_like import hlo
from tjit.xla_like import kernel_ir as K

ARCH = "compute_90"
#: ``TJIT_NVRTC_CHECK`` -> the options added to the runtime's (None: skipped).
DEPTHS = {"syntax": ("-fdevice-syntax-only",), "1": ("-fdevice-syntax-only",),
          "ptx": (), "0": None}
#: Threads compiling batches side by side at the end (NVRTC releases the GIL).
WORKERS = max(1, min(8, os.cpu_count() or 1))


def _digest(extra):
    """Names the renderer's sources, NVRTC's version and the options: a change to any
    of them forgets which kernels passed."""
    from cupy_backends.cuda.libs import nvrtc
    root = pathlib.Path(tjit.__file__).parent
    h = hashlib.sha256()
    for sub in ("lower", "xla_like"):
        for p in sorted((root / sub).rglob("*.py")):
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    h.update(repr((tuple(nvrtc.getVersion()), options(ARCH), extra,
                   cuda_pointwise.VARIANTS)).encode())
    return disk_cache.cache_key("nvrtc-check:" + h.hexdigest())


def _variant_names(src):
    """The other pointwise variants a user may pick (``TJIT_CUDA_POINTWISE``) in which a
    kernel whose default rendering is ``src`` renders differently: vectorized pointwise
    kernels only."""
    if src.launch.kind != "pointwise" or src.launch.vector == 1:
        return []
    return [v for v in cuda_pointwise.VARIANTS if v != cuda_pointwise.DEFAULT]


def _render_variant(kernel, src, variant):
    """``kernel`` in ``variant``; its entry is suffixed, so it shares a unit with the
    default rendering ``src``."""
    return render(kernel, cuda_pointwise.dialect(variant),
                  f"{src.entry}_{variant.replace('x', '_')}")


def _variants(kernel, src):
    """``kernel`` rendered in every other pointwise variant where they differ."""
    return [_render_variant(kernel, src, v) for v in _variant_names(src)]


def variant_key(variant, src):
    """What decides ``variant``'s code beyond the kernel's default rendering ``src``: the
    variant, its buffers' types and roles (the vector loads and stores it unrolls) and
    whether sizes are runtime arguments."""
    return (variant,
            frozenset((p.dtype.str, p.role) for p in src.params if p.kind == "buffer"),
            any(p.kind == "size" for p in src.params))


def _batches(items):
    return [items[b:b + runners.BATCH] for b in range(0, len(items), runners.BATCH)]


def _narrow(kernel):
    """Whether ``kernel`` computes on a float8/int4 type: only the LLVM backend makes such
    kernels (``hlo.NARROW_KERNEL_DTYPES``; the CUDA target's kernel dtypes leave them
    out, tests/lower/test_narrow_kernels.py checks it), so CUDA never renders them."""
    return any(np.dtype(a.dtype) in hlo.NARROW_KERNEL_DTYPES for a in kernel.args) or any(
        np.dtype(getattr(n, "dtype", "f4")) in hlo.NARROW_KERNEL_DTYPES
        for n in K.all_nodes(kernel))


class Failure:
    def __init__(self, h, kernel, where, source, log):
        self.hash, self.kernel, self.where = h, kernel, where
        self.source, self.log = source, log


class Checker:
    """Collects the recorded kernels; :meth:`finish` renders and compiles them."""

    def __init__(self, extra):
        self.extra = extra
        self.key = _digest(extra)
        cached = disk_cache.get(self.key)
        self.known_ok = set(cached.decode().split()) if cached else set()
        self.passed = set()
        self.failures = []
        #: variant sources compiled / left out (``ptx``: one per variant_key is compiled)
        self.variants = {"deep": 0, "skipped": 0}
        self.variant_keys = set()
        self.kernels = self.cached = self.batches = 0
        self.seconds = {"render": 0.0, "nvrtc": 0.0, "wall": 0.0}
        self._pending = []
        self._lock = threading.Lock()

    def add(self, h, kernel):
        where = os.environ.get("PYTEST_CURRENT_TEST", "(outside a test)")
        if _narrow(kernel):
            return    # (an LLVM-only kernel: CUDA runs float8/int4 ops as host steps)
        with self._lock:
            self.kernels += 1
            if h in self.known_ok:
                self.cached += 1
            else:
                self._pending.append((h, kernel, where))

    def finish(self):
        """Compile every pending kernel and remember those that passed."""
        t = time.perf_counter()
        with self._lock:
            todo, self._pending = self._pending, []
        jobs = [(self.extra, b) for b in _batches(self._render(todo))]
        self.batches = len(jobs)
        if jobs:
            with ThreadPoolExecutor(min(WORKERS, len(jobs)),
                                    thread_name_prefix="tjit-nvrtc-check") as pool:
                list(pool.map(self._check_or_report, jobs))
        failed = {f.hash for f in self.failures}
        self.passed = {h for h, *_ in todo if h not in failed}
        self.seconds["wall"] = time.perf_counter() - t
        if self.passed:
            disk_cache.put(self.key, "\n".join(sorted(self.known_ok | self.passed)).encode())

    def _render(self, todo):
        """The sources to compile at the chosen depth, as ``(hash, kernel, where,
        source)``: every kernel's default rendering and its variants (at ``ptx``, only
        the variants whose :func:`variant_key` is new). Serial and in recording order,
        so the same variants are compiled on every run (rendering holds the GIL: threads
        gain nothing)."""
        t = time.perf_counter()
        deep = []
        for h, k, where in todo:
            try:
                src = render(k, "cuda")
                variants = []
                for v in _variant_names(src):
                    key = variant_key(v, src)
                    if self.extra or key not in self.variant_keys:
                        self.variant_keys.add(key)
                        variants.append(_render_variant(k, src, v))
                    else:
                        self.variants["skipped"] += 1
            except Exception:      # noqa: BLE001 (the renderer must render every kernel)
                self.failures.append(Failure(h, k, where, None,
                                             "render(kernel, 'cuda') raised:\n"
                                             + traceback.format_exc()))
                continue
            deep.append((h, k, where, src))
            deep.extend((h, k, where, v) for v in variants)
            self.variants["deep"] += len(variants)
        self.seconds["render"] += time.perf_counter() - t
        return deep

    def _check_or_report(self, job):
        try:
            self._check(*job)
        except Exception:      # noqa: BLE001 (a bug here must fail the run, not be lost)
            with self._lock:
                self.failures.extend(Failure(h, k, w, None, traceback.format_exc())
                                     for h, k, w, _ in job[1])

    def _check(self, extra, batch):
        try:
            self._compile([s for *_, s in batch], extra)
            return
        except CudaCompileError:
            pass
        for h, k, where, s in batch:          # find the culprits
            try:
                self._compile([s], extra)
            except CudaCompileError as e:
                with self._lock:
                    self.failures.append(Failure(h, k, where, e.source, e.log))

    def _compile(self, srcs, extra):
        t = time.perf_counter()
        try:
            compile_source(runners.unit(srcs), ARCH, extra)
        finally:
            with self._lock:
                self.seconds["nvrtc"] += time.perf_counter() - t


_checker = None
_skipped = None


def pytest_configure(config):
    global _checker, _skipped
    depth = os.environ.get("TJIT_NVRTC_CHECK", "syntax")
    if depth not in DEPTHS:
        raise pytest.UsageError(f"TJIT_NVRTC_CHECK={depth!r}: expected one of "
                                f"{', '.join(DEPTHS)} (syntax: NVRTC's front end, "
                                f"ptx: the whole compile, 0: no check)")
    _skipped = "TJIT_NVRTC_CHECK=0" if DEPTHS[depth] is None else runners.nvrtc_unavailable()
    if _skipped is None and _checker is None:
        _checker = Checker(DEPTHS[depth])
        collect_kernels.listen(_checker.add)


def _report(failures):
    lines = []
    for f in failures:
        lines.append(f"--- kernel {f.kernel.name!r} (hash {f.hash[:16]}), first made by "
                     f"{f.where}")
        if f.source is not None:
            lines.append("CUDA source:")
            lines += [f"{n + 1:5d}  {ln}" for n, ln in enumerate(f.source.splitlines())]
        lines.append("NVRTC log:" if f.source is not None else "error:")
        lines.append(f.log.rstrip())
    return lines


def pytest_sessionfinish(session):
    """Compile what is left; a failed kernel fails the run (reported below)."""
    global _skipped
    if _checker is None:
        return
    if session.exitstatus == pytest.ExitCode.INTERRUPTED:    # (Ctrl-C: don't keep it busy)
        _skipped = "the run was interrupted"
        return
    _checker.finish()
    if _checker.failures and session.exitstatus in (pytest.ExitCode.OK,
                                                    pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    tr, c = terminalreporter, _checker
    if c is None or _skipped:
        tr.write_line(f"nvrtc check skipped: {_skipped}")
        return
    s = c.seconds
    tr.write_line(
        f"nvrtc check: {c.kernels} distinct kernels, {c.cached} known to compile, "
        f"{len(c.passed)} checked for {ARCH} ({'front end' if c.extra else 'PTX'}) in "
        f"{c.batches} batches (variant sources: {c.variants['deep']} compiled, "
        f"{c.variants['skipped']} left out, their variant keys compiled): render "
        f"{s['render']:.1f} s, NVRTC {s['nvrtc']:.1f} s, {s['wall']:.1f} s wall with "
        f"{WORKERS} threads; {len(c.failures)} failed")
    if c.failures:
        tr.write_sep("=", f"{len(c.failures)} kernels failed to compile as CUDA "
                     f"(tests/lower/c/nvrtc_check.py)", red=True)
        for ln in _report(c.failures):
            tr.write_line(ln)
