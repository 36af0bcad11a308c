"""Counting and statistics of ``tjit.numpy``: bincount, histogram, digitize, cov and
corrcoef (the means, variances and quantiles are in ``_reductions``).

Counting uses one-hot masks instead of a scatter (O(n * bins) work), so every function
here traces under ``jit`` with only elementwise ops and reductions; output sizes that
would depend on the data (bincount's length) must then be given statically.
"""

import builtins

import numpy as np

from tjit import lax
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import ConcretizationTypeError, OperandShapeError
from tjit.tracing.shapes import shape_str
from tjit.numpy._core import asarray, broadcast_to_shape, check_arraylike, ensure_array, \
    promote_dtypes, promote_dtypes_inexact, takes_out_sharding
from tjit.numpy._creation import canonical_dtype, diag, dim_value, linspace
from tjit.numpy._misc import _count_le, _diff_last, _ravel, _static
from tjit.numpy import _reductions as red


# -- counting -------------------------------------------------------------------------------
def _scatter_add(length, idx, w):
    """``zeros(length).at[idx].add(w)`` for 1-D ``idx``/``w`` (out-of-range dropped)."""
    n = idx.shape[0]
    shape = (length, n)
    bins = lax.broadcasted_iota(idx.dtype, shape, 0)
    hit = lax.eq(bins, lax.broadcast_in_dim(idx, shape, (1,)))
    vals = lax.broadcast_in_dim(w, shape, (1,))
    return lax.reduce_sum(lax.select(hit, vals, lax.full((), 0, w.dtype)), (1,))


@takes_out_sharding("bincount")
def bincount(x, weights=None, minlength=0, *, length=None):
    """Counts (or summed ``weights``) of each non-negative integer in the 1-D ``x``.
    Under ``jit`` pass a static ``length``; values at or beyond it are dropped and
    negative values count as 0 (as JAX)."""
    x = ensure_array("bincount", x)
    if dtypes.is_bool(x.dtype):  # NumPy and JAX count booleans as 0 and 1
        x = lax.convert_element_type(x, dtypes.default_int())
    if not dtypes.is_int(x.dtype):
        raise TypeError(f"jnp.bincount: x must have an integer dtype, got {x.dtype}")
    if x.ndim != 1:
        raise ValueError(f"jnp.bincount: only 1-D input is supported, got shape "
                         f"{shape_str(x.shape)}")
    minlength = _static(minlength, "bincount", "minlength")
    if minlength < 0:
        raise ValueError(f"jnp.bincount: minlength must be non-negative, got {minlength}")
    if length is None:
        if isinstance(x, Tracer):
            raise ConcretizationTypeError(
                f"jnp.bincount: the output length depends on the values of x "
                f"({x.aval.str_short()}), which are traced. Fix: pass length=... (a static "
                f"int) under jit.")
        v = np.asarray(x._value)
        length = max(minlength, int(v.max()) + 1 if v.size else 0)
    else:
        length = _static(length, "bincount", "length")
    if weights is None:
        w = lax.full(tuple(x.shape), 1, dtypes.default_int())
    else:
        w = ensure_array("bincount", weights)
        if tuple(w.shape) != tuple(x.shape):
            raise ValueError(f"jnp.bincount: weights of shape {shape_str(w.shape)} must have "
                             f"the shape of x {shape_str(x.shape)}")
        if dtypes.is_bool(w.dtype):  # JAX's TypeError; NumPy would sum them as float64
            raise TypeError("jnp.bincount: boolean weights are not summed (JAX refuses "
                            "them); convert them first, e.g. weights.astype(jnp.float32)")
    idx = lax.max(x, lax.full((), 0, x.dtype))
    return _scatter_add(length, lax.convert_element_type(idx, dtypes.default_int()), w)


def _host_outer_edges(a, range):  # noqa: A002
    """``(lo, hi)`` as NumPy's ``_get_outer_edges`` has them when they are concrete: the
    given range as given (Python numbers: linspace computes in float64), or the data's
    min and max as NumPy scalars of its dtype (computed in that dtype); else None."""
    if range is not None:
        if isinstance(range, (Array, Tracer)) or np.shape(range) != (2,):
            return None
        if any(isinstance(v, (Array, Tracer)) for v in range):
            return None
        return range[0], range[1]
    if isinstance(a, Tracer) or not np.dtype(a.dtype).kind in "iuf":
        return None
    if type(a.size) is int and a.size == 0:
        return 0, 1
    return np.asarray(red.min(a))[()], np.asarray(red.max(a))[()]


def _estimated_edges(a, bins, range, weights):
    """NumPy's edges for a bin estimator name ('auto', 'fd', 'sturges', ...): their number
    depends on the values, so ``a`` must be concrete (JAX has no estimators)."""
    if any(isinstance(v, Tracer) for v in (a, range, weights)) or \
            (range is not None and any(isinstance(v, Tracer) for v in range)):
        raise ConcretizationTypeError(
            f"jnp.histogram: bins={bins!r} makes the number of bins depend on the data, "
            f"which is traced here; pass an integer number of bins or explicit edges under "
            f"jit, or compute the edges outside it (jnp.histogram_bin_edges(a, {bins!r}))")
    w = None if weights is None else np.asarray(weights)
    return np.histogram_bin_edges(np.asarray(a), bins, range, w)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """Bin edges for :func:`histogram`: ``bins`` equal bins over ``range`` (default the
    data's min..max), the given edges, or the edges of one of NumPy's estimators
    ('auto', 'fd', 'doane', 'scott', 'stone', 'rice', 'sturges', 'sqrt'; concrete data
    only: the number of bins depends on the values)."""
    a = ensure_array("histogram_bin_edges", a)
    dt = dtypes.to_inexact(a.dtype)
    if isinstance(bins, str):
        return asarray(_estimated_edges(a, bins, range, weights), dtype=dt)
    if np.ndim(bins) == 1:
        # Edges out of order would put values in the wrong bins; NumPy raises. (Traced
        # edges cannot be checked.)
        if not isinstance(bins, Tracer) and np.any(np.diff(np.asarray(bins)) < 0):
            raise ValueError(f"jnp.histogram: bin edges must increase monotonically, got "
                             f"{np.asarray(bins)!r}")
        return asarray(bins, dtype=dt)
    nbins = _static(bins, "histogram", "bins")
    if nbins < 1:
        raise ValueError(f"jnp.histogram: bins must be a positive integer, got {nbins}")
    host = _host_outer_edges(a, range)
    if host is not None:
        # NumPy's edges: linspace in float64 from Python floats, rounded once to dt
        lo, hi = host
        what = "supplied" if range is not None else "autodetected"
        if not (np.isfinite(float(lo)) and np.isfinite(float(hi))):
            raise ValueError(f"jnp.histogram: {what} range of [{lo}, {hi}] is not finite")
        if lo > hi:
            raise ValueError(f"jnp.histogram: range must be (min, max) with min <= max, "
                             f"got {range!r}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        return linspace(lo, hi, nbins + 1, dtype=dt)
    if range is None:
        if type(a.size) is int and a.size == 0:  # NumPy's range for no data: (0, 1)
            lo, hi = lax.full((), 0, dt), lax.full((), 1, dt)
        else:
            lo, hi = red.min(a), red.max(a)
    else:
        r = asarray(range, dtype=dt) if not isinstance(range, (Array, Tracer)) else range
        if tuple(r.shape) != (2,):
            raise ValueError(f"jnp.histogram: range must be None or a pair of scalars, got "
                             f"{range!r}")
        lo, hi = lax.index_in_dim(r, 0, 0, False), lax.index_in_dim(r, 1, 0, False)
    lo, hi = lax.convert_element_type(lo, dt), lax.convert_element_type(hi, dt)
    same = lax.eq(lo, hi)
    lo = lax.select(same, lax.sub(lo, lax.full((), 0.5, dt)), lo)
    hi = lax.select(same, lax.add(hi, lax.full((), 0.5, dt)), hi)
    return linspace(lo, hi, nbins + 1, dtype=dt)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Histogram of ``a`` (flattened). Values outside the edges are ignored; the last
    bin includes its right edge. Counts are floats, as in JAX.

    Returns:
      ``(counts, bin_edges)``.
    """
    a = ensure_array("histogram", a)
    # An estimator sees the caller's data: NumPy widens its bins to >= 1 for integer data
    # and sizes them from the data's own precision, which a float32 copy would change.
    data_for_estimator = a
    if weights is None:
        (a,) = promote_dtypes_inexact(a)
        w = lax.full(tuple(a.shape), 1, a.dtype)
    else:
        w = ensure_array("histogram", weights)
        if tuple(w.shape) != tuple(a.shape):
            raise ValueError(f"jnp.histogram: weights of shape {shape_str(w.shape)} must "
                             f"have the shape of a {shape_str(a.shape)}")
        a, w = promote_dtypes_inexact(a, w)
    a, w = _ravel(a), _ravel(w)
    if isinstance(bins, str):
        edges = histogram_bin_edges(data_for_estimator, bins, range, weights)
    else:
        edges = histogram_bin_edges(a, bins, range, None if weights is None else w)
    edges = lax.convert_element_type(edges, a.dtype)
    ne = edges.shape[0]
    idx = _count_le(edges, a)
    last = broadcast_to_shape(lax.index_in_dim(edges, ne - 1, 0, False), a.shape)
    idx = lax.select(lax.eq(a, last), lax.full(tuple(a.shape), ne - 1, idx.dtype), idx)
    counts = lax.slice(_scatter_add(ne, idx, w), (1,), (ne,))
    if density:
        widths = _diff_last(edges)
        counts = lax.div(lax.div(counts, widths), red.sum(counts))
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Multidimensional histogram of ``sample`` (N, D): ``numpy.histogramdd``.

    Args:
      sample: (N, D) points ((N,): one dimension).
      bins: an int, a sequence of D ints, or a sequence of D edge arrays.
      range: None or a sequence of D ``(lo, hi)`` pairs (or None entries).
      weights: optional (N,) weights.
      density: normalize to a probability density.

    Returns:
      ``(hist, edges)``: counts of shape ``(bins_0, ..., bins_{D-1})`` (integers without
      weights or density, as JAX; NumPy gives floats) and a list of D edge arrays. The
      last bin of each axis includes its right edge; points outside are dropped.
    """
    sample = ensure_array("histogramdd", sample)
    if sample.ndim == 1:  # N points of one dimension (NumPy's atleast_2d(sample).T)
        sample = lax.reshape(sample, (sample.shape[0], 1))
    if sample.ndim != 2:
        raise ValueError(f"jnp.histogramdd: sample must be an (N, D) array, got shape "
                         f"{shape_str(sample.shape)}")
    n, d = sample.shape
    per_dim = list(bins) if isinstance(bins, (list, tuple)) or np.ndim(bins) else [bins] * d
    ranges = [None] * d if range is None else list(range)
    if len(per_dim) != d or len(ranges) != d:
        raise ValueError(f"jnp.histogramdd: bins and range need one entry per dimension "
                         f"(D={d}), got {len(per_dim)} bins and {len(ranges)} ranges")
    if weights is not None:
        weights = ensure_array("histogramdd", weights)
        if tuple(weights.shape) != (n,):
            raise ValueError(f"jnp.histogramdd: weights must have shape ({n},), got "
                             f"{shape_str(weights.shape)}")
    flat, edges_by_dim, nbins = None, [], []
    for i in builtins.range(d):
        x = sample[:, i]
        edges = histogram_bin_edges(x, per_dim[i], ranges[i])
        x = lax.convert_element_type(x, edges.dtype) if x.dtype != edges.dtype else x
        ne = edges.shape[0]
        idx = _count_le(edges, x)  # 0: below; ne: above; the last edge closes the last bin
        last = broadcast_to_shape(lax.index_in_dim(edges, ne - 1, 0, False), x.shape)
        idx = lax.select(lax.eq(x, last), lax.full(tuple(x.shape), ne - 1, idx.dtype), idx)
        idx = lax.convert_element_type(idx, dtypes.default_int())
        flat = idx if flat is None else lax.add(lax.mul(flat, lax.full((), ne + 1, idx.dtype)),
                                                idx)
        edges_by_dim.append(edges)
        nbins.append(ne + 1)
    total = int(np.prod(nbins))
    w = lax.full((n,), 1, dtypes.default_int()) if weights is None else weights
    if weights is not None and dtypes.is_bool(w.dtype):
        w = lax.convert_element_type(w, dtypes.default_int())
    hist = lax.reshape(_scatter_add(total, flat, w), tuple(nbins))
    hist = hist[(slice(1, -1),) * d]  # drop the outlier bins
    if density:
        (hist,) = promote_dtypes_inexact(hist)
        hist = lax.div(hist, red.sum(hist))
        for i, edges in enumerate(edges_by_dim):
            shape = [1] * d
            shape[i] = edges.shape[0] - 1
            width = lax.reshape(lax.convert_element_type(_diff_last(edges), hist.dtype),
                                tuple(shape))
            hist = lax.div(hist, broadcast_to_shape(width, hist.shape))
    return hist, edges_by_dim


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Two-dimensional histogram of the points ``(x[i], y[i])`` (``numpy.histogram2d``).

    ``bins``: an int, ``[nx, ny]``, one edge array for both axes, or ``[xedges,
    yedges]``. Returns ``(hist, xedges, yedges)``; see :func:`histogramdd`.
    """
    x, y = ensure_array("histogram2d", x), ensure_array("histogram2d", y)
    if x.ndim != 1 or tuple(x.shape) != tuple(y.shape):
        raise OperandShapeError(f"jnp.histogram2d: x and y must be 1-D of the same length, got "
                                f"{shape_str(x.shape)} and {shape_str(y.shape)}")
    nb = len(bins) if isinstance(bins, (list, tuple)) or np.ndim(bins) else 1
    if nb not in (1, 2):  # one edge array shared by both axes
        bins = [bins, bins]
    x, y = promote_dtypes(x, y)
    sample = lax.concatenate([lax.reshape(x, (x.shape[0], 1)),
                              lax.reshape(y, (y.shape[0], 1))], 1)
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def digitize(x, bins, right=False, *, method=None):
    """Index of the bin of each ``x`` (``bins`` 1-D, increasing or decreasing):
    ``bins[i-1] <= x < bins[i]`` (``right``: ``bins[i-1] < x <= bins[i]``); int32, as
    JAX's (its searchsorted's)."""
    check_arraylike("digitize", x, bins)  # scalars unconverted: see searchsorted
    x, bins = promote_dtypes(x, bins)
    if bins.ndim != 1:
        raise ValueError(f"jnp.digitize: bins must be 1-D, got shape {shape_str(bins.shape)}")
    n = bins.shape[0]
    if type(n) is int and n == 0:
        return lax.full(tuple(x.shape), 0, dtypes.int32)
    if not isinstance(bins, Tracer):  # unordered bins give no meaningful index (NumPy raises)
        steps = np.diff(np.asarray(bins))
        if np.any(steps < 0) and np.any(steps > 0):
            raise ValueError(f"jnp.digitize: bins must be monotonically increasing or "
                             f"decreasing, got {np.asarray(bins)!r}")
    inc = _count_le(bins, x, strict=right)
    dec = lax.sub(lax.full((), n, inc.dtype), inc)  # searchsorted on the reversed bins
    increasing = _bins_increasing(bins, n)
    out = lax.select(broadcast_to_shape(increasing, tuple(inc.shape)), inc, dec)
    return lax.convert_element_type(out, dtypes.int32)


def _bins_increasing(bins, n):
    """NumPy's direction of ``bins``: set by the first pair of unequal neighbours (NaN is
    unequal to all), increasing when there is none. Comparing the end points instead calls
    sorted bins with a NaN at the end (``np.sort``'s place for it) decreasing."""
    if type(n) is int and n < 2:
        return lax.full((), True, dtypes.bool_)
    lo, hi = lax.slice_in_dim(bins, 0, n - 1, 1, 0), lax.slice_in_dim(bins, 1, n, 1, 0)
    unequal = lax.ne(lo, hi)
    first = lax.argmax(unequal, 0, dtypes.int32)  # 0 when all are equal
    rises = lax.lt(lax.dynamic_index_in_dim(lo, first, 0, False),
                   lax.dynamic_index_in_dim(hi, first, 0, False))
    any_unequal = lax.reduce_or(unequal, (0,))
    return lax.bitwise_or(rises, lax.bitwise_not(any_unequal))


# -- statistics -----------------------------------------------------------------------------
def _rows(x, rowvar, name):
    if x.ndim > 2:
        raise ValueError(f"jnp.cov: {name} has more than 2 dimensions (shape "
                         f"{shape_str(x.shape)})")
    if x.ndim == 2 and not rowvar:  # NumPy 2 (and JAX): any 2-D input, even one row
        return lax.transpose(x, (1, 0))
    if x.ndim < 2:
        x = lax.reshape(x, (1,) + tuple(x.shape)) if x.ndim == 1 else lax.reshape(x, (1, 1))
    return x


def _weight_vector(w, nobs, name, integer=False):
    w = ensure_array("cov", w)
    if w.ndim != 1:
        raise RuntimeError(f"jnp.cov: cannot handle multidimensional {name} (shape "
                           f"{shape_str(w.shape)})")
    if w.shape[0] != nobs:
        raise RuntimeError(f"jnp.cov: incompatible numbers of samples and {name} "
                           f"({w.shape[0]} vs {nobs})")
    if integer and not (dtypes.is_int(w.dtype) or dtypes.is_bool(w.dtype)):
        raise TypeError(f"jnp.cov: {name} must be integer, got {w.dtype}")
    # (traced weights cannot be checked)
    if not isinstance(w, Tracer) and bool(np.any(np.asarray(w) < 0)):
        raise ValueError(f"jnp.cov: {name} cannot be negative, got {np.asarray(w)!r}")
    return w


def _inexact_dtype(dtype, name):
    """The ``dtype=`` of cov/corrcoef: None or a float/complex type, as JAX requires."""
    dt = canonical_dtype(dtype, name)
    if dt is not None and not dtypes.is_inexact(dt):
        raise ValueError(f"jnp.{name}: dtype must be a subclass of float or complex; got "
                         f"{dt}")
    return dt


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """Covariance matrix of the variables in the rows (``rowvar``) or columns of ``m``
    (and ``y``), with optional frequency and analytic weights, as NumPy; ``dtype`` (float
    or complex) is the type the data and weights are computed in and the result's."""
    dt = _inexact_dtype(dtype, "cov")
    if y is not None:
        m, y = promote_dtypes_inexact(ensure_array("cov", m), ensure_array("cov", y))
    else:
        (m,) = promote_dtypes_inexact(ensure_array("cov", m))
    x = _rows(m, rowvar, "m")
    if y is not None:
        x = lax.concatenate([x, _rows(y, rowvar, "y")], 0)
    if dt is not None:
        x = lax.convert_element_type(x, dt)
    nobs = x.shape[1]
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = lax.convert_element_type(_weight_vector(fweights, nobs, "fweights", True), x.dtype)
    if aweights is not None:
        aw = lax.convert_element_type(_weight_vector(aweights, nobs, "aweights"), x.dtype)
        w = aw if w is None else lax.mul(w, aw)
    avg = red.average(x, axis=1, weights=w)
    w_sum = None if w is None else red.sum(w)  # (every row's; there may be no rows)
    if w is None and type(nobs) is int:
        fact = lax.full((), nobs - ddof, x.dtype)
    elif w is None:  # a symbolic number of observations
        fact = lax.sub(lax.convert_element_type(dim_value(nobs), x.dtype),
                       lax.full((), ddof, x.dtype))
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = lax.sub(w_sum, lax.full((), ddof, w_sum.dtype))
    else:
        fact = lax.sub(w_sum, lax.div(lax.mul(lax.full((), ddof, w_sum.dtype),
                                              red.sum(lax.mul(w, aw))), w_sum))
    xc = lax.sub(x, lax.broadcast_in_dim(avg, tuple(x.shape), (0,)))
    xw = xc if w is None else lax.mul(xc, lax.broadcast_in_dim(w, tuple(x.shape), (1,)))
    if dtypes.is_complex(xw.dtype):
        xw = lax.conj(xw)
    c = lax.dot_general(xc, xw, (((1,), (1,)), ((), ())))
    # no degrees of freedom left (ddof >= the observations' weight): NumPy divides by 0
    # (inf, or NaN for no observations), never by a negative count
    c = lax.div(c, lax.max(fact, lax.full((), 0, fact.dtype)))
    ones = tuple(i for i, d in enumerate(c.shape) if type(d) is int and d == 1)
    return lax.squeeze(c, ones)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients (``cov`` normalized by the standard deviations;
    the real parts clipped to [-1, 1]), computed in ``dtype`` as :func:`cov`."""
    c = cov(x, y, rowvar, dtype=_inexact_dtype(dtype, "corrcoef"))
    if c.ndim == 0:
        return lax.div(c, c)
    d = lax.real(diag(c)) if dtypes.is_complex(c.dtype) else diag(c)
    sd = lax.sqrt(d)
    n = c.shape[0]
    c = lax.div(c, lax.convert_element_type(lax.broadcast_in_dim(sd, (n, n), (0,)), c.dtype))
    c = lax.div(c, lax.convert_element_type(lax.broadcast_in_dim(sd, (n, n), (1,)), c.dtype))
    if dtypes.is_complex(c.dtype):
        return lax.complex(lax.clamp(-1.0, lax.real(c), 1.0), lax.clamp(-1.0, lax.imag(c), 1.0))
    return lax.clamp(-1.0, c, 1.0)


__all__ = ["bincount", "histogram_bin_edges", "histogram", "histogramdd", "histogram2d",
           "digitize", "cov", "corrcoef"]
