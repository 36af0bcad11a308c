"""jit(memory_budget=...) on a program with two peaks: two SGD steps of a tanh MLP in one
jit (remat.py's greedy sequence of split points). One split can only lower one of the
two hills; the budgets here need both.

Peaks are read from ``memory_analysis().peak_memory_in_bytes``; results are checked
against the unconstrained compiled program, the reference interpreter and central
finite differences of a float64 NumPy model.
"""

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit.xla_like import remat
from tjit.xla_like.remat import MemoryBudgetError

LR = 0.1


def loss(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return jnp.mean(h * h)


def loss_np(params, x):
    h = x.astype(np.float64)
    for w, b in params:
        h = np.tanh(h @ np.asarray(w, np.float64) + np.asarray(b, np.float64))
    return float(np.mean(h * h))


def two_steps(params, x1, x2):
    """One SGD step on ``x1``, then the loss and gradient on ``x2`` at the new weights
    (which are returned too)."""
    g = jax.grad(loss)(params, x1)
    p1 = [(w - LR * gw, b - LR * gb) for (w, b), (gw, gb) in zip(params, g)]
    l2, g2 = jax.value_and_grad(loss)(p1, x2)
    return l2, g2, p1


def peak(compiled):
    return compiled.memory_analysis().peak_memory_in_bytes


def leaves(tree):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(tree)]


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(0)
    width, batch = 64, 512      # activations (128 KiB) outweigh the weights (16 KiB)
    params = [((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32),
               (0.1 * rng.standard_normal(width)).astype(np.float32)) for _ in range(8)]
    x1, x2 = (rng.standard_normal((batch, width)).astype(np.float32) for _ in range(2))
    args = (params, x1, x2)
    free = jax.jit(two_steps).lower(*args).compile()
    with pytest.raises(MemoryBudgetError) as e:
        jax.jit(two_steps, memory_budget=1).lower(*args).compile()
    return args, free, e.value.smallest_peak


def test_one_split_is_not_enough(setup, monkeypatch):
    args, free, lowest = setup
    assert lowest < peak(free)
    monkeypatch.setattr(remat, "MAX_SPLITS", 1)
    with pytest.raises(MemoryBudgetError) as e:
        jax.jit(two_steps, memory_budget=lowest).lower(*args).compile()
    assert e.value.smallest_peak > lowest


def test_budgets_met_and_results_unchanged(setup):
    args, free, lowest = setup
    expected = leaves(free(*args))
    reference = leaves(jax.jit(two_steps, backend="interpreter")(*args))
    for budget in ((lowest + peak(free)) // 2, lowest):
        c = jax.jit(two_steps, memory_budget=budget).lower(*args).compile()
        assert peak(c) <= budget
        for g, e, r in zip(leaves(c(*args)), expected, reference):
            np.testing.assert_allclose(g, e, rtol=2e-6, atol=1e-7)
            np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * np.max(np.abs(r)))


def test_gradient_under_budget_matches_finite_differences(setup):
    (params, x1, x2), _, lowest = setup
    l2, g2, p1 = jax.jit(two_steps, memory_budget=lowest)(params, x1, x2)
    p1 = [[np.asarray(a, np.float64) for a in p] for p in p1]
    assert abs(float(l2) - loss_np(p1, x2)) <= 1e-4 * abs(float(l2))
    rng = np.random.default_rng(1)
    for layer in (0, 4, 7):
        for which in (0, 1):    # the weight, the bias
            v = rng.standard_normal(p1[layer][which].shape)
            eps = 1e-4

            def at(t, layer=layer, which=which, v=v):
                ps = [list(p) for p in p1]
                ps[layer][which] = ps[layer][which] + t * v
                return loss_np(ps, x2)
            fd = (at(eps) - at(-eps)) / (2 * eps)
            got = float(np.sum(np.asarray(g2[layer][which], np.float64) * v))
            assert abs(got - fd) <= 1e-3 * max(1.0, abs(fd)), (layer, which, got, fd)
