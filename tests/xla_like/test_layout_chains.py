"""Chains of reshapes and transposes become one transpose between two reshapes
(``layout_chains.compose`` and simplify's ``transpose_chain``): the composition against
NumPy on random chains, and compiled chains run as at most one copy kernel with NumPy's
values (vmap(grad) of a convolution's weight gradient made three copies of one)."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.xla_like.layout_chains import compose


def _random_chain(rng, shape, n):
    ops, cur = [], shape
    for _ in range(n):
        if rng.random() < 0.5:
            perm = tuple(int(p) for p in rng.permutation(len(cur)))
            ops.append(("transpose", perm))
            cur = tuple(cur[p] for p in perm)
        else:
            total, dims = int(np.prod(cur)), []
            while total > 1 and len(dims) < 5:
                d = int(rng.choice([d for d in range(2, total + 1) if total % d == 0]))
                dims.append(d)
                total //= d
            if rng.random() < 0.3:
                dims.insert(int(rng.integers(0, len(dims) + 1)), 1)
            cur = tuple(dims) or (1,)
            ops.append(("reshape", cur))
    return ops, cur


def test_compose_matches_numpy_on_random_chains():
    rng = np.random.default_rng(0)
    composed = 0
    for _ in range(1500):
        shape = tuple(int(v) for v in rng.choice([1, 2, 3, 4, 6], size=rng.integers(1, 5)))
        ops, out = _random_chain(rng, shape, int(rng.integers(1, 5)))
        a = np.arange(int(np.prod(shape))).reshape(shape)
        want = a
        for kind, arg in ops:
            want = want.transpose(arg) if kind == "transpose" else want.reshape(arg)
        found = compose(shape, ops)
        if found is None:
            continue
        atom_shape, perm = found
        np.testing.assert_array_equal(a.reshape(atom_shape).transpose(perm).reshape(out),
                                      want)
        composed += 1
    assert composed > 1000     # (the rest regroup across moved blocks)


def test_compose_refuses_regrouping_across_blocks():
    # (2, 3) transposed to (3, 2), read as (2, 3): a new dim ends inside the 3-block
    assert compose((2, 3), [("transpose", (1, 0)), ("reshape", (2, 3))]) is None
    assert compose((2, 3), [("transpose", (1, 0)), ("reshape", (6,))]) == ((2, 3), (1, 0))


def _copy_kernels(fn, *args):
    return [name for kind, name in tjit.jit(fn).lower(*args).compile().fusion_summary()
            if kind == "kernel"]


@pytest.mark.parametrize("chain", [
    lambda x: x.reshape(4, 6, 5).transpose(2, 0, 1).reshape(5, 2, 12).transpose(1, 0, 2),
    lambda x: x.transpose(1, 0).reshape(5, 4, 6).transpose(2, 1, 0).reshape(6, 20).T,
    lambda x: x.reshape(2, 2, 30).transpose(1, 2, 0).reshape(2, 6, 5, 2)
               .transpose(3, 2, 1, 0),
])
def test_compiled_chain_is_one_copy(chain):
    x = np.arange(120, dtype=np.float32).reshape(24, 5)
    want = chain(x)
    np.testing.assert_array_equal(tjit.jit(chain)(x), want)
    assert len(_copy_kernels(chain, x)) <= 1


def test_vmapped_weight_gradient_of_a_convolution():
    """Per-example weight gradients (the batch folded into feature groups and back out,
    the chain the rule composes) against a Python loop."""
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((6, 1, 9, 9, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)

    def loss(w, x):
        y = lax.conv_general_dilated(x, w, (2, 2), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return (y ** 2).sum()
    per_example = tjit.jit(tjit.vmap(tjit.grad(loss), (None, 0)))
    want = np.stack([np.asarray(tjit.jit(tjit.grad(loss))(w, x)) for x in xs])
    np.testing.assert_allclose(per_example(w, xs), want, rtol=1e-5, atol=1e-5)
