"""``tjit.numpy.random``: NumPy's stateful random API for notebooks, built on
``tjit.random`` keys (a name JAX lacks; no JAX name changes meaning).

    rng = jnp.random.default_rng(0)
    x = rng.normal(size=(3, 4))            # the generator's key advances
    jnp.random.seed(1); y = jnp.random.rand(5)

A :class:`Generator` holds a key; each call splits it, samples with the ``tjit.random``
function of that distribution and keeps the other half, so a seed reproduces the same
sequence of results (the values differ from NumPy's, whose bit generator is PCG64).

Eager only: the state would capture traced values inside ``jit``/``grad``/``vmap``, so a
call made while tracing (or given a traced argument) raises :class:`TjitError` pointing
to ``tjit.random`` keys. Differences from NumPy: results are tjit arrays with JAX's
dtypes (float32/int32 unless x64 is on; ``size=None`` gives a 0-d array, not a Python
scalar); ``shuffle`` and ``permuted`` return a new array (tjit arrays are immutable)
instead of shuffling in place; ``out=`` is not supported.
"""


import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import Tracer, is_eager
from tjit.tracing.errors import TjitError, static_index
from tjit.tracing.tree_util import tree_leaves
from tjit import lax
from tjit import random as jr
from tjit.numpy._core import asarray
from tjit.numpy._shape import broadcast_shapes

__all__ = ["Generator", "default_rng", "seed", "rand", "randn", "random", "random_sample",
           "randint", "standard_normal", "normal", "uniform", "choice", "permutation",
           "shuffle", "exponential", "poisson", "binomial", "beta", "gamma"]


def _check_eager(method, args):
    if not is_eager() or any(isinstance(x, Tracer) for x in tree_leaves(args)):
        raise TjitError(
            f"tjit.numpy.random.{method}: the NumPy-style stateful generator works only "
            f"outside jit/grad/vmap (its state cannot hold traced values). Inside "
            f"transformed code pass a key instead: key = tjit.random.key(0); "
            f"k1, k2 = tjit.random.split(key); x = tjit.random.normal(k1, shape)")


def _size(size):
    if size is None:
        return None
    if np.ndim(size) == 0:
        return (static_index(size, "size", "tjit.numpy.random"),)
    return tuple(static_index(s, "size", "tjit.numpy.random") for s in size)


def _shape_for(size, *params):
    """``size``, or the parameters' broadcast shape when ``size`` is None."""
    size = _size(size)
    shapes = [tuple(np.shape(p)) for p in params]
    if size is not None:
        return size
    return tuple(broadcast_shapes(*shapes)) if shapes else ()


def _float(dtype):
    dt = dtypes.default_float() if dtype is None else dtypes.canonicalize(np.dtype(dtype))
    if not dtypes.is_float(dt):
        raise TypeError(f"tjit.numpy.random: dtype must be a float dtype, got {dt}")
    return dt


def _seed_int(seed):
    """An int from NumPy's seed forms (int, sequence of ints, None: fresh entropy)."""
    if seed is None:
        return int(np.random.SeedSequence().entropy) % 2 ** 63
    if isinstance(seed, (int, np.integer)):
        if seed < 0:
            raise ValueError(f"tjit.numpy.random: seed must be non-negative, got {seed}")
        return int(seed) % 2 ** 63
    words = np.asarray(seed)
    if words.ndim == 1 and np.issubdtype(words.dtype, np.integer):
        return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1,
                                                                           np.uint64)[0]) // 2
    raise TypeError(f"tjit.numpy.random: seed must be None, an int or a sequence of ints, "
                    f"got {seed!r}")


class Generator:
    """NumPy's ``Generator`` API over a ``tjit.random`` key (eager only; see the module
    docstring). Build one with :func:`default_rng`."""

    def __init__(self, seed=None):
        s = _seed_int(seed)
        self._key = jr.PRNGKey(s & 0xFFFFFFFF)
        if s >> 32:  # the high bits too, whatever the x64 switch (PRNGKey drops them)
            self._key = jr.fold_in(self._key, (s >> 32) & 0x7FFFFFFF)

    def __repr__(self):
        return "Generator(tjit.random threefry2x32)"

    def _next(self, method, *args):
        """A fresh key for one draw (the state keeps the other half of a split)."""
        _check_eager(method, args)
        self._key, sub = jr.split(self._key)
        return sub

    # -- floats -------------------------------------------------------------------------
    def random(self, size=None, dtype=None, out=None):
        """Floats uniform in [0, 1) (default dtype: float32; float64 with x64)."""
        _no_out("random", out)
        return jr.uniform(self._next("random"), _shape_for(size), _float(dtype))

    def standard_normal(self, size=None, dtype=None, out=None):
        """Standard normal floats."""
        _no_out("standard_normal", out)
        return jr.normal(self._next("standard_normal"), _shape_for(size), _float(dtype))

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Normal floats with mean ``loc`` and standard deviation ``scale``."""
        key = self._next("normal", loc, scale)
        shape = _shape_for(size, loc, scale)
        return jr.normal(key, shape, _float(None)) * scale + loc

    def uniform(self, low=0.0, high=1.0, size=None):
        """Floats uniform in [low, high)."""
        key = self._next("uniform", low, high)
        shape = _shape_for(size, low, high)
        u = jr.uniform(key, shape, _float(None))
        return low + (asarray(high) - low) * u

    def exponential(self, scale=1.0, size=None):
        """Exponential floats with mean ``scale``."""
        key = self._next("exponential", scale)
        return jr.exponential(key, _shape_for(size, scale), _float(None)) * scale

    def standard_exponential(self, size=None, dtype=None):
        """Exponential floats with mean 1."""
        return jr.exponential(self._next("standard_exponential"), _shape_for(size),
                              _float(dtype))

    def gamma(self, shape, scale=1.0, size=None):
        """Gamma floats with shape ``shape`` and scale ``scale``."""
        key = self._next("gamma", shape, scale)
        out_shape = _shape_for(size, shape, scale)
        return jr.gamma(key, shape, out_shape, _float(None)) * scale

    def standard_gamma(self, shape, size=None, dtype=None):
        """Gamma floats with unit scale."""
        key = self._next("standard_gamma", shape)
        return jr.gamma(key, shape, _shape_for(size, shape), _float(dtype))

    def beta(self, a, b, size=None):
        """Beta(a, b) floats."""
        key = self._next("beta", a, b)
        return jr.beta(key, a, b, _shape_for(size, a, b), _float(None))

    # -- integers -------------------------------------------------------------------------
    def integers(self, low, high=None, size=None, dtype=None, endpoint=False):
        """Integers in [low, high) ([low, high] with ``endpoint``); ``high=None`` means
        [0, low). Default dtype: int32 (int64 with x64)."""
        key = self._next("integers", low, high)
        if high is None:
            low, high = 0, low
        if endpoint:
            high = asarray(high) + 1
        dt = dtypes.default_int() if dtype is None else dtypes.canonicalize(np.dtype(dtype))
        return jr.randint(key, _shape_for(size, low, high), low, high, dt)

    def poisson(self, lam=1.0, size=None):
        """Poisson counts with rate ``lam``."""
        key = self._next("poisson", lam)
        return jr.poisson(key, lam, _shape_for(size, lam))

    def binomial(self, n, p, size=None):
        """Binomial counts of ``n`` trials with probability ``p`` (integers, as NumPy)."""
        key = self._next("binomial", n, p)
        out = jr.binomial(key, n, p, _shape_for(size, n, p))
        return lax.convert_element_type(out, dtypes.default_int())

    # -- sequences --------------------------------------------------------------------------
    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Samples from ``a`` (or ``arange(a)`` for an int) along ``axis``."""
        key = self._next("choice", a, p)
        return jr.choice(key, a, _shape_for(size), replace, p, axis)

    def permutation(self, x, axis=0):
        """A permuted copy of ``x`` along ``axis`` (``arange(x)`` for an int)."""
        return jr.permutation(self._next("permutation", x), x, axis)

    def shuffle(self, x, axis=0):
        """``x`` shuffled along ``axis``, returned as a new array (NumPy shuffles in
        place and returns None; tjit arrays are immutable)."""
        return jr.permutation(self._next("shuffle", x), asarray(x), axis)

    def permuted(self, x, axis=None, out=None):
        """Each slice along ``axis`` shuffled independently (flattened when None);
        returns a new array."""
        _no_out("permuted", out)
        key = self._next("permuted", x)
        x = asarray(x)
        if axis is None:
            return jr.permutation(key, x.reshape(-1), 0, independent=True).reshape(x.shape)
        return jr.permutation(key, x, axis, independent=True)


def _no_out(method, out):
    if out is not None:
        raise NotImplementedError(f"tjit.numpy.random.{method}: out= is not supported "
                                  f"(tjit arrays are immutable); use the returned array")


def default_rng(seed=None):
    """A :class:`Generator` seeded with ``seed`` (None: fresh OS entropy); a Generator
    is returned as is, as NumPy does.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> rng = jnp.random.default_rng(0)
        >>> rng.normal(size=2).shape
        (2,)
        >>> rng.integers(0, 10, size=3).dtype
        dtype('int32')
    """
    if isinstance(seed, Generator):
        return seed
    _check_eager("default_rng", (seed,))
    return Generator(seed)


# -- NumPy's legacy module-level functions, on one global Generator --------------------------
_global = None


def _state():
    global _global
    if _global is None:
        _global = Generator(None)
    return _global


def seed(seed=None):
    """Reseed the global generator used by the module-level functions.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> a = jnp.random.rand(2)
        >>> jnp.random.seed(0)
        >>> bool((jnp.random.rand(2) == a).all())
        True
    """
    global _global
    _check_eager("seed", (seed,))
    _global = Generator(seed)


def rand(*dims):
    """Uniform floats in [0, 1) of shape ``dims``.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> x = jnp.random.rand(2, 3)
        >>> x.shape, x.dtype, bool(((0 <= x) & (x < 1)).all())
        ((2, 3), dtype('float32'), True)
    """
    return _state().random(dims or None)


def randn(*dims):
    """Standard normal floats of shape ``dims``.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> jnp.random.randn(2, 3).shape
        (2, 3)
    """
    return _state().standard_normal(dims or None)


def random(size=None):
    """Uniform floats in [0, 1).

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> jnp.random.random((2,)).shape
        (2,)
    """
    return _state().random(size)


random_sample = random


def randint(low, high=None, size=None, dtype=None):
    """Integers in [low, high) ([0, low) when ``high`` is None).

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> x = jnp.random.randint(5, size=4)
        >>> x.dtype, bool(((0 <= x) & (x < 5)).all())
        (dtype('int32'), True)
    """
    return _state().integers(low, high, size, dtype)


def standard_normal(size=None):
    """Standard normal floats.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> jnp.random.standard_normal(3).shape
        (3,)
    """
    return _state().standard_normal(size)


def normal(loc=0.0, scale=1.0, size=None):
    """Normal floats with mean ``loc`` and standard deviation ``scale``.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> jnp.random.normal(10.0, 0.1, size=(2, 2)).shape
        (2, 2)
    """
    return _state().normal(loc, scale, size)


def uniform(low=0.0, high=1.0, size=None):
    """Floats uniform in [low, high).

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> x = jnp.random.uniform(-1.0, 1.0, size=3)
        >>> bool(((-1 <= x) & (x < 1)).all())
        True
    """
    return _state().uniform(low, high, size)


def choice(a, size=None, replace=True, p=None):
    """Samples from ``a`` (or ``arange(a)``).

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> x = jnp.random.choice(5, size=3, replace=False)
        >>> len(set(x.tolist())) == 3
        True
    """
    return _state().choice(a, size, replace, p)


def permutation(x):
    """A permuted copy of ``x`` (``arange(x)`` for an int).

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> sorted(jnp.random.permutation(4).tolist())
        [0, 1, 2, 3]
    """
    return _state().permutation(x)


def shuffle(x):
    """``x`` shuffled along its first axis, as a new array (not in place).

    Differences from NumPy: NumPy shuffles in place and returns None; tjit returns the
    shuffled copy (``x`` is unchanged). Numbers from a tjit.random key (not PCG64's);
    eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> x = jnp.arange(4)
        >>> sorted(jnp.random.shuffle(x).tolist()), x
        ([0, 1, 2, 3], Array([0, 1, 2, 3], dtype=int32))
    """
    return _state().shuffle(x)


def exponential(scale=1.0, size=None):
    """Exponential floats with mean ``scale``.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> bool((jnp.random.exponential(2.0, size=5) >= 0).all())
        True
    """
    return _state().exponential(scale, size)


def poisson(lam=1.0, size=None):
    """Poisson counts.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> jnp.random.poisson(3.0, size=4).dtype
        dtype('int32')
    """
    return _state().poisson(lam, size)


def binomial(n, p, size=None):
    """Binomial counts.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> x = jnp.random.binomial(10, 0.5, size=4)
        >>> bool(((0 <= x) & (x <= 10)).all())
        True
    """
    return _state().binomial(n, p, size)


def beta(a, b, size=None):
    """Beta floats.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> x = jnp.random.beta(2.0, 3.0, size=4)
        >>> bool(((0 <= x) & (x <= 1)).all())
        True
    """
    return _state().beta(a, b, size)


def gamma(shape, scale=1.0, size=None):
    """Gamma floats.

    Differences from NumPy: numbers from a tjit.random key (a seed repeats them, but
    they are not PCG64's); tjit arrays (0-d for size=None); eager only (see the module).

    Example::

        >>> jnp.random.seed(0)
        >>> jnp.random.gamma(2.0, size=3).shape
        (3,)
    """
    return _state().gamma(shape, scale, size)


def __dir__():  # tab completion lists the public names only
    return list(__all__)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
