"""Regressions from benchmarks/diff_control_flow.py (control flow under transformations).

Reverse over reverse (``jacrev(grad(f))``) through a ``while_loop`` linearizes the loop's
transpose, ``while_transpose``, whose partial-evaluation rule measures a Jacobian: it
assumes the unknown inputs are tangents, so the outputs are affine in them. Two defects:

* Loop-invariant code motion in scan's partial evaluation (``_split_known_body``) reuses
  partial evaluation with "unknown" meaning "varies per iteration": a while inside a scan
  body had its loop-variant *primal* state treated as a tangent, and the Hessian came out
  silently wrong (0.4007 for 0.5203 in ``test_reverse_over_reverse[scan_of_while]``), or,
  when the predicate read a closed-over value, the split raised "the loop's predicate
  depends on a value being differentiated". Such rules are now marked
  ``linear_inputs_only`` and a dependence split records their primitive whole.
* The measured Jacobian was contracted with the unknown input in the input's dtype: a
  float16 or complex loop state feeding a float32 output raised "dot_general: operand
  dtypes must be equal", and complex inputs were skipped (their contribution lost). Each
  real direction of a complex input now gets its own Jacobian, and the contraction runs in
  the output's dtype.

Every case below: ``jacrev(grad(f))`` (and under jit) against second central differences
of the same program written as a NumPy float64 Python loop.

API edges where JAX 0.10.2 works and tjit raised: ``lax.cond`` with a float predicate
(JAX takes any real number, nonzero meaning true; tjit accepted bool and int only), and
``lax.map(..., batch_size=0)`` (JAX documents 0 as one full batch; tjit raised).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _np_while(cond, body, c):
    while cond(c):
        c = body(c)
    return c


# each case: (tjit program, NumPy float64 program, tolerance)
def _counter_tj(x):
    def step(c, _):
        return lax.while_loop(lambda v: v[0] < 2, lambda v: (v[0] + 1, jnp.sin(v[1]) * x),
                              (0, c))[1], None
    return jnp.sum(lax.scan(step, x, None, length=2)[0])


def _counter_np(x):
    c = x
    for _ in range(2):
        c = _np_while(lambda v: v[0] < 2, lambda v: (v[0] + 1, np.sin(v[1]) * x), (0, c))[1]
    return np.sum(c)


def _pred_closure_tj(x):   # the predicate reads x: the trip count depends on the input
    def step(c, _):
        return lax.while_loop(lambda v: (v[0] < 4) & (jnp.sum(v[1] * v[1]) < 2.0 + x[0]),
                              lambda v: (v[0] + 1, v[1] * 1.1 + jnp.sin(x) * v[1]),
                              (0, c))[1], None
    return jnp.sum(lax.scan(step, x, None, length=2)[0] ** 2)


def _pred_closure_np(x):
    c = x
    for _ in range(2):
        c = _np_while(lambda v: (v[0] < 4) & (np.sum(v[1] * v[1]) < 2.0 + x[0]),
                      lambda v: (v[0] + 1, v[1] * 1.1 + np.sin(x) * v[1]), (0, c))[1]
    return np.sum(c ** 2)


def _cond_in_body_tj(x):
    def body(v):
        s = lax.cond(v[1][0] > 0, lambda u: jnp.tanh(u) * x, lambda u: u * u + x, v[1])
        return v[0] + 1, s
    return jnp.sum(lax.while_loop(lambda v: v[0] < 3, body, (0, x))[1] * x)


def _cond_in_body_np(x):
    def body(v):
        u = v[1]
        return v[0] + 1, (np.tanh(u) * x if u[0] > 0 else u * u + x)
    return np.sum(_np_while(lambda v: v[0] < 3, body, (0, x))[1] * x)


def _complex_tj(x):
    def body(c):
        return c[0] + 1, c[1] * (0.5 + 0.3j) * c[1] + jnp.sin(x)
    z = lax.while_loop(lambda c: c[0] < 2, body, (0, x * (1 + 0.5j)))[1]
    return jnp.sum(jnp.real(z) ** 2 + jnp.imag(z) * jnp.abs(z))


def _complex_np(x):
    z = _np_while(lambda c: c[0] < 2,
                  lambda c: (c[0] + 1, c[1] * (0.5 + 0.3j) * c[1] + np.sin(x)),
                  (0, x * (1 + 0.5j)))[1]
    return np.sum(np.real(z) ** 2 + np.imag(z) * np.abs(z))


def _float16_tj(x):
    def body(c):
        return c[0] + 1, c[1] * 0.5 + jnp.sin(x).astype(jnp.float16)
    h = lax.while_loop(lambda c: c[0] < 2, body, (0, x.astype(jnp.float16)))[1]
    return jnp.sum(h.astype(x.dtype) ** 2)


def _float16_np(x):
    h = _np_while(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] * 0.5 + np.sin(x)), (0, x))[1]
    return np.sum(h ** 2)


CASES = {
    "scan_of_while": (_counter_tj, _counter_np, 1e-6),
    "scan_of_while_pred_reads_x": (_pred_closure_tj, _pred_closure_np, 1e-6),
    "while_with_cond": (_cond_in_body_tj, _cond_in_body_np, 1e-6),
    "complex_state": (_complex_tj, _complex_np, 1e-6),
    "float16_state": (_float16_tj, _float16_np, 3e-2),   # float16 rounding in the loop
}


def _fd_hessian(f, x, h=1e-4):
    n, H = x.size, np.zeros((x.size, x.size))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * h, np.eye(n)[j] * h
            H[i, j] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (
                4 * h * h)
    return H


@pytest.mark.parametrize("name", list(CASES))
def test_reverse_over_reverse(name, x64):
    tj, ref, tol = CASES[name]
    x = np.array([0.3, -0.2, 0.5])
    want = _fd_hessian(ref, x)
    scale = max(1.0, np.abs(want).max())
    for hess in (tjit.jacrev(tjit.grad(tj)), tjit.jit(tjit.jacrev(tjit.grad(tj)))):
        got = np.asarray(hess(jnp.asarray(x)))
        np.testing.assert_allclose(got, want, atol=tol * scale, rtol=0)


@pytest.mark.parametrize("pred,want", [(1.5, 1.0), (0.0, 2.0), (-0.0, 2.0), (np.nan, 1.0),
                                       (np.float16(0.25), 1.0)])
@pytest.mark.parametrize("jit", [False, True])
def test_cond_real_number_predicate(pred, want, jit):
    """A float predicate means ``pred != 0`` (NaN is nonzero: true), eager and traced."""
    f = lambda p: lax.cond(p, lambda: jnp.float32(1.0), lambda: jnp.float32(2.0))  # noqa: E731
    assert float((tjit.jit(f) if jit else f)(pred)) == want


def test_cond_float_predicate_under_vmap():
    ps = jnp.asarray([0.0, 2.0, -1.0])
    got = tjit.vmap(lambda p: lax.cond(p, lambda: p * 10, lambda: p - 1))(ps)
    np.testing.assert_array_equal(np.asarray(got), [-1.0, 20.0, -10.0])


def test_map_batch_size_zero_is_one_full_batch():
    xs = np.arange(6.0).reshape(3, 2)
    for bs in (0, 1, 2, 5):
        got = lax.map(lambda r: jnp.sum(r * r), jnp.asarray(xs), batch_size=bs)
        np.testing.assert_allclose(np.asarray(got), (xs * xs).sum(1))
    with pytest.raises(ValueError, match="lax.map: batch_size must be a non-negative int"):
        lax.map(lambda r: r, jnp.asarray(xs), batch_size=-1)
