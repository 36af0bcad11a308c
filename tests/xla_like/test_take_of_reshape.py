"""A ``take`` of a reshaped buffer reads the buffer itself at the same linear index
(``fusion``/``emit._take``): no kernel copies the whole operand first (the input of a
convolution's patch gather, a reshaped table). Results against NumPy and the
reference interpreter."""

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import cpu_fill_copy


def program_of(f, *args):
    return tjit.jit(f).lower(*args).compile().executable.program


def is_copy(kernel):
    what = cpu_fill_copy.plain_fill_or_copy(kernel)
    return what is not None and what[0] == "copy"


def copies(prog):
    return [k.name for k in prog.kernels if is_copy(k)]


def test_gather_rows_of_a_reshaped_argument_is_one_kernel():
    x = np.arange(48, dtype=np.float32).reshape(2, 3, 8)
    idx = np.array([5, 0, 3, 3, -1, 9], np.int32)   # (out of range: clipped, as jnp.take's
    f = lambda x, i: jnp.take(x.reshape(12, 4), i, axis=0, mode="clip") * 2.0  # clip mode)
    prog = program_of(f, x, idx)
    assert len(prog.kernels) == 1 and copies(prog) == []
    want = x.reshape(12, 4)[np.clip(idx, 0, 11)] * 2.0
    np.testing.assert_array_equal(np.asarray(tjit.jit(f)(x, idx)), want)
    np.testing.assert_array_equal(np.asarray(tjit.jit(f)(x, idx)),
                                  np.asarray(tjit.jit(f, backend="interpreter")(x, idx)))


def test_conv_patch_gather_reads_the_input_in_place():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    f = lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                              dimension_numbers=("NHWC", "HWIO", "NHWC"))
    prog = program_of(f, x, w)
    # the gather reads parameter 0 itself: no kernel copies it whole beforehand
    x_param = prog.params[0]
    readers = [s for s in prog.steps if x_param in s.ins]
    assert len(readers) == 1 and not copies_of(prog, readers[0])
    xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = sum(np.einsum("nhwc,co->nhwo", xp[:, i:i + 6, j:j + 6], w[i, j].astype(np.float64))
               for i in range(3) for j in range(3))
    got = np.asarray(tjit.jit(f)(x, w))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, np.asarray(tjit.jit(f, backend="interpreter")(x, w)),
                               rtol=1e-5, atol=1e-5)


def copies_of(prog, step):
    kernel = getattr(step, "kernel", None)
    return kernel is not None and is_copy(kernel)
