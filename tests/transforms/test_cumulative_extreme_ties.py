"""cummax/cummin derivatives at ties as JAX 0.10.2 gives them: JAX differentiates the
associative scan of lax.max/min, whose jvp splits a tie's tangent equally, so tied
elements share the tangent in the proportions of the scan's odd-even tree. The table
holds grad(sum(w * cum(x))) with w = 1..n recorded from jax 0.10.2 (jax.lax), checked
eager, under jit and vmap; without ties the tangent is the running extreme's own."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_grads
from tjit import lax

# (function, reverse, x, JAX's gradient)
JAX_0_10_2 = [
    ('cummax', False, [2.0, 1.0], [3.0, 0.0]),
    ('cummax', True, [2.0, 1.0], [1.0, 2.0]),
    ('cummin', False, [2.0, 1.0], [1.0, 2.0]),
    ('cummin', True, [2.0, 1.0], [0.0, 3.0]),
    ('cummax', False, [2.0, 2.0, 1.0], [3.5, 2.5, 0.0]),
    ('cummax', True, [2.0, 2.0, 1.0], [0.5, 2.5, 3.0]),
    ('cummin', False, [2.0, 2.0, 1.0], [2.0, 1.0, 3.0]),
    ('cummin', True, [2.0, 2.0, 1.0], [0.0, 0.0, 6.0]),
    ('cummax', False, [2.0, 2.0, 0.0, 0.0, 0.0], [8.0, 7.0, 0.0, 0.0, 0.0]),
    ('cummax', True, [2.0, 2.0, 0.0, 0.0, 0.0], [0.5, 2.5, 1.5, 2.75, 7.75]),
    ('cummin', False, [2.0, 2.0, 0.0, 0.0, 0.0], [2.0, 1.0, 6.25, 3.25, 2.5]),
    ('cummin', True, [2.0, 2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 3.5, 8.5]),
    ('cummax', False, [0.0, 2.0, 2.0, 0.0, 1.0, 2.0, 0.0],
     [1.0, 11.25, 9.25, 0.0, 0.0, 6.5, 0.0]),
    ('cummax', True, [0.0, 2.0, 2.0, 0.0, 1.0, 2.0, 0.0],
     [0.0, 0.75, 2.25, 0.0, 0.0, 18.0, 7.0]),
    ('cummin', False, [0.0, 2.0, 2.0, 0.0, 1.0, 2.0, 0.0],
     [15.25, 0.0, 0.0, 9.25, 0.0, 0.0, 3.5]),
    ('cummin', True, [0.0, 2.0, 2.0, 0.0, 1.0, 2.0, 0.0],
     [0.5, 0.0, 0.0, 4.75, 0.0, 0.0, 22.75]),
    ('cummax', False, [2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 0.0, 2.0],
     [19.0, 0.0, 0.0, 13.0, 0.0, 0.0, 0.0, 4.0]),
    ('cummax', True, [2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 0.0, 2.0],
     [0.25, 0.0, 0.0, 4.75, 0.0, 0.0, 0.0, 31.0]),
    ('cummin', False, [2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 0.0, 2.0],
     [1.0, 20.25, 0.0, 0.0, 9.25, 0.0, 5.5, 0.0]),
    ('cummin', True, [2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 0.0, 2.0],
     [0.0, 1.5, 0.0, 0.0, 6.75, 0.0, 19.75, 8.0]),
    ('cummax', False, [0.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0],
     [1.0, 47.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 8.375, 3.875, 5.5]),
    ('cummax', True, [0.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0],
     [0.0, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 21.75, 15.875, 26.875]),
    ('cummin', False, [0.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0],
     [66.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ('cummin', True, [0.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0],
     [1.0, 0.0, 2.5, 0.8125, 3.3125, 2.9375, 6.4375, 19.0, 4.5, 7.25, 18.25]),
]


@pytest.mark.parametrize("row", range(len(JAX_0_10_2)))
def test_gradient_at_ties_is_jaxs(row):
    name, reverse, x, want = JAX_0_10_2[row]
    f = getattr(lax, name)
    w = jnp.arange(1.0, len(x) + 1)
    g = tjit.grad(lambda x: (f(x, reverse=reverse) * w).sum())
    for h in (g, tjit.jit(g)):
        np.testing.assert_array_equal(np.asarray(h(jnp.asarray(x, jnp.float32))), want)


def test_gradient_at_ties_under_vmap_and_other_axes():
    rows = [r for r in JAX_0_10_2 if r[0] == "cummax" and not r[1] and len(r[2]) == 7]
    name, reverse, x, want = rows[0]
    xs = jnp.asarray(np.stack([x, x]), jnp.float32)
    w = jnp.arange(1.0, 8.0)
    g = tjit.vmap(tjit.grad(lambda x: (lax.cummax(x) * w).sum()))(xs)
    np.testing.assert_array_equal(np.asarray(g), np.stack([want, want]))
    # along axis 1 of a 2-d array: the same rule row by row
    g2 = tjit.grad(lambda x: (lax.cummax(x, axis=1) * w).sum())(xs)
    np.testing.assert_array_equal(np.asarray(g2), np.stack([want, want]))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("reverse", [False, True])
def test_without_ties_the_derivative_is_the_running_extremes(name, reverse):
    x = np.random.default_rng(0).permutation(9).astype(np.float32) * 0.5  # distinct
    check_grads(lambda x: getattr(lax, name)(x, reverse=reverse), (x,))
