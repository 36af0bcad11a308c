"""Typed PRNG key arrays: what ``tjit.random.key`` returns, as JAX's typed keys (JEP 9263).

A ``PRNGKeyArray`` of shape ``s`` has dtype ``key<fry>`` (``tjit.dtypes.prng_key``
subdtype) and holds the raw ``uint32[*s, 2]`` key data of the threefry2x32 PRNG.

Design: inside tjit the key array is a registered pytree node whose single leaf is that
raw data (``tjit.tracing.tree_util``). jit, vmap, scan, cond, grad and every backend
therefore see an ordinary uint32 array and need no change; the trailing dimension of 2
words is hidden from the key's ``shape``. vmap over a ``(n,)`` key array maps axis 0 of
the ``(n, 2)`` data, so key axes and data axes coincide (vmap counts a negative axis from
the end of the key's own shape). The public tree API (``tjit.tree_util``, ``tjit.tree``)
treats the key array as one leaf, as JAX does.
The jnp/lax functions JAX allows on keys (where, select, ``.at[].get/set``, take,
broadcast_to, asarray, zeros_like, concatenate, stack) hand the key array to the methods
below, which work on the data with its word axis kept. Arithmetic, ordering and
conversion to NumPy raise, as in JAX; ``key_data`` gives the data. Values are those of
the raw-key path: the samplers unwrap the data.
"""

import numpy as np

from tjit.tracing.core import Array, Tracer
from tjit.tracing.extended_dtypes import THREEFRY_KEY_DTYPE, ExtendedArray, ExtendedAval
from tjit.tracing.shapes import shape_str, size as shape_size
from tjit.tracing.tree_util import register_pytree_node
from tjit import numpy as jnp


class PRNGKeyArray(ExtendedArray):
    """An array of PRNG keys (dtype ``key<fry>``) over raw uint32[..., 2] data."""
    # _consumed: set once a random function consumed it, under debug_key_reuse (key_reuse.py)
    __slots__ = ("_consumed", "_data")

    def __init__(self, data):
        self._data = data

    # -- array attributes -------------------------------------------------------------
    dtype = THREEFRY_KEY_DTYPE

    @property
    def shape(self):
        return tuple(self._data.shape[:-1])

    @property
    def ndim(self):
        return len(self._data.shape) - 1

    @property
    def size(self):
        return shape_size(self.shape)

    @property
    def aval(self):
        """``ShapedArray(key<fry>[...])``: what ``tjit.typeof`` gives."""
        return ExtendedAval(self.shape, self.dtype)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object (a scalar key array)")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self):
        data = self._data
        if isinstance(data, Tracer):  # the tracer's repr with the key's type (JAX's)
            r, key_type = repr(data), self.aval.str_short()
            for data_type in (str(data.aval), data.aval.str_short()):
                if data_type in r:
                    return r.replace(data_type, key_type, 1)
            return r
        if isinstance(data, (Array, np.ndarray)):
            body = np.array2string(np.asarray(data))
        else:
            body = repr(data)
        return f"Array({shape_str(self.shape)}, dtype={self.dtype}) overlaying:\n{body}"

    __str__ = __repr__

    # -- shape manipulation on the key axes -------------------------------------------
    def __getitem__(self, idx):
        return PRNGKeyArray(self._data[self._data_index(idx)])

    def _data_index(self, idx):
        """An index of the key axes as an index of the data (its word axis kept)."""
        idx = idx if isinstance(idx, tuple) else (idx,)
        used = sum(getattr(i, "ndim", 1) if _is_bool_array(i) else 1 for i in idx
                   if i is not None and i is not Ellipsis)
        if used > self.ndim:
            raise IndexError(f"too many indices for key array of shape "
                             f"{shape_str(self.shape)}: {used} were indexed")
        tail = (slice(None),) if any(i is Ellipsis for i in idx) else (Ellipsis,)
        return idx + tail

    @property
    def at(self):
        """``keys.at[idx].get()`` / ``.set(new_keys)``, as JAX's key arrays."""
        return _KeyIndexer(self)

    def reshape(self, *shape, order="C"):
        if order != "C":
            raise NotImplementedError("reshape of a key array: only order='C'")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return PRNGKeyArray(jnp.reshape(self._data, tuple(shape) + (2,)))

    def ravel(self):
        return self.reshape(-1)

    flatten = ravel

    def squeeze(self, axis=None):
        if axis is None:
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        return PRNGKeyArray(jnp.squeeze(self._data, self._key_axes(axis, "squeeze")))

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        axes = axes or tuple(reversed(range(self.ndim)))
        perm = tuple(int(a) % self.ndim for a in axes) + (self.ndim,)
        return PRNGKeyArray(jnp.transpose(self._data, perm))

    @property
    def T(self):  # noqa: N802 (NumPy's name)
        return self.transpose()

    def copy(self):
        return PRNGKeyArray(self._data)

    def block_until_ready(self):
        if hasattr(self._data, "block_until_ready"):
            self._data.block_until_ready()
        return self

    def _key_axes(self, axis, op):
        """Axes counted on the key shape (negatives too) as axes of the data."""
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        out = []
        for a in axes:
            if not -self.ndim <= a < self.ndim:
                raise ValueError(f"{op}: axis {a} is out of bounds for a key array of shape "
                                 f"{shape_str(self.shape)}")
            out.append(a % self.ndim)
        return tuple(out)

    @classmethod
    def _join(cls, arrays, axis, new_axis, op):
        """``jnp.concatenate`` / ``jnp.stack`` of key arrays."""
        _require_keys(op, *arrays)
        ndim = arrays[0].ndim + (1 if new_axis else 0)
        if axis is None or not -ndim <= axis < ndim:
            raise ValueError(f"{op}: axis {axis} is out of bounds for key arrays of "
                             f"{arrays[0].ndim} dimensions")
        data = [a._data for a in arrays]
        fn = jnp.stack if new_axis else jnp.concatenate
        return PRNGKeyArray(fn(data, axis=axis % ndim))

    # -- jnp / lax functions on keys (dispatched here by their isinstance checks) -------
    @classmethod
    def _where(cls, condition, x, y, op="where"):
        """``jnp.where(condition, x, y)`` / ``lax.select`` with key arrays ``x``, ``y``."""
        _require_keys(op, x, y)
        cond = jnp.asarray(condition)
        if op == "lax.select" and (cond.shape not in ((), x.shape) or x.shape != y.shape):
            raise TypeError(f"lax.select: pred must be a scalar or have the operands' shape, "
                            f"and the operands must have one shape; got pred "
                            f"{shape_str(cond.shape)}, on_true {shape_str(x.shape)}, "
                            f"on_false {shape_str(y.shape)}")
        return PRNGKeyArray(jnp.where(cond[..., None], x._data, y._data))

    def _broadcast_to(self, shape):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return PRNGKeyArray(jnp.broadcast_to(self._data, shape + (2,)))

    def _take(self, indices, axis, mode):
        if axis is None:
            return PRNGKeyArray(jnp.take(self._data.reshape(-1, 2), indices, axis=0,
                                         mode=mode))
        axis, = self._key_axes(axis, "take")
        return PRNGKeyArray(jnp.take(self._data, indices, axis=axis, mode=mode))

    def _full_like(self, fill_value, dtype, shape, op):
        """``jnp.zeros_like`` / ``ones_like`` / ``empty_like`` / ``full_like`` of keys: key
        data words all equal to ``fill_value``, as JAX."""
        self._as_array(dtype, op)
        shape = self.shape if shape is None else (
            (shape,) if isinstance(shape, int) else tuple(shape))
        return PRNGKeyArray(jnp.full(shape + (2,), fill_value, self._data.dtype))

    def _as_array(self, dtype, op):
        """``jnp.asarray`` / ``array`` / ``copy`` of a key array: the key array itself."""
        if dtype is not None and dtype != self.dtype:
            raise TypeError(f"jnp.{op}: a PRNG key array (dtype {self.dtype}) cannot be "
                            f"converted to {dtype}; use tjit.random.key_data(keys) for its "
                            f"uint32 data")
        return self

    # -- what keys do not support -----------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError("a PRNG key array (dtype key<fry>) cannot be converted to a NumPy "
                        "array; use tjit.random.key_data(keys) for its uint32 data")

    def __bool__(self):
        raise TypeError("the truth value of a PRNG key array is not defined")

    def __hash__(self):
        raise TypeError("unhashable type: PRNG key array")

    def __eq__(self, other):
        """Element-wise key equality (both data words equal), as JAX."""
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return jnp.all(self._data == other._data, axis=-1)

    def __ne__(self, other):
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return jnp.any(self._data != other._data, axis=-1)

    def _no_arithmetic(self, *_args, **_kwargs):
        raise TypeError(f"arithmetic and comparisons are not defined on PRNG key arrays "
                        f"(dtype {self.dtype}, shape {shape_str(self.shape)}); derive new "
                        f"keys with tjit.random.split / fold_in, or work on "
                        f"tjit.random.key_data(keys)")


def _require_keys(op, *arrays):
    if not all(isinstance(a, PRNGKeyArray) for a in arrays):
        kinds = ", ".join(str(getattr(a, "dtype", type(a).__name__)) for a in arrays)
        raise TypeError(f"{op}: cannot mix key arrays with arrays of other dtypes (got "
                        f"{kinds}); wrap raw key data with tjit.random.wrap_key_data first")


class _KeyIndexer:
    """``keys.at``: ``keys.at[idx]`` gives the index's get/set helper."""
    __slots__ = ("_keys",)

    def __init__(self, keys):
        self._keys = keys

    def __getitem__(self, idx):
        return _KeyIndexUpdate(self._keys, idx)


class _KeyIndexUpdate:
    """``keys.at[idx]``: ``get`` and ``set`` only (keys have no arithmetic to add or
    multiply), on the data with its word axis kept."""
    __slots__ = ("_keys", "_idx")

    def __init__(self, keys, idx):
        self._keys, self._idx = keys, keys._data_index(idx)

    def get(self, **kwargs):
        return PRNGKeyArray(self._keys._data.at[self._idx].get(**kwargs))

    def set(self, values, **kwargs):
        _require_keys("key_array.at[...].set", self._keys, values)
        return PRNGKeyArray(self._keys._data.at[self._idx].set(values._data, **kwargs))

    def __getattr__(self, name):
        raise TypeError(f"key_array.at[...].{name}: PRNG key arrays support only .get() and "
                        f".set(); derive new keys with tjit.random.split / fold_in")


def _is_bool_array(i):
    return isinstance(i, (Array, Tracer, np.ndarray)) and np.dtype(i.dtype) == np.bool_


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
              "or", "xor", "lshift", "rshift", "radd", "rsub", "rmul", "rtruediv",
              "rfloordiv", "rmod", "rpow", "rmatmul", "rand", "ror", "rxor", "neg", "pos",
              "abs", "invert", "lt", "le", "gt", "ge", "int", "float", "index"):
    setattr(PRNGKeyArray, f"__{_name}__", PRNGKeyArray._no_arithmetic)


# (the child may be a placeholder, vmap's in_axes or a tree_map result: never checked)
register_pytree_node(PRNGKeyArray, lambda k: ((k._data,), None),
                     lambda _aux, children: PRNGKeyArray(children[0]))
THREEFRY_KEY_DTYPE.array_type = PRNGKeyArray  # how eval_shape wraps key data it traced
