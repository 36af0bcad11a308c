"""Temporaries living in output buffers before the outputs are written
(``plan.host_temporaries``, the CPU target's ``temps_in_outputs``).

The same program is planned with and without hosting (the target flag off): results
must be bit-identical, the temporaries smaller, and every placement sound (a hosted
temporary dies before its output is written, and overlaps no other temporary hosted
there while both are alive).
"""

import dataclasses

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit.devices.cpu import CpuExecutable
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import HOST_ALIGN, HOST_MIN_BYTES, LibraryStep
from tjit.xla_like.target import CPU

NO_HOSTING = dataclasses.replace(CPU, temps_in_outputs=False)


def tanh_mlp_loss(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return jnp.sum(h * h)


def make_mlp(layers, width, batch, seed=0):
    rng = np.random.default_rng(seed)
    params = [((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32),
               (0.1 * rng.standard_normal(width)).astype(np.float32))
              for _ in range(layers)]
    return params, rng.standard_normal((batch, width)).astype(np.float32)


def executables(f, *args):
    """(hosting, not hosting) CPU executables of ``f`` at ``args``, and the flat args."""
    closed = jax.make_jaxpr(f)(*args)
    flat = [np.asarray(a) for a in jax.tree_util.tree_leaves(args)]
    return (CpuExecutable(compile_program(closed, CPU)),
            CpuExecutable(compile_program(closed, NO_HOSTING)), flat)


def check_placements(prog):
    """Every hosted temporary dies before its output's writer runs, lies inside the
    output's buffer at an aligned offset, and overlaps no temporary hosted there whose
    live range meets its own."""
    made, last, writer = {}, {}, {}
    for n, s in enumerate(prog.steps):
        for v in s.ins:
            last[v] = n
        for v in s.outs:
            made.setdefault(v, n)
    for o in prog.host_outputs:
        writer[o] = made[o]
        assert not isinstance(prog.steps[made[o]], LibraryStep)
        assert o not in prog.aliases.values()
    spans = {}
    for t, (o, at) in prog.hosted.items():
        size = prog.values[t].nbytes
        assert size >= HOST_MIN_BYTES and at % HOST_ALIGN == 0
        assert 0 <= at and at + size <= prog.values[o].nbytes
        assert prog.values[t].kind == "temp" and t not in prog.slot_of
        life = (made[t], last.get(t, made[t]))
        assert life[1] < writer[o], (t, o, life, writer[o])
        spans.setdefault(o, []).append((life, at, at + size))
    for o, items in spans.items():
        for k, ((a0, a1), lo, hi) in enumerate(items):
            for (b0, b1), lo2, hi2 in items[k + 1:]:
                assert not (a0 <= b1 and b0 <= a1 and lo < hi2 and lo2 < hi), o


def leaves(tree):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(tree)]


def test_mlp_training_step_keeps_activations_in_gradient_buffers():
    params, x = make_mlp(6, 256, 128)        # activations 128 KiB, weights 256 KiB
    f = jax.value_and_grad(tanh_mlp_loss)
    hosting, plain, flat = executables(f, params, x)
    assert hosting.program.hosted and not plain.program.hosted
    check_placements(hosting.program)
    m, m0 = hosting.memory_analysis(), plain.memory_analysis()
    assert m.temp_size_in_bytes <= m0.temp_size_in_bytes // 2, (m, m0)
    assert m.output_size_in_bytes == m0.output_size_in_bytes
    got, expected = hosting.call(flat), plain.call(flat)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and np.array_equal(g, e)      # bit-identical
    # and the values are right (the interpreter sums in another order)
    reference = leaves(jax.jit(f, backend="interpreter")(params, x))
    for g, r in zip(got, reference):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * np.max(np.abs(r)))
    # jit goes through the same plan
    assert jax.jit(f).lower(params, x).compile().memory_analysis() == m


def test_results_of_an_earlier_call_are_not_overwritten():
    params, x = make_mlp(4, 256, 128, seed=1)
    hosting, plain, flat = executables(jax.value_and_grad(tanh_mlp_loss), params, x)
    first = hosting.call(flat)
    kept = [a.copy() for a in first]
    flat2 = [a * 0.5 for a in flat]
    second = hosting.call(flat2)
    for a, k in zip(first, kept):
        assert np.array_equal(a, k)
    for g, e in zip(second, plain.call(flat2)):
        assert np.array_equal(g, e)


def test_two_sgd_steps_in_one_program():
    params, x = make_mlp(4, 256, 128, seed=2)

    def two_steps(params, x):
        for _ in range(2):
            g = jax.grad(tanh_mlp_loss)(params, x)
            params = [(w - 0.05 * gw, b - 0.05 * gb) for (w, b), (gw, gb) in zip(params, g)]
        return params

    hosting, plain, flat = executables(two_steps, params, x)
    assert hosting.program.hosted
    check_placements(hosting.program)
    for g, e in zip(hosting.call(flat), plain.call(flat)):
        assert np.array_equal(g, e)


def test_donated_outputs_host_nothing():
    params, x = make_mlp(3, 256, 128, seed=3)

    def sgd(params, x):
        g = jax.grad(tanh_mlp_loss)(params, x)
        return [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, g)]

    expected = leaves(jax.jit(sgd)(params, x))
    step = jax.jit(sgd, donate_argnums=0)
    prog = step.lower(params, x).compile().executable.program
    assert prog.aliases          # the updated weights are written into the old ones
    assert not prog.host_outputs & set(prog.aliases.values())
    check_placements(prog)
    donated = jax.tree_util.tree_map(jnp.asarray, params)
    for g, e in zip(leaves(step(donated, x)), expected):
        assert np.array_equal(g, e)


def test_small_temporaries_keep_their_slots():
    params, x = make_mlp(3, 16, 32)        # every value far below HOST_MIN_BYTES
    hosting, plain, _ = executables(jax.value_and_grad(tanh_mlp_loss), params, x)
    assert hosting.program.hosted == {}
    assert hosting.memory_analysis() == plain.memory_analysis()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_chains_with_many_outputs(seed):
    """Programs whose intermediates and outputs have mixed sizes and lifetimes: each
    output a function of some earlier values (so temporaries outlive some outputs)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((128, 256)).astype(np.float32)     # 128 KiB
    picks = [tuple(int(k) for k in rng.integers(0, n + 1, size=2)) for n in range(8)]

    def f(x):
        vals, outs = [x], []
        for n, (a, b) in enumerate(picks):
            v = jnp.tanh(vals[a] * 0.9 + vals[b] @ jnp.eye(256, dtype=np.float32) * 0.1)
            vals.append(v)
            if n % 3 == 2:
                outs.append(v + vals[a])
        return outs, jnp.sum(vals[-1])

    hosting, plain, flat = executables(f, x)
    assert hosting.program.hosted
    check_placements(hosting.program)
    for g, e in zip(hosting.call(flat), plain.call(flat)):
        assert np.array_equal(g, e)


def test_gemms_sharing_memory_are_not_grouped():
    """Side-by-side gemms (cpu._group_dots) must not write memory a partner uses: an
    output hosting a temporary overlaps it, and so do two values of one slot."""
    from tjit.devices.cpu import _overlaps

    params, x = make_mlp(4, 256, 128, seed=4)
    hosting, _, _ = executables(jax.value_and_grad(tanh_mlp_loss), params, x)
    prog = hosting.program
    t, (o, _) = next(iter(prog.hosted.items()))
    assert _overlaps(prog, [o], [t]) and _overlaps(prog, [t], [o])
    assert not _overlaps(prog, [o], [prog.params[0]])
    others = [v for v, (o2, _) in prog.hosted.items() if o2 != o]
    assert not any(_overlaps(prog, [o], [v]) for v in others)
    by_slot = {}
    for v, slot in prog.slot_of.items():
        by_slot.setdefault(slot, []).append(v)
    shared = next(vs for vs in by_slot.values() if len(vs) > 1)
    assert _overlaps(prog, shared[:1], shared[1:])
