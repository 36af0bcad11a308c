"""Test oracle: a plain NumPy interpreter of :class:`tjit.xla_like.hlo.HloModule`.

Every op is evaluated whole-array with NumPy. Elementwise semantics come from the
primitives' reference implementations (``REGISTRY[name].impl``), so an HLO graph and
the jaxpr it was lowered from can be compared bit for bit. Every result is checked
against the instruction's declared shape and dtype, so a lowering that states a wrong
type is caught here rather than in a backend.

Used by the simplifier's and the fusion pass's tests; keep it obvious, not fast.
"""

import numpy as np
import sympy

from tjit.primitives.base import REGISTRY
from tjit.tracing.shapes import symbol
from tjit.xla_like import hlo

_ROUNDING = {"round": 0, "round_even": 1}


def evaluate_module(module, args, env=None):
    """Run ``module`` on NumPy ``args`` (one per parameter).

    Args:
      module: an HloModule.
      args: arrays, one per ``module.params`` entry (in order).
      env: optional {size symbol or its name: int} for symbolic dims; symbols that are
        a parameter's dim are also bound from the argument shapes.

    Returns:
      The list of output arrays (NumPy), one per ``module.outputs`` entry.
    """
    if len(args) != len(module.params):
        raise ValueError(f"evaluate_module: {module.name} takes {len(module.params)} "
                         f"arguments, got {len(args)}")
    env = _bind_env(module, args, env)
    vals = {}
    for p, a in zip(module.params, args):
        vals[p.id] = np.asarray(a)
    for i in module.instrs:
        if i.opcode == "parameter":
            if i.id not in vals:
                raise ValueError(f"evaluate_module: parameter %{i.id} is not in params")
            v = vals[i.id]
        else:
            ops = [vals[o.id] for o in i.operands]
            v = evaluate_instr(i, ops, env)
        if i.opcode not in ("library", "control"):
            _check(i, v, env)
        vals[i.id] = v
    return [vals[o.id] for o in module.outputs]


def _bind_env(module, args, env):
    out = {}
    for k, v in (env or {}).items():
        out[symbol(k) if isinstance(k, str) else k] = int(v)
    for p, a in zip(module.params, args):
        shape = np.shape(a)
        if len(shape) != len(p.shape):
            raise ValueError(f"evaluate_module: parameter {p.attrs.get('index')} has shape "
                             f"{p.shape}, got an argument of shape {shape}")
        for d, n in zip(p.shape, shape):
            if isinstance(d, sympy.Symbol):
                out.setdefault(d, int(n))
    return out


def concrete(shape, env):
    """``shape`` with every symbolic dim evaluated in ``env``."""
    out = []
    for d in shape:
        if not isinstance(d, int):
            d = sympy.sympify(d).subs(env)
            if not d.is_Integer:
                raise ValueError(f"evaluate_module: dim {d} is not determined by {env}")
        out.append(int(d))
    return tuple(out)


def _check(i, v, env):
    want = concrete(i.shape, env)
    if not isinstance(v, np.ndarray) or v.shape != want or v.dtype != i.dtype:
        got = (getattr(v, "shape", None), getattr(v, "dtype", type(v)))
        raise AssertionError(f"%{i.id} = {i.opcode}: declared {i.dtype}{list(want)}, "
                             f"computed {got[1]}{list(got[0] or ())}")


def evaluate_instr(i, ops, env):
    """The value of instruction ``i`` given its operands' values."""
    op = i.opcode
    if op == "constant":
        return np.asarray(i.attrs["value"])
    if op in hlo.ELEMENTWISE:
        return np.asarray(_elementwise(op, ops, i.dtype))
    shape = concrete(i.shape, env)
    if op == "size":    # (its value wraps into the dtype, as the kernels' conversion does)
        return np.asarray(concrete((i.attrs["size"],), env)[0]).astype(i.dtype)
    if op == "iota":
        d = i.attrs["dimension"]
        r = np.arange(shape[d], dtype=i.dtype)
        return np.broadcast_to(r.reshape([-1 if k == d else 1 for k in range(len(shape))]),
                               shape)
    if op == "broadcast":
        return _broadcast(ops[0], shape, i.attrs["dims"])
    if op == "transpose":
        return np.transpose(ops[0], i.attrs["perm"])
    if op == "rev":
        return np.flip(ops[0], tuple(i.attrs["dims"]))
    if op == "reshape":
        return np.reshape(ops[0], shape)
    if op == "slice":
        a = i.attrs
        st, li, sd = (concrete(a[k], env) for k in ("start", "limit", "strides"))
        return ops[0][tuple(slice(s, l, t) for s, l, t in zip(st, li, sd))]
    if op == "reduce":
        return np.asarray(REGISTRY["reduce_" + i.attrs["monoid"]].impl(
            np, ops[0], axes=tuple(i.attrs["axes"])))
    if op == "dot":
        return np.asarray(REGISTRY["dot_general"].impl(
            np, ops[0], ops[1], dimension_numbers=i.attrs["dimension_numbers"],
            preferred_element_type=i.dtype))
    if op == "library":
        return list(i.attrs["fn"](np, env, *ops))
    if op == "control":
        return _control(i, ops, env)
    if op == "take":
        return _take(i, *ops)
    if op == "get":
        return np.asarray(ops[0][i.attrs["index"]])
    raise NotImplementedError(f"evaluate_module: unknown opcode {op!r}")


def _take(i, x, idx):
    """Gather along ``axis`` with clamped indices (``fill`` where out of range): each
    result point reads the operand at its ("o"/"s") dims and the index at its ("b"/"s")
    dims, spelled out with NumPy fancy indexing."""
    axis, out_dims, fill = i.attrs["axis"], i.attrs["out_dims"], i.attrs["fill"]
    raw = np.asarray(idx).astype(np.int64)
    x = np.asarray(x)
    n = x.shape[axis]
    shape = tuple(x.shape[t[1]] if t[0] == "o" else raw.shape[t[1]] for t in out_dims)
    grid = np.indices(shape, sparse=True)
    at_idx, at_x = [None] * raw.ndim, [None] * x.ndim
    for k, t in enumerate(out_dims):
        if t[0] in ("b", "s"):
            at_idx[t[1]] = grid[k]
        if t[0] in ("o", "s"):
            at_x[t[-1]] = grid[k]
    r = raw[tuple(at_idx)]
    at_x[axis] = np.clip(r, 0, n - 1)
    g = np.broadcast_to(x[tuple(at_x)], shape)
    if fill is not None:
        g = np.where((r >= 0) & (r < n), g, np.asarray(fill, x.dtype))
    return np.asarray(g, x.dtype)


def _control(i, ops, env):
    """cond/while/scan by evaluating the body modules (the lax semantics, spelled out)."""
    a, bodies = i.attrs, i.attrs["bodies"]
    run = lambda body, args: evaluate_module(body, args, env)  # noqa: E731
    if a["kind"] == "cond":
        return run(bodies[min(max(int(ops[0]), 0), len(bodies) - 1)], ops[1:])
    if a["kind"] == "while":
        nc, nb = a["cond_nconsts"], a["body_nconsts"]
        carry = list(ops[nc + nb:])
        while run(bodies[0], ops[:nc] + carry)[0]:
            carry = run(bodies[1], ops[nc:nc + nb] + carry)
        return carry
    n, nk, length = a["num_consts"], a["num_carry"], int(sympy.sympify(a["length"]).subs(env))
    carry, xs, ys = list(ops[n:n + nk]), ops[n + nk:], []
    steps = range(length - 1, -1, -1) if a["reverse"] else range(length)
    for t in steps:
        outs = run(bodies[0], ops[:n] + carry + [x[t] for x in xs])
        carry = outs[:nk]
        ys.append(outs[nk:])
    if a["reverse"]:
        ys.reverse()
    stacked = [np.stack(col) for col in zip(*ys)] if ys else [
        np.empty(concrete(s, env), d) for s, d in a["out_avals"][nk:]]
    return carry + stacked


def _elementwise(op, ops, dtype):
    if op in _ROUNDING:
        return REGISTRY["round"].impl(np, ops[0], rounding_method=_ROUNDING[op])
    if op == "select":
        pred, on_true, on_false = ops
        return REGISTRY["select_n"].impl(np, pred, on_false, on_true)
    if op == "convert":
        return REGISTRY["convert_element_type"].impl(np, ops[0], new_dtype=dtype)
    if op == "bitcast":
        return REGISTRY["bitcast_convert_type"].impl(np, ops[0], new_dtype=dtype)
    return REGISTRY[op].impl(np, *ops)


def _broadcast(x, shape, dims):
    """Operand dim ``k`` -> result dim ``dims[k]`` (equal size, or 1 expanded)."""
    order = np.argsort(dims)
    x = np.transpose(x, order) if x.ndim > 1 else x
    dims = [dims[k] for k in order]
    expanded = [1] * len(shape)
    for k, d in enumerate(dims):
        expanded[d] = x.shape[k]
    return np.broadcast_to(np.reshape(x, expanded), shape)
