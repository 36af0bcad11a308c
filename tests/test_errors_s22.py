"""Bad input found by benchmarks/diff_errors.py once it reached the functions its name
table missed (argument kits) and the submodules (jnp.linalg/fft, lax.linalg,
scipy.stats.<distribution>): each raises the class a JAX or NumPy user catches, eagerly and
under jit, naming the operation and the offending value, dtype or shape."""

import inspect

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.tracing.errors import NegativeDimensionError
from tests.bad_input import check_raises, message

X = np.linspace(0.1, 0.9, 12, dtype=np.float32).reshape(3, 4)
V = np.linspace(0.1, 0.9, 3, dtype=np.float32)


# -- lax.linalg's dtype check read .str_short() of the Array or tracer it was given -------
def _one_matrix_functions():
    out = []
    for name in sorted(lax.linalg.__all__):
        f = getattr(lax.linalg, name)
        if not inspect.isfunction(f):
            continue
        required = [p for p in inspect.signature(f).parameters.values()
                    if p.default is p.empty and p.kind != p.VAR_KEYWORD]
        if len(required) == 1:
            out.append(name)
    return out


@pytest.mark.parametrize("name", _one_matrix_functions())
@pytest.mark.parametrize("dtype", [np.bool_, np.int32])
def test_lax_linalg_non_float_matrix_is_a_type_error(name, dtype):
    # was AttributeError: 'Array' object has no attribute 'str_short' (cholesky, eigh)
    a = np.eye(3, dtype=dtype)
    check_raises(getattr(lax.linalg, name), (a,), TypeError, name, np.dtype(dtype).name)


def test_lax_linalg_dtype_message_shows_the_shape():
    check_raises(lax.linalg.cholesky, (np.eye(3, dtype=bool),), TypeError, "bool[3,3]")


# -- memory-layout orders: any of NumPy's is the same array, anything else refused --------
@pytest.mark.parametrize("fn", [jnp.asarray, jnp.array, jnp.copy],
                         ids=["asarray", "array", "copy"])
def test_unknown_memory_order_is_refused(fn):
    name = fn.__name__
    for bad in ("Q", "bogus", 1):
        with pytest.raises(ValueError) as e:
            fn(X, order=bad)
        assert name in str(e.value) and repr(bad) in str(e.value)
    for good in ("K", "A", "C", "F", None):
        np.testing.assert_array_equal(np.asarray(fn(X, order=good)), X)


# -- heaviside of complex: NumPy has no loop for it; tjit returned complex values --------
def test_heaviside_of_complex_is_refused():
    c = (X - 0.5).astype(np.complex64)
    check_raises(jnp.heaviside, (c, X), TypeError, "heaviside", "complex64")
    check_raises(jnp.heaviside, (X, c), TypeError, "heaviside", "complex64")
    # real input unchanged: NumPy's values
    np.testing.assert_array_equal(np.asarray(jnp.heaviside(X - 0.5, 0.25)),
                                  np.heaviside(X - 0.5, np.float32(0.25)))


# -- jnp.linalg.outer / cross of non-arrays: outer read None as rank 0 ---------------------
@pytest.mark.parametrize("bad", [None, "abc", [[1.0, 2.0], [3.0]]],
                         ids=["None", "str", "ragged"])
@pytest.mark.parametrize("name", ["outer", "cross"])
def test_linalg_outer_cross_of_non_arrays(name, bad):
    f = getattr(jnp.linalg, name)
    with pytest.raises(TypeError) as e:
        f(bad, V)
    msg = message(e.value)
    assert f"linalg.{name}" in msg and "shapes ()" not in msg
    assert "inhomogeneous" not in msg  # NumPy's words from inside a conversion


def test_linalg_cross_axis_out_of_range():
    # was IndexError: tuple index out of range, from jnp.shape(x1)[axis]
    check_raises(lambda a, b: jnp.linalg.cross(a, b, axis=3), (V, V),
                 np.exceptions.AxisError, "linalg.cross", "axis 3", "rank 1")
    with pytest.raises(TypeError, match="linalg.cross: axis must be an integer"):
        jnp.linalg.cross(V, V, axis=1.5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.cross(V, V[::-1])),
                               np.cross(V, V[::-1]), rtol=1e-6)


# -- choose with no choices: the promotion's reduce() raised first --------------------------
def test_choose_without_choices():
    with pytest.raises(ValueError, match=r"jnp.choose: choices must not be empty") as e:
        jnp.choose(np.array([0, 1]), [])
    assert "reduce()" not in str(e.value)


# -- jnp.fft errors name the function as called, and point real-input transforms of complex
# data to their complex twin (ihfft pointed to itself) -------------------------------------
@pytest.mark.parametrize("name,twin", [("rfft", "fft"), ("rfft2", "fft2"),
                                       ("rfftn", "fftn"), ("ihfft", "ifft")])
def test_fft_real_transform_of_complex_names_its_twin(name, twin):
    c = X.astype(np.complex64)
    check_raises(getattr(jnp.fft, name), (c,), TypeError, f"jnp.fft.{name}:", "complex64",
                 f"use jnp.fft.{twin} for")


# -- broadcast_to of a negative dim: said "cannot broadcast (4,) to (-2, 4)" (ShapeError) --
@pytest.mark.parametrize("shape", [(-2, 4), (-1, 4), (3, -4)])
def test_broadcast_to_negative_dims(shape):
    check_raises(lambda a: jnp.broadcast_to(a, shape), (V[:1].repeat(4),),
                 NegativeDimensionError, "broadcast_to", "negative", str(shape))
    # JAX's class (TypeError) and NumPy's (ValueError) both catch it
    with pytest.raises(TypeError):
        jnp.broadcast_to(np.ones(4), shape)
    with pytest.raises(ValueError):
        jnp.broadcast_to(np.ones(4), shape)


# -- static int arguments that reached Python arithmetic unchecked: a traced one raised a
# generic "bool()/__index__/__array__ was called" error, a float "can't multiply sequence"
# or "slice indices must be integers" --------------------------------------------------
_STATIC_INTS = {
    "lax.collapse stop": (lambda n: lax.collapse(X, 0, n), "lax.collapse", "stop_dimension"),
    "lax.collapse start": (lambda n: lax.collapse(X, n), "lax.collapse", "start_dimension"),
    "lax.broadcast_to_rank": (lambda n: lax.broadcast_to_rank(V, n), "lax.broadcast_to_rank",
                              "rank"),
    "lax.tile": (lambda n: lax.tile(V, (n,)), "lax.tile", "shape"),
    "lax.fft tuple": (lambda n: lax.fft(V.astype(np.complex64), "fft", (n,)), "lax.fft",
                      "fft_lengths"),
    "lax.fft scalar": (lambda n: lax.fft(V.astype(np.complex64), "fft", n), "lax.fft",
                       "fft_lengths"),
    "jnp.unpackbits": (lambda n: jnp.unpackbits(np.array([3], np.uint8), count=n),
                       "jnp.unpackbits", "count"),
}


@pytest.mark.parametrize("case", list(_STATIC_INTS))
def test_static_int_arguments_traced_or_float(case):
    fn, op, arg = _STATIC_INTS[case]
    with pytest.raises(tjit.errors.TracerIntegerConversionError) as e:
        tjit.jit(fn)(2)
    assert op in str(e.value) and arg in str(e.value) and "'n'" in str(e.value)
    with pytest.raises(TypeError) as e:
        fn(1.5)
    assert op in str(e.value) and arg in str(e.value)


def test_static_int_arguments_still_take_ints():
    assert lax.collapse(np.ones((2, 3, 4)), 0, 2).shape == (6, 4)
    assert lax.collapse(np.ones((2, 3, 4)), np.int64(1)).shape == (2, 12)
    assert lax.broadcast_to_rank(V, 3).shape == (1, 1, 3)
    np.testing.assert_array_equal(np.asarray(lax.tile(V, (2,))), np.tile(V, 2))
    c = (V + 1j).astype(np.complex64)
    for lengths in (3, (3,), [3], np.array([3])):
        np.testing.assert_allclose(np.asarray(lax.fft(c, "fft", lengths)), np.fft.fft(c),
                                   rtol=1e-5)
    np.testing.assert_array_equal(
        np.asarray(jnp.unpackbits(np.array([3], np.uint8), count=np.int64(10))),
        np.unpackbits(np.array([3], np.uint8), count=10))


# -- q that holds no numbers: "'<' not supported between NoneType and int" ---------------
@pytest.mark.parametrize("name", ["quantile", "nanquantile", "percentile", "nanpercentile"])
@pytest.mark.parametrize("q", [None, "abc"], ids=["None", "str"])
def test_quantile_q_of_no_numbers(name, q):
    with pytest.raises(TypeError) as e:
        getattr(jnp, name)(V, q)
    msg = str(e.value)
    assert f"jnp.{name}: q must be" in msg and type(q).__name__ in msg
    assert "not supported between" not in msg


# -- jnp.shape / ndim / size of a ragged list: NumPy's words from inside its conversion ----
@pytest.mark.parametrize("name", ["shape", "ndim", "size"])
def test_shape_of_ragged_list(name):
    with pytest.raises(ValueError) as e:  # NumPy's and JAX's class
        getattr(jnp, name)([[1.0, 2.0], [3.0]])
    msg = message(e.value)
    assert "ragged" in msg and name in msg and "inhomogeneous" not in msg
    assert getattr(jnp, name)([[1.0, 2.0], [3.0, 4.0]]) == getattr(np, name)(np.ones((2, 2)))


def test_permutation_of_ragged_list():
    with pytest.raises(TypeError) as e:
        tjit.random.permutation(tjit.random.key(0), [[1.0, 2.0], [3.0]])
    msg = message(e.value)
    assert "ragged" in msg and "random.permutation" in msg and "inhomogeneous" not in msg
    out = np.asarray(tjit.random.permutation(tjit.random.key(0), [5, 6, 7, 8]))
    assert sorted(out.tolist()) == [5, 6, 7, 8]
