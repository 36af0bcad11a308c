"""The host-side cost of a jitted call on the CUDA backend: the Python work between
``f(x)`` and the kernel launches (tjit's dispatch, the executable's runner, argument
packing), measurable without a GPU.

    python benchmarks/bench_cuda_dispatch.py [--profile] [--real]

Without ``--real`` (or without a usable GPU) CuPy is replaced by the simulated device
of ``tests/devices/fake_cupy.py`` with ``compute=False``: every kernel launcher checks
its arguments and returns, and ``matmul``/``cublas.gemm`` allocate their output (or
return the given one) without multiplying. What is timed is therefore tjit's host
overhead plus the fake's allocation and call cost (a few hundred ns per launch: the
fake's ``empty`` is a NumPy allocation, a real CuPy pool allocation costs about as much);
the kernels' own NumPy time is excluded by construction rather than subtracted. With
``--real`` on a GPU the times include CuPy's launch cost (5.1 us per RawKernel launch on
an H200) and are taken without waiting for the device (throughput of dispatch).

Cases: a cached one-kernel program (``x * 2 + 1`` on 100 float32, a device Array
argument) and the MLP 784-1024-1024-10 training step at batch 256 (``bench_cpu``'s
step; params, x and y device Arrays). Each: median of 15 rounds of the mean per call
over 200 calls (50 for the MLP); the same for the executable alone on the argument list
jit hands it ("runner": the launches and their argument packing, without jit's pytree
and cache work); the launches per call; with ``--profile`` the top of cProfile's table. Not a test: nothing asserts a time.
"""

import argparse
import cProfile
import itertools
import os
import pstats
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "benchmarks")]

import bench_cpu as C

import tjit
import tjit.numpy as jnp


def per_call_us(fn, calls, rounds=15):
    """Median over ``rounds`` of the mean time of ``calls`` calls, in microseconds."""
    fn()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t) / calls * 1e6)
    return statistics.median(times)


def cases():
    """(name, zero-argument call, calls per round) of each case, on the default GPU."""
    x = tjit.device_put(np.arange(100, dtype=np.float32))
    tiny = tjit.jit(lambda x: x * 2 + 1)
    rng = np.random.default_rng(3)
    sizes = [784, 1024, 1024, 10]
    params = [(tjit.device_put((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32)),
               tjit.device_put(np.zeros(n, np.float32)))
              for m, n in itertools.pairwise(sizes)]
    xb = tjit.device_put(rng.standard_normal((256, 784)).astype(np.float32))
    yb = tjit.device_put(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)])
    step = tjit.jit(C._mlp_step(jnp, tjit.value_and_grad))
    return [("cached one-kernel call x*2+1 (100 f32)", lambda: tiny(x), 200),
            ("MLP 784-1024-1024-10 step, batch 256", lambda: step(params, xb, yb), 50)]


def launches_per_call(fake, fn):
    """Kernel launches, gemms and graph launches of one call on the simulated device."""
    from tjit.devices import cuda
    mods = [e.module for e in _executables(cuda)]
    before = sum(m.launches for m in mods), fake.gemms, fake.graph_launches
    fn()
    return (sum(m.launches for m in mods) - before[0], fake.gemms - before[1],
            fake.graph_launches - before[2])


def _executables(cuda):
    import gc
    return [o for o in gc.get_objects() if type(o) is cuda.CudaExecutable]


def executable_call(fn):
    """A zero-argument call of the CUDA executable ``fn`` reaches, on the raw argument
    list ``fn`` gives it: the runner's share of the time, without jit's own dispatch
    (pytree flattening, the cache lookup, wrapping outputs)."""
    from tjit.devices import cuda
    seen = []
    call = cuda.CudaExecutable.call

    def spy(self, flat_args, donated=()):
        seen.append((self, list(flat_args)))
        return call(self, flat_args, donated)
    cuda.CudaExecutable.call = spy
    try:
        fn()
    finally:
        cuda.CudaExecutable.call = call
    (exe, raw), = seen
    call_exe = lambda: exe.call(raw)
    call_exe.executable = exe
    return call_exe


def graph_state(exe):
    """Whether the executable's runner replays a CUDA graph (or why not)."""
    from tjit.devices import cuda_graphs
    runner = exe._fixed_runner or next(iter(exe._runners.values()), None)
    if not hasattr(runner, "replay"):
        return "plain (" + ("graph not worth it" if cuda_graphs.enabled() else
                            "TJIT_CUDA_GRAPHS=0") + ")"
    if runner.replay is not None:
        if runner.copy_kernel:
            return "CUDA graph, arguments/outputs copied by cuda_copies' kernel"
        return f"CUDA graph, memcpys ({runner.copy_kernel_failure})"
    return f"plain ({runner.failure or 'not captured yet'})"


def run(profile, fake):
    print(f"{'case':44s} {'host us/call':>13s}  {'runner':>7s}  launches / graph")
    for name, fn, calls in cases():
        us = per_call_us(fn, calls)
        exe_call = executable_call(fn)
        runner_us = per_call_us(exe_call, calls)
        extra = graph_state(exe_call.executable)
        if fake is not None:
            launches, gemms, graphs = launches_per_call(fake, fn)
            extra = f"{launches} kernels + {gemms} cuBLAS gemms + {graphs} graphs; {extra}"
        print(f"{name:44s} {us:13.1f}  {runner_us:7.1f}  {extra}")
        if profile:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(2000 if calls > 100 else 200):
                fn()
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(14)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", action="store_true", help="print cProfile's top entries")
    ap.add_argument("--real", action="store_true", help="use CuPy on a real GPU")
    args = ap.parse_args()
    if args.real:
        from tjit.devices import cuda
        reason = cuda.unavailable_reason()
        if reason:
            sys.exit(f"--real: no usable GPU: {reason}")
        print("device: real GPU through CuPy (times without waiting for the device)")
        run(args.profile, None)
        return
    import pytest

    from tests.devices.fake_cupy import simulated_gpu
    os.environ.pop("TJIT_PLATFORMS", None)
    from tjit.devices import cuda_graphs
    with pytest.MonkeyPatch.context() as mp, simulated_gpu(mp, compute=False) as fake:
        # (nothing is computed: a first replay cannot be checked against a plain run)
        mp.setattr(cuda_graphs, "VERIFY_FIRST_REPLAY", False)
        print("device: simulated (tests/devices/fake_cupy.py, compute=False: launches "
              "check their arguments and compute nothing)")
        run(args.profile, fake)


if __name__ == "__main__":
    main()
