"""jnp.matmul / dot / vdot / inner / outer / tensordot / kron / vecdot / matvec / vecmat /
einsum / einsum_path against NumPy: broadcasting, 1-d promotion, dtype rules, traced and
symbolic shapes, the jaxprs they produce, and error messages."""

import numpy as np
import opt_einsum
import pytest
from hypothesis import given, strategies as st

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import symbol


def _prims(closed):
    return [e.primitive.name for e in closed.jaxpr.eqns]


def _randn(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


# -- matmul ---------------------------------------------------------------------------------
MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
    ((3,), (5, 3, 4)), ((5, 2, 3), (3,)), ((5, 2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 6)),
    ((4, 2, 3), (1, 3, 5)), ((1, 2, 3), (4, 1, 3, 2)), ((2, 1, 4, 3), (1, 5, 3, 2)),
    ((0, 2, 3), (3, 4)), ((2, 0), (0, 3)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=str)
def test_matmul_matches_numpy(sa, sb, rng):
    a, b = _randn(rng, sa), _randn(rng, sb)
    out = jnp.matmul(a, b)
    assert out.shape == (a @ b).shape and out.dtype == np.float32
    np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tjit.jit(jnp.matmul)(a, b), out, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(jnp.asarray(a) @ jnp.asarray(b), out, rtol=1e-6, atol=1e-6)


@given(st.integers(0, 2), st.integers(0, 2), st.lists(st.sampled_from([1, 3]), min_size=0,
                                                       max_size=3), st.data())
def test_matmul_broadcasting_property(na, nb, batch, data):
    """Random batch shapes where each side may drop leading dims or use 1s."""
    rng = np.random.default_rng(len(batch) + 7 * na + 13 * nb)
    ba = [d if data.draw(st.booleans()) else 1 for d in batch][len(batch) - min(na, len(batch)):]
    bb = [d if data.draw(st.booleans()) else 1 for d in batch][len(batch) - min(nb, len(batch)):]
    a, b = _randn(rng, tuple(ba) + (2, 3)), _randn(rng, tuple(bb) + (3, 4))
    np.testing.assert_allclose(jnp.matmul(a, b), a.astype(np.float64) @ b, rtol=1e-5,
                               atol=1e-5)


def test_matmul_batch_broadcast_is_not_materialized(rng):
    a, b = _randn(rng, (5, 1, 2, 3)), _randn(rng, (4, 3, 6))
    closed = tjit.make_jaxpr(jnp.matmul)(a, b)
    prims = _prims(closed)
    assert "dot_general" in prims and "broadcast_in_dim" not in prims


@pytest.mark.parametrize("dt,expect", [(np.int32, np.int32), (np.int8, np.int8),
                                       (np.bool_, np.bool_), (np.uint8, np.uint8)])
def test_matmul_integer_and_bool_dtypes(dt, expect, rng):
    a = rng.integers(0, 3, (3, 4)).astype(dt)
    b = rng.integers(0, 3, (4, 2)).astype(dt)
    out = jnp.matmul(a, b)
    assert out.dtype == expect
    np.testing.assert_array_equal(out, (a.astype(np.int64) @ b).astype(expect))


def test_matmul_promotes_like_jax(rng):
    a = rng.integers(-3, 3, (2, 3)).astype(np.int32)
    b = _randn(rng, (3, 2))
    out = jnp.matmul(a, b)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, a @ b.astype(np.float64), rtol=1e-5, atol=1e-6)
    assert jnp.matmul(jnp.ones((2, 2), jnp.int8), jnp.ones((2, 2), jnp.int16)).dtype == np.int16
    assert jnp.matmul(jnp.ones((2, 2), jnp.float16), jnp.ones((2, 2))).dtype == np.float32
    out = jnp.matmul(jnp.ones((2, 3), jnp.int8), jnp.ones((3, 2), jnp.int8),
                     preferred_element_type=jnp.int32)
    assert out.dtype == np.int32


def test_matmul_errors():
    with pytest.raises(ShapeError, match=r"^matmul: contracting dims must match, got shapes "
                                          r"\(3, 4\) and \(5, 6\)"):
        jnp.matmul(jnp.ones((3, 4)), jnp.ones((5, 6)))
    with pytest.raises(ValueError, match=r"matmul: contracting dims must match, got shapes "
                                         r"\(4,\) and \(3,\)"):
        jnp.ones(4) @ jnp.ones(3)
    with pytest.raises(ShapeError, match=r"matmul: batch dims of shapes \(2, 3, 4\) and "
                                          r"\(5, 4, 2\) cannot be broadcast"):
        jnp.matmul(jnp.ones((2, 3, 4)), jnp.ones((5, 4, 2)))
    with pytest.raises(ValueError, match=r"matmul: operands must have rank >= 1.*\(\)"):
        jnp.matmul(jnp.ones(3), 2.0)
    with pytest.raises(TypeError, match="matmul requires ndarray or scalar arguments"):
        jnp.matmul([1.0, 2.0], jnp.ones(2))


def test_matmul_symbolic_shapes():
    b, n = symbol("b"), symbol("n")
    closed = tjit.make_jaxpr(jnp.matmul, polymorphic_shapes=["(b, 3, 4)", None])(
        np.ones((2, 3, 4), np.float32), np.ones((4, 5), np.float32))
    assert closed.out_avals[0].shape == (b, 3, 5)
    closed = tjit.make_jaxpr(jnp.matmul, polymorphic_shapes=["(b, n, 4)", "(b, 4, n)"])(
        np.ones((2, 3, 4), np.float32), np.ones((2, 4, 3), np.float32))
    assert closed.out_avals[0].shape == (b, n, n)
    with pytest.raises(ShapeError, match=r"matmul: .*\(b, 3\) and \(4, 5\)"):
        tjit.make_jaxpr(jnp.matmul, polymorphic_shapes=["(b, 3)", None])(
            np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))


def test_matmul_polymorphic_jit_runs(rng):
    f = tjit.jit(lambda x, w: x @ w, polymorphic_shapes=["(b, 3)", None])
    w = _randn(rng, (3, 2))
    for nb in (1, 4):
        x = _randn(rng, (nb, 3))
        np.testing.assert_allclose(f(x, w), x @ w.astype(np.float64), rtol=1e-5, atol=1e-6)


# -- dot family ----------------------------------------------------------------------------------
@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
                                   ((2, 3), (3, 4)), ((2, 5, 3), (4, 3, 6)), ((2, 5, 3), (3,)),
                                   ((), (3, 4)), ((2, 3), ())], ids=str)
def test_dot_matches_numpy(sa, sb, rng):
    a, b = _randn(rng, sa), _randn(rng, sb)
    out = jnp.dot(a, b)
    expected = np.dot(a.astype(np.float64), b)
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jnp.asarray(a).dot(b) if a.ndim else out, expected, rtol=1e-5,
                               atol=1e-5)


def test_dot_errors():
    with pytest.raises(ShapeError, match=r"dot: contracting dims must match, got shapes "
                                          r"\(2, 3\) and \(4, 5\)"):
        jnp.dot(jnp.ones((2, 3)), jnp.ones((4, 5)))


def test_vdot_inner_outer(rng, x64):
    a = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    b = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    np.testing.assert_allclose(jnp.vdot(a, b), np.vdot(a, b), rtol=1e-12)
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((5, 4))
    np.testing.assert_allclose(jnp.inner(x, y), np.inner(x, y), rtol=1e-12)
    np.testing.assert_allclose(jnp.inner(x, 2.0), np.inner(x, 2.0), rtol=1e-12)
    np.testing.assert_allclose(jnp.outer(x[0], y), np.outer(x[0], y), rtol=1e-12)
    bools = rng.random(4) < 0.5
    np.testing.assert_array_equal(jnp.outer(bools, bools), np.outer(bools, bools))
    with pytest.raises(ShapeError, match=r"inner: contracting dims must match"):
        jnp.inner(x, x[0, 0, :3])


@pytest.mark.parametrize("sa,sb,axes", [
    ((3, 4, 5), (4, 5, 6), 2), ((3, 4), (4, 5), 1), ((2, 3), (4, 5), 0),
    ((3, 4, 5), (5, 4, 2), ((1, 2), (1, 0))), ((3, 4, 5), (5, 6), (-1, 0)),
    ((3, 4, 5), (3, 2), ([0], [0])), ((2, 3), (2, 3), 2)], ids=str)
def test_tensordot_matches_numpy(sa, sb, axes, rng, x64):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    np.testing.assert_allclose(jnp.tensordot(a, b, axes), np.tensordot(a, b, axes),
                               rtol=1e-12, atol=1e-12)


def test_tensordot_errors():
    with pytest.raises(ShapeError, match=r"tensordot: contracting dims must match, got shapes "
                                          r"\(3, 4\) and \(5, 4\)"):
        jnp.tensordot(jnp.ones((3, 4)), jnp.ones((5, 4)), 1)
    with pytest.raises(ValueError, match="axes lists must have equal lengths"):
        jnp.tensordot(jnp.ones((3, 4)), jnp.ones((3, 4)), ((0, 1), (0,)))
    with pytest.raises(ValueError, match=r"tensordot: axes=3"):
        jnp.tensordot(jnp.ones((3, 4)), jnp.ones((3, 4)), 3)


@pytest.mark.parametrize("sa,sb", [((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 1, 3), (3, 2)),
                                   ((2,), (3,))], ids=str)
def test_kron_matches_numpy(sa, sb, rng):
    a, b = rng.integers(-5, 5, sa).astype(np.int32), rng.integers(-5, 5, sb).astype(np.int32)
    out = jnp.kron(a, b)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.kron(a, b))


def test_vecdot_matvec_vecmat(rng, x64):
    a = rng.standard_normal((4, 1, 3)) + 1j * rng.standard_normal((4, 1, 3))
    b = rng.standard_normal((5, 3)) + 1j * rng.standard_normal((5, 3))
    np.testing.assert_allclose(jnp.vecdot(a, b), np.vecdot(a, b), rtol=1e-12)
    c = rng.standard_normal((3, 2))
    np.testing.assert_allclose(jnp.vecdot(c, c, axis=0), np.vecdot(c, c, axis=0), rtol=1e-12)
    m, v = rng.standard_normal((2, 4, 3)), rng.standard_normal((5, 1, 3))
    np.testing.assert_allclose(jnp.matvec(m, v), np.matvec(m, v), rtol=1e-12)
    w = rng.standard_normal((2, 4)) + 1j * rng.standard_normal((2, 4))
    np.testing.assert_allclose(jnp.vecmat(w, m.astype(complex)), np.vecmat(w, m), rtol=1e-12)
    with pytest.raises(ShapeError, match=r"vecdot: contracting dims must match.*\(5, 3\)"):
        jnp.vecdot(jnp.ones((5, 3)), jnp.ones((5, 4)))


# -- einsum ---------------------------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]), ("ij->", [(3, 4)]), ("ij->ji", [(3, 4)]), ("ij", [(3, 4)]),
    ("ji", [(3, 4)]), ("i,i", [(5,), (5,)]), ("i,i->i", [(5,), (5,)]), ("i,j", [(3,), (4,)]),
    ("i,j->ji", [(3,), (4,)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]), ("...ii->...i", [(2, 3, 3)]),
    ("...i,...i->...", [(2, 3), (4, 1, 3)]), ("i...->...", [(3, 2, 4)]),
    ("...ij", [(2, 3, 4)]), ("ijk->kji", [(2, 3, 4)]), ("ijk,jil->kl", [(3, 4, 5), (4, 3, 2)]),
    ("abc,cd,de,ea->b", [(2, 3, 4), (4, 5), (5, 6), (6, 2)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 6)]), ("ij,jk,kl,lm->mi", [(2, 3), (3, 4), (4, 5),
                                                                      (5, 2)]),
    ("a,b,c->abc", [(2,), (3,), (4,)]), ("iij->j", [(3, 3, 2)]), ("iji->j", [(3, 2, 3)]),
    ("ab,ab->", [(3, 4), (3, 4)]), ("ab,ab->ab", [(3, 4), (3, 4)]), ("ij,ij->i", [(3, 4), (3, 4)]),
    ("ba,ac", [(2, 3), (3, 4)]), ("Ba,aC", [(2, 3), (3, 4)]), ("ij,jk", [(2, 1), (1, 4)]),
    ("ij,jk", [(2, 1), (3, 4)]), ("i,ij,j->", [(3,), (3, 4), (4,)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]), ("ijkl->lkji", [(1, 2, 3, 4)]),
    ("i j , j k -> i k", [(3, 4), (4, 5)]), ("ab,bc,cd,de,ef->af", [(2, 3), (3, 4), (4, 5),
                                                                    (5, 6), (6, 2)]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_matches_numpy(subscripts, shapes, rng, x64):
    ops = [rng.standard_normal(s) for s in shapes]
    out = jnp.einsum(subscripts, *ops)
    expected = np.einsum(subscripts, *ops)
    assert out.shape == expected.shape and out.dtype == np.float64
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-10)


def test_einsum_float32_default_and_jit(rng):
    ops = [_randn(rng, (3, 4)), _randn(rng, (4, 5)), _randn(rng, (5, 2))]
    f = tjit.jit(lambda *a: jnp.einsum("ij,jk,kl->il", *a))
    out = f(*ops)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.einsum("ij,jk,kl->il", *[o.astype(float) for o in ops]),
                               rtol=1e-5, atol=1e-5)


def test_einsum_ellipsis_dims_missing_from_output_are_summed(rng, x64):
    x = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(jnp.einsum("...i->i", x), x.sum((0, 1)), rtol=1e-12)


@pytest.mark.parametrize("optimize", [False, True, "greedy", "optimal", "auto", "dp",
                                      "branch-2"])
def test_einsum_optimize_strategies_agree(optimize, rng, x64):
    shapes = [(2, 3), (3, 4), (4, 5), (5, 2)]
    ops = [rng.standard_normal(s) for s in shapes]
    out = jnp.einsum("ij,jk,kl,lm->im", *ops, optimize=optimize)
    np.testing.assert_allclose(out, np.einsum("ij,jk,kl,lm->im", *ops), rtol=1e-10)


def test_einsum_follows_opt_einsum_path(rng):
    # a (10, 2) b (2, 10) c (10, 1): contracting b with c first is far cheaper.
    ops = [_randn(rng, (10, 2)), _randn(rng, (2, 10)), _randn(rng, (10, 1))]
    path, _ = opt_einsum.contract_path("ij,jk,kl->il", *ops, optimize="optimal")
    assert path[0] == (1, 2)
    closed = tjit.make_jaxpr(lambda a, b, c: jnp.einsum("ij,jk,kl->il", a, b, c,
                                                        optimize="optimal"))(*ops)
    dots = [e for e in closed.jaxpr.eqns if e.primitive.name == "dot_general"]
    assert len(dots) == 2
    assert dots[0].invars == closed.jaxpr.invars[1:3]
    assert _prims(closed).count("mul") == 0


def test_einsum_under_jit_is_dot_general(rng):
    ops = [_randn(rng, (2, 3, 4)), _randn(rng, (2, 4, 5))]
    closed = tjit.make_jaxpr(lambda a, b: jnp.einsum("bij,bjk->bik", a, b))(*ops)
    assert _prims(closed) == ["dot_general"]
    assert closed.jaxpr.eqns[0].params["dimension_numbers"] == (((2,), (1,)), ((0,), (0,)))
    closed = tjit.make_jaxpr(lambda a: jnp.einsum("ij->", a))(ops[0][0])
    assert _prims(closed) == ["reduce_sum"]
    closed = tjit.make_jaxpr(lambda a, b: jnp.einsum("bij,bkj->bki", a, b))(
        ops[0], _randn(rng, (2, 6, 4)))
    assert [p for p in _prims(closed) if p != "transpose"] == ["dot_general"]


def test_einsum_explicit_path_from_einsum_path(rng, x64):
    ops = [rng.standard_normal(s) for s in [(2, 3), (3, 4), (4, 5)]]
    path, info = jnp.einsum_path("ij,jk,kl->il", *ops, optimize="greedy")
    expected_path, _ = opt_einsum.contract_path("ij,jk,kl->il", *ops, optimize="greedy")
    assert path == expected_path and "Complete contraction" in str(info)
    out = jnp.einsum("ij,jk,kl->il", *ops, optimize=["einsum_path"] + list(path))
    np.testing.assert_allclose(out, np.einsum("ij,jk,kl->il", *ops), rtol=1e-12)


def test_einsum_dtypes(rng):
    a = rng.integers(-5, 5, (3, 4)).astype(np.int32)
    b = rng.integers(-5, 5, (4, 2)).astype(np.int32)
    out = jnp.einsum("ij,jk->ik", a, b)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, a @ b)
    np.testing.assert_array_equal(jnp.einsum("ii", a[:3, :3]), np.trace(a[:3, :3]))
    p, q = rng.random((3, 4)) < 0.3, rng.random((4, 2)) < 0.3
    out = jnp.einsum("ij,jk->ik", p, q)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, np.einsum("ij,jk->ik", p, q))
    assert jnp.einsum("ij,jk->ik", a, b.astype(np.float32)).dtype == np.float32
    big = np.full((2, 64), 100, np.int8)
    out = jnp.einsum("ij,kj->ik", big, big, preferred_element_type=jnp.int32)
    assert out.dtype == np.int32 and int(out[0, 0]) == 640000


def test_einsum_interleaved_format(rng, x64):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    np.testing.assert_allclose(jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), a @ b, rtol=1e-12)
    np.testing.assert_allclose(jnp.einsum(a, [0, 1], b, [1, 2]), a @ b, rtol=1e-12)
    x = rng.standard_normal((2, 3, 3))
    np.testing.assert_allclose(jnp.einsum(x, [Ellipsis, 0, 0], [Ellipsis]),
                               np.einsum("...ii->...", x), rtol=1e-12)


def test_einsum_symbolic_shapes():
    b, n = symbol("b"), symbol("n")
    closed = tjit.make_jaxpr(lambda x, y: jnp.einsum("bij,bjk->bki", x, y),
                             polymorphic_shapes=["(b, n, 4)", "(b, 4, 3)"])(
        np.ones((2, 5, 4), np.float32), np.ones((2, 4, 3), np.float32))
    assert closed.out_avals[0].shape == (b, 3, n)
    closed = tjit.make_jaxpr(lambda x, y, z: jnp.einsum("ij,jk,kl->il", x, y, z),
                             polymorphic_shapes=["(b, 4)", None, "(3, b)"])(
        np.ones((2, 4), np.float32), np.ones((4, 3), np.float32), np.ones((3, 2), np.float32))
    assert closed.out_avals[0].shape == (b, b)
    with pytest.raises(InconclusiveDimensionError, match=r"einsum: cannot decide .* label 'j'"):
        tjit.make_jaxpr(lambda x, y: jnp.einsum("ij,jk", x, y),
                        polymorphic_shapes=["(3, b)", "(c, 2)"])(
            np.ones((3, 4), np.float32), np.ones((4, 2), np.float32))


def test_einsum_errors():
    x = jnp.ones((3, 4))
    with pytest.raises(ValueError, match=r"einsum: subscripts 'ij,jk' name 2 operands but 1"):
        jnp.einsum("ij,jk", x)
    with pytest.raises(ValueError, match=r"einsum: operand 0 has shape \(3, 4\) \(rank 2\) but "
                                         r"its subscripts 'ijk' name 3 dims"):
        jnp.einsum("ijk", x)
    with pytest.raises(ShapeError, match=r"einsum: size of label 'j' is 4 in operand 0 but 5 "
                                          r"in operand 1"):
        jnp.einsum("ij,jk", x, jnp.ones((5, 2)))
    with pytest.raises(ValueError, match=r"output label 'k' is not in any input"):
        jnp.einsum("ij->k", x)
    with pytest.raises(ValueError, match=r"output label 'i' appears more than once"):
        jnp.einsum("ij->ii", x)
    with pytest.raises(ValueError, match=r"invalid subscript term '1j'"):
        jnp.einsum("1j", x)
    with pytest.raises(ValueError, match="at least one operand"):
        jnp.einsum("ij")
