"""``jit`` of an impure function: one that takes refs as arguments or closes over refs.

The jitted program stays pure. A call with refs runs an inner ``jit`` of the pure
function ``(argument values, closed-over ref values) -> (output, final values of the
argument refs, final values of the closed-over refs)``; inside it each argument ref is a
fresh ref holding the traced value (the function sees only it), and each closed-over
ref is bound to its traced value in the inner trace's frame (``Frame.binding``). After
the call the final values are written back into the caller's refs, so they are updated
"in place" as JAX's are. Closed-over refs are found while tracing: the first use of an
unknown one raises ``RefNotThreaded`` from the inner trace's frame; it is added to the
list kept on the jitted function and the call traces again (once per ref).

JAX's rules are checked with JAX's messages: a jitted function may not return a ref,
and the same ref may not be passed twice, nor passed and closed over.
"""

from tjit.tracing.core import Array
from tjit.tracing.refs import Ref, RefError, RefNotThreaded, current_frame
from tjit.tracing.tree_util import tree_flatten, tree_unflatten


class JitRefs:
    """The ref-threading state of one jitted function (kept on it as ``_ref_jit``)."""

    def __init__(self, jitted):
        self.jitted = jitted
        self.closed = []     # refs the function closes over, in the order found
        self.inner = {}      # (treedef, ref positions, statics, closed refs) -> inner jit
        self.flat_trees = {}  # number of positional arguments -> their treedef

    def call(self, args, kwargs):
        j = self.jitted
        dyn_args, dyn_kwargs, statics = j._split(args, kwargs)
        if not dyn_kwargs and all(type(x) is Ref or type(x) is Array for x in dyn_args):
            # (the common call, refs and arrays as positional arguments: one treedef per
            # arity, as flattening the arguments on every call costs more than the call)
            leaves, treedef = list(dyn_args), self._flat_tree(len(dyn_args))
        else:
            leaves, treedef = tree_flatten((dyn_args, dyn_kwargs))
        is_ref = tuple(isinstance(x, Ref) for x in leaves)
        arg_refs = [x for x in leaves if isinstance(x, Ref)]
        self._check_aliasing(leaves, is_ref, dyn_args, dyn_kwargs)
        values = [x._get() if r else x for x, r in zip(leaves, is_ref)]
        while True:
            closed = tuple(self.closed)
            for r in closed:
                if any(r is a for a in arg_refs):
                    raise RefError(
                        f"when tracing {_where(j)} for jit, a mutable array reference of "
                        f"type {r.type_str()} was both closed over and passed as the "
                        f"argument {self._name_of(r, leaves, dyn_args, dyn_kwargs)}")
            key = (treedef, is_ref, statics, tuple(id(r) for r in closed))
            inner = self.inner.get(key)
            if inner is None:
                inner = self.inner[key] = self._make_inner(treedef, is_ref, statics, closed)
            try:
                out, arg_finals, closed_finals = inner(*values, *[r._get() for r in closed])
            except RefNotThreaded as e:
                if not any(e.frame is f for f in inner.frames) or e.ref in closed:
                    raise
                self.closed.append(e.ref)
                continue
            for r, v in zip(arg_refs, arg_finals):
                r._set(v)
            for r, v in zip(closed, closed_finals):
                r._set(v)
            return out

    def _flat_tree(self, n):
        tree = self.flat_trees.get(n)
        if tree is None:
            tree = self.flat_trees[n] = tree_flatten((tuple(range(n)), {}))[1]
        return tree

    def trace(self, args, kwargs):
        """``(closed jaxpr, out tree)`` of the pure function a call would run (for
        make_jaxpr): the refs' values are its leading inputs; no ref is changed."""
        j = self.jitted
        dyn_args, dyn_kwargs, statics = j._split(args, kwargs)
        leaves, treedef = tree_flatten((dyn_args, dyn_kwargs))
        is_ref = tuple(isinstance(x, Ref) for x in leaves)
        values = [x._get() if r else x for x, r in zip(leaves, is_ref)]
        closed = []
        while True:
            inner = self._make_inner(treedef, is_ref, statics, tuple(closed))
            call_args = (*values, *[r._get() for r in closed])
            try:
                d_args, d_kwargs, d_statics = inner._split(call_args, {})
                d_tree, sig = inner._abstract_signature(d_args, d_kwargs, "make_jaxpr")
                return inner._trace(d_args, d_kwargs, d_statics, d_tree, sig, simplify=False)
            except RefNotThreaded as e:
                if not any(e.frame is f for f in inner.frames) or e.ref in closed:
                    raise
                closed.append(e.ref)

    def _make_inner(self, treedef, is_ref, statics, closed):
        j = self.jitted
        frames = []

        n = len(is_ref)

        def pure(*flat):   # (flat positional arrays: jit's fastest call)
            values, closed_values = flat[:n], flat[n:]
            frame = current_frame()
            frames.append(frame)
            fresh = [Ref(v) if r else v for v, r in zip(values, is_ref)]
            arg_refs = [x for x in fresh if isinstance(x, Ref)]
            with frame.binding(closed, closed_values):
                a, kw = j._rebuild(*tree_unflatten(treedef, fresh), statics)
                out = j.fun(*a, **kw)
                for leaf in tree_flatten(out)[0]:
                    if isinstance(leaf, Ref):
                        raise RefError(self._returned(leaf, arg_refs, fresh, treedef))
                return out, [r._value for r in arg_refs], [r._value for r in closed]
        pure.__name__ = j.__name__
        inner = type(j)(pure, backend=_backend_name(j), device=j.device)
        inner.frames = frames
        return inner

    def _returned(self, ref, arg_refs, fresh, treedef):
        j = self.jitted
        msg = (f"function {_where(j)} traced for jit returned a mutable array reference "
               f"of type {ref.type_str()}, but mutable array references cannot be "
               f"returned.")
        if any(ref is r for r in arg_refs):
            a, kw = tree_unflatten(treedef, fresh)
            msg += (f"\n\nThe returned mutable array was passed in as the argument "
                    f"{self._name_of(ref, fresh, a, kw)}.")
        return msg

    def _check_aliasing(self, leaves, is_ref, dyn_args, dyn_kwargs):
        seen = set()
        for x, r in zip(leaves, is_ref):
            if not r:
                continue
            if id(x) in seen:
                names = self._names(x, dyn_args, dyn_kwargs)
                raise RefError(
                    f"only one reference to a mutable array may be passed as an argument "
                    f"to a function, but when tracing {_where(self.jitted)} for jit the "
                    f"mutable array reference of type {x.type_str()} appeared at both "
                    f"{' and '.join(names[:2])}.")
            seen.add(id(x))

    def _names(self, ref, dyn_args, dyn_kwargs):
        """The parameter names (or keyword names) under which ``ref`` was passed."""
        names = []
        for i, a in enumerate(dyn_args):
            if any(leaf is ref for leaf in tree_flatten(a)[0]):
                names.append(self.jitted.sig.arg_name(i))
        for k, v in dyn_kwargs.items():
            if any(leaf is ref for leaf in tree_flatten(v)[0]):
                names.append(k)
        return names

    def _name_of(self, ref, leaves, dyn_args, dyn_kwargs):
        names = self._names(ref, dyn_args, dyn_kwargs)
        return names[0] if names else "?"


def _where(jitted):
    """``name at file:line`` of the jitted function, as JAX's messages name it."""
    code = getattr(jitted.fun, "__code__", None)
    where = f" at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    return f"{jitted.__name__}{where}"


def _backend_name(jitted):
    b = jitted.backend
    return getattr(b, "name", b)


def call(jitted, args, kwargs):
    """Call ``jitted`` on arguments that hold refs, or whose function closes over refs."""
    if "frames" in jitted.__dict__:
        # an inner (pure) jit of this module: its RefNotThreaded is for call() above
        # to handle; re-raise the one being handled
        raise  # noqa: PLE0704
    state = jitted.__dict__.get("_ref_jit")
    if state is None:
        state = jitted.__dict__["_ref_jit"] = JitRefs(jitted)
    return state.call(args, kwargs)


def trace(jitted, args, kwargs):
    """make_jaxpr of ``jitted`` on arguments that hold refs or a function that closes
    over refs: see :meth:`JitRefs.trace`."""
    return JitRefs(jitted).trace(args, kwargs)


def uses_refs(jitted):
    """Whether ``jitted`` was found to take or close over refs (its calls come here)."""
    return "_ref_jit" in jitted.__dict__


__all__ = ["call", "trace", "uses_refs", "JitRefs"]
