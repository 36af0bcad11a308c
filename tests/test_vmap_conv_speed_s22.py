"""What made DP-SGD's per-example gradients slow, checked for values (timings are in
benchmarks/bench_dpsgd.py):

* lhs-dilated convolutions (conv_transpose, a strided convolution's input gradient)
  compile as one gemm per phase class of output positions, skipping the dilation holes
  (``window_gather.phase_tables``): the tables cover every element read exactly once and
  no hole; compiled values against a float64 NumPy loop (``np_conv``) across strides,
  padding, both dilations, feature and batch groups, 1-d to 3-d, and kernels smaller than
  the dilation (classes with no offsets: zero outputs);
* the example's network: ``vmap(grad)`` per-example gradients (feature-grouped weight
  gradients, strided input gradients, overlapping max pools) against a Python loop of
  per-example gradients, and the clipped sum the example takes.
"""

import itertools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.primitives.test_conv import np_conv
from tjit import lax
from tjit.example_libraries import stax
from tjit.primitives import window_gather
from tjit.tree_util import tree_flatten, tree_leaves

# lhs (N, C, *sp), rhs (O, I, *k), strides, padding, lhs_dil, rhs_dil, G, B
PHASED = [
    ((2, 3, 5, 5), (4, 3, 4, 4), (1, 1), ((3, 3), (3, 3)), (2, 2), (1, 1), 1, 1),
    ((2, 4, 6, 7), (6, 4, 3, 2), (1, 2), ((1, 2), (0, 1)), (2, 3), (1, 2), 1, 1),
    ((2, 4, 6, 7), (6, 2, 3, 3), (2, 1), ((2, 2), (1, -1)), (3, 2), (2, 1), 2, 1),
    ((4, 2, 5, 4), (6, 2, 2, 3), (1, 1), ((1, 1), (2, 0)), (2, 2), (1, 1), 1, 2),
    ((2, 3, 9), (5, 3, 1), (1,), ((0, 0),), (2,), (1,), 1, 1),   # offset-less phases
    ((1, 2, 3, 4, 3), (2, 2, 2, 3, 2), (1, 2, 1), ((1, 1), (2, 2), (0, 1)), (2, 2, 3),
     (1, 1, 2), 1, 1),
]


def _geometry(case):
    ls, rs, strides, pad, ld, rd, _, _ = case
    in_sp, k_sp = ls[2:], rs[2:]
    out_sp = tuple(window_gather.out_dim(*a) for a in zip(in_sp, k_sp, strides, pad, ld, rd))
    return in_sp, out_sp, k_sp, strides, pad, ld, rd


@pytest.mark.parametrize("case", PHASED)
def test_phase_tables_cover_each_read_once_and_no_hole(case):
    in_sp, out_sp, k_sp, *geo = _geometry(case)
    full = window_gather.window_index(in_sp, out_sp, k_sp, *geo)
    t = window_gather.phase_tables(in_sp, out_sp, k_sp, *geo)
    S, K = int(np.prod(in_sp)), int(np.prod(k_sp))
    C, Pm, Km = t.index.shape
    seen = np.zeros(full.shape, int)
    for c, p in itertools.product(range(C), range(Pm)):
        rows = np.nonzero(t.back == c * Pm + p)[0]
        for k in range(Km):
            if t.index[c, p, k] == S:
                continue    # padding, a hole, or a padded row / offset
            assert len(rows) == 1 and t.offsets[c, k] < K
            assert t.index[c, p, k] == full[rows[0], t.offsets[c, k]]
            seen[rows[0], t.offsets[c, k]] += 1
    np.testing.assert_array_equal(seen, (full != S).astype(int))
    inside = t.back[t.back < C * Pm]
    assert len(set(inside.tolist())) == len(inside)              # positions kept apart
    # a position outside every class (a zero) has no element in its window
    assert (full[t.back == C * Pm] == S).all()
    assert C * Pm * Km < full.size                               # the holes are skipped


@pytest.mark.parametrize("case", PHASED)
def test_phased_convolution_matches_numpy(case):
    ls, rs, strides, pad, ld, rd, G, B = case
    rng = np.random.default_rng(0)
    x = rng.standard_normal(ls).astype(np.float32)
    w = rng.standard_normal(rs).astype(np.float32)
    n = len(ls) - 2
    sp = "DHW"[3 - n:]
    dn = ("NC" + sp, "OI" + sp, "NC" + sp)

    def f(x, w):
        return lax.conv_general_dilated(x, w, strides, pad, ld, rd, dn,
                                        feature_group_count=G, batch_group_count=B)
    want = np_conv(x.astype(np.float64), w.astype(np.float64), strides, pad, ld, rd, G, B)
    got = np.asarray(tjit.jit(f)(x, w))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    steps = tjit.jit(f).lower(x, w).compile().fusion_summary()
    assert "library" not in [k for k, _ in steps], steps


def _network():
    return stax.serial(
        stax.Conv(4, (8, 8), padding="SAME", strides=(2, 2)), stax.Relu,
        stax.MaxPool((2, 2), (1, 1)),
        stax.Conv(6, (4, 4), padding="VALID", strides=(2, 2)), stax.Relu,
        stax.MaxPool((2, 2), (1, 1)), stax.Flatten, stax.Dense(8), stax.Relu, stax.Dense(10))


def test_dpsgd_per_example_gradients_match_a_loop():
    """The example's network (narrower), batches of one image under vmap."""
    init, predict = _network()
    _, params = init(tjit.random.key(0), (-1, 28, 28, 1))
    rng = np.random.default_rng(1)
    xs = rng.random((5, 1, 28, 28, 1), dtype=np.float32)
    ys = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 5)]

    def loss(params, batch):
        inputs, targets = batch
        logits = stax.logsoftmax(predict(params, inputs))
        return -jnp.mean(jnp.sum(logits * targets, axis=1))

    def clipped(params, batch):
        flat, tree = tree_flatten(tjit.grad(loss)(params, batch))
        total = jnp.linalg.norm(jnp.array([jnp.linalg.norm(g.ravel()) for g in flat]))
        return tree.unflatten([g / jnp.maximum(total / 0.5, 1.0) for g in flat])

    per_example = tjit.jit(tjit.vmap(tjit.grad(loss), (None, 0)))(params, (xs, ys))
    clipped_sum = tjit.jit(lambda p, b: [g.sum(0) for g in tree_leaves(
        tjit.vmap(clipped, (None, 0))(p, b))])(params, (xs, ys))
    one = tjit.jit(tjit.grad(loss))
    loop = [tree_leaves(one(params, (x, y))) for x, y in zip(xs, ys)]
    for k, g in enumerate(tree_leaves(per_example)):
        want = np.stack([leaves[k] for leaves in loop])
        np.testing.assert_allclose(g, want, rtol=2e-4, atol=2e-6)
    norms = np.sqrt([sum(float(np.sum(np.asarray(a, np.float64) ** 2)) for a in leaves)
                     for leaves in loop])
    scale = 1 / np.maximum(norms / 0.5, 1.0)
    for k, g in enumerate(clipped_sum):
        want = sum(s * np.asarray(leaves[k], np.float64) for s, leaves in zip(scale, loop))
        np.testing.assert_allclose(g, want, rtol=2e-4, atol=2e-6)
