"""``lax`` control flow run as Python under ``tjit.disable_jit()``, as JAX does: a
``cond`` calls one branch, a loop runs as a Python loop, so ``print`` and a debugger in
the bodies see every iteration's values. Only where every operand is concrete (eager,
not under a transformation); otherwise the primitive runs as usual."""

from tjit.config import config
from tjit.tracing.core import Tracer, is_eager
from tjit.tracing.tree_util import tree_flatten, tree_leaves, tree_map, tree_unflatten


def applies(*trees):
    """Run as Python? ``disable_jit`` is on, the trace is eager, no operand traced."""
    return config.disable_jit and is_eager() and not any(
        isinstance(x, Tracer) for t in trees for x in tree_leaves(t))


def while_loop(cond_fun, body_fun, init_val, as_operand):
    val = tree_map(as_operand, init_val)
    while bool(cond_fun(val)):
        val = tree_map(as_operand, body_fun(val))
    return val


def scan(op, f, init, xs_flat, xs_tree, length, reverse):
    if length == 0:
        raise ValueError(f"{op}: a scan of length 0 cannot run under disable_jit(): its "
                         f"outputs' types are unknown without tracing; run it with jit on")
    from tjit.numpy import stack   # (lax must not import numpy at module level)
    carry, ys = init, []
    steps = range(length - 1, -1, -1) if reverse else range(length)
    for i in steps:
        carry, y = f(carry, tree_unflatten(xs_tree, [x[i] for x in xs_flat]))
        ys.append(y)
    if reverse:
        ys.reverse()
    leaves = [tree_flatten(y) for y in ys]
    tree = leaves[0][1]
    stacked = [stack([ls[j] for ls, _ in leaves]) for j in range(tree.num_leaves)]
    return carry, tree_unflatten(tree, stacked)
