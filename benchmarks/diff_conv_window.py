"""Differential hunt: convolutions, window reductions and image resampling.

Compares tjit (eager, ``jit``, ``jit(backend="interpreter")``, ``vmap``, gradients) with an
independent NumPy float64 reference (loops over kernel / window offsets written here, not
tjit's im2col or window views) and, when importable, with JAX. Run it with an interpreter
that has both (``/work/jaxvenv/bin/python benchmarks/diff_conv_window.py [cases] [seed]``);
without JAX only the NumPy references are used. Prints counts of cases and disagreements
per check, and the first few failing cases of each.
"""

import collections
import itertools
import sys
import traceback

import numpy as np

import tjit
from tjit import lax
from tjit import numpy as tnp

tjit.config.update("jax_enable_x64", True)
try:
    import jax
    import jax.numpy as jnp
    from jax import lax as jlax

    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None

RESULTS = collections.Counter()
FAILS = collections.defaultdict(list)


def record(check, ok, info):
    RESULTS[check, ok] += 1
    if not ok and len(FAILS[check]) < 6:
        FAILS[check].append(info)


def close(a, b, dtype, scale=1.0):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if np.dtype(dtype).kind in "iu":
        return np.array_equal(a, b)
    tol = {np.dtype("float32"): 2e-4, np.dtype("float64"): 1e-10}.get(np.dtype(dtype), 2e-2)
    wide = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(b) else np.float64
    tol = 2e-4 if np.dtype(dtype) == np.complex64 else tol
    with np.errstate(invalid="ignore"):
        return bool(np.all((np.abs(a.astype(wide) - b.astype(wide))
                            <= tol * (scale + np.abs(b.astype(wide))))
                           | (np.isnan(a) & np.isnan(b))
                           | (a == b)))


# -- NumPy references ------------------------------------------------------------------------------
def frame_ref(x, fill, pads, dil, first):
    """Dilate (fill in the holes) then pad/crop dims first.. of x."""
    for j, ((lo, hi), r) in enumerate(zip(pads, dil)):
        ax = first + j
        n = x.shape[ax]
        size = 0 if n == 0 else (n - 1) * r + 1
        shp = list(x.shape)
        shp[ax] = size
        y = np.full(shp, fill, x.dtype)
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(0, size, r)
        y[tuple(idx)] = x
        shp[ax] = max(lo, 0) + size + max(hi, 0)
        z = np.full(shp, fill, x.dtype)
        idx[ax] = slice(max(lo, 0), max(lo, 0) + size)
        z[tuple(idx)] = y
        idx[ax] = slice(max(-lo, 0), shp[ax] - max(-hi, 0))
        x = z[tuple(idx)]
    return x


def conv_ref(lhs, rhs, strides, pads, ldil, rdil, dn, G, B):
    """lhs, rhs in spec layouts; float64 (or int64) result in out spec layout."""
    lspec, rspec, ospec = dn
    wide = np.float64 if lhs.dtype.kind in "fc" else np.int64
    x = np.transpose(lhs, lspec).astype(wide)
    w = np.transpose(rhs, rspec).astype(wide)
    N, _C = x.shape[:2]
    O, I = w.shape[:2]
    ksp = w.shape[2:]
    x = frame_ref(x, 0, pads, ldil, 2)
    out_sp = [max(0, (n - ((k - 1) * r + 1)) // s + 1) if n >= (k - 1) * r + 1 else 0
              for n, k, r, s in zip(x.shape[2:], ksp, rdil, strides)]
    Nb = N // B
    out = np.zeros((Nb, O) + tuple(out_sp), wide)
    Og = O // (G * B)
    if all(out_sp) and Nb:
        for offs in itertools.product(*(range(k) for k in ksp)):
            sl = tuple(slice(o * r, o * r + (n - 1) * s + 1, s)
                       for o, r, n, s in zip(offs, rdil, out_sp, strides))
            xs = x[(slice(None), slice(None)) + sl]   # (N, C, *out)
            wk = w[(slice(None), slice(None)) + offs]  # (O, I)
            for b in range(B):
                for g in range(G):
                    grp = b * G + g
                    xb = xs[b * Nb:(b + 1) * Nb, g * I:(g + 1) * I]
                    wg = wk[grp * Og:(grp + 1) * Og]
                    out[:, grp * Og:(grp + 1) * Og] += np.einsum("ni...,oi->no...", xb, wg)
    return np.transpose(out, np.argsort(ospec))


def reduce_window_ref(x, init, op, wd, ws, pads, bdil, wdil):
    """As XLA's kernels (JAX's numbers): init first, then the window's real elements in
    row-major order; padding and base-dilation holes are skipped."""
    x = np.asarray(x)
    real = frame_ref(np.ones(x.shape, bool), False, pads, bdil, 0)
    x = frame_ref(x, init, pads, bdil, 0)
    out_sp = [max(0, (n - ((k - 1) * r + 1)) // s + 1) if n >= (k - 1) * r + 1 else 0
              for n, k, r, s in zip(x.shape, wd, wdil, ws)]
    acc = np.full(out_sp, init, x.dtype)
    if not all(out_sp):
        return acc
    for offs in itertools.product(*(range(k) for k in wd)):
        sl = tuple(slice(o * r, o * r + (n - 1) * s + 1, s)
                   for o, r, n, s in zip(offs, wdil, out_sp, ws))
        with np.errstate(over="ignore"):
            acc = np.where(real[sl], op(acc, x[sl]), acc)
    return acc


# -- random cases ----------------------------------------------------------------------------------
SPATIAL = "HWD"


def random_specs(rng, nsp):
    sp = SPATIAL[:nsp]
    specs = []
    for pair in ("NC", "OI", "NC"):
        letters = list(pair + sp)
        rng.shuffle(letters)
        specs.append("".join(letters))
    return tuple(specs)


def spec_shape(spec, sizes):
    return tuple(sizes[c] for c in spec)


def random_conv_case(rng):
    nsp = int(rng.choice([1, 1, 2, 2, 2, 3]))
    dtype = rng.choice(["float32", "float32", "float64", "int32"])
    G = B = 1
    r = rng.random()
    if r < 0.25:
        G = int(rng.integers(2, 4))
    elif r < 0.4:
        B = int(rng.integers(2, 4))
    I = int(rng.integers(1, 4))
    C = I * G
    Og = int(rng.integers(1, 3))
    O = Og * G * B
    N = B * int(rng.integers(1, 3))
    ksp = [int(rng.integers(1, 4)) for _ in range(nsp)]
    insp = [int(rng.integers(1, 8 if nsp < 3 else 5)) for _ in range(nsp)]
    strides = [int(rng.integers(1, 4)) for _ in range(nsp)]
    ldil = [int(rng.choice([1, 1, 2, 3])) for _ in range(nsp)]
    rdil = [int(rng.choice([1, 1, 2, 3])) for _ in range(nsp)]
    pk = rng.random()
    if pk < 0.2:
        padding = "SAME"
    elif pk < 0.3:
        padding = "SAME_LOWER"
    elif pk < 0.45:
        padding = "VALID"
    else:
        padding = [(int(rng.integers(-2, 4)), int(rng.integers(-2, 4))) for _ in range(nsp)]
    dn_kind = rng.choice(["none", "str", "str", "tuple"])
    specs = random_specs(rng, nsp) if dn_kind != "none" else None
    if specs is None:
        canon = ("NC" + SPATIAL[:nsp], "OI" + SPATIAL[:nsp], "NC" + SPATIAL[:nsp])
    else:
        canon = specs
    sizes_l = dict(N=N, C=C, **{c: n for c, n in zip(SPATIAL, insp)})
    sizes_r = dict(O=O, I=I, **{c: k for c, k in zip(SPATIAL, ksp)})
    lshape = spec_shape(canon[0], sizes_l)
    rshape = spec_shape(canon[1], sizes_r)
    if dtype == "int32":
        lhs = rng.integers(-5, 6, lshape).astype(dtype)
        rhs = rng.integers(-5, 6, rshape).astype(dtype)
    else:
        lhs = rng.standard_normal(lshape).astype(dtype)
        rhs = rng.standard_normal(rshape).astype(dtype)
    return {"lhs": lhs, "rhs": rhs, "strides": strides, "padding": padding, "ldil": ldil,
            "rdil": rdil, "specs": specs, "dn_kind": dn_kind, "G": G, "B": B, "nsp": nsp}


def canonical_perms(specs, nsp):
    if specs is None:
        iota = tuple(range(nsp + 2))
        return iota, iota, iota
    return tjit.lax.conv_general_permutations(specs)


def explicit_pads(case, lhs_shape_canon, k_canon):
    p = case["padding"]
    if not isinstance(p, str):
        return [tuple(q) for q in p]
    k_eff = [(k - 1) * r + 1 for k, r in zip(k_canon, case["rdil"])]
    if p == "VALID":
        return [(0, 0)] * len(k_eff)
    pads = []
    for d, k, s in zip(lhs_shape_canon, k_eff, case["strides"]):
        out = -(-d // s)
        tot = max((out - 1) * s + k - d, 0)
        lo, hi = tot // 2, tot - tot // 2
        pads.append((lo, hi) if p == "SAME" else (hi, lo))
    return pads


def conv_fn(mod_lax, case, dn_arg, **extra):
    def f(lhs, rhs):
        return mod_lax.conv_general_dilated(
            lhs, rhs, case["strides"], case["padding"], lhs_dilation=case["ldil"],
            rhs_dilation=case["rdil"], dimension_numbers=dn_arg,
            feature_group_count=case["G"], batch_group_count=case["B"], **extra)
    return f


def dn_arg_for(mod_lax, case, perms):
    if case["dn_kind"] == "none":
        return None
    if case["dn_kind"] == "tuple":
        return mod_lax.ConvDimensionNumbers(*perms)
    return case["specs"]


def run_conv_case(rng, i):
    case = random_conv_case(rng)
    lhs, rhs = case["lhs"], case["rhs"]
    perms = canonical_perms(case["specs"], case["nsp"])
    lcan = [lhs.shape[d] for d in perms[0][2:]]
    kcan = [rhs.shape[d] for d in perms[1][2:]]
    pads = explicit_pads(case, lcan, kcan)
    info = {k: v for k, v in case.items() if k not in ("lhs", "rhs")}
    info.update(lshape=lhs.shape, rshape=rhs.shape, dtype=str(lhs.dtype), i=i)
    try:
        ref = conv_ref(lhs, rhs, case["strides"], pads, case["ldil"], case["rdil"], perms,
                       case["G"], case["B"])
    except Exception:  # noqa: BLE001
        ref = None
    scale = float(np.abs(lhs).max() * np.abs(rhs).max() * max(1, rhs.size))
    f = conv_fn(lax, case, dn_arg_for(lax, case, perms))
    dilated = [0 if n == 0 else (n - 1) * r + 1 for n, r in zip(lcan, case["ldil"])]
    if any(n + lo + hi < 0 for n, (lo, hi) in zip(dilated, pads)):
        # negative padding that crops more than the input: JAX raises, so must tjit
        for name, g in (("eager", f), ("jit", tjit.jit(f))):
            try:
                g(lhs, rhs)
                record("conv error parity", False, (info, f"{name}: no error"))
            except tjit.ShapeError:
                record("conv error parity", True, None)
        return
    if isinstance(case["padding"], str) and any(d != 1 for d in case["ldil"]):
        # JAX refuses string padding with lhs dilation: tjit must raise too, in every mode
        for name, g in (("eager", f), ("jit", tjit.jit(f))):
            try:
                g(lhs, rhs)
                record("conv error parity", False, (info, f"{name}: no error"))
            except ValueError:
                record("conv error parity", True, None)
        return
    for name, g in (("conv eager", f), ("conv jit", tjit.jit(f)),
                    ("conv interp", tjit.jit(f, backend="interpreter"))):
        try:
            got = np.asarray(g(lhs, rhs))
            ok = ref is not None and close(got, ref.astype(got.dtype), lhs.dtype, scale) and \
                got.dtype == lhs.dtype
            same = ref is not None and got.shape == ref.shape
            err = np.abs(got - ref).max(initial=0) if same else (
                got.shape, None if ref is None else ref.shape)
            record(name, ok, (info, "" if ok else f"maxerr {err}"))
        except Exception as e:  # noqa: BLE001
            record(name, False, (info, f"raised {type(e).__name__}: {e}"))
    if jax is not None and ref is not None:
        try:
            jout = np.asarray(conv_fn(jlax, case, dn_arg_for(jlax, case, perms))(lhs, rhs))
            record("conv jax vs ref", close(jout, ref.astype(jout.dtype), lhs.dtype, scale),
                   (info, "reference disagrees with JAX"))
        except Exception as e:  # noqa: BLE001
            record("conv jax vs ref", False, (info, f"jax raised {e}"))
    if lhs.dtype.kind != "f" or ref is None or ref.size == 0:
        return
    # gradients: bilinear, so <grad_lhs, v> = sum(cot * conv(v, rhs)) exactly
    cot = rng.standard_normal(ref.shape).astype(lhs.dtype)
    loss = lambda a, b: tnp.sum(f(a, b) * cot)
    try:
        gl, gr = tjit.jit(tjit.grad(loss, argnums=(0, 1)))(lhs, rhs)
        vl = rng.standard_normal(lhs.shape)
        vr = rng.standard_normal(rhs.shape)
        want_l = np.sum(cot * conv_ref(vl, rhs.astype(np.float64), case["strides"], pads,
                                       case["ldil"], case["rdil"], perms, case["G"], case["B"]))
        want_r = np.sum(cot * conv_ref(lhs.astype(np.float64), vr, case["strides"], pads,
                                       case["ldil"], case["rdil"], perms, case["G"], case["B"]))
        gscale = scale * float(np.abs(cot).sum()) * 4
        ok_l = close(np.sum(np.asarray(gl, np.float64) * vl), want_l, lhs.dtype, gscale)
        ok_r = close(np.sum(np.asarray(gr, np.float64) * vr), want_r, lhs.dtype, gscale)
        record("conv grad lhs", ok_l, (info, f"{np.sum(np.asarray(gl) * vl)} vs {want_l}"))
        record("conv grad rhs", ok_r, (info, f"{np.sum(np.asarray(gr) * vr)} vs {want_r}"))
        if jax is not None:
            jl, jr = jax.grad(lambda a, b: jnp.sum(conv_fn(jlax, case, dn_arg_for(
                jlax, case, perms))(a, b) * cot), argnums=(0, 1))(lhs, rhs)
            record("conv grad vs jax", close(gl, jl, lhs.dtype, gscale) and
                   close(gr, jr, lhs.dtype, gscale), (info, ""))
    except Exception as e:  # noqa: BLE001
        record("conv grad lhs", False, (info, f"raised {type(e).__name__}: {e}"))
    # vmap over a new axis of lhs, of rhs, or both, against a loop of the reference
    k = 2
    which = rng.choice(["lhs", "rhs", "both"])
    lax_l = int(rng.integers(0, lhs.ndim + 1))
    lax_r = int(rng.integers(0, rhs.ndim + 1))
    L = np.stack([lhs + j for j in range(k)], lax_l) if which != "rhs" else lhs
    R = np.stack([rhs * (j + 1) for j in range(k)], lax_r) if which != "lhs" else rhs
    in_axes = (lax_l if which != "rhs" else None, lax_r if which != "lhs" else None)
    try:
        got = np.asarray(tjit.jit(tjit.vmap(f, in_axes=in_axes))(L, R))
        want = []
        for j in range(k):
            lj = np.take(L, j, lax_l) if which != "rhs" else L
            rj = np.take(R, j, lax_r) if which != "lhs" else R
            want.append(conv_ref(lj, rj, case["strides"], pads, case["ldil"], case["rdil"],
                                 perms, case["G"], case["B"]))
        want = np.stack(want)
        record("conv vmap", close(got, want.astype(got.dtype), lhs.dtype, scale * 4),
               (dict(info, which=which, in_axes=in_axes), ""))
    except Exception as e:  # noqa: BLE001
        record("conv vmap", False, (dict(info, which=which, in_axes=in_axes),
                                    f"raised {type(e).__name__}: {e}"))


# -- reduce_window ---------------------------------------------------------------------------------
def run_window_case(rng, i):
    nd = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(1, 7)) for _ in range(nd))
    dtype = rng.choice(["float32", "float64", "int32"])
    kind = rng.choice(["max", "min", "add", "mul", "custom", "max_noninit", "add_init"])
    if dtype == "int32":
        x = rng.integers(-4, 5, shape).astype(dtype)
    else:
        x = rng.integers(-4, 5, shape).astype(dtype)   # integer-valued floats: ties
        if rng.random() < 0.5:
            x = x + rng.standard_normal(shape).astype(dtype) * 0.1
    wd = [int(rng.integers(1, 4)) for _ in range(nd)]
    ws = [int(rng.integers(1, 4)) for _ in range(nd)]
    bdil = [int(rng.choice([1, 1, 2])) for _ in range(nd)]
    wdil = [int(rng.choice([1, 1, 2])) for _ in range(nd)]
    if rng.random() < 0.3:   # pooling: tiled windows (the fused path)
        ws = list(wd)
        bdil = [1] * nd
        wdil = [1] * nd
        shape = tuple(k * int(rng.integers(1, 4)) for k in wd)
        x = rng.integers(-4, 5, shape).astype(dtype)
    pk = rng.random()
    if pk < 0.2:
        padding = "SAME"
    elif pk < 0.3:
        padding = "SAME_LOWER"
    elif pk < 0.5:
        padding = "VALID"
    else:
        padding = [(int(rng.integers(-1, 3)), int(rng.integers(-1, 3))) for _ in range(nd)]
    if isinstance(padding, str) and padding != "VALID" and any(b != 1 for b in bdil):
        padding = "VALID"
    isint = dtype == "int32"
    big = np.iinfo(np.int32).max if isint else np.inf
    ops = {"max": (lax.max, -big if not isint else -big - 1, np.maximum, "max"),
           "min": (lax.min, big, np.minimum, "min"),
           "add": (lax.add, 0, np.add, "add"),
           "mul": (lax.mul, 1, np.multiply, "mul"),
           # the max monoid written as a select: the general (non-primitive) path
           "custom": (lambda a, b: lax.select(a >= b, a, b),
                      -big if not isint else -big - 1, np.maximum, "max"),
           "max_noninit": (lax.max, 0, np.maximum, "max"),
           "add_init": (lax.add, 1, np.add, "add")}
    top, init, nop, jname = ops[kind]
    if jname == "mul":
        x = np.clip(x, -2, 2)
    info = {"shape": shape, "dtype": dtype, "kind": kind, "wd": wd, "ws": ws,
            "padding": padding, "bdil": bdil, "wdil": wdil, "i": i}
    # explicit padding of the reference: as JAX, the undilated shape vs dilated window
    if isinstance(padding, str):
        k_eff = [(k - 1) * r + 1 for k, r in zip(wd, wdil)]
        if padding == "VALID":
            pads = [(0, 0)] * nd
        else:
            pads = []
            for d, k, s in zip(shape, k_eff, ws):
                out = -(-d // s)
                tot = max((out - 1) * s + k - d, 0)
                lo, hi = tot // 2, tot - tot // 2
                pads.append((lo, hi) if padding == "SAME" else (hi, lo))
    else:
        pads = padding
    init_arr = np.asarray(init, dtype)
    ref = reduce_window_ref(x.astype(np.float64) if not isint else x, init_arr.astype(
        np.float64 if not isint else dtype), nop, wd, ws, pads, bdil, wdil)

    def f(a):
        return lax.reduce_window(a, init_arr, top, wd, ws, padding, bdil, wdil)

    for name, g in (("window eager", f), ("window jit", tjit.jit(f)),
                    ("window interp", tjit.jit(f, backend="interpreter"))):
        try:
            got = np.asarray(g(x))
            ok = close(got, ref.astype(got.dtype) if not isint else ref, dtype,
                       float(np.abs(x).max(initial=1)) * 8) and got.dtype == x.dtype
            record(name, ok, (info, f"got {got.ravel()[:8]} want {ref.ravel()[:8]}"
                              if got.shape == ref.shape else f"shape {got.shape} vs {ref.shape}"))
        except Exception as e:  # noqa: BLE001
            record(name, False, (info, f"raised {type(e).__name__}: {e}"))
    if jax is not None:
        jops = {"max": jlax.max, "min": jlax.min, "add": jlax.add, "mul": jlax.mul}
        jtop = jops[jname]
        try:
            jout = np.asarray(jlax.reduce_window(x, init_arr, jtop, wd, ws, padding, bdil, wdil))
            record("window jax vs ref", close(jout, ref.astype(jout.dtype), dtype,
                                float(np.abs(x).max(initial=1)) * 8),
                   (info, f"jax {jout.ravel()[:8]} ref {ref.ravel()[:8]}"))
        except Exception as e:  # noqa: BLE001
            record("window jax vs ref", False, (info, f"jax raised {e}"))
        # gradients vs jax.grad (max/min: select_and_scatter tie semantics)
        if not isint and ref.size and jname in ("max", "min", "add") and kind in (
                "max", "min", "add"):   # JAX differentiates only the monoids with identity
            cot = rng.standard_normal(ref.shape).astype(dtype)
            try:
                gt = np.asarray(tjit.jit(tjit.grad(lambda a: tnp.sum(f(a) * cot)))(x))
                ge = np.asarray(tjit.grad(lambda a: tnp.sum(f(a) * cot))(x))
                try:
                    gj = np.asarray(jax.grad(lambda a: jnp.sum(jlax.reduce_window(
                        a, init_arr, jtop, wd, ws, padding, bdil, wdil) * cot))(x))
                except (NotImplementedError, TypeError):
                    # JAX has no max-pool vjp with window dilation, and its vjp fails on
                    # some negative paddings (slices past the operand)
                    RESULTS["window grad (jax unsupported)", True] += 1
                    return
                record("window grad jit vs jax", close(gt, gj, dtype, 8.0),
                       (info, f"got {gt.ravel()[:8]} want {gj.ravel()[:8]}"))
                record("window grad eager vs jax", close(ge, gj, dtype, 8.0),
                       (info, f"got {ge.ravel()[:8]} want {gj.ravel()[:8]}"))
            except Exception as e:  # noqa: BLE001
                record("window grad jit vs jax", False, (info, f"raised {type(e).__name__}: {e}"))
    # vmap vs loop
    if ref.size:
        X = np.stack([x, x[::-1] if nd else x, x * 2 if jname != "mul" else x], 0)
        ax = int(rng.integers(0, nd + 1))
        X = np.moveaxis(X, 0, ax)
        try:
            got = np.asarray(tjit.jit(tjit.vmap(f, in_axes=ax))(X))
            want = np.stack([np.asarray(f(np.take(X, j, ax))) for j in range(3)])
            record("window vmap", close(got, want, dtype, 8.0), (dict(info, ax=ax), ""))
        except Exception as e:  # noqa: BLE001
            record("window vmap", False, (dict(info, ax=ax), f"raised {type(e).__name__}: {e}"))


# -- conv_transpose, patches, jnp.convolve/correlate (vs JAX) ------------------------------
def run_transpose_case(rng, i):
    if jax is None:
        return
    nsp = int(rng.choice([1, 2, 3]))
    dt = rng.choice(["float32", "float64"])
    lspec = "N" + SPATIAL[:nsp] + "C"
    rspec = SPATIAL[:nsp] + "IO"
    N, C, O = 1 + int(rng.integers(0, 2)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    insp = [int(rng.integers(1, 6)) for _ in range(nsp)]
    ksp = [int(rng.integers(1, 4)) for _ in range(nsp)]
    strides = [int(rng.integers(1, 4)) for _ in range(nsp)]
    rdil = [int(rng.choice([1, 1, 2])) for _ in range(nsp)] if rng.random() < 0.5 else None
    pk = rng.random()
    padding = "SAME" if pk < 0.4 else "VALID" if pk < 0.8 else [
        (int(rng.integers(0, 3)), int(rng.integers(0, 3))) for _ in range(nsp)]
    tk = bool(rng.random() < 0.5)
    lhs = rng.standard_normal((N, *insp, C)).astype(dt)
    rhs = rng.standard_normal((*ksp, O if tk else C, C if tk else O)).astype(dt)
    use_dn = rng.random() < 0.5
    dn = (lspec, rspec, lspec) if use_dn else None
    info = {"lshape": lhs.shape, "rshape": rhs.shape, "strides": strides,
            "padding": padding, "rdil": rdil, "tk": tk, "dn": dn, "i": i}

    def f(m):
        return lambda a, b: m.conv_transpose(a, b, strides, padding, rhs_dilation=rdil,
                                            dimension_numbers=dn, transpose_kernel=tk)
    try:
        want = np.asarray(f(jlax)(lhs, rhs))
    except Exception as e:  # noqa: BLE001
        want = e
    for name, g in (("conv_transpose eager", f(lax)), ("conv_transpose jit", tjit.jit(f(lax)))):
        try:
            got = np.asarray(g(lhs, rhs))
            ok = not isinstance(want, Exception) and close(got, want, dt, 10.0)
            record(name, ok, (info, f"got {got.shape} want {getattr(want, 'shape', want)}"))
        except Exception as e:  # noqa: BLE001
            record(name, isinstance(want, Exception), (info, f"raised {e}; jax {want}"))
    if not isinstance(want, Exception) and want.size:
        cot = rng.standard_normal(want.shape).astype(dt)
        try:
            gt = tjit.grad(lambda a, b: tnp.sum(f(lax)(a, b) * cot), argnums=(0, 1))(lhs, rhs)
            # bilinear: <grad_lhs, v> = sum(cot * f(v, rhs)), f by JAX (jax.grad of some
            # of these aborts inside XLA's algebraic simplifier, so it is not called)
            vl, vr = (rng.standard_normal(a.shape).astype(dt) for a in (lhs, rhs))
            want_l = np.sum(cot * np.asarray(f(jlax)(vl, rhs)), dtype=np.float64)
            want_r = np.sum(cot * np.asarray(f(jlax)(lhs, vr)), dtype=np.float64)
            s = float(np.abs(cot).sum() * np.abs(lhs).max() * np.abs(rhs).sum()) * 4
            record("conv_transpose grad", close(np.sum(np.asarray(gt[0], np.float64) * vl),
                                                want_l, dt, s) and
                   close(np.sum(np.asarray(gt[1], np.float64) * vr), want_r, dt, s), (info, ""))
        except Exception as e:  # noqa: BLE001
            record("conv_transpose grad", False, (info, f"raised {e}"))


def run_patches_case(rng, i):
    if jax is None:
        return
    nsp = int(rng.choice([1, 2]))
    specs = random_specs(rng, nsp) if rng.random() < 0.5 else None
    perms = canonical_perms(specs, nsp)
    C = int(rng.integers(1, 4))
    insp = [int(rng.integers(1, 7)) for _ in range(nsp)]
    filt = [int(rng.integers(1, 4)) for _ in range(nsp)]
    strides = [int(rng.integers(1, 3)) for _ in range(nsp)]
    padding = rng.choice(["SAME", "VALID"]) if rng.random() < 0.6 else [
        (int(rng.integers(-1, 3)), int(rng.integers(-1, 3))) for _ in range(nsp)]
    ldil = [int(rng.choice([1, 2])) for _ in range(nsp)]
    rdil = [int(rng.choice([1, 2])) for _ in range(nsp)]
    canon_shape = [2, C] + insp
    shape = [0] * (nsp + 2)
    for pos, d in enumerate(perms[0]):
        shape[d] = canon_shape[pos]
    x = rng.standard_normal(shape).astype("float32")
    info = {"shape": shape, "specs": specs, "filt": filt, "strides": strides,
            "padding": padding, "ldil": ldil, "rdil": rdil, "i": i}

    def f(m):
        return lambda a: m.conv_general_dilated_patches(a, filt, strides, padding, ldil, rdil,
                                                        dimension_numbers=specs)
    try:
        want = np.asarray(f(jlax)(x))
    except Exception as e:  # noqa: BLE001
        want = e
    for name, g in (("patches eager", f(lax)), ("patches jit", tjit.jit(f(lax)))):
        try:
            got = np.asarray(g(x))
            ok = not isinstance(want, Exception) and close(got, want, "float32", 1.0)
            record(name, ok, (info, f"got {got.shape} want {getattr(want, 'shape', want)}"))
        except Exception as e:  # noqa: BLE001
            record(name, isinstance(want, Exception), (info, f"raised {e}; jax {want}"))


def run_convolve_case(rng, i):
    n, m = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    dt = rng.choice(["float32", "float64", "int32", "complex64"])
    mk = lambda k: (rng.integers(-5, 6, k).astype(dt) if dt == "int32" else (
        rng.standard_normal(k) + (1j * rng.standard_normal(k) if dt == "complex64" else 0)
    ).astype(dt))
    a, v = mk(n), mk(m)
    mode = rng.choice(["full", "same", "valid"])
    fn = rng.choice(["convolve", "correlate"])
    info = {"n": n, "m": m, "dt": dt, "mode": mode, "fn": fn, "i": i}
    want = getattr(np, fn)(a.astype(np.complex128 if dt == "complex64" else np.float64
                                    if dt != "int32" else np.int64), v, mode)
    for name, g in ((f"{fn} eager", lambda a, v: getattr(tnp, fn)(a, v, mode)),
                    (f"{fn} jit", tjit.jit(lambda a, v: getattr(tnp, fn)(a, v, mode)))):
        try:
            got = np.asarray(g(a, v))
            ok = close(got, want.astype(got.dtype), dt, float(np.abs(a).max() * np.abs(v).sum()))
            if jax is not None:
                jw = np.asarray(getattr(jnp, fn)(a, v, mode))
                ok = ok and jw.dtype == got.dtype
            record(name, ok, (info, f"got {got} want {want}"))
        except Exception as e:  # noqa: BLE001
            record(name, False, (info, f"raised {e}"))


def run_image_case(rng, i):
    if jax is None:
        return
    nd = int(rng.integers(1, 4))
    shape = tuple(int(rng.choice([1, 1, 2, 3, 5, 8])) for _ in range(nd))
    out = tuple(int(rng.choice([1, 2, 3, 4, 7, 11])) for _ in range(nd))
    method = rng.choice(["nearest", "linear", "bilinear", "trilinear", "cubic", "bicubic",
                         "lanczos3", "lanczos5", "tricubic"])
    antialias = bool(rng.random() < 0.5)
    dt = rng.choice(["float32", "float64"])
    x = rng.standard_normal(shape).astype(dt)
    info = {"shape": shape, "out": out, "method": method, "antialias": antialias, "dt": dt, "i": i}
    try:
        want = np.asarray(jax.image.resize(x, out, method, antialias=antialias))
    except Exception as e:  # noqa: BLE001
        want = e
    for name, g in (("resize eager", lambda a: tjit.image.resize(a, out, method,
                                                                 antialias=antialias)),
                    ("resize jit", tjit.jit(lambda a: tjit.image.resize(
                        a, out, method, antialias=antialias)))):
        try:
            got = np.asarray(g(x))
            ok = not isinstance(want, Exception) and close(got, want, dt, 4.0) and \
                got.dtype == want.dtype
            shown = want.ravel()[:6] if hasattr(want, "ravel") else want
            record(name, ok, (info, f"got {got.ravel()[:6]} want {shown}"))
        except Exception as e:  # noqa: BLE001
            record(name, isinstance(want, Exception), (info, f"raised {e}; jax {want}"))
    if not isinstance(want, Exception) and method != "nearest":
        cot = rng.standard_normal(out).astype(dt)
        try:
            gt = np.asarray(tjit.grad(lambda a: tnp.sum(tjit.image.resize(
                a, out, method, antialias=antialias) * cot))(x))
            gj = np.asarray(jax.grad(lambda a: jnp.sum(jax.image.resize(
                a, out, method, antialias=antialias) * cot))(x))
            record("resize grad", close(gt, gj, dt, 8.0), (info, ""))
        except Exception as e:  # noqa: BLE001
            record("resize grad", False, (info, f"raised {e}"))
    # scale_and_translate on the last dims
    k = int(rng.integers(1, nd + 1))
    dims = tuple(range(nd - k, nd))
    scale = (rng.uniform(0.3, 3.0, k)).astype(dt)
    trans = (rng.uniform(-2, 2, k)).astype(dt)
    m2 = rng.choice(["linear", "cubic", "lanczos3", "lanczos5"])
    oshape = shape[:nd - k] + out[nd - k:]
    try:
        want = np.asarray(jax.image.scale_and_translate(x, oshape, dims, scale, trans, m2,
                                                        antialias=antialias))
        got = np.asarray(tjit.image.scale_and_translate(x, oshape, dims, scale, trans, m2,
                                                        antialias=antialias))
        record("scale_and_translate", close(got, want, dt, 4.0),
               (dict(info, dims=dims, scale=scale, trans=trans, m2=m2), ""))
    except Exception as e:  # noqa: BLE001
        record("scale_and_translate", False, (dict(info, dims=dims, m2=m2), f"raised {e}"))


def run_bigconv_case(rng, i):
    """Sizes where the compiled path's gemm tiles and threads matter (odd, not multiples
    of any block), NHWC / HWIO as CNNs write them, float32 under jit only."""
    N, C, O = int(rng.integers(1, 5)), int(rng.integers(1, 40)), int(rng.integers(1, 70))
    G = int(rng.choice([1, 1, 1, C])) if rng.random() < 0.5 else 1   # depthwise sometimes
    if G > 1:
        O = C * int(rng.integers(1, 3))
    H, W = int(rng.integers(3, 30)), int(rng.integers(3, 30))
    kh, kw = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    strides = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    padding = rng.choice(["SAME", "VALID"])
    rdil = (int(rng.choice([1, 1, 2])), int(rng.choice([1, 1, 2])))
    x = rng.standard_normal((N, H, W, C)).astype(np.float32)
    w = rng.standard_normal((kh, kw, C // G, O)).astype(np.float32)
    dn = ("NHWC", "HWIO", "NHWC")
    perms = tjit.lax.conv_general_permutations(dn)
    info = {"x": x.shape, "w": w.shape, "strides": strides, "padding": padding,
            "rdil": rdil, "G": G, "i": i}

    def f(a, b):
        return lax.conv_general_dilated(a, b, strides, padding, rhs_dilation=rdil,
                                        dimension_numbers=dn, feature_group_count=G)
    try:
        case = {"strides": strides, "padding": str(padding), "rdil": rdil}
        pads = explicit_pads(case, (H, W), (kh, kw))
        ref = conv_ref(x, w, strides, pads, (1, 1), rdil, perms, G, 1)
        got = np.asarray(tjit.jit(f)(x, w))
        scale = float(np.sqrt(kh * kw * C // G)) * 4
        record("bigconv jit", close(got, ref.astype(np.float32), "float32", scale),
               (info, f"maxerr {np.abs(got - ref).max(initial=0)}" if got.shape == ref.shape
                else f"shape {got.shape} vs {ref.shape}"))
    except Exception as e:  # noqa: BLE001
        record("bigconv jit", False, (info, f"raised {type(e).__name__}: {e}"))


def run_cumulative_case(rng, i):
    nd = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(1, 6)) for _ in range(nd))
    axis = int(rng.integers(0, nd))
    reverse = bool(rng.random() < 0.5)
    op = rng.choice(["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"])
    dt = rng.choice(["float32", "float64", "int32"]) if op != "cumlogsumexp" else "float32"
    x = rng.integers(-3, 4, shape).astype(dt)
    if dt != "int32" and rng.random() < 0.5:
        x = x + rng.standard_normal(shape).astype(dt) * 0.1
    info = {"shape": shape, "axis": axis, "reverse": reverse, "op": op, "dt": dt, "i": i}
    xw = np.flip(x, axis) if reverse else x
    wide = xw.astype(np.float64 if dt != "int32" else np.int64)
    want = {"cumsum": np.cumsum, "cumprod": np.cumprod,
            "cummax": np.maximum.accumulate, "cummin": np.minimum.accumulate,
            "cumlogsumexp": np.logaddexp.accumulate}[op](wide, axis=axis)
    want = np.flip(want, axis) if reverse else want
    f = lambda a: getattr(lax, op)(a, axis=axis, reverse=reverse)
    for name, g in (("cumulative eager", f), ("cumulative jit", tjit.jit(f))):
        try:
            got = np.asarray(g(x))
            record(name, close(got, want.astype(got.dtype), dt, float(np.abs(want).max(
                initial=1))) and got.dtype == x.dtype, (info, f"got {got} want {want}"))
        except Exception as e:  # noqa: BLE001
            record(name, False, (info, f"raised {e}"))
    if jax is not None and dt != "int32":
        cot = rng.standard_normal(shape).astype(dt)
        try:
            gt = np.asarray(tjit.jit(tjit.grad(lambda a: tnp.sum(f(a) * cot)))(x))
            gj = np.asarray(jax.grad(lambda a: jnp.sum(getattr(jlax, op)(
                a, axis=axis, reverse=reverse) * cot))(x))
            record("cumulative grad vs jax", close(gt, gj, dt, float(np.abs(gj).max(
                initial=1))), (info, f"got {gt} want {gj}"))
        except Exception as e:  # noqa: BLE001
            record("cumulative grad vs jax", False, (info, f"raised {e}"))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    rng = np.random.default_rng(seed)
    runners = {"conv": run_conv_case, "window": run_window_case,
               "transpose": run_transpose_case, "patches": run_patches_case,
               "convolve": run_convolve_case, "image": run_image_case,
               "cumulative": run_cumulative_case, "bigconv": run_bigconv_case}
    for i in range(n):
        for name, run in runners.items():
            if only and name not in only:
                continue
            try:
                run(rng, i)
            except Exception:  # noqa: BLE001
                record(f"{name} harness", False, ({"i": i}, traceback.format_exc(limit=3)))
        if (i + 1) % 25 == 0 and i + 1 < n:
            summary(f"after {i + 1} rounds: ", details=False)
    summary("")


def summary(prefix, details=True):
    checks = sorted({c for c, _ in RESULTS})
    total = sum(RESULTS.values())
    bad = sum(v for (c, ok), v in RESULTS.items() if not ok)
    print(f"{prefix}{total} comparisons, {bad} disagreements")
    for c in checks:
        print(f"  {c:28s} ok {RESULTS[c, True]:5d}  bad {RESULTS[c, False]:4d}")
    sys.stdout.flush()
    if not details:
        return
    for c, fails in FAILS.items():
        print(f"\n== {c}")
        for info, msg in fails:
            print("  ", info, "::", str(msg)[:400])


if __name__ == "__main__":
    main()
