"""W-lane reductions that read memory a beat a step: accumulate-style kernels (column
sums: the reduced axes lead) take W kept points a step in row-major order, each kept
point folding its terms in increasing reduced index (bit for bit a sequential float
loop; ``lanes.render_columns``), and a row-style reduction whose row is too long for
a row buffer takes W points a step straight from memory (``lanes.row_len``). C
simulation against loops in the element dtype and the interpreter; the estimate."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import hls_compile
from tjit.lower.c import streams

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _columns(x):
    return jnp.sum(x, axis=0), jnp.max(x * 2, axis=0)


def _loop_columns(x):
    """Column sums and maxima folded row by row in x's dtype."""
    s = np.zeros(x.shape[1], x.dtype)
    m = np.full(x.shape[1], -np.inf, x.dtype)
    for row in x:
        s = s + row
        m = np.maximum(m, row * 2)
    return s, m


def _kernel_stages(c):
    (d,) = c.executable.designs.values()
    return [st for st in d.stages if st.kind == "kernel"]


@pytest.mark.parametrize("dtype,w", [("float32", 16), ("float64", 8)])
def test_column_reductions_take_w_kept_points_a_step_bit_for_bit(dtype, w, request):
    if dtype == "float64":
        request.getfixturevalue("x64")
    # 5 beats a row: a kept point comes back after the adder's latency (II = 1)
    x = np.random.default_rng(0).standard_normal((37, 5 * w)).astype(dtype)
    c = tjit.jit(_columns).lower(x).compile(backend="hls")
    assert [st.lanes for st in _kernel_stages(c)] == [w]
    for got, want in zip(c(x), _loop_columns(x)):
        np.testing.assert_array_equal(np.asarray(got), want)
    (de,) = c.hls_report().designs
    (e,) = [e for e in de.stages if e.kind == "kernel"]
    assert (e.trip, e.ii) == (37 * 5, 1)


def test_symbolic_row_count_and_no_rows():
    g = tjit.jit(_columns, polymorphic_shapes=["(b, 32)"])
    c = g.lower(np.zeros((3, 32), np.float32)).compile(backend="hls")
    assert [st.lanes for st in _kernel_stages(c)] == [16]
    for b in (1, 5, 0):
        x = np.random.default_rng(b).standard_normal((b, 32)).astype(np.float32)
        for got, want in zip(c(x), _loop_columns(x)):
            np.testing.assert_array_equal(np.asarray(got), want)


def test_few_kept_points_raise_the_ii_in_the_estimate():
    """16 columns: a kept point's accumulator comes back every step, sooner than the
    adder's latency, so the estimate's II is the latency (the design is still right)."""
    x = np.random.default_rng(1).standard_normal((9, 16)).astype(np.float32)
    c = tjit.jit(lambda v: jnp.sum(v, axis=0)).lower(x).compile(backend="hls")
    (e,) = [e for e in c.hls_report().designs[0].stages if e.kind == "kernel"]
    assert e.ii > 1
    np.testing.assert_array_equal(np.asarray(c(x)), _loop_columns(x)[0])


def test_row_longer_than_a_row_buffer_reads_beats_of_memory():
    n = streams.MAX_ROW + 16 * 4
    x = np.random.default_rng(2).standard_normal((2, n // 2)).astype(np.float32)
    g = np.random.default_rng(3).standard_normal(n // 2).astype(np.float32)
    f = lambda x, g: jnp.sum(x * g)
    c = tjit.jit(f).lower(x, g).compile(backend="hls")
    assert [st.lanes for st in _kernel_stages(c)] == [16]
    want = tjit.jit(f, backend="interpreter")(x, g)
    np.testing.assert_allclose(float(c(x, g)), float(want), rtol=1e-5)


def test_layernorm_grads_of_scale_and_shift_are_wide_columns():
    """The column sums of layernorm's backward pass (d gamma, d beta) take 16 lanes and
    match the interpreter."""
    def loss(x, g, b, t):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
        return jnp.mean(((x - m) / jnp.sqrt(v + 1e-5) * g + b - t) ** 2)

    f = tjit.value_and_grad(loss, argnums=(0, 1, 2))
    rng = np.random.default_rng(4)
    args = [rng.standard_normal(s).astype(np.float32) for s in [(8, 64), (64,), (64,), (8, 64)]]
    c = tjit.jit(f).lower(*args).compile(backend="hls")
    cols = [st for st in _kernel_stages(c) if not st.kernel.row_style]
    assert cols and all(st.lanes == 16 for st in cols)
    (value, (dx, dg, db)) = c(*args)
    (wv, (wdx, wdg, wdb)) = tjit.jit(f, backend="interpreter")(*args)
    np.testing.assert_allclose(float(value), float(wv), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(dx), np.asarray(wdx), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(np.asarray(dg), np.asarray(wdg), rtol=2e-5, atol=2e-7)
    np.testing.assert_allclose(np.asarray(db), np.asarray(wdb), rtol=2e-5, atol=2e-7)
