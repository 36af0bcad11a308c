"""Taylor-series rules of the linear-algebra primitives for ``tjit.experimental.jet``:
``triangular_solve``, ``lu``, ``cholesky`` and ``eigh``, so that ``solve``, ``inv``,
``det``, ``slogdet``, ``cho_factor``/``cho_solve`` and ``eigh`` have series (JAX's jet
has none of these).

Each factorization's series follows from the Cauchy product of its defining identity
(``op(A) x = b``, ``P A = L U``, ``S = L L^H``, ``A V = V diag(w)``): the k-th term
solves a linear equation in the primal factors whose right side holds the lower-order
terms, the same equation the primitive's jvp solves for k = 1.
"""

import tjit.numpy as jnp
from tjit.primitives import linalg as la
from tjit.experimental._jet_rules import keeps_zero_series, sum_terms
from tjit.experimental._jet_trace import jet_rules, zero_series


@keeps_zero_series
def _triangular_solve_rule(primals, series, **params):
    """x = op(A)^-1 b (or b op(A)^-1): from op(A) x = b, the Cauchy product gives
    ``op(A_0) x_k = b_k - sum_{j=1..k} op(A_j) x_{k-j}``, one solve per term."""
    a, b = primals
    a_s, b_s = series
    order = len(b_s if a_s is zero_series else a_s)
    b_s = [jnp.zeros_like(b)] * order if b_s is zero_series else b_s
    x = [la.triangular_solve_p.bind(a, b, **params)]
    if a_s is zero_series:
        return x[0], [la.triangular_solve_p.bind(a, t, **params) for t in b_s]
    a_ops = [_solve_operator(t, **params) for t in a_s]
    for k in range(1, order + 1):
        products = [a_ops[j - 1] @ x[k - j] if params["left_side"] else x[k - j] @ a_ops[j - 1]
                    for j in range(1, k + 1)]
        x.append(la.triangular_solve_p.bind(a, b_s[k - 1] - sum_terms(products), **params))
    return x[0], x[1:]


def _solve_operator(m, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    """The matrix triangular_solve applies for ``m``: the triangle it reads (without
    the diagonal when that is implied to be 1), conjugated and transposed as asked."""
    k = 1 if unit_diagonal else 0
    m = jnp.tril(m, -k) if lower else jnp.triu(m, k)
    m = jnp.conj(m) if conjugate_a else m
    return jnp.swapaxes(m, -1, -2) if transpose_a else m


jet_rules[la.triangular_solve_p] = _triangular_solve_rule


def _lu_rule(primals, series):
    """P A = L U with the pivots of A_0 kept: the t^k terms of ``L U`` give
    ``L_0 U_k + L_k U_0 = P A_k - sum_{j=1..k-1} L_j U_{k-j} =: R_k``, and
    ``M = L_0^-1 R_k U_0^-1`` splits into ``L_0^-1 L_k`` (strictly lower: L is unit
    lower triangular) plus ``U_k U_0^-1`` (upper)."""
    a, = primals
    m, n = a.shape[-2:]
    if m != n:
        raise NotImplementedError(f"jet: lu of a non-square {m}x{n} matrix has no series "
                                  f"rule yet (square matrices have one)")
    lu, pivots, perm = la.lu_p.bind(a)
    eye = jnp.eye(n, dtype=a.dtype)
    l0, u0 = jnp.tril(lu, -1) + eye, jnp.triu(lu)
    rows = jnp.broadcast_to(perm[..., None], a.shape)
    ls, us = [l0], [u0]
    for k, a_k in enumerate(series[0], 1):
        r = jnp.take_along_axis(a_k, rows, axis=-2)
        if k > 1:
            r = r - sum_terms(ls[j] @ us[k - j] for j in range(1, k))
        x = la.triangular_solve_p.bind(l0, r, left_side=True, lower=True, transpose_a=False,
                                       conjugate_a=False, unit_diagonal=True)
        x = la.triangular_solve_p.bind(u0, x, left_side=False, lower=False,
                                       transpose_a=False, conjugate_a=False,
                                       unit_diagonal=False)
        ls.append(l0 @ jnp.tril(x, -1))
        us.append(jnp.triu(x) @ u0)
    return [lu, pivots, perm], [[lk + uk for lk, uk in zip(ls[1:], us[1:])],
                                zero_series, zero_series]


jet_rules[la.lu_p] = _lu_rule


def _cholesky_rule(primals, series):
    """S = L L^H: ``L_0 L_k^H + L_k L_0^H = S_k - sum_{j=1..k-1} L_j L_{k-j}^H =: R_k``, so
    ``L_k = L_0 phi(L_0^-1 R_k L_0^-H)`` with phi the lower triangle, diagonal halved
    (the jvp's formula, Murray 2016, term by term). ``S_k`` is the Hermitian matrix of
    ``A_k``'s lower triangle: the factorization reads only that."""
    a, = primals
    l0 = la.cholesky_p.bind(a)
    ls = [l0]
    for k, a_k in enumerate(series[0], 1):
        r = _hermitian_from(a_k, lower=True)
        if k > 1:
            r = r - sum_terms(ls[j] @ _adjoint(ls[k - j]) for j in range(1, k))
        x = la.triangular_solve_p.bind(l0, r, left_side=False, lower=True, transpose_a=True,
                                       conjugate_a=True, unit_diagonal=False)
        x = la.triangular_solve_p.bind(l0, x, left_side=True, lower=True, transpose_a=False,
                                       conjugate_a=False, unit_diagonal=False)
        ls.append(l0 @ (jnp.tril(x, -1) + 0.5 * (x - jnp.tril(x, -1) - jnp.triu(x, 1))))
    return l0, ls[1:]


def _adjoint(m):
    return jnp.conj(jnp.swapaxes(m, -1, -2))


def _hermitian_from(g, lower):
    """The Hermitian matrix of ``g``'s lower (or upper) triangle: what a factorization
    that reads one triangle sees of ``g``; LAPACK takes the diagonal as real."""
    strict = jnp.tril(g, -1) if lower else jnp.triu(g, 1)
    diag = jnp.real(g - jnp.tril(g, -1) - jnp.triu(g, 1)).astype(g.dtype)
    return strict + _adjoint(strict) + diag


jet_rules[la.cholesky_p] = _cholesky_rule


def _eigh_rule(primals, series, *, lower):
    """A V = V diag(w), V^H V = I. With ``V_k = V_0 C_k``, the t^k terms of the first
    give ``w_k = diag(R_k)`` and ``(C_k)_ij = (R_k)_ij / (w_j - w_i)`` off the diagonal,
    ``R_k = sum_{j=1..k} (V_0^H A_j V_0) C_{k-j} - sum_{j=1..k-1} C_{k-j} diag(w_j)``
    (C_0 = I); the second and the jvp's phase convention fix diag(C_k)
    (:func:`_eigh_gauge`). Distinct eigenvalues, as the jvp."""
    a, = primals
    v0, w0 = la.eigh_p.bind(a, lower=lower)
    n = a.shape[-1]
    eye = jnp.eye(n, dtype=a.dtype)
    wc = w0.astype(a.dtype)
    inv_gap = 1 / (wc[..., None, :] - wc[..., :, None] + eye) - eye   # 1/(w_j - w_i)
    vh0 = _adjoint(v0)
    b = [vh0 @ _hermitian_from(t, lower) @ v0 for t in series[0]]
    cs, ws = [eye], [w0]
    for k in range(1, len(b) + 1):
        r = sum_terms(b[j - 1] @ cs[k - j] for j in range(1, k + 1))
        if k > 1:
            r = r - sum_terms(cs[k - j] * ws[j].astype(a.dtype)[..., None, :]
                              for j in range(1, k))
        ws.append(jnp.real(jnp.diagonal(r, axis1=-2, axis2=-1)))
        c = r * inv_gap
        if k > 1:
            c = c + _eigh_gauge(cs, k, eye)
        cs.append(c)
    return [v0, w0], [[v0 @ c for c in cs[1:]], ws[1:]]


def _eigh_gauge(cs, k, eye):
    """diag(C_k): its real part from V^H V = I, its imaginary part from the jvp's gauge
    along the curve, Im diag(V(t)^H V'(t)) = 0, whose t^(k-1) term is
    ``k Im diag(C_k) + Im diag(sum_{j=1..k-1} (k-j) C_j^H C_{k-j}) = 0``."""
    gram = sum_terms(_adjoint(cs[j]) @ cs[k - j] for j in range(1, k))
    diag = -0.5 * jnp.real(gram)
    if jnp.iscomplexobj(gram):
        weighted = sum_terms((k - j) * (_adjoint(cs[j]) @ cs[k - j]) for j in range(1, k))
        diag = diag - (1j / k) * jnp.imag(weighted)
    return (diag * eye).astype(eye.dtype)


jet_rules[la.eigh_p] = _eigh_rule
