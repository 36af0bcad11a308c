"""Matrix functions of ``tjit.scipy.linalg``: ``expm`` and its Fréchet derivative
``expm_frechet`` (``sqrtm`` is Schur-based, in ``_linalg_schur.py``).

``expm`` follows ``jax.scipy.linalg.expm``: the 1-norm picks a Padé degree (3, 5, 7, 9
or 13 in float64; 3, 5 or 7 in float32) and a number of squarings ``s``; the approximant
of ``A / 2**s`` is squared ``s`` times, for at most ``max_squarings`` (else NaN). Its jvp
is ``expm_frechet`` (Al-Mohy and Higham 2009, SciPy's ``expm_frechet_algo_64``), which is
linear in the direction ``E`` given ``A`` (one LU of ``A``'s denominator, dots with
``A``-only matrices, a scan of conditional squarings), so reverse mode transposes it.
"""

import functools

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import shape_str
from tjit import lax
from tjit.lax import linalg as lax_linalg
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact
from tjit.transforms.custom_derivatives import custom_jvp

# Padé coefficients b_0..b_m of exp (Higham 2005, as SciPy and JAX).
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}
# expm: degree thresholds on ||A||_1 and the largest norm degree 13 (or 7) serves (JAX's).
_EXPM64 = ((1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1,
            2.097847961257068e+0), 5.371920351148152, (3, 5, 7, 9, 13))
_EXPM32 = ((4.258730016922831e-1, 1.880152677804762e+0), 3.925724783138660, (3, 5, 7))
# expm_frechet: Al-Mohy and Higham's ell_m bounds for m = 3, 5, 7, 9 and 13 (SciPy's table).
_ELL = (1.08e-2, 2.00e-1, 7.83e-1, 1.78e0, 4.74e0)
_FRECHET_SQUARINGS = 24  # ||A||_1 up to 4.74 * 2**24; beyond that the result is NaN


def _square_arg(fname, a):
    check_arraylike(f"scipy.linalg.{fname}", a)
    (a,) = promote_dtypes_inexact(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"scipy.linalg.{fname}: expected a square matrix or a batch of "
                         f"them (..., n, n), got shape {shape_str(a.shape)}")
    return a


def _norm1(a):
    return jnp.max(jnp.sum(jnp.abs(a), axis=0))


def _count_above(x, bounds, strict):
    """How many of ``bounds`` lie below x (``<=`` unless ``strict``): the degree index."""
    bs = jnp.asarray(np.array(bounds), dtype=x.dtype)
    hit = (bs < x) if strict else (bs <= x)
    return jnp.sum(hit.astype(np.int32))


def _pade(a, e, m):
    """``U, V`` of the degree-m Padé approximant ``(V - U)^-1 (V + U)`` of exp(a), and
    their Fréchet derivatives ``Lu, Lv`` in the direction ``e`` (None: not computed)."""
    b = _PADE[m]
    n = a.shape[-1]
    ident = jnp.eye(n, dtype=a.dtype)
    a2 = a @ a
    pows = {0: ident, 2: a2}
    dpows = {0: None, 2: None if e is None else a @ e + e @ a}
    for k in range(4, min(m, 7) + 1, 2):  # a^4 = a^2 a^2, a^6 = a^4 a^2 (and derivatives)
        pows[k] = pows[k - 2] @ a2
        if e is not None:
            dpows[k] = pows[k - 2] @ dpows[2] + dpows[k - 2] @ a2
    if m == 9:
        pows[8] = pows[6] @ a2
        if e is not None:
            dpows[8] = pows[6] @ dpows[2] + dpows[6] @ a2

    if m == 13:  # Horner-like split keeps the number of products at 6 (Higham's scheme)
        a6 = pows[6]
        w1 = b[13] * a6 + b[11] * pows[4] + b[9] * a2
        z1 = b[12] * a6 + b[10] * pows[4] + b[8] * a2
        w = a6 @ w1 + b[7] * a6 + b[5] * pows[4] + b[3] * a2 + b[1] * ident
        u, v = a @ w, a6 @ z1 + b[6] * a6 + b[4] * pows[4] + b[2] * a2 + b[0] * ident
        if e is None:
            return u, v, None, None
        m2, m4, m6 = dpows[2], dpows[4], dpows[6]
        lw1 = b[13] * m6 + b[11] * m4 + b[9] * m2
        lz1 = b[12] * m6 + b[10] * m4 + b[8] * m2
        lw = a6 @ lw1 + m6 @ w1 + b[7] * m6 + b[5] * m4 + b[3] * m2
        lv = a6 @ lz1 + m6 @ z1 + b[6] * m6 + b[4] * m4 + b[2] * m2
        return u, v, a @ lw + e @ w, lv
    w = sum(b[k] * pows[k - 1] for k in range(1, m + 1, 2))
    v = sum(b[k] * pows[k] for k in range(0, m + 1, 2))
    u = a @ w
    if e is None:
        return u, v, None, None
    lw = sum(b[k] * dpows[k - 1] for k in range(3, m + 1, 2))
    lv = sum(b[k] * dpows[k] for k in range(2, m + 1, 2))
    return u, v, a @ lw + e @ w, lv


def _lu_solve(packed, perm, rhs):
    """Solve ``a x = rhs`` given ``a[perm] = L U`` (tjit.lax.linalg.lu's output)."""
    pb = jnp.take_along_axis(rhs, perm[:, None], axis=0)
    y = lax_linalg.triangular_solve(packed, pb, left_side=True, lower=True,
                                    unit_diagonal=True)
    return lax_linalg.triangular_solve(packed, y, left_side=True, lower=False)


def _solve_pq(u, v, upper_triangular):
    q, p = v - u, v + u
    if upper_triangular:
        return lax_linalg.triangular_solve(q, p, left_side=True, lower=False)
    packed, _, perm = lax_linalg.lu(q)
    return _lu_solve(packed, perm, p)


def _expm_2d(a, upper_triangular, max_squarings):
    bounds, maxnorm, degrees = _EXPM64 if a.dtype in (np.float64, np.complex128) else _EXPM32
    norm = _norm1(a)
    real = norm.dtype
    squarings = jnp.maximum(0, jnp.floor(jnp.log2(norm / maxnorm)))
    a = a / (2.0 ** squarings).astype(a.dtype)
    idx = _count_above(norm, bounds, strict=False)  # jnp.digitize(norm, bounds), as JAX
    branches = [functools.partial(lambda m, x: _pade(x, None, m)[:2], m) for m in degrees]
    u, v = lax.switch(idx, branches, a)
    r = _solve_pq(u, v, upper_triangular)

    def step(c, i):
        return lax.cond(i < squarings, lambda x: x @ x, lambda x: x, c), None
    r, _ = lax.scan(step, r, jnp.arange(max_squarings, dtype=real))
    return jnp.where(squarings > max_squarings, jnp.full_like(r, np.nan), r)


@functools.partial(custom_jvp, nondiff_argnums=(1, 2))
def _expm_core(a, upper_triangular, max_squarings):
    return _expm_2d(a, upper_triangular, max_squarings)


@_expm_core.defjvp
def _expm_jvp(upper_triangular, max_squarings, primals, tangents):
    (a,), (da,) = primals, tangents
    return _expm_core(a, upper_triangular, max_squarings), _frechet_2d(a, da)[1]


def expm(A, *, upper_triangular=False, max_squarings=16):
    """Matrix exponential by Padé approximation with scaling and squaring.

    Args:
      A: (..., n, n); leading dims are batch dims.
      upper_triangular: A is upper triangular (the Padé quotient is a triangular solve).
      max_squarings: the most squarings; a matrix needing more gives NaN.

    Returns:
      exp(A), differentiable (jvp = :func:`expm_frechet`).
    """
    a = _square_arg("expm", A)
    if a.shape[-1] == 0:  # exp of an empty matrix is empty (SciPy, JAX)
        return a

    def fn(x):
        return _expm_core(x, bool(upper_triangular), int(max_squarings))
    if a.ndim > 2:
        return jnp.vectorize(fn, signature="(n,n)->(n,n)")(a)
    return fn(a)


def _frechet_2d(a, e):
    """``(expm(a), L(a, e))`` by SciPy's expm_frechet_algo_64 (degree by ||a||_1, then
    scaling by 2**-s with degree 13 past ell_13; s conditional squarings in a scan)."""
    norm = _norm1(a)
    real = norm.dtype
    idx = _count_above(norm, _ELL[:4], strict=True)  # first m with norm <= ell_m
    s = jnp.where(idx == 4, jnp.maximum(0, jnp.ceil(jnp.log2(norm / _ELL[4]))), 0)
    scale = (2.0 ** -s).astype(a.dtype)
    a, e = a * scale, e * scale
    branches = [functools.partial(lambda m, x, y: _pade(x, y, m), m) for m in (3, 5, 7, 9, 13)]
    u, v, lu_, lv = lax.switch(idx, branches, a, e)
    packed, _, perm = lax_linalg.lu(v - u)
    r = _lu_solve(packed, perm, u + v)
    el = _lu_solve(packed, perm, lu_ + lv + (lu_ - lv) @ r)

    def step(c, i):
        def square(rl):
            rr, ll = rl
            return rr @ rr, rr @ ll + ll @ rr
        return lax.cond(i < s, square, lambda rl: rl, c), None
    (r, el), _ = lax.scan(step, (r, el), jnp.arange(_FRECHET_SQUARINGS, dtype=real))
    bad = s > _FRECHET_SQUARINGS
    return (jnp.where(bad, jnp.full_like(r, np.nan), r),
            jnp.where(bad, jnp.full_like(el, np.nan), el))


def expm_frechet(A, E, *, method=None, compute_expm=True):
    """Fréchet derivative of the matrix exponential at ``A`` in the direction ``E``.

    Args:
      A, E: (..., n, n) of the same shape.
      method: None or 'SPS' (Al-Mohy and Higham's scaling-Padé-squaring; the only one).
      compute_expm: also return expm(A).

    Returns:
      ``(expm(A), L)`` if ``compute_expm`` else ``L``, with ``L = d/dt expm(A + t E)``.
    """
    if method not in (None, "SPS"):
        raise ValueError(f"scipy.linalg.expm_frechet: method must be None or 'SPS', got "
                         f"{method!r} ('blockEnlarge' is not supported)")
    a, e = _square_arg("expm_frechet", A), _square_arg("expm_frechet", E)
    if a.shape != e.shape:
        raise ShapeError(f"scipy.linalg.expm_frechet: A {shape_str(a.shape)} and E "
                         f"{shape_str(e.shape)} must have the same shape")
    a, e = promote_dtypes_inexact(a, e)
    if a.shape[-1] == 0:
        return (a, e) if compute_expm else e
    fn = jnp.vectorize(_frechet_2d, signature="(n,n),(n,n)->(n,n),(n,n)")
    r, el = fn(a, e) if a.ndim > 2 else _frechet_2d(a, e)
    return (r, el) if compute_expm else el
