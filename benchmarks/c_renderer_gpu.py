"""Rough GPU timings of kernels rendered by the C renderer's ``cuda`` dialect.

Each kernel is compiled by NVRTC with the dialect's options (no fast math, no FMA
contraction), loaded with ``cupy.RawModule(path=...)`` and timed with CUDA events
(median of 20 launches after 3 warm-ups); the effective bandwidth counts each input
read once and each output written once. A device-to-device copy gives the ceiling.

    PYTHONPATH=. python3 benchmarks/c_renderer_gpu.py
"""

import os
import tempfile

import numpy as np

from tjit.lower.c import dialects, render
from tjit.xla_like import kernel_ir as K

F32 = np.dtype(np.float32)


def _kernels():
    n = 1 << 26
    x = K.Load(0, K.Affine(0, (1,)), F32)
    y = K.Load(1, K.Affine(0, (1,)), F32)
    axpy = K.Kernel("axpy", (n,), (K.Arg(F32, "in"), K.Arg(F32, "in"), K.Arg(F32, "out")),
                    stores=(K.Store(2, K.Affine(0, (1,)), K.Op("add", (K.Op(
                        "mul", (x, K.Const(2.0, F32)), F32), y), F32)),))
    R, C = 16384, 1024
    row = K.Load(0, K.Affine(0, (C, 1)), F32)
    e = K.Op("exp", (K.Op("sub", (row, K.Stage(0, F32)), F32),), F32)
    softmax = K.Kernel("softmax", (R, C), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                       stages=(K.Reduction(row, "max", F32), K.Reduction(e, "sum", F32)),
                       stores=(K.Store(1, K.Affine(0, (C, 1)),
                                       K.Op("div", (e, K.Stage(1, F32)), F32)),),
                       reduce_axes=(1,))
    rowsum = K.Kernel("rowsum", (R, C), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                      stages=(K.Reduction(row, "sum", F32),),
                      stores=(K.Store(1, K.Affine(0, (1, 0)), K.Stage(0, F32), "outer"),),
                      reduce_axes=(1,))
    colsum = K.Kernel("colsum", (R, C), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                      stages=(K.Reduction(row, "sum", F32),),
                      stores=(K.Store(1, K.Affine(0, (0, 1)), K.Stage(0, F32)),),
                      reduce_axes=(0,))
    return [(axpy, [n, n], [n]), (softmax, [R * C], [R * C]), (rowsum, [R * C], [R]),
            (colsum, [R * C], [C])]


def _compile(text, arch):
    from cupy_backends.cuda.libs import nvrtc
    prog = nvrtc.createProgram(text, "bench.cu", (), ())
    nvrtc.compileProgram(prog, [f"--gpu-architecture={arch}",
                                *dialects.CUDA.compile_options])
    return nvrtc.getCUBIN(prog)


def _time(fn, reps=20):
    import cupy as cp
    for _ in range(3):
        fn()
    ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) * 1e-3)
    return float(np.median(ts))


def main():
    import cupy as cp
    cc = cp.cuda.Device(0).compute_capability
    ks = _kernels()
    srcs = [render(k, "cuda", k.name) for k, _, _ in ks]
    text = "\n".join([srcs[0].prelude] + [s.body for s in srcs])
    path = os.path.join(tempfile.mkdtemp(), "bench.cubin")
    with open(path, "wb") as f:
        f.write(_compile(text, f"sm_{cc}"))
    mod = cp.RawModule(path=path)
    big = cp.random.standard_normal(1 << 26, dtype=cp.float32)
    dst = cp.empty_like(big)
    t = _time(lambda: cp.copyto(dst, big))
    print(f"{'device copy':12s} {t * 1e6:9.1f} us  {2 * big.nbytes / t / 1e9:7.0f} GB/s")
    for (k, ins, outs), src in zip(ks, srcs):
        bufs = [cp.random.standard_normal(n, dtype=cp.float32) for n in ins]
        bufs += [cp.empty(n, cp.float32) for n in outs]
        groups, local = src.launch.grid(None, max_groups=65535)
        fn = mod.get_function(src.entry)
        t = _time(lambda fn=fn, g=groups, n=local, b=tuple(bufs): fn((g,), (n,), b))
        nbytes = 4 * (sum(ins) + sum(outs))
        print(f"{k.name:12s} {t * 1e6:9.1f} us  {nbytes / t / 1e9:7.0f} GB/s  "
              f"({src.launch.kind}, {groups} x {local})")


if __name__ == "__main__":
    main()
