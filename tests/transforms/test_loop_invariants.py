"""Loop-invariant code motion (``passes.hoist_loop_invariants``, part of ``simplify``):
equations of scan/while bodies that read only loop constants move in front of the loop.
Checked: where each equation ends up, that check_jaxpr passes, and that results are
unchanged (the reference interpreter on the jaxpr before and after, and NumPy float64
loops for the compiled programs)."""

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.tracing.jaxpr import check_jaxpr, eval_jaxpr_reference
from tjit.transforms.passes import hoist_loop_invariants

RNG = np.random.default_rng(0)
A = RNG.standard_normal((6, 6)) + 6 * np.eye(6)
B = RNG.standard_normal((6, 2))


def _hoisted(f, *args):
    """(jaxpr before, jaxpr after) of ``f``, checked and compared by the interpreter."""
    closed = tjit.make_jaxpr(f)(*args)
    out = hoist_loop_invariants(closed)
    check_jaxpr(out)
    arrays = [np.asarray(a) for a in args]
    for got, ref in zip(eval_jaxpr_reference(out.jaxpr, out.consts, arrays),
                        eval_jaxpr_reference(closed.jaxpr, closed.consts, arrays)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(ref))
    return closed, out


def _names(eqns):
    return [e.primitive.name for e in eqns]


def _loop(closed, name):
    (eqn,) = [e for e in closed.eqns if e.primitive.name == name]
    return eqn


def test_factorization_of_a_loop_constant_moves_out_of_a_fori_loop():
    def f(m, c):
        return lax.fori_loop(0, 5, lambda i, c: jnp.linalg.solve(m, c) * 0.5 + c, c)

    before, after = _hoisted(f, A, B)
    assert "lu" in _names(_loop(before, "scan").params["jaxpr"].eqns)
    assert "lu" in _names(after.eqns)
    scan = _loop(after, "scan")
    assert "lu" not in _names(scan.params["jaxpr"].eqns)
    assert "triangular_solve" in _names(scan.params["jaxpr"].eqns)   # (reads the carry)
    assert scan.params["num_consts"] == len(scan.params["jaxpr"].jaxpr.invars) - 2


def test_while_body_and_predicate_invariants_move_out():
    def f(m, x):
        def cond(c):
            return jnp.sum(jnp.abs(m)) * c[0] < 100.0 + jnp.max(m)

        def body(c):
            return c[0] + 1.0, c[1] + jnp.tanh(m) @ c[1]
        return lax.while_loop(cond, body, (jnp.ones((), x.dtype), x))

    before, after = _hoisted(f, A, B)
    w = _loop(after, "while")
    assert "tanh" not in _names(w.params["body_jaxpr"].jaxpr.eqns)
    assert not {"reduce_sum", "reduce_max", "abs"} & set(_names(w.params["cond_jaxpr"].eqns))
    assert {"tanh", "abs", "reduce_max"} <= set(_names(after.eqns))
    assert w.params["cond_nconsts"] + w.params["body_nconsts"] + 2 == len(w.invars)


def test_invariant_of_nested_loops_moves_out_of_both():
    def f(m, c):
        def outer(i, c):
            return lax.fori_loop(0, 3, lambda j, c: jnp.exp(m) @ c + c, c)
        return lax.fori_loop(0, 2, outer, c)

    _, after = _hoisted(f, A * 0.1, B)
    assert "exp" in _names(after.eqns)
    inner = _loop(_loop(after, "scan").params["jaxpr"], "scan")
    assert "exp" not in _names(inner.params["jaxpr"].eqns)


def test_broadcasts_and_carry_dependent_equations_stay_in_the_loop():
    def f(v, c):
        # v[:, None] * ones grows v (6 -> 6 x 2): hoisted it would be a buffer to load;
        # c * 2 reads the carry
        return lax.fori_loop(0, 4, lambda i, c: jnp.broadcast_to(v[:, None], c.shape) + c * 2,
                             c)

    before, after = _hoisted(f, A[0], B)
    body = _loop(after, "scan").params["jaxpr"]
    assert "broadcast_in_dim" in _names(body.eqns) and "mul" in _names(body.eqns)
    assert "broadcast_in_dim" not in _names(after.eqns)


def test_effectful_equations_stay_in_the_loop():
    seen = []

    def f(m, c):
        def body(i, c):
            tjit.debug.callback(lambda s: seen.append(float(s)), jnp.sum(m))
            return c + 1.0
        return lax.fori_loop(0, 3, body, c)

    closed = tjit.make_jaxpr(f)(A, B)
    after = hoist_loop_invariants(closed)
    body = _loop(after, "scan").params["jaxpr"]
    assert any(e.primitive.effectful for e in body.eqns)
    seen.clear()
    tjit.jit(f)(A, B)
    assert len(seen) == 3


def test_compiled_loops_of_small_linalg_match_numpy_float64(x64):
    spd = A @ A.T + 6 * np.eye(6)
    low = np.linalg.cholesky(spd)

    def solve(m, c):
        return lax.fori_loop(0, 6, lambda i, c: jnp.linalg.solve(m, c) * 0.5 + c * 0.5, c)

    def trisolve(m, c):
        return lax.fori_loop(0, 6, lambda i, c: lax.linalg.triangular_solve(
            m, c, left_side=True, lower=True) * 0.5 + c * 0.5, c)

    ref_s, ref_t = B.copy(), B.copy()
    for _ in range(6):
        ref_s = np.linalg.solve(spd, ref_s) * 0.5 + ref_s * 0.5
        ref_t = np.linalg.solve(low, ref_t) * 0.5 + ref_t * 0.5
    np.testing.assert_allclose(np.asarray(tjit.jit(solve)(spd, B)), ref_s, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(tjit.jit(trisolve)(low, B)), ref_t, rtol=1e-12)
    # batches (the permutation gather over a flattened batch) and a vmap of the loop
    ms = np.stack([spd, spd + np.eye(6), 2 * spd])
    refs = []
    for m in ms:
        ref = B.copy()
        for _ in range(6):
            ref = np.linalg.solve(m, ref) * 0.5 + ref * 0.5
        refs.append(ref)
    bs = np.stack([B] * 3)
    np.testing.assert_allclose(np.asarray(tjit.jit(solve)(ms, bs)), refs, rtol=1e-12)
    got = tjit.jit(solve)(ms.reshape(3, 1, 6, 6), bs[:, None])
    np.testing.assert_allclose(np.asarray(got), np.stack(refs)[:, None], rtol=1e-12)
    got = tjit.jit(tjit.vmap(solve, in_axes=(0, None)))(ms, B)
    np.testing.assert_allclose(np.asarray(got), refs, rtol=1e-12)
    # inv: the same solve against the identity
    np.testing.assert_allclose(np.asarray(tjit.jit(jnp.linalg.inv)(ms)), np.linalg.inv(ms),
                               rtol=1e-12)
