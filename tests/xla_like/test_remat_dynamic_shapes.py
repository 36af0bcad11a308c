"""jit(memory_budget=...) with automatic dynamic shapes: the dynamic program serves the
batch sizes where its plain plan's peak fits the budget; a larger size gets the dynamic
program planned within the budget at its sizes (xla_like/remat.py), which serves every
size where its own peak fits; a size no plan can fit raises MemoryBudgetError naming
the shapes. Peaks are read from memory_analysis() of the program a call of that size
ran; gradients are checked against the unbudgeted program and the reference
interpreter."""

import logging

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit.xla_like.remat import MemoryBudgetError

WIDTH, LAYERS = 32, 8


def tanh_mlp_loss(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return jnp.sum(h ** 2)


def _params(seed=0):
    rng = np.random.default_rng(seed)
    return [((rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32),
             (0.1 * rng.standard_normal(WIDTH)).astype(np.float32)) for _ in range(LAYERS)]


def _batch(b, seed=1):
    return np.random.default_rng(seed + b).standard_normal((b, WIDTH)).astype(np.float32)


def _program_of_call(jitted, b):
    """(the entry calls with batch ``b`` ran, from the jit's cache; its peak there)."""
    (entry,) = {id(e): e for k, e in jitted._cache.items()
                if len(k) == 6 and k[1][-1][0] == (b, WIDTH)}.values()
    sizes = {p: b for spec in entry.in_specs or () if spec for p in spec
             if type(p) is not int}
    return entry, entry.executable.memory_analysis(sizes).peak_memory_in_bytes


def _leaves(tree):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(tree)]


@pytest.fixture(scope="module")
def setup():
    params, f = _params(), jax.value_and_grad(tanh_mlp_loss)
    free = jax.jit(f, dynamic_shapes=False)
    plain = {b: free.lower(params, _batch(b)).compile().memory_analysis().peak_memory_in_bytes
             for b in (16, 64)}
    with pytest.raises(MemoryBudgetError) as e:
        jax.jit(f, memory_budget=1, dynamic_shapes=False)(params, _batch(64))
    # a budget that the plain plan meets at small batches, recomputation at 64
    budget = (e.value.smallest_peak + plain[64]) // 2
    assert plain[16] < budget < plain[64]
    return f, params, budget


def test_budget_holds_at_every_batch_size_and_gradients_are_unchanged(setup, caplog):
    f, params, budget = setup
    budgeted = jax.jit(f, memory_budget=budget)
    free = jax.jit(f)
    reference = jax.jit(f, backend="interpreter", dynamic_shapes=False)
    sizes = (16, 20, 24, 64, 40, 64, 18, 60, 66)
    jax.config.update("log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tjit.compiles"):
            results = {b: budgeted(params, _batch(b)) for b in sizes}
    finally:
        jax.config.update("log_compiles", False)
    # 16 concrete; 20 dynamic (serves 24, 40, 18 and 60, whose plain peak fits); 64 over
    # the budget: the dynamic program planned within it at 64 (no trace), serving 66 too
    assert budgeted.trace_count == 2 and budgeted.compile_count == 3
    assert "over memory_budget" in caplog.text
    assert "the dynamic program planned within the budget at these sizes" in caplog.text
    programs = {}
    for b in sorted(set(sizes)):
        x = _batch(b)
        entry, peak = _program_of_call(budgeted, b)
        assert peak <= budget, b
        programs.setdefault(id(entry), []).append(b)
        got, want = _leaves(results[b]), _leaves(free(params, x))
        for g, w, r in zip(got, want, _leaves(reference(params, x))):
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)
            np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * np.max(np.abs(r)))
    assert sorted(programs.values()) == [[16], [18, 20, 24, 40, 60], [64, 66]]


def test_a_size_no_plan_fits_names_its_shapes_and_smaller_sizes_still_run(setup):
    f, params, budget = setup
    budgeted = jax.jit(f, memory_budget=budget)
    budgeted(params, _batch(16))
    budgeted(params, _batch(24))
    shapes = r"input shapes \(32, 32\) x8, \(32,\) x8, \(512, 32\)"
    with pytest.raises(MemoryBudgetError, match="cannot be met.*" + shapes):
        budgeted(params, _batch(512))
    loss, _ = budgeted(params, _batch(30))      # the dynamic program still serves
    np.testing.assert_allclose(loss, jax.jit(f)(params, _batch(30))[0], rtol=2e-6)
    assert budgeted.compile_count == 2


def test_compiled_peak_function_agrees_with_memory_analysis(setup):
    # the per-size budget check evaluates one compiled expression of the sizes; each
    # byte count evaluated on its own (memory_analysis) is the reference
    from tjit.xla_like.remat import peak_function

    f, params, _ = setup
    programs = [(jax.jit(f), lambda b: (params, _batch(b))),
                (jax.jit(lambda x: (x[: x.shape[0] // 3] * 2.0, jnp.cumsum(x[1:], 0))),
                 lambda b: (_batch(b),))]
    for jitted, args in programs:
        jitted(*args(16))
        jitted(*args(21))
        c = jitted.lower(*args(21)).compile()
        (sym,) = c.executable.symbols
        symbols, peak = peak_function(c.executable.program)
        assert [s.name for s in symbols] == [sym.name]
        for b in range(2, 400, 7):
            assert peak(b) == c.memory_analysis(**{sym.name: b}).peak_memory_in_bytes, b
