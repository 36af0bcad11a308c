"""Array behaviours a notebook user meets, where tjit differed from JAX (found by
benchmarks/diff_array_api.py). References are NumPy's and Python's values and JAX's
documented semantics (Python ints are weak values of the default int dtype; round()
of an array is an array; ``__jax_array__`` is called by jnp.asarray/array)."""

import copy
import operator
import pickle

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.tracing import core

#: every binary operator of an Array, both sides (Python's spelling, and the operand
#: order it calls)
_BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt", "ge",
           "eq", "ne", "and_", "or_", "xor", "lshift", "rshift"]
_BIG = [2**31, -2**31 - 1, 2**40, 2**63, -2**70]


def _operands(dtype):
    return jnp.asarray(np.arange(1, 4), dtype)


@pytest.mark.parametrize("dtype", ["float32", "complex64", "bfloat16", "int32", "uint8",
                                   "bool"])
@pytest.mark.parametrize("big", _BIG)
def test_python_int_beyond_int32_is_an_overflow_error_with_every_operator(dtype, big):
    # JAX: a Python int is a weak int32 (x64 off) before promotion, so 2**40 with any
    # array raises OverflowError, not a float32 rounding of it (tjit computed
    # float32_array * 2**40 silently, and bfloat16 + 2**63 raised "expected number")
    x = _operands(dtype)
    for name in _BINARY:
        op = getattr(operator, name)
        calls = [lambda: op(big, x)]
        if name != "pow":   # x ** n with a Python int n is an integer power (JAX's too)
            calls.append(lambda: op(x, big))
        for call in calls:
            for _ in range(2):  # the first call takes the general path, the next a lane's
                with pytest.raises(OverflowError, match=rf"Python int {big}\b"):
                    call()


@pytest.mark.parametrize("fn", [jnp.add, jnp.multiply, jnp.maximum, jnp.where, jnp.clip,
                                jnp.equal, jnp.true_divide, jnp.arctan2, jnp.hypot])
def test_python_int_beyond_int32_in_jnp_functions(fn):
    x = jnp.ones(3, jnp.float32)
    args = {jnp.where: (x > 0, 2**40, x), jnp.clip: (x, 0, 2**40)}.get(fn, (x, 2**40))
    with pytest.raises(OverflowError, match="int32"):
        fn(*args)
    with pytest.raises(OverflowError, match="int32"):
        tjit.jit(lambda v: fn(*(v if a is x else a for a in args)))(x)


def test_overflow_message_names_the_fix():
    with pytest.raises(OverflowError) as e:
        jnp.ones(2) * 2**40
    msg = str(e.value)
    assert "1099511627776.0" in msg and "x64" in msg  # the float spelling and the switch


@pytest.mark.parametrize("v", [2**31 - 1, -2**31, 0, 7])
def test_python_ints_inside_int32_still_combine(v):
    x = np.arange(3, dtype=np.float32)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(jnp.asarray(x) * v), x * np.float32(v))
        np.testing.assert_array_equal(np.asarray(v - jnp.asarray(x)), np.float32(v) - x)


def test_python_int_bound_follows_x64(x64):
    v = 2**40   # an int64 with x64 on: float32 * v is then a float32 (JAX's promotion)
    out = jnp.ones(2, jnp.float32) * v
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), np.float32(v))
    with pytest.raises(OverflowError, match="int64"):
        jnp.ones(2, jnp.float32) * 2**63


@pytest.mark.parametrize("big", [2**40, -2**33, 2**63])
def test_python_int_converts_straight_to_a_float_dtype(big):
    # lax.convert_element_type / full take the number to the target dtype, as JAX (and
    # NumPy's np.asarray(v, float32)) do: no stop in int32 (jnp.full raised OverflowError)
    want = np.asarray(big, np.float32)
    for got in (lax.convert_element_type(big, jnp.float32), jnp.full(2, big, jnp.float32),
                lax.full((2,), big, jnp.float32), jnp.asarray(big, jnp.float32)):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("value", [2.567, -2.5, 3.5, 0.5, -0.49])
def test_round_builtin_gives_arrays_as_jax(value):
    x = jnp.float32(value)
    out = round(x)   # Python's round(float) is an int: an int array (JAX's __round__)
    assert isinstance(out, tjit.Array) and out.dtype == np.int32 and out.shape == ()
    assert int(out) == int(np.round(np.float32(value)))   # half to even, as NumPy/Python
    out1 = round(x, 1)
    assert isinstance(out1, tjit.Array) and out1.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out1), np.round(np.float32(value), 1))
    v = np.array([value, value * 3], np.float32)
    np.testing.assert_array_equal(np.asarray(round(jnp.asarray(v))), np.round(v).astype(int))
    assert tjit.jit(lambda a: round(a))(x).dtype == np.int32


def test_index_conversion_refuses_bool_arrays():
    # NumPy and JAX: only integer arrays are indices (tjit took True as 1)
    for x in (jnp.asarray(True), jnp.asarray([False])):
        with pytest.raises(TypeError, match="integer"):
            operator.index(x)
        with pytest.raises(TypeError):
            range(x)
    assert operator.index(jnp.asarray(3)) == 3
    assert [10, 20, 30][jnp.asarray(2, jnp.uint8)] == 30


def test_mT_needs_two_dims():
    with pytest.raises(ValueError, match=r"mT.*\(3,\)"):
        jnp.ones(3).mT
    with pytest.raises(ValueError, match="mT"):
        jnp.float32(1).mT
    v = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(v).mT), np.swapaxes(v, -1, -2))
    assert tjit.jit(lambda a: a.mT)(jnp.ones((2, 5))).shape == (5, 2)


@pytest.mark.parametrize("dtype", ["int16", "uint16", "int32", "uint32", "float16",
                                   "float32", "complex64", "int8", "bool"])
def test_byteswap_matches_numpy(dtype):
    rng = np.random.default_rng(3)
    v = (rng.standard_normal((2, 3)) * 100).astype(dtype)
    if dtype == "complex64":
        v = v + 1j * v[::-1]
    x = jnp.asarray(v)
    out = x.byteswap()
    assert out.dtype == x.dtype and out.shape == x.shape
    np.testing.assert_array_equal(np.asarray(out).view(np.uint8), v.byteswap().view(np.uint8))
    np.testing.assert_array_equal(np.asarray(out.byteswap()), v)
    np.testing.assert_array_equal(np.asarray(tjit.jit(lambda a: a.byteswap())(x)).view(
        np.uint8), v.byteswap().view(np.uint8))
    with pytest.raises(ValueError, match="immutable"):
        x.byteswap(inplace=True)


class _Wrapped:
    """An object of JAX's ``__jax_array__`` protocol."""

    def __init__(self, value):
        self.value = value

    def __jax_array__(self):
        return self.value


@pytest.mark.parametrize("value", [jnp.arange(3.0), [1, 2], 3.5])
def test_jax_array_protocol_in_asarray_and_array(value):
    want = np.asarray(jnp.asarray(value))
    for conv in (jnp.asarray, jnp.array):
        got = conv(_Wrapped(value))
        assert isinstance(got, tjit.Array) and got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    assert jnp.asarray(_Wrapped(value), dtype=jnp.int32).dtype == np.int32
    np.testing.assert_array_equal(
        np.asarray(tjit.jit(lambda: jnp.asarray(_Wrapped(jnp.arange(2.0))) + 1)()), [1.0, 2.0])


def test_jax_array_protocol_objects_elsewhere_name_the_conversion():
    # as JAX: other functions do not call __jax_array__ implicitly; the error says how
    with pytest.raises(TypeError, match=r"__jax_array__.*jnp\.asarray"):
        jnp.sin(_Wrapped(jnp.ones(2)))


_TRANSFORMS = {"jit": lambda f, x: tjit.jit(f)(x),
               "vmap": lambda f, x: tjit.vmap(f)(x[None])[0],
               "grad": lambda f, x: tjit.grad(lambda v: f(v).sum())(x)}


@pytest.mark.parametrize("how", sorted(_TRANSFORMS))
def test_deepcopy_inside_a_transformation(how):
    # copy.deepcopy of a pytree of params inside jit (tjit: TracerArrayConversionError
    # under jit, UnexpectedTracerError under vmap; JAX: the value)
    v = np.array([0.5, 1.5, -2.0], np.float32)

    def f(x):
        params = copy.deepcopy({"w": x, "n": [copy.copy(x) * 2]})
        return params["w"] + params["n"][0]
    out = _TRANSFORMS[how](f, jnp.asarray(v))
    want = np.full(3, 3.0, np.float32) if how == "grad" else 3 * v
    np.testing.assert_allclose(np.asarray(out), want)


@pytest.mark.parametrize("how", ["jit", "vmap"])
def test_pickling_a_tracer_is_a_concretization_error(how):
    # tjit pickled the tracer's internals (pickle.dumps returned bytes)
    def f(x):
        pickle.dumps(x)
        return x
    with pytest.raises(tjit.errors.ConcretizationTypeError, match=rf"pickle.*{how}"):
        _TRANSFORMS[how](f, jnp.ones(3))


@pytest.mark.parametrize("name,is_property", core._NEEDS_VALUE)
@pytest.mark.parametrize("how", ["jit", "vmap"])
def test_members_needing_a_computed_array_refuse_tracers(name, is_property, how):
    assert hasattr(jnp.ones(2), name)  # a member of concrete arrays (the table stays true)

    def f(x):
        member = getattr(x, name)
        if not is_property:
            member(0) if name == "addressable_data" else member()
        return x
    with pytest.raises(tjit.errors.ConcretizationTypeError, match=rf"\.{name}.*{how}"):
        _TRANSFORMS[how](f, jnp.ones(3))


@pytest.mark.parametrize("name", sorted(core._CONCRETE_ONLY_ATTRIBUTES))
def test_concrete_only_attributes_say_why_on_tracers(name):
    assert hasattr(jnp.ones(2), name)
    seen = []

    def f(x):
        seen.append(hasattr(x, name))
        with pytest.raises(AttributeError, match=rf"'{name}' is not available.*jit"):
            getattr(x, name)
        return x
    tjit.jit(f)(jnp.ones(3))
    assert seen == [False]


_COMPARISONS = ["lt", "le", "gt", "ge", "eq", "ne"]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "uint32"])
@pytest.mark.parametrize("v", [300, -300, 70000, -1, 2**31 - 1, -2**31])
def test_comparing_with_a_python_int_outside_the_dtype_is_exact(dtype, v):
    # NumPy 2: comparisons with an out-of-range Python int are exact (int8_array < 300
    # is all True), while arithmetic with it raises OverflowError (tjit raised for both)
    a = np.arange(3).astype(dtype)
    x = jnp.asarray(a)
    for name in _COMPARISONS:
        op = getattr(operator, name)
        for _ in range(2):   # general path, then the lanes
            np.testing.assert_array_equal(np.asarray(op(x, v)), op(a, v), err_msg=name)
            np.testing.assert_array_equal(np.asarray(op(v, x)), op(v, a), err_msg=name)
        got = tjit.jit(lambda t, op=op: (op(t, v), op(v, t)))(x)
        np.testing.assert_array_equal(np.asarray(got[0]), op(a, v))
        np.testing.assert_array_equal(np.asarray(got[1]), op(v, a))
    for name in _COMPARISONS:   # jnp's functions on NumPy operands (JAX: the same answer)
        fn = getattr(jnp, {"lt": "less", "le": "less_equal", "gt": "greater",
                           "ge": "greater_equal", "eq": "equal", "ne": "not_equal"}[name])
        op = getattr(operator, name)
        for arr in (a, a[0]):      # an ndarray and a NumPy scalar
            np.testing.assert_array_equal(np.asarray(fn(arr, v)), op(arr, v), err_msg=name)
            np.testing.assert_array_equal(np.asarray(fn(v, arr)), op(v, arr), err_msg=name)
    if not np.iinfo(dtype).min <= v <= np.iinfo(dtype).max:
        with pytest.raises(OverflowError):
            x + v


def test_bool_base_powers_are_int32_with_x64(x64):
    # JAX raises bools as int32 whatever the x64 switch (tjit gave int64 with x64 on)
    b = np.array([True, False, True])
    i = b.astype(np.int64)
    for out, want in ((jnp.asarray(b) ** 2, i ** 2), (jnp.asarray(b) ** jnp.asarray(b), i ** i),
                      (jnp.power(b, True), i ** 1)):
        assert out.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(out), want)


def test_library_code_passes_no_python_int_beyond_int32():
    # tjit's own code must not hand jnp a Python int outside int32 (the OverflowError a
    # user gets): scipy.stats.mode filled uint32 data with iinfo(uint32).max
    from tjit.scipy import stats
    v = np.array([3, 1, 2, 3, 1, 1], np.uint32)
    m = stats.mode(v)
    assert int(m.mode) == 1 and int(m.count) == 3 and m.mode.dtype == np.uint32
