"""Solutions of rougier/numpy-100 ("100 NumPy exercises") with ``import tjit.numpy as np``:
each runs under NumPy (float64) and under tjit.numpy and the results must agree in
value (allclose), shape and dtype kind. Solutions that mutate arrays in place use the
``.at[]`` form that tjit's error message suggests. Also the notebook manners the
exercises lean on: printing, formatting, NumPy interop, pickling, call errors."""

import pickle

import numpy
import pytest

import tjit
import tjit.numpy as jnp


def _gaussian(np):  # exercise 56
    X, Y = np.meshgrid(np.linspace(-1, 1, 10), np.linspace(-1, 1, 10))
    D = np.sqrt(X * X + Y * Y)
    return np.exp(-((D - 0.0) ** 2 / (2.0 * 1.0 ** 2)))


def _cauchy(np):  # exercise 47
    X = np.arange(8)
    Y = X + 0.5
    return 1.0 / np.subtract.outer(X, Y)


def _checkerboard(np):  # exercise 21
    return np.tile(np.array([[0, 1], [1, 0]]), (4, 4))


def _border(np):  # exercise 16
    return np.pad(np.ones((5, 5)), pad_width=1, mode="constant", constant_values=0)


def _diag_below(np):  # exercise 18
    return np.diag(1 + np.arange(4), k=-1)


def _unravel(np):  # exercise 20
    return np.stack(np.unravel_index(99, (6, 7, 8)))


def _negate_3_8(np):  # exercise 25, with jnp's functional update
    Z = np.arange(11)
    mask = (Z > 3) & (Z < 8)
    return np.where(mask, -Z, Z)


def _sum_range(np):  # exercise 26 (np.sum's second argument is the axis)
    return np.sum(np.arange(5), -1)


def _closest(np):  # exercise 61
    Z = np.linspace(-3.0, 5.0, 17)
    return Z[np.abs(Z - 0.3).argmin()]


def _row_mean_sub(np):  # exercise 58
    X = np.arange(15.0).reshape(3, 5) ** 1.5
    return X - X.mean(axis=1, keepdims=True)


def _sort_by_col(np):  # exercise 59
    Z = np.array([[3, 1, 2], [1, 5, 0], [2, 2, 9]])
    return Z[Z[:, 1].argsort()]


def _bincount_weights(np):  # exercises 65 and 68
    X = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    I = np.array([1, 3, 9, 3, 4, 1])  # noqa: E741  (the exercise's name)
    return np.bincount(I, X) / np.maximum(np.bincount(I), 1)


def _swap_rows(np):  # exercise 72, functional
    A = np.arange(25).reshape(5, 5)
    return A[np.array([1, 0, 2, 3, 4])]


def _cumsum_moving_avg(np):  # exercise 75
    Z = np.arange(20.0)
    ret = np.cumsum(Z)
    ret = np.concatenate([ret[:3], ret[3:] - ret[:-3]])
    return ret[2:] / 3


def _dot_diag(np):  # exercise 69
    A = np.arange(12.0).reshape(3, 4) / 7
    B = np.arange(12.0).reshape(4, 3) / 5
    return np.einsum("ij,ji->i", A, B)


def _tensordot(np):  # exercise 86-like (exercise 83's tensordot)
    p, n = 3, 4
    M = np.ones((p, n, n))
    V = np.arange(p * n * 1.0).reshape(p, n, 1)
    return np.tensordot(M, V, axes=[[0, 2], [0, 1]])


def _rank(np):  # exercise 83
    Z = np.arange(100.0).reshape(10, 10) % 7
    S = np.linalg.svd(Z)[1]
    return np.sum(S > 1e-6)


def _distances(np):  # exercise 53
    Z = np.arange(20.0).reshape(10, 2) ** 0.5
    X, Y = np.atleast_2d(Z[:, 0], Z[:, 1])
    return np.sqrt((X - X.T) ** 2 + (Y - Y.T) ** 2)


def _polar(np):  # exercise 44
    Z = np.arange(1.0, 21.0).reshape(10, 2) / 3
    X, Y = Z[:, 0], Z[:, 1]
    return np.stack([np.sqrt(X ** 2 + Y ** 2), np.arctan2(Y, X)])


def _int_float_bits(np):  # exercise 28
    return np.array([np.array(0) // np.array(1), np.array(7) // np.array(2)])


def _unique_rows(np):  # exercise 93 (deterministic input)
    Z = np.array([[1, 1, 1], [0, 1, 2], [0, 1, 2], [2, 2, 2]])
    return np.unique(Z, axis=0)


def _percentile(np):  # exercise 100 (bootstrap without the random part)
    X = np.arange(20.0) ** 1.3
    return np.percentile(X, np.array([2.5, 97.5]))


def _outer_add(np):  # exercise 87-like block sums
    Z = np.ones((16, 16))
    k = 4
    return np.add.reduceat(np.add.reduceat(Z, np.arange(0, Z.shape[0], k), axis=0),
                           np.arange(0, Z.shape[1], k), axis=1)


EXERCISES = [_gaussian, _cauchy, _checkerboard, _border, _diag_below, _unravel,
             _negate_3_8, _sum_range, _closest, _row_mean_sub, _sort_by_col,
             _bincount_weights, _swap_rows, _cumsum_moving_avg, _dot_diag, _tensordot,
             _rank, _distances, _polar, _int_float_bits, _unique_rows, _percentile,
             _outer_add]


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda f: f.__name__.lstrip("_"))
def test_exercise_matches_numpy(exercise):
    want = numpy.asarray(exercise(numpy))
    got = exercise(jnp)
    got_host = numpy.asarray(got)
    assert got_host.shape == want.shape
    assert got_host.dtype.kind == want.dtype.kind
    numpy.testing.assert_allclose(got_host, want, rtol=2e-5, atol=1e-6)


# -- in-place forms: the error names the operation and the functional fix ------------------
def test_setitem_error_suggests_at_set():
    Z = jnp.zeros(10)
    with pytest.raises(TypeError, match=r"at\[idx\]\.set"):
        Z[4] = 1  # exercise 6
    numpy.testing.assert_array_equal(numpy.asarray(Z.at[4].set(1)),
                                     numpy.eye(10)[4])


@pytest.mark.parametrize("name,nargs", [("add", 2), ("negative", 1), ("sin", 1),
                                        ("logical_and", 2), ("logical_not", 1)])
def test_out_argument_error_names_the_function(name, nargs):
    a = jnp.ones(3)
    if name in ("add", "negative", "logical_and"):  # JAX's ufuncs take out=None only
        err, msg = NotImplementedError, rf"^jnp.{name}: the 'out' argument is not supported"
    else:
        err, msg = TypeError, rf"^{name}\(\) got an unexpected keyword argument 'out'"
    with pytest.raises(err, match=msg):
        getattr(jnp, name)(*([a] * nargs), out=a)  # exercises 35 and 77


def test_ufunc_functions_pickle_by_name():
    assert pickle.loads(pickle.dumps(jnp.add)) is jnp.add
    assert pickle.loads(pickle.dumps(jnp.sin)) is jnp.sin


# -- notebook manners -----------------------------------------------------------------
def test_format_of_arrays_follows_numpy():
    assert f"{jnp.array(2.71828):.3f}" == "2.718"
    assert f"{jnp.array(3):>4}" == "   3"
    assert f"{jnp.array([1.0, 2.0])}" == str(numpy.array([1.0, 2.0], numpy.float32))
    with pytest.raises(TypeError, match=r"shape \(2,\).*tolist"):
        f"{jnp.ones(2):.3f}"


def test_print_summarizes_large_arrays_as_numpy():
    x = numpy.arange(2000)
    assert str(jnp.asarray(x)) == str(x.astype(numpy.int32))
    assert repr(jnp.arange(3.0)) == "Array([0., 1., 2.], dtype=float32)"


def test_numpy_interop_and_python_scalars():
    x = jnp.linspace(0.0, 1.0, 5)
    ref = numpy.linspace(0.0, 1.0, 5)
    s = numpy.sin(x)
    assert type(s) is numpy.ndarray
    numpy.testing.assert_allclose(s, numpy.sin(ref), rtol=1e-6)
    mixed = x + numpy.ones(5)
    assert isinstance(mixed, jnp.ndarray)
    numpy.testing.assert_allclose(numpy.asarray(numpy.ones(5) + x), ref + 1, rtol=1e-6)
    z = jnp.array(2.5)
    assert float(z) == 2.5 and int(z) == 2 and z.item() == 2.5
    assert jnp.arange(4).reshape(2, 2).tolist() == [[0, 1], [2, 3]]
    assert len(jnp.ones((4, 2))) == 4
    assert [int(v) for v in jnp.arange(3)] == [0, 1, 2]
    assert bool(jnp.array([1])) is True
    with pytest.raises(ValueError, match="ambiguous"):
        bool(jnp.array([1, 2]))
    back = pickle.loads(pickle.dumps(x))
    numpy.testing.assert_array_equal(numpy.asarray(back), numpy.asarray(x))


# -- NumPy names tjit.numpy does not have (as jax.numpy): say why and what instead ----------
@pytest.mark.parametrize("name,fix", [
    ("ubyte", r"jnp\.uint8"),                     # exercises 23 and 66
    ("seterr", "debug_nans"),                     # exercise 31
    ("emath", r"jnp\.sqrt"),                      # exercise 32
    ("datetime64", "NumPy or pandas"),            # exercise 33
    ("genfromtxt", r"jnp\.asarray"),              # exercise 54
    ("ndenumerate", r"numpy\.ndenumerate"),       # exercise 55
    ("nditer", r"at\[idx\]\.set"),                # exercise 62
    ("lib", "sliding_window_view"),               # exercise 87
    ("ascontiguousarray", r"jnp\.asarray"),       # exercise 96
    ("show_config", r"numpy\.show_config"),       # exercise 2
])
def test_numpy_only_names_explain_the_fix(name, fix):
    assert not hasattr(jnp, name)
    with pytest.raises(AttributeError, match=rf"has no attribute '{name}': numpy\.{name} "
                                             rf"is not part of tjit\.numpy.*{fix}"):
        getattr(jnp, name)


def test_unknown_names_keep_the_plain_error():
    with pytest.raises(AttributeError, match=r"has no attribute 'no_such_name'$"):
        jnp.no_such_name
    with pytest.raises(ImportError):
        from tjit.numpy import nditer  # noqa: F401


def test_view_as_ndarray_subclass_says_to_use_numpy():  # exercises 63 and 85
    class Named(numpy.ndarray):
        pass

    class Symetric(jnp.ndarray):  # the exercises subclass np.ndarray, here tjit's Array
        pass

    for cls in (Named, Symetric):
        with pytest.raises(TypeError, match=rf"view: .*subclass {cls.__name__}.*"
                                            r"numpy\.asarray\(x\)"):
            jnp.ones((2, 2)).view(cls)
    bits = numpy.asarray(jnp.ones(2).view(jnp.int32))  # a dtype view still works
    numpy.testing.assert_array_equal(bits, numpy.ones(2, numpy.float32).view(numpy.int32))


@pytest.mark.parametrize("name,fix", [("flags", r"at\[idx\]\.set"),  # exercise 43
                                      ("strides", "stride_tricks")])  # exercise 76
def test_ndarray_memory_attributes_explain_themselves(name, fix):
    x = jnp.ones(3)
    assert not hasattr(x, name)
    with pytest.raises(AttributeError, match=rf"no attribute '{name}'.*{fix}"):
        getattr(x, name)
    with pytest.raises(AttributeError, match=rf"no attribute '{name}'"):
        tjit.jit(lambda a: getattr(a, name))(x)
