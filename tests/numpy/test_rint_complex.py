"""jnp.rint of complex input rounds each part (halves to even), as NumPy and JAX."""

import numpy as np

import tjit
import tjit.numpy as jnp


def test_rint_complex_against_numpy():
    parts = np.array([-2.5, -1.5, -0.5, -0.4, 0.0, 0.5, 1.5, 2.5, 3.7, np.inf, np.nan])
    re, im = np.meshgrid(parts, parts[::-1])
    for dt in (np.complex64, np.complex128):
        z = np.empty(re.shape, dt)
        z.real, z.imag = re, im  # (re + 1j * im would turn an infinite im into nan + inf j)
        want = np.rint(z)
        for f in (jnp.rint, tjit.jit(jnp.rint)):
            got = np.asarray(f(z))
            assert got.dtype == (np.complex64 if dt == np.complex64 or
                                 not tjit.config.enable_x64 else dt)
            np.testing.assert_array_equal(got, want.astype(got.dtype))
