"""``tjit.experimental.ode.odeint``: JAX's adaptive Dormand–Prince ODE solver.

The solution is a ``scan`` over the output times whose body is a ``while_loop`` of
Runge–Kutta 5(4) steps with error control (Dormand & Prince 1980, with the embedded
error estimate and the dense-output polynomial JAX uses, so step sequences and values
agree with ``jax.experimental.ode`` to rounding). Gradients are the adjoint method
(Chen et al. 2018, appendix C): a ``custom_vjp`` that integrates the augmented system
backwards between output times, so memory does not grow with the number of steps.

>>> import tjit.numpy as jnp
>>> from tjit.experimental.ode import odeint
>>> ys = odeint(lambda y, t: -y, jnp.ones(2), jnp.array([0.0, 1.0]))
>>> bool(jnp.allclose(ys[1], jnp.exp(-1.0)))
True
"""

import functools
import operator
import weakref

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import _checkify as checkify, lax
from tjit.config import config
from tjit.custom_derivatives import closure_convert, custom_vjp
from tjit.flatten_util import ravel_pytree
from tjit.tracing.core import get_aval, is_eager
from tjit.tracing.static_keys import typed_key
from tjit.tree_util import tree_flatten, tree_leaves, tree_map

# Dormand–Prince 5(4): stage times, stage weights (the last row is the 5th-order
# solution, so the 7th stage is the next step's first: FSAL), the error weights
# (5th minus embedded 4th order) and the midpoint weights of the dense output.
_STAGE_TIMES = (1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_STAGE_WEIGHTS = (
    (1 / 5,),
    (3 / 40, 9 / 40),
    (44 / 45, -56 / 15, 32 / 9),
    (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
    (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
    (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84),
)
_SOLUTION = _STAGE_WEIGHTS[-1] + (0.0,)
_ERROR = (35 / 384 - 1951 / 21600, 0.0, 500 / 1113 - 22642 / 50085,
          125 / 192 - 451 / 720, -2187 / 6784 + 12231 / 42400, 11 / 84 - 649 / 6300,
          -1 / 60)
_MIDPOINT = tuple(w / 2 for w in (
    6025192743 / 30085553152, 0.0, 51252292925 / 65400821598,
    -2691868925 / 45128329728, 187940372067 / 1594534317056,
    -1776094331 / 19743644256, 11237099 / 235043384))


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=np.inf, hmax=np.inf):
    """Integrate ``dy/dt = func(y, t, *args)`` from ``y0`` at ``t[0]``, as
    ``jax.experimental.ode.odeint`` (adaptive Dormand–Prince, adjoint gradients).

    Args:
      func: the time derivative, ``func(y, t, *args)``, returning the structure of
        ``y``.
      y0: the initial state: an array or a pytree of arrays.
      t: a 1-D float array of strictly increasing output times, ``t[0]`` the start.
      *args: extra arguments of ``func`` (arrays, scalars or pytrees of them);
        gradients flow to them.
      rtol, atol: the local error tolerances.
      mxstep: the most steps (accepted or rejected) taken to reach each output time.
        An output time the steps do not reach (``mxstep`` spent, or the step size
        falling to 0 or NaN) is NaN, and so are gradients through the solve; JAX
        returns the last step's extrapolation there, with no error control. The
        solve goes on from where it stopped, so later times may be reached. Under
        ``tjit.debug_nans()`` it raises ``FloatingPointError`` naming the time, the
        cause and the time reached; under ``checkify.checkify`` it is a failed check
        with that message.
      hmax: the largest step.

    A state in a float narrower than float32 (float16, bfloat16) is stepped in
    float32, times too, and rounded to its dtype at the output times; ``func`` still
    sees the state and ``t`` in their own dtypes and must return the state's dtype.
    As its derivative is rounded to that dtype, ``rtol`` is raised to at least a
    hundredth of the dtype's epsilon (JAX steps in the state's dtype and fails:
    dy/dt = 2y, y(0) = 1 in bfloat16 reaches 1.0 at t = 1, not e^2).

    Returns:
      The state at each time of ``t``: ``y0``'s structure with a leading axis of
      ``len(t)``.
    """
    for arg in tree_leaves(args):
        if not _is_array_like(arg):
            raise TypeError(f"odeint: the contents of *args must be arrays or scalars, "
                            f"got {arg!r} of type {type(arg).__name__}; pass other "
                            f"values by closing over them in func")
    t = jnp.asarray(t)
    if not jnp.issubdtype(t.dtype, jnp.floating) or t.ndim != 1 or t.shape[0] < 1:
        raise TypeError(f"odeint: t must be a 1-D array of float times with at least the "
                        f"start time, got dtype {t.dtype} and shape {t.shape}")
    converted, hoisted = _closure_convert(func, y0, t[0], *args)
    return _odeint_wrapper(converted, rtol, atol, mxstep, hmax, y0, t, *args, *hoisted)


def _is_array_like(x):
    return isinstance(x, (tjit.Array, np.ndarray, np.generic, bool, int, float, complex))


#: closure conversions made outside any transformation (so closing over no traced
#: value), per function and (argument structure, types): a repeated eager call reuses
#: the converted function and so the compiled solver (JAX caches closure_convert so)
_CONVERTED = weakref.WeakKeyDictionary()


def _closure_convert(func, *example_args):
    if not is_eager():          # (traced: once per enclosing trace; may close over tracers)
        return closure_convert(func, *example_args)
    leaves, tree = tree_flatten(example_args)
    try:
        # (the weak dictionary finds ``func`` by ==: Turn(0.0) finds Turn(-0.0)'s entry,
        # so the entries are told apart by its typed key, static_keys.py, unless that
        # is ``func`` itself, which an entry must not hold)
        per_func = _CONVERTED.setdefault(func, {})
        func_key = typed_key(func)
    except TypeError:           # (not weakly referenceable: convert every time)
        per_func, func_key = {}, None
    key = (None if func_key is None or func_key[1] is func else func_key, tree,
           tuple((tuple(np.shape(x)), jnp.result_type(x), get_aval(x).weak_type)
                 for x in leaves))
    if key in per_func:
        return per_func[key], []
    converted, hoisted = closure_convert(func, *example_args)
    per_func[key] = converted
    return converted, hoisted


@functools.partial(tjit.jit, static_argnums=(0, 1, 2, 3, 4))
def _odeint_wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    flat_y0, unravel = ravel_pytree(y0)
    state_dtype, time_dtype = flat_y0.dtype, ts.dtype
    solver_dtype = _solver_dtype(state_dtype)

    def flat_func(y, t, *args):
        # (func sees the state and time in their own dtypes, the types it was closure-
        # converted at; the solver gets its derivative in the solver's dtype)
        dy = ravel_pytree(func(unravel(_cast(y, state_dtype)), _cast(t, time_dtype),
                               *args))[0]
        if dy.dtype != state_dtype:
            raise TypeError(f"odeint: func must return the state's dtype {state_dtype}, "
                            f"got {dy.dtype} (for a state of shape {flat_y0.shape} "
                            f"raveled); cast its result, e.g. dy.astype(y.dtype), or "
                            f"give y0 the dtype func computes in")
        return _cast(dy, solver_dtype)
    rtol = _attainable_rtol(rtol, state_dtype, solver_dtype)
    ys = _odeint(flat_func, rtol, atol, mxstep, hmax, _cast(flat_y0, solver_dtype),
                 _cast(ts, _solver_dtype(time_dtype)), *args)
    return tjit.vmap(unravel)(_cast(ys, state_dtype))


def _solver_dtype(dtype):
    """The dtype the solver steps a state (or times) of ``dtype`` in: float32 for the
    floats narrower than it. Stepping in float16 the tolerance 1.4e-8 rounds to 0 and
    the first step is nan; in bfloat16 ``y + h * k`` rounds back to ``y`` at the small
    steps an unattainable tolerance asks for (and ``t + dt`` to ``t`` for bfloat16
    times), so dy/dt = 2y, y(0) = 1 stalled at 1.16 instead of e^2 = 7.39 at t = 1
    (JAX steps in the state's dtype: 1.0 and nan). The solution is rounded to the
    state's dtype once, at the output times."""
    dtype = np.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.floating) and dtype.itemsize < 4:
        return np.dtype(np.float32)
    return dtype


#: the finest relative tolerance a state narrower than the solver's dtype is solved
#: to, in units of its epsilon (see _attainable_rtol); 0.01 keeps the solutions of
#: test_ode.py's half-precision cases within about an ulp in a few steps per unit time
_HALF_RTOL_FLOOR = 0.01


def _attainable_rtol(rtol, state_dtype, solver_dtype):
    """``rtol``, raised for a state narrower than the solver's dtype to a hundredth of
    the state's epsilon. ``func`` returns the derivative rounded to the state's dtype,
    so the error estimate has a floor of about eps/2 * 0.15 * h|f| (0.15: the sum of the
    error weights' sizes) that shrinking the step only lowers in proportion: asking for
    less (the default 1.4e-8 in bfloat16) made the steps collapse, about 2,900 of them
    from t = 0 to 1 for dy/dt = 2y, each rounding the derivative again (SciPy's
    solve_ivp and MATLAB's ode45 raise a too-small rtol so, to 100 eps of float64)."""
    if solver_dtype == state_dtype:
        return rtol
    return max(rtol, _HALF_RTOL_FLOOR * float(jnp.finfo(state_dtype).eps))


def _cast(x, dtype):
    """``x`` in ``dtype``, with no conversion when it is already (so float32 and float64
    solves trace as before, bit for bit)."""
    return x if x.dtype == dtype else x.astype(dtype)


def _weighted_sum(weights, ks):
    """``sum(w * k)`` over the nonzero weights (Python floats: the stages' dtype)."""
    return functools.reduce(operator.add, [w * k for w, k in zip(weights, ks) if w])


def _runge_kutta_step(func, y0, f0, t0, dt):
    """One Dormand–Prince step: the new state, its derivative, the error estimate and
    the seven stage derivatives."""
    h = dt.astype(f0.dtype)
    ks = [f0]
    for c, weights in zip(_STAGE_TIMES, _STAGE_WEIGHTS):
        ks.append(func(y0 + h * _weighted_sum(weights, ks), t0 + c * dt))
    y1 = y0 + h * _weighted_sum(_SOLUTION, ks)
    return y1, ks[-1], h * _weighted_sum(_ERROR, ks), ks


def _dense_output(y0, y1, ks, dt):
    """The coefficients (highest power first) of the 4th-order polynomial in the step
    fraction that interpolates the step from ``y0`` to ``y1``."""
    h = dt.astype(y0.dtype)
    y_mid = y0 + h * _weighted_sum(_MIDPOINT, ks)
    dy0, dy1 = h * ks[0], h * ks[-1]
    return jnp.stack([
        -2 * dy0 + 2 * dy1 - 8 * y0 - 8 * y1 + 16 * y_mid,
        5 * dy0 - 3 * dy1 + 18 * y0 + 14 * y1 - 32 * y_mid,
        -4 * dy0 + dy1 - 11 * y0 - 5 * y1 + 16 * y_mid,
        dy0,
        y0])


def _initial_step(func, t0, y0, order, rtol, atol, f0):
    """Hairer, Nørsett & Wanner, Solving ODEs I, section II.4: a first step from the
    sizes of ``y0``, ``f0`` and a trial Euler step's change in the derivative."""
    scale = (atol + jnp.abs(y0) * rtol).astype(y0.dtype)
    d0 = jnp.linalg.norm(y0 / scale)
    d1 = jnp.linalg.norm(f0 / scale)
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = func(y0 + h0.astype(y0.dtype) * f0, t0 + h0)
    d2 = jnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = jnp.where((d1 <= 1e-15) & (d2 <= 1e-15), jnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / jnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)))
    return jnp.minimum(100.0 * h0, h1)


def _error_ratio(error, rtol, atol, y0, y1):
    """The RMS of the error estimate over the tolerance (accept the step when ≤ 1)."""
    tolerance = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
    ratio = error / tolerance.astype(error.dtype)
    return jnp.sqrt(jnp.mean(jnp.real(ratio * jnp.conj(ratio))))


def _next_step(dt, ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5.0):
    """The step after one with error ratio ``ratio``: grow at most ``ifactor``-fold,
    shrink at most to ``dfactor`` after a rejected step."""
    dfactor = jnp.where(ratio < 1, 1.0, dfactor)
    factor = jnp.minimum(ifactor, jnp.maximum(ratio ** (-1.0 / order) * safety, dfactor))
    return jnp.where(ratio == 0, dt * ifactor, dt * factor)


def _unless_short(y, t, dt, target_t, mxstep):
    """``y`` at ``target_t`` when the steps reached it, else NaN. Steps stop short when
    ``mxstep`` of them are spent or the step size falls to 0 or NaN (a NaN derivative);
    the dense output would then extrapolate the last step, with no error control
    (dy/dt = y, y(0) = 1 to t = 1 with mxstep=3 read 2.71468, not e = 2.71828; JAX
    returns that). A traced condition cannot raise, so the value is NaN; under
    ``checkify`` it is an error, and where the values are concrete (``disable_jit``,
    the op-by-op re-run of ``debug_nans`` under jit) ``debug_nans`` raises naming the
    cause. The solve goes on from where it stopped, so later times can be reached."""
    reached = t >= target_t
    if is_eager():          # (the values are concrete)
        if bool(reached):
            return y        # (no NaN operand: debug_nans checks every op's output)
        if config.debug_nans:
            cause = (f"its step size fell to {float(dt)}" if not dt > 0
                     else f"mxstep={mxstep} steps were not enough")
            raise FloatingPointError(
                f"odeint: the solution did not reach the output time {float(target_t)}: "
                f"{cause}, stopping at t={float(t)}; raise mxstep, loosen rtol/atol, or "
                f"check func for NaNs (the output there is NaN)")
    checkify.debug_check(    # (under checkify: an error; else nothing is staged)
        reached, "odeint: the solution did not reach the output time {}: mxstep="
        f"{mxstep} steps were spent, or the step size (now {{}}) fell to 0 or NaN; "
        "stopped at t={}; raise mxstep, loosen rtol/atol, or check func for NaNs",
        target_t, dt, t)
    return jnp.where(reached, y, jnp.nan)


@functools.partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
def _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    def f(y, t):
        return func(y, t, *args)

    def to_output_time(carry, target_t):
        def more_steps(state):
            i, _, _, t, dt, _, _ = state
            return (t < target_t) & (i < mxstep) & (dt > 0)

        def step(state):
            i, y, fy, t, dt, last_t, coeffs = state
            y1, f1, error, ks = _runge_kutta_step(f, y, fy, t, dt)
            ratio = _error_ratio(error, rtol, atol, y, y1)
            new_coeffs = _dense_output(y, y1, ks, dt)
            new_dt = jnp.clip(_next_step(dt, ratio), 0.0, hmax)
            accepted = [i + 1, y1, f1, t + dt, new_dt, t, new_coeffs]
            rejected = [i + 1, y, fy, t, new_dt, last_t, coeffs]
            return [jnp.where(ratio <= 1.0, a, r) for a, r in zip(accepted, rejected)]

        _, *carry = lax.while_loop(more_steps, step, [0] + carry)
        _, _, t, dt, last_t, coeffs = carry
        fraction = (target_t - last_t) / (t - last_t)
        y = jnp.polyval(coeffs, fraction.astype(coeffs.dtype))
        return carry, _unless_short(y, t, dt, target_t, mxstep)

    f0 = f(y0, ts[0])
    dt = jnp.clip(_initial_step(f, ts[0], y0, 4, rtol, atol, f0), 0.0, hmax)
    coeffs = jnp.stack([y0] * 5)
    _, ys = lax.scan(to_output_time, [y0, f0, ts[0], dt, ts[0], coeffs], ts[1:])
    return jnp.concatenate([y0[None], ys])


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _odeint_bwd(func, rtol, atol, mxstep, hmax, residuals, g):
    """The adjoint: from the last output time back to the first, integrate the state
    backwards together with its cotangent, the start time's and the arguments'."""
    ys, ts, args = residuals

    def augmented(state, minus_t, *args):
        y, y_bar, *_ = state
        y_dot, pullback = tjit.vjp(func, y, -minus_t, *args)
        return (-y_dot, *pullback(y_bar))

    def back_one_interval(carry, i):
        y_bar, t0_bar, args_bar = carry
        t_bar = jnp.real(jnp.dot(func(ys[i], ts[i], *args), g[i]))  # moving output time i
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            augmented, (ys[i], y_bar, t0_bar, args_bar), jnp.stack([-ts[i], -ts[i - 1]]),
            *args, rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = tree_map(operator.itemgetter(1),
                                           (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    start = (g[-1], jnp.zeros((), ts.dtype), tree_map(jnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), ts_bar_reversed = lax.scan(
        back_one_interval, start, jnp.arange(len(ts) - 1, 0, -1))
    ts_bar = jnp.concatenate([t0_bar[None], ts_bar_reversed[::-1]])
    return (y_bar, ts_bar, *args_bar)


_odeint.defvjp(_odeint_fwd, _odeint_bwd)

__all__ = ["odeint"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
