"""dot_general and the factorization primitives (cholesky, qr, svd, eigh, lu,
lu_pivots_to_permutation, triangular_solve): op records against independent
references (np.einsum for contractions, Python-loop LU, explicit triangles solved with
np.linalg.solve, reconstructions for factorizations with sign freedom), symbolic shape
rules and error messages."""

import itertools
import string

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.lax import linalg as lax_linalg
from tjit.primitives import linalg as pl
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import symbol
from tests.primitives.harness import OpRecord, check_record

F32, F64, I32, I8, BOOL, C64, F16 = ("float32", "float64", "int32", "int8", "bool",
                                     "complex64", "float16")

RECORDS = []


def rec(name, fn, ref, args, prims, **kw):
    RECORDS.append(OpRecord(name, fn, ref, tuple(args), tuple(prims), **kw))


# -- references ------------------------------------------------------------------------------
def np_dot_general(lhs, rhs, dn, out_dtype=None):
    """dot_general through np.einsum with letters (batch, lhs free, rhs free)."""
    (lc, rc), (lb, rb) = dn
    letters = iter(string.ascii_letters)
    ll = [next(letters) for _ in range(lhs.ndim)]
    rl = [next(letters) for _ in range(rhs.ndim)]
    for a, b in list(zip(lc, rc)) + list(zip(lb, rb)):
        rl[b] = ll[a]
    out = [ll[i] for i in lb] + [ll[i] for i in range(lhs.ndim) if i not in lc + lb] + \
        [rl[i] for i in range(rhs.ndim) if i not in rc + rb]
    dt = out_dtype or lhs.dtype
    if dt == np.bool_:
        res = np.einsum(f"{''.join(ll)},{''.join(rl)}->{''.join(out)}",
                        lhs.astype(np.int64), rhs.astype(np.int64)) != 0
        return res
    return np.einsum(f"{''.join(ll)},{''.join(rl)}->{''.join(out)}", lhs.astype(np.float64)
                     if lhs.dtype.kind == "f" else lhs.astype(dt),
                     rhs.astype(np.float64) if rhs.dtype.kind == "f" else rhs.astype(dt))


def dg(dn, pref=None):
    return lambda x, y: lax.dot_general(x, y, dn, preferred_element_type=pref)


def dg_ref(dn, pref=None):
    return lambda x, y: np_dot_general(x, y, dn, None if pref is None else np.dtype(pref))


def _dot_case(name, ls, rs, dn, dtype=F32, pref=None, tol=1e-5):
    rec(f"dot_general_{name}_{dtype}", dg(dn, pref), dg_ref(dn, pref),
        [(ls, dtype), (rs, dtype)], ["dot_general"], rtol=tol, atol=tol)


NOB = ((), ())
_dot_case("mm", (3, 4), (4, 5), (((1,), (0,)), NOB))
_dot_case("vv", (7,), (7,), (((0,), (0,)), NOB))
_dot_case("mv", (3, 4), (4,), (((1,), (0,)), NOB))
_dot_case("vm", (4,), (4, 5), (((0,), (0,)), NOB))
_dot_case("batch_leading", (2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,))))
_dot_case("batch_middle", (3, 2, 4), (4, 5, 2), (((2,), (0,)), ((1,), (2,))))
_dot_case("two_contract", (3, 4, 5), (5, 6, 4), (((1, 2), (2, 0)), NOB))
_dot_case("outer", (3,), (4,), (((), ()), NOB))
_dot_case("outer_batch", (2, 3), (2, 4), (((), ()), ((0,), (0,))))
_dot_case("multi_batch", (2, 3, 4, 5), (3, 2, 5, 6), (((3,), (2,)), ((0, 1), (1, 0))))
_dot_case("contract_first", (4, 3), (4, 5), (((0,), (0,)), NOB))
_dot_case("scalars", (), (), (((), ()), NOB))
_dot_case("empty_contract", (3, 0), (0, 2), (((1,), (0,)), NOB))
_dot_case("mm", (3, 4), (4, 5), (((1,), (0,)), NOB), dtype=F64, tol=1e-12)
_dot_case("batch_middle", (3, 2, 4), (4, 5, 2), (((2,), (0,)), ((1,), (2,))), dtype=F64,
          tol=1e-12)
_dot_case("mm", (3, 4), (4, 5), (((1,), (0,)), NOB), dtype=I32)
_dot_case("batch_leading", (2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,))), dtype=I32)
_dot_case("mm", (3, 4), (4, 5), (((1,), (0,)), NOB), dtype=BOOL)
_dot_case("two_contract", (3, 4, 5), (5, 6, 4), (((1, 2), (2, 0)), NOB), dtype=BOOL)
_dot_case("mm", (3, 4), (4, 5), (((1,), (0,)), NOB), dtype=C64)
# int8 x int8 accumulates in int32 (64 products of up to 100 overflow int8).
_dot_case("mm_pref", (3, 64), (64, 5), (((1,), (0,)), NOB), dtype=I8, pref=I32)
_dot_case("mm_pref", (3, 8), (8, 5), (((1,), (0,)), NOB), dtype=F16, pref=F32, tol=1e-3)
_dot_case("mm_pref_float", (3, 64), (64, 5), (((1,), (0,)), NOB), dtype=I8, pref=F32)


# -- factorizations -----------------------------------------------------------------------------
def spd(rng, shape):
    """Well-conditioned Hermitian positive-definite matrices."""
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def spd_complex(rng, shape):
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])


def well_conditioned(rng, shape):
    return rng.standard_normal(shape) + 2 * shape[-1] * np.eye(shape[-1])


for shape, dtype, kind, tol in [((4, 4), F64, spd, 1e-10), ((2, 3, 5, 5), F64, spd, 1e-10),
                                ((3, 3), F32, spd, 1e-4), ((4, 4), C64, spd_complex, 1e-4)]:
    rec(f"cholesky_{shape}_{dtype}", lambda x: lax_linalg.cholesky(x, symmetrize_input=False),
        np.linalg.cholesky, [(shape, dtype, kind)], ["cholesky"], rtol=tol, atol=tol)


def _hermitian_t(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _qr_check(full):
    def fn(x):
        q, r = lax_linalg.qr(x, full_matrices=full)
        return q @ r, _hermitian_t(q) @ q, jnp.tril(r, -1)

    def ref(x):
        m, n = x.shape[-2:]
        k = m if full else min(m, n)
        return x, np.broadcast_to(np.eye(k), x.shape[:-2] + (k, k)), \
            np.zeros(x.shape[:-2] + (k, n))
    return fn, ref


for shape, dtype, full in itertools.product([(4, 4), (5, 3), (3, 5), (2, 4, 3)], [F64, C64],
                                            [True, False]):
    tol = 1e-10 if dtype == F64 else 1e-4
    fn, ref = _qr_check(full)
    rec(f"qr_{shape}_{dtype}_full{full}", fn, ref, [(shape, dtype)], ["qr", "dot_general"],
        rtol=tol, atol=tol)


def _svd_check(full):
    def fn(x):
        u, s, vt = lax_linalg.svd(x, full_matrices=full)
        k = s.shape[-1]
        us = u[..., :, :k] * s[..., None, :].astype(u.dtype)
        return s, us @ vt[..., :k, :], _hermitian_t(u) @ u, vt @ _hermitian_t(vt)

    def ref(x):
        m, n = x.shape[-2:]
        ku, kv = (m, n) if full else (min(m, n),) * 2
        b = x.shape[:-2]
        return (np.linalg.svd(x.astype(np.complex128), compute_uv=False), x,
                np.broadcast_to(np.eye(ku), b + (ku, ku)),
                np.broadcast_to(np.eye(kv), b + (kv, kv)))
    return fn, ref


for shape, dtype, full in itertools.product([(4, 4), (5, 3), (3, 5), (2, 4, 3)], [F64, C64],
                                            [True, False]):
    tol = 1e-10 if dtype == F64 else 1e-4
    fn, ref = _svd_check(full)
    rec(f"svd_{shape}_{dtype}_full{full}", fn, ref, [(shape, dtype)], ["svd", "dot_general"],
        rtol=tol, atol=tol)
rec("svd_values_only", lambda x: lax_linalg.svd(x, compute_uv=False),
    lambda x: np.linalg.svd(x.astype(np.float64), compute_uv=False), [((3, 5, 4), F32)],
    ["svd"], rtol=1e-5, atol=1e-5)


def _eigh_check(lower):
    def fn(x):
        v, w = lax_linalg.eigh(x, lower=lower, symmetrize_input=False)
        return w, (v * w[..., None, :].astype(v.dtype)) @ _hermitian_t(v)

    def ref(x):
        # The Hermitian matrix LAPACK sees: one triangle, mirrored; a real diagonal.
        off = np.tril(x, -1) if lower else np.triu(x, 1)
        d = np.real(np.diagonal(x, axis1=-2, axis2=-1))
        h = off + np.conj(np.swapaxes(off, -1, -2)) + d[..., None] * np.eye(x.shape[-1])
        return np.linalg.eigvalsh(h), h
    return fn, ref


for shape, dtype, lower in itertools.product([(4, 4), (2, 3, 3)], [F64, C64], [True, False]):
    tol = 1e-10 if dtype == F64 else 1e-4
    fn, ref = _eigh_check(lower)
    rec(f"eigh_{shape}_{dtype}_lower{lower}", fn, ref, [(shape, dtype)], ["eigh", "dot_general"],
        rtol=tol, atol=tol)


def np_lu(a):
    """Doolittle LU with partial pivoting (first largest |pivot|), one matrix at a time."""
    a = np.array(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    lus, pivs, perms = [], [], []
    for mat in a.reshape((-1, m, n)):
        mat, perm, piv = mat.copy(), list(range(m)), []
        for j in range(k):
            p = j + int(np.argmax(np.abs(mat[j:, j])))
            piv.append(p)
            mat[[j, p]] = mat[[p, j]]
            perm[j], perm[p] = perm[p], perm[j]
            if mat[j, j] != 0:
                mat[j + 1:, j] /= mat[j, j]
            mat[j + 1:, j + 1:] -= np.outer(mat[j + 1:, j], mat[j, j + 1:])
        lus.append(mat)
        pivs.append(piv)
        perms.append(perm)
    return (np.reshape(lus, a.shape), np.reshape(pivs, batch + (k,)).astype(np.int32),
            np.reshape(perms, batch + (m,)).astype(np.int32))


for shape, dtype in [((4, 4), F64), ((2, 3, 5, 5), F64), ((5, 3), F64), ((3, 5), F64),
                     ((4, 4), F32), ((3, 3), C64)]:
    tol = 1e-10 if dtype == F64 else 1e-4
    rec(f"lu_{shape}_{dtype}", lax_linalg.lu, np_lu, [(shape, dtype)], ["lu"], rtol=tol,
        atol=tol)


def np_pivots_to_perm(piv, m):
    out = []
    for p in piv.reshape((-1, piv.shape[-1])):
        perm = list(range(m))
        for i, j in enumerate(p):
            perm[i], perm[j] = perm[j], perm[i]
        out.append(perm)
    return np.asarray(out, np.int32).reshape(piv.shape[:-1] + (m,))


def _pivots(rng, shape):
    k = shape[-1]
    return np.stack([rng.integers(i, 6, size=shape[:-1]) for i in range(k)], -1)


rec("lu_pivots_to_permutation", lambda p: lax_linalg.lu_pivots_to_permutation(p, 6),
    lambda p: np_pivots_to_perm(p, 6), [((2, 4), I32, _pivots)], ["lu_pivots_to_permutation"])


def np_triangular_solve(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        t = t - np.diag(np.diag(t)) + np.eye(a.shape[-1])
    if transpose_a:
        t = t.T
    if conjugate_a:
        t = np.conj(t)
    dt = np.result_type(t, b, np.float64)
    t, b = t.astype(dt), b.astype(dt)
    return np.linalg.solve(t, b) if left_side else np.linalg.solve(t.T, b.T).T


for flags in itertools.product([True, False], repeat=5):
    left, lower, trans, conj, unit = flags
    names = ["left" if left else "right", "lower" if lower else "upper"] + \
        [n for n, f in zip(("T", "conj", "unit"), (trans, conj, unit)) if f]
    rec("triangular_solve_" + "_".join(names),
        lambda a, b, f=flags: lax_linalg.triangular_solve(
            a, b, left_side=f[0], lower=f[1], transpose_a=f[2], conjugate_a=f[3],
            unit_diagonal=f[4]),
        lambda a, b, f=flags: np_triangular_solve(a, b, *f),
        [((4, 4), C64, well_conditioned), ((4, 3) if left else (3, 4), C64)],
        ["triangular_solve"], rtol=1e-4, atol=1e-4)


def _batched_tri_ref(a, b):
    return np.stack([np_triangular_solve(x, y, True, True, False, False, False)
                     for x, y in zip(a, b)])


rec("triangular_solve_batched_f64",
    lambda a, b: lax_linalg.triangular_solve(a, b, left_side=True, lower=True),
    _batched_tri_ref, [((3, 5, 5), F64, well_conditioned), ((3, 5, 2), F64)],
    ["triangular_solve"], rtol=1e-10, atol=1e-10)


def _uses_f64(record):
    return any(isinstance(s, tuple) and len(s) > 1 and s[1] == F64 for s in record.args)


@pytest.mark.parametrize("record", RECORDS, ids=str)
def test_op_record(record, request):
    if _uses_f64(record):
        request.getfixturevalue("x64")
    check_record(record)


# -- dot_general details -------------------------------------------------------------------------
def test_dot_general_records_cover_dtypes():
    names = " ".join(r.name for r in RECORDS)
    for dt in (F32, F64, I32, BOOL, C64, I8, F16):
        assert f"_{dt}" in names


def test_dot_general_bool_is_any_of_and():
    a = np.array([[True, False, False], [False, False, False]])
    b = np.array([[False], [True], [True]])
    out = lax.dot_general(jnp.asarray(a), jnp.asarray(b), (((1,), (0,)), ((), ())))
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, [[False], [False]])
    b2 = np.array([[True], [True], [True]])
    np.testing.assert_array_equal(lax.dot_general(a, b2, (((1,), (0,)), ((), ()))),
                                  [[True], [False]])


def test_dot_general_int_wraps_like_xla():
    a = np.full((1, 200), 100, np.int8)
    out = lax.dot_general(jnp.asarray(a), jnp.asarray(a), (((1,), (1,)), ((), ())))
    assert out.dtype == np.int8
    assert int(out[0, 0]) == np.int8(np.int64(100 * 100 * 200).astype(np.int8))
    wide = lax.dot_general(a, a, (((1,), (1,)), ((), ())), preferred_element_type=jnp.int32)
    assert wide.dtype == np.int32 and int(wide[0, 0]) == 2_000_000


def test_dot_general_impl_uses_matmul(monkeypatch):
    calls = []
    real = np.matmul
    monkeypatch.setattr(np, "matmul", lambda *a, **k: calls.append(1) or real(*a, **k))
    x = np.ones((2, 3, 4), np.float32)
    out = pl.dot_general_p.impl(np, x, x, dimension_numbers=(((2,), (2,)), ((0,), (0,))))
    assert calls == [1] and out.shape == (2, 3, 3)


def test_dot_general_weak_type():
    weak, strong = jnp.asarray(2.0), jnp.asarray(3.0, jnp.float32)
    assert weak.weak_type and not strong.weak_type
    scalars = (((), ()), ((), ()))
    assert lax.dot_general(weak, weak, scalars).weak_type
    assert not lax.dot_general(weak, strong, scalars).weak_type
    assert not lax.dot_general(weak, weak, scalars, preferred_element_type=jnp.float32).weak_type


def test_lax_dot_and_batch_matmul(rng):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    a, b = a.astype(np.float32), b.astype(np.float32)
    np.testing.assert_allclose(lax.dot(a, b), a @ b, rtol=1e-5)
    np.testing.assert_allclose(lax.dot(a[0], b), a[0] @ b, rtol=1e-5)
    np.testing.assert_allclose(lax.dot(a, b[:, 0]), a @ b[:, 0], rtol=1e-5)
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    np.testing.assert_allclose(lax.batch_matmul(x.astype(np.float32), y.astype(np.float32)),
                               x @ y, rtol=1e-5, atol=1e-5)
    with pytest.raises(ShapeError, match=r"dot: operands must have rank 1 or 2.*\(2, 3, 4\)"):
        lax.dot(x, y)
    with pytest.raises(ShapeError, match=r"batch_matmul: .*equal ranks"):
        lax.batch_matmul(x, y[0])


def test_precision_param_is_canonical():
    j = tjit.make_jaxpr(lambda x: lax.dot(x, x, precision="highest"))(np.ones(3, np.float32))
    assert j.jaxpr.eqns[0].params["precision"] == lax.Precision.HIGHEST
    j = tjit.make_jaxpr(lambda x: lax.dot(x, x, precision=(lax.Precision.HIGH, "default")))(
        np.ones(3, np.float32))
    assert j.jaxpr.eqns[0].params["precision"] == (lax.Precision.HIGH, lax.Precision.DEFAULT)
    with pytest.raises(ValueError, match="unknown precision"):
        lax.dot(np.ones(3), np.ones(3), precision="fast")


def test_dot_general_negative_dims_are_normalized():
    j = tjit.make_jaxpr(lambda x, y: lax.dot_general(x, y, (((-1,), (0,)), ((), ()))))(
        np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))
    assert j.jaxpr.eqns[0].params["dimension_numbers"] == (((1,), (0,)), ((), ()))


# -- symbolic shapes ------------------------------------------------------------------------------
def test_dot_general_symbolic_shapes():
    b = symbol("b")
    closed = tjit.make_jaxpr(lambda x, w: lax.dot(x, w), polymorphic_shapes=["(b, 3)", None])(
        np.ones((5, 3), np.float32), np.ones((3, 10), np.float32))
    assert closed.out_avals[0].shape == (b, 10)
    assert closed.jaxpr.eqns[0].primitive is pl.dot_general_p
    dn = (((2,), (1,)), ((0,), (0,)))
    closed = tjit.make_jaxpr(lambda x, y: lax.dot_general(x, y, dn),
                             polymorphic_shapes=["(b, n, k)", "(b, k, 2*n)"])(
        np.ones((2, 3, 4), np.float32), np.ones((2, 4, 6), np.float32))
    n = symbol("n")
    assert closed.out_avals[0].shape == (b, n, 2 * n)


def test_dot_general_polymorphic_jit_runs_many_sizes(rng):
    f = tjit.jit(lambda x, w: lax.dot(x, w), polymorphic_shapes=["(b, 3)", None])
    w = rng.standard_normal((3, 4)).astype(np.float32)
    for nb in (1, 5, 9):
        x = rng.standard_normal((nb, 3)).astype(np.float32)
        np.testing.assert_allclose(f(x, w), x @ w, rtol=1e-5, atol=1e-6)


def test_dot_general_symbolic_errors():
    with pytest.raises(InconclusiveDimensionError, match=r"dot_general: cannot decide.*b.*c"):
        tjit.make_jaxpr(lambda x, y: lax.dot(x, y), polymorphic_shapes=["(3, b)", "(c, 4)"])(
            np.ones((3, 2), np.float32), np.ones((2, 4), np.float32))
    with pytest.raises(ShapeError, match=r"contracting dims must have equal sizes.*\(b, 3\)"):
        tjit.make_jaxpr(lambda x, y: lax.dot(x, y), polymorphic_shapes=["(b, 3)", None])(
            np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))


def test_linalg_symbolic_shapes():
    b, n, m = symbol("b"), symbol("n"), symbol("m")
    closed = tjit.make_jaxpr(lax_linalg.lu, polymorphic_shapes=["(b, n, n)"])(
        np.ones((2, 3, 3), np.float32))
    assert [a.shape for a in closed.out_avals] == [(b, n, n), (b, n), (b, n)]
    closed = tjit.make_jaxpr(lambda x: lax_linalg.qr(x, full_matrices=True),
                             polymorphic_shapes=["(b, m, 3)"])(np.ones((2, 5, 3), np.float32))
    assert [a.shape for a in closed.out_avals] == [(b, m, m), (b, m, 3)]
    closed = tjit.make_jaxpr(lambda x: lax_linalg.svd(x, full_matrices=False),
                             polymorphic_shapes=["(b, m, n)"])(np.ones((2, 5, 3), np.float32))
    u, s, vt = closed.out_avals
    assert u.shape[:2] == (b, m) and vt.shape[2] == n and s.shape[0] == b
    f = tjit.jit(lambda x: lax_linalg.cholesky(x), polymorphic_shapes=["(b, n, n)"])
    rng = np.random.default_rng(0)
    for shape in [(2, 3, 3), (1, 5, 5)]:
        a = spd(rng, shape).astype(np.float32)
        np.testing.assert_allclose(f(a), np.linalg.cholesky(a), rtol=1e-4, atol=1e-4)


# -- errors -------------------------------------------------------------------------------------
def test_dot_general_errors():
    x, y = jnp.ones((3, 4)), jnp.ones((5, 6))
    with pytest.raises(ShapeError, match=r"contracting dims must have equal sizes, got lhs "
                                          r"shape \(3, 4\).*rhs shape \(5, 6\).*4 vs 5"):
        lax.dot_general(x, y, (((1,), (0,)), ((), ())))
    with pytest.raises(ShapeError, match=r"batch dims must have equal sizes.*\(2, 3\).*\(4, 3\)"):
        lax.dot_general(jnp.ones((2, 3)), jnp.ones((4, 3)), (((1,), (1,)), ((0,), (0,))))
    # mixed dtypes meet in the one of higher precision, as JAX (not an error)
    mixed = lax.dot_general(jnp.ones((2, 2)), jnp.ones((2, 2), jnp.int32), (((1,), (0,)), NOB))
    assert mixed.dtype == jnp.float32 and np.asarray(mixed).tolist() == [[2, 2], [2, 2]]
    with pytest.raises(ShapeError, match="out of bounds"):
        lax.dot_general(x, y, (((2,), (0,)), ((), ())))
    with pytest.raises(ShapeError, match="as many contracting dims"):
        lax.dot_general(x, y, (((0, 1), (0,)), ((), ())))
    with pytest.raises(ShapeError, match=r"both batch and contracting"):
        lax.dot_general(jnp.ones((2, 2)), jnp.ones((2, 2)), (((0,), (0,)), ((0,), (0,))))
    with pytest.raises(TypeError, match="dimension_numbers must be"):
        lax.dot_general(x, y, ((1,), (0,)))
    with pytest.raises(TypeError, match="preferred_element_type int8 must not be narrower.*int32"):
        lax.dot(jnp.ones(3, jnp.int32), jnp.ones(3, jnp.int32), preferred_element_type=jnp.int8)
    # a float product converts to an integer type (JAX): tests/primitives/test_dot_preferred_int.py


def test_factorization_errors():
    with pytest.raises(ShapeError, match=r"cholesky: .*square.*\(3, 4\)"):
        lax_linalg.cholesky(jnp.ones((3, 4)))
    with pytest.raises(ShapeError, match=r"lu: operand must have rank >= 2.*\(3,\)"):
        lax_linalg.lu(jnp.ones(3))
    with pytest.raises(TypeError, match="eigh: operand must have a floating-point"):
        lax_linalg.eigh(jnp.ones((3, 3), jnp.int32), symmetrize_input=False)
    with pytest.raises(ShapeError, match=r"triangular_solve: incompatible shapes a \(3, 3\) "
                                          r"and b \(4, 2\)"):
        lax_linalg.triangular_solve(jnp.ones((3, 3)), jnp.ones((4, 2)), left_side=True)
    with pytest.raises(NotImplementedError, match="pivoting"):
        lax_linalg.qr(jnp.ones((3, 3)), pivoting=True)


# -- behaviour of the reference implementations ---------------------------------------------------
def test_cholesky_not_positive_definite_gives_nan(rng):
    good = spd(rng, (3, 3))
    bad = -np.eye(3)
    out = np.asarray(lax_linalg.cholesky(jnp.asarray(np.stack([good, bad]).astype(np.float32))))
    np.testing.assert_allclose(out[0], np.linalg.cholesky(good), rtol=1e-4, atol=1e-5)
    # JAX's result: NaN on the lower triangle, zeros above it.
    assert np.isnan(out[1][np.tril_indices(3)]).all()
    np.testing.assert_array_equal(out[1][np.triu_indices(3, 1)], 0.0)


def test_cholesky_symmetrize_input(rng):
    a = spd(rng, (4, 4))
    skewed = a + np.triu(rng.standard_normal((4, 4)), 1)  # not symmetric
    sym = (skewed + skewed.T) / 2
    out = lax_linalg.cholesky(jnp.asarray(skewed, jnp.float32))
    np.testing.assert_allclose(out, np.linalg.cholesky(sym), rtol=1e-4, atol=1e-4)


def test_lu_permutation_reconstructs(rng):
    a = rng.standard_normal((3, 5, 5)).astype(np.float32)
    lu, piv, perm = (np.asarray(v) for v in lax_linalg.lu(jnp.asarray(a)))
    assert piv.dtype == np.int32 and perm.dtype == np.int32
    low = np.tril(lu, -1) + np.eye(5)
    up = np.triu(lu)
    np.testing.assert_allclose(np.take_along_axis(a, perm[..., None], 1), low @ up,
                               rtol=1e-4, atol=1e-5)


def test_lu_singular_matrix_is_allowed():
    lu, piv, perm = lax_linalg.lu(jnp.zeros((3, 3)))
    np.testing.assert_array_equal(lu, np.zeros((3, 3)))
    np.testing.assert_array_equal(perm, [0, 1, 2])


def test_generic_fallbacks_match_scipy(rng):
    import scipy.linalg
    a = rng.standard_normal((2, 5, 5))
    lu, piv = pl.lu_generic(np, a)
    lu_ref, piv_ref = scipy.linalg.lu_factor(a)
    np.testing.assert_allclose(lu, lu_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(piv, piv_ref)
    t = well_conditioned(rng, (5, 5))
    b = rng.standard_normal((5, 2))
    for lower, trans, unit in itertools.product([True, False], repeat=3):
        got = pl.tri_solve_generic(np, t, b, lower, trans, False, unit)
        want = scipy.linalg.solve_triangular(t, b, lower=lower, trans=int(trans),
                                             unit_diagonal=unit)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_eigh_symmetrizes_by_default(rng):
    a = rng.standard_normal((4, 4)).astype(np.float32)
    v, w = lax_linalg.eigh(jnp.asarray(a))
    np.testing.assert_allclose(w, np.linalg.eigvalsh((a + a.T) / 2), rtol=1e-4, atol=1e-4)
