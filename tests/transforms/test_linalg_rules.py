"""jvp, transpose and batching rules of dot_general and the linear-algebra primitives,
against float64 central finite differences (check_grads) and Python loops over the
batch (check_vmap); gradients of jnp programs (matmul, einsum, jnp.linalg) and
per-example gradients of a linear model (vmap(grad) vs a loop)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.lax import linalg as lax_linalg
from tjit.primitives import dot as pd
from tjit.primitives import linalg as pl
from tjit.primitives.rules import UndefinedPrimal
from tjit.tracing.avals import ShapedArray
from tests.transforms.check import check_grads, check_vmap


def _r(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape)


def _spd(seed, *shape):
    a = _r(seed, *shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _well_conditioned(seed, *shape):
    return _r(seed, *shape) + 3 * np.eye(shape[-1])


# -- dot_general ----------------------------------------------------------------------------
DOTS = [  # lhs shape, rhs shape, dimension numbers
    ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),           # matmul
    ((4, 3), (4, 5), (((0,), (0,)), ((), ()))),           # x^T y
    ((3,), (3,), (((0,), (0,)), ((), ()))),               # inner product
    ((3,), (2,), (((), ()), ((), ()))),                   # outer product
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),  # batched matmul
    ((3, 2, 4), (4, 5, 2), (((2,), (0,)), ((1,), (2,)))),  # batch dims not leading
    ((3, 4, 6), (6, 4), (((1, 2), (1, 0)), ((), ()))),     # two contracting dims, swapped
]


@pytest.mark.parametrize("lshape,rshape,dn", DOTS, ids=str)
def test_dot_general_grads(lshape, rshape, dn):
    f = lambda a, b: lax.dot_general(a, b, dn)
    check_grads(f, (_r(0, *lshape), _r(1, *rshape)), order=2)
    check_grads(lambda a: f(a, a), (_r(0, *lshape),)) if lshape == rshape else None


@pytest.mark.parametrize("lshape,rshape,dn", DOTS, ids=str)
def test_dot_general_vmap(lshape, rshape, dn):
    f = lambda a, b: lax.dot_general(a, b, dn)
    for ax in range(len(lshape) + 1):  # lhs only: becomes a free dim
        lb = _r(2, *(lshape[:ax] + (3,) + lshape[ax:]))
        check_vmap(f, (lb, _r(3, *rshape)), in_axes=(ax, None))
        for bx in range(len(rshape) + 1):  # both: a new batch dim
            rb = _r(4, *(rshape[:bx] + (3,) + rshape[bx:]))
            check_vmap(f, (lb, rb), in_axes=(ax, bx))
    for bx in range(len(rshape) + 1):  # rhs only
        rb = _r(5, *(rshape[:bx] + (3,) + rshape[bx:]))
        check_vmap(f, (_r(6, *lshape), rb), in_axes=(None, bx), out_axes=-1)


def test_dot_general_vmap_folds_into_one_dot():
    f = tjit.vmap(lambda a, b: a @ b, in_axes=(0, None))
    jaxpr = tjit.make_jaxpr(f)(np.ones((5, 3, 4), np.float32), np.ones((4, 2), np.float32))
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert names.count("dot_general") == 1 and "while" not in names and "scan" not in names


def test_dot_general_nested_vmap_and_grad_of_vmap():
    a, b = _r(7, 2, 3, 4, 5), _r(8, 3, 5, 2)
    f = lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())))
    got = tjit.vmap(tjit.vmap(f, in_axes=(0, 0)), in_axes=(0, None))(a, b)
    want = np.einsum("xyij,yjk->xyik", a, b)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    check_grads(lambda a, b: tjit.vmap(f, in_axes=(1, 0))(a, b), (np.moveaxis(a[0], 0, 1), b))


def test_dot_general_preferred_element_type_cotangent_dtypes(x64):
    a, b = _r(9, 3, 4).astype(np.float32), _r(10, 4, 2).astype(np.float32)
    f = lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                                     preferred_element_type=np.float64)
    out, vjp = tjit.vjp(f, a, b)
    assert out.dtype == np.float64
    ga, gb = vjp(jnp.ones((3, 2), np.float64))
    assert ga.dtype == np.float32 and gb.dtype == np.float32
    np.testing.assert_allclose(np.asarray(ga), np.ones((3, 2)) @ b.T, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gb), a.T @ np.ones((3, 2)), rtol=1e-6)


# -- factorizations: primitive-level grads -----------------------------------------------------
def _tri(seed, n, lower):
    t = np.tril(_r(seed, n, n)) + n * np.eye(n)
    return t if lower else t.T


TRI_FLAGS = [(l, lo, t, u) for l in (True, False) for lo in (True, False)
             for t in (True, False) for u in (True, False)]


@pytest.mark.parametrize("left,lower,trans,unit", TRI_FLAGS)
def test_triangular_solve_grads(left, lower, trans, unit):
    a = _tri(11, 4, lower) + np.triu(_r(12, 4, 4), 1) * (1 if lower else 0)  # junk unread
    b = _r(13, 4, 3) if left else _r(13, 3, 4)
    f = lambda a, b: lax_linalg.triangular_solve(a, b, left_side=left, lower=lower,
                                                 transpose_a=trans, unit_diagonal=unit)
    check_grads(f, (a, b), order=2 if (left and lower) else 1)


def test_triangular_solve_tall_and_wide_rhs():
    a = _tri(14, 3, True)
    for b in (_r(15, 3, 7), _r(15, 3, 1)):
        check_grads(lambda a, b: lax_linalg.triangular_solve(a, b, left_side=True, lower=True),
                    (a, b))
    for b in (_r(16, 7, 3), _r(16, 1, 3)):
        check_grads(lambda a, b: lax_linalg.triangular_solve(a, b, lower=True), (a, b))


FACTORIZATIONS = {
    "cholesky": (lambda x: pl.cholesky_p.bind(x), lambda s: _spd(s, 4, 4)),
    "cholesky_batched": (lambda x: pl.cholesky_p.bind(x), lambda s: _spd(s, 2, 3, 3)),
    "cholesky_lax": (lambda x: lax_linalg.cholesky(x), lambda s: _spd(s, 3, 3)),
    "qr_tall": (lambda x: lax_linalg.qr(x, full_matrices=False), lambda s: _r(s, 5, 3)),
    "qr_square_full": (lambda x: lax_linalg.qr(x), lambda s: _r(s, 2, 3, 3)),
    "qr_tall_full": (lambda x: lax_linalg.qr(x, full_matrices=True), lambda s: _r(s, 5, 3)),
    "svd_values": (lambda x: lax_linalg.svd(x, compute_uv=False), lambda s: _r(s, 5, 3)),
    "svd_values_full": (lambda x: lax_linalg.svd(x, compute_uv=False, full_matrices=True),
                        lambda s: _r(s, 3, 5)),
    "svd_tall": (lambda x: lax_linalg.svd(x, full_matrices=False), lambda s: _r(s, 5, 3)),
    "svd_wide": (lambda x: lax_linalg.svd(x, full_matrices=False), lambda s: _r(s, 3, 5)),
    "svd_square": (lambda x: lax_linalg.svd(x), lambda s: _r(s, 2, 3, 3)),
    "eigh_lower": (lambda x: pl.eigh_p.bind(x, lower=True), lambda s: _r(s, 4, 4)),
    "eigh_upper": (lambda x: pl.eigh_p.bind(x, lower=False), lambda s: _r(s, 2, 3, 3)),
    "lu_square": (lambda x: lax_linalg.lu(x)[0], lambda s: _r(s, 4, 4)),
    "lu_wide": (lambda x: lax_linalg.lu(x)[0], lambda s: _r(s, 3, 5)),
    "lu_tall": (lambda x: lax_linalg.lu(x)[0], lambda s: _r(s, 2, 5, 3)),
}


@pytest.mark.parametrize("name", sorted(FACTORIZATIONS))
def test_factorization_grads(name):
    f, make = FACTORIZATIONS[name]
    check_grads(f, (make(17),), order=2 if name in ("cholesky", "eigh_lower") else 1)


@pytest.mark.parametrize("name", sorted(FACTORIZATIONS))
def test_factorization_vmap(name):
    f, make = FACTORIZATIONS[name]
    x = np.stack([make(s) for s in (18, 19, 20)])
    check_vmap(f, (x,), rtol=1e-5, atol=1e-5)
    check_vmap(f, (np.moveaxis(x, 0, 1),), in_axes=1, out_axes=1, rtol=1e-5, atol=1e-5)


def test_triangular_solve_vmap():
    a = np.stack([_tri(s, 3, True) for s in (21, 22)])
    b = _r(23, 2, 3, 4)
    f = lambda a, b: lax_linalg.triangular_solve(a, b, left_side=True, lower=True,
                                                 transpose_a=True)
    check_vmap(f, (a, b), in_axes=(0, 0))
    check_vmap(f, (a, b[0]), in_axes=(0, None))
    check_vmap(f, (a[0], np.moveaxis(b, 0, 2)), in_axes=(None, 2))
    nested = tjit.vmap(tjit.vmap(f, in_axes=(None, 0)), in_axes=(0, None))
    got = nested(a, b)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(np.asarray(got)[i, j], np.linalg.solve(a[i].T, b[j]),
                                       rtol=1e-5, atol=1e-5)


def test_lu_pivots_are_not_differentiable():
    x = _r(24, 4, 4)
    _, (t_lu, t_piv, t_perm) = tjit.jvp(lambda x: lax_linalg.lu(x), (x,), (np.ones_like(x),))
    assert not np.any(np.asarray(t_piv)) and not np.any(np.asarray(t_perm))
    assert pl.lu_pivots_to_permutation_p.not_differentiable
    piv = np.array([[2, 2, 3], [1, 1, 2]], np.int32)
    f = lambda p: lax_linalg.lu_pivots_to_permutation(p, 4)
    check_vmap(f, (piv,))
    got = tjit.vmap(f, in_axes=1, out_axes=1)(piv.T)
    np.testing.assert_array_equal(np.asarray(got).T, np.asarray(f(piv)))


def test_derivatives_that_are_not_implemented_say_so():
    with pytest.raises(NotImplementedError, match="svd.*full_matrices=False"):
        tjit.jvp(lambda x: lax_linalg.svd(x), (_r(25, 5, 3),), (_r(26, 5, 3),))
    undefined_a = UndefinedPrimal(ShapedArray((3, 3), np.dtype(np.float32)))
    with pytest.raises(ValueError, match="triangular_solve is not linear in `a`"):
        pl.triangular_solve_p.transpose(jnp.ones((3, 3)), undefined_a,
                                        jnp.ones((3, 3)), left_side=True, lower=True,
                                        transpose_a=False, conjugate_a=False,
                                        unit_diagonal=False)


def _complex_fd_check(f, x, t, eps=1e-6, tol=1e-6):
    """jvp of ``f`` at complex ``x`` along complex ``t`` vs central differences."""
    _, jv = tjit.jvp(f, (jnp.asarray(x),), (jnp.asarray(t),))
    hi, lo = f(jnp.asarray(x + eps * t)), f(jnp.asarray(x - eps * t))
    for a, h, l in zip(*(v if isinstance(v, (list, tuple)) else [v] for v in (jv, hi, lo))):
        np.testing.assert_allclose(np.asarray(a), (np.asarray(h) - np.asarray(l)) / (2 * eps),
                                   rtol=tol, atol=tol)


def test_complex_jvps(x64):
    rng = np.random.default_rng(48)
    c = lambda *s: rng.standard_normal(s) + 1j * rng.standard_normal(s)
    a = c(3, 3)
    herm = a @ a.conj().T + 3 * np.eye(3)
    # a non-Hermitian tangent: the primitive reads the lower triangle (real diagonal)
    _complex_fd_check(lambda x: pl.cholesky_p.bind(x), herm, c(3, 3))
    _complex_fd_check(lambda x: pl.eigh_p.bind(x, lower=True)[1], herm, c(3, 3))
    _complex_fd_check(lambda x: lax_linalg.qr(x, full_matrices=False), c(4, 3), c(4, 3))
    _complex_fd_check(lambda x: lax_linalg.qr(x, full_matrices=True), c(4, 2), c(4, 2))
    _complex_fd_check(lambda x: lax_linalg.svd(x, compute_uv=False), c(4, 3), c(4, 3))
    _complex_fd_check(lambda x: lax_linalg.lu(x)[0], c(3, 3), c(3, 3))
    _complex_fd_check(jnp.linalg.det, c(3, 3), c(3, 3))
    b = jnp.asarray(c(3, 2))
    for trans in (False, True):
        for conj in (False, True):
            _complex_fd_check(lambda x: lax_linalg.triangular_solve(
                x, b, left_side=True, lower=True, transpose_a=trans, conjugate_a=conj),
                np.tril(c(3, 3)) + 3 * np.eye(3), c(3, 3))


def test_symbolic_shapes():
    x = 2 * np.eye(3, dtype=np.float32)
    for f in (jnp.linalg.det, lambda x: jnp.sum(jnp.linalg.inv(x)),
              lambda x: jnp.sum(jnp.linalg.cholesky(x)), lambda x: jnp.sum(x @ x)):
        jaxpr = tjit.make_jaxpr(tjit.grad(f), polymorphic_shapes=["(n, n)"])(x)
        assert "n" in str(jaxpr.jaxpr.outvars[0].aval.shape)
    grad_det = tjit.jit(tjit.vmap(tjit.grad(jnp.linalg.det)), polymorphic_shapes=["(b, 3, 3)"])
    for b in (2, 4):
        a = np.stack([_well_conditioned(s, 3, 3) for s in range(b)]).astype(np.float32)
        want = np.linalg.det(a)[:, None, None] * np.linalg.inv(a).transpose(0, 2, 1)
        np.testing.assert_allclose(np.asarray(grad_det(a)), want, rtol=1e-4, atol=1e-4)


def test_rules_are_complete():
    for p in (pd.dot_general_p, pl.cholesky_p, pl.qr_p, pl.svd_p, pl.eigh_p, pl.lu_p,
              pl.lu_pivots_to_permutation_p, pl.triangular_solve_p):
        assert p.jvp is not None and p.batch is not None, p
    assert pd.dot_general_p.transpose is not None and pl.triangular_solve_p.transpose


# -- jnp programs ---------------------------------------------------------------------------------
JNP_PROGRAMS = {  # name: (function, argument makers, order)
    "matmul": (jnp.matmul, (lambda: _r(27, 3, 4), lambda: _r(28, 4, 2)), 2),
    "matmul_batched": (jnp.matmul, (lambda: _r(27, 2, 3, 4), lambda: _r(28, 4, 2)), 1),
    "matvec": (lambda a, b: a @ b, (lambda: _r(27, 3, 4), lambda: _r(28, 4)), 1),
    "einsum": (lambda a, b: jnp.einsum("bij,bjk->bik", a, b),
               (lambda: _r(29, 2, 3, 4), lambda: _r(30, 2, 4, 2)), 2),
    "einsum_trace": (lambda a, b: jnp.einsum("ij,jk,ki->", a, b, a.T),
                     (lambda: _r(29, 3, 4), lambda: _r(30, 4, 4)), 1),
    "det": (jnp.linalg.det, (lambda: _r(31, 3, 3),), 2),
    "det_batched": (jnp.linalg.det, (lambda: _r(31, 2, 4, 4),), 1),
    "slogdet": (lambda x: jnp.linalg.slogdet(x).logabsdet, (lambda: _r(32, 4, 4),), 1),
    "inv": (jnp.linalg.inv, (lambda: _well_conditioned(33, 3, 3),), 1),
    "solve": (jnp.linalg.solve, (lambda: _well_conditioned(34, 3, 3), lambda: _r(35, 3)), 1),
    "solve_matrix": (jnp.linalg.solve, (lambda: _well_conditioned(34, 2, 3, 3),
                                        lambda: _r(35, 2, 3, 2)), 1),
    "cholesky": (jnp.linalg.cholesky, (lambda: _spd(36, 3, 3),), 1),
    "eigh": (jnp.linalg.eigh, (lambda: _r(37, 3, 3),), 1),
    "eigvalsh": (jnp.linalg.eigvalsh, (lambda: _r(37, 4, 4),), 1),
    "svd": (lambda x: jnp.linalg.svd(x, full_matrices=False), (lambda: _r(38, 4, 3),), 1),
    "svdvals": (lambda x: jnp.linalg.svd(x, compute_uv=False), (lambda: _r(38, 3, 4),), 1),
    "qr": (jnp.linalg.qr, (lambda: _r(39, 4, 3),), 1),
    "norm_fro": (jnp.linalg.norm, (lambda: _r(40, 4, 3),), 1),
    "norm_2": (lambda x: jnp.linalg.norm(x, ord=2), (lambda: _r(40, 4, 3),), 1),
    "norm_nuc": (lambda x: jnp.linalg.norm(x, ord="nuc"), (lambda: _r(40, 4, 3),), 1),
    "pinv": (jnp.linalg.pinv, (lambda: _r(41, 4, 3),), 1),
}


@pytest.mark.parametrize("name", sorted(JNP_PROGRAMS))
def test_jnp_linalg_grads(name):
    f, makers, order = JNP_PROGRAMS[name]
    check_grads(f, tuple(m() for m in makers), order=order)


def test_det_gradient_is_cofactor_matrix():
    a = _r(42, 4, 4)
    g = tjit.jit(tjit.grad(jnp.linalg.det))(a.astype(np.float32))
    want = np.linalg.det(a) * np.linalg.inv(a).T
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-4, atol=1e-4)


def test_jnp_linalg_vmap():
    a = np.stack([_well_conditioned(s, 3, 3) for s in (43, 44, 45)])
    b = _r(46, 3, 3)
    check_vmap(jnp.linalg.det, (a,), rtol=1e-5, atol=1e-5)
    check_vmap(jnp.linalg.solve, (a, b), rtol=1e-5, atol=1e-5)
    check_vmap(jnp.linalg.solve, (a[0], b), in_axes=(None, 0), rtol=1e-5, atol=1e-5)
    check_vmap(jnp.linalg.inv, (np.moveaxis(a, 0, 2),), in_axes=2, rtol=1e-5, atol=1e-5)
    check_vmap(tjit.grad(jnp.linalg.det), (a,), rtol=1e-4, atol=1e-4)


def test_per_example_gradients_of_a_linear_model():
    """vmap(grad) over examples equals a Python loop of grads (and the closed form)."""
    rng = np.random.default_rng(47)
    x = rng.standard_normal((8, 5)).astype(np.float32)
    y = rng.standard_normal(8).astype(np.float32)
    params = (rng.standard_normal(5).astype(np.float32), np.float32(0.3))

    def loss(params, xi, yi):
        w, b = params
        return (jnp.dot(xi, w) + b - yi) ** 2
    per_example = tjit.jit(tjit.vmap(tjit.grad(loss), in_axes=(None, 0, 0)))
    gw, gb = per_example(params, x, y)
    assert gw.shape == (8, 5) and gb.shape == (8,)
    for i in range(8):
        lw, lb = tjit.grad(loss)(params, x[i], y[i])
        np.testing.assert_allclose(np.asarray(gw)[i], np.asarray(lw), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(gb)[i], np.asarray(lb), rtol=1e-5, atol=1e-6)
    resid = x @ params[0] + params[1] - y
    np.testing.assert_allclose(np.asarray(gw), 2 * resid[:, None] * x, rtol=1e-5, atol=1e-5)
    # the matrix form: a batch of (1, 5) @ (5,) products folds into one dot_general
    jaxpr = tjit.make_jaxpr(tjit.vmap(tjit.grad(loss), in_axes=(None, 0, 0)))(params, x, y)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert "dot_general" in names and "while" not in names and "scan" not in names
