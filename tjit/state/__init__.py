"""Mutable array references: ``jax.new_ref``, ``jax.Ref``, ``jax.freeze``,
``jax.empty_ref``, ``jax.free_ref`` and the ``jax.ref`` functions (get, set, swap,
addupdate), with JAX's semantics (JAX's docs/array_refs.md).

How the state is represented (a ref's value threaded through traced code as an
ordinary input and output, so jaxprs stay functional and no transformation or backend
knows about refs) is explained in ``tjit/tracing/refs.py``; how ``jit`` threads the
refs it is passed or closes over, in ``tjit/state/jit_refs.py``. This module holds the
public functions and the two things the layers below cannot: indexed reads and writes
(through tjit.numpy's indexing and ``.at``) and the write rules of grad's and vmap's
tracers.
"""

import numpy as np

from tjit.tracing import refs as _refs
from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import user_location
from tjit.tracing.refs import Ref, RefError
from tjit.primitives.rules import Zero
from tjit.transforms.ad import JVPTracer
from tjit.transforms.batching import BatchTracer
from tjit import lax as _lax
from tjit.lax._elementwise import asarray_for_lax as _asarray
from tjit import numpy as _jnp

AbstractRef = Ref   # (JAX's type of a traced ref: one class serves here)


# -- indexed reads and writes ----------------------------------------------------------------
def _whole(idx):
    return idx is Ellipsis or (type(idx) is tuple and (
        len(idx) == 0 or (len(idx) == 1 and idx[0] is Ellipsis)))


def _read(value, idx):
    return value if _whole(idx) else value[idx]


def _write(value, idx, update, add):
    """The ref's new value after ``ref[idx] = update`` (``+=`` when ``add``), of the
    ref's shape, dtype and weak type."""
    if isinstance(update, Ref):
        raise TypeError(f"cannot write a mutable array reference ({update.type_str()}) "
                        f"into a ref: refs of refs are not allowed; write its value "
                        f"(ref2[...]) instead")
    update = _asarray(update, value.dtype) if not isinstance(update, (Array, Tracer)) \
        else update
    if _whole(idx):
        new = _lax.add(value, update) if add else _jnp.broadcast_to(update, value.shape)
    else:
        at = value.at[idx]
        new = at.add(update) if add else at.set(update)
    # the dtype and the weak type are the ref's: a ref's type does not change with
    # what is written into it, as JAX's (new_ref(0.) stays weak after ref[...] =
    # float32(1); a strong ref stays strong after ref[...] = 2.0)
    return _lax.convert_element_type(new, value.dtype, weak_type=value.weak_type)


_refs._OPS.update(read=_read, write=_write)


# -- writes of values traced by grad or vmap into refs created outside them ------------------------
def _lower_jvp(tracer, ref):
    if type(tracer.tangent) is Zero:
        return tracer.primal
    raise RefError(
        f"a value being differentiated was written into a mutable array reference of "
        f"type {ref.type_str()} created outside the differentiated function; only "
        f"non-differentiated values may be written into such (plumbing) refs. Fix: write "
        f"jax.lax.stop_gradient(value), or create the ref inside the function.\n"
        f"At {user_location()}")


def _lower_batched(tracer, ref):
    if tracer.batch_dim is None:
        return tracer.val
    raise RefError(
        f"performing a set/swap operation with vmapped value on an unbatched array "
        f"reference of type {ref.type_str()}. Move the array reference to be an argument "
        f"to the vmapped function?")


_refs.register_write_lowering(JVPTracer, _lower_jvp)
_refs.register_write_lowering(BatchTracer, _lower_batched)


# -- the public functions ------------------------------------------------------------------------
def new_ref(init_val, *, memory_space=None, kind=None):
    """A new mutable array reference holding ``init_val`` (``jax.new_ref``).

    Args:
      init_val: an array or scalar: the ref's initial value, and its fixed shape and
        dtype (a Python scalar gives a weakly typed ref, as an array would be).
      memory_space, kind: accepted for JAX compatibility; tjit has one memory space.

    Returns:
      A :class:`Ref`. Read it with ``ref[idx]``, write with ``ref[idx] = v``.
    """
    if isinstance(init_val, Ref):
        raise TypeError(f"new_ref: got a mutable array reference ({init_val.type_str()}) "
                        f"as the initial value; refs of refs are not allowed. Pass its "
                        f"value, new_ref(ref[...])")
    if not isinstance(init_val, (Array, Tracer)):
        try:
            init_val = _asarray(init_val)
        except TypeError:
            init_val = _jnp.asarray(init_val)
    return Ref(init_val)


def empty_ref(ty, *, memory_space=None):
    """A new ref of type ``ty`` (anything with ``shape`` and ``dtype``, e.g. a
    ``ShapeDtypeStruct``) whose initial contents are unspecified (zeros here)."""
    shape, dtype = getattr(ty, "shape", None), getattr(ty, "dtype", None)
    if shape is None or dtype is None:
        raise TypeError(f"empty_ref: expected a type with shape and dtype (e.g. "
                        f"jax.ShapeDtypeStruct((3,), jnp.float32)), got {ty!r:.60}")
    return Ref(_jnp.zeros(shape, dtype))


def freeze(ref):
    """The final value of ``ref`` as an immutable Array (``jax.freeze``)."""
    _check_ref(ref, "freeze")
    return ref._get()


def free_ref(ref):
    """Release ``ref``: any later use of it raises (``jax.free_ref``)."""
    _check_ref(ref, "free_ref")
    ref._get()
    ref._freed = True


def get(ref, idx=()):
    """``ref[idx]`` (``jax.ref.get``)."""
    _check_ref(ref, "get")
    return ref[Ellipsis if idx == () else idx]


def set(ref, idx, value):  # noqa: A001  (jax.ref.set)
    """``ref[idx] = value`` (``jax.ref.set``)."""
    _check_ref(ref, "set")
    ref[Ellipsis if idx == () else idx] = value


def swap(ref, idx, value):
    """``old = ref[idx]; ref[idx] = value; return old`` (``jax.ref.swap``)."""
    _check_ref(ref, "swap")
    idx = Ellipsis if idx == () else idx
    old = ref[idx]
    ref[idx] = value
    return old


def addupdate(ref, idx, value):
    """``ref[idx] += value`` (``jax.ref.addupdate``)."""
    _check_ref(ref, "addupdate")
    ref.addupdate(Ellipsis if idx == () else idx, value)


def _check_ref(ref, op):
    if not isinstance(ref, Ref):
        raise TypeError(f"{op}: expected a mutable array reference (jax.new_ref), got "
                        f"{type(ref).__name__} {np.shape(ref) if hasattr(ref, 'shape') else ''}")


__all__ = ["Ref", "AbstractRef", "RefError", "new_ref", "empty_ref", "freeze", "free_ref",
           "get", "set", "swap", "addupdate"]
