"""Automatic dynamic shapes: a dynamic program found again in the jit's cache keeps the
guards its trace recorded.

A family whose dims went dynamic, then were merged by value (``a + b`` of two dims that
the code saw equal), then split again re-derives a pattern it had compiled before; the
program comes from the cache without a trace, so its guards must come with it. They did
not: ``x + y if x.shape == y.shape else ...`` compiled for (6, 7) was served again,
guardless, to (3, 3) after (8, 8) and (9, 2), and returned the other branch's result.

Each call is checked against the reference interpreter at its own sizes, over size
sequences that revisit patterns (fixed ones and seeded random ones) and functions that
branch on sizes in the ways dynamic_shapes.py guards (tuple and dim equality, order,
arithmetic on sizes).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

FUNCTIONS = {
    "shape_tuple_eq": lambda x, y: x + y if x.shape == y.shape else
    jnp.concatenate([x, y])[:2],
    "dim_eq": lambda x, y: x * y if x.shape[0] == y.shape[0] else
    jnp.concatenate([x, -y]),
    "dim_order": lambda x, y: x[: y.shape[0]] - y if x.shape[0] >= y.shape[0] else
    y[: x.shape[0]] * 2 + x,
    "size_sum_parity": lambda x, y: jnp.concatenate([x, y]).reshape(-1, 6)
    if (x.shape[0] + y.shape[0]) % 2 == 0 else jnp.sum(x, 0) + jnp.sum(y, 0),
}

FIXED = [
    [(4, 4), (5, 5), (6, 7), (8, 8), (9, 2), (3, 3), (10, 10)],
    [(4, 4), (5, 5), (6, 6), (6, 7), (7, 6), (8, 8), (2, 9), (9, 2), (1, 5), (0, 3),
     (3, 3), (10, 11), (12, 12)],
    [(4, 5), (6, 7), (8, 8), (9, 9), (3, 4), (12, 12), (2, 2), (13, 5)],
]


def _random_sequences(n, length, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        seq = []
        for _ in range(length):
            b = int(rng.integers(2, 10))
            seq.append((b, b) if rng.random() < 0.4 else (b, int(rng.integers(2, 10))))
        out.append(seq)
    return out


SEQUENCES = FIXED + _random_sequences(4, 10)


@pytest.mark.parametrize("which", range(len(SEQUENCES)))
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_revisited_dynamic_programs_keep_their_guards(name, which):
    f = FUNCTIONS[name]
    jitted = tjit.jit(f)
    reference = tjit.jit(f, backend="interpreter", dynamic_shapes=False)
    rng = np.random.default_rng(which)
    for b, c in SEQUENCES[which]:
        x = rng.standard_normal((b, 3)).astype(np.float32)
        y = rng.standard_normal((c, 3)).astype(np.float32)
        want = np.asarray(reference(x, y))
        got = np.asarray(jitted(x, y))
        assert got.shape == want.shape, (name, SEQUENCES[which], (b, c), got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6,
                                   err_msg=f"{name} at sizes {(b, c)} of {SEQUENCES[which]}")
