"""Complex elementwise functions at IEEE special values (C99 Annex G, as the Array API
standard states them) and near zero, eagerly and under jit, against float64 references."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

INF, NAN = np.inf, np.nan

# (input, expected) for expm1; the imaginary part's zero sign is part of the answer
EXPM1_CASES = [
    (complex(0.0, 0.0), complex(0.0, 0.0)),
    # the Array API: expm1(+-0 + 0j) is +0 + 0j (e^z = 1 exactly; real expm1(-0) is -0)
    (complex(-0.0, 0.0), complex(0.0, 0.0)),
    (complex(-0.0, -0.0), complex(0.0, -0.0)),
    (complex(0.0, -0.0), complex(0.0, -0.0)),
    (complex(INF, 0.0), complex(INF, 0.0)),
    (complex(NAN, 0.0), complex(NAN, 0.0)),
    (complex(NAN, -0.0), complex(NAN, -0.0)),
    (complex(-INF, 2.0), complex(-1.0, 0.0 * np.sin(2.0))),
    (complex(-INF, -2.0), complex(-1.0, -0.0)),
    (complex(1.0, INF), complex(NAN, NAN)),
    (complex(1.0, NAN), complex(NAN, NAN)),
]


def _check_special(got, want):
    for g, w in zip(np.asarray(got).ravel(), want):
        for part_g, part_w in ((g.real, w.real), (g.imag, w.imag)):
            if np.isnan(part_w):
                assert np.isnan(part_g), (g, w)
            else:
                assert part_g == part_w and np.signbit(part_g) == np.signbit(part_w), (g, w)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("how", ["eager", "jit"])
def test_expm1_special_values(dtype, how):
    if dtype == np.complex128 and not tjit.config.enable_x64:
        dtype = np.complex64
    x = jnp.asarray(np.array([c for c, _ in EXPM1_CASES], dtype))
    fn = jnp.expm1 if how == "eager" else tjit.jit(jnp.expm1)
    _check_special(fn(x), [w for _, w in EXPM1_CASES])


def test_expm1_accurate_near_zero():
    rng = np.random.default_rng(0)
    z = (rng.standard_normal(64) + 1j * rng.standard_normal(64)) * 1e-5
    z = np.concatenate([z, rng.standard_normal(16) * 3 + 1j * rng.standard_normal(16) * 3])
    z = z.astype(np.complex64)
    zz = z.astype(np.complex128)
    # float64 reference: the series near zero (where exp(z) - 1 cancels), exp - 1 elsewhere
    ref = np.where(np.abs(zz) < 1e-3, zz + zz ** 2 / 2 + zz ** 3 / 6 + zz ** 4 / 24,
                   np.exp(zz) - 1)
    got = np.asarray(jnp.expm1(jnp.asarray(z))).astype(np.complex128)
    np.testing.assert_allclose(got, ref, rtol=2e-6 * 4)


def test_expm1_real_unchanged():
    x = np.linspace(-5, 5, 11, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.expm1(jnp.asarray(x))), np.expm1(x))
