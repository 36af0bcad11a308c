"""Differential hunt, second sweep of tjit.scipy: the spectral functions of signal (stft,
istft, welch, csd, detrend with their options and windows), linalg's extras (expm,
expm_frechet, funm, sqrtm, schur, hessenberg, polar, solve_sylvester, the special
matrices, lu/cho factor-solve flags, eigh_tridiagonal, rsf2csf, qr_multiply),
optimize.minimize, the stats extras (mode, rankdata, gaussian_kde, sem) and
ndimage.map_coordinates' SciPy-only modes, against SciPy in float64 and JAX's dtypes.

It reuses the harness of ``diff_scipy_misc.py`` (eager, jit and the interpreter vs SciPy;
grad vs central differences; vmap vs a Python loop; result dtypes vs JAX). Factorizations
that are unique only up to signs or order (schur, hessenberg) are compared through what is
unique: the reconstruction, the structure and the eigenvalues.

    /work/jaxvenv/bin/python benchmarks/diff_scipy_extras.py --verbose
    .venv/bin/python benchmarks/diff_scipy_extras.py --areas spectral,linalg
"""

import argparse
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import diff_scipy_misc as misc  # noqa: E402  (sets the x64 flags before tjit loads)
from diff_scipy_misc import Case, rand  # noqa: E402

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.linalg  # noqa: E402
import scipy.ndimage  # noqa: E402
import scipy.optimize  # noqa: E402
import scipy.signal  # noqa: E402
import scipy.stats  # noqa: E402

import tjit.scipy.linalg  # noqa: E402,F401
import tjit.scipy.optimize  # noqa: E402,F401
import tjit.scipy.stats  # noqa: E402,F401

if misc.jax is not None:
    import jax.scipy.linalg  # noqa: F401
    import jax.scipy.optimize  # noqa: F401
    import jax.scipy.stats  # noqa: F401

DEFAULT_TOL = misc.TOL
WINDOWS = ("hann", "hamming", "boxcar", "blackman", "bartlett", "triang", "flattop",
           "cosine", "bohman", "parzen", "nuttall", "blackmanharris", "barthann",
           ("tukey", 0.3), ("kaiser", 5.0), ("gaussian", 2.0), ("general_gaussian", 1.5, 3.0),
           ("exponential", None, 2.0), ("chebwin", 60), ("dpss", 2.0), "lanczos", "taylor")


# -- signal: spectral ---------------------------------------------------------------------------
def spectral_cases(rng):
    x64 = rand(rng, (40,))
    for window in WINDOWS:
        yield Case("spectral", f"stft window={window}",
                   lambda L, x, w=window: L.sp.signal.stft(x, window=w, nperseg=9),
                   lambda x, w=window: scipy.signal.stft(x, window=w, nperseg=9), (x64,))
        yield Case("spectral", f"welch window={window}",
                   lambda L, x, w=window: L.sp.signal.welch(x, window=w, nperseg=8),
                   lambda x, w=window: scipy.signal.welch(x, window=w, nperseg=8), (x64,))
    win = rng.uniform(0.2, 1.0, 8)
    yield Case("spectral", "stft array window",
               lambda L, x: L.sp.signal.stft(x, window=win, nperseg=8),
               lambda x: scipy.signal.stft(x, window=win, nperseg=8), (x64,), grad=True)
    for nperseg, noverlap, nfft in ((8, None, None), (8, 0, None), (8, 7, 11), (5, 2, 5),
                                    (16, 3, 20), (1, 0, None), (40, None, None),
                                    (64, None, None)):
        for detrend in (False, "constant", "linear"):
            for onesided in (True, False):
                for boundary in (None, "zeros", "even", "odd", "constant"):
                    for padded in (True, False):
                        if rng.random() < 0.7:
                            continue
                        kw = dict(nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                                  detrend=detrend, return_onesided=onesided,
                                  boundary=boundary, padded=padded, fs=2.5)
                        n = int(rng.integers(1, 30))
                        x = rand(rng, (n,))
                        yield Case("spectral", f"stft n={n} {kw}",
                                   lambda L, x, kw=kw: L.sp.signal.stft(x, **kw),
                                   lambda x, kw=kw: scipy.signal.stft(x, **kw), (x,),
                                   grad=True)
    for kind in ("complex", "int"):
        for onesided in (True, False):
            x = rand(rng, (3, 21), kind)
            yield Case("spectral", f"stft {kind} onesided={onesided}",
                       lambda L, x, o=onesided: L.sp.signal.stft(x, nperseg=6,
                                                                 return_onesided=o),
                       lambda x, o=onesided: scipy.signal.stft(x, nperseg=6, return_onesided=o),
                       (x,))
    for axis in (0, 1, -1, -3):
        x = rand(rng, (13, 12, 11))
        yield Case("spectral", f"stft 3-D axis={axis}",
                   lambda L, x, a=axis: L.sp.signal.stft(x, nperseg=6, axis=a),
                   lambda x, a=axis: scipy.signal.stft(x, nperseg=6, axis=a), (x,))
    yield from istft_cases(rng)
    yield from welch_cases(rng)
    yield from detrend_cases(rng)


def istft_cases(rng):
    for nperseg, noverlap, nfft, window in ((8, None, None, "hann"), (8, 6, None, "hann"),
                                            (9, 6, 12, "hamming"), (7, 3, None, "boxcar"),
                                            (6, 3, None, ("tukey", 0.5))):
        for onesided in (True, False):
            for boundary in (True, False):
                for kind in ("real", "complex"):
                    if kind == "complex" and onesided:
                        continue
                    x = rand(rng, (2, 30), kind)
                    _, _, z = scipy.signal.stft(
                        x, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                        return_onesided=onesided, boundary="zeros" if boundary else None)
                    kw = dict(window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                              input_onesided=onesided, boundary=boundary, fs=3.0)
                    yield Case("spectral", f"istft {kind} {kw}",
                               lambda L, z, kw=kw: L.sp.signal.istft(z, **kw),
                               lambda z, kw=kw: scipy.signal.istft(z, **kw), (z,))
    _, _, z = scipy.signal.stft(rand(rng, (3, 25)), nperseg=8)
    for t_ax, f_ax in ((-1, -2), (-2, -1), (0, 2), (2, 0), (1, 0)):
        zz = np.moveaxis(z, (-2, -1), (f_ax, t_ax))
        yield Case("spectral", f"istft time_axis={t_ax} freq_axis={f_ax}",
                   lambda L, z, t=t_ax, f=f_ax: L.sp.signal.istft(z, time_axis=t, freq_axis=f),
                   lambda z, t=t_ax, f=f_ax: scipy.signal.istft(z, time_axis=t, freq_axis=f),
                   (zz,))


def welch_cases(rng):
    for fname in ("welch", "csd"):
        for scaling in ("density", "spectrum"):
            for average in ("mean", "median"):
                for detrend in (False, "constant", "linear"):
                    for nperseg, noverlap, nfft in ((None, None, None), (8, 2, None),
                                                    (7, 0, 10), (33, None, None)):
                        for onesided in (True, False):
                            if rng.random() < 0.6:
                                continue
                            kw = dict(scaling=scaling, average=average, detrend=detrend,
                                      nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                                      return_onesided=onesided, fs=4.0)
                            n = int(rng.integers(8, 30))
                            args = ((rand(rng, (n,)),) if fname == "welch" else
                                    (rand(rng, (n,)), rand(rng, (n,))))
                            yield Case("spectral", f"{fname} n={n} {kw}",
                                       lambda L, *a, f=fname, kw=kw:
                                       getattr(L.sp.signal, f)(*a, **kw),
                                       lambda *a, f=fname, kw=kw:
                                       getattr(scipy.signal, f)(*a, **kw), args, grad=True)
    for kind in ("complex", "int"):
        x, y = rand(rng, (2, 24), kind), rand(rng, (2, 24), kind)
        yield Case("spectral", f"csd {kind}",
                   lambda L, x, y: L.sp.signal.csd(x, y, nperseg=8),
                   lambda x, y: scipy.signal.csd(x, y, nperseg=8), (x, y))
        yield Case("spectral", f"welch {kind}",
                   lambda L, x: L.sp.signal.welch(x, nperseg=8),
                   lambda x: scipy.signal.welch(x, nperseg=8), (x,))
    for nx, ny in ((20, 13), (13, 20), (20, 1)):
        x, y = rand(rng, (nx,)), rand(rng, (ny,))
        yield Case("spectral", f"csd lengths {nx},{ny}",
                   lambda L, x, y: L.sp.signal.csd(x, y, nperseg=8),
                   lambda x, y: scipy.signal.csd(x, y, nperseg=8), (x, y))
    x, y = rand(rng, (3, 1, 20)), rand(rng, (1, 4, 20))
    yield Case("spectral", "csd broadcast",
               lambda L, x, y: L.sp.signal.csd(x, y, nperseg=8),
               lambda x, y: scipy.signal.csd(x, y, nperseg=8), (x, y))
    for axis in (0, 1, -1):
        x = rand(rng, (17, 18, 3))
        yield Case("spectral", f"welch 3-D axis={axis}",
                   lambda L, x, a=axis: L.sp.signal.welch(x, nperseg=3, axis=a),
                   lambda x, a=axis: scipy.signal.welch(x, nperseg=3, axis=a), (x,))
    x = rand(rng, (30,)).astype(np.float32)
    for fname in ("welch", "stft"):
        yield Case("spectral", f"{fname} float32",
                   lambda L, x, f=fname: getattr(L.sp.signal, f)(x, nperseg=8),
                   lambda x, f=fname: getattr(scipy.signal, f)(x.astype(float), nperseg=8),
                   (x,))


def detrend_cases(rng):
    for typ in ("linear", "constant"):
        for nd, axis in ((1, -1), (2, 0), (2, 1), (3, -2)):
            for kind in ("real", "int", "complex"):
                x = rand(rng, tuple(int(v) for v in rng.integers(1, 9, nd)), kind)
                yield Case("spectral", f"detrend {typ} {kind} {x.shape} axis={axis}",
                           lambda L, x, t=typ, a=axis: L.sp.signal.detrend(x, axis=a, type=t),
                           lambda x, t=typ, a=axis: scipy.signal.detrend(x, axis=a, type=t),
                           (x,), grad=kind == "real", vmap=kind == "real")
    for bp in (0, 3, [2, 5], [0, 9], np.array([4])):
        x = rand(rng, (10,))
        yield Case("spectral", f"detrend linear bp={bp}",
                   lambda L, x, b=bp: L.sp.signal.detrend(x, bp=b),
                   lambda x, b=bp: scipy.signal.detrend(x, bp=b), (x,), grad=True)
    x = rand(rng, (12,)).astype(np.float32)
    yield Case("spectral", "detrend float32",
               lambda L, x: L.sp.signal.detrend(x),
               lambda x: scipy.signal.detrend(x.astype(float)), (x,))


# -- linalg -------------------------------------------------------------------------------------
def square(rng, n, kind="real", scale=1.0):
    return rand(rng, (n, n), kind) * scale


def spd(rng, n, kind="real"):
    a = rand(rng, (n, n), kind)
    return a @ a.conj().T + n * np.eye(n)


def linalg_cases(rng):
    for n in (1, 2, 3, 5, 8):
        for kind in ("real", "complex"):
            for scale in (0.1, 1.0, 6.0):
                a = square(rng, n, kind, scale)
                yield Case("linalg", f"expm {kind} n={n} scale={scale}",
                           lambda L, a: L.sp.linalg.expm(a),
                           lambda a: scipy.linalg.expm(a), (a,), grad=kind == "real" and n < 5,
                           vmap=kind == "real")
            a, e = square(rng, n, kind), square(rng, n, kind)
            for compute in (True, False):
                yield Case("linalg", f"expm_frechet {kind} n={n} compute_expm={compute}",
                           lambda L, a, e, c=compute: L.sp.linalg.expm_frechet(
                               a, e, compute_expm=c),
                           lambda a, e, c=compute: scipy.linalg.expm_frechet(
                               a, e, compute_expm=c), (a, e))
    for a, lab in ((np.zeros((3, 3)), "zero"), (np.triu(rng.standard_normal((4, 4)), 1),
                                                 "nilpotent"),
                   (np.diag([-40.0, 0.0, 30.0]), "diag wide"), (np.array([[0.0, 1e3],
                                                                          [0.0, 0.0]]),
                                                                "large nilpotent")):
        yield Case("linalg", f"expm {lab}", lambda L, a: L.sp.linalg.expm(a),
                   lambda a: scipy.linalg.expm(a), (a,))
    a = np.triu(square(rng, 4))
    yield Case("linalg", "expm upper_triangular",
               lambda L, a: L.sp.linalg.expm(a, upper_triangular=True),
               lambda a: scipy.linalg.expm(a), (a,))
    stack = rand(rng, (2, 3, 3))
    yield Case("linalg", "expm batched", lambda L, a: L.sp.linalg.expm(a),
               lambda a: scipy.linalg.expm(a), (stack,))
    for fname in ("exp", "sin", "cos", "sqrt_spd"):
        for n in (1, 3, 4):
            a = spd(rng, n) if fname == "sqrt_spd" else 0.5 * square(rng, n)
            func = "sqrt" if fname == "sqrt_spd" else fname
            yield Case("linalg", f"funm {fname} n={n}",
                       lambda L, a, f=func: L.sp.linalg.funm(a, getattr(L.np, f)),
                       lambda a, f=func: scipy.linalg.funm(a, getattr(np, f)), (a,))
    for n in (1, 2, 4, 6):
        for kind in ("real", "complex"):
            for lab, a in (("spd", spd(rng, n, kind)),
                           ("general", square(rng, n, kind) + 3 * n * np.eye(n))):
                yield Case("linalg", f"sqrtm {lab} {kind} n={n}",
                           lambda L, a: L.sp.linalg.sqrtm(a),
                           lambda a: scipy.linalg.sqrtm(a), (a,))
    yield Case("linalg", "sqrtm negative eigenvalue (complex result)",
               lambda L, a: L.sp.linalg.sqrtm(a),
               lambda a: scipy.linalg.sqrtm(a), (np.diag([4.0, -1.0]),))
    yield from schur_cases(rng)
    yield from polar_sylvester_cases(rng)
    yield from special_matrix_cases(rng)
    yield from factor_solve_cases(rng)


def unitary_check(L, a, q, t, kind):
    """What is unique about a Schur/Hessenberg pair: Q T Q^H - A, Q^H Q - I and T's
    structure (``kind``: rows below the subdiagonal, or below the diagonal). Eigenvalues
    are compared through the characteristic polynomial (np.poly): sorting them is not
    stable under rounding for conjugate pairs."""
    np_ = L.np
    recon = q @ t @ np_.conj(q).T - a
    orth = np_.conj(q).T @ q - np_.eye(q.shape[0])
    k = -2 if kind == "hessenberg" else -1
    return np_.abs(recon).max(), np_.abs(orth).max(), np_.abs(np_.tril(t, k)).max()


def schur_cases(rng):
    for n in (1, 2, 3, 5, 7):
        for kind in ("real", "complex"):
            for output in ("real", "complex"):
                a = square(rng, n, kind)
                zero3 = (0.0, 0.0, 0.0)
                if output == "complex" or kind == "complex":
                    yield Case("linalg", f"schur {kind} output={output} n={n}",
                               lambda L, a, o=output: unitary_check(
                                   L, a, *L.sp.linalg.schur(a, output=o)[::-1], "schur")
                               + (L.np.poly(L.np.diag(L.sp.linalg.schur(a, output=o)[0])),),
                               lambda a, o=output: zero3 + (np.poly(np.linalg.eigvals(a)),),
                               (a,))
                else:
                    # real Schur form: 2x2 blocks on the diagonal, quasi-triangular
                    yield Case("linalg", f"schur real n={n}",
                               lambda L, a: unitary_check(
                                   L, a, *L.sp.linalg.schur(a)[::-1], "hessenberg")
                               + (L.np.poly(L.sp.linalg.schur(a)[0]),),
                               lambda a: zero3 + (np.poly(a),), (a,))
                yield Case("linalg", f"hessenberg {kind} n={n}",
                           lambda L, a: unitary_check(
                               L, a, *L.sp.linalg.hessenberg(a, calc_q=True)[::-1],
                               "hessenberg"),
                           lambda a: (0.0, 0.0, 0.0), (a,))
            a = square(rng, n)
            yield Case("linalg", f"hessenberg H only n={n}",
                       lambda L, a: L.np.abs(L.sp.linalg.hessenberg(a)),
                       lambda a: np.abs(scipy.linalg.hessenberg(a)), (a,))
            t, z = scipy.linalg.schur(a)
            yield Case("linalg", f"rsf2csf n={n}",
                       lambda L, t, z: unitary_check(
                           L, L.np.asarray(z @ t @ z.T), *L.sp.linalg.rsf2csf(t, z)[::-1],
                           "schur"),
                       lambda t, z: (0.0, 0.0, 0.0), (t, z))


def polar_sylvester_cases(rng):
    for shape in ((3, 3), (5, 3), (3, 5), (1, 1), (4, 4)):
        for kind in ("real", "complex"):
            for side in ("right", "left"):
                for method in ("qdwh", "svd"):
                    a = rand(rng, shape, kind)
                    yield Case("linalg", f"polar {kind} {shape} side={side} {method}",
                               lambda L, a, s=side, m=method: L.sp.linalg.polar(
                                   a, side=s, method=m),
                               lambda a, s=side: scipy.linalg.polar(a, side=s), (a,))
    for m, n in ((1, 1), (3, 3), (2, 5), (4, 2)):
        for kind in ("real", "complex"):
            a, b, c = (square(rng, m, kind) + 4 * np.eye(m), square(rng, n, kind),
                       rand(rng, (m, n), kind))
            yield Case("linalg", f"solve_sylvester {kind} {m}x{n}",
                       lambda L, a, b, c: L.sp.linalg.solve_sylvester(a, b, c),
                       lambda a, b, c: scipy.linalg.solve_sylvester(a, b, c), (a, b, c))


def special_matrix_cases(rng):
    c, r = rand(rng, (4,)), rand(rng, (3,))
    cc = rand(rng, (4,), "complex")
    for fname, args in (("toeplitz", (c,)), ("toeplitz", (c, r)), ("toeplitz", (cc,)),
                        ("toeplitz", (cc, r)), ("hankel", (c,)), ("hankel", (c, r)),
                        ("hankel", (cc,)), ("circulant", (c,)), ("circulant", (cc,)),
                        ("companion", (c,)), ("leslie", (c, r)), ("fiedler", (c,)),
                        ("fiedler_companion", (c,)), ("toeplitz", (np.ones(1),)),
                        ("hankel", (np.ones(1), np.ones(3))),
                        ("toeplitz", (np.arange(3), np.arange(2.0))),
                        ("companion", (np.array([2.0, 0.0]),))):
        kinds = [np.asarray(a).dtype.name + str(np.shape(a)) for a in args]
        yield Case("linalg", f"{fname} {kinds}",
                   lambda L, *a, f=fname: getattr(L.sp.linalg, f)(*a),
                   lambda *a, f=fname: getattr(scipy.linalg, f)(*a), args)
    for mode in ("full", "same", "valid"):
        for n in (1, 3, 6):
            a = rand(rng, (4,))
            yield Case("linalg", f"convolution_matrix {mode} n={n}",
                       lambda L, a, n=n, m=mode: L.sp.linalg.convolution_matrix(a, n, m),
                       lambda a, n=n, m=mode: scipy.linalg.convolution_matrix(a, n, m), (a,))
    for fname, args in (("hilbert", (4,)), ("invhilbert", (5,)), ("pascal", (5,)),
                        ("pascal", (5, "lower")), ("pascal", (4, "upper")),
                        ("invpascal", (5,)), ("invpascal", (4, "lower")),
                        ("helmert", (4,)), ("helmert", (4, True)), ("hadamard", (8,)),
                        ("dft", (5,)), ("dft", (4, "sqrtn")), ("dft", (4, "n"))):
        yield Case("linalg", f"{fname}{args}",
                   lambda L, f=fname, a=args: getattr(L.sp.linalg, f)(*a),
                   lambda f=fname, a=args: getattr(scipy.linalg, f)(*a), (),
                   kept=("JAX's pascal is float32 even under x64; tjit's the default float "
                         "(exact to larger n)") if fname == "pascal" else None)
    for arrs in ((rand(rng, (2, 3)), rand(rng, (1, 1)), rand(rng, (3,))),
                 (rand(rng, (2, 2)), rand(rng, (0, 3))), (np.array(2.0), rand(rng, (2, 1))),
                 (rand(rng, (2, 2), "complex"), rand(rng, (1, 2), "int")), ()):
        yield Case("linalg", f"block_diag {[a.shape for a in arrs]}",
                   lambda L, *a: L.sp.linalg.block_diag(*a),
                   lambda *a: scipy.linalg.block_diag(*a), arrs)


def factor_solve_cases(rng):
    for n in (1, 3, 5):
        for kind in ("real", "complex"):
            a = square(rng, n, kind)
            for bshape in ((n,), (n, 2)):
                b = rand(rng, bshape, kind)
                for trans in (0, 1, 2):
                    yield Case("linalg", f"lu_solve {kind} n={n} b={bshape} trans={trans}",
                               lambda L, a, b, t=trans: L.sp.linalg.lu_solve(
                                   L.sp.linalg.lu_factor(a), b, trans=t),
                               lambda a, b, t=trans: scipy.linalg.lu_solve(
                                   scipy.linalg.lu_factor(a), b, trans=t), (a, b))
                s = spd(rng, n, kind)
                for lower in (False, True):
                    yield Case("linalg", f"cho_solve {kind} n={n} b={bshape} lower={lower}",
                               lambda L, s, b, lo=lower: L.sp.linalg.cho_solve(
                                   L.sp.linalg.cho_factor(s, lower=lo), b),
                               lambda s, b, lo=lower: scipy.linalg.cho_solve(
                                   scipy.linalg.cho_factor(s, lower=lo), b), (s, b))
                    yield Case("linalg", f"cho_factor {kind} n={n} lower={lower} triangle",
                               lambda L, s, lo=lower: (L.np.tril(L.sp.linalg.cho_factor(
                                   s, lower=lo)[0]) if lo else L.np.triu(
                                   L.sp.linalg.cho_factor(s, lower=lo)[0])),
                               lambda s, lo=lower: (np.tril(scipy.linalg.cho_factor(
                                   s, lower=lo)[0]) if lo else np.triu(
                                   scipy.linalg.cho_factor(s, lower=lo)[0])), (s,))
            yield Case("linalg", f"lu_factor {kind} n={n}",
                       lambda L, a: L.sp.linalg.lu_factor(a),
                       lambda a: scipy.linalg.lu_factor(a), (a,))
    for n in (1, 2, 5, 8):
        d, e = rand(rng, (n,)), rand(rng, (max(n - 1, 0),))
        yield Case("linalg", f"eigh_tridiagonal eigvals n={n}",
                   lambda L, d, e: L.sp.linalg.eigh_tridiagonal(d, e, eigvals_only=True),
                   lambda d, e: scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=True), (d, e))
        if n > 1:
            yield Case("linalg", f"eigh_tridiagonal select=i n={n}",
                       lambda L, d, e, n=n: L.sp.linalg.eigh_tridiagonal(
                           d, e, eigvals_only=True, select="i", select_range=(1, n - 1)),
                       lambda d, e, n=n: scipy.linalg.eigh_tridiagonal(
                           d, e, eigvals_only=True, select="i", select_range=(1, n - 1)),
                       (d, e))
        yield Case("linalg", f"eigh_tridiagonal vectors n={n} (|v|)",
                   lambda L, d, e: [L.np.abs(v) for v in L.sp.linalg.eigh_tridiagonal(d, e)],
                   lambda d, e: [np.abs(v) for v in scipy.linalg.eigh_tridiagonal(d, e)],
                   (d, e))
    for shape in ((4, 3), (3, 4), (3, 3)):
        for mode in ("right", "left"):
            a = rand(rng, shape)
            c = rand(rng, (2, shape[0]) if mode == "right" else (shape[0], 2))
            if mode == "left":
                c = rand(rng, (min(shape), 2))
            yield Case("linalg", f"qr_multiply {shape} mode={mode} (|.|)",
                       lambda L, a, c, m=mode: [L.np.abs(v) for v in
                                                L.sp.linalg.qr_multiply(a, c, mode=m)],
                       lambda a, c, m=mode: [np.abs(v) for v in
                                             scipy.linalg.qr_multiply(a, c, mode=m)], (a, c))


# -- optimize -----------------------------------------------------------------------------------
def rosen(np_, x):
    return np_.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def optimize_cases(rng):
    """minimize(BFGS): x and fun against SciPy's BFGS; every result field against JAX's
    (same algorithm: nit, nfev, status and success are JAX's conventions)."""
    starts = [np.array([-1.2, 1.0]), np.zeros(5), rng.uniform(-2, 2, 4), np.array([1.0, 1.0])]
    for i, x0 in enumerate(starts):
        yield Case("optimize", f"BFGS rosen x0={np.round(x0, 2)}",
                   lambda L, x0: (lambda r: (r.x, r.fun, r.success))(L.sp.optimize.minimize(
                       lambda x: rosen(L.np, x), x0, method="BFGS")),
                   lambda x0: (lambda r: (r.x, r.fun, True))(scipy.optimize.minimize(
                       lambda x: rosen(np, x), x0, method="BFGS", options={"gtol": 1e-10})),
                   (x0,), kept={0: "JAX's BFGS stops there too (its line search fails)",
                                2: "a local minimum (-1, 1, 1, 1) for JAX too"}.get(i))
        if misc.JX is not None:
            yield Case("optimize", f"BFGS rosen fields vs JAX x0={np.round(x0, 2)}",
                       lambda L, x0: result_fields(L, x0, {}),
                       lambda x0: result_fields(misc.JX, x0, {}), (x0,))
            for opts in ({"maxiter": 3}, {"gtol": 1e-2}, {"norm": 2.0},
                         {"line_search_maxiter": 1}):
                yield Case("optimize", f"BFGS rosen {opts} vs JAX",
                           lambda L, x0, o=opts: result_fields(L, x0, o),
                           lambda x0, o=opts: result_fields(misc.JX, x0, o), (x0,))
    q = rng.standard_normal((4, 4))
    q = q @ q.T + np.eye(4)
    b = rng.standard_normal(4)
    yield Case("optimize", "BFGS quadratic with args",
               lambda L, x0: L.sp.optimize.minimize(
                   lambda x, q, b: x @ q @ x / 2 - b @ x, x0, args=(q, b), method="BFGS").x,
               lambda x0: np.linalg.solve(q, b), (np.zeros(4),))
    lbfgs = "l-bfgs-experimental-do-not-rely-on-this"
    for x0 in (np.zeros(3), np.array([-1.2, 1.0]), rng.uniform(-1, 1, 6)):
        yield Case("optimize", f"L-BFGS rosen x0={np.round(x0, 2)}",
                   lambda L, x0: (lambda r: (r.x, r.fun, r.success))(L.sp.optimize.minimize(
                       lambda x: rosen(L.np, x), x0, method=lbfgs)),
                   lambda x0: (lambda r: (r.x, r.fun, True))(scipy.optimize.minimize(
                       lambda x: rosen(np, x), x0, method="L-BFGS-B",
                       options={"gtol": 1e-10, "ftol": 1e-15})), (x0,),
                   kept="JAX's L-BFGS stops there too (status 5, its line search fails); "
                        "every field agrees with JAX's (the cases below)")
        if misc.JX is not None:
            for opts in ({}, {"maxiter": 4}, {"maxcor": 2}, {"maxfun": 5}, {"ftol": 1e-2},
                         {"maxls": 1}, {"norm": 2.0}):
                yield Case("optimize", f"L-BFGS rosen {opts} x0={np.round(x0, 2)} vs JAX",
                           lambda L, x0, o=opts: result_fields(L, x0, o, lbfgs),
                           lambda x0, o=opts: result_fields(misc.JX, x0, o, lbfgs), (x0,))
    z0 = np.array([1.0 + 2.0j, -0.5j])
    if misc.JX is not None:
        yield Case("optimize", "L-BFGS complex x vs JAX",
                   lambda L, z0: L.sp.optimize.minimize(
                       lambda z: L.np.sum(L.np.abs(z - (2 - 1j)) ** 2), z0, method=lbfgs).x,
                   lambda z0: misc.JX.sp.optimize.minimize(
                       lambda z: misc.JX.np.sum(misc.JX.np.abs(z - (2 - 1j)) ** 2), z0,
                       method=lbfgs).x, (z0,))


def result_fields(L, x0, options, method="BFGS"):
    r = L.sp.optimize.minimize(lambda x: rosen(L.np, x), x0, method=method, options=options)
    return (r.x, r.fun, r.jac, r.success, r.status, r.nit, r.nfev, r.njev) + (
        () if r.hess_inv is None else (r.hess_inv,))


# -- stats extras -------------------------------------------------------------------------------
def stats_cases(rng):
    for shape, axis in (((7,), 0), ((5, 6), 0), ((5, 6), 1), ((5, 6), None), ((3, 4, 5), -1),
                        ((0,), 0), ((1,), 0)):
        for keepdims in (False, True):
            x = rng.integers(0, 4, shape).astype(float)
            yield Case("stats", f"mode {shape} axis={axis} keepdims={keepdims}",
                       lambda L, x, a=axis, k=keepdims: tuple(L.sp.stats.mode(x, axis=a,
                                                                            keepdims=k)),
                       lambda x, a=axis, k=keepdims: tuple(scipy.stats.mode(x, axis=a,
                                                                            keepdims=k)), (x,))
    x = np.array([2.0, np.nan, 2.0, np.nan, np.nan, 1.0])
    yield Case("stats", "mode with NaN", lambda L, x: tuple(L.sp.stats.mode(x)),
               lambda x: tuple(scipy.stats.mode(x)), (x,))
    xi = rng.integers(-3, 3, (4, 5))
    yield Case("stats", "mode int", lambda L, x: tuple(L.sp.stats.mode(x, axis=1)),
               lambda x: tuple(scipy.stats.mode(x, axis=1)), (xi,))
    for method in ("average", "min", "max", "dense", "ordinal"):
        for shape, axis in (((9,), None), ((4, 6), None), ((4, 6), 0), ((4, 6), -1),
                            ((0,), None), ((2, 0), 1)):
            x = rng.integers(0, 4, shape).astype(float)
            yield Case("stats", f"rankdata {method} {shape} axis={axis}",
                       lambda L, x, m=method, a=axis: L.sp.stats.rankdata(x, m, axis=a),
                       lambda x, m=method, a=axis: scipy.stats.rankdata(x, m, axis=a), (x,))
        x = np.array([[3.0, np.nan, 1.0, 3.0], [2.0, 2.0, 0.0, 1.0]])
        for policy in ("propagate", "omit"):
            yield Case("stats", f"rankdata {method} NaN nan_policy={policy}",
                       lambda L, x, m=method, p=policy: L.sp.stats.rankdata(
                           x, m, axis=1, nan_policy=p),
                       lambda x, m=method, p=policy: scipy.stats.rankdata(
                           x, m, axis=1, nan_policy=p), (x,),
                       kept="nan_policy='omit' is not in JAX" if policy == "omit" else None)
    for shape, axis in (((8,), 0), ((5, 4), 0), ((5, 4), 1), ((5, 4), None), ((1,), 0)):
        for ddof in (0, 1, 2):
            x = rand(rng, shape)
            yield Case("stats", f"sem {shape} axis={axis} ddof={ddof}",
                       lambda L, x, a=axis, d=ddof: L.sp.stats.sem(x, axis=a, ddof=d),
                       lambda x, a=axis, d=ddof: scipy.stats.sem(x, axis=a, ddof=d), (x,),
                       grad=shape[0] > 2,
                       kept="JAX: 0 for one sample (SciPy 1.17: NaN)" if shape == (1,) else None)
    x = np.array([[1.0, np.nan, 3.0, 4.0], [2.0, 5.0, 1.0, 0.5]])
    for policy in ("propagate", "omit"):
        yield Case("stats", f"sem NaN nan_policy={policy}",
                   lambda L, x, p=policy: L.sp.stats.sem(x, axis=1, nan_policy=p),
                   lambda x, p=policy: scipy.stats.sem(x, axis=1, nan_policy=p), (x,))
    yield from kde_cases(rng)


def kde_cases(rng):
    for d in (1, 2, 3):
        for bw in (None, "scott", "silverman", 0.4):
            for weighted in (False, True):
                data = rng.standard_normal((d, 12)) if d > 1 else rng.standard_normal(12)
                w = rng.uniform(0.1, 2, 12) if weighted else None
                pts = rng.standard_normal((d, 5)) if d > 1 else rng.standard_normal(5)
                yield Case("stats", f"gaussian_kde d={d} bw={bw} weights={weighted}",
                           lambda L, data, pts, bw=bw, w=w: (
                               lambda k: (k.evaluate(pts), k.logpdf(pts), k.pdf(pts),
                                          k.factor, k.covariance, k.neff))(
                               L.sp.stats.gaussian_kde(data, bw_method=bw, weights=w)),
                           lambda data, pts, bw=bw, w=w: (
                               lambda k: (k.evaluate(pts), k.logpdf(pts), k.pdf(pts),
                                          k.factor, k.covariance, k.neff))(
                               scipy.stats.gaussian_kde(data, bw_method=bw, weights=w)),
                           (data, pts))
    data = rng.standard_normal(10)
    yield Case("stats", "gaussian_kde integrate_box_1d",
               lambda L, data: L.sp.stats.gaussian_kde(data).integrate_box_1d(-0.5, 1.2),
               lambda data: scipy.stats.gaussian_kde(data).integrate_box_1d(-0.5, 1.2), (data,))
    data2 = rng.standard_normal((2, 9))
    yield Case("stats", "gaussian_kde integrate_gaussian",
               lambda L, data: L.sp.stats.gaussian_kde(data).integrate_gaussian(
                   np.array([0.1, -0.3]), np.array([[1.0, 0.2], [0.2, 0.5]])),
               lambda data: scipy.stats.gaussian_kde(data).integrate_gaussian(
                   np.array([0.1, -0.3]), np.array([[1.0, 0.2], [0.2, 0.5]])), (data2,))
    other = rng.standard_normal((2, 7))
    yield Case("stats", "gaussian_kde integrate_kde",
               lambda L, data: L.sp.stats.gaussian_kde(data).integrate_kde(
                   L.sp.stats.gaussian_kde(other)),
               lambda data: scipy.stats.gaussian_kde(data).integrate_kde(
                   scipy.stats.gaussian_kde(other)), (data2,))
    far = np.array([40.0, -60.0])
    yield Case("stats", "gaussian_kde logpdf far tail",
               lambda L, data: L.sp.stats.gaussian_kde(data).logpdf(far),
               lambda data: scipy.stats.gaussian_kde(data).logpdf(far), (data,))
    yield Case("stats", "gaussian_kde callable bw",
               lambda L, data: L.sp.stats.gaussian_kde(data, bw_method=lambda k: 0.7)(far / 40),
               lambda data: scipy.stats.gaussian_kde(data, bw_method=lambda k: 0.7)(far / 40),
               (data,))


# -- ndimage: SciPy's other modes ---------------------------------------------------------------
def ndimage_cases(rng):
    for order in (0, 1):
        for mode in ("grid-constant", "grid-wrap", "grid-mirror", "constant", "wrap"):
            for shape in ((1,), (2,), (5,), (3, 4)):
                x = rand(rng, shape)
                coords = np.stack([rng.uniform(-4, s + 3, 11) for s in shape])
                if len(shape) == 1:  # the edges, where the modes differ
                    coords[0, :4] = [-1.0, -0.5, shape[0] - 0.5, shape[0]]
                yield Case("ndimage", f"map_coordinates order={order} {mode} {shape}",
                           lambda L, x, c, o=order, m=mode: L.sp.ndimage.map_coordinates(
                               x, list(c), order=o, mode=m, cval=1.25),
                           lambda x, c, o=order, m=mode: scipy.ndimage.map_coordinates(
                               x, c, order=o, mode=m, cval=1.25), (x, coords),
                           kept=("JAX's 'constant'/'wrap' are SciPy's grid-constant/grid-wrap"
                                 if mode in ("constant", "wrap") else
                                 "JAX has no grid-* modes; tjit says which to use"))
    x = rand(rng, (4, 5))
    yield Case("ndimage", "map_coordinates order=3",
               lambda L, x: L.sp.ndimage.map_coordinates(x, [[1.5], [2.2]], order=3),
               lambda x: scipy.ndimage.map_coordinates(x, [[1.5], [2.2]], order=3), (x,),
               kept="JAX supports order 0 and 1 only")


# BFGS stops at |grad| < gtol = 1e-5: x agrees to ~1e-5, and the iterates of two
# implementations (or of eager and jit) differ by rounding amplified over the iterations
AREA_TOL = {"optimize": 1e-4}

AREAS = {"spectral": spectral_cases, "linalg": linalg_cases, "optimize": optimize_cases,
         "stats": stats_cases, "ndimage": ndimage_cases}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--areas", default=",".join(AREAS))
    parser.add_argument("--match", default="", help="only cases whose label contains this")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    print(f"tjit vs SciPy {scipy.__version__}" + (f", JAX {misc.jax.__version__}"
                                                   if misc.jax else ", JAX not installed"))
    table = {}
    for area in args.areas.split(","):
        cases = bad = kept = 0
        misc.TOL = AREA_TOL.get(area, DEFAULT_TOL)
        for rep in range(args.reps):
            rng = np.random.default_rng([args.seed, rep, 21])
            for case in AREAS[area](rng):
                if args.match not in case.label:
                    continue
                cases += 1
                try:
                    problems = misc.check_case(case, rng)
                except Exception:  # noqa: BLE001 - a crash of the harness is reported
                    problems = [("harness", traceback.format_exc(limit=2))]
                if case.kept is not None:
                    kept += 1
                elif problems:
                    bad += 1
                if problems and args.verbose:
                    note = "" if case.kept is None else f" (kept: {case.kept})"
                    for kind, detail in problems:
                        print(f"  [{area}] {case.label}: {kind}: {detail}{note}", flush=True)
        table[area] = (cases, bad, kept)
    print(f"{'area':<12}{'cases':>7}{'disagree':>10}{'kept':>6}")
    for area, (cases, bad, kept) in table.items():
        print(f"{area:<12}{cases:>7}{bad:>10}{kept:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
