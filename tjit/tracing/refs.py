"""Mutable array references (``jax.Ref``) and how their state crosses staged scopes.

Design. A :class:`Ref` is a Python box holding the *current value* of a mutable
array: a concrete Array eagerly, a tracer of the transformation that owns the box
while tracing. A read ``ref[idx]`` is ``value[idx]``; a write ``ref[idx] = v`` replaces
the value by ``value.at[idx].set(v)`` (``+=`` by ``.at[idx].add``), cast to the ref's
type. So the state is *discharged while tracing*: the jaxprs that reach the
transformations and the compiler are purely functional (a ref's value is threaded
through them as an ordinary input and output), and no transformation, pass or backend
needs a rule for refs. JAX keeps ref primitives in its jaxprs and discharges them in a
pass; tracing straight into the discharged form gives the same values, and keeps the
printed jaxprs functional.

Where a value may live. Every :func:`~tjit.tracing.jaxpr_trace.trace_to_jaxpr` pushes a
:class:`Frame`; a ref belongs to the frame current when it was created (``_home``). A
ref used inside a frame that is not its home would otherwise be captured as a constant
of one trace (a stale value in every later call of a cached jit, a write that never
leaves a loop body), so the access raises :class:`RefNotThreaded`. The constructs that
support closed-over refs (jit, scan, fori_loop, while_loop, cond, switch) catch it,
add the ref to the refs they thread (an extra input and output of the traced body,
bound to the ref by :meth:`Frame.binding`), and trace again; every other staging
construct lets the error reach the user with the construct named (e.g.
``checkpoint`` of an impure function, which JAX forbids too).

Non-staging transformations (grad's JVP, vmap) need no frames: a value of an outer
trace is read as a constant of theirs as usual. A *write* of one of their tracers into
a ref owned by an outer trace is lowered to the ref's trace where that loses nothing
(a JVP value with a zero tangent, a vmap value that is not batched) and is an error
otherwise (the rule JAX states: only non-differentiated values go into plumbing refs,
and a vmapped value cannot be written to an unbatched ref); the higher layers register
those lowerings with :func:`register_write_lowering`.
"""

import contextlib
import functools
import threading

from tjit.tracing.core import Array, Tracer, current_trace
from tjit.tracing.errors import TjitError, user_location


class RefError(TjitError, ValueError):
    """A mutable array reference used against the rules (returned from jit, passed twice,
    read after ``free_ref``, written with a differentiated or vmapped value...)."""


class RefNotThreaded(RefError):
    """A ref created outside a staged scope (a jit, a loop body, a branch) was used in it,
    and that scope does not thread refs. Constructs that do thread them catch it."""

    def __init__(self, ref, frame):
        self.ref, self.frame = ref, frame
        if frame is None:   # (an argument where only arrays are taken)
            super().__init__(
                f"a mutable array reference of type {ref.type_str()} was passed where "
                f"only arrays are taken (jit calls and make_jaxpr take refs; lower, "
                f"eval_shape and the like do not). Fix: pass its value, ref[...]\n"
                f"At {user_location()}")
            return
        where = frame.name
        super().__init__(
            f"a mutable array reference of type {ref.type_str()} created outside "
            f"'{where}' was used inside it, and '{where}' cannot carry the state of "
            f"refs it closes over (jit, lax.scan, fori_loop, while_loop, cond and switch "
            f"can; checkpoint/remat, custom_vjp rules, shard_map and callbacks cannot). "
            f"Fix: pass the value instead (ref[...]) and write the result back after the "
            f"call.\nAt {user_location()}")


# -- frames ----------------------------------------------------------------------------------
class Frame:
    """One staged scope being traced (one :func:`trace_to_jaxpr`)."""

    __slots__ = ("trace", "name")

    def __init__(self, trace, name):
        self.trace, self.name = trace, name

    @contextlib.contextmanager
    def binding(self, refs, values):
        """Bind each ref of ``refs`` to the value in ``values`` inside this frame; the
        refs' outer values, homes and traces come back on exit."""
        saved = [(r._value, r._home, r._trace) for r in refs]
        trace = current_trace()
        for r, v in zip(refs, values):
            r._value, r._home, r._trace = v, self, trace
        try:
            yield
        finally:
            for r, (v, home, tr) in zip(refs, saved):
                r._value, r._home, r._trace = v, home, tr


class _Frames(threading.local):
    def __init__(self):
        self.stack = [None]


_frames = _Frames()


def current_frame():
    """The innermost staged scope being traced, or None at the top level."""
    return _frames.stack[-1]


@contextlib.contextmanager
def frame_of(trace, name):
    """Make ``trace`` (a jaxpr trace of ``name``) the current frame while it records."""
    stack = _frames.stack
    stack.append(Frame(trace, name))
    try:
        yield stack[-1]
    finally:
        stack.pop()


# -- threading closed-over refs through traced bodies ---------------------------------------------
class ThreadedRefs:
    """The closed-over refs one construct (a loop, a cond) threads through the bodies it
    traces: their values enter each body as an extra input and leave as an extra output."""

    def __init__(self):
        self.refs = []
        self.frames = []   # the frames of this construct's bodies (to tell its own misses)

    def values(self):
        """The refs' current values, in the caller's scope."""
        return [r._get() for r in self.refs]

    def watch(self, fn):
        """``fn`` unchanged, noting the frame it is traced in (no refs threaded yet)."""
        @functools.wraps(fn)
        def run(*args):
            self.frames.append(current_frame())
            return fn(*args)
        return run

    def body(self, fn):
        """``fn(*args) -> out`` as ``body(values, *args) -> (out, final values)``."""
        refs = self.refs

        @functools.wraps(fn)
        def run(values, *args):
            frame = current_frame()
            self.frames.append(frame)
            with frame.binding(refs, values):
                out = fn(*args)
                return out, [r._value for r in refs]
        return run

    def write_back(self, finals):
        for r, v in zip(self.refs, finals):
            r._set(v)


def thread_refs(go):
    """``go(threaded)`` traced again with each closed-over ref its bodies meet added to
    ``threaded.refs`` (a :class:`ThreadedRefs`), until none is missing."""
    t = ThreadedRefs()
    while True:
        try:
            return go(t)
        except RefNotThreaded as e:
            if e.ref in t.refs or not any(e.frame is f for f in t.frames):
                raise
            t.refs.append(e.ref)
            t.frames = []


# -- writes of inner transformations' values ---------------------------------------------------
_WRITE_LOWERINGS = {}   # tracer type -> fn(tracer, ref) -> the value one trace down


def register_write_lowering(tracer_type, fn):
    """``fn(tracer, ref)``: ``tracer``'s value in its trace's parent, when writing it
    into ``ref`` (owned by an outer trace) loses nothing; else it raises RefError."""
    _WRITE_LOWERINGS[tracer_type] = fn


def _is_outer(trace, of):
    """Whether ``trace`` is ``of`` or one of the traces ``of`` runs under."""
    while of is not None:
        if of is trace:
            return True
        of = getattr(of, "parent", None)
    return False


def lower_for(ref, value):
    """``value`` (just computed for a write into ``ref``) as a value of ``ref``'s trace."""
    while isinstance(value, Tracer) and not _is_outer(value._trace, ref._trace):
        fn = _WRITE_LOWERINGS.get(type(value))
        if fn is None:
            raise RefError(
                f"a value traced by {value._trace.name} cannot be written into a mutable "
                f"array reference of type {ref.type_str()} created outside that "
                f"transformation. Fix: create the ref inside it, or pass the ref as an "
                f"argument.\nAt {user_location()}")
        value = fn(value, ref)
    return value


# -- the reference type --------------------------------------------------------------------------
#: Installed by tjit.state: read(value, idx), write(ref_value, idx, v, add) -> new value.
_OPS = {}


class RefType:
    """The type of a mutable array reference, as ``jax.typeof(ref)`` gives it: the value's
    type (``inner_aval``) under a ``Ref{...}`` name. Refs of equal value types are equal."""

    __slots__ = ("inner_aval",)

    def __init__(self, inner_aval):
        self.inner_aval = inner_aval

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: self.inner_aval.ndim)
    weak_type = property(lambda self: self.inner_aval.weak_type)

    def str_short(self):
        a = self.inner_aval
        return f"Ref{{{a.dtype.name}[{','.join(str(d) for d in a.shape)}]}}"

    __str__ = __repr__ = str_short

    def __eq__(self, other):
        return isinstance(other, RefType) and \
            self.inner_aval.strip_weak_type() == other.inner_aval.strip_weak_type()

    def __hash__(self):
        return hash(("Ref", self.inner_aval.strip_weak_type()))


class Ref:
    """A mutable array reference (``jax.Ref``): create with ``new_ref(init)``; read with
    ``ref[idx]``, write with ``ref[idx] = v`` / ``ref[idx] += v``. It is not an array:
    read its value first (``jnp.sin(ref[...])``)."""

    __slots__ = ("_value", "_home", "_trace", "_freed", "__weakref__")
    __array_priority__ = 2000

    def __init__(self, value):
        self._value = value
        self._home = current_frame()
        self._trace = current_trace()
        self._freed = False

    # -- the value, checked ---------------------------------------------------------------
    def _get(self):
        """The current value, where the caller's scope may use it."""
        if self._freed:
            raise RefError(f"a mutable array reference of type {self.type_str()} was used "
                           f"after free_ref; create a new one with new_ref")
        frame = current_frame()
        if self._home is not frame:
            raise RefNotThreaded(self, frame)
        return self._value

    def _set(self, value):
        self._get()
        self._value = lower_for(self, value)

    # -- indexing ---------------------------------------------------------------------------
    def __getitem__(self, idx):
        return _OPS["read"](self._get(), idx)

    def __setitem__(self, idx, value):
        self._set(_OPS["write"](self._get(), idx, value, False))

    def addupdate(self, idx, value):
        """``ref[idx] += value`` in place (``jax.ref.addupdate``)."""
        self._set(_OPS["write"](self._get(), idx, value, True))

    # -- the abstract type ----------------------------------------------------------------------
    @property
    def aval(self):
        return self._value.aval

    # the array-type properties, all derived from ``aval`` as a Tracer's are
    shape, dtype, ndim, size, weak_type = (
        Tracer.shape, Tracer.dtype, Tracer.ndim, Tracer.size, Tracer.weak_type)

    def type_str(self):
        return RefType(self.aval).str_short()

    def type(self):
        """The ref's type as ``jax.typeof`` gives it (``Ref{float32[3]}``)."""
        return RefType(self.aval)

    def unsafe_buffer_pointer(self):
        """The address of the buffer holding the current value (eager refs)."""
        return self._get().unsafe_buffer_pointer()

    def __repr__(self):
        v = self._value
        if self._freed:
            return f"Ref(<freed {self.aval.str_short()}>)"
        if isinstance(v, Array):
            text = repr(v)
            return "Ref" + text[len("Array"):] if text.startswith("Array") else text
        return self.type_str()

    __str__ = __repr__

    # -- not an array ---------------------------------------------------------------------------
    def _not_an_array(self, *args, **kwargs):
        raise TypeError(f"a mutable array reference of type {self.type_str()} is not an "
                        f"array: read its value first, e.g. jnp.sin(x_ref[...]) instead "
                        f"of jnp.sin(x_ref)")

    __array__ = __bool__ = __float__ = __int__ = __index__ = __len__ = __iter__ = \
        _not_an_array
    __jax_array__ = _not_an_array

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


__all__ = ["Ref", "RefError", "RefNotThreaded", "Frame", "current_frame", "frame_of",
           "ThreadedRefs", "thread_refs",
           "register_write_lowering", "lower_for"]
