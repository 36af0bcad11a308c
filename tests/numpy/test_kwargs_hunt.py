"""Regressions from the keyword-argument hunt (benchmarks/diff_numpy_kwargs.py): the sums and
products of every spelling with ``dtype=bool``, the dtype rules of var/std, and the error a
list argument gets from every public jnp function. References are NumPy's values."""

import inspect
import warnings

import numpy as onp
import pytest

import tjit
import tjit.numpy as jnp

RNG = onp.random.default_rng(0)
INT = RNG.integers(0, 3, (3, 4))
FLOAT = onp.where(RNG.random((3, 4)) < 0.2, onp.nan, RNG.integers(0, 3, (3, 4)) * 0.5)
BOOL = RNG.random((3, 4)) < 0.5
MASK = RNG.random((3, 4)) < 0.7

# (label, call with m = numpy or tjit.numpy): every way to sum or multiply into booleans.
# NumPy and JAX add booleans as or and multiply them as and (the inputs cast to bool
# first); tjit refused the bool accumulator (reduce_sum/cumsum of bool).
BOOL_ACCUMULATIONS = [
    ("sum", lambda m, a: m.sum(a, dtype=bool)),
    ("sum axis keepdims", lambda m, a: m.sum(a, axis=1, dtype=bool, keepdims=True)),
    ("sum where initial", lambda m, a: m.sum(a, axis=0, dtype=bool, where=MASK, initial=0)),
    ("prod", lambda m, a: m.prod(a, axis=0, dtype=bool)),
    ("prod where", lambda m, a: m.prod(a, axis=1, dtype=bool, where=MASK)),
    ("prod initial", lambda m, a: m.prod(a, axis=(0, 1), dtype=bool, initial=0)),
    ("nansum", lambda m, a: m.nansum(a, axis=1, dtype=bool)),
    ("nanprod", lambda m, a: m.nanprod(a, axis=0, dtype=bool)),
    ("cumsum", lambda m, a: m.cumsum(a, axis=1, dtype=bool)),
    ("cumsum flat", lambda m, a: m.cumsum(a, dtype=bool)),
    ("cumprod", lambda m, a: m.cumprod(a, axis=0, dtype=bool)),
    ("nancumsum", lambda m, a: m.nancumsum(a, axis=1, dtype=bool)),
    ("nancumprod", lambda m, a: m.nancumprod(a, axis=1, dtype=bool)),
    ("cumulative_sum", lambda m, a: m.cumulative_sum(a, axis=0, dtype=bool,
                                                     include_initial=True)),
    ("cumulative_prod", lambda m, a: m.cumulative_prod(a, axis=1, dtype=bool)),
    ("trace", lambda m, a: m.trace(a, offset=1, dtype=bool)),
    ("add.reduce", lambda m, a: m.add.reduce(a, axis=1, dtype=bool)),
    ("multiply.reduce", lambda m, a: m.multiply.reduce(a, axis=0, dtype=bool)),
    ("add.accumulate", lambda m, a: m.add.accumulate(a, axis=0, dtype=bool)),
    ("multiply.accumulate", lambda m, a: m.multiply.accumulate(a, axis=1, dtype=bool)),
]


@pytest.mark.parametrize("data", [INT, FLOAT, BOOL], ids=["int", "float-nan", "bool"])
@pytest.mark.parametrize("label,call", BOOL_ACCUMULATIONS, ids=[c[0] for c in
                                                                 BOOL_ACCUMULATIONS])
def test_bool_dtype_accumulates_as_or_and(label, call, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = call(onp, data)
    got = call(jnp, data)
    jitted = tjit.jit(lambda a: call(jnp, a))(data)
    for value in (got, jitted):
        assert value.dtype == onp.bool_
        onp.testing.assert_array_equal(onp.asarray(value), want)


@pytest.mark.parametrize("fname", ["var", "std", "nanvar", "nanstd"])
def test_variance_refuses_a_bool_dtype(fname):
    # NumPy raises (bool subtract) or returns a meaningless True; JAX raises
    with pytest.raises(ValueError, match=rf"jnp.{fname}: dtype must be \w+, got bool"):
        getattr(jnp, fname)(jnp.asarray(INT), dtype=bool)


@pytest.mark.parametrize("fname", ["std", "nanstd"])
def test_std_needs_an_inexact_dtype(fname):
    # JAX's rule ("dtype argument to jnp.std must be inexact"); tjit failed in sqrt
    with pytest.raises(ValueError, match=rf"jnp.{fname}: dtype must be inexact, got int32"):
        getattr(jnp, fname)(jnp.arange(4), dtype=jnp.int32)
    onp.testing.assert_allclose(onp.asarray(getattr(jnp, fname)(jnp.arange(4),
                                                                 dtype=jnp.float32)),
                                onp.std(onp.arange(4)), rtol=1e-6)


# -- a list where an array belongs ------------------------------------------------------------
# Functions about dtypes, not arrays (a list there is a structured-dtype spec to NumPy).
_DTYPE_FUNCTIONS = {"can_cast", "finfo", "iinfo", "issubdtype", "promote_dtypes",
                    "result_type", "dtype", "isdtype"}
_NOT_ARRAY_FUNCTIONS = {"asarray", "array", "load", "save", "savez", "fromfile",
                        "fromfunction", "frompyfunc", "vectorize", "piecewise", "fromiter",
                        "frombuffer", "fromstring", "from_dlpack", "printoptions",
                        "set_printoptions", "get_printoptions", "block", "einsum",
                        "einsum_path"}


def _array_functions():
    for name in sorted(dir(jnp)):
        fn = getattr(jnp, name)
        if (name.startswith("_") or name in _DTYPE_FUNCTIONS | _NOT_ARRAY_FUNCTIONS
                or not callable(fn) or inspect.isclass(fn)):
            continue
        yield name, fn


def test_a_list_argument_is_refused_by_name_everywhere():
    """Every public function that takes 1-3 float arrays refuses a list in any of those
    positions with jnp's refusal (it names the function and says to wrap the list in
    jnp.asarray), never a bare 'expected an array or scalar' from deep inside (quantile's
    q, interp's points, linspace/logspace/geomspace's ends did) nor a crash."""
    values = [0.5, 0.25, 0.75]
    bad, checked = [], 0
    for name, fn in _array_functions():
        for nargs in (1, 2, 3):
            arrays = [jnp.asarray(values) for _ in range(nargs)]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn(*arrays)
            except Exception:  # noqa: BLE001 - not this arity (or not a function of arrays)
                continue
            for pos in range(nargs):
                args = list(arrays)
                args[pos] = list(values)
                checked += 1
                try:
                    fn(*args)
                except TypeError as e:
                    if "requires ndarray or scalar arguments, got list" not in str(e):
                        bad.append(f"{name}(position {pos} of {nargs}): {e}")
                except Exception as e:  # noqa: BLE001
                    bad.append(f"{name}(position {pos} of {nargs}): {type(e).__name__}: {e}")
            break
    assert checked > 200, checked  # the sweep reached the namespace
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median"])
@pytest.mark.parametrize("width", [0, ((0, 2),), ((2, 0),), 3])
def test_pad_refuses_a_zero_stat_length_wherever_it_is(mode, width):
    # JAX refuses it for every statistic mode and width (NumPy for maximum/minimum);
    # tjit returned the array unpadded where that axis got no padding
    with pytest.raises(ValueError, match="stat_length of 0 yields no value"):
        jnp.pad(jnp.arange(4.0), width, mode=mode, stat_length=((0, 1),))
    want = onp.pad(onp.arange(4.0), width, mode=mode, stat_length=((1, 2),))
    onp.testing.assert_array_equal(onp.asarray(jnp.pad(jnp.arange(4.0), width, mode=mode,
                                                       stat_length=((1, 2),))), want)


# -- ufunc.reduce over several axes ------------------------------------------------------------
X3 = RNG.standard_normal((2, 3, 4))
MASK3 = RNG.random((2, 3, 4)) < 0.6


@pytest.mark.parametrize("name,data", [("logaddexp", X3), ("logaddexp2", X3),
                                       ("logical_xor", X3 > 0), ("logical_and", X3 > -1),
                                       ("bitwise_or", (X3 * 9).astype(onp.int32)),
                                       ("bitwise_xor", (X3 * 9).astype(onp.int32))])
@pytest.mark.parametrize("kw", [dict(axis=(0, 2)), dict(axis=(-1, 0), keepdims=True),
                                dict(axis=()), dict(axis=(1, 2), where=MASK3),
                                dict(axis=(0, 1, 2), initial=1), dict(axis=None)],
                         ids=["two", "keepdims", "none-of-them", "where", "initial", "all"])
def test_reduce_over_a_tuple_of_axes_without_a_library_path(name, data, kw):
    # the reduce-by-scan ufuncs refused a tuple of axes (NotImplementedError) where NumPy
    # and JAX reduce over all of them
    if name.startswith("logical") and "initial" in kw:
        kw = dict(kw, initial=True)
    want = getattr(onp, name).reduce(data, **kw)
    for got in (getattr(jnp, name).reduce(data, **kw),
                tjit.jit(lambda a: getattr(jnp, name).reduce(a, **kw))(data)):
        assert got.shape == want.shape
        onp.testing.assert_allclose(onp.asarray(got), want, rtol=1e-5)


def test_reduce_over_several_axes_needs_a_reorderable_ufunc():
    with pytest.raises(ValueError, match="'subtract' is not reorderable"):
        jnp.subtract.reduce(X3, axis=(0, 1))
    mine = jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1)
    with pytest.raises(ValueError, match="not reorderable"):
        mine.reduce(X3, axis=(0, 1))
    onp.testing.assert_allclose(onp.asarray(mine.reduce(X3, axis=(1,))),
                                onp.asarray(mine.reduce(X3, axis=1)))
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        jnp.logaddexp.reduce(X3, axis=(1, -2))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "logaddexp",
                                  "bitwise_xor", "logical_or"])
@pytest.mark.parametrize("axis,indices", [(0, [0, 2, 1, 5, 5]), (1, [3, 0, 1]), (-1, [2]),
                                          (0, [4, 4, 0]), (1, [3, 2, 2, 1])])
def test_reduceat_takes_traced_indices(name, axis, indices):
    # JAX's reduceat runs under jit with traced indices; tjit needed concrete ones
    a = onp.arange(24.0).reshape(6, 4) / 3 - 2
    if axis == 1 and len(indices) == 4:  # 3-D, a middle axis (a transposed copy read
        a = onp.arange(80.0).reshape(5, 4, 4) / 7 - 3  # in the loop made a cyclic plan)
    if name == "bitwise_xor":
        a = (a * 3).astype(onp.int32)
    idx = onp.array(indices)
    want = getattr(onp, name).reduceat(a, idx, axis=axis)
    eager = getattr(jnp, name).reduceat(a, idx, axis=axis)
    traced = tjit.jit(lambda v, i: getattr(jnp, name).reduceat(v, i, axis=axis))(a, idx)
    assert traced.dtype == eager.dtype
    for got in (eager, traced):
        onp.testing.assert_allclose(onp.asarray(got), want.astype(onp.asarray(got).dtype),
                                    rtol=1e-5, atol=1e-6)


# JAX's unique(size=, fill_value=) broadcasts fill_value against the padded result with the
# unique axis first; tjit failed inside lax.select for any non-scalar fill_value
_ROWS = onp.array([[3, 1, 3], [2, 2, 2], [3, 1, 3]])


@pytest.mark.parametrize("axis,fill,want", [
    (0, [7, 8, 9], [[2, 2, 2], [3, 1, 3], [7, 8, 9]]),
    (1, [7, 8, 9], [[1, 3, 7], [2, 2, 8], [1, 3, 9]]),
    (0, [[7], [8], [9]], [[2, 2, 2], [3, 1, 3], [9, 9, 9]]),
    (None, list(range(10, 19)), [1, 2, 3, 13, 14, 15, 16, 17, 18]),
])
def test_unique_size_pads_with_a_broadcast_fill_value(axis, fill, want):
    size = 9 if axis is None else 3
    f = lambda a: jnp.unique(a, axis=axis, size=size, fill_value=onp.array(fill))  # noqa
    for got in (f(_ROWS), tjit.jit(f)(_ROWS)):
        onp.testing.assert_array_equal(onp.asarray(got), want)
    with pytest.raises(ValueError, match=r"fill_value of shape \(2,\) does not broadcast"):
        jnp.unique(_ROWS, axis=0, size=3, fill_value=onp.array([7, 8]))
