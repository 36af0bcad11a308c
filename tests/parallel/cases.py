"""One record per collective: the per-member function and an independent NumPy reference.

``fn(x)`` runs on one member's slice (shape ``SHAPE``) with the axis named ``"i"`` of
``N`` members bound; ``ref(X)`` computes every member's result from the stacked inputs
``X`` (shape ``(N,) + SHAPE``) in float64, stacked the same way.
"""

import dataclasses

import numpy as np

from tjit import lax

N = 4
SHAPE = (N, 6)       # dim 0 equals N (psum_scatter/all_to_all untiled), dim 1 = N * 3 / 2


@dataclasses.dataclass
class Case:
    name: str
    fn: object
    ref: object
    differentiable: bool = True


def _each(f):
    """A reference that gives every member the same value ``f(X)``."""
    return lambda X: np.stack([f(X)] * N)


def _tiles(a, axis):
    return np.split(a, N, axis=axis)


RING = tuple((r, (r + 1) % N) for r in range(N))
PARTIAL = ((0, 2), (1, 0))

CASES = [
    Case("psum", lambda x: lax.psum(x, "i"), _each(lambda X: X.sum(0))),
    Case("pmean", lambda x: lax.pmean(x, "i"), _each(lambda X: X.mean(0))),
    Case("pmax", lambda x: lax.pmax(x, "i"), _each(lambda X: X.max(0))),
    Case("pmin", lambda x: lax.pmin(x, "i"), _each(lambda X: X.min(0))),
    Case("psum_pytree", lambda x: lax.psum({"a": x, "b": (2 * x,)}, "i")["b"][0],
         _each(lambda X: 2 * X.sum(0))),
    Case("all_gather", lambda x: lax.all_gather(x, "i"), _each(lambda X: X)),
    Case("all_gather_axis1", lambda x: lax.all_gather(x, "i", axis=1),
         _each(lambda X: np.moveaxis(X, 0, 1))),
    Case("all_gather_tiled", lambda x: lax.all_gather(x, "i", tiled=True),
         _each(lambda X: X.reshape((-1,) + X.shape[2:]))),
    Case("all_gather_tiled_axis1", lambda x: lax.all_gather(x, "i", axis=1, tiled=True),
         _each(lambda X: np.concatenate(list(X), axis=1))),
    Case("psum_scatter", lambda x: lax.psum_scatter(x, "i"), lambda X: X.sum(0)),
    Case("psum_scatter_tiled_dim1",
         lambda x: lax.psum_scatter(x[:, :4], "i", scatter_dimension=1, tiled=True),
         lambda X: np.stack(_tiles(X[:, :, :4].sum(0), 1))),
    Case("all_to_all", lambda x: lax.all_to_all(x, "i", 0, 0),
         lambda X: np.swapaxes(X, 0, 1)),
    Case("all_to_all_split0_concat1", lambda x: lax.all_to_all(x, "i", 0, 1),
         lambda X: np.stack([np.stack([X[j, r] for j in range(N)], axis=1)
                             for r in range(N)])),
    Case("all_to_all_tiled", lambda x: lax.all_to_all(x[:, :4], "i", 1, 0, tiled=True),
         lambda X: np.stack([np.concatenate([_tiles(X[j, :, :4], 1)[r] for j in range(N)],
                                            axis=0) for r in range(N)])),
    Case("ppermute_ring", lambda x: lax.ppermute(x, "i", RING), lambda X: np.roll(X, 1, 0)),
    Case("ppermute_partial", lambda x: lax.ppermute(x, "i", PARTIAL),
         lambda X: np.stack([X[1], np.zeros_like(X[0]), X[0], np.zeros_like(X[0])])),
    Case("axis_index", lambda x: lax.axis_index("i"), lambda X: np.arange(N),
         differentiable=False),
    Case("axis_index_times_x", lambda x: x * lax.axis_index("i").astype(x.dtype),
         lambda X: X * np.arange(N)[:, None, None]),
]

BY_NAME = {c.name: c for c in CASES}
