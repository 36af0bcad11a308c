"""jit(memory_budget=...): automatic rematerialization (tjit/xla_like/remat.py).

Peaks are read from ``memory_analysis().peak_memory_in_bytes``; gradients are checked
against the unconstrained compiled program, the reference interpreter and central
finite differences of a float64 NumPy model.
"""

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit.xla_like.remat import MemoryBudgetError, parse_budget


def tanh_mlp_loss(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return jnp.sum(h ** 2)


def tanh_mlp_loss_np(params, x):
    h = x.astype(np.float64)
    for w, b in params:
        h = np.tanh(h @ w.astype(np.float64) + b.astype(np.float64))
    return float(np.sum(h ** 2))


def make_mlp(layers, width, batch, seed=0):
    rng = np.random.default_rng(seed)
    params = [((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32),
               (0.1 * rng.standard_normal(width)).astype(np.float32))
              for _ in range(layers)]
    x = rng.standard_normal((batch, width)).astype(np.float32)
    return params, x


def peak(compiled):
    return compiled.memory_analysis().peak_memory_in_bytes


def n_dots(compiled):
    return sum(kind == "dot" for kind, _ in compiled.fusion_summary())


def leaves(tree):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(tree)]


@pytest.fixture(scope="module")
def mlp8():
    params, x = make_mlp(8, 32, 64)
    f = jax.value_and_grad(tanh_mlp_loss)
    free = jax.jit(f).lower(params, x).compile()
    return f, params, x, free, smallest_peak(f, params, x)


def smallest_peak(f, params, x):
    with pytest.raises(MemoryBudgetError) as e:
        jax.jit(f, memory_budget=1).lower(params, x).compile()
    return e.value.smallest_peak


def test_peak_memory_is_arguments_outputs_temporaries(mlp8):
    free = mlp8[3]
    m = free.memory_analysis()
    assert m.peak_memory_in_bytes == (m.argument_size_in_bytes + m.output_size_in_bytes
                                      - m.alias_size_in_bytes + m.temp_size_in_bytes)


def test_budgets_are_met_and_gradients_unchanged(mlp8):
    f, params, x, free, lowest = mlp8
    p0 = peak(free)
    assert lowest < p0, "recomputation should lower the peak of an 8-layer MLP"
    expected = leaves(free(params, x))
    reference = leaves(jax.jit(f, backend="interpreter")(params, x))
    dots = [n_dots(free)]
    for budget in (p0 - 1, (p0 + lowest) // 2, lowest):
        c = jax.jit(f, memory_budget=budget).lower(params, x).compile()
        assert peak(c) <= budget
        dots.append(n_dots(c))
        got = leaves(c(params, x))
        for g, e, r in zip(got, expected, reference):
            np.testing.assert_allclose(g, e, rtol=2e-6, atol=1e-7)
            # (the interpreter sums in another order: float32 rounding of the sums)
            np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * np.max(np.abs(r)))
    # a tighter budget recomputes more (here: more gemms), never less
    assert dots == sorted(dots) and dots[0] < dots[-1], dots


def test_gradient_under_budget_matches_finite_differences(mlp8):
    f, params, x, _, budget = mlp8
    loss, grads = jax.jit(f, memory_budget=budget)(params, x)
    assert abs(float(loss) - tanh_mlp_loss_np(params, x)) <= 1e-4 * abs(float(loss))
    rng = np.random.default_rng(1)
    for layer in (0, 3, 7):
        for which in (0, 1):   # the weight, the bias
            v = rng.standard_normal(params[layer][which].shape)
            eps = 1e-4

            def at(t, layer=layer, which=which, v=v):
                ps = [[np.asarray(a, np.float64) for a in p] for p in params]
                ps[layer][which] = ps[layer][which] + t * v
                return tanh_mlp_loss_np(ps, x)
            fd = (at(eps) - at(-eps)) / (2 * eps)
            got = float(np.sum(np.asarray(grads[layer][which], np.float64) * v))
            assert abs(got - fd) <= 1e-3 * max(1.0, abs(fd)), (layer, which, got, fd)


def test_deeper_tanh_mlp_within_several_budgets():
    params, x = make_mlp(16, 16, 32, seed=2)
    f = jax.value_and_grad(tanh_mlp_loss)
    free = jax.jit(f).lower(params, x).compile()
    p0, lowest = peak(free), smallest_peak(f, params, x)
    fixed = p0 - free.memory_analysis().temp_size_in_bytes
    assert lowest - fixed <= 0.6 * (p0 - fixed)  # most activations need not be kept
    expected = leaves(free(params, x))
    for budget in (lowest, (lowest + p0) // 2):
        c = jax.jit(f, memory_budget=budget).lower(params, x).compile()
        assert peak(c) <= budget
        for g, e in zip(leaves(c(params, x)), expected):
            np.testing.assert_allclose(g, e, rtol=2e-6, atol=1e-7)


def test_no_budget_or_a_budget_above_the_peak_keeps_the_plan(mlp8):
    f, params, x, free, _ = mlp8
    roomy = jax.jit(f, memory_budget=peak(free)).lower(params, x).compile()
    assert roomy.fusion_summary() == free.fusion_summary()
    assert roomy.memory_analysis() == free.memory_analysis()


def test_unreachable_budget_names_the_smallest_peak(mlp8):
    f, params, x, _, lowest = mlp8
    with pytest.raises(ValueError, match=rf"jit\(tanh_mlp_loss\).*at least {lowest} bytes"):
        jax.jit(f, memory_budget=lowest - 1)(params, x)
    # the peak it names is reachable
    assert peak(jax.jit(f, memory_budget=lowest).lower(params, x).compile()) <= lowest


@pytest.mark.parametrize("text, nbytes", [
    ("2GB", 2 * 10 ** 9), ("512MiB", 512 * 2 ** 20), ("1000000", 10 ** 6),
    (" 1.5 kib ", 1536), ("1e9", 10 ** 9), ("64KB", 64000)])
def test_budget_strings(text, nbytes, monkeypatch):
    assert parse_budget(text) == nbytes
    monkeypatch.setenv("TJIT_MEMORY_BUDGET", text)
    assert jax.jit(tanh_mlp_loss).memory_budget == nbytes
    assert jax.jit(tanh_mlp_loss, memory_budget=123).memory_budget == 123


@pytest.mark.parametrize("text", ["lots", "-5MB", "0", "2 parsecs", "GB", "nan"])
def test_bad_budget_strings(text, monkeypatch):
    monkeypatch.setenv("TJIT_MEMORY_BUDGET", text)
    with pytest.raises(ValueError, match="TJIT_MEMORY_BUDGET"):
        jax.jit(tanh_mlp_loss)
    with pytest.raises(ValueError, match="memory_budget"):
        jax.jit(tanh_mlp_loss, memory_budget=text)


def test_bad_budget_values():
    with pytest.raises(TypeError, match="memory_budget.*list"):
        jax.jit(tanh_mlp_loss, memory_budget=[1])
    with pytest.raises(ValueError, match="positive"):
        jax.jit(tanh_mlp_loss, memory_budget=-1)
    with pytest.raises(ValueError, match="polymorphic_shapes"):
        jax.jit(lambda x: x * 2, memory_budget="1GB", polymorphic_shapes=["(b,)"])
    with pytest.raises(ValueError, match="interpreter"):
        jax.jit(tanh_mlp_loss, memory_budget="1GB", backend="interpreter")


def test_environment_budget_is_applied(mlp8, monkeypatch):
    f, params, x, free, budget = mlp8
    monkeypatch.setenv("TJIT_MEMORY_BUDGET", str(budget))
    c = jax.jit(f).lower(params, x).compile()
    assert peak(c) <= budget < peak(free)
    # (not for the interpreter, which has no buffer plan: a reference still runs)
    assert jax.jit(f, backend="interpreter").memory_budget is None
    monkeypatch.setenv("TJIT_MEMORY_BUDGET", "")
    assert jax.jit(f).memory_budget is None
