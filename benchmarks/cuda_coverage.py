"""Which primitives a jitted program can use on the CUDA and OpenCL backends, without a GPU.

    python benchmarks/cuda_coverage.py [--prim NAME ...] [--no-opencl] [--no-nvrtc] [-v]

Every primitive's edge-value cases (``tests/primitives/edge_cases.py``: float32, else
int32, bool or complex64 operands) plus cases for the primitives that table exempts
(LAPACK forms, fft) and a few programs (random samplers, top_k, cumulative ops, row
scatters) are jitted on

* ``cuda``: the simulated GPU of ``tests/devices/fake_cupy.py`` in strict mode (kernels
  run by ``kernel_ir.evaluate``; library steps may use only names the installed CuPy
  has, and a host array uploaded during the call is counted), every rendered kernel
  then compiled by NVRTC's front end for ``compute_90``;
* ``opencl``: PoCL when it builds a trivial kernel; otherwise every kernel is rendered
  in the OpenCL dialect only (the program is compiled for the OpenCL target, not run).

Each case is compared with the reference interpreter and classed:

* ``kernel``: matched, with no library step (fused kernels, gemms, host-driven control);
* ``device``: matched, with library steps that ran on the device (CuPy / cupyx);
* ``host``: matched, but a library step computed on the host: CUDA, a host array was
  uploaded during the call (a round trip); OpenCL, any library step (its runtime runs
  them on the host, counted);
* ``rendered``: OpenCL without PoCL: rendered, not run;
* ``error``/``wrong``: raised (the first line of its message is printed) or differed;
  ``nvrtc``: NVRTC rejected a rendered kernel.

A primitive's class is its worst case's. Not a test: it prints a table and a summary.
"""

import argparse
import collections
import os
import sys
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT]
os.environ.pop("TJIT_PLATFORMS", None)

import pytest  # noqa: E402  (MonkeyPatch for the simulated GPU)

import tjit  # noqa: E402
from tests.devices.coverage_cases import all_cases, split_static  # noqa: E402
from tests.devices.fake_cupy import simulated_gpu  # noqa: E402
from tests.primitives import edge_cases as E  # noqa: E402

F32 = np.float32
ORDER = ["kernel", "device", "rendered", "host", "wrong", "nvrtc", "error"]


def _matches(got, want, loose=False):
    """Equal within float tolerance; ``loose`` (the simplifier's rounding rewrites, as
    in the edge-value test): NaN-ness and signs only."""
    got, want = tjit.tree_leaves(got), tjit.tree_leaves(want)
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return False
        if loose and g.dtype.kind == "f":
            if not (np.array_equal(np.isnan(g), np.isnan(w))
                    and np.array_equal(np.signbit(g), np.signbit(w))):
                return False
        elif g.dtype.kind in "fc":
            tol = 1e-2 if g.dtype.itemsize <= 2 else 2e-5
            if not np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True):
                return False
        elif not np.array_equal(g, w):
            return False
    return True


def _first_line(e):
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0][:150] if msg else ''}"


def _reference(case, f, args):
    """[the interpreter's values], and the CPU backend's for the simplifier's rounding
    rewrites (exp(log x) -> x, which the interpreter does not make: either may match)."""
    want = [tjit.jit(f, backend="interpreter")(*args)]
    return want + [tjit.jit(f, backend="cpu")(*args)] if case.prim in E.LOOSE else want


def _matches_any(case, got, wants):
    """Each output matches that of one of the references ``wants``."""
    got, loose = tjit.tree_leaves(got), case.prim in E.LOOSE
    leaves = [tjit.tree_leaves(w) for w in wants]
    return all(len(w) == len(got) for w in leaves) and all(
        any(_matches([g], [w[i]], loose) for w in leaves) for i, g in enumerate(got))


class CudaSurvey:
    """Runs cases on the strict simulated GPU; collects rendered kernels for NVRTC."""

    def __init__(self, mp):
        from tjit.devices import cuda
        self.fake = None
        self.sources = {}       # kernel entry -> (CSource, case label)
        self.library = []       # names of library steps built while a case compiles
        self.label = None
        survey = self
        self._mp = mp
        base = cuda._CudaRunner.library_step

        def library_step(runner, s):
            survey.library.append(s.name)
            return base(runner, s)
        mp.setattr(cuda._CudaRunner, "library_step", library_step)

    def __enter__(self):
        from tjit.devices import cuda
        self._ctx = simulated_gpu(self._mp, strict=True)
        self.fake = self._ctx.__enter__()
        load, survey = cuda.load_program, self     # (the simulated device's)

        def recording_load(program):
            sources, module = load(program)
            for src in sources.values():
                survey.sources.setdefault(src.entry, (src, survey.label))
            return sources, module
        self._mp.setattr(cuda, "load_program", recording_load)
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)

    def run(self, case):
        f, args = split_static(case)
        self.label = f"{case.prim}/{case.name}"
        try:
            want = _reference(case, f, args)
        except Exception as e:     # (a case the interpreter refuses is no CUDA gap)
            return "skip", f"interpreter: {_first_line(e)}"
        self.library.clear()
        try:
            dev = [tjit.device_put(a) for a in args]
            before = self.fake.host_uploads
            got = tjit.jit(f, backend="cuda")(*dev)
            uploads = self.fake.host_uploads - before
        except Exception as e:
            return "error", _first_line(e)
        if not _matches_any(case, got, want):
            return "wrong", "differs from the interpreter"
        libs = ",".join(sorted(set(self.library)))
        if uploads:
            return "host", f"{uploads} host upload(s); library: {libs}"
        return ("device", f"library: {libs}") if self.library else ("kernel", "")

    def nvrtc(self):
        """{case label: NVRTC's complaint} for rendered kernels NVRTC rejects."""
        from tests.lower.c import runners
        from tjit.devices.cuda_compile import CudaCompileError, compile_source
        bad = {}
        items = list(self.sources.values())
        for i in range(0, len(items), runners.BATCH):
            batch = items[i:i + runners.BATCH]
            try:
                compile_source("\n".join(s.text for s, _ in batch), "compute_90",
                               extra_options=("-fdevice-syntax-only",))
            except CudaCompileError:
                for src, label in batch:
                    try:
                        compile_source(src.text, "compute_90", extra_options=("-fdevice-syntax-only",))
                    except CudaCompileError as e:
                        bad.setdefault(label, _first_line(e))
        return bad


def pocl_reason():
    """None when PoCL builds a trivial kernel here, else why not."""
    try:
        tjit.jit(lambda v: v * 2, backend="opencl")(np.ones(2, F32))
        return None
    except Exception as e:
        return _first_line(e).split("\n")[0]


def opencl_case(case, pocl_ok):
    f, args = split_static(case)
    try:
        want = _reference(case, f, args)
    except Exception as e:
        return "skip", f"interpreter: {_first_line(e)}"
    if pocl_ok:
        try:
            got = tjit.jit(f, backend="opencl")(*args)
        except Exception as e:
            return "error", _first_line(e)
        if not _matches_any(case, got, want):
            return "wrong", "differs from the interpreter"
    from tjit.devices.opencl import kernel_entry
    from tjit.lower.c import OPENCL, render
    from tjit.xla_like.compile import compile_program
    from tjit.xla_like.target import opencl_target
    try:
        program = compile_program(tjit.make_jaxpr(f)(*args), opencl_target(True))
        libs = sorted({s.name for p in [program] + program.sub_programs()
                       for s in p.steps if type(s).__name__ == "LibraryStep"})
        for p in [program] + program.sub_programs():
            for k in p.kernels:
                render(k, OPENCL, kernel_entry(k))
    except Exception as e:
        return "error", _first_line(e)
    if libs:
        return "host", f"library on the host: {','.join(libs)}"
    return ("kernel", "") if pocl_ok else ("rendered", "")


def worst(results):
    return max((r for r, _ in results if r != "skip"), key=ORDER.index, default="skip")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prim", nargs="*")
    ap.add_argument("--no-opencl", action="store_true")
    ap.add_argument("--no-nvrtc", action="store_true")
    ap.add_argument("-v", action="store_true", help="print every case")
    a = ap.parse_args()
    cases = all_cases(set(a.prim) if a.prim else None)
    cuda_res, cl_res = {}, {}
    with pytest.MonkeyPatch.context() as mp, CudaSurvey(mp) as survey:
        for prim, cs in cases.items():
            cuda_res[prim] = [(c.name, *survey.run(c)) for c in cs]
        bad = {} if a.no_nvrtc else survey.nvrtc()
        n_kernels = len(survey.sources)
    for prim, rs in cuda_res.items():
        for i, (name, r, why) in enumerate(rs):
            if f"{prim}/{name}" in bad and r in ("kernel", "device", "host"):
                rs[i] = (name, "nvrtc", bad[f"{prim}/{name}"])
    reason = None
    if not a.no_opencl:
        reason = pocl_reason()
        for prim, cs in cases.items():
            cl_res[prim] = [(c.name, *opencl_case(c, reason is None)) for c in cs]

    print(f"{'primitive':28s} {'cuda':9s} {'opencl':9s} detail")
    summary = {"cuda": collections.Counter(), "opencl": collections.Counter()}
    for prim in cases:
        cu = worst([(r, w) for _, r, w in cuda_res[prim]])
        cl = worst([(r, w) for _, r, w in cl_res.get(prim, [])]) if cl_res else "-"
        summary["cuda"][cu] += 1
        if cl_res:
            summary["opencl"][cl] += 1
        notes = [f"cuda {n}: {w}" for n, r, w in cuda_res[prim] if r == cu and w][:1]
        notes += [f"opencl {n}: {w}" for n, r, w in cl_res.get(prim, []) if r == cl and w
                  and r not in ("host",)][:1]
        print(f"{prim:28s} {cu:9s} {cl:9s} {' | '.join(notes)[:160]}")
        if a.v:
            for (n, r, w), (_, r2, w2) in zip(cuda_res[prim], cl_res.get(
                    prim, [("", "-", "")] * len(cuda_res[prim]))):
                print(f"    {n:40s} {r:9s} {r2:9s} {w} {w2}")
    print(f"\n{len(cases)} primitives/programs; {n_kernels} CUDA kernels rendered, "
          f"{'NVRTC skipped' if a.no_nvrtc else f'{len(bad)} case(s) rejected by NVRTC'}")
    for k, c in summary.items():
        if c:
            print(f"{k:7s}: " + ", ".join(f"{n} {c[n]}" for n in ORDER + ["skip"] if c[n]))
    if reason:
        print(f"opencl: PoCL cannot build here ({reason}); kernels rendered only")


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        sys.exit(1)
