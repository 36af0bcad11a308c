"""Differential hunt: tjit.scipy's fft (dct family), signal convolutions, integrate,
interpolate, ndimage.map_coordinates, spatial.transform and cluster.vq against SciPy in
float64 (the reference) and, when importable, JAX (a second opinion).

Each case draws random shapes and values (fixed seeds) for one call and evaluates it with
tjit eager, under ``jit`` and under ``jit(backend="interpreter")``; differentiable cases
also compare ``grad`` with central differences and ``vmap`` with a Python loop. A case is
a disagreement when tjit's value differs from SciPy's beyond a float64 tolerance, when
tjit raises where SciPy answers (unless JAX raises too: a documented JAX limitation), or
when one of tjit's paths (jit, interpreter, grad, vmap) differs from eager/reference.

    /work/jaxvenv/bin/python benchmarks/diff_scipy_misc.py --reps 3      # with JAX
    .venv/bin/python benchmarks/diff_scipy_misc.py --reps 3              # SciPy only
    ... --verbose     # print every disagreement
"""

import argparse
import os
import sys
import traceback

os.environ["TJIT_ENABLE_X64"] = "1"
os.environ["JAX_ENABLE_X64"] = "1"

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.cluster.vq  # noqa: E402
import scipy.fft  # noqa: E402
import scipy.integrate  # noqa: E402
import scipy.interpolate  # noqa: E402
import scipy.ndimage  # noqa: E402
import scipy.signal  # noqa: E402
import scipy.spatial.transform as sst  # noqa: E402

import tjit  # noqa: E402
import tjit.scipy.cluster.vq  # noqa: E402,F401
import tjit.scipy.fft  # noqa: E402,F401
import tjit.scipy.integrate  # noqa: E402,F401
import tjit.scipy.interpolate  # noqa: E402,F401
import tjit.scipy.ndimage  # noqa: E402,F401
import tjit.scipy.signal  # noqa: E402,F401
import tjit.scipy.spatial.transform  # noqa: E402,F401

tjit.config.update("jax_enable_x64", True)
try:
    import jax
    import jax.scipy.cluster.vq  # noqa: F401
    import jax.scipy.fft  # noqa: F401
    import jax.scipy.integrate  # noqa: F401
    import jax.scipy.interpolate  # noqa: F401
    import jax.scipy.ndimage  # noqa: F401
    import jax.scipy.signal  # noqa: F401
    import jax.scipy.spatial.transform  # noqa: F401
    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None

TOL = 1e-9          # relative to max(1, |reference|) in float64
GRAD_TOL = 1e-5     # central differences with h = 1e-6


class Lib:
    """The pieces of one library a case calls: ``sp`` (its scipy), ``np`` (its numpy)."""

    def __init__(self, mod):
        self.sp, self.np, self.name = mod.scipy, mod.numpy, mod.__name__


TJ = Lib(tjit)
JX = Lib(jax) if jax is not None else None


class Case:
    def __init__(self, area, label, fun, ref, args, grad=False, vmap=False, kept=None):
        self.area, self.label, self.fun, self.ref, self.args = area, label, fun, ref, args
        self.grad, self.vmap, self.kept = grad, vmap, kept


def leaves(x):
    if isinstance(x, (tuple, list)):
        return [v for item in x for v in leaves(item)]
    return [np.asarray(x)]


def max_err(got, ref):
    got, ref = leaves(got), leaves(ref)
    if len(got) != len(ref):
        return np.inf
    worst = 0.0
    for g, r in zip(got, ref):
        if g.shape != r.shape:
            return np.inf
        if g.size == 0:
            continue
        if not np.array_equal(np.isnan(g), np.isnan(r)):
            return np.inf
        ok = ~np.isnan(r)
        err = np.abs(g[ok].astype(complex) - r[ok]) / np.maximum(1.0, np.abs(r[ok]))
        worst = max(worst, float(err.max(initial=0.0)))
    return worst


def tolerance(result):
    """TOL for float64 results; a few hundred eps for 32-bit ones."""
    narrow = any(v.dtype in (np.float32, np.complex64) for v in leaves(result))
    return 2e-5 if narrow else TOL


def run(thunk):
    try:
        return thunk(), None
    except Exception as e:  # noqa: BLE001 - an error is a result to compare
        return None, f"{type(e).__name__}: {str(e)[:150]}"


def scalar_loss(lib, fun, args, weights):
    """``sum(w * real(fun(...)))``: a scalar whose gradient checks every output."""
    out = leaves_lib(fun(lib, *args))
    return sum(lib.np.sum(lib.np.real(o) * w) for o, w in zip(out, weights))


def leaves_lib(x):
    if isinstance(x, (tuple, list)):
        return [v for item in x for v in leaves_lib(item)]
    return [x]


def check_case(case, rng):
    """A list of (kind, detail) disagreements of one case."""
    problems = []
    ref, ref_err = run(lambda: case.ref(*case.args))
    eager, eager_err = run(lambda: case.fun(TJ, *case.args))
    jx, jx_err = (run(lambda: case.fun(JX, *case.args)) if JX is not None
                  else (None, "no jax"))
    if ref_err is not None:
        if eager_err is None and case.kept is None:
            problems.append(("answers where SciPy raises", ref_err))
        return problems
    if eager_err is not None:
        if JX is not None and jx_err is None:
            problems.append(("raises where SciPy and JAX answer", eager_err))
        elif case.kept is None:
            problems.append(("raises where SciPy answers (JAX too)", eager_err))
        return problems
    if jx_err is None:
        tj_types = [str(v.dtype) for v in leaves(eager)]
        jx_types = [str(v.dtype) for v in leaves(jx)]
        if tj_types != jx_types:
            problems.append(("dtype differs from JAX", f"{tj_types} vs {jx_types}"))
    tol = tolerance(eager)
    err = max_err(eager, ref)
    if err > tol:
        jerr = max_err(jx, ref) if jx_err is None else None
        problems.append(("eager vs SciPy", f"err {err:.2e}; JAX err "
                         + (f"{jerr:.2e}" if jerr is not None else jx_err)))
    for backend in (None, "interpreter"):
        kw = {} if backend is None else {"backend": backend}
        got, e = run(lambda: tjit.jit(lambda *a: case.fun(TJ, *a), **kw)(*case.args))
        name = "jit" if backend is None else "interpreter"
        if e is not None:
            problems.append((f"{name} raises", e))
        elif max_err(got, eager) > tol:
            problems.append((f"{name} vs eager", f"err {max_err(got, eager):.2e}"))
    if case.grad:
        problems += check_grad(case, eager, rng)
    if case.vmap:
        problems += check_vmap(case, rng)
    return problems


def check_grad(case, eager, rng):
    weights = [rng.standard_normal(np.shape(o)) for o in leaves(eager)]
    x0 = np.asarray(case.args[0], dtype=np.float64)
    rest = case.args[1:]
    g, e = run(lambda: np.asarray(tjit.grad(
        lambda a: scalar_loss(TJ, case.fun, (a,) + rest, weights))(x0)))
    if e is not None:
        return [("grad raises", e)]

    def loss(a):
        out = leaves(case.ref(a, *rest))
        return sum(float(np.sum(np.real(o) * w)) for o, w in zip(out, weights))

    flat = x0.ravel()
    picks = rng.choice(flat.size, size=min(flat.size, 6), replace=False)
    h = 1e-6
    worst = 0.0
    for i in picks:
        up, down = flat.copy(), flat.copy()
        up[i] += h
        down[i] -= h
        fd = (loss(up.reshape(x0.shape)) - loss(down.reshape(x0.shape))) / (2 * h)
        worst = max(worst, abs(g.ravel()[i] - fd) / max(1.0, abs(fd)))
    return [("grad vs central differences", f"err {worst:.2e}")] if worst > GRAD_TOL else []


def check_vmap(case, rng):
    x0 = np.asarray(case.args[0])
    batch = np.stack([x0, x0 + rng.standard_normal(x0.shape).astype(x0.dtype) * 0.1, -x0])
    rest = case.args[1:]
    got, e = run(lambda: tjit.vmap(lambda a: case.fun(TJ, a, *rest))(batch))
    if e is not None:
        return [("vmap raises", e)]
    loop = [case.fun(TJ, b, *rest) for b in batch]
    want = [np.stack(parts) for parts in zip(*[leaves(v) for v in loop])]
    err = max_err(leaves(got), want)
    return [("vmap vs loop", f"err {err:.2e}")] if err > TOL else []


# -- cases ---------------------------------------------------------------------------------------
def rand(rng, shape, kind="real"):
    x = rng.standard_normal(shape)
    if kind == "complex":
        return x + 1j * rng.standard_normal(shape)
    if kind == "int":
        return rng.integers(-5, 6, shape)
    return x


def fft_cases(rng):
    for fname in ("dct", "idct"):
        for norm in (None, "backward", "ortho"):
            for kind in ("real", "complex", "int"):
                size = int(rng.integers(1, 9))
                shape = (int(rng.integers(1, 4)), size)
                for axis in (0, -1):
                    for n in (None, 1, size + 2, max(size - 1, 1)):
                        x = rand(rng, shape, kind)
                        yield Case("fft", f"{fname} norm={norm} {kind} {shape} n={n} axis={axis}",
                                   lambda L, x, f=fname, n=n, a=axis, m=norm:
                                   getattr(L.sp.fft, f)(x, n=n, axis=a, norm=m),
                                   lambda x, f=fname, n=n, a=axis, m=norm:
                                   getattr(scipy.fft, f)(x, n=n, axis=a, norm=m),
                                   (x,), grad=kind == "real", vmap=kind == "real")
        for typ in (1, 3, 4):
            x = rand(rng, (5,))
            yield Case("fft", f"{fname} type={typ}",
                       lambda L, x, f=fname, t=typ: getattr(L.sp.fft, f)(x, type=t),
                       lambda x, f=fname, t=typ: getattr(scipy.fft, f)(x, type=t), (x,),
                       kept="type 1/3/4 not in JAX either")
        x = rand(rng, (5,))
        yield Case("fft", f"{fname} norm=forward",
                   lambda L, x, f=fname: getattr(L.sp.fft, f)(x, norm="forward"),
                   lambda x, f=fname: getattr(scipy.fft, f)(x, norm="forward"), (x,),
                   kept="norm='forward' not in JAX either")
    for fname in ("dctn", "idctn"):
        for norm in (None, "ortho"):
            for kind in ("real", "complex"):
                shape = tuple(int(v) for v in rng.integers(1, 6, 3))
                for s, axes in ((None, None), (None, (0, 2)), ((3,), None), ((2, 7), (-1, 0)),
                                (None, (1,))):
                    x = rand(rng, shape, kind)
                    yield Case("fft", f"{fname} norm={norm} {kind} {shape} s={s} axes={axes}",
                               lambda L, x, f=fname, s=s, ax=axes, m=norm:
                               getattr(L.sp.fft, f)(x, s=s, axes=ax, norm=m),
                               lambda x, f=fname, s=s, ax=axes, m=norm:
                               getattr(scipy.fft, f)(x, s=s, axes=ax, norm=m),
                               (x,), grad=kind == "real")


def signal_cases(rng):
    for fname in ("convolve", "correlate"):
        for method in ("auto", "direct", "fft"):
            for mode in ("full", "same", "valid"):
                for nd in (1, 2, 3):
                    for kind in ("real", "complex", "int"):
                        a = tuple(int(v) for v in rng.integers(1, 6, nd))
                        b = tuple(int(v) for v in rng.integers(1, 6, nd))
                        if mode == "valid":  # one input at least as large everywhere
                            b = tuple(min(p, q) for p, q in zip(a, b))
                            if rng.random() < 0.3:
                                a, b = b, a
                        x, k = rand(rng, a, kind), rand(rng, b, kind)
                        yield Case("signal", f"{fname} {method} {mode} {kind} {a}*{b}",
                                   lambda L, x, k, f=fname, mo=mode, me=method:
                                   getattr(L.sp.signal, f)(x, k, mode=mo, method=me),
                                   lambda x, k, f=fname, mo=mode, me=method:
                                   getattr(scipy.signal, f)(x, k, mode=mo, method=me),
                                   (x, k), grad=kind == "real", vmap=kind == "real" and nd < 3)
    for mode in ("full", "same", "valid"):
        for kind in ("real", "complex"):
            a = tuple(int(v) for v in rng.integers(1, 7, 3))
            b = tuple(int(v) for v in rng.integers(1, 7, 3))
            for axes in (None, (0, 2), -1, (1,)):
                ax = range(3) if axes is None else np.atleast_1d(axes) % 3
                bb = tuple(q if d in ax else (1 if rng.random() < 0.5 else p)
                           for d, (p, q) in enumerate(zip(a, b)))
                if mode == "valid":
                    bb = tuple(min(p, q) if d in ax else q
                               for d, (p, q) in enumerate(zip(a, bb)))
                x, k = rand(rng, a, kind), rand(rng, bb, kind)
                yield Case("signal", f"fftconvolve {mode} {kind} {a}*{bb} axes={axes}",
                           lambda L, x, k, mo=mode, ax=axes:
                           L.sp.signal.fftconvolve(x, k, mode=mo, axes=ax),
                           lambda x, k, mo=mode, ax=axes:
                           scipy.signal.fftconvolve(x, k, mode=mo, axes=ax),
                           (x, k), grad=kind == "real")
    for fname in ("convolve2d", "correlate2d"):
        for mode in ("full", "same", "valid"):
            for kind in ("real", "complex", "int"):
                for _ in range(3):
                    a = tuple(int(v) for v in rng.integers(1, 7, 2))
                    b = tuple(int(v) for v in rng.integers(1, 7, 2))
                    if mode == "valid":
                        b = tuple(min(p, q) for p, q in zip(a, b))
                        if rng.random() < 0.4:
                            a, b = b, a
                    x, k = rand(rng, a, kind), rand(rng, b, kind)
                    yield Case("signal", f"{fname} {mode} {kind} {a}*{b}",
                               lambda L, x, k, f=fname, mo=mode:
                               getattr(L.sp.signal, f)(x, k, mode=mo),
                               lambda x, k, f=fname, mo=mode:
                               getattr(scipy.signal, f)(x, k, mode=mo),
                               (x, k), grad=kind == "real", vmap=kind == "real")
            for boundary, fill in (("wrap", 0), ("symm", 0), ("fill", 1.5)):
                x, k = rand(rng, (4, 5)), rand(rng, (2, 3))
                yield Case("signal", f"{fname} {mode} boundary={boundary} fill={fill}",
                           lambda L, x, k, f=fname, mo=mode, bo=boundary, fv=fill:
                           getattr(L.sp.signal, f)(x, k, mode=mo, boundary=bo, fillvalue=fv),
                           lambda x, k, f=fname, mo=mode, bo=boundary, fv=fill:
                           getattr(scipy.signal, f)(x, k, mode=mo, boundary=bo, fillvalue=fv),
                           (x, k), kept="only boundary='fill', fillvalue=0 in JAX")
    for fname in ("convolve", "correlate", "fftconvolve"):  # empty and 0-d inputs
        for x, k in ((np.zeros(0), np.ones(3)), (np.array(2.0), np.array(3.0)),
                     (np.ones(1), np.ones(1))):
            yield Case("signal", f"{fname} shapes {x.shape}*{k.shape}",
                       lambda L, x, k, f=fname: getattr(L.sp.signal, f)(x, k),
                       lambda x, k, f=fname: getattr(scipy.signal, f)(x, k), (x, k))


def integrate_cases(rng):
    for nd in (1, 2, 3):
        shape = tuple(int(v) for v in rng.integers(1, 6, nd))
        for axis in range(-nd, nd):
            y = rand(rng, shape)
            xs = (None, np.sort(rng.standard_normal(shape[axis])),
                  np.sort(rng.standard_normal(shape), axis=axis))
            for i, x in enumerate(xs):
                dx = float(rng.uniform(0.1, 2))
                yield Case("integrate", f"trapezoid {shape} axis={axis} x#{i}",
                           lambda L, y, x=x, dx=dx, a=axis:
                           L.sp.integrate.trapezoid(y, x=x, dx=dx, axis=a),
                           lambda y, x=x, dx=dx, a=axis:
                           scipy.integrate.trapezoid(y, x=x, dx=dx, axis=a),
                           (y,), grad=True, vmap=True)
    y = rand(rng, (5,))
    for fname in ("cumulative_trapezoid", "cumulative_simpson"):
        yield Case("integrate", f"{fname}",
                   lambda L, y, f=fname: getattr(L.sp.integrate, f)(y, initial=0),
                   lambda y, f=fname: getattr(scipy.integrate, f)(y, initial=0), (y,),
                   kept="not in jax.scipy.integrate")


def grid(rng, n, descending=False):
    g = np.cumsum(rng.uniform(0.2, 1.5, n)) - 1.0
    return g[::-1].copy() if descending else g


def interpolate_cases(rng):
    for nd in (1, 2, 3):
        for method in ("linear", "nearest"):
            for fill in (np.nan, None, 0.5):
                for trailing in ((), (2,)):
                    for descending in (False, True):
                        sizes = tuple(int(v) for v in rng.integers(2, 6, nd))
                        pts = tuple(grid(rng, s, descending and d == 0)
                                    for d, s in enumerate(sizes))
                        vals = rand(rng, sizes + trailing)
                        lo = np.array([p.min() for p in pts])
                        hi = np.array([p.max() for p in pts])
                        xi = lo + (hi - lo) * rng.uniform(-0.3, 1.3, (7, nd))
                        xi[0] = [p[0] for p in pts]   # exactly on grid points
                        xi[1] = [p[-1] for p in pts]
                        xi[2] = [(p[0] + p[1]) / 2 for p in pts]  # a nearest tie

                        def fun(L, vals, xi, pts=pts, m=method, f=fill):
                            return L.sp.interpolate.RegularGridInterpolator(
                                pts, vals, method=m, bounds_error=False, fill_value=f)(xi)

                        def ref(vals, xi, pts=pts, m=method, f=fill):
                            return scipy.interpolate.RegularGridInterpolator(
                                pts, vals, method=m, bounds_error=False, fill_value=f)(xi)

                        yield Case("interpolate",
                                   f"RGI {method} fill={fill} {sizes}+{trailing} "
                                   f"desc={descending}", fun, ref, (vals, xi), grad=True,
                                   vmap=True)
    for method in ("linear", "nearest"):  # NaN coordinates give NaN, whatever the fill
        for fill in (np.nan, None, 0.0):
            pts = (grid(rng, 4), grid(rng, 3, descending=True))
            xi = np.array([[np.nan, 0.0], [0.5, np.nan], [0.5, 0.2], [9.0, np.nan]])
            yield Case("interpolate", f"RGI {method} fill={fill} NaN points",
                       lambda L, v, pts=pts, xi=xi, m=method, f=fill:
                       L.sp.interpolate.RegularGridInterpolator(pts, v, m, False, f)(xi),
                       lambda v, pts=pts, xi=xi, m=method, f=fill:
                       scipy.interpolate.RegularGridInterpolator(pts, v, m, False, f)(xi),
                       (rand(rng, (4, 3)),))
    # gradient with respect to the points (linear only; nearest is piecewise constant)
    pts = (grid(rng, 4), grid(rng, 3))
    vals = rand(rng, (4, 3))
    xi = np.stack([rng.uniform(pts[0][0], pts[0][-1], 5),
                   rng.uniform(pts[1][0], pts[1][-1], 5)], -1)
    yield Case("interpolate", "RGI linear d/dxi",
               lambda L, xi, vals=vals: L.sp.interpolate.RegularGridInterpolator(
                   pts, vals)(xi),
               lambda xi, vals=vals: scipy.interpolate.RegularGridInterpolator(pts, vals)(xi),
               (xi,), grad=True)


def ndimage_cases(rng):
    scipy_mode = {"constant": "grid-constant", "wrap": "grid-wrap"}
    for order in (0, 1):
        for mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
            for kind in ("real", "int"):
                for nd in (1, 2, 3):
                    shape = tuple(int(v) for v in rng.integers(1, 6, nd))
                    x = rand(rng, shape, kind)
                    coords = np.stack([rng.uniform(-3, s + 2, 9) for s in shape])
                    coords[:, :3] = np.round(coords[:, :3] * 2) / 2 + 1e-3  # near halves
                    coords[:, 3] = np.round(coords[:, 3])  # exact grid points
                    cval = float(rng.uniform(-2, 2))
                    yield Case("ndimage", f"map_coordinates order={order} {mode} {kind} {shape}",
                               lambda L, x, c, o=order, m=mode, cv=cval:
                               L.sp.ndimage.map_coordinates(x, list(c), order=o, mode=m, cval=cv),
                               lambda x, c, o=order, m=mode, cv=cval:
                               scipy.ndimage.map_coordinates(x, c, order=o,
                                                             mode=scipy_mode.get(m, m), cval=cv),
                               (x, coords), grad=kind == "real" and order == 1,
                               vmap=kind == "real")


SEQS = [a + b + c for a in "xyz" for b in "xyz" for c in "xyz" if a != b and b != c]


def quats(rng, n):
    q = rng.standard_normal((n, 4))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def special_quats():
    """Quaternions at gimbal lock, identity, half turns, w = 0 and sign corner cases."""
    out = [[0, 0, 0, 1], [0, 0, 0, -1], [1, 0, 0, 0], [0, -1, 0, 0], [0, 0, -1, 0],
           [0.5, 0.5, 0.5, 0.5], [-0.5, 0.5, -0.5, 0.5], [0, 0.7071067811865476, 0,
                                                          0.7071067811865476],
           [0.7071067811865476, 0, 0, -0.7071067811865476], [1e-9, 0, 0, 1]]
    for seq in ("xyz", "ZXZ", "yxy", "XZY"):
        for mid in (0.0, np.pi / 2, np.pi, -np.pi / 2):
            out.append(sst.Rotation.from_euler(seq, [0.3, mid, -0.7]).as_quat())
    return np.array(out, dtype=float)


def spatial_cases(rng):
    R, TR = sst.Rotation, None
    allq = np.concatenate([quats(rng, 6), special_quats()])
    for seq in SEQS + [s.upper() for s in SEQS]:
        for degrees in (False, True):
            ang = rng.uniform(-np.pi, np.pi, (4, 3)) * (180 / np.pi if degrees else 1)
            yield Case("spatial", f"from_euler {seq} deg={degrees}",
                       lambda L, a, s=seq, d=degrees:
                       L.sp.spatial.transform.Rotation.from_euler(s, a, d).as_matrix(),
                       lambda a, s=seq, d=degrees: R.from_euler(s, a, d).as_matrix(),
                       (ang,), grad=True, vmap=True)
            yield Case("spatial", f"as_euler {seq} deg={degrees}",
                       lambda L, q, s=seq, d=degrees:
                       L.sp.spatial.transform.Rotation.from_quat(q).as_euler(s, d),
                       lambda q, s=seq, d=degrees: R.from_quat(q).as_euler(s, d),
                       (allq,))
    for seq in ("x", "Z", "xy", "YZ"):
        ang = rng.uniform(-3, 3, (3, len(seq)))
        yield Case("spatial", f"from_euler {seq}",
                   lambda L, a, s=seq: L.sp.spatial.transform.Rotation.from_euler(
                       s, a).as_quat(),
                   lambda a, s=seq: R.from_euler(s, a).as_quat(), (ang,))
    yield Case("spatial", "from_euler 'x' scalar",
               lambda L, a: L.sp.spatial.transform.Rotation.from_euler("x", a).as_quat(),
               lambda a: R.from_euler("x", a).as_quat(), (np.array(0.7),))
    m = R.from_quat(allq).as_matrix()
    yield Case("spatial", "from_matrix",
               lambda L, m: L.sp.spatial.transform.Rotation.from_matrix(m).as_quat(True),
               lambda m: R.from_matrix(m).as_quat(True), (m,))
    yield Case("spatial", "from_matrix one",
               lambda L, m: L.sp.spatial.transform.Rotation.from_matrix(m).as_quat(True),
               lambda m: R.from_matrix(m).as_quat(True), (m[3],))
    noisy = m + rng.standard_normal(m.shape) * 1e-3
    yield Case("spatial", "from_matrix non-orthogonal",
               lambda L, m: L.sp.spatial.transform.Rotation.from_matrix(m).as_matrix(),
               lambda m: R.from_matrix(m).as_matrix(), (noisy,),
               kept="JAX reads the quaternion off the matrix as it is (SciPy < 1.15); "
                    "SciPy 1.17 orthogonalizes first")
    for sf in (False, True):
        for canonical in (False, True):
            q = np.concatenate([allq * rng.uniform(0.5, 2, (len(allq), 1))])
            yield Case("spatial", f"from/as_quat scalar_first={sf} canonical={canonical}",
                       lambda L, q, sf=sf, c=canonical:
                       L.sp.spatial.transform.Rotation.from_quat(q, scalar_first=sf).as_quat(
                           canonical=c, scalar_first=sf),
                       lambda q, sf=sf, c=canonical:
                       R.from_quat(q, scalar_first=sf).as_quat(canonical=c, scalar_first=sf),
                       (q,), grad=not canonical, vmap=False)
    for degrees in (False, True):
        rv = np.concatenate([rng.standard_normal((5, 3)) * 2, [[0, 0, 0], [1e-5, 0, 0],
                                                               [np.pi, 0, 0]]])
        rv = rv * (180 / np.pi if degrees else 1)
        yield Case("spatial", f"from_rotvec deg={degrees}",
                   lambda L, v, d=degrees:
                   L.sp.spatial.transform.Rotation.from_rotvec(v, d).as_quat(),
                   lambda v, d=degrees: R.from_rotvec(v, d).as_quat(), (rv,), grad=True,
                   vmap=True)
        yield Case("spatial", f"as_rotvec deg={degrees}",
                   lambda L, q, d=degrees:
                   L.sp.spatial.transform.Rotation.from_quat(q).as_rotvec(d),
                   lambda q, d=degrees: R.from_quat(q).as_rotvec(d), (allq,))
    mrp = np.concatenate([rng.standard_normal((5, 3)), [[0, 0, 0], [1, 0, 0], [0, 2, 0]]])
    yield Case("spatial", "from_mrp",
               lambda L, p: L.sp.spatial.transform.Rotation.from_mrp(p).as_quat(),
               lambda p: R.from_mrp(p).as_quat(), (mrp,), grad=True)
    yield Case("spatial", "as_mrp",
               lambda L, q: L.sp.spatial.transform.Rotation.from_quat(q).as_mrp(),
               lambda q: R.from_quat(q).as_mrp(), (allq,))
    yield Case("spatial", "magnitude",
               lambda L, q: L.sp.spatial.transform.Rotation.from_quat(q).magnitude(),
               lambda q: R.from_quat(q).magnitude(), (allq,))
    yield Case("spatial", "inv",
               lambda L, q: L.sp.spatial.transform.Rotation.from_quat(q).inv().as_matrix(),
               lambda q: R.from_quat(q).inv().as_matrix(), (allq,), grad=True)
    p, q = quats(rng, 5), quats(rng, 5)
    for a, b, lab in ((p, q, "N*N"), (p[0], q, "1*N"), (p, q[0], "N*1"), (p[0], q[0], "1*1")):
        yield Case("spatial", f"compose {lab}",
                   lambda L, a, b: (L.sp.spatial.transform.Rotation.from_quat(a)
                                    * L.sp.spatial.transform.Rotation.from_quat(b)).as_matrix(),
                   lambda a, b: (R.from_quat(a) * R.from_quat(b)).as_matrix(), (a, b),
                   grad=True)
    v = rng.standard_normal((5, 3))
    for a, b, lab in ((p, v, "N,N"), (p[0], v, "1,N"), (p, v[0], "N,1"), (p[0], v[0], "1,1")):
        for inverse in (False, True):
            yield Case("spatial", f"apply {lab} inverse={inverse}",
                       lambda L, v, q=a, i=inverse:
                       L.sp.spatial.transform.Rotation.from_quat(q).apply(v, inverse=i),
                       lambda v, q=a, i=inverse: R.from_quat(q).apply(v, inverse=i), (b,),
                       grad=True)
    for weights in (None, rng.uniform(0.1, 2, 5)):
        yield Case("spatial", f"mean weights={weights is not None}",
                   lambda L, q, w=weights:
                   L.sp.spatial.transform.Rotation.from_quat(q).mean(w).as_matrix(),
                   lambda q, w=weights: R.from_quat(q).mean(w).as_matrix(),
                   (p + 0.3 * p[0],))
    times = np.sort(rng.uniform(0, 5, 4))
    key = quats(rng, 4)
    for t in (times[0], times[-1], times[1], np.concatenate([times, (times[:-1] + times[1:]) / 2])):
        yield Case("spatial", f"Slerp t={np.shape(t)}",
                   lambda L, q, t=t: L.sp.spatial.transform.Slerp.init(
                       times, L.sp.spatial.transform.Rotation.from_quat(q))(t).as_matrix(),
                   lambda q, t=t: sst.Slerp(times, R.from_quat(q))(t).as_matrix(), (key,))
    del TR


def vq_cases(rng):
    for nd in (1, 2):
        obs = rng.standard_normal((7, 3) if nd == 2 else (7,))
        book = rng.standard_normal((4, 3) if nd == 2 else (4,))
        yield Case("cluster", f"vq {nd}-D", lambda L, o, b: L.sp.cluster.vq.vq(o, b),
                   lambda o, b: scipy.cluster.vq.vq(o, b), (obs, book))
    obs = np.array([[0.0, 0.0], [1.0, 1.0], [0.5, 0.5]])
    book = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]])  # ties: the first code
    yield Case("cluster", "vq ties", lambda L, o, b: L.sp.cluster.vq.vq(o, b),
               lambda o, b: scipy.cluster.vq.vq(o, b), (obs, book))


def dtype_cases(rng):
    """float32, int and mixed inputs: values against SciPy, result dtypes against JAX."""
    x32, k32 = rng.standard_normal(7).astype(np.float32), rng.standard_normal(3).astype(
        np.float32)
    xi = rng.integers(-3, 4, 7)
    for fname in ("convolve", "correlate", "fftconvolve"):
        for a, b, lab in ((x32, k32, "f32"), (xi, k32, "int*f32"), (xi, xi[:3], "int"),
                          (x32, k32.astype(np.complex64), "f32*c64")):
            yield Case("dtypes", f"{fname} {lab}",
                       lambda L, a, b, f=fname: getattr(L.sp.signal, f)(a, b),
                       lambda a, b, f=fname: getattr(scipy.signal, f)(
                           a.astype(np.result_type(a, b, np.float64)), b), (a, b))
    for fname in ("dct", "idct", "dctn", "idctn"):
        for a in (x32, xi, x32.astype(np.complex64)):
            yield Case("dtypes", f"{fname} {a.dtype}",
                       lambda L, a, f=fname: getattr(L.sp.fft, f)(a),
                       lambda a, f=fname: getattr(scipy.fft, f)(a.astype(
                           np.result_type(a, np.float64))), (a,))
    yield Case("dtypes", "trapezoid int", lambda L, y: L.sp.integrate.trapezoid(y),
               lambda y: scipy.integrate.trapezoid(y), (xi,))
    yield Case("dtypes", "trapezoid f32 x=int", lambda L, y, x: L.sp.integrate.trapezoid(
        y, x=x), lambda y, x: scipy.integrate.trapezoid(y, x=x), (x32, np.arange(7)))
    img = rng.integers(0, 9, (4, 5)).astype(np.uint8)
    c = [np.array([0.5, 1.25, -0.5, 3.7]), np.array([1.0, 4.5, 2.0, 0.2])]
    for order in (0, 1):
        for mode in ("nearest", "reflect"):
            yield Case("dtypes", f"map_coordinates uint8 order={order} {mode}",
                       lambda L, x, o=order, m=mode: L.sp.ndimage.map_coordinates(
                           x, c, order=o, mode=m),
                       lambda x, o=order, m=mode: scipy.ndimage.map_coordinates(
                           x, c, order=o, mode=m), (img,))
    pts = (np.arange(4.0), np.arange(5.0))
    yield Case("dtypes", "RGI int values, tuple xi",
               lambda L, v: L.sp.interpolate.RegularGridInterpolator(pts, v)(
                   (np.array([0.5, 2.2]), np.array([[1.5], [3.0]]))),
               lambda v: scipy.interpolate.RegularGridInterpolator(pts, v.astype(float))(
                   (np.array([0.5, 2.2]), np.array([[1.5], [3.0]]))), (img.astype(int),))
    yield Case("dtypes", "vq int", lambda L, o, b: L.sp.cluster.vq.vq(o, b),
               lambda o, b: scipy.cluster.vq.vq(o.astype(float), b.astype(float)),
               (img.astype(int), img[:2].astype(int) + 1))
    q = quats(rng, 3).astype(np.float32)
    yield Case("dtypes", "Rotation f32 as_matrix",
               lambda L, q: L.sp.spatial.transform.Rotation.from_quat(q).as_matrix(),
               lambda q: sst.Rotation.from_quat(q.astype(float)).as_matrix(), (q,))
    yield Case("dtypes", "Rotation single as_euler/as_rotvec/magnitude",
               lambda L, q: (L.sp.spatial.transform.Rotation.from_quat(q).as_euler("zyx"),
                             L.sp.spatial.transform.Rotation.from_quat(q).as_rotvec(),
                             L.sp.spatial.transform.Rotation.from_quat(q).magnitude()),
               lambda q: (sst.Rotation.from_quat(q).as_euler("zyx"),
                          sst.Rotation.from_quat(q).as_rotvec(),
                          sst.Rotation.from_quat(q).magnitude()), (quats(rng, 1)[0],))


def error_cases(rng):
    """Inputs SciPy rejects: tjit must raise too (concrete values), never answer."""
    R = sst.Rotation
    q2 = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]])
    grids = (np.array([0.0, 2.0, 1.0]),)
    for label, fun, ref in (
            ("zero quaternion", lambda L: L.sp.spatial.transform.Rotation.from_quat(
                np.zeros(4)).as_quat(), lambda: R.from_quat(np.zeros(4)).as_quat()),
            ("singular matrix", lambda L: L.sp.spatial.transform.Rotation.from_matrix(
                np.zeros((3, 3))).as_quat(), lambda: R.from_matrix(np.zeros((3, 3))).as_quat()),
            ("Slerp unsorted times", lambda L: L.sp.spatial.transform.Slerp.init(
                np.array([1.0, 0.0]), L.sp.spatial.transform.Rotation.from_quat(q2))(0.5).quat,
             lambda: sst.Slerp(np.array([1.0, 0.0]), R.from_quat(q2))(0.5).as_quat()),
            ("Slerp time out of range", lambda L: L.sp.spatial.transform.Slerp.init(
                np.array([0.0, 1.0]), L.sp.spatial.transform.Rotation.from_quat(q2))(1.5).quat,
             lambda: sst.Slerp(np.array([0.0, 1.0]), R.from_quat(q2))(1.5).as_quat()),
            ("RGI non-monotonic grid", lambda L: L.sp.interpolate.RegularGridInterpolator(
                grids, np.ones(3))(np.array([[0.5]])),
             lambda: scipy.interpolate.RegularGridInterpolator(grids, np.ones(3))(
                 np.array([[0.5]]))),
            ("convolve empty", lambda L: L.sp.signal.convolve(np.zeros(0), np.ones(2)),
             lambda: scipy.signal.convolve(np.zeros(0), np.ones(2)))):
        yield Case("errors", label, lambda L, f=fun: f(L), ref, ())


AREAS = {"fft": fft_cases, "signal": signal_cases, "integrate": integrate_cases,
         "interpolate": interpolate_cases, "ndimage": ndimage_cases,
         "spatial": spatial_cases, "cluster": vq_cases, "dtypes": dtype_cases,
         "errors": error_cases}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--areas", default=",".join(AREAS))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    print(f"tjit vs SciPy {scipy.__version__}" + (f", JAX {jax.__version__}" if jax else
                                                   ", JAX not installed"))
    table = {}
    for area in args.areas.split(","):
        cases = bad = kept = 0
        for rep in range(args.reps):
            rng = np.random.default_rng([args.seed, rep])
            for case in AREAS[area](rng):
                cases += 1
                try:
                    problems = check_case(case, rng)
                except Exception:  # noqa: BLE001 - a crash of the harness is reported
                    problems = [("harness", traceback.format_exc(limit=2))]
                if case.kept is not None:  # a documented JAX limitation or semantics
                    kept += 1
                elif problems:
                    bad += 1
                if problems and args.verbose:
                    note = "" if case.kept is None else f" (kept: {case.kept})"
                    for kind, detail in problems:
                        print(f"  [{area}] {case.label}: {kind}: {detail}{note}")
        table[area] = (cases, bad, kept)
    print(f"{'area':<12}{'cases':>7}{'disagree':>10}{'kept':>6}")
    for area, (cases, bad, kept) in table.items():
        print(f"{area:<12}{cases:>7}{bad:>10}{kept:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
