"""The Array API standard's namespace objects on tjit.numpy: version, inspection
namespace, ``__array_namespace__`` and DLPack exchange with NumPy (zero-copy both ways)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


@pytest.fixture
def x64():
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", True)
    yield
    tjit.config.update("enable_x64", old)


def test_version_and_namespace():
    assert jnp.__array_api_version__ == "2024.12"
    x = jnp.arange(3)
    assert x.__array_namespace__() is jnp
    assert x.__array_namespace__(api_version="2023.12") is jnp
    with pytest.raises(ValueError, match="api_version '2019.01' is not supported"):
        x.__array_namespace__(api_version="2019.01")


def test_inspection_dtypes_follow_x64():
    info = jnp.__array_namespace_info__()
    assert set(info.dtypes(kind="signed integer")) == {"int8", "int16", "int32"}
    assert set(info.dtypes(kind="real floating")) == {"float32"}
    assert info.default_dtypes() == {"real floating": np.dtype("float32"),
                                     "complex floating": np.dtype("complex64"),
                                     "integral": np.dtype("int32"),
                                     "indexing": np.dtype("int32")}
    with pytest.raises(ValueError, match="unknown kind 'reals'"):
        info.dtypes(kind="reals")


def test_inspection_with_x64(x64):
    info = jnp.__array_namespace_info__()
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {
        "bool", "complex64", "complex128"}
    assert len(info.dtypes()) == 13  # bool, 8 ints, 2 floats, 2 complex (standard's set)
    assert info.default_dtypes()["integral"] == np.dtype("int64")
    assert jnp.asarray(np.arange(3, dtype=np.int64)).dtype == np.int64


def test_inspection_devices_and_capabilities():
    info = jnp.__array_namespace_info__()
    x = jnp.ones(2)
    assert x.device in info.devices()
    assert info.default_device() == x.device
    assert info.capabilities()["boolean indexing"] is True
    assert x.to_device(x.device) is x
    assert jnp.asarray([1, 2], device=x.device).device == x.device
    with pytest.raises(ValueError, match="unknown device"):
        info.dtypes(device="tpu:7")


def test_from_dlpack_shares_numpy_memory():
    src = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = jnp.from_dlpack(src)
    assert isinstance(x, jnp.ndarray) and x.shape == (2, 3) and x.dtype == np.float32
    assert np.shares_memory(np.asarray(x), src)  # zero-copy in
    np.testing.assert_array_equal(np.asarray(x), src)
    assert not np.shares_memory(np.asarray(jnp.from_dlpack(src, copy=True)), src)

    y = jnp.arange(4.0) * 2
    out = np.from_dlpack(y)  # zero-copy out
    assert np.shares_memory(out, np.asarray(y))
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0, 6.0])
    assert y.__dlpack_device__() == (1, 0)


def test_dlpack_module_round_trips_every_supported_dtype():
    import tjit.dlpack
    for dtype in tjit.dlpack.SUPPORTED_DTYPES:
        assert tjit.dlpack.is_supported_dtype(dtype)
        if dtype == jnp.bfloat16:       # (NumPy's own DLPack refuses bfloat16)
            continue
        src = np.arange(4).astype(dtype)
        back = np.from_dlpack(tjit.dlpack.from_dlpack(src))
        np.testing.assert_array_equal(back.astype(np.float64),
                                      src.astype(tjit.dtypes.canonicalize_dtype(dtype))
                                      .astype(np.float64))
    assert not tjit.dlpack.is_supported_dtype(np.dtype("U3"))


def test_from_dlpack_narrows_without_x64():
    src = np.arange(3, dtype=np.float64)
    x = jnp.from_dlpack(src)
    assert x.dtype == np.float32  # jnp's canonical dtype, as asarray gives
    with pytest.raises(BufferError, match="needs a copy"):
        jnp.from_dlpack(src, copy=False)


def test_from_dlpack_errors():
    with pytest.raises(TypeError, match="has no __dlpack__"):
        jnp.from_dlpack([1, 2, 3])

    class OnGpu:
        def __dlpack__(self, **kw):
            raise AssertionError("not reached")

        def __dlpack_device__(self):
            return (2, 0)

    with pytest.raises(BufferError, match="DLPack device type 2"):
        jnp.from_dlpack(OnGpu())


def test_from_dlpack_under_jit_is_an_error():
    with pytest.raises(TypeError, match="traced array"):
        tjit.jit(jnp.from_dlpack)(jnp.ones(2))


def test_dlpack_export_of_read_only_buffers():
    # (a broadcast past 4096 elements is a read-only view; smaller ones are filled)
    x = jnp.broadcast_to(jnp.arange(3.0), (2000, 3))
    v = np.asarray(x)
    assert x.__dlpack__() is not None  # legacy consumers get a copy
    np.testing.assert_array_equal(np.from_dlpack(x),
                                  np.broadcast_to(np.arange(3.0), (2000, 3)))
    np.testing.assert_array_equal(v, np.from_dlpack(x))
    assert not x._value.flags.writeable  # the case under test: a read-only buffer
    with pytest.raises(BufferError, match="read-only"):
        x.__dlpack__(copy=False)
