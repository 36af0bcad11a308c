"""Kernels that only fill or copy memory run by NumPy on the CPU (``cpu_fill_copy``):
which kernels qualify, that nothing is compiled for them, and that results equal the
reference interpreter's bit for bit (copies and fills involve no arithmetic)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import cpu_fill_copy, kernel_cache
from tjit.xla_like import kernel_ir as K

F32 = np.dtype(np.float32)


@pytest.fixture
def compiled(monkeypatch):
    """The kernels compiled, and (as ``compiled.by_numpy``) the kinds of those the
    runtime prepared as NumPy steps."""
    real, real_step = kernel_cache.compile_kernel, cpu_fill_copy.step

    def record(kernel, many_calls=False):
        seen.append(kernel)
        return real(kernel, many_calls)

    def record_step(kernel):
        by_numpy.append(cpu_fill_copy.plain_fill_or_copy(kernel)[0])
        return real_step(kernel)
    seen, by_numpy = _Seen(), []
    seen.by_numpy = by_numpy
    monkeypatch.setattr(kernel_cache, "compile_kernel", record)
    monkeypatch.setattr(cpu_fill_copy, "step", record_step)
    return seen


class _Seen(list):
    by_numpy = None


def _kernel(shape, expr, args=(K.Arg(F32, "in"), K.Arg(F32, "out")), store=None, **kw):
    strides = [int(np.prod(shape[a + 1:])) for a in range(len(shape))]
    index = store or K.Affine(0, tuple(strides))
    return K.Kernel("k", tuple(shape), tuple(args),
                    stores=(K.Store(len(args) - 1, index, expr),), **kw)


def _row_major(shape, offset=0):
    return K.Affine(offset, tuple(int(np.prod(shape[a + 1:])) for a in range(len(shape))))


def test_classification():
    shape = (1, 4, 1, 8)
    copy = K.Load(0, _row_major(shape), F32)
    assert cpu_fill_copy.plain_fill_or_copy(_kernel(shape, copy)) == ("copy", 0, 0)
    shifted = K.Load(0, _row_major(shape, 5), F32)
    assert cpu_fill_copy.plain_fill_or_copy(_kernel(shape, shifted)) == ("copy", 0, 5)
    scalar = K.Load(0, K.Affine(3, (0, 0, 0, 0)), F32)
    assert cpu_fill_copy.plain_fill_or_copy(_kernel(shape, scalar)) == ("broadcast", 0, 3)
    fill = _kernel(shape, K.Const(1.5, F32), args=(K.Arg(F32, "out"),))
    assert cpu_fill_copy.plain_fill_or_copy(fill) == ("fill", 1.5)
    transposed = K.Load(0, K.Affine(2, (0, 1, 0, 4)), F32)
    assert cpu_fill_copy.plain_fill_or_copy(_kernel(shape, transposed)) == \
        ("strided", 0, 2, (0, 1, 0, 4))
    flipped = K.Load(0, K.Affine(31, (0, 8, 0, -1)), F32)     # (negative strides)
    assert cpu_fill_copy.plain_fill_or_copy(_kernel(shape, flipped)) == \
        ("strided", 0, 31, (0, 8, 0, -1))
    # not plain: a big transpose, a conversion, arithmetic, a strided store, a big copy
    # that threads would split, a reduction
    big = (256, 128)
    big_t = _kernel(big, K.Load(0, K.Affine(0, (1, 256)), F32))
    converted = K.Load(0, _row_major(shape), np.dtype(np.float64))
    doubled = K.Op("mul", (copy, K.Const(2.0, F32)), F32)
    for k in (big_t, _kernel(shape, doubled),
              _kernel(shape, converted, args=(K.Arg(np.dtype(np.float64), "in"),
                                              K.Arg(F32, "out"))),
              _kernel(shape, copy, store=K.Affine(0, (0, 16, 0, 1))),
              _kernel((2, 1 << 19), K.Load(0, _row_major((2, 1 << 19)), F32)),
              _kernel(shape, copy, reduce_axes=(3,))):
        assert cpu_fill_copy.plain_fill_or_copy(k) is None, K.kernel_text(k)
    # a leading axis of extent 1 does not stop the split (split.split_axis skips it)
    assert cpu_fill_copy.plain_fill_or_copy(
        _kernel((1, 1 << 20), K.Load(0, _row_major((1, 1 << 20)), F32))) is None
    assert cpu_fill_copy.plain_fill_or_copy(
        _kernel((1, 1 << 18), K.Load(0, _row_major((1, 1 << 18)), F32))) is not None
    assert not cpu_fill_copy.runs_in_numpy(fill, many_calls=True)   # (a loop body's)


def _check(f, *args, compiled, kept_compiled, by_numpy):
    got = tjit.jit(f)(*args)
    ref = tjit.jit(f, backend="interpreter")(*args)
    for g, r in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(ref)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(r))
        assert np.asarray(g).dtype == np.asarray(r).dtype
    plain = [k for k in compiled if cpu_fill_copy.plain_fill_or_copy(k) is not None]
    assert len(plain) == kept_compiled, [K.kernel_text(k) for k in plain]
    assert sorted(compiled.by_numpy) == sorted(by_numpy)
    return got


def test_fill_is_not_compiled_and_matches(compiled):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)

    def f(x):
        return jnp.ones(50, jnp.float32), jnp.full((2, 3), 7, jnp.int32), x * 2
    _check(f, x, compiled=compiled, kept_compiled=0, by_numpy=["fill", "fill"])


def test_scalar_broadcast_and_fill_in_a_program(compiled):
    x = np.float32(2.5)
    v = np.linspace(-1, 1, 40).astype(np.float32)

    def f(x, v):
        b = jnp.broadcast_to(x, (6, 7))          # one scalar over an array
        return b, jnp.broadcast_to(v[3], (5, 8)), jnp.full((3,), jnp.nan, jnp.float32)
    _check(f, x, v, compiled=compiled, kept_compiled=0,
           by_numpy=["broadcast", "broadcast", "fill"])


def test_copies_in_a_convolution_gradient(compiled):
    """The CNN's first call: layout copies around the patches gather are not compiled,
    and its value and gradient keep the interpreter's bits."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8, 8, 4)).astype(np.float32)
    w = rng.standard_normal((3, 3, 4, 8)).astype(np.float32)

    def loss(w, x):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.mean(jnp.maximum(y, 0.0) ** 2)
    f = tjit.value_and_grad(loss)
    got = tjit.jit(f)(w, x)
    ref = tjit.jit(f, backend="interpreter")(w, x)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-4, atol=1e-6)
    assert not [k for k in compiled if cpu_fill_copy.plain_fill_or_copy(k) is not None]
    # (the transposes run by NumPy; the reshape copies for the gemms are no steps at all:
    # xla_like/reshape_copies.py)
    assert "strided" in compiled.by_numpy and "copy" not in compiled.by_numpy


def test_small_transposes_and_strided_slices(compiled):
    rng = np.random.default_rng(4)
    w = rng.standard_normal((3, 3, 16, 8)).astype(np.float32)
    x = rng.standard_normal((40, 30)).astype(np.float32)

    def f(w, x):
        return (jnp.transpose(w, (3, 2, 0, 1)), x[::3, 1::2].T, jnp.broadcast_to(x[2], (5, 30)))
    got = _check(f, w, x, compiled=compiled, kept_compiled=0, by_numpy=["strided"] * 3)
    np.testing.assert_array_equal(got[1], x[::3, 1::2].T)


def test_small_flips_are_strided_copies(compiled):
    """A flipped (negative-stride) view: a conv gradient's flipped, transposed kernel."""
    w = np.random.default_rng(5).standard_normal((3, 3, 16, 8)).astype(np.float32)

    def f(w):
        return jnp.transpose(jnp.flip(w, (0, 1)), (0, 1, 3, 2)), lax.rev(w, (3,))[1]
    got = _check(f, w, compiled=compiled, kept_compiled=0, by_numpy=["strided"] * 2)
    np.testing.assert_array_equal(got[0], np.transpose(np.flip(w, (0, 1)), (0, 1, 3, 2)))
    np.testing.assert_array_equal(got[1], np.flip(w, 3)[1])


def test_fill_into_a_donated_buffer_and_in_a_loop(compiled):
    x = np.arange(8, dtype=np.float32)

    def f(x):
        return jnp.zeros_like(x) + 3.0
    got = tjit.jit(f, donate_argnums=0)(tjit.device_put(x))
    np.testing.assert_array_equal(np.asarray(got), np.full(8, 3.0, np.float32))
    assert compiled.by_numpy == ["fill"] and not compiled

    def body(c, _):
        return c + jnp.ones(4, jnp.float32), jnp.full((4,), 2.0, jnp.float32)
    got = tjit.jit(lambda c: lax.scan(body, c, None, length=5))(np.zeros(4, np.float32))
    ref = tjit.jit(lambda c: lax.scan(body, c, None, length=5),
                   backend="interpreter")(np.zeros(4, np.float32))
    for g, r in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(ref)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(r))
    assert compiled.by_numpy == ["fill"]    # (the body's fills stay compiled)


def test_polymorphic_program_with_a_fill_rebinds():
    """A concrete fill beside symbolic kernels: the step is prepared again per size
    binding (its output's temporary may move)."""
    f = tjit.jit(lambda x: (x * 2, jnp.ones(16, jnp.float32) + 1),
                 polymorphic_shapes=("n",))
    for n in (5, 9, 5, 33):
        x = np.arange(n, dtype=np.float32)
        a, b = f(x)
        np.testing.assert_array_equal(np.asarray(a), x * 2)
        np.testing.assert_array_equal(np.asarray(b), np.full(16, 2.0, np.float32))



@pytest.mark.parametrize("shape, case", [
    ((2, 0, 4), lambda m, x: m.split(x, [1], axis=2)[1]),         # strided slice
    ((0, 3), lambda m, x: x.T),                                   # transpose
    ((3, 0), lambda m, x: x.reshape(0, 3) + 0),                   # contiguous copy
    ((0,), lambda m, x: m.broadcast_to(x.sum(), (2, 0))),         # scalar broadcast
    ((0, 5), lambda m, x: m.zeros_like(x)),                       # fill
])
def test_zero_size_copies_and_fills_match_numpy(shape, case):
    x = np.zeros(shape, np.float32)
    got = tjit.jit(lambda a: case(jnp, a))(x)
    want = case(np, x)
    assert got.shape == want.shape and got.dtype == want.dtype
