"""jit(memory_budget=...) through loops over layers (lax.scan, fori_loop): when the saved
per-iteration residuals exceed the budget, the program is traced again with each scan
body checkpointed (transforms/loop_remat.py: each iteration's carry is kept and the rest
recomputed in the backward loop, as jax.checkpoint on the body). Peaks are read from
memory_analysis(); gradients are checked against the unbudgeted program, the reference
interpreter and central finite differences of a float64 NumPy model."""

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import lax
from tjit.xla_like.remat import MemoryBudgetError

LAYERS, WIDTH, BATCH = 12, 16, 48


def _layer(h, wb):
    w, b = wb
    return jnp.tanh(h @ w + b), None


def scan_loss(ws, bs, x):
    h, _ = lax.scan(_layer, x, (ws, bs))
    return jnp.sum(h ** 2)


def fori_loss(ws, bs, x):
    h = lax.fori_loop(0, ws.shape[0], lambda i, h: _layer(h, (ws[i], bs[i]))[0], x)
    return jnp.sum(h ** 2)


def checkpointed_loss(ws, bs, x):
    h, _ = lax.scan(jax.checkpoint(_layer), x, (ws, bs))
    return jnp.sum(h ** 2)


def numpy_loss(ws, bs, x):
    h = x.astype(np.float64)
    for w, b in zip(ws, bs):
        h = np.tanh(h @ w.astype(np.float64) + b)
    return float(np.sum(h ** 2))


def _data(seed=0):
    rng = np.random.default_rng(seed)
    ws = (rng.standard_normal((LAYERS, WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
    bs = (0.1 * rng.standard_normal((LAYERS, WIDTH))).astype(np.float32)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    return ws, bs, x


def _peak(jitted, *args):
    return jitted.lower(*args).compile().memory_analysis().peak_memory_in_bytes


def _leaves(tree):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(tree)]


@pytest.fixture(scope="module")
def peaks():
    args = _data()
    grad = jax.value_and_grad(checkpointed_loss, argnums=(0, 1))
    plain = _peak(jax.jit(jax.value_and_grad(scan_loss, argnums=(0, 1))), *args)
    by_hand = _peak(jax.jit(grad), *args)
    assert by_hand < plain
    return plain, by_hand


@pytest.mark.parametrize("loss", [scan_loss, fori_loss], ids=["scan", "fori_loop"])
def test_scan_residuals_are_recomputed_to_meet_the_budget(loss, peaks):
    plain, by_hand = peaks
    args = _data()
    f = jax.value_and_grad(loss, argnums=(0, 1))
    budget = (plain + by_hand) // 2
    budgeted = jax.jit(f, memory_budget=budget)
    got = budgeted(*args)
    assert _peak(budgeted, *args) <= budget < _peak(jax.jit(f), *args)
    free = jax.jit(f)(*args)
    reference = jax.jit(f, backend="interpreter")(*args)
    for g, w, r in zip(_leaves(got), _leaves(free), _leaves(reference)):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * np.max(np.abs(r)))


def test_gradient_under_the_budget_matches_finite_differences(peaks):
    _, by_hand = peaks
    ws, bs, x = _data()
    loss, (gw, gb) = jax.jit(jax.value_and_grad(scan_loss, argnums=(0, 1)),
                             memory_budget=by_hand)(ws, bs, x)
    assert abs(float(loss) - numpy_loss(ws, bs, x)) <= 1e-4 * abs(float(loss))
    rng, eps = np.random.default_rng(1), 1e-4
    for which, (grad, base) in enumerate(((gw, ws), (gb, bs))):
        v = rng.standard_normal(base.shape)

        def at(t, which=which, v=v):
            p = [ws.astype(np.float64), bs.astype(np.float64)]
            p[which] = p[which] + t * v
            return numpy_loss(p[0], p[1], x)
        fd = (at(eps) - at(-eps)) / (2 * eps)
        got = float(np.sum(np.asarray(grad, np.float64) * v))
        assert abs(got - fd) <= 1e-3 * max(1.0, abs(fd)), (which, got, fd)


def test_a_budget_the_saved_residuals_meet_traces_once(peaks):
    plain, _ = peaks
    f = jax.jit(jax.value_and_grad(scan_loss, argnums=(0, 1)), memory_budget=plain)
    f(*_data())
    assert f.trace_count == 1


def test_an_unreachable_budget_names_the_smallest_peak_with_recomputed_bodies(peaks):
    _, by_hand = peaks
    f = jax.jit(jax.value_and_grad(scan_loss, argnums=(0, 1)), memory_budget=1000)
    with pytest.raises(MemoryBudgetError, match="jit\\(scan_loss\\).*cannot be met") as e:
        f(*_data())
    assert e.value.smallest_peak <= by_hand


# -- scans split into checkpointed chunks (the budget's last resort for loops) -------------
def _scans(reverse):
    def with_ys(ws, bs, x):
        def body(h, wb):
            h2 = jnp.tanh(h @ wb[0] + wb[1])
            return h2, jnp.sum(h2, 1)
        h, ys = lax.scan(body, x, (ws, bs), reverse=reverse)
        return jnp.sum(h ** 2) + jnp.sum(ys * jnp.arange(ys.shape[0])[:, None])

    def no_xs(ws, bs, x):
        h, _ = lax.scan(lambda h, _: (jnp.tanh(h @ ws[0] + bs[1]), None), x, None,
                        length=LAYERS, reverse=reverse)
        return jnp.sum(h ** 2)
    return {"ys": with_ys, "no xs": no_xs, "fori_loop": fori_loss}


@pytest.mark.parametrize("reverse", [False, True])
def test_chunked_scans_compute_what_the_scan_computes(reverse):
    from tjit.transforms.loop_remat import chunk_length, rematerialized_scan_bodies

    args = _data(3)
    for name, loss in _scans(reverse).items():
        f = jax.value_and_grad(loss, argnums=(0, 1))
        reference = jax.jit(f, backend="interpreter")(*args)
        with rematerialized_scan_bodies(chunks=True):
            assert chunk_length(LAYERS) == 3
            jaxpr = str(jax.make_jaxpr(f)(*args))
            got = jax.jit(f)(*args)
        assert "checkpoint" in jaxpr and "length=3" in jaxpr and "length=4" in jaxpr, name
        for g, r in zip(_leaves(got), _leaves(reference)):
            np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * np.max(np.abs(r)))


def test_a_budget_only_chunks_meet_is_met():
    from tjit.transforms.loop_remat import rematerialized_scan_bodies

    rng = np.random.default_rng(4)
    n = 36
    ws = (rng.standard_normal((n, WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
    bs = np.zeros((n, WIDTH), np.float32)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    f = jax.value_and_grad(scan_loss, argnums=(0, 1))
    bodies = _peak(jax.jit(jax.value_and_grad(checkpointed_loss, argnums=(0, 1))), ws, bs, x)
    with rematerialized_scan_bodies(chunks=True):
        chunked = _peak(jax.jit(f), ws, bs, x)
    assert chunked < bodies
    budget = (chunked + bodies) // 2
    budgeted = jax.jit(f, memory_budget=budget)
    got = budgeted(ws, bs, x)
    assert _peak(budgeted, ws, bs, x) <= budget
    for g, w in zip(_leaves(got), _leaves(jax.jit(f)(ws, bs, x))):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)
