"""The function ``vjp`` returns, as a first-class value (JAX's "VJP objects"): called
with an output cotangent it runs the backward pass; as a pytree its leaves are the
residuals the forward pass saved, so it can be returned from one jitted function and
passed into another (forward and backward passes compiled apart and run on a schedule
of one's own), stored in a pytree, or mapped over with ``tree.map``.

Its saved state is in two attributes, as JAX's: ``args_res`` mirrors the arguments
(one entry per positional argument, of its structure) and holds the argument values
the backward pass needs verbatim, :class:`NotNeeded` where it needs none, and
:class:`NotSaveable` where ``vjp(..., saveable_args=...)`` said not to keep it (the
value must be put back, ``f_vjp.args_res[i] = value``, before the call);
``opaque_residuals`` holds the values computed by the forward pass.
"""

from tjit.tracing.refs import Ref
from tjit.transforms.ref_primals import missing_grad_ref_error
from tjit.tracing.tree_util import (
    flatten_one_level,
    register_pytree_node,
    tree_flatten,
    tree_unflatten,
)


class _Marker:
    """A stateless placeholder in ``args_res``: all instances of a class are equal."""

    __slots__ = ()

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self))


class NotNeeded(_Marker):
    """In ``args_res``: an argument value the backward pass does not read."""

    __slots__ = ()


class NotSaveable(_Marker):
    """In ``args_res``: an argument value the backward pass reads but ``saveable_args``
    kept out of the saved state; restore it before calling the VJP function."""

    __slots__ = ()


def _is_sentinel(x):
    return isinstance(x, _Marker)


# -- gradient refs (JAX's docs/array_refs.md, ``jax.ad``) ---------------------------------------
class GradValue(_Marker):
    """In ``f_vjp.with_refs(...)``: return this argument's gradient as a value (the
    default)."""

    __slots__ = ()


class DontWant(_Marker):
    """In ``f_vjp.with_refs(...)``: do not compute this argument's gradient at all (the
    backward pass skips the work only it needs); the call returns ``DidntWant()``."""

    __slots__ = ()


class GradRef(_Marker):
    """What ``f_vjp.with_refs(ref, ...)(ct)`` returns where the gradient was added into
    a ref."""

    __slots__ = ()


class DidntWant(_Marker):
    """What ``f_vjp.with_refs(DontWant(), ...)(ct)`` returns for an unwanted gradient."""

    __slots__ = ()


class _WithRefs:
    """``f_vjp.with_refs(*entries)``: the VJP function with, per positional argument, a
    Ref its gradient is added into (``ref[...] += grad``), GradValue or DontWant."""

    __slots__ = ("_vjp", "_entries")

    def __init__(self, vjp, entries):
        self._vjp, self._entries = vjp, entries

    def __call__(self, cotangent):
        v = self._vjp
        ref_args = getattr(v._backward, "ref_args", None) or ()
        if any(not isinstance(self._entries[i], (Ref, DontWant)) for i in ref_args):
            raise missing_grad_ref_error(ref_args)
        args = flatten_one_level(tuple(v.args_res))[0] if v.args_res else []
        wanted = []
        for arg, e in zip(args, self._entries):
            n = len(tree_flatten(arg, is_leaf=_is_sentinel)[0])
            wanted += [not isinstance(e, DontWant)] * n
        grads = v._backward(v._residuals(), cotangent, wanted)
        out = []
        for g, e in zip(grads, self._entries):
            if isinstance(e, Ref):
                e.addupdate(Ellipsis, g)
                out.append(GradRef())
            elif isinstance(e, DontWant):
                out.append(DidntWant())
            else:
                out.append(g)
        return tuple(out)


class VJP:
    """``vjp``'s backward function: ``f_vjp(cotangent)`` -> the input cotangents.

    Attributes:
      args_res: one entry per positional argument, of its structure: the argument
        values the backward pass reads, NotNeeded or NotSaveable.
      opaque_residuals: the values the forward pass computed for the backward pass.
    """

    __slots__ = ("_backward", "_in_tree", "_layout", "args_res", "opaque_residuals")

    def __init__(self, backward, layout, in_tree, args_res, opaque_residuals):
        self._backward = backward   # backward(residuals, cotangent)
        self._layout = layout       # per residual: ("arg", flat index) or ("opaque", j)
        self._in_tree = in_tree     # the primals tuple's structure
        self.args_res = list(args_res)
        self.opaque_residuals = list(opaque_residuals)

    @classmethod
    def from_residuals(cls, backward, residuals, flat_primals, in_tree, saveable):
        """Split ``residuals`` into argument values (found by identity among the flat
        primals; ``saveable[i]`` False: NotSaveable) and opaque ones."""
        where = {id(p): i for i, p in enumerate(flat_primals)}
        arg_leaves = [NotNeeded()] * len(flat_primals)
        layout, opaque = [], []
        for r in residuals:
            i = where.get(id(r))
            if i is not None:
                layout.append(("arg", i))
                arg_leaves[i] = r if saveable[i] else NotSaveable()
            else:
                layout.append(("opaque", len(opaque)))
                opaque.append(r)
        args_res = tree_unflatten(in_tree, arg_leaves)
        return cls(backward, tuple(layout), in_tree, args_res, opaque)

    @property
    def residuals(self):
        """Every saved value, in the order the backward pass reads them."""
        return self._residuals()

    def _residuals(self):
        flat, tree = tree_flatten(tuple(self.args_res), is_leaf=_is_sentinel)
        if tree != self._in_tree:
            raise ValueError(f"VJP function: args_res must mirror the arguments, "
                             f"structure {self._in_tree}, got {tree}")
        missing = sorted({self._arg_of(i) for kind, i in self._layout
                          if kind == "arg" and type(flat[i]) is NotSaveable})
        if missing:
            raise ValueError(f"VJP function: the backward pass needs the value(s) of "
                             f"argument(s) {missing}, which saveable_args kept out of the "
                             f"saved state; restore them first: f_vjp.args_res[i] = value "
                             f"(or f_vjp.replace(args_res=...))")
        return [flat[i] if kind == "arg" else self.opaque_residuals[i]
                for kind, i in self._layout]

    def _arg_of(self, flat_index):
        """The positional argument holding flat leaf ``flat_index``."""
        count = 0
        for k, arg in enumerate(flatten_one_level(tuple(self.args_res))[0]):
            count += len(tree_flatten(arg, is_leaf=_is_sentinel)[0])
            if flat_index < count:
                return k
        return len(self.args_res) - 1

    def replace(self, args_res=None, opaque_residuals=None):
        """A copy with ``args_res`` and/or ``opaque_residuals`` replaced."""
        return VJP(self._backward, self._layout, self._in_tree,
                   self.args_res if args_res is None else args_res,
                   self.opaque_residuals if opaque_residuals is None else opaque_residuals)

    def __call__(self, cotangent):
        ref_args = getattr(self._backward, "ref_args", None)
        if ref_args:
            raise missing_grad_ref_error(ref_args)
        return self._backward(self._residuals(), cotangent)

    def with_refs(self, *entries):
        """This VJP function with, for each positional argument of the differentiated
        function, a Ref to add its gradient into (the call then returns ``GradRef()``
        there), ``GradValue()`` (return it, the default) or ``DontWant()`` (skip it;
        ``DidntWant()`` is returned), as JAX's."""
        n = len(self.args_res)
        if len(entries) != n:
            raise TypeError(f"VJP function: with_refs takes one entry per argument of the "
                            f"differentiated function ({n}), got {len(entries)}; pass "
                            f"jax.ad.GradValue() for a gradient returned as a value")
        for e in entries:
            if not isinstance(e, (Ref, GradValue, DontWant)):
                raise TypeError(f"VJP function: with_refs entries must be Refs, "
                                f"jax.ad.GradValue() or jax.ad.DontWant(), got "
                                f"{type(e).__name__} {e!r:.60}")
        return _WithRefs(self, entries)

    def __repr__(self):
        return (f"<VJP function: args_res={self.args_res!r:.80}, "
                f"{len(self.opaque_residuals)} opaque residual(s)>")


def saveable_flags(saveable_args, primals):
    """One bool per flat primal leaf from ``saveable_args``, a tuple-tree of bools that
    is a prefix of the arguments (containers matched by their number of children; a
    bool covers its whole subtree), as JAX's ``vjp(..., saveable_args=...)``."""
    out = []

    def walk(flags, value):
        if isinstance(flags, bool):
            out.extend([flags] * len(tree_flatten(value)[0]))
            return
        try:
            children = flatten_one_level(value)[0]
        except ValueError:   # a leaf: only a bool applies to it
            children = None
        if not isinstance(flags, (tuple, list)) or children is None or \
                len(flags) != len(children):
            raise ValueError(f"vjp: saveable_args must be a tuple-tree of bools matching "
                             f"the arguments' containers, got {saveable_args!r}")
        for f, c in zip(flags, children):
            walk(f, c)
    walk(saveable_args, tuple(primals))
    return out


register_pytree_node(NotNeeded, lambda v: ((), None), lambda aux, ch: NotNeeded())
register_pytree_node(NotSaveable, lambda v: ((), None), lambda aux, ch: NotSaveable())
register_pytree_node(
    VJP, lambda v: ((tuple(v.args_res), list(v.opaque_residuals)),
                    (v._backward, v._layout, v._in_tree)),
    lambda aux, ch: VJP(*aux, list(ch[0]), list(ch[1])))

for _m in (GradValue, DontWant, GradRef, DidntWant):
    register_pytree_node(_m, lambda v: ((), None), lambda aux, ch, _m=_m: _m())

__all__ = ["VJP", "NotNeeded", "NotSaveable", "saveable_flags", "GradValue", "DontWant",
           "GradRef", "DidntWant"]
