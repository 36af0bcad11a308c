"""``tjit.experimental.mesh_utils`` and ``compilation_cache`` (JAX's modules of those
names): a device mesh in device order, and the disk cache's folder set at run time."""

import os

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.experimental import mesh_utils
from tjit.experimental.compilation_cache import compilation_cache as cc


def test_create_device_mesh_reshapes_the_devices_in_order():
    devices = [f"d{i}" for i in range(6)]
    mesh = mesh_utils.create_device_mesh((2, 3), devices)
    assert mesh.shape == (2, 3) and mesh.dtype == object
    assert mesh.tolist() == [["d0", "d1", "d2"], ["d3", "d4", "d5"]]
    assert mesh_utils.create_device_mesh((1,)).tolist() == tjit.devices()[:1]
    with pytest.raises(ValueError, match="number of devices 6 must equal"):
        mesh_utils.create_device_mesh((4,), devices)


def test_set_cache_dir_sends_new_kernels_to_that_folder(tmp_path):
    folder = tmp_path / "kernels"
    try:
        cc.set_cache_dir(folder)
        assert tjit.config.compilation_cache_dir == str(folder)
        # a program no other test compiles (an odd constant), so its kernel is new
        out = tjit.jit(lambda x: jnp.sin(x) * 3.0172 + x ** 3)(jnp.arange(7.0))
        np.testing.assert_allclose(np.asarray(out),
                                   np.sin(np.arange(7.0)) * 3.0172 + np.arange(7.0) ** 3,
                                   rtol=1e-5)
        assert folder.is_dir() and any(f.endswith(".tjo") for _, _, fs in os.walk(folder)
                                       for f in fs)
    finally:
        cc.set_cache_dir(None)
        cc.reset_cache()
    assert tjit.config.compilation_cache_dir is None
