"""Declared polymorphic dims (jit polymorphic_shapes) in slices whose size questions need
floor/ceiling bounds (JAX's shape polymorphism accepts them all): results against NumPy
float64 at several sizes, one compile for all of them."""
import numpy as np
import pytest

import tjit as jax
from tjit.tracing.errors import InconclusiveDimensionError

SIZES = (1, 2, 5, 6, 7)

PROGRAMS = {
    "x[::2]": lambda x: x[::2],
    "x[::-2]": lambda x: x[::-2],
    "x[1::3]": lambda x: x[1::3],
    "x[::3] * 2": lambda x: x[::3] * 2,
    "x[:b//2]": lambda x: x[: x.shape[0] // 2],
    "x[b//2:]": lambda x: x[x.shape[0] // 2:],
    "x[::2].sum()": lambda x: x[::2].sum(0),
    "x[1::2] - x[::2][:b//2]": lambda x: x[1::2] - x[::2][: x.shape[0] // 2],
    # clamped at small sizes: JAX's dims max(0, b - 2), b - min(b, 2), min(b, 5), ...
    "x[1:-1]": lambda x: x[1:-1],
    "x[2:]": lambda x: x[2:],
    "x[:5]": lambda x: x[:5],
    "x[-2:]": lambda x: x[-2:],
    "x[3:5]": lambda x: x[3:5],
    "x[2::2]": lambda x: x[2::2],
    # negative steps with bounds (JAX's min(b - 1, 5) - min(b - 1, 2), ...)
    "x[5:2:-1]": lambda x: x[5:2:-1],
    "x[:-3:-1]": lambda x: x[:-3:-1],
    "x[-1::-2]": lambda x: x[-1::-2],
    "x[3::-1]": lambda x: x[3::-1],
    "x[-2:0:-2]": lambda x: x[-2:0:-2],
    "x[3::-1, [0, 2]]": lambda x: x[3::-1, [0, 2]],
    "x[:5] @ x[:5].T": lambda x: x[:5] @ x[:5].T,
    "concatenate(x[2:], x[:2])": lambda x: np.concatenate([x[2:], x[:2]]) if isinstance(
        x, np.ndarray) else jax.numpy.concatenate([x[2:], x[:2]]),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_strided_and_derived_slices_of_a_polymorphic_dim(name):
    f = PROGRAMS[name]
    jf = jax.jit(f, polymorphic_shapes=["(b, 3)"])
    rng = np.random.default_rng(0)
    for n in SIZES:
        x = rng.standard_normal((n, 3)).astype(np.float32)
        want = f(x.astype(np.float64))
        got = np.asarray(jf(x))
        assert got.shape == want.shape, (name, n)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert jf.compile_count == 1


def test_strided_slice_output_dim_is_a_floor_division():
    jf = jax.jit(lambda x: x[1::3], polymorphic_shapes=["(b,)"])
    text = jf.lower(np.zeros(4, np.float32)).as_text()
    assert "floor" in text or "//" in text or "ceiling" in text


def test_gradient_through_a_clamped_slice():
    def loss(x):
        return (x[1:-1] ** 2).sum()
    jg = jax.jit(jax.grad(loss), polymorphic_shapes=["(b,)"])
    for n in SIZES:
        x = np.arange(1.0, n + 1, dtype=np.float32)
        want = np.zeros(n)
        want[1:-1] = 2 * x.astype(np.float64)[1:-1]
        np.testing.assert_allclose(np.asarray(jg(x)), want, rtol=1e-6)
    assert jg.compile_count == 1


def test_an_undecidable_slice_bound_still_names_the_question():
    # a bound that is itself a size expression of undecided sign
    jf = jax.jit(lambda x: x[x.shape[0] // 2 - 2:], polymorphic_shapes=["(b,)"])
    with pytest.raises(InconclusiveDimensionError, match="symbolic dim b"):
        jf(np.zeros(6, np.float32))


def test_roll_by_a_size_expression():
    # jnp.roll(x, x.shape[0] // 2): the shift is the size's value at run time (JAX accepts)
    jf = jax.jit(lambda x: jax.numpy.roll(x, x.shape[0] // 2, 0), polymorphic_shapes=["(b, 3)"])
    for n in SIZES:
        x = np.arange(3.0 * n, dtype=np.float32).reshape(n, 3)
        np.testing.assert_array_equal(np.asarray(jf(x)), np.roll(x, n // 2, 0))
    assert jf.compile_count == 1


@pytest.mark.parametrize("name, f, ref", [
    ("x.at[::2].set(0)", lambda x: x.at[::2].set(0.0),
     lambda x: np.where((np.arange(len(x)) % 2 == 0)[:, None], 0.0, x)),
    ("x.at[1:].add(x[:-1])", lambda x: x.at[1:].add(x[:-1]),
     lambda x: np.concatenate([x[:1], x[1:] + x[:-1]])),
])
def test_scatter_into_a_strided_slice_keeps_one_dynamic_program(name, f, ref):
    # automatic dynamic shapes: a derived dim that is 1 at one size (ceiling(b/2) at
    # b = 2) gives that size a program of its own, not every size (it fell back per shape)
    jf = jax.jit(f)
    for n in (1, 2, 3, 5, 8, 9):
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(jf(x)), ref(x.astype(np.float64)), rtol=1e-6)
    assert jf.compile_count <= 3


def test_reshape_divisible_at_some_sizes_only_is_inconclusive():
    # (b, 3) -> (-1, 2) works at even b only: JAX's InconclusiveDimensionOperation, not a
    # plain "cannot reshape"
    jf = jax.jit(lambda x: x.reshape(-1, 2), polymorphic_shapes=["(b, 3)"])
    with pytest.raises(InconclusiveDimensionError, match="cannot divide symbolic size 3\\*b"):
        jf(np.zeros((4, 3), np.float32))
