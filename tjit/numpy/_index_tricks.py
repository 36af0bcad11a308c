"""NumPy's index tricks on tjit arrays: ``r_``, ``c_`` (concatenation by indexing),
``mgrid`` and ``ogrid`` (dense and open grids from slices), as ``jax.numpy``.

Slices must be concrete (they fix shapes): ``a:b:k`` means ``arange(a, b, k)`` and a
complex step ``a:b:nj`` means ``linspace(a, b, n)``. The arrays given to ``r_``/``c_``
may be traced. Matrix directives ('r', 'c' as the last letter of the string) are not
supported (tjit has no matrix type), as in JAX.
"""

import builtins

import numpy as np

from tjit.tracing.errors import static_index
from tjit.numpy._core import array, asarray
from tjit.numpy._dtypes import result_type
from tjit.numpy._creation import _ZeroStepError, arange, linspace, meshgrid
from tjit.numpy._shape import concatenate, expand_dims, stack, swapaxes, transpose

__all__ = ["r_", "c_", "mgrid", "ogrid"]


def _grid_from_slice(s, op_name):
    """``arange`` (real step) or ``linspace`` (complex step: the number of points)."""
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if s.stop is None:
        raise ValueError(f"jnp.{op_name}: a slice needs a stop, got {s}")
    if isinstance(step, (complex, np.complexfloating)):
        # |step| points: 0j gives none, as NumPy's and as JAX documents (JAX 0.10's
        # ``step or 1`` reads 0j, and 0, as the default step 1 instead)
        return linspace(start, s.stop, int(builtins.abs(step)))
    if step == 0:
        raise _ZeroStepError(f"jnp.{op_name}: slice step must not be zero, got {s}; a real "
                             f"step k gives arange(start, stop, k), a complex one nj gives "
                             f"n points")
    return arange(start, s.stop, step)


class _Grid:
    """``mgrid`` (dense) or ``ogrid`` (sparse) from a slice or a tuple of slices."""

    def __init__(self, sparse, op_name):
        self.sparse, self.op_name = sparse, op_name

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_from_slice(key, self.op_name)
        if not isinstance(key, tuple) or not all(isinstance(k, slice) for k in key):
            raise TypeError(f"jnp.{self.op_name}: index with slices (e.g. "
                            f"jnp.{self.op_name}[0:3, 0:1:5j]), got {key!r}")
        grids = [_grid_from_slice(k, self.op_name) for k in key]
        # One dtype for every axis (NumPy, JAX): ogrid[0:3, 0:1:5j] is float throughout,
        # as mgrid's stacked result is.
        dtype = result_type(*grids) if grids else None
        grids = [g.astype(dtype) for g in grids]
        out = meshgrid(*grids, indexing="ij", sparse=self.sparse)
        if self.sparse:
            return list(out)
        return stack(out, 0) if out else arange(0)

    def __repr__(self):
        return f"jnp.{self.op_name}"


class _AxisConcat:
    """``r_`` / ``c_``: concatenate arrays, scalars and slice ranges along ``axis`` after
    raising each to ``ndmin`` dims; a leading string ``'axis[,ndmin[,trans1d]]'``
    overrides the defaults (NumPy's rules, as ``jax.numpy``)."""

    def __init__(self, axis, ndmin, trans1d, op_name):
        self.axis, self.ndmin, self.trans1d, self.op_name = axis, ndmin, trans1d, op_name

    def _directive(self, text):
        if text and text[-1] in "rc":
            raise ValueError(f"jnp.{self.op_name}: the directive {text!r} mixes integers "
                             f"with a matrix directive; use 'r' or 'c' alone (a 2-D row or "
                             f"column, as JAX: there is no matrix type)")
        parts = text.split(",")
        if len(parts) > 3:
            raise ValueError(f"jnp.{self.op_name}: the directive {text!r} has more than "
                             f"three integers (axis, ndmin, trans1d)")
        values = [self.axis, self.ndmin, self.trans1d]
        try:
            for i, p in enumerate(parts):
                values[i] = int(p)
        except ValueError:
            raise ValueError(f"jnp.{self.op_name}: could not understand the directive "
                             f"{text!r}; expected 'axis[,ndmin[,trans1d]]'") from None
        return values

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        matrix = None  # JAX's 'r' / 'c': a 1-D result becomes a row / column (2-D array)
        if key and isinstance(key[0], str) and key[0] in ("r", "c"):
            matrix, key = (0 if key[0] == "r" else 1), key[1:]
        elif key and isinstance(key[0], str):
            axis, ndmin, trans1d = self._directive(key[0])
            key = key[1:]
        out = []
        for item in key:
            if isinstance(item, slice):
                obj = array(_grid_from_slice(item, self.op_name), copy=False, ndmin=ndmin)
                if trans1d != -1 and ndmin > 1:  # NumPy: the range's axis goes to trans1d
                    obj = swapaxes(obj, -1, trans1d)
                out.append(obj)
                continue
            if isinstance(item, str):
                raise ValueError(f"jnp.{self.op_name}: a string directive must come first, "
                                 f"got {item!r} later")
            else:
                obj = asarray(item)
                item_ndim = obj.ndim
            obj = array(obj, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                # the item's own dims start at position trans1d (NumPy's rule)
                k2 = ndmin - item_ndim
                k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
                order = list(range(ndmin))
                obj = transpose(obj, order[:k1] + order[k2:] + order[k1:k2])
            out.append(obj)
        if not out:
            return arange(0)
        res = concatenate(out, axis=static_index(axis, "axis", "jnp.r_/c_"))
        return expand_dims(res, matrix) if matrix is not None and res.ndim == 1 else res

    def __len__(self):
        return 0

    def __repr__(self):
        return f"jnp.{self.op_name}"


mgrid = _Grid(sparse=False, op_name="mgrid")
ogrid = _Grid(sparse=True, op_name="ogrid")
r_ = _AxisConcat(axis=0, ndmin=1, trans1d=-1, op_name="r_")
c_ = _AxisConcat(axis=-1, ndmin=2, trans1d=0, op_name="c_")
