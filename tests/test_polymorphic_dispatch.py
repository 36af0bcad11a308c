"""A jit with ``polymorphic_shapes`` parses its specs once, not on every call (sympy's
parser took ~0.3-1.6 ms a call, 10-100x a small program's run), and still follows each
call's sizes. Reference: NumPy float64."""

import numpy as np

import tjit
import tjit.api
import tjit.numpy as jnp


def test_specs_are_parsed_once_per_jit(monkeypatch):
    calls = []
    real = tjit.api.parse_spec
    monkeypatch.setattr(tjit.api, "parse_spec", lambda *a: calls.append(a) or real(*a))
    f = tjit.jit(lambda x, y: jnp.sum(x) / x.shape[0] + y, polymorphic_shapes=("n, 8", None))
    for n in (4, 9, 4, 30, 9):
        x = np.arange(n * 8, dtype=np.float32).reshape(n, 8)
        np.testing.assert_allclose(float(f(x, np.float32(1))),
                                   x.astype(np.float64).sum() / n + 1, rtol=1e-6)
    assert len(calls) == 1, calls
