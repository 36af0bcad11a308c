"""``tjit.experimental.ode.odeint`` against closed forms, SciPy's solve_ivp and finite
differences of the solution (the adjoint gradients), in float64."""

import re

import numpy as np
import pytest
import scipy.integrate

import tjit
import tjit.numpy as jnp
from tjit import compile_log
from tjit.experimental import checkify
from tjit.experimental.ode import odeint

pytestmark = pytest.mark.usefixtures("x64")

TS = np.linspace(0.0, 2.0, 6)


def decay_forced(y, t, a):
    return -a * y + jnp.sin(t)


def decay_forced_np(t, y, a):
    return -a * y + np.sin(t)


def test_linear_decay_matches_the_closed_form():
    ys = odeint(lambda y, t, k: -k * y, jnp.array([1.0, -3.0]), jnp.asarray(TS), 1.3,
                rtol=1e-10, atol=1e-10)
    want = np.exp(-1.3 * TS)[:, None] * np.array([1.0, -3.0])
    np.testing.assert_allclose(np.asarray(ys), want, rtol=1e-8, atol=1e-12)


def test_forced_decay_matches_scipy_at_every_output_time():
    y0 = np.array([1.0, 2.0, -0.5])
    ys = odeint(decay_forced, jnp.asarray(y0), jnp.asarray(TS), 0.7, rtol=1e-10, atol=1e-10)
    ref = scipy.integrate.solve_ivp(decay_forced_np, (TS[0], TS[-1]), y0, t_eval=TS,
                                    args=(0.7,), rtol=1e-12, atol=1e-12, method="DOP853")
    np.testing.assert_allclose(np.asarray(ys), ref.y.T, rtol=1e-8, atol=1e-10)


def test_pytree_state_keeps_its_structure():
    def pendulum(s, t, b):
        return {"angle": s["speed"], "speed": -b * s["speed"] - jnp.sin(s["angle"])}
    out = odeint(pendulum, {"angle": jnp.array(1.0), "speed": jnp.array(0.0)},
                 jnp.asarray(TS), 0.25, rtol=1e-10, atol=1e-10)
    ref = scipy.integrate.solve_ivp(lambda t, s: [s[1], -0.25 * s[1] - np.sin(s[0])],
                                    (0, 2), [1.0, 0.0], t_eval=TS, rtol=1e-12, atol=1e-12,
                                    method="DOP853")
    assert set(out) == {"angle", "speed"} and out["angle"].shape == (len(TS),)
    np.testing.assert_allclose(np.asarray(out["angle"]), ref.y[0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.asarray(out["speed"]), ref.y[1], rtol=1e-8, atol=1e-10)


def _loss(y0, a, ts):
    ys = odeint(decay_forced, y0, ts, a, rtol=1e-10, atol=1e-10)
    return jnp.sum(ys[-1] ** 2) + jnp.sum(jnp.sin(ys[2]))


def test_adjoint_gradients_match_finite_differences():
    y0, a, ts = np.array([1.0, 2.0]), 0.7, np.asarray(TS)
    g_y0, g_a, g_ts = tjit.grad(_loss, argnums=(0, 1, 2))(jnp.asarray(y0), a,
                                                           jnp.asarray(ts))

    def f(y0_, a_, ts_):
        return float(_loss(jnp.asarray(y0_), a_, jnp.asarray(ts_)))
    eps = 1e-5
    fd_y0 = [(f(y0 + eps * e, a, ts) - f(y0 - eps * e, a, ts)) / (2 * eps)
             for e in np.eye(2)]
    fd_a = (f(y0, a + eps, ts) - f(y0, a - eps, ts)) / (2 * eps)
    fd_ts = [(f(y0, a, ts + eps * e) - f(y0, a, ts - eps * e)) / (2 * eps)
             for e in np.eye(len(ts))]
    np.testing.assert_allclose(np.asarray(g_y0), fd_y0, rtol=1e-5)
    np.testing.assert_allclose(float(g_a), fd_a, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(g_ts), fd_ts, rtol=1e-5, atol=1e-7)


def test_gradient_through_a_closed_over_parameter():
    def loss(w):
        return jnp.sum(odeint(lambda y, t: -w * y, jnp.ones(2), jnp.asarray(TS),
                              rtol=1e-10, atol=1e-10)[-1])
    # d/dw sum(exp(-w*T)) = -2 T exp(-w T)
    np.testing.assert_allclose(float(tjit.grad(loss)(0.5)), -2 * 2.0 * np.exp(-0.5 * 2.0),
                               rtol=1e-7)


def test_jit_and_vmap_match_a_python_loop():
    rates = np.array([0.3, 0.7, 1.5])
    solve = lambda a: odeint(decay_forced, jnp.ones(2), jnp.asarray(TS), a)[-1]  # noqa: E731
    got = tjit.jit(tjit.vmap(solve))(jnp.asarray(rates))
    want = np.stack([np.asarray(solve(a)) for a in rates])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-7)


def test_repeated_eager_calls_reuse_the_compiled_solver():
    ts = jnp.asarray(TS)
    odeint(decay_forced, jnp.ones(2), ts, 0.7)
    records = []
    compile_log.add_sink(records.append)       # every trace/compile of a jit
    try:
        odeint(decay_forced, jnp.ones(2), ts, 0.9)
    finally:
        compile_log.remove_sink(records.append)
    assert records == []


def test_bad_times_and_arguments_raise_clear_errors():
    with pytest.raises(TypeError, match="t must be a 1-D array of float times"):
        odeint(decay_forced, jnp.ones(2), jnp.arange(3), 0.7)
    with pytest.raises(TypeError, match=r"\*args must be arrays or scalars"):
        odeint(lambda y, t, s: -y, jnp.ones(2), jnp.asarray(TS), "fast")


# -- states narrower than float32: stepped in float32, rounded to their dtype -------------
HALF = [jnp.bfloat16, jnp.float16]
HALF_TS = np.linspace(0.0, 2.0, 5)      # (exact in bfloat16 too)


def grow(y, t):
    return 2 * y


def rotate(y, t):
    return jnp.stack([y[1], -y[0]])


def forced_decay_half(y, t, a):      # (sin of float32 t cast: func returns y's dtype)
    return -a * y + jnp.sin(t).astype(y.dtype)


HALF_CASES = {   # func, y0, the float64 solution at HALF_TS
    "grow": (grow, [1.0, -0.5], np.exp(2 * HALF_TS)[:, None] * [1.0, -0.5]),
    "rotate": (rotate, [1.0, 0.0], np.stack([np.cos(HALF_TS), -np.sin(HALF_TS)], 1)),
}


def _within_half_precision(got, want, dtype):
    assert got.dtype == dtype
    eps = float(jnp.finfo(dtype).eps)     # (2 ulps, of the column's largest value)
    got = np.asarray(got, np.float64)
    bound = 2 * eps * np.maximum(np.abs(want), np.max(np.abs(want), axis=0))
    assert np.all(np.abs(got - want) <= bound), (got, want)


@pytest.mark.parametrize("case", sorted(HALF_CASES))
@pytest.mark.parametrize("ts_in_state_dtype", [False, True])
@pytest.mark.parametrize("dtype", HALF)
def test_half_precision_states_solve_to_their_precision_eager_and_jit(dtype,
                                                                       ts_in_state_dtype,
                                                                       case):
    # dy/dt = 2y stalled at 1.16 in bfloat16 (y + h*k rounding back to y) and was nan in
    # float16 (the tolerance rounding to 0), with float32 or half times alike
    func, y0, want = HALF_CASES[case]
    y0 = jnp.asarray(y0, dtype)
    ts = jnp.asarray(HALF_TS, dtype if ts_in_state_dtype else jnp.float32)
    _within_half_precision(odeint(func, y0, ts), want, dtype)
    _within_half_precision(tjit.jit(lambda y: odeint(func, y, ts))(y0), want, dtype)


@pytest.mark.parametrize("dtype", HALF)
def test_half_precision_default_tolerance_is_raised_to_what_the_state_resolves(dtype):
    # func's derivative is rounded to the state's dtype, so rtol=1.4e-8 is unattainable:
    # unraised, the steps collapsed (about 1,000 from t = 0 to 0.5 in bfloat16); raised to
    # eps/100, 50 steps per output time reach it
    func, y0, want = HALF_CASES["grow"]
    ys = odeint(func, jnp.asarray(y0, dtype), jnp.asarray(HALF_TS, jnp.float32), mxstep=50)
    _within_half_precision(ys, want, dtype)


@pytest.mark.parametrize("dtype", HALF)
def test_half_precision_adjoint_gradients_match_float32_finite_differences(dtype):
    def loss(y0, a, ts, state_dtype):
        ys = odeint(forced_decay_half, y0.astype(state_dtype), ts, a.astype(state_dtype))
        return (jnp.sum(ys[-1].astype(jnp.float32) ** 2)
                + jnp.sum(jnp.sin(ys[2].astype(jnp.float32))))
    y0, a = np.array([1.0, 2.0], np.float32), np.float32(0.75)
    ts = HALF_TS.astype(np.float32)
    grads = tjit.grad(loss, argnums=(0, 1, 2))(jnp.asarray(y0, dtype), jnp.asarray(a, dtype),
                                               jnp.asarray(ts), dtype)
    assert [g.dtype for g in grads] == [dtype, dtype, jnp.float32]

    def f(y0_, a_, ts_):                  # (the float32 solution's differences)
        return float(loss(jnp.asarray(y0_), jnp.asarray(a_), jnp.asarray(ts_), jnp.float32))
    eps = 1e-2
    fd_y0 = [(f(y0 + eps * e, a, ts) - f(y0 - eps * e, a, ts)) / (2 * eps)
             for e in np.eye(2)]
    fd_a = (f(y0, a + eps, ts) - f(y0, a - eps, ts)) / (2 * eps)
    fd_ts = [(f(y0, a, ts + eps * e) - f(y0, a, ts - eps * e)) / (2 * eps)
             for e in np.eye(len(ts))]
    scale = float(jnp.finfo(dtype).eps) * 4
    for got, want in zip(grads, (fd_y0, fd_a, fd_ts)):
        np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=scale,
                                   atol=scale * np.max(np.abs(want)))


def test_half_precision_func_of_another_dtype_is_named():
    # (sin of a float32 t promotes a bfloat16 state's derivative: the loop cannot carry it)
    with pytest.raises(TypeError, match="odeint: func must return the state's dtype "
                                        "bfloat16, got float32"):
        odeint(decay_forced, jnp.ones(2, jnp.bfloat16), jnp.asarray(HALF_TS, jnp.float32),
               jnp.bfloat16(0.7))


# -- output times the steps do not reach: NaN, never an extrapolation ---------------------
def _solve_grow(mxstep, ts=TS):
    return odeint(lambda y, t: y, jnp.ones(2), jnp.asarray(ts), mxstep=mxstep)


def test_output_times_mxstep_does_not_reach_are_nan_and_reached_ones_exact():
    # dy/dt = y, y(0) = 1 with mxstep=3 read 2.71468 at t = 1 (e = 2.71828; JAX too): the
    # last step's polynomial extrapolated, with no error control.
    # The step sequence does not depend on mxstep (the next output time goes on from
    # where the steps stopped: with 4 steps per output time, all but t = 0.4 are
    # reached), so the times reached have the unlimited solve's bits
    full = np.asarray(_solve_grow(np.inf))
    np.testing.assert_allclose(full, np.exp(TS)[:, None] * [1, 1], rtol=1e-7)
    short = np.asarray(_solve_grow(4))
    reached = ~np.isnan(short[:, 0])
    assert reached[0] and not reached.all() and reached[1:].any(), short
    np.testing.assert_array_equal(np.isnan(short[:, 1]), ~reached)
    np.testing.assert_array_equal(short[reached], full[reached])
    got = np.asarray(odeint(lambda y, t: y, jnp.ones(1), jnp.array([0.0, 1.0]), mxstep=3))
    assert got[0, 0] == 1.0 and np.isnan(got[1, 0])


def test_unreached_times_are_nan_under_jit_and_vmap_as_a_python_loop():
    full = np.asarray(_solve_grow(np.inf))
    np.testing.assert_array_equal(np.asarray(tjit.jit(_solve_grow, static_argnums=0)(4)),
                                  np.asarray(_solve_grow(4)))
    rates = np.array([0.05, 1.0, 6.0])        # (all, some and none of TS[1:] reached)

    def solve(a):
        return odeint(lambda y, t, a: a * y, jnp.ones(2), jnp.asarray(TS), a, mxstep=4)
    got = np.asarray(tjit.jit(tjit.vmap(solve))(jnp.asarray(rates)))
    want = np.stack([np.asarray(solve(a)) for a in rates])
    np.testing.assert_array_equal(got, want)
    nan_rows = [np.isnan(w[:, 0]).sum() for w in want]
    assert nan_rows[0] == 0 and 0 < nan_rows[1] < len(TS) - 1 and nan_rows[2] == len(TS) - 1
    np.testing.assert_array_equal(want[1][~np.isnan(want[1][:, 0])],
                                  full[~np.isnan(want[1][:, 0])])


def test_debug_nans_names_odeint_mxstep_and_the_time_reached():
    jitted = tjit.jit(_solve_grow, static_argnums=0)
    for call in (lambda: _solve_grow(4), lambda: jitted(4)):
        with tjit.debug_nans(), pytest.raises(
                FloatingPointError, match=r"odeint: the solution did not reach the output "
                                          r"time 0\.4: mxstep=4 steps were not enough, "
                                          r"stopping at t=0\.3"):
            call()
    with tjit.debug_nans():                   # (reached: no NaN made on the way)
        np.testing.assert_array_equal(np.asarray(_solve_grow(np.inf)),
                                      np.asarray(_solve_grow(np.inf)))


def test_gradient_through_an_unreached_time_is_nan_not_a_wrong_number():
    def loss(a, mxstep):
        return jnp.sum(odeint(lambda y, t, a: a * y, jnp.ones(2), jnp.asarray(TS), a,
                              mxstep=mxstep)[-1])
    np.testing.assert_allclose(float(tjit.grad(loss)(1.0, np.inf)),
                               2 * TS[-1] * np.exp(TS[-1]), rtol=1e-6)
    assert np.isnan(float(tjit.grad(loss)(6.0, 3)))


@pytest.mark.parametrize("dtype", HALF)
def test_half_precision_states_under_vmap_match_a_python_loop(dtype):
    # (stepped in float32 and rounded once: the batch changes nothing of that; the last
    # rate, stiff, does not reach t = 0.5 in 8 steps, and its NaN survives the rounding)
    def solve(y0, a):
        return odeint(lambda y, t, a: a * y, y0, jnp.asarray(HALF_TS, jnp.float32), a,
                      mxstep=8)
    y0s = jnp.asarray([[1.0, -0.5], [0.25, 2.0], [1.0, 1.0]], dtype)
    rates = jnp.asarray([2.0, -1.0, -200.0], dtype)
    got = tjit.vmap(solve)(y0s, rates)
    want = np.stack([np.asarray(solve(y0, a), np.float64) for y0, a in zip(y0s, rates)])
    assert got.dtype == dtype
    np.testing.assert_array_equal(np.asarray(got, np.float64), want)
    _within_half_precision(got[0], np.exp(2 * HALF_TS)[:, None] * [1.0, -0.5], dtype)
    _within_half_precision(got[1], np.exp(-HALF_TS)[:, None] * [0.25, 2.0], dtype)
    assert np.isnan(np.asarray(got[2, 1:], np.float64)).all()


def test_checkify_reports_an_unreached_time_eager_jit_and_vmap():
    def solve(y0):
        return odeint(lambda y, t: y, y0, jnp.asarray(TS), mxstep=4)
    checked = checkify.checkify(solve)
    for call in (checked, tjit.jit(checked),
                 lambda y0: checkify.checkify(tjit.vmap(solve))(jnp.stack([y0, y0]))):
        err, ys = call(jnp.ones(2))
        assert np.isnan(np.asarray(ys)).any()
        assert re.match(r"odeint: the solution did not reach the output time 0\.4: "
                        r"mxstep=4 steps were spent, or the step size \(now [0-9.e-]+\) "
                        r"fell to 0 or NaN; stopped at t=0\.3", err.get()), err.get()
    err, _ = checked(jnp.ones(2) * 1e-3)      # (reached: atol dominates, fewer steps)
    assert err.get() is None
