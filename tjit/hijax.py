"""``VJPHiPrimitive`` (JAX's ``jax.experimental.hijax``): an operation defined by a class
with an implementation (``expand``) and its own rules for reverse mode (``vjp_fwd`` with
``vjp_bwd_retval`` or ``vjp_bwd``), forward mode (``jvp``, or ``lin``/``linearized``)
and batching (``batch`` or ``batch_dim_rule``), plus the helpers that derive one rule
from another (``vjp_from_jvp``, ``vjp_from_lin``, ``linearize_from_jvp``,
``jvp_from_lin``).

tjit builds an instance's call from the machinery it already has: ``custom_vmap``
holds the batching rule, ``custom_vjp`` the reverse-mode rules and ``custom_jvp`` the
forward-mode rule. A class with both kinds of rule uses its vjp rules where a call is
being linearized (``grad``, ``vjp``, ``linearize``: the jvp trace sits on a linearize
trace) and its jvp rule otherwise (``jax.jvp``, ``jacfwd``); so the function that
``jax.linearize`` returns for a class with a hand-written vjp rule cannot be evaluated
forward (it raises, as for ``custom_vjp``). Reverse mode derived from ``jvp``/``lin``
(``vjp_from_jvp``, ``vjp_from_lin``) is the transpose of the custom_jvp path. Under ``jit`` the call appears in the
jaxpr as a ``custom_vjp_call`` / ``custom_jvp_call`` equation, not JAX's single
``call_hi_primitive`` equation.

Not provided (JAX features newer than its 0.10 releases): ``f_vjp.with_logs``
(``f_vjp.with_refs`` is, in tjit/transforms/vjp_object.py), structured residuals (a
4-tuple from ``vjp_fwd``), ``HiType``.
``vjp_bwd`` gets a :class:`ValAccum` for each differentiated input and a
:class:`NullAccum` for the others.
"""

import numpy as np

from tjit import numpy as jnp
from tjit.custom_batching import custom_vmap
from tjit.custom_derivatives import CustomVJPPrimal, SymbolicZero, custom_jvp, custom_vjp
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import current_trace, get_aval, is_eager
from tjit.tracing.tree_util import tree_flatten, tree_map, tree_unflatten
from tjit.transforms.ad import JVPTrace, vjp
from tjit.transforms.custom_derivatives import canonical_numpy
from tjit.transforms.batching import vmap
from tjit.transforms.partial_eval import LinearizeTrace

Zero = SymbolicZero  # a symbolic zero (co)tangent: has .aval, .shape, .dtype


def instantiate_zeros(x):
    """``x`` with a symbolic :class:`Zero` made a zeros array (other values unchanged)."""
    return x.instantiate() if isinstance(x, SymbolicZero) else x


# -- gradient accumulators handed to ``vjp_bwd`` --------------------------------------------
class GradAccum:
    """Where ``vjp_bwd`` puts one input's cotangent: ``acc.accum(value)`` adds to it."""

    def accum(self, x):
        raise NotImplementedError


class ValAccum(GradAccum):
    """Accumulates cotangent values (the sum of every ``accum`` call); ``aval`` is the
    input's type."""

    def __init__(self, aval):
        self.aval, self.val = aval, None

    def accum(self, x):
        if x is None or isinstance(x, SymbolicZero):
            return
        self.val = x if self.val is None else self.val + x


class RefAccum(GradAccum):
    """Adds every accumulated cotangent into a mutable array ref."""

    def __init__(self, ref):
        self.ref = ref

    def accum(self, x):
        if x is not None and not isinstance(x, SymbolicZero):
            self.ref[...] += x


class NullAccum:
    """Stands for an input whose cotangent is not wanted (not a GradAccum)."""

    def accum(self, x):
        pass


class AxisData:
    """The vmapped axis a batching rule is called for: ``size`` and ``name``."""

    def __init__(self, size, name=None):
        self.size, self.name, self.spmd_name = size, name, None
        self.explicit_mesh_axis = None

    def __repr__(self):
        return f"AxisData(size={self.size}, name={self.name!r})"


def _is_aval(x):
    return isinstance(x, ShapedArray)


def _is_accum(x):
    return isinstance(x, (GradAccum, NullAccum))


def _overrides(obj, name):
    return getattr(type(obj), name) is not getattr(VJPHiPrimitive, name)


# -- the base class ----------------------------------------------------------------------------
class VJPHiPrimitive:
    """Base class of an operation with its own implementation and derivative rules.

    A subclass's ``__init__`` sets ``self.in_avals`` (a tuple, one pytree of
    ShapedArrays per argument), ``self.out_aval`` (a pytree of ShapedArrays) and
    ``self.params`` (a dict of static, hashable values; each also becomes an attribute),
    then calls ``super().__init__()``. Calling the instance applies the operation.
    """

    def __init__(self):
        for attr in ("in_avals", "out_aval", "params"):
            if not hasattr(self, attr):
                raise AttributeError(f"subclass __init__ should set `self.{attr}`")
        if _overrides(self, "vjp_bwd") and _overrides(self, "vjp_bwd_retval"):
            raise AttributeError(f"subclass {type(self)} should not override both "
                                 "`vjp_bwd` and `vjp_bwd_retval`")
        if (getattr(type(self).jvp, "_from_lin", False)
                and getattr(type(self).lin, "_from_jvp", False)):
            raise AttributeError(f"subclass {type(self)} derives `jvp` from `lin` and `lin` "
                                 "from `jvp` (jvp_from_lin with linearize_from_jvp): one of "
                                 "the two rules must be written by hand")
        self.in_avals_flat, self.in_tree = tree_flatten(tuple(self.in_avals), is_leaf=_is_aval)
        self.out_avals_flat, self.out_tree = tree_flatten(self.out_aval, is_leaf=_is_aval)
        self.__dict__.update(self.params)
        self.check(*self.in_avals)

    # -- rules a subclass may define -------------------------------------------------------
    def expand(self, *args):
        raise NotImplementedError(f"subclass {type(self)} must implement `expand`")

    def vjp_fwd(self, nzs_in, *args):
        raise NotImplementedError(
            f"for grad support, subclass {type(self)} must implement `vjp_fwd`, or derive "
            "its reverse-mode rules from its jvp or lin rules by setting `vjp_fwd, "
            "vjp_bwd_retval = vjp_from_jvp` (or `= vjp_from_lin`)")

    def vjp_bwd(self, res, outgrad, *arg_accums):
        args_grad = self.vjp_bwd_retval(res, outgrad)
        if not isinstance(args_grad, (tuple, list)) or len(args_grad) != len(arg_accums):
            raise TypeError(f"{type(self).__name__}.vjp_bwd_retval must return a tuple with "
                            f"one cotangent (or None) per argument ({len(arg_accums)}), got "
                            f"{args_grad!r:.80}")
        for accs, grad in zip(arg_accums, args_grad):
            _accumulate(accs, grad)

    def vjp_bwd_retval(self, res, outgrad):
        raise NotImplementedError(
            f"for grad support, subclass {type(self)} must implement `vjp_bwd` or "
            "`vjp_bwd_retval`, or derive its reverse-mode rules by setting `vjp_fwd, "
            "vjp_bwd_retval = vjp_from_jvp` (or `= vjp_from_lin`)")

    def jvp(self, primals, tangents):
        raise NotImplementedError(f"for jvp support, subclass {type(self)} must implement "
                                  "`jvp`")

    def lin(self, nzs_in, *primals):
        raise NotImplementedError(
            f"for linearize support, subclass {type(self)} must implement `lin` and "
            "`linearized`, or derive them from its `jvp` rule by setting `lin, linearized "
            "= linearize_from_jvp`")

    def linearized(self, residuals, *tangents):
        raise NotImplementedError(
            f"for linearize support, subclass {type(self)} must implement `lin` and "
            "`linearized`, or derive them from its `jvp` rule by setting `lin, linearized "
            "= linearize_from_jvp`")

    def batch(self, axis_data, args, dims):
        out_dim = self.batch_dim_rule(axis_data, dims)
        out = vmap(self.expand, in_axes=tuple(dims), out_axes=out_dim,
                   axis_size=axis_data.size)(*args)
        return out, out_dim

    def batch_dim_rule(self, axis_data, dims):
        raise NotImplementedError(f"for vmap support, subclass {type(self)} must implement "
                                  "`batch` or `batch_dim_rule`")

    def check(self, *arg_tys):
        return  # a subclass may check its argument types here

    # -- applying it -----------------------------------------------------------------------
    def __call__(self, *args):
        if len(args) != len(self.in_avals):
            raise TypeError(f"{type(self).__name__}: expected {len(self.in_avals)} "
                            f"argument(s) (one per entry of in_avals), got {len(args)}")
        leaves, tree = tree_flatten(args)
        if tree != self.in_tree:
            raise TypeError(f"{type(self).__name__}: the arguments' structure {tree} does not "
                            f"match in_avals' {self.in_tree}")
        _check_leaf_types(leaves, self.in_avals_flat,
                          f"{type(self).__name__}: argument", "in_avals")
        if is_eager():   # as JAX: expand on the arguments as given (1.0 ** 2 is 1.0)
            out = self.expand(*tree_unflatten(tree, [canonical_numpy(x) for x in leaves]))
            _check_out(self, out, "expand")
            return out
        return self._function()(*args)

    def _function(self):
        fns = self.__dict__.get("_tjit_fns")
        if fns is None:
            fns = self.__dict__["_tjit_fns"] = _build(self)
        has_vjp, has_jvp = fns["vjp"] is not None, fns["jvp"] is not None
        if has_vjp and has_jvp:
            return fns["vjp"] if _linearizing() else fns["jvp"]
        if not has_jvp and _forward_mode():
            self.jvp((), ())  # raises JAX's "for jvp support ... must implement `jvp`"
        return fns["vjp"] or fns["jvp"] or fns["none"]

    def __repr__(self):
        return f"{self.__class__.__name__}[{self.params}]"

    def __hash__(self):
        return hash((self.__class__.__name__, tuple(self.params.items())))

    def __eq__(self, other):
        return type(self) is type(other) and self.params == other.params


def _accumulate(accs, grad):
    """Add one argument's cotangent (a pytree, None or Zero leaves skipped) into its
    accumulators."""
    if grad is None:
        return
    acc_leaves = tree_flatten(accs, is_leaf=_is_accum)[0]
    grads = tree_flatten(grad, is_leaf=lambda x: x is None or isinstance(x, SymbolicZero))[0]
    if len(grads) != len(acc_leaves):
        raise TypeError(f"vjp_bwd_retval: a cotangent has {len(grads)} leaves where its "
                        f"argument has {len(acc_leaves)}")
    for acc, v in zip(acc_leaves, grads):
        if isinstance(acc, GradAccum):
            acc.accum(v)


def _forward_mode():
    """Is the current call differentiated in forward mode (jvp, jacfwd), not linearized?"""
    t = current_trace()
    return isinstance(t, JVPTrace) and not isinstance(t.parent, LinearizeTrace)


def _linearizing():
    """Is the current call being linearized for reverse mode (grad/vjp/linearize)?"""
    t = current_trace()
    return isinstance(t, JVPTrace) and isinstance(t.parent, LinearizeTrace)


# -- building the call of one instance -------------------------------------------------------
def _build(prim):
    """The instance's call as custom_vmap / custom_vjp / custom_jvp functions."""
    name = type(prim).__name__

    def expand(*args):
        out = prim.expand(*args)
        _check_out(prim, out, "expand")
        return out
    expand.__name__ = f"{name}.expand"
    primal = custom_vmap(expand)
    primal.def_vmap(lambda size, in_batched, *args: _batch_rule(prim, size, in_batched, args))

    has_jvp = _overrides(prim, "jvp") or _overrides(prim, "lin")
    # reverse mode derived from the jvp/lin rules is what transposing the custom_jvp
    # computes anyway; keeping only that path lets jax.linearize run its result forward
    has_vjp = _overrides(prim, "vjp_fwd") and not (
        has_jvp and getattr(type(prim).vjp_fwd, "_derived", False))
    fns = {"none": None, "vjp": None, "jvp": None}
    if has_vjp:
        fv = custom_vjp(primal)
        fv.defvjp(lambda *args: _fwd(prim, args), lambda res, g: _bwd(prim, res, g),
                  symbolic_zeros=True)
        fns["vjp"] = fv
    if has_jvp:
        fj = custom_jvp(primal)
        fj.defjvp(lambda primals, tangents: _jvp(prim, primals, tangents))
        fns["jvp"] = fj
    if not (has_vjp or has_jvp):
        fn = custom_vjp(primal)  # differentiating it raises JAX's "must implement" error
        fn.defvjp(lambda *args: prim.vjp_fwd(_all_true(prim), *args),
                  lambda res, g: prim.vjp_bwd_retval(res, g))
        fns["none"] = fn
    return fns


def _check_out(prim, out, rule):
    leaves, tree = tree_flatten(out)
    if tree != prim.out_tree:
        raise TypeError(f"{type(prim).__name__}.{rule}: returned structure {tree}, but "
                        f"out_aval declares {prim.out_tree}")
    _check_leaf_types(leaves, prim.out_avals_flat,
                      f"{type(prim).__name__}.{rule}: output", "out_aval")


def _check_leaf_types(leaves, avals, what, declared_by):
    """Each leaf has its declared aval's shape and dtype (else TypeError naming it)."""
    for i, (x, a) in enumerate(zip(leaves, avals)):
        got = get_aval(jnp.asarray(x))
        if tuple(got.shape) != tuple(a.shape) or got.dtype != a.dtype:
            raise TypeError(f"{what} leaf {i} has type {got.str_short()} but "
                            f"{declared_by} declares {a.str_short()}")


def _all_true(prim):
    return tree_unflatten(prim.in_tree, [True] * len(prim.in_avals_flat))


def _batch_rule(prim, size, in_batched, args):
    dims = tuple(tree_map(lambda b: 0 if b else None, list(in_batched)))
    out, out_dim = prim.batch(AxisData(size), tuple(args), dims)
    leaves, tree = tree_flatten(out)
    if out_dim is None or isinstance(out_dim, (int, np.integer)):
        dims_out = [out_dim] * len(leaves)
    else:
        dims_out = tree_flatten(out_dim, is_leaf=lambda d: d is None)[0]
    moved = [x if d is None else jnp.moveaxis(x, d, 0) for x, d in zip(leaves, dims_out)]
    return (tree_unflatten(tree, moved),
            tree_unflatten(tree, [d is not None for d in dims_out]))


def _fwd(prim, args):
    is_primal = lambda x: isinstance(x, CustomVJPPrimal)
    vals = tuple(tree_map(lambda p: p.value, list(args), is_leaf=is_primal))
    nzs = tuple(tree_map(lambda p: bool(p.perturbed), list(args), is_leaf=is_primal))
    out = prim.vjp_fwd(nzs, *vals)
    if not isinstance(out, (tuple, list)) or len(out) not in (2, 3):
        raise TypeError(f"{type(prim).__name__}.vjp_fwd must return (primal_out, residuals) "
                        f"or (primal_out, residuals, nzs_out); got {out!r:.80}"
                        + ("  (structured residuals, a 4-tuple, are not supported by tjit)"
                           if isinstance(out, (tuple, list)) and len(out) == 4 else ""))
    # which inputs are differentiated, carried to _bwd in the residuals' structure
    # (() or None: no array leaves), so that it hands NullAccum to the others
    marker = tuple(() if nz else None for nz in tree_flatten(nzs)[0])
    return out[0], (out[1], marker)


def _bwd(prim, packed, g):
    res, marker = packed
    accums = tree_unflatten(prim.in_tree, [ValAccum(a) if m is not None else NullAccum()
                                           for a, m in zip(prim.in_avals_flat, marker)])
    prim.vjp_bwd(res, g, *accums)
    return tuple(tree_map(lambda acc: getattr(acc, "val", None), list(accums),
                          is_leaf=_is_accum))


def _jvp(prim, primals, tangents):
    if _overrides(prim, "jvp"):
        return prim.jvp(tuple(primals), tuple(tangents))
    return jvp_from_lin(prim, tuple(primals), tuple(tangents))


def _zeros_like_avals(prim):
    return tree_unflatten(prim.in_tree, [jnp.zeros(a.shape, a.dtype)
                                         for a in prim.in_avals_flat])


# -- deriving rules from other rules ---------------------------------------------------------
def _lin_from_jvp(self, nzs_in, *primals):
    """``lin`` from ``jvp``: saves the primal inputs; ``linearized`` re-runs the rule."""
    return self(*primals), primals


def _linearized_from_jvp(self, primals, *tangents):
    return self.jvp(tuple(primals), tuple(tangents))[1]


_lin_from_jvp._from_jvp = True
linearize_from_jvp = (_lin_from_jvp, _linearized_from_jvp)


def _vjp_fwd_from_lin(self, nzs_in, *args):
    out = self.lin(nzs_in, *args)
    return out[0], out[1]


def _transpose_linearized(self, res, g):
    """The transpose of ``linearized(res, ·)`` applied to ``g``."""
    _, f_t = vjp(lambda *t: self.linearized(res, *t), *_zeros_like_avals(self))
    return f_t(instantiate_zeros(g))


_vjp_fwd_from_lin._derived = True
vjp_from_lin = (_vjp_fwd_from_lin, _transpose_linearized)


def _vjp_fwd_from_jvp(self, nzs_in, *args):
    return self(*args), args


def _transpose_jvp(self, primals, g):
    """The transpose of the jvp rule's tangent map at ``primals`` applied to ``g``."""
    _, f_t = vjp(lambda *t: self.jvp(tuple(primals), t)[1], *_zeros_like_avals(self))
    return f_t(instantiate_zeros(g))


_vjp_fwd_from_jvp._derived = True
vjp_from_jvp = (_vjp_fwd_from_jvp, _transpose_jvp)


def jvp_from_lin(self, primals, tangents):
    """``jvp`` from ``lin``/``linearized``."""
    out, res = self.lin(_all_true(self), *primals)[:2]
    return out, self.linearized(res, *tangents)


jvp_from_lin._from_lin = True

__all__ = [
    "GradAccum",
    "NullAccum",
    "RefAccum",
    "ShapedArray",
    "VJPHiPrimitive",
    "ValAccum",
    "Zero",
    "instantiate_zeros",
    "jvp_from_lin",
    "linearize_from_jvp",
    "vjp_from_jvp",
    "vjp_from_lin",
]
