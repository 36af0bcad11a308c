"""A weakly typed loop init whose body output is strongly typed gives a strong final
carry, as JAX (checked against jax 0.10.2: Array(3, dtype=int32), not weak)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

CASES = {
    "scan": lambda: lax.scan(lambda c, x: (c + x, None), 0, jnp.arange(3))[0],
    "fori": lambda: lax.fori_loop(0, 3, lambda i, c: c + jnp.int32(1), 0),
    "while": lambda: lax.while_loop(lambda c: c < 3, lambda c: c + jnp.int32(1), 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("jit", [False, True])
def test_strong_body_output_makes_strong_carry(name, jit):
    f = CASES[name]
    out = tjit.jit(f)() if jit else f()
    assert int(out) == 3 and out.dtype == np.int32 and not out.weak_type


def test_weak_body_output_keeps_weak_carry():
    out = lax.fori_loop(0, 3, lambda i, c: c + 1, 0)
    assert int(out) == 3 and out.weak_type
    out = lax.fori_loop(0, 3, lambda i, c: c + 1.5, 0)   # promoted to float32, strong
    assert float(out) == 4.5 and out.dtype == np.float32 and not out.weak_type
