"""Independent oracles for transformation tests.

* :func:`check_grads` compares jvp and vjp against central finite differences computed
  in float64 (the function is evaluated with x64 enabled on float64 copies of the
  inputs), in random directions, like jax's ``check_grads``.
* :func:`check_vmap` compares ``vmap(f)`` with a Python loop over the batch + stack.
"""

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.tracing.tree_util import tree_flatten, tree_unflatten


def _to64(tree):
    leaves, td = tree_flatten(tree)
    out = [np.asarray(x, np.float64) if np.issubdtype(np.asarray(x).dtype, np.floating)
           else np.asarray(x) for x in leaves]
    return tree_unflatten(td, out)


def _fd_jvp(f, args, tangents, eps):
    """Central difference of f at args along tangents, in float64."""
    leaves, td = tree_flatten(args)
    t_leaves = tree_flatten(tangents)[0]

    def shifted(sign):
        moved = [x + sign * eps * t if np.issubdtype(x.dtype, np.floating) else x
                 for x, t in zip(leaves, t_leaves)]
        return tree_unflatten(td, moved)
    hi = tree_flatten(f(*shifted(+1)))[0]
    lo = tree_flatten(f(*shifted(-1)))[0]
    return [(np.asarray(h, np.float64) - np.asarray(l, np.float64)) / (2 * eps)
            for h, l in zip(hi, lo)]


def check_grads(f, args, order=1, modes=("fwd", "rev"), eps=1e-4, rtol=2e-3, atol=2e-3,
                seed=0):
    """Check jvp/vjp of ``f`` at ``args`` against float64 central differences."""
    rng = np.random.default_rng(seed)
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", True)
    try:
        args64 = _to64(args)
        leaves, td = tree_flatten(args64)
        t_leaves = [rng.standard_normal(np.shape(x)) if np.issubdtype(x.dtype, np.floating)
                    else np.zeros(np.shape(x)) for x in leaves]
        tangents = tree_unflatten(td, [np.asarray(t, x.dtype) for t, x in zip(t_leaves, leaves)])
        j_args = tree_unflatten(td, [jnp.asarray(x) for x in leaves])
        # integer and boolean arguments take float0 tangents, as in JAX
        j_tan = tree_unflatten(td, [jnp.asarray(t) if _inexact(x) else _float0(x)
                                    for t, x in zip(tree_flatten(tangents)[0], leaves)])
        fd = _fd_jvp(lambda *a: f(*tree_unflatten(td, [jnp.asarray(x) for x in
                                                         tree_flatten(a)[0]])),
                     args64, tangents, eps)
        out, t_out = tjit.jvp(f, tuple(j_args), tuple(j_tan))
        if "fwd" in modes:
            for got, want in zip(tree_flatten(t_out)[0], fd):
                if got.dtype == tjit.dtypes.float0:  # an integer output: no tangent
                    assert got.shape == want.shape and not np.any(want), "int output moved"
                    continue
                np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol,
                                           err_msg="jvp vs finite differences")
        if "rev" in modes:
            # <ct, J t> computed by vjp must equal <ct, fd>
            out_leaves, out_td = tree_flatten(out)
            cts = [rng.standard_normal(np.shape(o)).astype(np.asarray(o).dtype)
                   if _inexact(o) else np.zeros(np.shape(o)) for o in out_leaves]
            _, vjp_fn = tjit.vjp(f, *j_args)
            ct_in = vjp_fn(tree_unflatten(out_td, [jnp.asarray(c) if _inexact(o) else
                                                   _float0(o)
                                                   for c, o in zip(cts, out_leaves)]))
            lhs = sum(float(np.sum(np.asarray(a) * t)) for a, t in
                      zip(tree_flatten(ct_in)[0], tree_flatten(tangents)[0])
                      if a.dtype != tjit.dtypes.float0)
            rhs = sum(float(np.sum(c * d)) for c, d in zip(cts, fd))
            np.testing.assert_allclose(lhs, rhs, rtol=rtol, atol=atol,
                                       err_msg="vjp vs finite differences")
        if order > 1:
            def g(*a):
                return tjit.jvp(f, a, tuple(j_tan))[1]
            check_grads(g, args, order - 1, modes, eps, rtol, atol, seed + 1)
    finally:
        tjit.config.update("enable_x64", old)


def _inexact(x):
    return np.issubdtype(np.asarray(x).dtype, np.inexact)


def _float0(x):
    return np.zeros(np.shape(x), tjit.dtypes.float0)


def check_vmap(f, args, in_axes=0, out_axes=0, rtol=1e-6, atol=1e-6):
    """vmap(f)(*args) equals stacking f over a Python loop of the mapped slices."""
    got = tjit.vmap(f, in_axes=in_axes, out_axes=out_axes)(*args)
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    size = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
    outs = []
    for i in range(size):
        sl = [a if ax is None else jnp.asarray(np.take(np.asarray(a), i, axis=ax))
              for a, ax in zip(args, axes)]
        outs.append(f(*sl))
    out_leaves = [tree_flatten(o)[0] for o in outs]
    got_leaves, _ = tree_flatten(got)
    for k, g in enumerate(got_leaves):
        want = np.stack([np.asarray(o[k]) for o in out_leaves], axis=out_axes)
        np.testing.assert_allclose(np.asarray(g), want, rtol=rtol, atol=atol,
                                   err_msg="vmap vs Python loop")
    return got
