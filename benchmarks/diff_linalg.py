"""Differential hunt for silent wrong answers in linear algebra.

Every case is one function written once against a namespace ``m`` (``m.np`` is numpy,
tjit.numpy or jax.numpy; ``m.sla`` scipy.linalg, tjit.scipy.linalg or
jax.scipy.linalg; ``m.lax`` tjit.lax.linalg or jax.lax.linalg), so the same lambda runs
on NumPy/SciPy in float64 (the reference), on tjit eager, under ``jit`` and under
``jit(..., backend="interpreter")``, and on JAX when it is importable. Decompositions
that are unique only up to a gauge (signs/phases of vectors, the order of equal
eigenvalues) are compared through gauge-free quantities (reconstructions, projectors,
singular values) computed from each library's own outputs.

Checks, per case:

- values: each mode against the float64 reference (a tolerance in units of the dtype's
  eps times a conditioning factor), the NaN/inf pattern, the shape;
- grad (float64): ``grad`` eager and under jit against central differences of the
  *reference* forward function;
- vmap: ``vmap(f)`` against a Python loop of eager calls.

A row counts a disagreement where tjit differs; where JAX is installed its error is
shown beside it so each can be judged from the definitions (JAX may be the one wrong).

Kept on purpose (the case is written to expect it): symmetrize_input's (JAX's) reading
of both triangles by eigh/cholesky where NumPy reads one; NaN (not a LinAlgError) for
non-finite input and for matrices that are not positive definite (JAX); complex eig
results for real input (JAX); float32 expm overflowing to NaN where the float64 result
exceeds float32's range (JAX too). lax.linalg.householder_product and tridiagonal are
not provided by tjit (rows flagged).

    .venv/bin/python benchmarks/diff_linalg.py               # tjit vs NumPy/SciPy
    /work/jaxvenv/bin/python benchmarks/diff_linalg.py --jax # also JAX 0.10.x
    ... --area svd --verbose                                 # one area, every row
    ... --seed 7                                             # other random inputs
"""

import argparse
import collections
import os
import sys
import traceback
import types
import warnings

import numpy as np
import scipy.linalg as sla

os.environ.setdefault("JAX_ENABLE_X64", "1")
import tjit
import tjit.numpy as tjnp
import tjit.scipy.linalg as tsla
from tjit.lax import linalg as tlax

tjit.config.update("enable_x64", True)
warnings.filterwarnings("ignore")

NP = types.SimpleNamespace(np=np, sla=sla, lax=None, name="numpy")
TJ = types.SimpleNamespace(np=tjnp, sla=tsla, lax=tlax, name="tjit")


def _jax_namespace():
    try:
        import jax
        import jax.numpy as jjnp
        import jax.scipy.linalg as jsla
        from jax.lax import linalg as jlax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return types.SimpleNamespace(np=jjnp, sla=jsla, lax=jlax, name="jax", jax=jax)


# -- inputs ------------------------------------------------------------------------------------
RNG = np.random.default_rng(0)
CPLX = (np.complex64, np.complex128)


def rand(shape, dtype=np.float64, rng=RNG):
    a = rng.standard_normal(shape)
    if dtype in CPLX:
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def wc(shape, dtype=np.float64):
    """Well-conditioned square matrices."""
    n = shape[-1]
    return (rand(shape, dtype) + 2 * n * np.eye(n)).astype(dtype)


def spd(shape, dtype=np.float64):
    a = rand(shape, dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def herm(shape, dtype=np.float64):
    a = rand(shape, dtype)
    return ((a + np.conj(np.swapaxes(a, -1, -2))) / 2).astype(dtype)


def tri(shape, lower, dtype=np.float64):
    a = wc(shape, dtype)
    return np.tril(a) if lower else np.triu(a)


def singular(n, rank, dtype=np.float64):
    a = rand((n, rank), dtype) @ rand((rank, n), dtype)
    return a.astype(dtype)


def repeated_eig(n, dtype=np.float64):
    q, _ = np.linalg.qr(rand((n, n), dtype))
    w = np.array([1.0, 1.0, 2.0, 2.0, 2.0, 3.0][:n])
    return ((q * w) @ np.conj(q.T)).astype(dtype)


# -- gauge-free views of decompositions (each library's outputs, numpy float64) -------------
def H(x):
    return np.conj(np.swapaxes(x, -1, -2))


def svd_view(out, full=True):
    u, s, vh = (np.asarray(o) for o in out)
    k = s.shape[-1]
    rec = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    return [s, rec, H(u) @ u, vh @ H(vh)]


def eigh_view(out):
    w, v = (np.asarray(o) for o in out)
    return [w, (v * w[..., None, :]) @ H(v), H(v) @ v]


def qr_view(out):
    q, r = (np.asarray(o) for o in out)
    k = min(q.shape[-1], r.shape[-2])
    return [q[..., :, :k] @ r[..., :k, :], H(q) @ q, np.abs(r), np.tril(r, -1)]


def eig_view(out, a):
    w, v = (np.asarray(o) for o in out)
    w_sorted = np.sort_complex(w.reshape(-1, w.shape[-1])).reshape(w.shape)
    resid = np.asarray(a, np.complex128) @ v - v * w[..., None, :]
    return [w_sorted, resid, np.linalg.norm(v, axis=-2)]


def lu_view(out, a):
    lu, _, perm = (np.asarray(o) for o in out)
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k)
    up = np.triu(lu[..., :k, :])
    pa = np.take_along_axis(np.asarray(a), perm[..., :, None].astype(np.int64), axis=-2)
    return [low @ up - pa, np.max(np.abs(np.tril(lu, -1)), initial=0) <= 1 + 1e-6]


# -- one case ------------------------------------------------------------------------------------
Case = collections.namedtuple("Case", "area name fn args ref view tol modes kind")


def case(area, name, fn, args, ref=None, view=None, tol=1.0, modes=("eager", "jit", "interp"),
         kind="value"):
    """``fn(m, *args)``; ``ref(*args)`` (default: ``fn(NP, *args)`` in float64);
    ``view(out, *args)`` maps any library's outputs to gauge-free arrays; ``tol`` scales
    the default tolerance (a multiple of the dtype's eps)."""
    return Case(area, name, fn, args, ref, view, tol, modes, kind)


def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [y for v in x for y in _leaves(v)]
    return [x]


def _arg_eps(args):
    dts = [np.asarray(a).dtype for a in args if isinstance(a, np.ndarray)]
    inexact = [d for d in dts if np.issubdtype(d, np.inexact)]
    single = any(d in (np.float32, np.complex64) for d in inexact)
    return float(np.finfo(np.float32 if single else np.float64).eps)


def _as64(a):
    a = np.asarray(a)
    if a.dtype == np.complex64:
        return a.astype(np.complex128)
    if a.dtype == np.float32:
        return a.astype(np.float64)
    return a


def compare(got, want, eps, tol):
    """(ok, error, note): relative max error over the leaves, NaN/inf pattern, shape."""
    g = [np.asarray(x) for x in _leaves(got)]
    w = [np.asarray(x) for x in _leaves(want)]
    if len(g) != len(w):
        return False, np.inf, f"{len(g)} outputs vs {len(w)}"
    worst = 0.0
    for gi, wi in zip(g, w):
        if gi.dtype == bool or wi.dtype == bool:
            if not np.array_equal(gi, wi):
                return False, np.inf, "bool differs"
            continue
        if gi.shape != wi.shape:
            return False, np.inf, f"shape {gi.shape} vs {wi.shape}"
        gi, wi = _as64(gi), _as64(wi)
        gnan, wnan = np.isnan(gi), np.isnan(wi)
        if not np.array_equal(gnan, wnan):
            return False, np.inf, f"NaN pattern ({gnan.sum()} vs {wnan.sum()})"
        ginf, winf = np.isinf(gi) & ~gnan, np.isinf(wi) & ~wnan
        if not np.array_equal(ginf, winf) or not np.array_equal(gi[ginf], wi[winf]):
            return False, np.inf, "inf pattern"
        fin = np.isfinite(wi)
        if fin.any():
            scale = max(np.max(np.abs(wi[fin])), 1.0)
            worst = max(worst, float(np.max(np.abs(gi[fin] - wi[fin]))) / scale)
    limit = tol * 200 * eps
    return worst <= limit, worst, "" if worst <= limit else f"err {worst:.1e} > {limit:.1e}"


def run_mode(c, lib, mode):
    if mode == "eager":
        return c.fn(lib, *c.args)
    fn = (lambda *a: c.fn(lib, *a))
    if lib.name == "jax":
        return lib.jax.jit(fn)(*c.args)
    return tjit.jit(fn, backend="interpreter" if mode == "interp" else None)(*c.args)


def ref_value(c):
    args64 = [_as64(a) if isinstance(a, np.ndarray) else a for a in c.args]
    out = c.ref(*args64) if c.ref else c.fn(NP, *args64)
    return c.view(out, *args64) if c.view else out


def lib_value(c, lib, mode):
    out = run_mode(c, lib, mode)
    return c.view(out, *c.args) if c.view else out


# -- gradients and vmap ----------------------------------------------------------------------------
def central_diff(f, x, h=1e-6):
    """Gradient of a real scalar f at x (real or complex: d/dRe + i d/dIm, JAX's grad
    convention is conj of that; we compare with conj below)."""
    x = np.asarray(x, dtype=np.complex128 if np.iscomplexobj(x) else np.float64)
    g = np.zeros(x.shape, dtype=x.dtype)
    for idx in np.ndindex(x.shape):
        for unit in ((1.0, 1j) if np.iscomplexobj(x) else (1.0,)):
            e = np.zeros_like(x)
            e[idx] = h * unit
            d = (float(f(x + e)) - float(f(x - e))) / (2 * h)
            g[idx] += d * (1 if unit == 1.0 else 1j)
    return g


def grad_case(area, name, fn, x, ref=None, tol=1.0, h=1e-6):
    """``fn(m, x)`` is a real scalar; its tjit gradient (eager and jit) against central
    differences of the float64 reference function (``ref(x)`` or ``fn(NP, x)``)."""
    def ref_fn(y):
        return ref(y) if ref else fn(NP, y)

    def fd(*_):
        g = central_diff(ref_fn, x, h)
        return np.conj(g)  # JAX/tjit: grad of a real f of complex x is conj(df/dRe + i df/dIm)

    def lib_grad(m, xx):
        if m.name == "numpy":
            return fd()
        if m.name == "jax":
            return m.jax.grad(lambda y: fn(m, y))(xx)
        return tjit.grad(lambda y: fn(m, y))(xx)

    return case(area, name, lib_grad, (x,), ref=fd, tol=tol * 1e6, modes=("eager", "jit"),
                kind="grad")


def jvp_case(area, name, fn, x, tol=1.0, h=1e-6):
    """Forward mode: ``jvp(fn)`` along a fixed direction against the central difference
    of the float64 reference function along it."""
    t = rand(np.shape(x), np.asarray(x).dtype.type)

    def fd(*_):
        return (float(fn(NP, x + h * t)) - float(fn(NP, x - h * t))) / (2 * h)

    def lib_jvp(m, xx):
        if m.name == "numpy":
            return fd()
        jvp = m.jax.jvp if m.name == "jax" else tjit.jvp
        return jvp(lambda y: fn(m, y), (xx,), (t,))[1]

    return case(area, name, lib_jvp, (x,), ref=fd, tol=tol * 1e6, modes=("eager", "jit"),
                kind="jvp")


def vmap_case(area, name, fn, xs, tol=1.0):
    """``vmap(fn)`` over the leading axis of each of ``xs`` against a loop of eager calls."""
    def loop(*args):
        outs = [_leaves(fn(TJ, *[a[i] for a in args])) for i in range(args[0].shape[0])]
        return [np.stack([np.asarray(y) for y in o]) for o in zip(*outs)]

    def vm(m, *args):
        if m.name == "numpy":
            return loop(*args)
        vmap = m.jax.vmap if m.name == "jax" else tjit.vmap
        return _leaves(vmap(lambda *a: fn(m, *a))(*args))

    return case(area, name, vm, tuple(xs), ref=lambda *a: loop(*xs), tol=tol,
                modes=("eager", "jit"), kind="vmap")


# -- the case table --------------------------------------------------------------------------------
DTYPES = (np.float32, np.float64, np.complex64, np.complex128)
NONFINITE = np.array([[1.0, np.nan, 0.0], [0.0, 2.0, 1.0], [1.0, 0.0, 3.0]])
WITH_INF = np.array([[1.0, np.inf, 0.0], [0.0, 2.0, 1.0], [1.0, 0.0, 3.0]])


def lu_solve_cases(cases):
    for dt in DTYPES:
        for shape in ((1, 1), (4, 4), (2, 3, 5, 5)):
            a, b = wc(shape, dt), rand(shape[:-1] + (2,), dt)
            cases += [
                case("lu", f"solve {shape} {np.dtype(dt).name}",
                     lambda m, a, b: m.np.linalg.solve(a, b), (a, b)),
                case("lu", f"inv {shape} {np.dtype(dt).name}",
                     lambda m, a: m.np.linalg.inv(a), (a,)),
                case("lu", f"det {shape} {np.dtype(dt).name}",
                     lambda m, a: m.np.linalg.det(a), (a,), tol=shape[-1]),
                case("lu", f"slogdet {shape} {np.dtype(dt).name}",
                     lambda m, a: m.np.linalg.slogdet(a), (a,), tol=shape[-1]),
            ]
    a = wc((4, 4))
    cases += [
        case("lu", "solve vector b", lambda m, a, b: m.np.linalg.solve(a, b), (a, rand((4,)))),
        case("lu", "solve broadcast batch", lambda m, a, b: m.np.linalg.solve(a, b),
             (wc((3, 1, 4, 4)), rand((2, 4, 3)))),
        case("lu", "solve 0x0", lambda m, a, b: m.np.linalg.solve(a, b),
             (np.zeros((0, 0)), np.zeros((0, 2)))),
        case("lu", "inv 0x0", lambda m, a: m.np.linalg.inv(a), (np.zeros((2, 0, 0)),)),
        case("lu", "det 0x0", lambda m, a: m.np.linalg.det(a), (np.zeros((0, 0)),)),
        case("lu", "slogdet 0x0", lambda m, a: m.np.linalg.slogdet(a), (np.zeros((0, 0)),)),
        case("lu", "det singular", lambda m, a: m.np.linalg.det(a), (singular(4, 2),)),
        case("lu", "det exactly singular", lambda m, a: m.np.linalg.det(a),
             (np.array([[1.0, 2.0], [2.0, 4.0]]),)),
        case("lu", "slogdet singular", lambda m, a: m.np.linalg.slogdet(a),
             (np.zeros((3, 3)),)),
        case("lu", "slogdet complex singular", lambda m, a: m.np.linalg.slogdet(a),
             (np.zeros((3, 3), np.complex128),)),
        case("lu", "det perm", lambda m, a: m.np.linalg.det(a), (np.eye(5)[[3, 0, 4, 1, 2]],)),
        case("lu", "det nan", lambda m, a: m.np.linalg.det(a), (NONFINITE,)),
        case("lu", "solve nan", lambda m, a, b: m.np.linalg.solve(a, b),
             (NONFINITE, np.ones((3, 1)))),
        case("lu", "det int", lambda m, a: m.np.linalg.det(a),
             (np.array([[2, 1], [1, 3]]),)),
        case("lu", "solve bool", lambda m, a, b: m.np.linalg.solve(a, b),
             (np.eye(3, dtype=bool), np.ones((3, 1), bool))),
        case("lu", "det inf", lambda m, a: m.np.linalg.det(a), (WITH_INF,)),
        case("lu", "inv inf", lambda m, a: m.np.isnan(m.np.linalg.inv(a)).any(), (WITH_INF,),
             ref=lambda a: True),
        case("lu", "slogdet float32 huge det",
             lambda m, a: m.np.linalg.slogdet(a), (np.diag(np.full(40, 1e3)).astype(
                 np.float32) + rand((40, 40), np.float32),), tol=40),
        case("lu", "det float32 40x40", lambda m, a: m.np.linalg.det(a),
             (wc((40, 40), np.float32) / 80,), tol=40),
        case("lu", "matrix_power int", lambda m, a: m.np.linalg.matrix_power(a, 3),
             (np.array([[1, 2], [3, 4]], np.int32),)),
        case("lu", "near-singular solve", lambda m, a, b: m.np.linalg.solve(a, b),
             (np.array([[1.0, 1.0], [1.0, 1.0 + 1e-10]]), np.array([2.0, 2.0 + 1e-10])),
             tol=1e7),
        case("lu", "matrix_power -3", lambda m, a: m.np.linalg.matrix_power(a, -3), (a,)),
        case("lu", "matrix_power 0", lambda m, a: m.np.linalg.matrix_power(a, 0), (a,)),
        case("lu", "matrix_power 5 batch", lambda m, a: m.np.linalg.matrix_power(a, 5),
             (rand((2, 3, 3)) / 3,)),
        case("lu", "tensorsolve", lambda m, a, b: m.np.linalg.tensorsolve(a, b),
             (wc((6, 6)).reshape(2, 3, 6), rand((2, 3)))),
        case("lu", "tensorsolve axes", lambda m, a, b: m.np.linalg.tensorsolve(a, b, axes=(0,)),
             (wc((6, 6)).reshape(6, 2, 3), rand((2, 3)))),
        case("lu", "tensorinv", lambda m, a: m.np.linalg.tensorinv(a, ind=2),
             (wc((6, 6)).reshape(2, 3, 6),)),
        case("lu", "tensorinv ind=1", lambda m, a: m.np.linalg.tensorinv(a, ind=1),
             (wc((6, 6)).reshape(6, 2, 3),)),
    ]


def eig_cases(cases):
    for dt in DTYPES:
        for shape in ((1, 1), (5, 5), (2, 3, 4, 4)):
            h, g = herm(shape, dt), rand(shape, dt)
            nm = f"{shape} {np.dtype(dt).name}"
            cases += [
                case("eigh", f"eigh {nm}", lambda m, a: m.np.linalg.eigh(a), (h,),
                     view=lambda o, a: eigh_view(o), tol=4),
                case("eigh", f"eigvalsh {nm}", lambda m, a: m.np.linalg.eigvalsh(a), (h,)),
                case("eig", f"eig {nm}", lambda m, a: m.np.linalg.eig(a), (g,),
                     view=eig_view, tol=10, modes=("eager", "jit")),
                case("eig", f"eigvals {nm}",
                     lambda m, a: m.np.sort_complex(m.np.linalg.eigvals(a).reshape(-1))
                     if a.ndim == 2 else m.np.linalg.eigvals(a), (g,), tol=10,
                     view=lambda o, a: np.sort_complex(np.asarray(o).reshape(
                         -1, np.shape(o)[-1])).reshape(np.shape(o)),
                     modes=("eager", "jit")),
            ]
    up = herm((4, 4))
    low_only = np.tril(up) + np.triu(rand((4, 4)), 1)  # garbage in the upper triangle
    up_only = np.triu(up) + np.tril(rand((4, 4)), -1)
    cases += [
        case("eigh", "UPLO=L no symmetrize", lambda m, a: m.np.linalg.eigh(a, UPLO="L",
             **({} if m.name == "numpy" else {"symmetrize_input": False})), (low_only,),
             view=lambda o, a: eigh_view(o)),
        case("eigh", "UPLO=U no symmetrize", lambda m, a: m.np.linalg.eigh(a, UPLO="U",
             **({} if m.name == "numpy" else {"symmetrize_input": False})), (up_only,),
             view=lambda o, a: eigh_view(o)),
        case("eigh", "eigvalsh UPLO=U", lambda m, a: m.np.linalg.eigvalsh(a, UPLO="U",
             **({} if m.name == "numpy" else {"symmetrize_input": False})), (up_only,)),
        case("eigh", "complex herm diag imag ignored",
             lambda m, a: m.np.linalg.eigvalsh(a), (herm((3, 3), np.complex128) +
                                                   0j * np.eye(3),)),
        case("eigh", "repeated eigenvalues", lambda m, a: m.np.linalg.eigh(a),
             (repeated_eig(6),), view=lambda o, a: eigh_view(o), tol=4),
        case("eigh", "0x0", lambda m, a: m.np.linalg.eigh(a), (np.zeros((0, 0)),)),
        case("eigh", "batch 0x0", lambda m, a: m.np.linalg.eigh(a), (np.zeros((3, 0, 0)),)),
        case("eigh", "nan", lambda m, a: m.np.linalg.eigvalsh(a), (NONFINITE.T.copy(),),
             ref=lambda a: np.full(3, np.nan)),  # (NaN in the lower triangle, read by all)
        case("eigh", "inf", lambda m, a: m.np.linalg.eigvalsh(a), (WITH_INF.T.copy(),),
             ref=lambda a: np.full(3, np.nan)),
        case("eigh", "int", lambda m, a: m.np.linalg.eigvalsh(a),
             (np.array([[2, 1], [1, 3]]),)),
        case("eig", "0x0", lambda m, a: m.np.linalg.eigvals(a), (np.zeros((0, 0)),),
             modes=("eager", "jit")),
        case("eig", "nan", lambda m, a: m.np.linalg.eigvals(a), (NONFINITE,),
             ref=lambda a: np.full(3, np.nan + 0j), modes=("eager", "jit")),
        case("eig", "defective", lambda m, a: m.np.linalg.eigvals(a),
             (np.array([[2.0, 1.0], [0.0, 2.0]]),), modes=("eager", "jit")),
    ]


def svd_cases(cases):
    for dt in DTYPES:
        for shape in ((1, 1), (5, 3), (3, 5), (2, 4, 4), (2, 6, 2)):
            a = rand(shape, dt)
            nm = f"{shape} {np.dtype(dt).name}"
            for full in (True, False):
                cases.append(case("svd", f"svd full={full} {nm}",
                                  lambda m, a, f=full: m.np.linalg.svd(a, full_matrices=f),
                                  (a,), view=lambda o, a: svd_view(o), tol=4))
            cases += [
                case("svd", f"svdvals {nm}",
                     lambda m, a: m.np.linalg.svd(a, compute_uv=False), (a,)),
                case("svd", f"pinv {nm}", lambda m, a: m.np.linalg.pinv(a), (a,), tol=10),
                case("svd", f"matrix_rank {nm}", lambda m, a: m.np.linalg.matrix_rank(a),
                     (a,)),
                case("svd", f"cond {nm}", lambda m, a: m.np.linalg.cond(a), (a,), tol=100),
            ]
    r2 = singular(5, 2)
    cases += [
        case("svd", "0x3 svdvals", lambda m, a: m.np.linalg.svd(a, compute_uv=False),
             (np.zeros((0, 3)),)),
        case("svd", "0x3 svd full", lambda m, a: m.np.linalg.svd(a), (np.zeros((0, 3)),)),
        case("svd", "3x0 svd reduced", lambda m, a: m.np.linalg.svd(a, full_matrices=False),
             (np.zeros((3, 0)),)),
        case("svd", "zeros svd", lambda m, a: m.np.linalg.svd(a), (np.zeros((3, 3)),),
             view=lambda o, a: svd_view(o)),
        case("svd", "nan svdvals", lambda m, a: m.np.linalg.svd(a, compute_uv=False),
             (NONFINITE,), ref=lambda a: np.full(3, np.nan)),
        case("svd", "inf svdvals", lambda m, a: m.np.linalg.svd(a, compute_uv=False),
             (WITH_INF,), ref=lambda a: np.full(3, np.nan)),
        case("svd", "pinv rank 2", lambda m, a: m.np.linalg.pinv(a), (r2,), tol=100),
        case("svd", "pinv rtol", lambda m, a: m.np.linalg.pinv(a, rtol=0.3),
             (np.diag([1.0, 0.5, 0.2, 0.1]),)),
        case("svd", "pinv hermitian", lambda m, a: m.np.linalg.pinv(a, hermitian=True),
             (herm((4, 4)),), tol=10),
        case("svd", "pinv hermitian indefinite rank-def",
             lambda m, a: m.np.linalg.pinv(a, hermitian=True),
             (np.diag([2.0, -1.0, 0.0]),)),
        case("svd", "pinv batch rtol array",
             lambda m, a: m.np.linalg.pinv(a, rtol=np.array([0.1, 0.6])),
             (np.stack([np.diag([1.0, 0.5, 0.05]), np.diag([1.0, 0.5, 0.05])]),)),
        case("svd", "pinv 0x3", lambda m, a: m.np.linalg.pinv(a), (np.zeros((0, 3)),)),
        case("svd", "pinv zeros", lambda m, a: m.np.linalg.pinv(a), (np.zeros((3, 2)),)),
        case("svd", "matrix_rank rank 2", lambda m, a: m.np.linalg.matrix_rank(a), (r2,)),
        case("svd", "matrix_rank tol", lambda m, a: m.np.linalg.matrix_rank(a, tol=0.3),
             (np.diag([1.0, 0.5, 0.2]),)),
        case("svd", "matrix_rank rtol", lambda m, a: m.np.linalg.matrix_rank(a, rtol=0.3),
             (np.diag([1.0, 0.5, 0.2]),)),
        case("svd", "matrix_rank hermitian", lambda m, a: m.np.linalg.matrix_rank(
            a, hermitian=True), (np.diag([2.0, -1.0, 0.0]),)),
        case("svd", "matrix_rank vector", lambda m, a: m.np.linalg.matrix_rank(a),
             (np.array([0.0, 1.0]),)),
        case("svd", "matrix_rank zero vector", lambda m, a: m.np.linalg.matrix_rank(a),
             (np.zeros(3),)),
        case("svd", "matrix_rank batch", lambda m, a: m.np.linalg.matrix_rank(a),
             (np.stack([r2, wc((5, 5))]),)),
        case("svd", "cond singular", lambda m, a: m.np.linalg.cond(a),
             (np.array([[1.0, 2.0], [2.0, 4.0]]),)),
        case("svd", "cond zeros", lambda m, a: m.np.linalg.cond(a), (np.zeros((2, 2)),)),
    ]
    for p in (None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"):
        cases.append(case("svd", f"cond p={p}", lambda m, a, p=p: m.np.linalg.cond(a, p),
                          (wc((4, 4)),), tol=100))
        cases.append(case("svd", f"cond p={p} singular",  # s_min / s_max for p=-2
                          lambda m, a, p=p: m.np.linalg.cond(a, p) > 1e15 if p != -2 else
                          m.np.linalg.cond(a, p) < 1e-15,
                          (np.array([[1.0, 2.0], [2.0, 4.0]]),), ref=lambda a: True))
        cases.append(case("svd", f"cond p={p} zeros",
                          lambda m, a, p=p: m.np.linalg.cond(a, p), (np.zeros((3, 3)),),
                          ref=lambda a: np.inf))


def qr_chol_cases(cases):
    for dt in DTYPES:
        for shape in ((1, 1), (5, 3), (3, 5), (2, 4, 4)):
            a = rand(shape, dt)
            nm = f"{shape} {np.dtype(dt).name}"
            for mode in ("reduced", "complete"):
                cases.append(case("qr", f"qr {mode} {nm}",
                                  lambda m, a, md=mode: m.np.linalg.qr(a, mode=md), (a,),
                                  view=lambda o, a: qr_view(o)))
            cases.append(case("qr", f"qr r {nm}",
                              lambda m, a: m.np.abs(m.np.linalg.qr(a, mode="r")), (a,)))
        for shape in ((1, 1), (4, 4), (2, 3, 3)):
            p = spd(shape, dt)
            nm = f"{shape} {np.dtype(dt).name}"
            cases += [
                case("cholesky", f"cholesky {nm}", lambda m, a: m.np.linalg.cholesky(a),
                     (p,)),
                case("cholesky", f"cholesky upper {nm}",
                     lambda m, a: m.np.linalg.cholesky(a, upper=True), (p,)),
            ]
    cases += [
        case("qr", "0x3", lambda m, a: m.np.linalg.qr(a), (np.zeros((0, 3)),),
             view=lambda o, a: qr_view(o)),
        case("qr", "3x0 complete", lambda m, a: m.np.linalg.qr(a, mode="complete"),
             (np.zeros((3, 0)),), view=lambda o, a: qr_view(o)),
        case("qr", "rank-deficient", lambda m, a: m.np.linalg.qr(a), (singular(4, 2),),
             view=lambda o, a: qr_view(o)),
        case("cholesky", "not PD", lambda m, a: m.np.linalg.cholesky(a),
             (np.array([[1.0, 2.0], [2.0, 1.0]]),),
             ref=lambda a: np.tril(np.full((2, 2), np.nan))),
        case("cholesky", "batch, one not PD", lambda m, a: m.np.linalg.cholesky(a),
             (np.stack([spd((2, 2)), -np.eye(2)]),),  # JAX: NaN lower triangle, 0 above
             ref=lambda a: np.stack([np.linalg.cholesky(a[0]), np.tril(np.full((2, 2),
                                                                               np.nan))])),
        case("cholesky", "0x0", lambda m, a: m.np.linalg.cholesky(a), (np.zeros((0, 0)),)),
        case("cholesky", "nan", lambda m, a: m.np.linalg.cholesky(a),
             (np.array([[np.nan, 0.0], [0.0, 1.0]]),),
             ref=lambda a: np.tril(np.full((2, 2), np.nan))),
        case("cholesky", "int", lambda m, a: m.np.linalg.cholesky(a),
             (np.array([[4, 2], [2, 3]]),)),
    ]


def lstsq_cases(cases):
    def xs(m, a, b, **kw):
        out = m.np.linalg.lstsq(a, b, **kw)
        return out[0], out[2], out[3]

    for dt in DTYPES:
        for shape in ((6, 3), (3, 6), (4, 4)):
            a = rand(shape, dt)
            nm = f"{shape} {np.dtype(dt).name}"
            cases += [
                case("lstsq", f"x rank s {nm}", xs, (a, rand((shape[0], 2), dt)), tol=10),
                case("lstsq", f"vector b {nm}", xs, (a, rand((shape[0],), dt)), tol=10),
                case("lstsq", f"resid {nm}", lambda m, a, b: m.np.linalg.lstsq(a, b)[1],
                     (a, rand((shape[0], 2), dt)), tol=10,
                     ref=lambda a, b: np.linalg.lstsq(a, b)[1] if a.shape[0] > a.shape[1]
                     else np.sum(np.abs(b - a @ np.linalg.lstsq(a, b)[0]) ** 2, 0)),
            ]
    cases += [
        case("lstsq", "rank deficient", xs, (singular(5, 2)[:, :4], rand((5, 1))), tol=100),
        case("lstsq", "rcond", lambda m, a, b: m.np.linalg.lstsq(a, b, rcond=0.3)[0],
             (np.diag([1.0, 0.5, 0.2]), np.ones(3))),
        case("lstsq", "zeros", xs, (np.zeros((3, 2)), np.ones((3,)))),
        case("lstsq", "0 rows", xs, (np.zeros((0, 2)), np.zeros((0,)))),
        case("lstsq", "b 0 columns", xs, (rand((4, 2)), np.zeros((4, 0)))),
        case("lstsq", "int", xs, (np.array([[1, 0], [1, 1], [1, 2]]), np.array([1, 2, 2]))),
        case("svd", "pinv nan", lambda m, a: m.np.isnan(m.np.linalg.pinv(a)).all(),
             (NONFINITE,), ref=lambda a: True),
        case("svd", "svd int", lambda m, a: m.np.linalg.svd(a, compute_uv=False),
             (np.array([[3, 1], [1, 3]]),)),
        case("qr", "nan", lambda m, a: m.np.isnan(m.np.linalg.qr(a)[1]).any(), (NONFINITE,),
             ref=lambda a: True),
    ]


def norm_cases(cases):
    x3 = rand((2, 3, 4))
    v = rand((5,))
    for dt in DTYPES:
        x = rand((3, 4), dt)
        for ord_ in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
            for keep in (False, True):
                cases.append(case("norm", f"matrix ord={ord_} keep={keep} {np.dtype(dt).name}",
                                  lambda m, a, o=ord_, k=keep: m.np.linalg.norm(a, o,
                                                                                keepdims=k),
                                  (x,), tol=4))
        for ord_ in (None, 0, 1, -1, 2, -2, 3, 0.5, -0.5, np.inf, -np.inf):
            cases.append(case("norm", f"vector ord={ord_} {np.dtype(dt).name}",
                              lambda m, a, o=ord_: m.np.linalg.norm(a, o), (rand((5,), dt),),
                              tol=4))
    for ord_ in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        for axis in ((0, 2), (2, 0), (-1, -2), (1, 2)):
            cases.append(case("norm", f"3d ord={ord_} axis={axis}",
                              lambda m, a, o=ord_, ax=axis: m.np.linalg.norm(
                                  a, o, axis=ax, keepdims=True), (x3,), tol=4))
    for ord_ in (None, 0, 1, 2, -np.inf, np.inf, 3):
        for axis in (0, -1, 1):
            cases.append(case("norm", f"3d vector ord={ord_} axis={axis}",
                              lambda m, a, o=ord_, ax=axis: m.np.linalg.norm(a, o, axis=ax),
                              (x3,), tol=4))
    cases += [
        case("norm", "axis None 3d", lambda m, a: m.np.linalg.norm(a), (x3,)),
        case("norm", "axis None 3d keepdims", lambda m, a: m.np.linalg.norm(a, keepdims=True),
             (x3,)),
        case("norm", "empty vector", lambda m, a: m.np.linalg.norm(a), (np.zeros((0,)),)),
        case("norm", "empty inf", lambda m, a: m.np.linalg.norm(a, np.inf), (np.zeros((0,)),)),
        case("norm", "zeros -1", lambda m, a: m.np.linalg.norm(a, -1), (np.zeros((3,)),)),
        case("norm", "zeros -2 vec", lambda m, a: m.np.linalg.norm(a, -2), (np.zeros((3,)),)),
        case("norm", "zeros 0.5", lambda m, a: m.np.linalg.norm(a, 0.5), (np.zeros((3,)),)),
        case("norm", "with inf", lambda m, a: m.np.linalg.norm(a),
             (np.array([1.0, np.inf, 2.0]),)),
        case("norm", "with inf ord=1", lambda m, a: m.np.linalg.norm(a, 1),
             (np.array([1.0, -np.inf, 2.0]),)),
        case("norm", "with nan ord inf", lambda m, a: m.np.linalg.norm(a, np.inf),
             (np.array([1.0, np.nan, 2.0]),)),
        case("norm", "huge", lambda m, a: m.np.linalg.norm(a), (np.array([1e200, 1e200]),)),
        case("norm", "tiny", lambda m, a: m.np.linalg.norm(a), (np.array([1e-200, 1e-200]),)),
        case("norm", "int", lambda m, a: m.np.linalg.norm(a), (np.array([3, 4]),)),
        case("norm", "vector_norm axes", lambda m, a: m.np.linalg.vector_norm(
            a, axis=(0, 2), ord=3, keepdims=True), (x3,), tol=4),
        case("norm", "vector_norm default", lambda m, a: m.np.linalg.vector_norm(a), (x3,)),
        case("norm", "vector_norm inf", lambda m, a: m.np.linalg.vector_norm(a, ord=np.inf),
             (x3,)),
        case("norm", "matrix_norm nuc", lambda m, a: m.np.linalg.matrix_norm(a, ord="nuc"),
             (x3,), tol=4),
        case("norm", "matrix_norm default keep", lambda m, a: m.np.linalg.matrix_norm(
            a, keepdims=True), (x3,)),
        case("norm", "vector p=3 on v", lambda m, a: m.np.linalg.norm(a, 3), (v,)),
    ]


def misc_cases(cases):
    a, b = rand((3, 4)), rand((4, 5))
    cases += [
        case("misc", "multi_dot 4", lambda m, *xs: m.np.linalg.multi_dot(xs),
             (rand((3,)), rand((3, 4)), rand((4, 2)), rand((2,)))),
        case("misc", "multi_dot 2d ends", lambda m, *xs: m.np.linalg.multi_dot(xs),
             (a, b, rand((5, 2)))),
        case("misc", "multi_dot 2", lambda m, *xs: m.np.linalg.multi_dot(xs), (a, b)),
        case("misc", "multi_dot 1d,1d", lambda m, *xs: m.np.linalg.multi_dot(xs),
             (rand((3,)), rand((3,)))),
        case("misc", "cross", lambda m, x, y: m.np.linalg.cross(x, y),
             (rand((4, 3)), rand((4, 3)))),
        case("misc", "cross axis0", lambda m, x, y: m.np.linalg.cross(x, y, axis=0),
             (rand((3, 4)), rand((3, 4)))),
        case("misc", "outer", lambda m, x, y: m.np.linalg.outer(x, y),
             (rand((3,), np.complex128), rand((4,)))),
        case("misc", "vecdot complex", lambda m, x, y: m.np.linalg.vecdot(x, y),
             (rand((2, 3), np.complex128), rand((2, 3), np.complex128))),
        case("misc", "vecdot axis", lambda m, x, y: m.np.linalg.vecdot(x, y, axis=0),
             (rand((3, 2)), rand((3, 1)))),
        case("misc", "matvec", lambda m, x, y: m.np.matvec(x, y),
             (rand((2, 3, 4), np.complex128), rand((4,), np.complex128))),
        case("misc", "vecmat", lambda m, x, y: m.np.vecmat(x, y),
             (rand((3,), np.complex128), rand((2, 3, 4), np.complex128))),
        case("misc", "matrix_transpose", lambda m, x: m.np.linalg.matrix_transpose(x),
             (rand((2, 3, 4)),)),
        case("misc", "diagonal offset", lambda m, x: m.np.linalg.diagonal(x, offset=-1),
             (rand((2, 3, 4)),)),
        case("misc", "trace offset", lambda m, x: m.np.linalg.trace(x, offset=1),
             (rand((2, 3, 4)),)),
        case("misc", "trace int", lambda m, x: m.np.linalg.trace(x),
             (np.arange(9, dtype=np.int32).reshape(3, 3),)),
        case("misc", "tensordot", lambda m, x, y: m.np.linalg.tensordot(x, y, axes=1),
             (a, b)),
    ]


def _op(a, lower, trans, conj, unit):
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        t = t - np.diag(np.diag(t)) + np.eye(a.shape[-1])
    if trans:
        t = t.T
    return np.conj(t) if conj else t


def scipy_lu(a):
    """(lu, pivots, permutation) from SciPy's getrf, per matrix."""
    flat = a.reshape((-1,) + a.shape[-2:])
    lus, pivs, perms = [], [], []
    for y in flat:
        lu, piv = sla.lu_factor(y)
        perm = list(range(y.shape[0]))
        for i, j in enumerate(piv):
            perm[i], perm[j] = perm[j], perm[i]
        lus.append(lu)
        pivs.append(piv)
        perms.append(perm)
    k = min(a.shape[-2:])
    return (np.stack(lus).reshape(a.shape), np.stack(pivs).reshape(a.shape[:-2] + (k,)),
            np.array(perms).reshape(a.shape[:-1]))


def lax_cases(cases):
    for dt in (np.float32, np.float64, np.complex128):
        for left in (True, False):
            for lower in (True, False):
                for trans in (False, True):
                    for conj in (False, True):
                        for unit in (False, True):
                            a = wc((4, 4), dt)
                            b = rand((4, 3) if left else (3, 4), dt)
                            opts = {"left_side": left, "lower": lower, "transpose_a": trans,
                                    "conjugate_a": conj, "unit_diagonal": unit}

                            def ref(a, b, left=left, lower=lower, trans=trans, conj=conj,
                                    unit=unit):
                                t = _op(a, lower, trans, conj, unit)
                                return np.linalg.solve(t, b) if left else \
                                    np.linalg.solve(t.T, b.T).T
                            cases.append(case(
                                "lax.triangular_solve",
                                f"{np.dtype(dt).name} " + " ".join(
                                    k for k, v in opts.items() if v),
                                lambda m, a, b, o=opts: m.lax.triangular_solve(a, b, **o),
                                (a, b), ref=ref, tol=4))
    a = wc((2, 4, 4))
    cases += [
        case("lax.triangular_solve", "batched", lambda m, a, b: m.lax.triangular_solve(
            a, b, left_side=True, lower=True), (a, rand((2, 4, 3))),
             ref=lambda a, b: np.linalg.solve(np.tril(a), b)),
        case("lax.triangular_solve", "zero diagonal",
             lambda m, a, b: m.lax.triangular_solve(a, b, left_side=True, lower=True),
             (np.array([[1.0, 0.0], [1.0, 0.0]]), np.ones((2, 1))),
             ref=lambda a, b: np.array([[1.0], [np.nan]])),
    ]
    for dt in DTYPES:
        for shape in ((4, 4), (5, 3), (3, 5), (2, 4, 4), (1, 1)):
            x = rand(shape, dt)
            nm = f"{shape} {np.dtype(dt).name}"
            cases += [
                case("lax.lu", f"lu {nm}", lambda m, a: m.lax.lu(a), (x,), view=lu_view,
                     ref=scipy_lu),
                case("lax.lu", f"pivots {nm}", lambda m, a: m.lax.lu(a)[1], (x,),
                     ref=lambda a: np.stack([sla.lu_factor(y)[1] for y in
                                             a.reshape((-1,) + a.shape[-2:])]).reshape(
                         a.shape[:-2] + (min(a.shape[-2:]),))),
            ]
        h = herm((4, 4), dt)
        p = spd((4, 4), dt)
        cases += [
            case("lax.eigh", f"lower {np.dtype(dt).name}",
                 lambda m, a: m.lax.eigh(m.np.tril(a) + m.np.triu(m.np.ones_like(a), 1),
                                         lower=True, symmetrize_input=False)[::-1],
                 (h,), ref=lambda a: np.linalg.eigh(a, "L"), view=lambda o, a: eigh_view(o)),
            case("lax.eigh", f"upper {np.dtype(dt).name}",
                 lambda m, a: m.lax.eigh(m.np.triu(a) + m.np.tril(m.np.ones_like(a), -1),
                                         lower=False, symmetrize_input=False)[::-1],
                 (h,), ref=lambda a: np.linalg.eigh(a, "U"), view=lambda o, a: eigh_view(o)),
            case("lax.cholesky", f"no symmetrize {np.dtype(dt).name}",
                 lambda m, a: m.lax.cholesky(m.np.tril(a) + m.np.triu(m.np.ones_like(a), 1),
                                             symmetrize_input=False),
                 (p,), ref=np.linalg.cholesky),
            case("lax.qr", f"full {np.dtype(dt).name}", lambda m, a: m.lax.qr(a), (rand((5, 3), dt),),
                 ref=lambda a: np.linalg.qr(a, "complete"), view=lambda o, a: qr_view(o)),
            case("lax.qr", f"reduced wide {np.dtype(dt).name}",
                 lambda m, a: m.lax.qr(a, full_matrices=False), (rand((3, 5), dt),),
                 ref=lambda a: np.linalg.qr(a), view=lambda o, a: qr_view(o)),
            case("lax.svd", f"full {np.dtype(dt).name}", lambda m, a: m.lax.svd(a), (rand((5, 3), dt),),
                 ref=np.linalg.svd, view=lambda o, a: svd_view(o)),
            case("lax.svd", f"s only {np.dtype(dt).name}",
                 lambda m, a: m.lax.svd(a, compute_uv=False), (rand((3, 5), dt),),
                 ref=lambda a: np.linalg.svd(a, compute_uv=False)),
        ]
    piv = np.array([[2, 2, 3, 3], [0, 3, 2, 3]], np.int32)

    def perm_ref(piv, n=6):
        out = []
        for row in piv:
            p = list(range(n))
            for i, j in enumerate(row):
                p[i], p[j] = p[j], p[i]
            out.append(p)
        return np.array(out, np.int32)
    cases += [
        case("lax.lu", "lu_pivots_to_permutation",
             lambda m, p: m.lax.lu_pivots_to_permutation(p, 6), (piv,), ref=perm_ref),
        case("lax.lu", "singular", lambda m, a: m.lax.lu(a), (singular(4, 2),), view=lu_view,
             ref=scipy_lu),
        case("lax.lu", "0x0", lambda m, a: m.lax.lu(a)[0], (np.zeros((0, 0)),),
             ref=lambda a: a),
    ]
    d, du, dl = rand((5,)) + 4, rand((5,)), rand((5,))
    du[-1] = 0
    dl[0] = 0
    full = np.diag(d) + np.diag(du[:-1], 1) + np.diag(dl[1:], -1)
    cases += [
        case("lax.tridiagonal_solve", "5x5", lambda m, dl, d, du, b: m.lax.tridiagonal_solve(
            dl, d, du, b), (dl, d, du, rand((5, 2))),
             ref=lambda dl, d, du, b: np.linalg.solve(full, b)),
        case("lax.tridiagonal_solve", "needs pivoting complex batched",
             lambda m, dl, d, du, b: m.lax.tridiagonal_solve(dl, d, du, b),
             (rand((2, 5), np.complex128), rand((2, 5), np.complex128) * 0.1,
              rand((2, 5), np.complex128), rand((2, 5, 3), np.complex128)),
             ref=lambda dl, d, du, b: np.stack([np.linalg.solve(
                 np.diag(d[i]) + np.diag(du[i, :-1], 1) + np.diag(dl[i, 1:], -1), b[i])
                 for i in range(2)]), tol=100),
        case("lax.cholesky_update", "upper", lambda m, r, w: m.lax.cholesky_update(r, w),
             (np.linalg.cholesky(spd((4, 4))).T.copy(), rand((4,))),
             ref=lambda r, w: np.linalg.cholesky(r.T @ r + np.outer(w, w)).T, tol=10),
        case("lax.householder_product", "4x3",
             lambda m, a, t: m.lax.householder_product(a, t),
             tuple(sla.qr(rand((4, 3)), mode="raw")[0]),
             ref=lambda a, t: sla.lapack.dorgqr(a, t)[0][:, :3]),
        case("lax.tridiagonal", "4x4 lower", lambda m, a: m.lax.tridiagonal(a, lower=True)[1:3],
             (herm((4, 4)),), ref=lambda a: list(sla.hessenberg(a, calc_q=False)
                                                 [np.arange(4), np.arange(4)][None]),
             view=lambda o, a: [np.sort(np.abs(np.asarray(o[0])))]),
    ]


def scipy_cases(cases):
    for dt in (np.float32, np.float64, np.complex128):
        nm = np.dtype(dt).name
        a, b = wc((4, 4), dt), rand((4, 2), dt)
        h, p = herm((4, 4), dt) + 8 * np.eye(4, dtype=dt), spd((4, 4), dt)
        for assume, mat in (("gen", a), ("sym", (a + a.T) / 2), ("her", h), ("pos", p)):
            for lower in (False, True):
                # Only the triangle named by `lower` is read for sym/her/pos (SciPy):
                # put garbage in the other one.
                garbage = mat.copy()
                if assume != "gen":
                    mask = np.triu(np.ones((4, 4), bool), 1)
                    garbage[mask if lower else mask.T] = 7.5
                cases.append(case("scipy.solve", f"assume_a={assume} lower={lower} {nm}",
                                  lambda m, a, b, s=assume, lo=lower: m.sla.solve(
                                      a, b, assume_a=s, lower=lo), (garbage, b), tol=10))
        for trans in (0, 1, 2):
            for lower in (False, True):
                for unit in (False, True):
                    cases.append(case(
                        "scipy.solve_triangular", f"trans={trans} lower={lower} unit={unit} {nm}",
                        lambda m, a, b, t=trans, lo=lower, u=unit: m.sla.solve_triangular(
                            a, b, trans=t, lower=lo, unit_diagonal=u), (a, b), tol=4))
            cases.append(case("scipy.lu_solve", f"trans={trans} {nm}",
                              lambda m, a, b, t=trans: m.sla.lu_solve(m.sla.lu_factor(a), b,
                                                                      trans=t), (a, b),
                              tol=10))
        for lower in (False, True):
            tri_only = p.copy()  # garbage in the triangle SciPy does not read
            tri_only[np.triu(np.ones((4, 4), bool), 1) if lower else
                     np.tril(np.ones((4, 4), bool), -1)] = 9.0
            cases.append(case("scipy.cho", f"cholesky one triangle lower={lower} {nm}",
                              lambda m, a, lo=lower: m.sla.cholesky(a, lower=lo), (tri_only,)))
            cases.append(case("scipy.cho", f"cho_solve lower={lower} {nm}",
                              lambda m, a, b, lo=lower: m.sla.cho_solve(
                                  m.sla.cho_factor(a, lower=lo), b), (p, b), tol=10))
            cases.append(case("scipy.cho", f"cholesky lower={lower} {nm}",
                              lambda m, a, lo=lower: m.sla.cholesky(a, lower=lo), (p,)))
        for permute_l in (False, True):
            cases.append(case("scipy.lu", f"lu permute_l={permute_l} {nm}",
                              lambda m, a, pl=permute_l: m.sla.lu(a, permute_l=pl),
                              (rand((5, 3), dt),)))
        cases += [
            case("scipy.lu", f"lu wide {nm}", lambda m, a: m.sla.lu(a), (rand((3, 5), dt),)),
            case("scipy.lu", f"lu_factor {nm}", lambda m, a: m.sla.lu_factor(a), (a,)),
            case("scipy.misc", f"det {nm}", lambda m, a: m.sla.det(a), (a,), tol=4),
            case("scipy.misc", f"inv {nm}", lambda m, a: m.sla.inv(a), (a,), tol=4),
            case("scipy.solve", f"vector b {nm}", lambda m, a, b: m.sla.solve(a, b),
                 (a, rand((4,), dt))),
        ]
        # (500 only in float64: exp of the float32 input overflows float32, where both
        # tjit and JAX give NaN for the inf entries)
        for scale in (1e-3, 0.5, 3.0, 40.0) + ((500.0,) if dt != np.float32 else ()):
            cases.append(case("scipy.expm", f"scale {scale} {nm}",
                              lambda m, a: m.sla.expm(a), (rand((4, 4), dt) * scale / 4,),
                              tol=(50 if dt == np.float64 else 5) * max(1, scale)))
        cases.append(case("scipy.expm", f"frechet {nm}",
                          lambda m, a, e: m.sla.expm_frechet(a, e), (rand((3, 3), dt),
                                                                      rand((3, 3), dt)),
                          tol=50))
    cases += [
        case("scipy.expm", "batch", lambda m, a: m.sla.expm(a) if m.name != "numpy" else
             np.stack([sla.expm(x) for x in a]), (rand((2, 3, 3)),), tol=50),
        case("scipy.expm", "upper_triangular", lambda m, a: m.sla.expm(a, upper_triangular=True)
             if m.name != "numpy" else sla.expm(a), (np.triu(rand((4, 4))),), tol=50),
        case("scipy.expm", "0x0", lambda m, a: m.sla.expm(a), (np.zeros((0, 0)),)),
        case("scipy.expm", "1x1", lambda m, a: m.sla.expm(a), (np.array([[2.0]]),)),
        case("scipy.expm", "nan", lambda m, a: m.sla.expm(a), (NONFINITE,),
             ref=lambda a: np.full((3, 3), np.nan)),
        case("scipy.expm", "nilpotent", lambda m, a: m.sla.expm(a),
             (np.array([[0.0, 1.0, 2.0], [0, 0, 3.0], [0, 0, 0]]),)),
        case("scipy.expm", "frechet large", lambda m, a, e: m.sla.expm_frechet(a, e),
             (rand((3, 3)) * 20, rand((3, 3))), tol=1e4),
        case("scipy.misc", "block_diag", lambda m, *xs: m.sla.block_diag(*xs),
             (np.ones((2, 2)), np.array([3.0, 4.0]), np.array(5.0), np.zeros((0, 2)))),
        case("scipy.misc", "block_diag int+float", lambda m, *xs: m.sla.block_diag(*xs),
             (np.ones((2, 2), np.int32), np.array([[1.5]]))),
        case("scipy.misc", "block_diag (0,3)", lambda m, *xs: m.sla.block_diag(*xs),
             (np.zeros((0, 3)), np.ones((1, 1)))),
        case("scipy.solve_triangular", "one a, batched b",
             lambda m, a, b: m.sla.solve_triangular(a, b, lower=True), (L44, rand((2, 4, 3))),
             ref=lambda a, b: np.stack([sla.solve_triangular(a, x, lower=True) for x in b])),
        case("scipy.cho", "one a, batched b", lambda m, a, b: m.sla.cho_solve(
            m.sla.cho_factor(a), b), (spd((4, 4)), rand((2, 4, 3))),
             ref=lambda a, b: np.stack([sla.cho_solve(sla.cho_factor(a), x) for x in b])),
        case("scipy.lu_solve", "one a, batched b", lambda m, a, b: m.sla.lu_solve(
            m.sla.lu_factor(a), b), (wc((4, 4)), rand((2, 4, 3))),
             ref=lambda a, b: np.stack([sla.lu_solve(sla.lu_factor(a), x) for x in b])),
        case("scipy.solve", "pos, one a, batched b", lambda m, a, b: m.sla.solve(
            a, b, assume_a="pos"), (spd((4, 4)), rand((2, 4, 3))),
             ref=lambda a, b: np.stack([sla.solve(a, x, assume_a="pos") for x in b])),
        case("scipy.lu", "lu_factor rectangular", lambda m, a: m.sla.lu_factor(a),
             (rand((5, 3)),)),
        case("scipy.solve", "pos not PD", lambda m, a, b: m.sla.solve(a, b, assume_a="pos"),
             (np.array([[1.0, 2.0], [2.0, 1.0]]), np.ones(2)),
             ref=lambda a, b: np.full(2, np.nan)),
    ]


# -- gradients ------------------------------------------------------------------------------------
W44 = rand((4, 4))
W43 = rand((4, 3))
W34 = rand((3, 4))
L44 = np.tril(wc((4, 4)))


def sym(m, x):
    """The Hermitian part: numpy's eigh/cholesky read one triangle, tjit's and JAX's
    symmetrize, so finite differences need an input function that is the same for both."""
    return (x + m.np.conj(m.np.swapaxes(x, -1, -2))) / 2


def first_projector(m, u):
    """u[:, 0] u[:, 0]^H: free of the column's sign/phase."""
    return u[:, :1] @ m.np.conj(u[:, :1]).T


def usv(out):
    u, s, vh = out
    return (u * s) @ vh


def grad_cases(cases):
    a, a_c = wc((4, 4)) / 8, wc((3, 3), np.complex128) / 6
    t, wide = rand((5, 3)), rand((3, 5))
    h, p = herm((4, 4)), spd((4, 4))
    g = [
        ("svdvals sum", lambda m, x: m.np.sum(m.np.linalg.svd(x, compute_uv=False)), t),
        ("svdvals weighted wide", lambda m, x: m.np.sum(m.np.linalg.svd(
            x, compute_uv=False) * m.np.arange(1.0, 4.0)), wide),
        ("svdvals complex", lambda m, x: m.np.sum(m.np.linalg.svd(x, compute_uv=False) ** 2 *
                                                   m.np.arange(1.0, 4.0)), a_c),
        ("svd projector tall", lambda m, x: m.np.sum(m.np.real(first_projector(
            m, m.np.linalg.svd(x, full_matrices=False)[0])) * m.np.arange(25.0).reshape(5, 5)),
         t),
        ("svd U S Vh tall", lambda m, x: m.np.sum(usv(m.np.linalg.svd(x, full_matrices=False))
                                                  * m.np.arange(15.0).reshape(5, 3)), t),
        ("nuclear norm", lambda m, x: m.np.linalg.norm(x, "nuc"), t),
        ("2-norm", lambda m, x: m.np.linalg.norm(x, 2), t),
        ("fro norm complex", lambda m, x: m.np.linalg.norm(x), a_c),
        ("vector 3-norm", lambda m, x: m.np.linalg.norm(x, 3), t[:, 0]),
        ("vector inf-norm", lambda m, x: m.np.linalg.norm(x, np.inf), t[:, 0]),
        ("logdet", lambda m, x: m.np.linalg.slogdet(x)[1], a),
        ("logdet complex", lambda m, x: m.np.linalg.slogdet(x)[1], a_c),
        ("det", lambda m, x: m.np.linalg.det(x), a),
        ("det complex real part", lambda m, x: m.np.real(m.np.linalg.det(x)), a_c),
        ("det singular rank 3", lambda m, x: m.np.linalg.det(x), singular(4, 3)),
        ("det singular rank 2", lambda m, x: m.np.linalg.det(x), singular(4, 2)),
        ("det zero matrix 2x2", lambda m, x: m.np.linalg.det(x), np.zeros((2, 2))),
        ("solve", lambda m, x: m.np.sum(m.np.linalg.solve(x, W43) * W43), a),
        ("inv", lambda m, x: m.np.sum(m.np.linalg.inv(x) * W44), a),
        ("inv complex", lambda m, x: m.np.sum(m.np.abs(m.np.linalg.inv(x)) ** 2), a_c),
        ("eigvalsh weighted", lambda m, x: m.np.sum(m.np.linalg.eigvalsh(sym(m, x)) *
                                                    m.np.arange(1.0, 5.0)), h),
        ("eigvalsh complex", lambda m, x: m.np.sum(m.np.linalg.eigvalsh(sym(m, x)) *
                                                   m.np.arange(1.0, 4.0)),
         herm((3, 3), np.complex128)),
        ("eigh projector", lambda m, x: m.np.sum(m.np.real(first_projector(
            m, m.np.linalg.eigh(sym(m, x))[1]) * W44)), h),
        ("eigh |v|^2 complex", lambda m, x: m.np.sum(
            m.np.abs(m.np.linalg.eigh(sym(m, x))[1][:, 0]) ** 2 * m.np.arange(1.0, 4.0)),
         herm((3, 3), np.complex128)),
        ("eigvals real part", lambda m, x: m.np.sum(m.np.real(m.np.linalg.eigvals(x)) ** 2),
         rand((3, 3))),
        ("eigvals |w|", lambda m, x: m.np.sum(m.np.abs(m.np.linalg.eigvals(x))), rand((3, 3))),
        ("cholesky", lambda m, x: m.np.sum(m.np.linalg.cholesky(sym(m, x)) * W44), p),
        ("cholesky complex", lambda m, x: m.np.sum(m.np.abs(m.np.linalg.cholesky(sym(m, x))) ** 2 *
                                                   W44[:3, :3]),
         spd((3, 3), np.complex128)),
        ("qr reduced tall", lambda m, x: m.np.sum(m.np.linalg.qr(x[:4])[0] * W43) +
         4 * 3 * m.np.sum(m.np.abs(m.np.linalg.qr(x[:4])[1])), t),
        ("qr square complex", lambda m, x: m.np.sum(m.np.abs(m.np.linalg.qr(x)[0][:, 0]) *
                                                    m.np.arange(1.0, 4.0)) +
         m.np.sum(m.np.abs(m.np.linalg.qr(x)[1])), a_c),
        ("qr wide", lambda m, x: m.np.sum(m.np.abs(m.np.linalg.qr(x)[1]) *
                                          m.np.arange(15.0).reshape(3, 5)), wide),
        ("qr wide complete complex q", lambda m, x: m.np.sum(m.np.abs(
            m.np.linalg.qr(x, mode="complete")[0]) * m.np.arange(9.0).reshape(3, 3)),
         wide + 1j * rand((3, 5))),
        ("pinv tall", lambda m, x: m.np.sum(m.np.linalg.pinv(x) *
                                            m.np.arange(15.0).reshape(3, 5)), t),
        ("pinv wide", lambda m, x: m.np.sum(m.np.linalg.pinv(x) * m.np.arange(15.0).reshape(
            5, 3)), wide),
        ("lstsq x", lambda m, x: m.np.sum(m.np.linalg.lstsq(x, m.np.arange(5.0),
                                                             rcond=None)[0] ** 2), t),
        ("cond", lambda m, x: m.np.linalg.cond(x), a),
        ("matrix_power -2", lambda m, x: m.np.sum(m.np.linalg.matrix_power(x, -2) * W44), a),
        ("expm", lambda m, x: m.np.sum(m.sla.expm(x) * W44), rand((4, 4))),
        ("expm large", lambda m, x: m.np.sum(m.sla.expm(x) * W44), rand((4, 4)) * 3),
        ("expm complex", lambda m, x: m.np.sum(m.np.abs(m.sla.expm(x)) ** 2), a_c * 2),
        ("scipy solve pos", lambda m, x: m.np.sum(m.sla.solve(sym(m, x), W43, assume_a="pos") * W43),
         p),
        ("cho_solve", lambda m, x: m.np.sum(m.sla.cho_solve(m.sla.cho_factor(sym(m, x)), W43) * W43),
         p),
        ("lu_solve trans 1", lambda m, x: m.np.sum(m.sla.lu_solve(m.sla.lu_factor(x), W43,
                                                                  trans=1) * W43), a),
        ("solve_triangular", lambda m, x: m.np.sum(m.sla.solve_triangular(
            x, W43, lower=True, trans=1) * W43), np.tril(a) + 2 * np.eye(4)),
        ("tensorinv", lambda m, x: m.np.sum(m.np.linalg.tensorinv(x, ind=1) ** 2),
         (wc((4, 4)) / 4).reshape(4, 2, 2)),
    ]
    for name, fn, x in g:
        cases.append(grad_case("grad", name, fn, x))
        if not np.iscomplexobj(x):
            cases.append(jvp_case("jvp", name, fn, x))


def vmap_cases(cases):
    a, b = wc((3, 4, 4)), rand((3, 4, 2))
    h, p = herm((3, 4, 4)), spd((3, 4, 4))
    cases += [
        vmap_case("vmap", "solve", lambda m, a, b: m.np.linalg.solve(a, b), (a, b)),
        vmap_case("vmap", "slogdet", lambda m, a: m.np.linalg.slogdet(a), (a,)),
        vmap_case("vmap", "svdvals", lambda m, a: m.np.linalg.svd(a, compute_uv=False),
                  (rand((3, 5, 2)),)),
        vmap_case("vmap", "eigvalsh", lambda m, a: m.np.linalg.eigvalsh(a), (h,)),
        vmap_case("vmap", "cholesky", lambda m, a: m.np.linalg.cholesky(a), (p,)),
        vmap_case("vmap", "qr r", lambda m, a: m.np.abs(m.np.linalg.qr(a)[1]), (rand((3, 5, 3)),)),
        vmap_case("vmap", "lstsq", lambda m, a, b: m.np.linalg.lstsq(a, b)[0],
                  (rand((3, 5, 3)), rand((3, 5)))),
        vmap_case("vmap", "pinv", lambda m, a: m.np.linalg.pinv(a), (rand((3, 5, 3)),)),
        vmap_case("vmap", "norm 2", lambda m, a: m.np.linalg.norm(a, 2), (rand((3, 5, 3)),)),
        vmap_case("vmap", "expm", lambda m, a: m.sla.expm(a), (rand((3, 3, 3)),)),
        vmap_case("vmap", "expm mixed norms", lambda m, a: m.sla.expm(a),
                  (rand((3, 3, 3)) * np.array([0.001, 1.0, 30.0])[:, None, None],)),
        vmap_case("vmap", "lu_solve", lambda m, a, b: m.sla.lu_solve(m.sla.lu_factor(a), b),
                  (a, b)),
        vmap_case("vmap", "solve_triangular b only", lambda m, b: m.sla.solve_triangular(
            L44, b, lower=True), (b,)),
        vmap_case("vmap", "triangular_solve a only", lambda m, a: m.lax.triangular_solve(
            a, np.ones((4, 2)), left_side=True, lower=True), (a,)),
        vmap_case("vmap", "eig vals", lambda m, a: m.np.sort_complex(m.np.linalg.eigvals(a)),
                  (rand((3, 3, 3)),)),
        vmap_case("vmap", "grad logdet", lambda m, a: (m.jax.grad if m.name == "jax" else
                                                       tjit.grad)(
            lambda x: m.np.linalg.slogdet(x)[1])(a), (a,)),
        vmap_case("vmap", "matrix_rank", lambda m, a: m.np.linalg.matrix_rank(a),
                  (np.stack([singular(4, 2), wc((4, 4)), singular(4, 1)]),)),
        vmap_case("vmap", "det", lambda m, a: m.np.linalg.det(a), (a,)),
    ]


AREAS = [lu_solve_cases, eig_cases, svd_cases, qr_chol_cases, lstsq_cases, norm_cases,
         misc_cases, lax_cases, scipy_cases, grad_cases, vmap_cases]


# -- the run ----------------------------------------------------------------------------------------
def _short(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0][:90]}" if str(e) else type(e).__name__


def run_case(c, jax_ns, verbose):
    """Returns a list of (mode, ok, note) rows."""
    rows = []
    eps = _arg_eps(c.args)
    try:
        want = ref_value(c)
        ref_err = None
    except Exception as e:  # noqa: BLE001
        want, ref_err = None, e
    jax_note = ""
    dtype_row = None
    if jax_ns is not None and c.kind != "skipjax":
        try:
            if c.view is None:  # result dtypes (and weak types) as JAX's
                got_dt = [_dtype_of(x) for x in _leaves(run_mode(c, TJ, "eager"))]
                want_dt = [_dtype_of(x) for x in _leaves(run_mode(c, jax_ns, "eager"))]
                dtype_row = ("dtype", got_dt == want_dt,
                             "" if got_dt == want_dt else f"dtypes {got_dt} vs JAX {want_dt}")
            jax_out = lib_value(c, jax_ns, "eager")
            if ref_err is None:
                ok, _, note = compare(jax_out, want, eps, c.tol)
                jax_note = "jax ok" if ok else f"jax: {note}"
            else:
                jax_note = "jax returned"
        except Exception as e:  # noqa: BLE001
            jax_note = f"jax raised {_short(e)}"
    for mode in c.modes:
        try:
            got = lib_value(c, TJ, mode)
        except Exception as e:  # noqa: BLE001
            if ref_err is not None:
                rows.append((mode, True, f"both raise ({_short(e)})"))
            else:
                rows.append((mode, False, f"raised {_short(e)}"))
                if verbose:
                    traceback.print_exc()
            continue
        if ref_err is not None:
            rows.append((mode, False, f"reference raised {_short(ref_err)}; tjit returned"))
            continue
        ok, _, note = compare(got, want, eps, c.tol)
        rows.append((mode, ok, note))
    if dtype_row is not None:
        rows.append(dtype_row)
    return [(m, ok, note, jax_note) for m, ok, note in rows]


def _dtype_of(x):
    weak = getattr(x, "weak_type", None)
    if weak is None:
        weak = getattr(getattr(x, "aval", None), "weak_type", False)
    return f"{np.asarray(x).dtype.name}{'*' if weak else ''}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jax", action="store_true", help="also run JAX (if importable)")
    parser.add_argument("--area", default=None, help="only areas whose name contains this")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--seed", type=int, default=0, help="the inputs' random seed")
    args = parser.parse_args()
    # reseed the shared generator in place: ``rand``'s default argument holds this object
    RNG.bit_generator.state = np.random.default_rng(args.seed).bit_generator.state
    jax_ns = _jax_namespace() if args.jax else None
    cases = []
    for make in AREAS:
        make(cases)
    if args.area:
        cases = [c for c in cases if args.area in c.area]
    table = collections.OrderedDict()
    bad = []
    for c in cases:
        rows = run_case(c, jax_ns, args.verbose)
        stats = table.setdefault(c.area, [0, 0, 0])
        stats[0] += 1
        stats[1] += len(rows)
        for mode, ok, note, jax_note in rows:
            if not ok:
                stats[2] += 1
                bad.append((c.area, c.name, mode, note, jax_note))
            if args.verbose:
                print(f"  {'ok ' if ok else 'BAD'} {c.area:24s} {c.name:45s} {mode:7s} {note} "
                      f"{jax_note}")
    print(f"\n{'area':26s} {'cases':>6s} {'runs':>6s} {'disagree':>9s}")
    for area, (n, runs, nbad) in table.items():
        print(f"{area:26s} {n:6d} {runs:6d} {nbad:9d}")
    tot = [sum(v[i] for v in table.values()) for i in range(3)]
    print(f"{'total':26s} {tot[0]:6d} {tot[1]:6d} {tot[2]:9d}")
    if bad:
        print("\ndisagreements:")
        for area, name, mode, note, jax_note in bad:
            print(f"  {area:24s} {name:45s} {mode:7s} {note}  [{jax_note}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
