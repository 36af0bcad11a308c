"""Symbolic dims used as values (docs/export/shape_poly.md): ``5. + x.shape[0]``,
``x.shape[0] - np.arange(5)``, ``x.shape[0] * x`` and a returned dim compute with the
dim's size, as in JAX. Reference: the same expression in NumPy at each size."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import export


CASES = [
    ("float + dim", lambda x: 5. + x.shape[0], lambda x, n: np.float32(5. + n)),
    ("dim / int", lambda x: x.shape[0] / 2, lambda x, n: np.float32(n / 2)),
    ("dim * float", lambda x: x.shape[0] * 0.25, lambda x, n: np.float32(n * 0.25)),
    ("dim - ndarray", lambda x: x.shape[0] - np.arange(5, dtype=np.int32),
     lambda x, n: n - np.arange(5)),
    ("ndarray + dim", lambda x: np.ones(2) + x.shape[0], lambda x, n: np.ones(2) + n),
    ("negative dim value", lambda x: (x.shape[0] - 5) * 3, lambda x, n: (n - 5) * 3),
    ("sin of negative", lambda x: jnp.sin(x.shape[0] - 7), lambda x, n: np.sin(n - 7.)),
    ("dim times tracer", lambda x: x.shape[0] * x, lambda x, n: n * x),
    ("dim power plus tracer", lambda x: x.shape[0] ** 2 + x, lambda x, n: n ** 2 + x),
    ("returned dim", lambda x: x.shape[0], lambda x, n: np.int32(n)),
    ("floordiv and mod", lambda x: (x.shape[0] // 2 - 3) * 10 + x.shape[0] % 2,
     lambda x, n: (n // 2 - 3) * 10 + n % 2),
]


@pytest.mark.parametrize("name,f,ref", CASES, ids=[c[0] for c in CASES])
def test_dim_values_under_polymorphic_jit_and_export(name, f, ref):
    jitted = tjit.jit(f, polymorphic_shapes=("(b,)",))
    exp = export.export(tjit.jit(f))(
        tjit.ShapeDtypeStruct(export.symbolic_shape("b"), np.float32))
    for n in (1, 3, 8):
        x = np.linspace(-1, 1, n).astype(np.float32)
        want = np.asarray(ref(x, n))
        for got in (jitted(x), exp.call(x)):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


def test_dim_value_dtypes_are_jaxs():
    # shape_poly.md's out_avals: a float expression of a dim is a weak float32
    exp = export.export(tjit.jit(lambda x: (5. + x.shape[0],
                                            x.shape[0] - np.arange(5, dtype=np.int32))))(
        tjit.ShapeDtypeStruct(export.symbolic_shape("b"), np.int32))
    a, b = exp.out_avals
    assert (a.dtype, a.shape, a.weak_type) == (np.float32, (), True)
    assert (b.dtype, b.shape, b.weak_type) == (np.int32, (5,), False)
