"""Differential hunt: ``jnp.fft``, polynomials and NumPy's numerical functions.

Each case is one function ``f(m, *arrays)`` written once against a NumPy-like module ``m``,
so the same code runs on NumPy (the float64 reference), tjit and, when importable, JAX.
Checks per case: tjit eager, ``jit`` and ``jit(backend="interpreter")`` against NumPy
float64; ``vmap`` over the first argument against a Python loop of NumPy calls; gradients
(where JAX differentiates) against central finite differences of the NumPy function; and
JAX 0.10.2 as a second opinion (a tjit-vs-NumPy disagreement where JAX agrees with tjit is
listed as "jax-agrees", usually a documented JAX difference).

Run it with an interpreter that has both (``/work/jaxvenv/bin/python
benchmarks/diff_fft_poly.py [all | area,area...] [f32]``; ``f32``: x64 off and float32 operands
against NumPy float64 on the same values); without JAX only NumPy is used. Prints a
table of areas x checks (cases / disagreements) and the first failing cases of each.
"""

import collections
import sys
import traceback
import warnings

import numpy as np

import tjit
from tjit import numpy as tnp

tjit.config.update("jax_enable_x64", True)
try:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None

warnings.filterwarnings("ignore")
RESULTS = collections.Counter()  # (area, check, ok) -> count
FAILS = collections.defaultdict(list)
RNG = np.random.default_rng(0)


def record(area, check, ok, info):
    RESULTS[area, check, ok] += 1
    if (not ok or check == "raises-as-jax") and len(FAILS[area, check]) < 8:
        FAILS[area, check].append(info)


def leaves(x):
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in leaves(v)]
    return [np.asarray(x)]


def close(a, b, tol=1e-9):
    la, lb = leaves(a), leaves(b)
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if x.shape != y.shape:
            return False
        if x.dtype.kind == "b" or y.dtype.kind == "b":
            x, y = x.astype(np.int64), y.astype(np.int64)
        x, y = x.astype(np.complex128), y.astype(np.complex128)
        scale = max(1.0, float(np.nanmax(np.abs(y[np.isfinite(y)]), initial=0.0)))
        with np.errstate(invalid="ignore"):
            ok = ((np.abs(x - y) <= tol * scale) | (np.isnan(x) & np.isnan(y)) | (x == y))
        if not np.all(ok):
            return False
    return True


def short(x):
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(short(v) for v in x) + ")"
    return np.array2string(np.asarray(x), precision=5, threshold=12, max_line_width=200)


class Case:
    """``f(m, *args)``; ``grad``: argnums to differentiate; ``vmap``: batch arg 0;
    ``post``: canonicalises both outputs (e.g. sort roots) before comparing."""

    def __init__(self, area, name, f, args, grad=(), vmap=True, post=None, tol=1e-9):
        self.area, self.name, self.f, self.args = area, name, f, args
        self.grad, self.vmap, self.post, self.tol = grad, vmap, post, tol

    def run(self, m, *args):
        """The outputs (as NumPy arrays) of ``f`` on module ``m``, or of the callable ``m``."""
        out = m(*args) if callable(m) else self.f(m, *args)
        out = [np.asarray(v) for v in out] if isinstance(out, (tuple, list)) else np.asarray(out)
        return self.post(out) if self.post else out


def attempt(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001  (a raising path is a result here)
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"


F32 = False  # "f32" on the command line: x64 off, float32/complex64 operands (see main)
_NARROW = {"f": np.float32, "c": np.complex64}


def narrow(a):
    """``a`` as tjit and JAX see it: float32/complex64 in f32 mode."""
    return a.astype(_NARROW[a.dtype.kind]) if F32 and a.dtype.kind in _NARROW else a


def widen(a):
    """The NumPy reference's operand: the narrowed values in float64/complex128."""
    kind = a.dtype.kind
    return a.astype(np.float64 if kind == "f" else np.complex128) if kind in "fc" else a


def check_case(c):
    targs = [narrow(np.asarray(a)) for a in c.args]
    args = [widen(a) if F32 else a for a in targs]
    if F32:
        c.tol, c.grad = max(c.tol, 2e-4), ()
    ref, ref_err = attempt(lambda: c.run(np, *args))
    jref, jerr = (attempt(lambda: c.run(jnp, *targs)) if jax else (None, "no jax"))
    # eager
    out, err = attempt(lambda: c.run(tnp, *targs))
    if ref_err is not None:
        ok = err is not None or (jerr is None and close(out, jref, c.tol))
        record(c.area, "eager", ok, f"{c.name}: NumPy raises {ref_err}; tjit gives {short(out)}"
               if not ok else "")
        return
    if err is not None:
        ok = jerr is not None
        record(c.area, "raises-as-jax" if ok else "eager", ok,
               f"{c.name}: tjit raises {err} (JAX: {jerr or 'ok'})")
        return
    ok = close(out, ref, c.tol)
    if not ok and jax and jerr is None and close(out, jref, c.tol):
        record(c.area, "jax-agrees", False, f"{c.name}: tjit {short(out)} NumPy {short(ref)}")
    else:
        record(c.area, "eager", ok, f"{c.name}: tjit {short(out)} NumPy {short(ref)} "
               f"JAX {short(jref) if jerr is None else jerr}")
    if jax and jerr is None:
        record(c.area, "vs-jax", close(out, jref, c.tol) or close(jref, ref, c.tol),
               f"{c.name}: tjit {short(out)} JAX {short(jref)}")
        tdt = [v.dtype for v in leaves(out)]
        jdt = [v.dtype for v in leaves(jref)]
        record(c.area, "dtype-vs-jax", tdt == jdt, f"{c.name}: tjit {tdt} JAX {jdt}")
    # jit and the reference interpreter
    for check, kw in (("jit", {}), ("interpreter", {"backend": "interpreter"})):
        jitted = tjit.jit(lambda *a: c.f(tnp, *a), **kw)
        got, err = attempt(lambda jitted=jitted: c.run(jitted, *targs))
        if err is not None:
            jax_ok = jax and attempt(lambda: jax.jit(lambda *a: c.f(jnp, *a))(*targs))[1] is None
            record(c.area, check, not jax_ok, f"{c.name}: tjit {check} raises {err}")
            continue
        record(c.area, check, close(got, out, c.tol),
               f"{c.name}: {check} {short(got)} eager {short(out)}")
    if c.vmap and args and args[0].ndim >= 1:
        check_vmap(c, targs)
        check_vmap(c, targs, 0, targs[0].ndim)  # the batch dim last
        if len(targs) > 1 and targs[-1].ndim >= 1:
            check_vmap(c, targs, len(targs) - 1, 1 if targs[-1].ndim >= 1 else 0)
    for i in c.grad:
        check_grad(c, args, i)


def check_vmap(c, args, i=0, axis=0):
    """vmap over args[i] stacked along ``axis`` vs a Python loop of NumPy calls."""
    x = args[i]
    batch = [(x + 0.25 * k * (1 if x.dtype.kind in "fc" else 0)).astype(x.dtype)
             for k in range(3)]

    def with_arg(v, wide):
        a = [widen(u) if wide else u for u in args]
        a[i] = v
        return a

    refs, err = attempt(lambda: [c.run(np, *with_arg(widen(b), True)) for b in batch])
    if err is not None:
        return
    stacked = np.stack(batch, axis=axis)
    in_axes = tuple(axis if j == i else None for j in range(len(args)))
    name = "vmap" if (i, axis) == (0, 0) else "vmap-other"
    got, err = attempt(lambda: tjit.vmap(lambda *a: c.f(tnp, *a), in_axes=in_axes)(
        *with_arg(stacked, False)))
    if err is not None:
        jax_ok = jax and attempt(lambda: jax.vmap(lambda *a: c.f(jnp, *a), in_axes=in_axes)(
            *with_arg(stacked, False)))[1] is None
        record(c.area, name, not jax_ok, f"{c.name} arg{i} axis{axis}: vmap raises {err}")
        return
    gl = leaves(got)
    per = [leaves(r) for r in refs]
    if c.post:  # canonicalise each slice
        gl = leaves([c.post([np.asarray(g)[k] for g in gl] if len(gl) > 1 else np.asarray(gl[0])[k])
                     for k in range(3)])
        ok = close(gl, [y for p in per for y in p], c.tol)
    else:
        ok = len(gl) == len(per[0]) and all(
            close(np.asarray(g), np.stack([p[j] for p in per]), c.tol) for j, g in enumerate(gl))
    record(c.area, name, ok, f"{c.name} arg{i} axis{axis}: vmap {short(gl[0])} loop "
           f"{short(per[0][0])}")


def _weights(out):
    """Random weights per output; 0 where the reference is not finite (an all-NaN slice's
    NaN would make every difference quotient NaN)."""
    rng = np.random.default_rng(1)
    ws = []
    for o in out:
        fin = np.isfinite(o) if np.asarray(o).dtype.kind in "fc" else np.ones(np.shape(o), bool)
        ws.append((rng.standard_normal(np.shape(o)) * fin, rng.standard_normal(np.shape(o)) * fin))
    return ws


def check_grad(c, args, i):
    """d/d args[i] of sum(Re f * w1 + Im f * w2) vs central differences of the NumPy f."""
    ref_out = leaves(c.f(np, *args))
    w = _weights(ref_out)
    complex_in = np.iscomplexobj(args[i])

    def loss(m, *a):
        out = c.f(m, *a)
        out = out if isinstance(out, (tuple, list)) else [out]
        tot = 0.0
        for o, (w1, w2) in zip(out, w):
            if not np.issubdtype(np.asarray(o).dtype if m is np else o.dtype, np.inexact):
                continue
            o = m.where((w1 != 0) | (w2 != 0), o, 0)  # (NaN * 0 is NaN: mask instead)
            tot = tot + (m.real(o) * w1).sum() + (m.imag(o) * w2).sum()
        return tot

    x = args[i]
    fd = np.zeros(x.shape, np.complex128 if complex_in else np.float64)
    eps = 1e-6
    parts = (1, 1j) if complex_in else (1,)
    for idx in np.ndindex(x.shape):
        for p in parts:
            hi, lo = x.copy(), x.copy()
            hi[idx] += eps * p
            lo[idx] -= eps * p
            d = (loss(np, *args[:i], hi, *args[i + 1:]) - loss(np, *args[:i], lo, *args[i + 1:]))
            fd[idx] += p * d / (2 * eps) if p == 1 else 1j * d / (2 * eps)
    if complex_in:  # tjit/JAX: grad of a real loss of z is conj(dL/dRe + i dL/dIm)
        fd = np.conj(fd)

    def tloss(xi):
        a = list(args)
        a[i] = xi
        return loss(tnp, *a)

    got, err = attempt(lambda: np.asarray(tjit.grad(tloss)(x)))
    if err is not None:
        record(c.area, "grad", False, f"{c.name} d/darg{i}: grad raises {err}")
        return
    jg, err = attempt(lambda: np.asarray(tjit.jit(tjit.grad(tloss))(x)))
    record(c.area, "jit(grad)", err is None and close(jg, got, 1e-9),
           f"{c.name} d/darg{i}: jit(grad) {err or short(jg)} grad {short(got)}")
    check_jvp(c, args, i)
    ok = close(got, fd, 1e-5)
    info = f"{c.name} d/darg{i}: tjit {short(got)} FD {short(fd)}"
    if not ok and jax:
        def jloss(xi):
            a = list(args)
            a[i] = xi
            return loss(jnp, *a)
        jg, jerr = attempt(lambda: np.asarray(jax.grad(jloss)(x)))
        info += f" JAX {short(jg) if jerr is None else jerr}"
        if jerr is None and close(got, jg, 1e-6):
            record(c.area, "grad-jax-agrees", False, info)
            return
    record(c.area, "grad", ok, info)


def check_jvp(c, args, i):
    """Forward mode: the jvp along a random direction vs a central difference of NumPy's f."""
    x = args[i]
    rng = np.random.default_rng(2)
    v = rng.standard_normal(x.shape)
    if np.iscomplexobj(x):
        v = v + 1j * rng.standard_normal(x.shape)
    v = v.astype(x.dtype)
    eps = 1e-6

    def at(m, xi):
        a = list(args)
        a[i] = xi
        return c.f(m, *a)

    hi, lo = leaves(at(np, x + eps * v)), leaves(at(np, x - eps * v))
    fd = [(h.astype(np.complex128) - l_) / (2 * eps) for h, l_ in zip(hi, lo)]
    got, err = attempt(lambda: leaves(tjit.jvp(lambda xi: at(tnp, xi), (x,), (v,))[1]))
    if err is not None:
        record(c.area, "jvp", False, f"{c.name} d/darg{i}: jvp raises {err}")
        return
    inexact = [j for j, o in enumerate(leaves(at(np, x))) if o.dtype.kind in "fc"]
    ok = all(close(got[j], fd[j], 1e-5) for j in inexact)
    record(c.area, "jvp", ok, f"{c.name} d/darg{i}: jvp {short(got)} FD {short(fd)}")


# -- cases -----------------------------------------------------------------------------------------
def rnd(*shape, complex_=False):
    x = RNG.standard_normal(shape)
    if complex_:
        x = x + 1j * RNG.standard_normal(shape)
    return x


NORMS = (None, "backward", "ortho", "forward")


def fft_cases():
    cs = []
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        real_in = name in ("rfft", "ihfft")
        for shape, axis in (((5,), -1), ((8,), 0), ((3, 6), -1), ((4, 3), 0), ((2, 3, 5), 1)):
            for n in (None, 1, 3, 4, 7, 10):
                if n is None and shape[axis] == 1:
                    continue
                for norm in NORMS:
                    x = rnd(*shape, complex_=not real_in)
                    f = (lambda m, a, name=name, n=n, axis=axis, norm=norm:
                         getattr(m.fft, name)(a, n=n, axis=axis, norm=norm))
                    grad = (0,) if norm in ("ortho", "forward") or n in (None, 7) else ()
                    cs.append(Case("fft1", f"{name}{shape} n={n} ax={axis} {norm}", f, [x],
                                   grad=grad))
    for name in ("fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"):
        real_in = name.startswith("rfft")
        two = name.endswith("2")
        for s, axes in ((None, None), ((3, 8), None), ((5, 4, 7), None), (None, (0, 2)),
                        ((6, 3), (-1, 0)), (None, (2, 0)), ((2, 5), (1, -1)), (None, (-2,)),
                        ((4,), (0,)), (None, (1, 1)), ((1, 1), (0, 1))):
            if two and (axes is not None and len(axes) != 2 or s is not None and len(s) != 2):
                continue
            for norm in NORMS:
                x = rnd(4, 5, 6, complex_=not real_in)
                kw = {}
                if s is not None:
                    kw["s"] = s
                if axes is not None:
                    kw["axes"] = axes
                f = (lambda m, a, name=name, kw=kw, norm=norm:
                     getattr(m.fft, name)(a, norm=norm, **kw))
                grad = (0,) if norm in (None, "ortho") and s != (5, 4, 7) else ()
                cs.append(Case("fftn", f"{name} s={s} axes={axes} {norm}", f, [x], grad=grad))
    # chains around the transform: strided/transposed/broadcast operands and consumers
    # fused with it under jit (the compiled plan's library step and its layouts)
    chains = {
        "fft(x.T[::2])": lambda m, a: m.fft.fft(a.T[::2] * 2.0),
        "irfft(rfft(x)) * x": lambda m, a: m.fft.irfft(m.fft.rfft(a), a.shape[-1]) * a,
        "abs(rfft)**2 sum": lambda m, a: (m.abs(m.fft.rfft(a, axis=0)) ** 2).sum(0),
        "fft2 of broadcast": lambda m, a: m.fft.fft2(m.broadcast_to(a[:1], (3,) + a.shape[1:])),
        "ifft(fft(x)[..., ::-1])": lambda m, a: m.fft.ifft(m.fft.fft(a)[..., ::-1]),
        "fftshift(fftn) + 1": lambda m, a: m.fft.fftshift(m.fft.fftn(a, axes=(0, 1))) + 1.0,
        "hfft(x[1:]) conj": lambda m, a: m.fft.hfft(m.conj(a[1:].astype(complex)), 6),
        "rfft of transposed 3-D": lambda m, a: m.fft.rfftn(m.transpose(a[None] * a[:, None],
                                                                       (2, 0, 1)), axes=(0, 2)),
    }
    for name, f in chains.items():
        cs.append(Case("fftchain", name, f, [rnd(6, 5)], grad=(0,)))
    for name in ("fftfreq", "rfftfreq"):
        for n in (1, 2, 5, 8):
            for d in (1.0, 0.1, 3):
                for dt in (None, "float32", "float64"):
                    f = (lambda m, name=name, n=n, d=d, dt=dt:  # NumPy has no dtype=
                         getattr(m.fft, name)(n, d=d).astype(dt) if m is np and dt else
                         getattr(m.fft, name)(n, d=d, dtype=dt))
                    cs.append(Case("freq", f"{name}({n}, d={d}, dtype={dt})", f, [],
                                   tol=1e-6 if dt == "float32" else 1e-9))
    for name in ("fftshift", "ifftshift"):
        for axes in (None, 0, -1, (0, 2), (-1, 1), (2, 0)):
            f = (lambda m, a, name=name, axes=axes: getattr(m.fft, name)(a, axes=axes))
            cs.append(Case("freq", f"{name} axes={axes}", f, [rnd(3, 4, 5)]))
    return cs


def poly_cases():
    cs = []
    p, x = rnd(4), rnd(6)
    cs.append(Case("poly", "polyval", lambda m, p, x: m.polyval(p, x), [p, x], grad=(0, 1)))
    cs.append(Case("poly", "polyval 2-D x", lambda m, p, x: m.polyval(p, x), [p, rnd(2, 3)],
                   grad=(0, 1)))
    cs.append(Case("poly", "polyval complex", lambda m, p, x: m.polyval(p, x),
                   [rnd(3, complex_=True), rnd(4)], grad=(0, 1)))
    cs.append(Case("poly", "polyval int", lambda m, p, x: m.polyval(p, x),
                   [np.array([1, 2, 3]), np.array([2, -1, 0])], vmap=False))
    xs = np.linspace(-1, 1, 9)
    ys = rnd(9)
    Y2 = rnd(9, 2)
    w = np.abs(rnd(9)) + 0.5
    for deg in (0, 1, 3):
        cs.append(Case("polyfit", f"polyfit deg={deg}", lambda m, x, y, d=deg: m.polyfit(x, y, d),
                       [xs, ys], grad=(1,), tol=1e-7))
        cs.append(Case("polyfit", f"polyfit deg={deg} w", lambda m, x, y, w, d=deg:
                       m.polyfit(x, y, d, w=w), [xs, ys, w], grad=(1, 2), tol=1e-7))
        cs.append(Case("polyfit", f"polyfit deg={deg} 2-D y", lambda m, x, y, d=deg:
                       m.polyfit(x, y, d), [xs, Y2], tol=1e-7))
        for cov in (True, "unscaled"):
            cs.append(Case("polyfit", f"polyfit deg={deg} cov={cov}", lambda m, x, y, d=deg, cv=cov:
                           m.polyfit(x, y, d, cov=cv), [xs, ys], tol=1e-7))
            cs.append(Case("polyfit", f"polyfit deg={deg} cov={cov} w 2-D", lambda m, x, y, w,
                           d=deg, cv=cov: m.polyfit(x, y, d, w=w, cov=cv), [xs, Y2, w], tol=1e-7))
        cs.append(Case("polyfit", f"polyfit deg={deg} full", lambda m, x, y, d=deg:
                       m.polyfit(x, y, d, full=True), [xs, ys], tol=1e-7, vmap=False))
        cs.append(Case("polyfit", f"polyfit deg={deg} full 2-D", lambda m, x, y, d=deg:
                       m.polyfit(x, y, d, full=True), [xs, Y2], tol=1e-7, vmap=False))
    cs.append(Case("polyfit", "polyfit deg=8 exact", lambda m, x, y: m.polyfit(x, y, 8, full=True),
                   [xs, ys], tol=1e-6, vmap=False))

    def sort_roots(r):
        r = np.asarray(r).astype(np.complex128)
        return r[np.lexsort((np.round(r.imag, 6), np.round(r.real, 6)))]

    for coeffs in ([1., -3., 2.], [0., 0., 1., -3., 2.], [2., 0., 0.], [1., 0., 1.],
                   [0., 0., 0.], [5.], [0., 4.], [1., 2., 3., 4., 5.], [1e-3, 1., 1.]):
        cs.append(Case("roots", f"roots {coeffs}", lambda m, p: m.roots(p), [np.array(coeffs)],
                       post=sort_roots, vmap=False, tol=1e-7))
    for z in ([1., 2.], [1., -1., 3.], [], [2.]):
        cs.append(Case("poly", f"poly {z}", lambda m, z: m.poly(z), [np.array(z)],
                       vmap=False))
    cs.append(Case("poly", "poly matrix", lambda m, a: m.poly(a), [rnd(3, 3)], vmap=False,
                   post=lambda r: np.real_if_close(np.asarray(r), 1e6), tol=1e-7))
    a, b = rnd(4), rnd(2)
    for name in ("polyadd", "polysub", "polymul"):
        for u, v in ((a, b), (b, a), (a, a), (rnd(1), a)):
            cs.append(Case("poly", f"{name} {len(u)},{len(v)}",
                           lambda m, u, v, name=name: getattr(m, name)(u, v), [u, v],
                           grad=(0, 1)))
    for u, v in ((rnd(5), rnd(2)), (rnd(5), rnd(3)), (rnd(2), rnd(4)), (rnd(3), rnd(3)),
                 (rnd(4), rnd(1))):
        # (the remainder as a value at a point: JAX keeps its leading zeros, NumPy trims)
        cs.append(Case("poly", f"polydiv {len(u)},{len(v)}", lambda m, u, v:
                       (m.polydiv(u, v)[0], m.polyval(m.polydiv(u, v)[1], 0.7)),
                       [u, v], grad=(0, 1), tol=1e-8))
    for mm in (0, 1, 2, 4, 5):
        cs.append(Case("poly", f"polyder m={mm}", lambda m, p, mm=mm: m.polyder(p, mm), [rnd(4)],
                       grad=(0,)))
    for mm, k in ((1, None), (2, None), (1, 3.0), (2, [1.0, 2.0]), (0, None), (3, 0.5)):
        cs.append(Case("poly", f"polyint m={mm} k={k}",
                       lambda m, p, mm=mm, k=k: m.polyint(p, mm, k) if k is not None
                       else m.polyint(p, mm), [rnd(3)], grad=(0,)))
    cs.append(Case("poly", "polyder int", lambda m, p: m.polyder(p), [np.array([3, 2, 1])],
                   vmap=False))
    return cs


def interp_cases():
    cs = []
    xp = np.sort(RNG.uniform(0, 10, 7))
    fp = rnd(7)
    x = np.concatenate([RNG.uniform(-2, 12, 9), xp[:2], [xp[0], xp[-1]]])
    smooth = RNG.uniform(-2, 12, 9)  # (no knots: the derivative jumps there)
    for xx, tag in ((x, ""), (smooth, " d/dx")):
        cs.append(Case("interp", "interp" + tag, lambda m, x, xp, fp: m.interp(x, xp, fp),
                       [xx, xp, fp], grad=(0, 2) if tag else ()))
        cs.append(Case("interp", "interp left/right" + tag, lambda m, x, xp, fp:
                       m.interp(x, xp, fp, left=-5.0, right=7.0), [xx, xp, fp],
                       grad=(0, 2) if tag else ()))
    cs.append(Case("interp", "interp d/dxp", lambda m, x, xp, fp: m.interp(x, xp, fp),
                   [RNG.uniform(1, 9, 5), xp, fp], grad=(1,)))
    cs.append(Case("interp", "interp complex fp", lambda m, x, xp, fp: m.interp(x, xp, fp),
                   [x, xp, rnd(7, complex_=True)]))
    for period in (360.0, 4.0, -4.0):
        cs.append(Case("interp", f"interp period={period}", lambda m, x, xp, fp, p=period:
                       m.interp(x, xp, fp, period=p), [x * 40, RNG.uniform(-200, 500, 7), fp],
                       grad=(0, 2)))
    cs.append(Case("interp", "interp NaN x", lambda m, x, xp, fp: m.interp(x, xp, fp),
                   [np.array([np.nan, 1.0, np.inf, -np.inf]), xp, fp]))
    xr = np.array([0., 1., 1., 2., 3., 3., 4.])
    cs.append(Case("interp", "interp repeated xp", lambda m, x, xp, fp: m.interp(x, xp, fp),
                   [np.array([0.5, 1.0, 1.5, 3.0, 3.5, 4.0]), xr, rnd(7)]))
    cs.append(Case("interp", "interp one point", lambda m, x, xp, fp: m.interp(x, xp, fp),
                   [np.array([-1., 2., 5.]), np.array([2.0]), np.array([3.0])]))
    cs.append(Case("interp", "interp int", lambda m, x, xp, fp: m.interp(x, xp, fp),
                   [np.array([0, 1, 3]), np.array([0, 2, 4]), np.array([1, 5, 9])], vmap=False))
    return cs


def calc_cases():
    cs = []
    y = rnd(4, 5)
    xs = np.sort(rnd(5))
    cs.append(Case("trapz", "trapezoid", lambda m, y: m.trapezoid(y), [y], grad=(0,)))
    cs.append(Case("trapz", "trapezoid dx axis0", lambda m, y: m.trapezoid(y, dx=0.3, axis=0),
                   [y], grad=(0,)))
    cs.append(Case("trapz", "trapezoid x", lambda m, y, x: m.trapezoid(y, x), [y, xs],
                   grad=(0, 1)))
    cs.append(Case("trapz", "trapezoid x 2-D", lambda m, y, x: m.trapezoid(y, x, axis=0),
                   [y, rnd(4, 5)], grad=(0, 1)))
    cs.append(Case("trapz", "trapezoid x bcast", lambda m, y, x: m.trapezoid(y, x, axis=0),
                   [y, rnd(4, 1)], grad=(0, 1)))
    cs.append(Case("trapz", "trapezoid len1", lambda m, y: m.trapezoid(y), [rnd(3, 1)]))
    cs.append(Case("trapz", "trapezoid int", lambda m, y: m.trapezoid(y),
                   [np.array([1, 2, 4])], vmap=False))
    f = rnd(5, 6)
    for eo in (1, 2):
        cs.append(Case("gradient", f"gradient eo={eo}", lambda m, f, e=eo: m.gradient(f, edge_order=e),
                       [f], grad=(0,)))
        cs.append(Case("gradient", f"gradient spacing scalars eo={eo}", lambda m, f, e=eo:
                       m.gradient(f, 0.5, 2.0, edge_order=e), [f], grad=(0,)))
        cs.append(Case("gradient", f"gradient coords eo={eo}", lambda m, f, c, e=eo:
                       m.gradient(f, c, axis=1, edge_order=e), [f, np.cumsum(np.abs(rnd(6)) + .1)],
                       grad=(0, 1)))
        cs.append(Case("gradient", f"gradient mixed eo={eo}", lambda m, f, c, e=eo:
                       m.gradient(f, 0.7, c, edge_order=e), [f, np.cumsum(np.abs(rnd(6)) + .1)],
                       grad=(0,)))
        cs.append(Case("gradient", f"gradient axis=-1 eo={eo}", lambda m, f, e=eo:
                       m.gradient(f, axis=-1, edge_order=e), [f], grad=(0,)))
        cs.append(Case("gradient", f"gradient axis=(1,0) eo={eo}", lambda m, f, e=eo:
                       m.gradient(f, 2.0, 3.0, axis=(1, 0), edge_order=e), [f], grad=(0,)))
        cs.append(Case("gradient", f"gradient 1-D eo={eo}", lambda m, f, e=eo:
                       m.gradient(f, edge_order=e), [rnd(3)], grad=(0,)))
        cs.append(Case("gradient", f"gradient 1-D coords eo={eo}", lambda m, f, c, e=eo:
                       m.gradient(f, c, edge_order=e), [rnd(4), np.array([0., .5, 2., 2.2])],
                       grad=(0, 1)))
    cs.append(Case("gradient", "gradient int", lambda m, f: m.gradient(f),
                   [np.array([1, 4, 9, 16])], vmap=False))
    cs.append(Case("gradient", "gradient array spacing 0-d", lambda m, f, h: m.gradient(f, h),
                   [rnd(5), np.array(0.25)]))
    for n in (0, 1, 2, 3, 6):
        cs.append(Case("diff", f"diff n={n}", lambda m, a, n=n: m.diff(a, n), [rnd(3, 5)],
                       grad=(0,)))
    cs.append(Case("diff", "diff axis=0", lambda m, a: m.diff(a, 2, axis=0), [rnd(4, 3)]))
    cs.append(Case("diff", "diff prepend scalar", lambda m, a: m.diff(a, prepend=1.5),
                   [rnd(3, 4)], grad=(0,)))
    cs.append(Case("diff", "diff prepend/append arrays", lambda m, a, p, q:
                   m.diff(a, 2, axis=0, prepend=p, append=q), [rnd(3, 4), rnd(1, 4), rnd(2, 4)],
                   grad=(0, 1, 2)))
    cs.append(Case("diff", "diff append 1-D bcast", lambda m, a: m.diff(a, append=np.arange(2.0)),
                   [rnd(2)]))
    cs.append(Case("diff", "diff bool", lambda m, a: m.diff(a),
                   [np.array([True, False, False, True])], vmap=False))
    cs.append(Case("diff", "diff uint8", lambda m, a: m.diff(a),
                   [np.array([1, 5, 2], np.uint8)], vmap=False))
    for tb, te in ((None, None), (1.0, None), (None, [2.0, 3.0]), ([9.0], [7.0, 8.0])):
        cs.append(Case("diff", f"ediff1d {tb} {te}", lambda m, a, tb=tb, te=te:
                       m.ediff1d(a, to_end=te, to_begin=tb), [rnd(2, 3)], grad=(0,)))
    ph = np.cumsum(RNG.uniform(-4, 4, (3, 8)), axis=1)
    for kw in ({}, {"discont": 4.0}, {"discont": 1.0}, {"period": 5.0}, {"axis": 0},
               {"period": 3.0, "discont": 2.0}, {"period": 360.0}):
        arr = ph * (60 if kw.get("period") == 360.0 else 1)
        cs.append(Case("unwrap", f"unwrap {kw}", lambda m, p, kw=kw: m.unwrap(p, **kw), [arr],
                       grad=(0,)))
    cs.append(Case("unwrap", "unwrap int period", lambda m, p: m.unwrap(p, period=6),
                   [np.array([0, 5, 11, 2, 9, 1])], vmap=False))
    return cs


def conv_cases():
    cs = []
    for name in ("convolve", "correlate"):
        for la, lv in ((5, 3), (3, 5), (4, 4), (6, 1), (1, 1), (2, 5)):
            for mode in ("full", "same", "valid"):
                for cplx in (False, True):
                    a, v = rnd(la, complex_=cplx), rnd(lv, complex_=cplx)
                    cs.append(Case("conv", f"{name} {la},{lv} {mode} c={cplx}",
                                   lambda m, a, v, n=name, mo=mode: getattr(m, n)(a, v, mode=mo),
                                   [a, v], grad=(0, 1) if la == 5 or cplx else ()))
        cs.append(Case("conv", f"{name} mixed real/complex", lambda m, a, v, n=name:
                       getattr(m, n)(a, v, mode="full"), [rnd(4), rnd(3, complex_=True)],
                       grad=(0, 1)))
        cs.append(Case("conv", f"{name} precision", lambda m, a, v, n=name:
                       getattr(m, n)(a, v, precision="highest") if m is not np else
                       getattr(m, n)(a, v), [rnd(4), rnd(3)]))
        cs.append(Case("conv", f"{name} int", lambda m, a, v, n=name: getattr(m, n)(a, v, "full"),
                       [np.array([1, 2, 3]), np.array([4, -1])], vmap=False))
    for N, inc in ((None, False), (3, False), (5, True), (0, False), (1, True)):
        cs.append(Case("conv", f"vander N={N} inc={inc}", lambda m, x, N=N, inc=inc:
                       m.vander(x, N, increasing=inc), [rnd(4)], grad=(0,)))
    return cs


def stats_cases():
    cs = []
    X = rnd(3, 6)
    fw = np.array([1, 2, 1, 3, 1, 2])
    aw = np.abs(rnd(6)) + 0.2
    for kw in ({}, {"rowvar": False}, {"bias": True}, {"ddof": 0}, {"ddof": 2},
               {"fweights": fw}, {"aweights": aw}, {"fweights": fw, "aweights": aw, "ddof": 1},
               {"fweights": fw, "aweights": aw, "bias": True}):
        data = X.T if kw.get("rowvar") is False else X
        if kw.get("rowvar") is False and ("fweights" in kw):
            continue
        name = "cov " + ",".join(k if k not in ("fweights", "aweights") else k[:2] for k in kw)
        cs.append(Case("cov", name + str({k: v for k, v in kw.items() if np.ndim(v) == 0}),
                       lambda m, x, kw=kw: m.cov(x, **kw), [data], grad=(0,)))
    cs.append(Case("cov", "cov y", lambda m, x, y: m.cov(x, y), [rnd(2, 5), rnd(5)], grad=(0, 1)))
    cs.append(Case("cov", "cov 1-D", lambda m, x: m.cov(x), [rnd(5)], grad=(0,)))
    cs.append(Case("cov", "cov complex", lambda m, x: m.cov(x), [rnd(2, 4, complex_=True)]))
    cs.append(Case("cov", "cov one obs", lambda m, x: m.cov(x), [rnd(2, 1)]))
    cs.append(Case("cov", "corrcoef", lambda m, x: m.corrcoef(x), [X], grad=(0,)))
    cs.append(Case("cov", "corrcoef rowvar=False y", lambda m, x, y: m.corrcoef(x, y, rowvar=False),
                   [rnd(5, 2), rnd(5, 1)], grad=(0,)))
    cs.append(Case("cov", "corrcoef complex", lambda m, x: m.corrcoef(x), [rnd(2, 4, complex_=True)]))
    cs.append(Case("cov", "corrcoef 1-D", lambda m, x: m.corrcoef(x), [rnd(5)]))
    # histograms
    a = RNG.standard_normal(40)
    wts = np.abs(rnd(40))
    for bins in (1, 5, np.array([-2., -0.5, 0., 0.1, 3.]), "auto", "fd", "sturges", "doane",
                 "scott", "rice", "sqrt", "stone"):
        for kw in ({}, {"range": (-1.0, 1.5)}, {"weights": True}, {"density": True},
                   {"weights": True, "density": True}):
            if isinstance(bins, str) and "weights" in kw:
                continue
            args = [a, wts] if "weights" in kw else [a]
            kk = {k: v for k, v in kw.items() if k != "weights"}
            f = (lambda m, a, *w, b=bins, kk=kk: m.histogram(a, bins=b, weights=w[0] if w else None,
                                                            **kk))
            cs.append(Case("hist", f"histogram bins={short(bins)} {list(kw)}", f, args,
                           vmap=False, tol=1e-7))
        if not isinstance(bins, np.ndarray):
            cs.append(Case("hist", f"histogram_bin_edges {bins}", lambda m, a, b=bins:
                           m.histogram_bin_edges(a, b), [a], vmap=False))
    cs.append(Case("hist", "histogram all equal", lambda m, a: m.histogram(a, 4),
                   [np.full(5, 2.0)], vmap=False))
    cs.append(Case("hist", "histogram int", lambda m, a: m.histogram(a, 4),
                   [np.array([1, 2, 2, 3, 7, 9])], vmap=False))
    cs.append(Case("hist", "histogram right edge", lambda m, a: m.histogram(a, 3, range=(0, 3)),
                   [np.array([0., 1., 2., 3., 3., 3.5, -0.1])], vmap=False))
    x2, y2 = rnd(30), rnd(30)
    for kw in ({"bins": 4}, {"bins": (3, 5)}, {"bins": 3, "density": True},
               {"bins": [np.array([-2., 0., 2.]), 4]}, {"bins": 3, "range": [(-1, 1), (0, 2)]}):
        cs.append(Case("hist", f"histogram2d {kw}", lambda m, x, y, kw=kw: m.histogram2d(x, y, **kw),
                       [x2, y2], vmap=False))
        cs.append(Case("hist", f"histogram2d w {kw}", lambda m, x, y, w, kw=kw:
                       m.histogram2d(x, y, weights=w, **kw), [x2, y2, np.abs(rnd(30))],
                       vmap=False))
    S = rnd(25, 3)
    for kw in ({"bins": 3}, {"bins": (2, 3, 4)}, {"bins": 2, "density": True},
               {"bins": 3, "range": [(-1, 1), (-2, 2), (0, 1)]}):
        cs.append(Case("hist", f"histogramdd {kw}", lambda m, s, kw=kw: m.histogramdd(s, **kw),
                       [S], vmap=False))
    bins_inc = np.array([-1., 0., 0., 0.5, 2.])
    xd = np.array([-3., -1., -0.5, 0., 0.25, 0.5, 1., 2., 5., np.nan])
    for right in (False, True):
        cs.append(Case("digitize", f"digitize inc right={right}", lambda m, x, b, r=right:
                       m.digitize(x, b, right=r), [xd, bins_inc]))
        cs.append(Case("digitize", f"digitize dec right={right}", lambda m, x, b, r=right:
                       m.digitize(x, b, right=r), [xd, bins_inc[::-1].copy()]))
        cs.append(Case("digitize", f"digitize 2-D right={right}", lambda m, x, b, r=right:
                       m.digitize(x, b, right=r), [rnd(2, 3), bins_inc]))
    xi = np.array([0, 1, 1, 3, 2, 1, 7])
    for kw in ({}, {"minlength": 3}, {"minlength": 10}, {"weights": True}, {"length": 9}):
        args = [xi, rnd(7)] if "weights" in kw else [xi]
        kk = {k: v for k, v in kw.items() if k != "weights"}

        def f(m, x, *w, kk=kk):
            if m is np and "length" in kk:
                return np.bincount(x, *w, minlength=kk["length"])
            return m.bincount(x, *w, **kk)
        cs.append(Case("bincount", f"bincount {kw}", f, args, vmap=False,
                       grad=(1,) if "weights" in kw else ()))
    return cs


METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest")


def quantile_cases():
    cs = []
    A = rnd(4, 7)
    An = A.copy()
    An[0, 2] = An[2, :] = np.nan
    for meth in METHODS:
        for q in (0.5, np.array([0.0, 0.1, 0.33, 0.5, 0.9, 1.0])):
            for axis, kd in ((None, False), (1, False), (0, True), ((0, 1), False)):
                cs.append(Case("quantile", f"quantile {meth} q={np.ndim(q)}d ax={axis} kd={kd}",
                               lambda m, a, me=meth, q=q, ax=axis, kd=kd:
                               m.quantile(a, q, axis=ax, method=me, keepdims=kd), [A],
                               grad=(0,) if axis == 1 and np.ndim(q) else ()))
            cs.append(Case("quantile", f"nanquantile {meth} q={np.ndim(q)}d",
                           lambda m, a, me=meth, q=q: m.nanquantile(a, q, axis=1, method=me),
                           [An]))
        cs.append(Case("quantile", f"percentile {meth}", lambda m, a, me=meth:
                       m.percentile(a, np.array([5.0, 50.0, 95.0]), axis=0, method=me), [A]))
        cs.append(Case("quantile", f"nanpercentile {meth}", lambda m, a, me=meth:
                       m.nanpercentile(a, 30.0, axis=0, method=me), [An]))
        cs.append(Case("quantile", f"quantile {meth} small n", lambda m, a, me=meth:
                       m.quantile(a, np.array([0.0, 0.2, 0.5, 0.8, 1.0]), method=me), [rnd(2)]))
    cs.append(Case("quantile", "quantile int", lambda m, a: m.quantile(a, 0.3),
                   [np.array([1, 5, 2, 8])], vmap=False))
    for axis in (None, 0, (0, 2), (-1, 1), ()):
        if axis == ():
            continue
        cs.append(Case("reduce", f"median axis={axis}", lambda m, a, ax=axis: m.median(a, axis=ax),
                       [rnd(3, 4, 5)], grad=(0,)))
        cs.append(Case("reduce", f"median kd axis={axis}", lambda m, a, ax=axis:
                       m.median(a, axis=ax, keepdims=True), [rnd(3, 4, 2)]))
        cs.append(Case("reduce", f"nanmedian axis={axis}", lambda m, a, ax=axis:
                       m.nanmedian(a, axis=ax), [_with_nans(rnd(3, 4, 5))]))
    cs.append(Case("quantile", "quantile axis tuple", lambda m, a: m.quantile(a, np.array([.2, .7]), axis=(0, 2)),
                   [rnd(3, 4, 5)]))
    return cs


def _with_nans(a):
    a = a.copy()
    a[0] = np.nan
    a[1, 1, 1] = np.nan
    return a


def reduce_cases():
    cs = []
    A = rnd(3, 5)
    w = np.abs(rnd(3, 5)) + 0.1
    for axis in (None, 0, 1, -1):
        cs.append(Case("reduce", f"average ax={axis}", lambda m, a, ax=axis: m.average(a, axis=ax),
                       [A], grad=(0,)))
        wt = w if axis is None else (w[:, 0] if axis == 0 else w[0])
        cs.append(Case("reduce", f"average w ax={axis}", lambda m, a, w, ax=axis:
                       m.average(a, axis=ax, weights=w), [A, wt], grad=(0, 1)))
        cs.append(Case("reduce", f"average w returned ax={axis}", lambda m, a, w, ax=axis:
                       m.average(a, axis=ax, weights=w, returned=True), [A, wt]))
        cs.append(Case("reduce", f"ptp ax={axis}", lambda m, a, ax=axis: m.ptp(a, axis=ax), [A],
                       grad=(0,)))
    cs.append(Case("reduce", "average full w returned kd", lambda m, a, w:
                   m.average(a, axis=1, weights=w, returned=True, keepdims=True), [A, w]))
    cs.append(Case("reduce", "average int", lambda m, a: m.average(a, returned=True),
                   [np.array([1, 2, 4])], vmap=False))
    cs.append(Case("reduce", "average complex w", lambda m, a, w: m.average(a, weights=w),
                   [rnd(4, complex_=True), np.abs(rnd(4))]))
    cs.append(Case("reduce", "ptp kd int", lambda m, a: m.ptp(a, axis=0, keepdims=True),
                   [np.array([[1, 9], [4, 2]], np.int32)], vmap=False))
    N = rnd(3, 4)
    N[1, :] = np.nan
    N[0, 2] = np.nan
    for name in ("nansum", "nanprod", "nanmean", "nanmax", "nanmin", "nanstd", "nanvar",
                 "nancumsum", "nancumprod", "nanmedian", "nanargmax", "nanargmin"):
        for axis in (None, 0, 1):
            cs.append(Case("nan", f"{name} ax={axis}", lambda m, a, n=name, ax=axis:
                           getattr(m, n)(a, axis=ax), [N],
                           grad=(0,) if name in ("nansum", "nanmean", "nanprod") and axis is not None
                           else ()))
        cs.append(Case("nan", f"{name} all-NaN", lambda m, a, n=name: getattr(m, n)(a),
                       [np.full((2, 2), np.nan)]))
    for kw in ({"ddof": 1}, {"ddof": 4}, {"keepdims": True}):
        cs.append(Case("nan", f"nanvar {kw}", lambda m, a, kw=kw: m.nanvar(a, axis=1, **kw), [N]))
        cs.append(Case("nan", f"nanstd {kw}", lambda m, a, kw=kw: m.nanstd(a, axis=1, **kw), [N]))
    cs.append(Case("nan", "nanmean complex", lambda m, a: m.nanmean(a, axis=1),
                   [np.array([[1 + 1j, np.nan, 2 - 1j], [np.nan, np.nan, 1j]])]))
    cs.append(Case("nan", "nanvar complex", lambda m, a: m.nanvar(a, axis=1),
                   [np.array([[1 + 1j, np.nan, 2 - 1j], [np.nan, 3, 1j]])]))
    return cs


def edge_cases():
    """Odd inputs: integer/bool/complex64 operands, empty and degenerate sizes, NaN/inf,
    zero weights, too few points, out-of-range degrees of freedom."""
    cs = []
    E = "edge"

    def add(name, f, args, **kw):
        cs.append(Case(E, name, f, [np.asarray(a) for a in args], vmap=kw.pop("vmap", False),
                       **kw))

    ints = np.array([3, -1, 4, 1, 5])
    add("fft int", lambda m, a: m.fft.fft(a), [ints])
    add("rfft int32", lambda m, a: m.fft.rfft(a), [ints.astype(np.int32)], tol=1e-6)
    add("fft bool", lambda m, a: m.fft.fft(a), [ints > 1], tol=1e-6)
    add("fft complex64", lambda m, a: m.fft.fft(a), [rnd(6, complex_=True).astype(np.complex64)],
        tol=1e-5)
    add("rfft float32", lambda m, a: m.fft.rfft(a), [rnd(6).astype(np.float32)], tol=1e-5)
    add("irfft complex64 n=5", lambda m, a: m.fft.irfft(a, 5),
        [rnd(3, complex_=True).astype(np.complex64)], tol=1e-5)
    add("hfft n odd", lambda m, a: m.fft.hfft(a, 7), [rnd(4, complex_=True)])
    add("ihfft float32", lambda m, a: m.fft.ihfft(a), [rnd(5).astype(np.float32)], tol=1e-5)
    add("fft 0-d", lambda m, a: m.fft.fft(a), [np.array(1.0)])
    add("fft n=0", lambda m, a: m.fft.fft(a, 0), [rnd(3)])
    add("fft empty axis", lambda m, a: m.fft.fft(a, axis=0), [np.zeros((0, 3))])
    add("fftn axes=()", lambda m, a: m.fft.fftn(a, axes=()), [rnd(2, 3)])
    add("fftn s longer than ndim", lambda m, a: m.fft.fftn(a, s=(2, 2, 2)), [rnd(2, 3)])
    add("fft axis out of range", lambda m, a: m.fft.fft(a, axis=2), [rnd(2, 3)])
    add("irfft len-1 no n", lambda m, a: m.fft.irfft(a), [rnd(1, complex_=True)])
    add("fft norm bad", lambda m, a: m.fft.fft(a, norm="unitary"), [rnd(3)])
    add("fftshift 0-d", lambda m, a: m.fft.fftshift(a), [np.array(2.0)])
    add("fftshift int", lambda m, a: m.fft.ifftshift(a, axes=-1), [np.arange(7)])
    add("fftfreq d array", lambda m, d: m.fft.fftfreq(5, d), [np.array(0.5)])
    add("fftfreq np int n", lambda m: m.fft.fftfreq(np.int64(6), 2.0), [])
    add("rfftfreq float32 d", lambda m: m.fft.rfftfreq(7, np.float32(0.1)), [], tol=1e-6)
    # polynomials
    add("polyval int p float x", lambda m, p, x: m.polyval(p, x), [[1, 2, 3], rnd(3)])
    add("polyval 0-d p", lambda m, p, x: m.polyval(p, x), [np.array(2.5), rnd(3)])
    add("polyval empty p", lambda m, p, x: m.polyval(p, x), [np.zeros(0), rnd(3)])
    add("polyder int m=0", lambda m, p: m.polyder(p, 0), [[3, 2, 1]])
    add("polyint int", lambda m, p: m.polyint(p), [[3, 2, 1]])
    add("polyint 0-d", lambda m, p: m.polyint(p, 2), [np.array(3.0)])
    add("polyadd int float", lambda m, a, b: m.polyadd(a, b), [[1, 2], [0.5, 1.5, 2.5]])
    add("polysub complex", lambda m, a, b: m.polysub(a, b), [rnd(2, complex_=True), rnd(3)])
    add("polymul complex real", lambda m, a, b: m.polymul(a, b), [rnd(2, complex_=True), rnd(3)])
    add("polymul empty", lambda m, a, b: m.polymul(a, b), [np.zeros(0), rnd(3)])
    add("polydiv by scalar", lambda m, a, b: m.polydiv(a, b)[0], [rnd(3), np.array([2.0])])
    add("polydiv complex", lambda m, a, b: m.polydiv(a, b)[0],
        [rnd(4, complex_=True), rnd(2, complex_=True)])
    add("polyfit underdetermined", lambda m, x, y: m.polyfit(x, y, 4), [rnd(3), rnd(3)],
        tol=1e-6)
    add("polyfit int data", lambda m, x, y: m.polyfit(x, y, 1), [[0, 1, 2, 3], [1, 3, 5, 8]])
    add("polyfit deg<0", lambda m, x, y: m.polyfit(x, y, -1), [rnd(3), rnd(3)])
    add("polyfit cov few points", lambda m, x, y: m.polyfit(x, y, 2, cov=True), [rnd(3), rnd(3)])
    add("polyfit x 2-D", lambda m, x, y: m.polyfit(x, y, 1), [rnd(2, 2), rnd(2, 2)])
    add("polyfit complex y", lambda m, x, y: m.polyfit(x, y, 1), [rnd(4), rnd(4, complex_=True)],
        tol=1e-7)
    add("roots complex", lambda m, p: np.sort_complex(np.asarray(m.roots(p))),
        [rnd(4, complex_=True)], tol=1e-7)
    add("roots int", lambda m, p: np.sort_complex(np.asarray(m.roots(p))), [[1, -3, 2]])
    add("roots 2-D", lambda m, p: m.roots(p), [rnd(2, 2)])
    add("poly int roots", lambda m, z: m.poly(z), [[1, 2]])
    add("poly complex conj roots", lambda m, z: m.poly(z), [[1 + 1j, 1 - 1j]])
    add("vander int", lambda m, x: m.vander(x, 3), [[1, 2, 3]])
    add("vander N<0", lambda m, x: m.vander(x, -1), [[1., 2.]])
    add("vander 2-D", lambda m, x: m.vander(x), [rnd(2, 2)])
    # interp
    xp = np.array([0., 1., 2., 3.])
    add("interp 0-d x", lambda m, x, xp, fp: m.interp(x, xp, fp), [np.array(1.5), xp, rnd(4)])
    add("interp NaN in fp", lambda m, x, xp, fp: m.interp(x, xp, fp),
        [np.array([0.5, 1.5, 2.5]), xp, np.array([0., np.nan, 2., 3.])])
    add("interp inf x period", lambda m, x, xp, fp: m.interp(x, xp, fp, period=4.0),
        [np.array([np.inf, np.nan, 1.0]), xp, rnd(4)])
    add("interp period 0", lambda m, x, xp, fp: m.interp(x, xp, fp, period=0),
        [np.array([1.0]), xp, rnd(4)])
    add("interp len mismatch", lambda m, x, xp, fp: m.interp(x, xp, fp),
        [np.array([1.0]), xp, rnd(3)])
    add("interp empty xp", lambda m, x, xp, fp: m.interp(x, xp, fp),
        [np.array([1.0]), np.zeros(0), np.zeros(0)])
    add("interp 2-D xp", lambda m, x, xp, fp: m.interp(x, xp, fp),
        [np.array([1.0]), np.zeros((2, 2)), np.zeros((2, 2))])
    add("interp complex fp period", lambda m, x, xp, fp: m.interp(x, xp, fp, period=3.0),
        [rnd(5) * 4, xp, rnd(4, complex_=True)])
    add("interp left/right NaN", lambda m, x, xp, fp: m.interp(x, xp, fp, left=np.nan,
                                                               right=-np.inf),
        [np.array([-1., 5.]), xp, rnd(4)])
    add("interp int fp", lambda m, x, xp, fp: m.interp(x, xp, fp),
        [np.array([0.5, 2.25]), xp, np.array([1, 3, 7, 8])])
    # calculus
    add("gradient size 2 eo=2", lambda m, f: m.gradient(f, edge_order=2), [rnd(2)])
    add("gradient size 1", lambda m, f: m.gradient(f), [rnd(1)])
    add("gradient eo=3", lambda m, f: m.gradient(f, edge_order=3), [rnd(4)])
    add("gradient spacing count", lambda m, f: m.gradient(f, 1.0, 2.0), [rnd(4)])
    add("gradient coord len bad", lambda m, f, c: m.gradient(f, c), [rnd(4), rnd(3)])
    add("gradient 0-d", lambda m, f: m.gradient(f), [np.array(1.0)])
    add("gradient int64 coords", lambda m, f, c: m.gradient(f, c), [rnd(4), [0, 1, 3, 6]])
    add("gradient complex", lambda m, f: m.gradient(f), [rnd(4, complex_=True)])
    add("gradient uint8", lambda m, f: m.gradient(f), [np.array([5, 3, 1, 9], np.uint8)])
    add("diff n>size", lambda m, a: m.diff(a, 5), [rnd(3)])
    add("diff n<0", lambda m, a: m.diff(a, -1), [rnd(3)])
    add("diff 0-d", lambda m, a: m.diff(a), [np.array(1.0)])
    add("diff prepend 2-D scalar axis0", lambda m, a: m.diff(a, axis=0, prepend=0.0),
        [rnd(2, 3)])
    add("diff int8 overflow", lambda m, a: m.diff(a), [np.array([-128, 127], np.int8)])
    add("ediff1d int to_end float", lambda m, a: m.ediff1d(a, to_end=0.5), [[1, 4, 9]])
    add("ediff1d empty", lambda m, a: m.ediff1d(a), [np.zeros(0)])
    add("unwrap discont small", lambda m, p: m.unwrap(p, discont=0.1), [[0., 3., 6.5, 0.2]])
    add("unwrap int", lambda m, p: m.unwrap(p), [[0, 4, 9, 1]])
    add("unwrap int period odd", lambda m, p: m.unwrap(p, period=5), [[0, 3, 6, 1, 8, 4]])
    add("unwrap len1", lambda m, p: m.unwrap(p), [[2.0]])
    add("unwrap empty", lambda m, p: m.unwrap(p), [np.zeros(0)])
    add("unwrap NaN", lambda m, p: m.unwrap(p), [[0., 4., np.nan, 1., 7.]])
    add("trapezoid dx array", lambda m, y, dx: m.trapezoid(y, dx=dx), [rnd(2, 4), np.array(0.5)])
    add("trapezoid complex", lambda m, y: m.trapezoid(y), [rnd(4, complex_=True)])
    add("trapezoid x len bad", lambda m, y, x: m.trapezoid(y, x), [rnd(4), rnd(3)])
    add("trapezoid empty", lambda m, y: m.trapezoid(y), [np.zeros(0)])
    # convolve
    add("convolve empty", lambda m, a, v: m.convolve(a, v), [np.zeros(0), rnd(3)])
    add("convolve 0-d", lambda m, a, v: m.convolve(a, v), [np.array(2.0), rnd(3)])
    add("convolve bad mode", lambda m, a, v: m.convolve(a, v, mode="circular"), [rnd(3), rnd(2)])
    add("correlate bool", lambda m, a, v: m.correlate(a, v, "full"),
        [np.array([True, False, True]), np.array([True, True])])
    add("convolve int float", lambda m, a, v: m.convolve(a, v, "same"), [[1, 2, 3, 4], rnd(3)])
    add("correlate complex same even", lambda m, a, v: m.correlate(a, v, "same"),
        [rnd(6, complex_=True), rnd(4, complex_=True)])
    # statistics
    X = rnd(2, 6)
    add("cov ddof=N", lambda m, x: m.cov(x, ddof=6), [X])
    add("cov ddof>N", lambda m, x: m.cov(x, ddof=8), [X])
    add("cov int", lambda m, x: m.cov(x), [[[1, 2, 4], [3, 1, 0]]])
    add("cov fweights float", lambda m, x: m.cov(x, fweights=np.array([1., 2, 1, 1, 1, 1])), [X])
    add("cov fweights negative", lambda m, x: m.cov(x, fweights=np.array([1, -2, 1, 1, 1, 1])),
        [X])
    add("cov aweights negative", lambda m, x: m.cov(x, aweights=np.array([1., -2, 1, 1, 1, 1])),
        [X])
    add("cov aweights zero-sum", lambda m, x: m.cov(x, aweights=np.zeros(6)), [X])
    add("cov 3-D", lambda m, x: m.cov(x), [rnd(2, 2, 2)])
    add("cov y rowvar False", lambda m, x, y: m.cov(x, y, rowvar=False), [rnd(5, 2), rnd(5, 1)])
    add("cov y 2-D complex", lambda m, x, y: m.cov(x, y), [rnd(2, 4, complex_=True), rnd(1, 4)])
    add("cov empty", lambda m, x: m.cov(x), [np.zeros((2, 0))])
    add("corrcoef constant row", lambda m, x: m.corrcoef(x), [[[1., 1., 1.], [1., 2., 4.]]])
    add("corrcoef complex clip", lambda m, x: m.corrcoef(x), [rnd(3, 5, complex_=True)])
    add("corrcoef scalar", lambda m, x: m.corrcoef(x), [[1., 2., 3.]])
    a = rnd(20)
    add("histogram NaN data", lambda m, a: m.histogram(a, 3), [[1., np.nan, 2.]])
    add("histogram inf data range", lambda m, a: m.histogram(a, 3, range=(0, 2)),
        [[1., np.inf, 2., -np.inf, 0.5]])
    add("histogram range lo>hi", lambda m, a: m.histogram(a, 3, range=(2, 0)), [a])
    add("histogram range lo==hi", lambda m, a: m.histogram(a, 3, range=(1, 1)), [a])
    add("histogram bins=0", lambda m, a: m.histogram(a, 0), [a])
    add("histogram int weights", lambda m, a, w: m.histogram(a, 4, weights=w),
        [a, np.arange(20)])
    add("histogram density empty bins", lambda m, a: m.histogram(a, [-10., -9., 0., 10.],
                                                                density=True), [a])
    add("histogram nonmono edges", lambda m, a: m.histogram(a, [0., 2., 1.]), [a])
    add("histogram empty", lambda m, a: m.histogram(a, 3), [np.zeros(0)])
    add("histogram int32 data", lambda m, a: m.histogram(a, 3), [np.array([1, 2, 5, 7], np.int32)])
    add("histogram_bin_edges int", lambda m, a: m.histogram_bin_edges(a, 4), [[1, 2, 9]])
    add("histogram2d bins edges int", lambda m, x, y: m.histogram2d(x, y, bins=[[0, 1, 2], [0, 2]]),
        [[0.5, 1.5, 2.0, 3.0], [1.0, 0.2, 2.0, 1.9]])
    add("histogramdd 1-D sample", lambda m, s: m.histogramdd(s, bins=3), [rnd(10)])
    add("histogramdd weights density", lambda m, s, w: m.histogramdd(s, bins=2, weights=w,
                                                                     density=True),
        [rnd(10, 2), np.abs(rnd(10))])
    add("digitize nonmono", lambda m, x, b: m.digitize(x, b), [rnd(3), [0., 2., 1.]])
    add("digitize int", lambda m, x, b: m.digitize(x, b), [[1, 5, 9], [0, 5, 10]])
    add("digitize all-equal bins", lambda m, x, b: m.digitize(x, b, right=True),
        [[0., 1., 2.], [1., 1., 1.]])
    add("digitize complex", lambda m, x, b: m.digitize(x, b), [rnd(3, complex_=True), [0., 1.]])
    add("bincount negative", lambda m, x: m.bincount(x), [[1, -1, 2]])
    add("bincount float", lambda m, x: m.bincount(x), [[1., 2.]])
    add("bincount 2-D", lambda m, x: m.bincount(x), [[[1, 2]]])
    add("bincount empty", lambda m, x: m.bincount(x), [np.zeros(0, np.int64)])
    add("bincount bool", lambda m, x: m.bincount(x), [[True, False, True]])
    add("bincount weights complex", lambda m, x, w: m.bincount(x, w),
        [[0, 2, 2], rnd(3, complex_=True)])
    add("bincount minlength neg", lambda m, x: m.bincount(x, minlength=-1), [[1, 2]])
    Q = rnd(3, 5)
    add("quantile q 2-D", lambda m, a, q: m.quantile(a, q), [Q, [[0.1, 0.5], [0.2, 0.9]]])
    add("quantile q 0-d array", lambda m, a, q: m.quantile(a, q, axis=1), [Q, np.array(0.3)])
    add("quantile empty", lambda m, a: m.quantile(a, 0.5), [np.zeros(0)])
    add("quantile axis -1 kd", lambda m, a: m.quantile(a, np.array([0.2, 0.6]), axis=-1, keepdims=True), [Q])
    add("quantile q NaN", lambda m, a, q: m.quantile(a, q), [Q, np.array([0.5, np.nan])])
    add("quantile inf data", lambda m, a: m.quantile(a, np.array([0.0, 0.5, 0.7, 1.0])),
        [[-np.inf, 1., 2., np.inf]])
    add("quantile int lower", lambda m, a: m.quantile(a, 0.4, method="lower"), [[4, 1, 9, 7]])
    add("quantile bool", lambda m, a: m.quantile(a, 0.5), [[True, False, True]])
    add("quantile weights", lambda m, a, w: m.quantile(a, np.array([0.1, 0.5, 0.95]), axis=1,
                                                      method="inverted_cdf", weights=w),
        [Q, np.abs(rnd(5))])
    add("quantile weights zero-lead", lambda m, a, w: m.quantile(a, np.array([0.0, 0.5, 1.0]),
                                                                method="inverted_cdf",
                                                                weights=w),
        [np.array([3., 1., 2., 5.]), np.array([0., 0., 1., 2.])])
    add("percentile interpolation kw", lambda m, a: m.percentile(a, 40, interpolation="higher"),
        [Q])
    add("nanquantile all-NaN", lambda m, a: m.nanquantile(a, 0.5, axis=1),
        [[[np.nan, np.nan], [1., np.nan]]])
    add("median empty", lambda m, a: m.median(a), [np.zeros(0)])
    add("median int", lambda m, a: m.median(a), [[1, 4, 2, 8]])
    add("median NaN", lambda m, a: m.median(a, axis=0), [[[1., np.nan], [2., 3.]]])
    add("median axis tuple kd", lambda m, a: m.median(a, axis=(0, 2), keepdims=True),
        [rnd(2, 3, 4)])
    add("median axis dup", lambda m, a: m.median(a, axis=(0, 0)), [rnd(2, 3)])
    add("average weights zero-sum", lambda m, a, w: m.average(a, weights=w), [rnd(3), np.zeros(3)])
    add("average weights shape bad", lambda m, a, w: m.average(a, axis=1, weights=w),
        [rnd(2, 3), rnd(2)])
    add("average returned no w kd", lambda m, a: m.average(a, axis=0, returned=True,
                                                          keepdims=True), [rnd(2, 3)])
    add("average int weights int", lambda m, a, w: m.average(a, weights=w, returned=True),
        [[1, 2, 3], [1, 0, 2]])
    add("average axis tuple w", lambda m, a, w: m.average(a, axis=(0, 1), weights=w),
        [rnd(2, 3), np.abs(rnd(2, 3))])
    add("ptp bool", lambda m, a: m.ptp(a), [[True, False]])
    add("ptp uint8", lambda m, a: m.ptp(a), [np.array([250, 3], np.uint8)])
    add("ptp axis tuple", lambda m, a: m.ptp(a, axis=(0, 1)), [rnd(2, 3, 2)])
    add("ptp empty", lambda m, a: m.ptp(a), [np.zeros(0)])
    for name in ("nanargmax", "nanargmin"):
        add(f"{name} all-NaN row", lambda m, a, n=name: getattr(m, n)(a, axis=1),
            [[[np.nan, np.nan], [1., np.nan]]])
    add("nanstd ddof>=count", lambda m, a: m.nanstd(a, axis=1, ddof=2),
        [[[np.nan, 1.0], [1., 3.]]])
    add("nanvar int", lambda m, a: m.nanvar(a), [[1, 2, 4]])
    add("nanmean empty", lambda m, a: m.nanmean(a), [np.zeros(0)])
    add("nanprod all-NaN axis", lambda m, a: m.nanprod(a, axis=0), [[[np.nan], [np.nan]]])
    add("nanmax inf", lambda m, a: m.nanmax(a), [[np.nan, -np.inf]])
    add("nanmin int", lambda m, a: m.nanmin(a), [[4, 2, 7]])
    add("nancumsum int", lambda m, a: m.nancumsum(a), [[4, 2, 7]])
    add("nansum complex NaN", lambda m, a: m.nansum(a), [[1 + 1j, complex(np.nan, 1.0), 2]])
    add("nanmax complex", lambda m, a: m.nanmax(a), [[1 + 1j, complex(np.nan, 0), 1 + 2j]])
    add("nanmedian kd tuple", lambda m, a: m.nanmedian(a, axis=(0, 2), keepdims=True),
        [_with_nans(rnd(3, 2, 4))])
    add("nanpercentile all-NaN", lambda m, a: m.nanpercentile(a, 50), [[np.nan, np.nan]])
    return cs


AREAS = {"fft": fft_cases, "poly": poly_cases, "interp": interp_cases, "calc": calc_cases,
         "conv": conv_cases, "stats": stats_cases, "quantile": quantile_cases,
         "reduce": reduce_cases, "edge": edge_cases}


def main():
    global F32
    argv = sys.argv[1:]
    if "f32" in argv:  # the default 32-bit mode: float32 operands, 2e-4 tolerances
        argv.remove("f32")
        F32 = True
        tjit.config.update("jax_enable_x64", False)
        if jax:
            jax.config.update("jax_enable_x64", False)
    only = argv[0].split(",") if argv and argv[0] != "all" else list(AREAS)
    ncases = 0
    for area in only:
        for c in AREAS[area]():
            ncases += 1
            try:
                check_case(c)
            except Exception:  # noqa: BLE001  (a bug in the harness must not stop the hunt)
                record(c.area, "harness", False, f"{c.name}: {traceback.format_exc(limit=3)}")
    print(f"{ncases} cases; JAX {jax.__version__ if jax else 'absent'}; "
          f"{'float32 operands, x64 off' if F32 else 'float64 operands, x64 on'}")
    checks = ("eager", "raises-as-jax", "jit", "interpreter", "vmap", "vmap-other", "grad",
              "jit(grad)", "jvp", "vs-jax", "dtype-vs-jax", "jax-agrees",
              "grad-jax-agrees", "harness")
    areas = sorted({a for a, _, _ in RESULTS})
    print(f"{'area':10}" + "".join(f"{c:>17}" for c in checks))
    for a in areas:
        row = []
        for c in checks:
            n_ok, n_bad = RESULTS[a, c, True], RESULTS[a, c, False]
            row.append(f"{n_ok + n_bad:>9}/{n_bad:<7}" if n_ok + n_bad else f"{'-':>17}")
        print(f"{a:10}" + "".join(row))
    print("(cells: cases / disagreements)")
    for (a, c), infos in sorted(FAILS.items()):
        print(f"\n== {a} / {c}")
        for i in infos:
            print("  ", i[:600])


if __name__ == "__main__":
    main()
