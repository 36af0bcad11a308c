"""jnp.r_/c_/mgrid/ogrid, print options and array2string/array_str/array_repr,
save/load/savez, the bfloat16 dtype (against ml_dtypes' NumPy arithmetic and float64)
and the version names."""

import io

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("key", [
    np.s_[1:3, [5, 6], 7], np.s_["-1,2,0", [1, 2], [3, 4]], np.s_["0,2", [1, 2], [3, 4]],
    np.s_["1,3,-1", np.ones((2, 2)), np.zeros((2, 2))], np.s_["0,3,1", [1, 2], [3, 4]],
    np.s_[0:1:5j, 2], np.s_[-1:1:0.5], np.s_["1", np.ones((2, 3)), np.zeros((2, 1))]])
def test_r_against_numpy(key):
    got, want = jnp.r_[key], np.r_[key]
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want)


@pytest.mark.parametrize("key", [np.s_[[1, 2], [3, 4]], np.s_[np.ones((2, 2)), [5, 6]],
                                 np.s_[np.arange(3), 0:3, 2 * np.ones(3)]])
def test_c_against_numpy(key):
    np.testing.assert_array_equal(np.asarray(jnp.c_[key]), np.c_[key])


@pytest.mark.parametrize("key", [np.s_[0:3], np.s_[0:2, 0:3], np.s_[-1:1:5j, 0:4:2],
                                 np.s_[0:1:3j, 1:2:2j, 0:2]])
def test_grids_against_numpy(key):
    got = jnp.mgrid[key]
    np.testing.assert_allclose(np.asarray(got), np.mgrid[key], rtol=1e-6)
    for g, w in zip(jnp.ogrid[key] if isinstance(key, tuple) else [jnp.ogrid[key]],
                    np.ogrid[key] if isinstance(key, tuple) else [np.ogrid[key]]):
        assert g.shape == w.shape
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)
    assert jnp.mgrid[0:2, 0:3].dtype == jnp.int32  # JAX's default int


def test_r_traced_and_errors():
    got = tjit.jit(lambda x: jnp.r_[x, 0, 1:3])(jnp.ones(2))
    np.testing.assert_array_equal(np.asarray(got), [1, 1, 0, 1, 2])
    with pytest.raises(ValueError, match="mixes integers with a matrix directive"):
        jnp.r_["0,2,r", [1, 2]]
    with pytest.raises(ValueError, match="must come first"):
        jnp.r_[[1], "0", [2]]
    with pytest.raises(TypeError, match="index with slices"):
        jnp.mgrid[0:2, 3]


def test_print_options_shared_with_numpy():
    a = jnp.array([1.0 / 3, 2.0], dtype=jnp.float32)
    with jnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2
        assert jnp.array_str(a) == np.array_str(np.asarray(a)) == "[0.33 2.  ]"
        assert repr(a) == "Array([0.33, 2.  ], dtype=float32)"
    assert jnp.get_printoptions()["precision"] == 8
    assert jnp.array2string(a, precision=3, separator=", ") == "[0.333, 2.   ]"
    assert jnp.array_repr(a, precision=1) == "Array([0.3, 2. ], dtype=float32)"
    assert jnp.array_str(jnp.arange(3)) == "[0 1 2]"
    with pytest.raises(tjit.ConcretizationTypeError):
        tjit.jit(lambda x: jnp.array_str(x))(a)


def test_save_load_round_trip(tmp_path):
    a = jnp.arange(6.0).reshape(2, 3)
    path = tmp_path / "a.npy"
    jnp.save(path, a)
    back = jnp.load(path)
    assert isinstance(back, jnp.ndarray) and back.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(back), np.asarray(a))
    np.testing.assert_array_equal(np.load(path), np.asarray(a))  # NumPy reads it
    b = jnp.arange(4, dtype=jnp.bfloat16)
    buf = io.BytesIO()
    jnp.save(buf, b)
    buf.seek(0)
    back = jnp.load(buf)
    assert back.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(back, np.float32), [0, 1, 2, 3])
    for fn in (jnp.savez, jnp.savez_compressed):
        p = tmp_path / f"{fn.__name__}.npz"
        fn(p, a, y=jnp.ones(2, jnp.int32))
        with np.load(p) as z:
            np.testing.assert_array_equal(z["arr_0"], np.asarray(a))
            np.testing.assert_array_equal(z["y"], [1, 1])


def test_bfloat16_dtype_and_arithmetic():
    x = np.linspace(-3, 3, 11)
    b = jnp.asarray(x, dtype=jnp.bfloat16)
    assert b.dtype == BF16 and jnp.bfloat16 == BF16 and jnp.bfloat16(1.5).dtype == BF16
    np.testing.assert_array_equal(np.asarray(b), x.astype(BF16))
    # arithmetic is computed in float32 and rounded to bfloat16 (ml_dtypes / JAX on CPU)
    y = b * b + 1.0
    assert y.dtype == BF16
    want = (x.astype(BF16).astype(np.float32) ** 2).astype(BF16).astype(np.float32) + 1
    np.testing.assert_array_equal(np.asarray(y, np.float32), want.astype(BF16).astype(np.float32))
    e = jnp.exp(b)
    np.testing.assert_allclose(np.asarray(e, np.float64), np.exp(x), rtol=2 ** -7)
    # promotion: JAX's lattice (bf16 + f16 -> f32, bf16 + f32 -> f32, weak floats keep bf16)
    assert (b + jnp.ones(11, jnp.float16)).dtype == jnp.float32
    assert (b * jnp.float32(2)).dtype == jnp.float32
    assert (b * 2).dtype == BF16
    assert jnp.promote_types(jnp.bfloat16, jnp.int8) == BF16
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating)
    assert jnp.finfo(jnp.bfloat16).eps == 2.0 ** -7
    assert jnp.arange(3.0).astype(jnp.bfloat16).dtype == BF16


def test_bfloat16_under_jit_grad_vmap():
    b = jnp.asarray(np.linspace(-1, 1, 8), dtype=jnp.bfloat16)
    f = lambda v: jnp.tanh(v) * 2 + v  # noqa: E731
    got = tjit.jit(f)(b)
    assert got.dtype == BF16
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(f(b), np.float64),
                               rtol=2 ** -7)
    g = tjit.grad(lambda v: jnp.sum(v * v))(b)
    assert g.dtype == BF16
    np.testing.assert_array_equal(np.asarray(g, np.float32), 2 * np.asarray(b, np.float32))
    v = tjit.vmap(lambda r: jnp.sum(r))(b.reshape(2, 4))
    np.testing.assert_allclose(np.asarray(v, np.float32),
                               np.asarray(b, np.float32).reshape(2, 4).sum(1), rtol=2 ** -7)
    assert "bf16[8]" in str(tjit.make_jaxpr(f)(b))


def test_version_names():
    assert isinstance(tjit.__version__, str)
    assert tjit.__version_info__ == tuple(int(p) for p in tjit.__version__.split(".")[:3])


def test_r_c_matrix_directives_give_2d_rows_and_columns_as_numpy():
    # NumPy returns np.matrix; JAX (and tjit) the same values as a 2-D array
    a, b = [1, 2, 3], [4, 5, 6]
    for grid in ("r_", "c_"):
        for d in ("r", "c"):
            want = np.asarray(getattr(np, grid)[d, a, b])
            got = getattr(jnp, grid)[d, a, b]
            np.testing.assert_array_equal(np.asarray(got), want)
            assert got.shape == want.shape
    m = np.arange(4).reshape(2, 2)  # 2-D inputs: the directive changes nothing
    np.testing.assert_array_equal(np.asarray(jnp.r_["c", m, m]), np.asarray(np.r_["c", m, m]))
