"""Jacobians and Hessians built from jvp/vjp and vmap (as in JAX)."""

import functools

import numpy as np

from tjit.tracing.traceback_util import api_boundary
from tjit.tracing import dtypes
from tjit import lax
from tjit.tracing.core import Array, get_aval
from tjit.tracing.tree_util import tree_flatten, tree_unflatten, tree_map
from tjit.transforms.ad import (
    DiffArgnums, _check_inexact_args, _check_output_dtype, _to_array,
    check_real_or_holomorphic, jvp, vjp)
from tjit.transforms.batching import vmap
from tjit.transforms.jit_of_transform import routed
from tjit.primitives.rules import zeros_like_aval


def _float0_as_zeros(tangents, primals):
    """Jacobian blocks of integer or boolean values are zeros of the value's dtype, as in
    JAX (the float0 tangents jvp/vjp give them have no elements to stack)."""
    t_leaves, t_tree = tree_flatten(tangents)
    p_leaves = tree_flatten(primals)[0]
    return tree_unflatten(t_tree, [zeros_like_aval(get_aval(_to_array(p)))
                                   if dtypes.is_float0(t) else t
                                   for t, p in zip(t_leaves, p_leaves)])


def _weak_as_inputs(cts, primals):
    """Each input's Jacobian block with that input's weak type, as JAX's jacrev casts
    its blocks to the input's type (``_possible_downcast``): ``jacrev(f)(3. + 4j)`` is
    weak even where grad's cotangent, built by real's transpose, is strong."""
    c_leaves, c_tree = tree_flatten(cts)
    p_leaves = tree_flatten(primals)[0]
    out = []
    for c, p in zip(c_leaves, p_leaves):
        weak = get_aval(_to_array(p)).weak_type
        if not dtypes.is_float0(c) and get_aval(c).weak_type != weak:
            c = lax.convert_element_type(c, get_aval(c).dtype, weak_type=weak)
        out.append(c)
    return tree_unflatten(c_tree, out)


def _std_basis(flat):
    """Identity matrices, one per leaf, stacked over the total input size."""
    sizes = [int(get_aval(x).size) for x in flat]
    total = sum(sizes)
    dt = dtypes.result_type(*[(get_aval(x).dtype, False) for x in flat])[0] if flat else \
        dtypes.default_float()
    eye = np.eye(total, dtype=dt)  # a constant: built on the host
    out, start = [], 0
    for x, n in zip(flat, sizes):
        a = get_aval(x)
        block = eye[:, start:start + n].reshape((total,) + tuple(a.shape)).astype(a.dtype)
        out.append(Array(np.ascontiguousarray(block), False))
        start += n
    return out, total


def _dyn_args(args, nums):
    """The differentiated arguments, each a pytree (dict/list/tuple...) of arrays."""
    # tree_map: a differentiated argument may be a pytree, not only an array
    return tuple(tree_map(_to_array, args[n]) for n in nums)


def _check_jacfwd_inputs(dyn, holomorphic):
    for a in tree_flatten(dyn)[0]:
        check_real_or_holomorphic("jacfwd", get_aval(a).dtype, holomorphic, "inputs", "jvp")


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """Jacobian by forward mode: one jvp per input element, vectorized with vmap.
    Output leaves have shape ``out.shape + in.shape``."""
    return routed(fun, ("jacfwd", argnums, has_aux, holomorphic),
                  lambda f: _jacfwd(f, argnums, has_aux, holomorphic, "jacfwd"))


def _jacfwd(fun, argnums, has_aux, holomorphic, what):
    # an argnums out of range for the call is a ValueError here, as in JAX
    spec = DiffArgnums(fun, argnums, what, too_few=ValueError)

    @api_boundary
    @functools.wraps(fun)
    def jac_fn(*args, **kwargs):
        nums = spec.resolve(args)
        dyn = _dyn_args(args, nums)
        _check_jacfwd_inputs(dyn, holomorphic)
        flat, in_tree = tree_flatten(dyn)

        def f_dyn(*d):
            full = list(args)
            for n, v in zip(nums, d):
                full[n] = v
            return fun(*full, **kwargs)
        f_dyn.__name__ = getattr(fun, "__name__", "<function>")  # for error messages
        basis, total = _std_basis(flat)

        def push(*tangent_leaves):
            tangents = tree_unflatten(in_tree, list(tangent_leaves))
            res = jvp(f_dyn, dyn, tangents, has_aux=has_aux)
            t_out = _float0_as_zeros(res[1], res[0])
            return (t_out, res[2]) if has_aux else t_out
        out = vmap(push, in_axes=0, out_axes=-1)(*basis)
        if has_aux:
            out, aux = out
        jac = _reshape_jac(out, flat, in_tree, spec.single)
        return (jac, tree_map(lambda a: a[..., 0] if hasattr(a, "ndim") else a, aux)) \
            if has_aux else jac
    return jac_fn


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """Jacobian by reverse mode: one vjp per output element, vectorized with vmap.
    Output leaves have shape ``out.shape + in.shape``."""
    return routed(fun, ("jacrev", argnums, has_aux, holomorphic, allow_int),
                  lambda f: _jacrev(f, argnums, has_aux, holomorphic, allow_int, "jacrev"))


def _jacrev(fun, argnums, has_aux, holomorphic, allow_int, what):
    spec = DiffArgnums(fun, argnums, what, too_few=ValueError)

    @api_boundary
    @functools.wraps(fun)
    def jac_fn(*args, **kwargs):
        nums = spec.resolve(args)
        dyn = _dyn_args(args, nums)
        _check_inexact_args("jacrev", dyn, allow_int, holomorphic)

        def f_dyn(*d):
            full = list(args)
            for n, v in zip(nums, d):
                full[n] = v
            return fun(*full, **kwargs)
        f_dyn.__name__ = getattr(fun, "__name__", "<function>")  # for error messages
        res = vjp(f_dyn, *dyn, has_aux=has_aux)
        y, vjp_fn = res[0], res[1]
        y_flat, y_tree = tree_flatten(y)
        for leaf in y_flat:
            _check_output_dtype("jacrev", get_aval(_to_array(leaf)).dtype, holomorphic)
        basis, total = _std_basis(y_flat)
        cts = vmap(lambda *b: _float0_as_zeros(vjp_fn(tree_unflatten(y_tree, list(b))),
                                               dyn))(*basis)
        cts = _weak_as_inputs(cts, dyn)
        jac = _reshape_rev(cts, y_flat, y_tree, spec.single)
        return (jac, res[2]) if has_aux else jac
    return jac_fn


def _reshape_jac(out, flat_in, in_tree, single):
    """Forward: ``out`` leaves are (*y.shape, total_in); split into per-input blocks."""
    y_leaves, y_tree = tree_flatten(out)
    per_out = []
    for o in y_leaves:
        a = get_aval(o)
        yshape = tuple(a.shape[:-1])
        blocks, start = [], 0
        for x in flat_in:
            xa = get_aval(x)
            n = int(xa.size)
            blk = lax.reshape(lax.slice_in_dim(o, start, start + n, axis=-1),
                              yshape + tuple(xa.shape))
            blocks.append(blk)
            start += n
        per_out.append(tree_unflatten(in_tree, blocks)[0] if single else
                       tree_unflatten(in_tree, blocks))
    return tree_unflatten(y_tree, per_out)


def _reshape_rev(cts, y_flat, y_tree, single):
    """Reverse: ``cts`` is a tuple (per input) of (total_out, *in.shape) leaves."""
    cts_flat, in_tree = tree_flatten(cts)
    per_out, start = [], 0
    for y in y_flat:
        ya = get_aval(y)
        n = int(ya.size)
        blocks = [lax.reshape(lax.slice_in_dim(c, start, start + n, axis=0),
                              tuple(ya.shape) + tuple(c.shape[1:]))
                  for c in cts_flat]
        per_out.append(tree_unflatten(in_tree, blocks)[0] if single else
                       tree_unflatten(in_tree, blocks))
        start += n
    return tree_unflatten(y_tree, per_out)  # output structure outside, as in JAX


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """Hessian: ``jacfwd(jacrev(fun))``."""
    return routed(fun, ("hessian", argnums, has_aux, holomorphic),
                  lambda f: _hessian(f, argnums, has_aux, holomorphic))


def _hessian(fun, argnums, has_aux, holomorphic):
    inner = _jacrev(fun, argnums, has_aux, holomorphic, False, "hessian")
    return _jacfwd(inner, argnums, has_aux, holomorphic, "hessian")


jacobian = jacrev  # JAX's alias
