"""Bad input through the public API, by class of mistake (the cases benchmarks/diff_errors.py
found against JAX and NumPy): each raises the class a JAX or NumPy user catches, eagerly
and under jit, with a message that names the function and the offending value."""

import inspect

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, random
from tjit.scipy import fft as jsp_fft, stats
from tests.bad_input import check_raises, message

X = np.linspace(0.1, 0.9, 12, dtype=np.float32).reshape(3, 4)
C = (X + 1j * X).astype(np.complex64)
B = X > 0.5


# -- axis out of range: NumPy's AxisError, a ValueError and an IndexError ------------------
# JAX raises ValueError from its axis checks and IndexError from tuple indexing, depending
# on the function; every jnp function with an ``axis`` parameter is swept.
_AXIS_EXTRA_ARGS = {
    "append": (X,), "argpartition": (1,), "array_split": (2,), "cross": (X,),
    "delete": (0,), "insert": (0, 1.0), "nanpercentile": (50.0,), "nanquantile": (0.5,),
    "partition": (1,), "percentile": (50.0,), "quantile": (0.5,), "repeat": (2,),
    "roll": (1,), "split": (1,), "take": (np.array([0, 1]),), "vecdot": (X,),
    "take_along_axis": (np.zeros((3, 4), np.int32),),
}
_AXIS_CALLS = {
    "packbits": lambda axis: jnp.packbits(B, axis=axis),
    "unpackbits": lambda axis: jnp.unpackbits(np.ones((3, 4), np.uint8), axis=axis),
    "compress": lambda axis: jnp.compress(np.array([True, False, True]), X, axis=axis),
    "apply_along_axis": lambda axis: jnp.apply_along_axis(jnp.sum, axis, X),
    "put_along_axis": lambda axis: jnp.put_along_axis(
        X, np.zeros((3, 4), np.int32), 1.0, axis=axis, inplace=False),
    "linspace": lambda axis: jnp.linspace(X[0], X[1], 3, axis=axis),
    "geomspace": lambda axis: jnp.geomspace(X[0], X[1], 3, axis=axis),
    "logspace": lambda axis: jnp.logspace(X[0], X[1], 3, axis=axis),
}


def _functions_with_axis():
    out = []
    for name in sorted(dir(jnp)):
        f = getattr(jnp, name)
        if name.startswith("_") or not callable(f) or isinstance(f, type):
            continue
        try:
            if "axis" in inspect.signature(f).parameters:
                out.append(name)
        except (TypeError, ValueError):
            continue
    return out


@pytest.mark.parametrize("name", _functions_with_axis())
def test_every_axis_out_of_range(name):
    f = getattr(jnp, name)
    call = _AXIS_CALLS.get(name, lambda axis: f(X, *_AXIS_EXTRA_ARGS.get(name, ()),
                                                axis=axis))
    for axis in (5, -6):
        with pytest.raises(np.exceptions.AxisError) as e:
            call(axis)
        assert isinstance(e.value, ValueError) and isinstance(e.value, IndexError)
        assert f"axis {axis}" in message(e.value), message(e.value)
    with pytest.raises(TypeError, match="axis must be an int.*got 1.5"):
        call(1.5)  # an error, not axis 1


@pytest.mark.parametrize("fn,args", [
    (lambda x: jnp.size(x, 4), (X,)),
    (lambda x: jnp.add.reduce(x, axis=4), (X,)),
    (lambda x: jnp.add.accumulate(x, axis=4), (X,)),
    (lambda x: jnp.fft.fft(x, axis=4), (X,)),
    (lambda x: lax.top_k(x, 1, axis=4), (X,)),
    (lambda x: random.categorical(random.key(0), x, axis=4), (X,)),
    (lambda x: stats.rankdata(x, axis=4), (X,)),
], ids=["size", "add.reduce", "add.accumulate", "fft", "top_k", "categorical", "rankdata"])
def test_axis_out_of_range_outside_jnp(fn, args):
    # rankdata wrapped axis 4 to 0 (axis % ndim) and ranked along it
    check_raises(fn, args, np.exceptions.AxisError, "axis 4")


@pytest.mark.parametrize("fn,args", [
    (lambda x: jnp.add.reduce(x, axis=0.5), (X,)),
    (lambda x: jnp.logaddexp.reduce(x, axis=0.5), (X,)),
    (lambda x: jnp.add.accumulate(x, axis=0.5), (X,)),
    (lambda x: jnp.logaddexp.accumulate(x, axis=0.5), (X,)),
], ids=["add.reduce", "logaddexp.reduce", "add.accumulate", "logaddexp.accumulate"])
def test_float_axis_of_ufunc_methods(fn, args):
    # the scan path's int(0.5) read axis 0 silently
    check_raises(fn, args, TypeError, "axis must be an int", "0.5")


def test_repeated_axis_of_size():
    # jnp.size(x, (0, 0)) multiplied dim 0 twice (9, not an error)
    check_raises(lambda x: jnp.size(x, (0, 0)), (X,), ValueError, "size", "repeated axis")


# -- negative sizes: a TypeError (JAX's class) and a ValueError (NumPy's) -----------------
@pytest.mark.parametrize("fn,word", [
    (lambda x: lax.broadcast(x, (-2, 3)), "broadcast"),
    (lambda x: lax.broadcast_in_dim(x, (-2, 3, 4), (1, 2)), "broadcast_in_dim"),
    (lambda x: lax.full((-2, 3), 1.0) + x[0, 0], "full"),
    (lambda x: lax.full_like(x, 1.0, shape=(-2,)), "full_like"),
    (lambda x: lax.iota(np.int32, -2) + x[0, 0], "iota"),
    (lambda x: lax.broadcasted_iota(np.int32, (-2, 3), 0) + x[0, 0], "broadcasted_iota"),
    (lambda x: jnp.zeros((-2, 3)) + x[0, 0], "zeros"),
    (lambda x: jnp.full((3, -2), x[0, 0]), "full"),
    (lambda x: random.normal(random.key(0), (-2,)) + x[0, 0], "normal"),
    (lambda x: lax.reshape(x, (-2, -6)), "reshape"),
], ids=["broadcast", "broadcast_in_dim", "full", "full_like", "iota", "broadcasted_iota",
        "zeros", "jnp.full", "normal", "reshape"])
def test_negative_dimension(fn, word):
    # under jit lax.broadcast & co. traced a negative dim and the compiled plan failed
    # with "IndexError: tuple index out of range"; eagerly NumPy's message named no function
    check_raises(fn, (X,), TypeError, word, "-2")
    with pytest.raises(ValueError):
        fn(X)


# -- non-integer sizes ---------------------------------------------------------------------
def test_float_round_decimals():
    # Python's "'float' object cannot be interpreted as an integer" named no argument
    check_raises(lambda x: jnp.round(x, 2.5), (X,), TypeError, "round", "decimals", "2.5")


def test_float_split_sizes():
    # NumPy's "'float' object cannot be interpreted as an integer" named no function
    check_raises(lambda x: lax.split(x, (2.5, 0.5)), (X,), TypeError, "lax.split", "2.5")

@pytest.mark.parametrize("fn,name", [
    (lambda x: jnp.partition(x, 1.5), "partition: kth"),
    (lambda x: jnp.argpartition(x, 1.5), "argpartition: kth"),
    (lambda x: jnp.unique(x, size=1.5), "unique: size"),
    (lambda x: jnp.lexsort(x[0, :2], axis=1.5), "lexsort: axis"),
    (lambda x: jnp.rollaxis(x, 0, 1.5), "rollaxis: start"),
    (lambda x: jnp.repeat(x[0], 2, total_repeat_length=1.5), "repeat: total_repeat_length"),
    (lambda x: random.orthogonal(random.key(0), 1.5), "random.orthogonal: n"),
    (lambda x: jsp_fft.dct(x[0], n=1.5), "scipy.fft.dct: n"),
    (lambda x: jsp_fft.dctn(x, s=(1.5, 2)), "scipy.fft.dctn: s"),
    (lambda x: lax.reduce_precision(x, 1.5, 2), "lax.reduce_precision: exponent_bits"),
], ids=["partition", "argpartition", "unique", "lexsort", "rollaxis", "repeat",
        "random.orthogonal", "scipy.fft.dct", "scipy.fft.dctn", "lax.reduce_precision"])
def test_float_static_int(fn, name):
    # NumPy's bare "'float' object cannot be interpreted as an integer" named neither
    check_raises(fn, (X,), TypeError, f"{name} must be an integer", "1.5")


@pytest.mark.parametrize("name", ["top_k", "approx_max_k", "approx_min_k"])
def test_float_k(name):
    # int(2.5) returned the top 2 silently
    check_raises(lambda x: getattr(lax, name)(x, 2.5), (X,), TypeError,
                 f"{name}: k must be an integer", "2.5")


@pytest.mark.parametrize("fn,what", [
    (lambda x: lax.reduce_window(x, 0.0, lax.add, (2.5, 2), (1, 1), "VALID"),
     "window_dimensions"),
    (lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1.5, 1), "VALID"), "window_strides"),
    (lambda x: lax.fft(x.astype(np.complex64), "FFT", (2.5,)), "fft_lengths"),
    (lambda x: lax.conv_general_dilated_patches(x[None, None], (2.5, 2), (1, 1), "VALID"),
     "filter_shape"),
    (lambda x: lax.slice(x, (0, 0), (3, 4), (1.5, 1)), "strides"),
    (lambda x: lax.transpose(x, (1.0, 0)), "permutation"),
    (lambda x: lax.conv(x[None, None], x[None, None, :2, :2], (1.5, 1), "VALID"),
     "window_strides"),
    (lambda x: lax.broadcast_in_dim(x[0], (3, 4), (1.5,)), "broadcast_dimensions"),
], ids=["window_dimensions", "window_strides", "fft_lengths", "filter_shape", "slice-strides",
        "permutation", "conv-strides", "broadcast_dimensions"])
def test_float_static_ints(fn, what):
    # int(2.5) truncated each of these silently (a 2-wide window, a stride of 1...)
    check_raises(fn, (X,), TypeError, what, "must be integers")


# -- wrong dtypes --------------------------------------------------------------------------
@pytest.mark.parametrize("fn,args,cls,words", [
    (jnp.fabs, (C,), TypeError, ("fabs", "complex64", "jnp.abs")),
    (jnp.sign, (B,), TypeError, ("sign", "bool")),
    (jnp.isposinf, (C,), ValueError, ("isposinf", "complex64")),
    (jnp.isneginf, (C,), ValueError, ("isneginf", "complex64")),
    (lax.conj, (B,), TypeError, ("conj", "bool")),
    (lax.conj, (X.astype(np.int32),), TypeError, ("conj", "int32")),
    (lambda x: lax.bitcast_convert_type(x, np.float32), (C,), TypeError,
     ("bitcast_convert_type", "complex64", "float32")),
    (lambda x: lax.bitcast_convert_type(x, np.uint8), (B,), TypeError,
     ("bitcast_convert_type", "bool", "uint8")),
    (lambda x: lax.approx_max_k(x, 1), (B,), ValueError, ("approx_max_k", "bool")),
    (lambda x: lax.approx_min_k(x, 1), (C,), ValueError, ("approx_min_k", "complex64")),
], ids=["fabs", "sign", "isposinf", "isneginf", "conj-bool", "conj-int", "bitcast-complex",
        "bitcast-bool", "approx_max_k", "approx_min_k"])
def test_dtype_refused(fn, args, cls, words):
    # each returned a value JAX and NumPy refuse: fabs of complex its magnitude, sign of
    # bool the bools, isposinf of complex False everywhere, bitcast of complex its pairs
    check_raises(fn, args, cls, *words)


def test_the_refusals_leave_valid_calls_alone():
    np.testing.assert_array_equal(np.asarray(jnp.fabs(-X)), np.fabs(-X))
    np.testing.assert_array_equal(np.asarray(jnp.sign(X - 0.5)), np.sign(X - 0.5))
    assert np.asarray(jnp.isposinf(np.float32([np.inf, 1.0]))).tolist() == [True, False]
    # x.view takes complex numbers, as NumPy's and JAX's (pairs of floats)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(C).view(jnp.float32)),
                                  C.view(np.float32))
    vals, idx = lax.top_k(X[0], np.int64(2))
    assert np.asarray(idx).tolist() == [3, 2]
    np.testing.assert_allclose(np.asarray(lax.conj(X)), X)


# -- unknown option values -----------------------------------------------------------------
def test_unknown_isin_method():
    # method= was ignored, so a typo went unnoticed
    check_raises(lambda a, b: jnp.isin(a, b, method="bogus"), (X, X), ValueError,
                 "isin", "'bogus'", "'compare_all'")
    for method in ("compare_all", "binary_search", "sort", "auto"):
        assert bool(jnp.all(jnp.isin(X, X, method=method)))


@pytest.mark.parametrize("fn", [
    lambda x: jnp.sort(x, kind="bogus"), lambda x: jnp.argsort(x, kind="bogus"),
], ids=["sort", "argsort"])
def test_unknown_sort_kind(fn):
    # kind= was ignored whatever it said; NumPy's kinds still are (the sort is stable)
    check_raises(fn, (X,), ValueError, "sort", "'bogus'")
    np.testing.assert_array_equal(np.asarray(jnp.sort(X[0, ::-1], kind="quicksort")),
                                  np.sort(X[0, ::-1]))


# -- arguments of the wrong kind -----------------------------------------------------------
@pytest.mark.parametrize("name", ["sum", "mean", "var", "max"])
def test_where_must_be_boolean(name):
    # a float mask was read as mask != 0 (JAX and NumPy refuse it)
    kw = {"initial": 0.0} if name == "max" else {}
    f = getattr(jnp, name)
    check_raises(lambda x, w: f(x, where=w, **kw), (X, X), ValueError, name, "float32")
    np.testing.assert_allclose(np.asarray(f(X, where=B, **kw)),
                               getattr(np, name)(X.astype(np.float64), where=B, **kw),
                               rtol=1e-6)


@pytest.mark.parametrize("x", [None, "abc", [[1.0, 2.0], [3.0]]], ids=["None", "str", "ragged"])
def test_full_like_of_a_non_array(x):
    # AttributeError: 'NoneType' object has no attribute 'dtype'
    with pytest.raises(TypeError) as e:
        lax.full_like(x, 1.0)
    assert "full_like" in message(e.value) and type(x).__name__ in message(e.value)


@pytest.mark.parametrize("fn,args", [
    (lambda z: jnp.clip(z, 0, 1), (C,)),
    (lambda x: jnp.clip(x, 0, 1j), (X,)),
    (lambda z: jnp.asarray(z).clip(0, 1), (C,)),
    (lambda z: tjit.nn.sparse_sigmoid(z), (C,)),
], ids=["complex-array", "complex-bound", "method", "sparse_sigmoid"])
def test_clip_of_complex(fn, args):
    # NumPy's lexicographic order was applied; JAX refuses: complex numbers have no order
    check_raises(fn, args, ValueError, "clip", "complex")  # (sparse_sigmoid: "cannot be clipped")


def test_an_alias_is_named_as_called():
    # vstack's errors said "(raised in jnp.row_stack)": aliases share one entry point,
    # labelled with the alias met first
    with pytest.raises(TypeError) as e:
        jnp.vstack([X, X], dtype="bogus")
    assert "(raised in jnp.vstack)" in message(e.value)


@pytest.mark.parametrize("name", ["exp", "sin", "add", "max", "atan2", "population_count",
                                  "bitwise_or", "bitwise_not", "mul", "pow", "nextafter"])
def test_lax_elementwise_errors_name_the_function(name):
    # "tjit.lax: expected an array or scalar, got str" named no function; lax.exp's note
    # was also skipped because "exp" is a substring of "expected", bitwise_or's because
    # it was labelled with its primitive's name, "or"
    f = getattr(lax, name)
    args = ("abc",) if f.__code__.co_argcount == 1 else ("abc", 1.0)
    with pytest.raises(TypeError) as e:
        f(*args)
    assert f"lax.{name}" in message(e.value) and "str" in message(e.value)


# -- traced values where a static one is needed: ConcretizationTypeError naming the argument --
# Under jit an axis, a dim or a count passed as a jit argument is a tracer. Each shared check
# (normalize_axis, canonical_dim, the creation/random shape checks, top_k's k) said
# "axis must be an integer, got JitTracer(~int32[])" (or, for lax.iota, "iteration over a
# 0-d traced array"), which named neither the traced input nor the fix.
def _traced_static(call, *words):
    with pytest.raises(tjit.errors.ConcretizationTypeError) as e:
        call()
    assert isinstance(e.value, TypeError)  # JAX's ConcretizationTypeError is one too
    msg = message(e.value)
    for w in (*words, "traced argument 'n'", "static"):
        assert w in msg, (w, msg)


@pytest.mark.parametrize("name", _functions_with_axis())
def test_every_traced_axis(name):
    f = getattr(jnp, name)
    call = _AXIS_CALLS.get(name, lambda axis: f(X, *_AXIS_EXTRA_ARGS.get(name, ()),
                                                axis=axis))
    _traced_static(lambda: tjit.jit(lambda n: call(n))(1), "axis")


_TRACED_STATIC = {
    "zeros": (lambda n: jnp.zeros((n, 2)), "jnp.zeros", "shape"),
    "ones-scalar": (lambda n: jnp.ones(n), "jnp.ones", "shape"),
    "full": (lambda n: jnp.full((n,), 1.0), "jnp.full", "shape"),
    "indices": (lambda n: jnp.indices((n, 2)), "jnp.indices", "shape"),
    "broadcast_to": (lambda n: jnp.broadcast_to(X[0], (n, 4)), "broadcast_to", "shape"),
    "resize": (lambda n: jnp.resize(X, (n,)), "resize", "shape"),
    "lax.full": (lambda n: lax.full((n,), 1.0), "full", "shape"),
    "lax.iota": (lambda n: lax.iota(np.int32, n), "iota", "shape"),
    "lax.reshape": (lambda n: lax.reshape(X, (n, 4)), "reshape", "shape"),
    "lax.broadcast": (lambda n: lax.broadcast(X, (n,)), "broadcast", "shape"),
    "lax.broadcast_in_dim": (lambda n: lax.broadcast_in_dim(X[0], (n, 4), (1,)),
                             "broadcast_in_dim", "shape"),
    "lax.dynamic_slice": (lambda n: lax.dynamic_slice(X[0], (0,), (n,)), "dynamic_slice",
                          "shape"),
    "random.normal": (lambda n: random.normal(random.key(0), (n,)), "normal", "shape"),
    "random.randint": (lambda n: random.randint(random.key(0), (n,), 0, 4), "randint",
                       "shape"),
    "lax.top_k": (lambda n: lax.top_k(X[0], n), "top_k", "its k argument"),
    "lax.cumsum": (lambda n: lax.cumsum(X, axis=n), "cumsum", "axis"),
    "lax.rev": (lambda n: lax.rev(X, (n,)), "rev", "axis"),
    "lax.sort": (lambda n: lax.sort(X, dimension=n), "sort", "axis"),
    "lax.concatenate": (lambda n: lax.concatenate([X, X], n), "concatenate", "axis"),
    "lax.argmax": (lambda n: lax.argmax(X, n, np.int32), "argmax", "axis"),
    "lax.index_in_dim": (lambda n: lax.index_in_dim(X, n), "index_in_dim", "index",
                         "dynamic_index_in_dim"),
    "lax.slice_in_dim": (lambda n: lax.slice_in_dim(X, 0, n), "slice_in_dim", "index",
                         "dynamic_slice"),
    "lax.reduce_window": (lambda n: lax.reduce_window(X, 0.0, lax.add, (n, 1), (1, 1),
                                                      "VALID"), "reduce_window", "window"),
    "matrix_power": (lambda n: jnp.linalg.matrix_power(X[:3, :3], n), "matrix_power",
                     "exponent"),
    "round": (lambda n: jnp.round(X, n), "round", "decimals"),
    "partition": (lambda n: jnp.partition(X, n), "partition", "kth"),
    "argpartition": (lambda n: jnp.argpartition(X, n), "argpartition", "kth"),
    "unique": (lambda n: jnp.unique(X, size=n), "unique", "size"),
    "lexsort": (lambda n: jnp.lexsort(X[0, :2], axis=n), "lexsort", "axis"),
    "rollaxis": (lambda n: jnp.rollaxis(X, 0, n), "rollaxis", "start"),
    "repeat": (lambda n: jnp.repeat(X[0], 2, total_repeat_length=n), "repeat",
               "total_repeat_length"),
    "random.orthogonal": (lambda n: random.orthogonal(random.key(0), n), "random.orthogonal",
                          "its n argument"),
    "scipy.fft.dct": (lambda n: jsp_fft.dct(X[0], n=n), "scipy.fft.dct", "its n argument"),
    "scipy.fft.dctn": (lambda n: jsp_fft.dctn(X, s=(n, 2)), "scipy.fft.dctn", "its s argument"),
    "lax.reduce_precision": (lambda n: lax.reduce_precision(X, n, 2), "reduce_precision",
                             "exponent_bits"),
    "lax.split": (lambda n: lax.split(X[0], (n, 1)), "lax.split", "sizes"),
    "diff": (lambda n: jnp.diff(X, n), "diff", "its n argument"),
    "diagonal": (lambda n: jnp.diagonal(X, n), "diagonal", "offset"),
    "rot90": (lambda n: jnp.rot90(X, n), "rot90", "its k argument"),
    "fft-axis": (lambda n: jnp.fft.fft(X, axis=n), "jnp.fft", "axis"),
    "fft-n": (lambda n: jnp.fft.fft(X, n), "jnp.fft.fft", "n (or s)"),
    "fftn-axes": (lambda n: jnp.fft.fftn(X, axes=(n,)), "jnp.fft.fftn", "axis"),
    "fftfreq": (lambda n: jnp.fft.fftfreq(n), "jnp.fft.fftfreq", "its n argument"),
    "norm": (lambda n: jnp.linalg.norm(X[0], n), "norm", "its ord argument"),
    "vector_norm": (lambda n: jnp.linalg.vector_norm(X[0], ord=n), "vector_norm",
                    "its ord argument"),
}


@pytest.mark.parametrize("key", _TRACED_STATIC)
def test_traced_static_argument(key):
    fn, *words = _TRACED_STATIC[key]
    _traced_static(lambda: tjit.jit(fn)(2), *words)


def test_traced_float_k_of_top_k():
    # a traced float k: the same error (not "k must be a static integer, got JitTracer")
    _traced_static(lambda: tjit.jit(lambda n: lax.top_k(X[0], n))(2.0), "top_k", "k")


def test_static_arguments_still_work_when_marked_static():
    # the fix the messages give: the same calls with the argument static
    got = tjit.jit(lambda x, n: jnp.sum(x, axis=n), static_argnums=1)(X, 1)
    np.testing.assert_allclose(got, X.astype(np.float64).sum(axis=1), rtol=1e-6)
    vals, idx = tjit.jit(lambda x, n: lax.top_k(x, n), static_argnums=1)(X[0], 2)
    np.testing.assert_array_equal(idx, np.argsort(-X[0].astype(np.float64))[:2])
    assert tjit.jit(lambda n: lax.iota(np.int32, n), static_argnums=0)(3).tolist() == [0, 1, 2]


# -- an array where a dtype is expected ---------------------------------------------------
# np.dtype(x) reads x.dtype, so a tjit array (or a tracer) given as a dtype was taken as its
# own dtype: jnp.zeros(2, dtype=jnp.asarray(2)) returned int32 zeros and, under jit,
# x.astype(n) with a traced n converted to n's dtype (JAX: ValueError, NumPy: TypeError).
@pytest.mark.parametrize("fn", [
    lambda d: jnp.zeros(2, dtype=d),
    lambda d: jnp.full(2, 1, dtype=d),
    lambda d: jnp.asarray(X, dtype=d),
    lambda d: jnp.asarray(X).astype(d),
    lambda d: jnp.sum(X, dtype=d),
    lambda d: jnp.cumsum(X, dtype=d),
    lambda d: jnp.arange(3, dtype=d),
    lambda d: lax.convert_element_type(X, d),
    lambda d: random.normal(random.key(0), (2,), dtype=d),
    lambda d: jnp.fft.fftfreq(4, dtype=d),
    lambda d: jnp.asarray(X).view(d),
    lambda d: jnp.logaddexp.reduce(X, dtype=d),
    lambda d: jnp.logaddexp.accumulate(X, dtype=d),
], ids=["zeros", "full", "asarray", "astype", "sum", "cumsum", "arange",
        "convert_element_type", "random.normal", "fftfreq", "view", "logaddexp.reduce",
        "logaddexp.accumulate"])
def test_an_array_as_dtype(fn):
    for d in (jnp.asarray(2), np.array(2.0)):
        with pytest.raises(TypeError) as e:
            fn(d)
        assert isinstance(e.value, ValueError)  # JAX's class too
        assert "passed as a dtype" in message(e.value)
    with pytest.raises(TypeError, match="passed as a dtype"):
        tjit.jit(fn)(2)  # a traced value


def test_dtype_objects_still_accepted():
    for d, want in ((jnp.float16, np.float16), (np.dtype("int8"), np.int8),
                    ("bfloat16", jnp.bfloat16), (float, np.float32), (bool, np.bool_),
                    (np.float16(1), np.float16), (np.int8(3), np.int8)):  # a NumPy scalar
        # stands for its type, as in NumPy and JAX (np.zeros(2, dtype=np.int8(3)) is int8)
        assert jnp.zeros(2, dtype=d).dtype == np.dtype(want)
        assert jnp.ones(2).astype(d).dtype == np.dtype(want)


# -- x64 on: float32 stays float32 ---------------------------------------------------------
# NumPy float64 scalars in a formula are strong float64s (as in JAX): ndtr and log_ndtr
# computed x * np.sqrt(0.5), so with x64 on float32 inputs gave float64 results (JAX:
# float32); found by running benchmarks/diff_errors.py --x64 and comparing result dtypes.
@pytest.mark.parametrize("name", ["ndtr", "log_ndtr", "erf", "ndtri", "log_softmax"])
def test_float32_stays_float32_with_x64(name, x64):
    from scipy import special as sp_special
    import tjit.scipy.special as ts
    x = np.array([-12.0, -3.0, -0.4, 0.2, 0.45, 2.5], np.float32)
    if name in ("ndtri",):
        x = np.array([0.01, 0.3, 0.5, 0.9], np.float32)
    got = getattr(ts, name)(x)
    assert got.dtype == np.float32, got.dtype
    want = getattr(sp_special, name)(x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=2e-6, atol=1e-6)


def test_multigammaln_float32_with_x64(x64):
    from scipy import special as sp_special
    import tjit.scipy.special as ts
    got = ts.multigammaln(np.float32(3.5), 3)
    assert got.dtype == np.float32
    np.testing.assert_allclose(float(got), sp_special.multigammaln(3.5, 3), rtol=1e-6)


@pytest.mark.parametrize("name", ["logspace", "geomspace"])
def test_spaced_float32_with_x64(name, x64):
    # the eager path took NumPy's float64 result type: float32 ends gave float64 eagerly
    # and float32 under jit (JAX: float32 both)
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 5.0], np.float32)
    f = getattr(jnp, name)
    eager, traced = f(a, b, 4), tjit.jit(lambda p, q: f(p, q, 4))(a, b)
    assert eager.dtype == traced.dtype == np.float32
    want = getattr(np, name)(a.astype(np.float64), b.astype(np.float64), 4)
    np.testing.assert_allclose(np.asarray(eager, np.float64), want, rtol=2e-6)
    np.testing.assert_allclose(np.asarray(traced, np.float64), want, rtol=2e-6)
    assert f(1.0, 2.0, 3).dtype == np.float64  # Python floats: the default float
