"""jnp.fft beside NumPy (and JAX when installed): medians of eager calls and of a
jitted spectral filter, and scipy.signal.fftconvolve (now FFT-based) beside SciPy.

    python benchmarks/bench_fft.py

tjit's fft runs NumPy's pocketfft (a library step inside compiled programs), so the
eager ratio to NumPy is the per-call overhead plus the complex64 cast; the jitted
filter shows the surrounding elementwise work fused around the library steps.
"""

import statistics
import time

import numpy as np
import scipy.signal

import tjit
import tjit.numpy as tnp
from tjit.scipy import signal as tsignal

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_platforms", "cpu")
except ImportError:
    jax = jnp = None


def median_time(fn, *args, reps=30):
    fn(*args)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn(*args)
        getattr(out, "block_until_ready", lambda: None)()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def spectral_filter(xnp):
    def f(x):
        y = xnp.fft.rfft(x, axis=-1)
        k = xnp.arange(y.shape[-1])
        return xnp.fft.irfft(y * xnp.exp(-(k / 40.0) ** 2), n=x.shape[-1], axis=-1)
    return f


def row(name, t_np, t_tjit, t_jax):
    jax_col = f"{t_jax * 1e6:10.1f}" if t_jax is not None else "         -"
    print(f"{name:34s} {t_np * 1e6:10.1f} {t_tjit * 1e6:10.1f} {jax_col} "
          f"{t_tjit / t_np:8.2f}x")


def main():
    rng = np.random.default_rng(0)
    print(f"{'case (us, median)':34s} {'numpy':>10s} {'tjit':>10s} {'jax':>10s} {'tjit/np':>9s}")
    for n in (256, 65536):
        x = rng.standard_normal(n).astype(np.float32)
        xj = tnp.asarray(x)
        t_jax = median_time(jnp.fft.fft, jnp.asarray(x)) if jnp else None
        row(f"fft eager n={n}", median_time(np.fft.fft, x), median_time(tnp.fft.fft, xj), t_jax)
    x = rng.standard_normal((64, 4096)).astype(np.float32)
    f_t = tjit.jit(spectral_filter(tnp))
    f_j = jax.jit(spectral_filter(jnp)) if jax else None
    t_jax = median_time(f_j, jnp.asarray(x)) if jax else None
    row("jit rfft*gauss->irfft 64x4096", median_time(spectral_filter(np), x),
        median_time(f_t, tnp.asarray(x)), t_jax)
    a, k = rng.standard_normal(20000), rng.standard_normal(501)
    t_jax = median_time(jax.scipy.signal.fftconvolve, jnp.asarray(a), jnp.asarray(k)) \
        if jax else None
    row("fftconvolve 20000 * 501 (f32/64)", median_time(scipy.signal.fftconvolve, a, k),
        median_time(tsignal.fftconvolve, tnp.asarray(a), tnp.asarray(k)), t_jax)


if __name__ == "__main__":
    main()
