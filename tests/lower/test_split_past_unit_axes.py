"""The CPU's thread split skips leading kept axes of extent 1 (``split.split_axis``): a
convolution's patch gather iterates (1, 1, batch, ...) and was never split. Results of
split kernels against the reference interpreter and NumPy float64."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.lower.llvm.split import split_axis
from tjit.xla_like import kernel_ir as K

F32 = np.dtype(np.float32)


def _kernel(shape, store_coefs, reduce_axes=()):
    load = K.Load(0, K.Affine(0, tuple(store_coefs)), F32)
    return K.Kernel("k", tuple(shape), (K.Arg(F32, "in"), K.Arg(F32, "out")),
                    stores=(K.Store(1, K.Affine(0, tuple(store_coefs)), load),),
                    reduce_axes=tuple(reduce_axes))


def test_split_axis_skips_unit_axes_every_store_depends_on():
    assert split_axis(_kernel((1, 1, 8, 16), (128, 128, 16, 1))) == 2
    assert split_axis(_kernel((4, 8), (8, 1))) == 0
    # a store that does not depend on the first wide axis: the old choice
    assert split_axis(_kernel((1, 8, 16), (16, 0, 1))) == 0
    assert split_axis(_kernel((1, 1), (1, 1))) == 0


@pytest.fixture
def two_threads(monkeypatch):
    monkeypatch.setenv("TJIT_NUM_THREADS", "2")


def test_conv_with_split_patch_gather_matches_references(two_threads):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 32, 32, 16)).astype(np.float32)
    w = (rng.standard_normal((3, 3, 16, 8)) / 12).astype(np.float32)
    f = lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                              dimension_numbers=("NHWC", "HWIO", "NHWC"))
    ex = tjit.jit(f).lower(x, w).compile().executable
    gathers = [k for k in ex.program.kernels if any(
        isinstance(n, K.IndexedLoad) for n in K.all_nodes(k))]
    assert gathers and all(k.shape[:2] == (1, 1) and split_axis(k) == 2 for k in gathers)
    runner = ex._make_runner({})
    assert all(runner.launch(k)[2] for k in gathers)   # split across the two threads
    got = np.asarray(tjit.jit(f)(x, w))
    np.testing.assert_allclose(got, np.asarray(tjit.jit(f, backend="interpreter")(x, w)),
                               rtol=1e-5, atol=1e-5)
    xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = sum(np.einsum("nhwc,co->nhwo", xp[:, i:i + 32, j:j + 32], w[i, j].astype(np.float64))
               for i in range(3) for j in range(3))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
