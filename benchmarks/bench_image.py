"""tjit.image.resize beside JAX (when installed) and scipy.ndimage.zoom: medians of eager
and jitted calls on a batch of images.

    python benchmarks/bench_image.py

Each resampled dimension is one weight matrix contracted by einsum (BLAS), so the work is
two small matmuls per image plus building the matrices; eager calls rebuild them each
call, jitted ones inside the compiled program. scipy's zoom (order 1, grid_mode) is the
same linear upsampling (half-pixel centres, edges repeated), for scale only. The
'np floor' column is NumPy doing only the contraction (einsum with weight matrices of the
right shapes, or two np.take for nearest): what the resize costs without building weights.
"""

import statistics
import time

import numpy as np
import scipy.ndimage

import tjit
import tjit.numpy as tnp
from tjit import image as timage

try:
    import jax
    jax.config.update("jax_platforms", "cpu")
except ImportError:
    jax = None


def median_time(fn, *args, reps=20):
    fn(*args)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn(*args)
        getattr(out, "block_until_ready", lambda: None)()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def numpy_floor(method, src, dst, rng):
    """NumPy's cost of the same contraction, weights given (random: timing only)."""
    if method == "nearest":
        rows, cols = rng.integers(0, src[1], dst[1]), rng.integers(0, src[2], dst[2])
        return lambda a: np.take(np.take(a, rows, axis=1), cols, axis=2)
    w0 = rng.standard_normal((src[1], dst[1])).astype(np.float32)
    w1 = rng.standard_normal((src[2], dst[2])).astype(np.float32)
    return lambda a: np.einsum("bhwc,hH,wW->bHWc", a, w0, w1, optimize=True)


def us(t):
    return "         -" if t is None else f"{t * 1e6:10.1f}"


CASES = [("linear", (8, 64, 64, 3), (8, 128, 128, 3)),
         ("lanczos3", (8, 128, 128, 3), (8, 48, 48, 3)),
         ("area", (8, 128, 128, 3), (8, 32, 32, 3)),
         ("nearest", (8, 64, 64, 3), (8, 128, 96, 3))]


def main():
    rng = np.random.default_rng(0)
    print(f"{'case (us, median)':42s} {'scipy':>10s} {'np floor':>10s} {'eager':>10s} "
          f"{'jit':>10s} {'jax jit':>10s} {'eager/np':>8s} {'jit/jax':>8s}")
    for method, src, dst in CASES:
        x = rng.standard_normal(src).astype(np.float32)
        xt = tnp.asarray(x)
        t_np = median_time(numpy_floor(method, src, dst, rng), x)
        t_eager = median_time(lambda a, dst=dst, method=method: timage.resize(a, dst, method), xt)
        t_jit = median_time(tjit.jit(lambda a, dst=dst, m=method: timage.resize(a, dst, m)),
                            xt)
        t_jax = None
        if jax:
            t_jax = median_time(jax.jit(lambda a, dst=dst, m=method: jax.image.resize(a, dst, m)),
                                jax.numpy.asarray(x))
        t_scipy = None
        if method == "linear":
            zoom = [d / s for s, d in zip(src, dst)]
            t_scipy = median_time(lambda a, zoom=zoom: scipy.ndimage.zoom(
                a, zoom, order=1, grid_mode=True, mode="nearest"), x)
        ratio = f"{t_jit / t_jax:7.2f}x" if t_jax else "       -"
        print(f"{method + ' ' + str(src[1:3]) + '->' + str(dst[1:3]) + ' x8':42s} "
              f"{us(t_scipy)} {us(t_np)} {us(t_eager)} {us(t_jit)} {us(t_jax)} "
              f"{t_eager / t_np:7.2f}x {ratio}")


if __name__ == "__main__":
    main()
