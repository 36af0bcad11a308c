"""Hand-off overhead of tjit's parallel-for, and where splitting starts to pay.

    python benchmarks/bench_threads.py

Compiles one tiny kernel (y[i] = exp(x[i]*2+1), float32) with tjit's LLVM target and
prints medians in µs: a direct ctypes call, parallel_for with 1 thread (inline),
parallel_for with all threads on a 2-element range (pure hand-off cost), a
ThreadPoolExecutor doing the same, and a few sizes where the work is real.
Not a test: nothing here asserts a time.
"""

import ctypes
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tjit.devices import threads
from tjit.lower.llvm import target

IR = """
declare float @llvm.exp.f32(float)
define void @bench_threads_kernel(ptr noalias %args, ptr noalias %sizes, i64 %start,
                                  i64 %end) {
entry:
  %x = load ptr, ptr %args
  %yp = getelementptr inbounds ptr, ptr %args, i64 1
  %y = load ptr, ptr %yp
  %nonempty = icmp slt i64 %start, %end
  br i1 %nonempty, label %loop, label %done
loop:
  %i = phi i64 [ %start, %entry ], [ %i1, %loop ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %px
  %a = fmul float %v, 2.0
  %b = fadd float %a, 1.0
  %e = call float @llvm.exp.f32(float %b)
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %e, ptr %py
  %i1 = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %i1, %end
  br i1 %more, label %loop, label %done
done:
  ret void
}
"""


def median_us(fn, reps=2000, repeat=7):
    for _ in range(50):
        fn()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        runs.append((time.perf_counter() - t0) / reps * 1e6)
    return statistics.median(runs)


def main():
    addr = target.compile_ir(IR, ["bench_threads_kernel"])["bench_threads_kernel"]
    print("compile phases (ms): "
          + ", ".join(f"{k} {v * 1e3:.1f}" for k, v in target.last_timings().items()))
    fn = threads.as_kernel(addr)
    nthreads = threads.default_num_threads()
    big = np.random.default_rng(0).standard_normal(1 << 22).astype(np.float32)
    out = np.empty_like(big)
    argv = (ctypes.c_void_p * 2)(big.ctypes.data, out.ctypes.data)
    pool = ThreadPoolExecutor(nthreads)

    def executor_call(n):
        bounds = threads._split(n, nthreads)
        futs = [pool.submit(fn, argv, None, s, e) for s, e in bounds[1:]]
        fn(argv, None, *bounds[0])
        for f in futs:
            f.result()

    print(f"threads: {nthreads}, native runtime: {threads.native_available()}")
    direct = median_us(lambda: fn(argv, None, 0, 2))
    inline = median_us(lambda: threads.parallel_for(fn, argv, None, 2, nthreads=1))
    print(f"direct ctypes call, n=2                 {direct:8.2f} µs")
    print(f"parallel_for 1 thread (inline), n=2     {inline:8.2f} µs")
    pools = [("native", threads.ThreadPool(nthreads, native=True))] if (
        threads.native_available()) else []
    pools.append(("python", threads.ThreadPool(nthreads, native=False)))
    for label, p in pools:
        t = median_us(lambda p=p: p.parallel_for(fn, argv, None, 2))
        print(f"parallel_for {nthreads} threads {label:>6}, n=2  {t:8.2f} µs  "
              f"(hand-off overhead {t - direct:.2f} µs)")
        p.close()
    exe = median_us(lambda: executor_call(2))
    print(f"ThreadPoolExecutor {nthreads} threads, n=2     {exe:8.2f} µs")
    for n in (1 << 12, 1 << 15, 1 << 18, 1 << 22):
        reps = max(5, (1 << 20) // n)
        one = median_us(lambda n=n: fn(argv, None, 0, n), reps=reps, repeat=5)
        par = median_us(lambda n=n: threads.parallel_for(fn, argv, None, n), reps=reps,
                        repeat=5)
        print(f"n={n:>8}: 1 thread {one:9.1f} µs, {nthreads} threads {par:9.1f} µs, "
              f"speed-up {one / par:4.2f}x")
    np.testing.assert_allclose(out, np.exp(big * 2 + 1), rtol=1e-5)
    pool.shutdown()


if __name__ == "__main__":
    main()
