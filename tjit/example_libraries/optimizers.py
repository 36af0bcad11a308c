"""``jax.example_libraries.optimizers`` on tjit: first-order optimizers as
``(init_fun, update_fun, get_params)`` triples over pytrees of arrays, step-size
schedules, and the helpers JAX ships with them.

An optimizer is written for one array (``init(x0) -> state``, ``update(i, g, state) ->
state``, ``get_params(state) -> x``) and the :func:`optimizer` decorator lifts it to
pytrees: the state of a parameter tree is an :class:`OptimizerState` holding each leaf's
flattened state, so it is itself a pytree that ``jit`` can take and return.

Usage (as in JAX)::

    opt_init, opt_update, get_params = optimizers.adam(1e-3)
    opt_state = opt_init(params)

    @jit
    def step(i, opt_state, batch):
        grads = grad(loss)(get_params(opt_state), batch)
        return opt_update(i, grads, opt_state)

Pure Python over ``tjit.numpy`` and ``tjit.tree_util``; the update formulas are JAX's.
"""

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

import tjit.numpy as jnp
from tjit import tree_util

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
# Only the packed per-leaf states are leaves; the tree definitions are static aux data.
tree_util.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]))

Schedule = Callable[[int], Any]


class Optimizer(NamedTuple):
    """The triple an optimizer constructor returns."""

    init_fn: Callable
    update_fn: Callable
    params_fn: Callable


def _flatten_all(trees):
    pairs = [tree_util.tree_flatten(t) for t in trees]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def optimizer(opt_maker):
    """Decorator: lift an optimizer written for single arrays to pytrees of arrays.

    Args:
      opt_maker: returns ``(init, update, get_params)`` acting on one array and its state
        (a pytree of arrays).

    Returns:
      A constructor with the same arguments returning an :class:`Optimizer` whose
      functions act on parameter pytrees and :class:`OptimizerState` values.
    """
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_util.tree_flatten(x0_tree)
            states_flat, subtrees = _flatten_all([init(x0) for x0 in x0_flat])
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, tree2 = tree_util.tree_flatten(grad_tree)
            if tree2 != tree:
                raise TypeError(
                    f"optimizer update function was passed a gradient tree that did not "
                    f"match the parameter tree structure with which it was initialized: "
                    f"parameter tree {tree} and grad tree {tree2}.")
            states = [tree_util.tree_unflatten(s, f) for s, f in zip(subtrees, states_flat)]
            new_states = [update(i, g, s) for g, s in zip(grad_flat, states)]
            new_flat, subtrees2 = _flatten_all(new_states)
            for s1, s2 in zip(subtrees, subtrees2):
                if s1 != s2:
                    raise TypeError(
                        f"optimizer update function produced an output structure that did "
                        f"not match its input structure: input {s1} and output {s2}.")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = [tree_util.tree_unflatten(s, f) for s, f in zip(subtrees, states_flat)]
            return tree_util.tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


# -- optimizers -------------------------------------------------------------------------------
def _first(state):
    return state[0]


@optimizer
def sgd(step_size):
    """Stochastic gradient descent: ``x - step_size(i) * g``.

    Args:
      step_size: a positive scalar or a schedule (iteration index -> scalar).
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0

    def update(i, g, x):
        return x - step_size(i) * g

    return Optimizer(init, update, lambda x: x)


@optimizer
def momentum(step_size, mass):
    """SGD with momentum: ``v = mass * v + g; x = x - step_size(i) * v``."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    return init, update, _first


@optimizer
def nesterov(step_size, mass):
    """SGD with Nesterov momentum: ``v = mass * v + g; x = x - step_size(i) * (mass * v +
    g)``."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    return init, update, _first


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad (Duchi et al. 2011) with momentum on the scaled gradient, as JAX's."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        # where g_sq is 0 so is g: the scaled gradient is 0, not 0 * inf
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1.0 / jnp.sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m

    return init, update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: ``a = gamma * a + (1 - gamma) * g**2; x = x - step * g / sqrt(a + eps)``."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return init, update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp with momentum on the scaled step."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return init, update, _first


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma & Ba 2015) with bias-corrected moments; ``eps`` is added to the
    square root of the second moment."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        # the powers in the moments' dtype, so float32 training stays float32
        mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v

    return init, update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax: Adam with the infinity norm, ``u = max(b2 * u, |g|)``."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        x = x - (step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))) * m / (u + eps)
        return x, m, u

    return init, update, _first


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al. 2019): one accumulator per index of each axis; the second moment
    of an element is the minimum over its axes' accumulators."""
    step_size = make_schedule(step_size)

    def along(ndim, v, axis):
        # v's values along ``axis`` of an ndim array (a scalar's gradient: v itself)
        idx = [None] * ndim
        idx[axis:axis + 1] = [slice(None)]
        return v[tuple(idx)]

    def init(x0):
        shape = tuple(x0.shape)
        x0 = jnp.atleast_1d(x0)
        vs = [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape]
        return x0, jnp.zeros_like(x0), vs, shape

    def update(i, g, state):
        x, m, vs, shape = state
        vs = [along(g.ndim, v, k) for k, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
        accum_inv_sqrt = jnp.where(accum > 0, 1.0 / jnp.sqrt(accum), 0)
        m = (1.0 - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        vs = [accum.max(tuple(a for a in range(x.ndim) if a != k)) for k in range(x.ndim)]
        return x, m, vs, shape

    def get_params(state):
        x, _, _, shape = state
        return x.reshape(shape)

    return init, update, get_params


# -- schedules --------------------------------------------------------------------------------
def constant(step_size):
    """The schedule that is always ``step_size``."""
    return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate):
    """``step_size * decay_rate ** (i / decay_steps)``."""
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """``step_size / (1 + decay_rate * i / decay_steps)`` (``floor`` of the ratio with
    ``staircase``)."""
    if staircase:
        return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From ``step_size`` to ``final_step_size`` over ``decay_steps`` steps along
    ``(1 - i / decay_steps) ** power``, then constant."""
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries, values):
    """``values[k]`` for ``boundaries[k-1] < i <= boundaries[k]`` (``values`` is one
    longer than ``boundaries``)."""
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")
    return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule):
    """A schedule from a callable (returned as is) or a scalar (a constant schedule)."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(f"step size must be a scalar or a schedule (callable), got "
                    f"{type(scalar_or_schedule)} of shape {jnp.shape(scalar_or_schedule)}")


# -- utilities --------------------------------------------------------------------------------
def l2_norm(tree):
    """The l2 norm of all the leaves of a pytree together (useful for weight decay)."""
    leaves = tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """Scale a gradient pytree down to global l2 norm ``max_norm`` if it is larger."""
    norm = l2_norm(grad_tree)
    return tree_util.tree_map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)),
                              grad_tree)


# -- serialization ----------------------------------------------------------------------------
class JoinPoint:
    """Marks the boundary between two joined (nested) pytrees."""

    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):  # looks iterable, as the containers of arrays pytrees hold
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """An :class:`OptimizerState` as a pytree of :class:`JoinPoint` leaves (each holding
    one parameter's state pytree), e.g. to pickle it."""
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = [tree_util.tree_unflatten(s, f) for s, f in zip(subtree_defs, states_flat)]
    return tree_util.tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree):
    """The inverse of :func:`unpack_optimizer_state`."""
    sentinels, tree_def = tree_util.tree_flatten(marked_pytree)
    if not all(isinstance(s, JoinPoint) for s in sentinels):
        raise TypeError("pack_optimizer_state: every leaf must be a JoinPoint (the output "
                        "of unpack_optimizer_state)")
    states_flat, subtree_defs = _flatten_all([s.subtree for s in sentinels])
    return OptimizerState(states_flat, tree_def, subtree_defs)


# JAX's names; the others here are helpers that other tjit modules import
__all__ = [
    "JoinPoint", "Optimizer", "OptimizerState", "Schedule", "adagrad", "adam", "adamax",
    "clip_grads", "constant", "exponential_decay", "inverse_time_decay", "l2_norm",
    "make_schedule", "momentum", "nesterov", "optimizer", "pack_optimizer_state",
    "piecewise_constant", "polynomial_decay", "rmsprop", "rmsprop_momentum", "sgd",
    "sm3", "unpack_optimizer_state"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
