"""Fusion decisions on known patterns, through the public inspection API
(``jit(f).lower(...).compile()``: ``fusion_summary``, ``kernels``, ``memory_analysis``),
and each program's results against the reference interpreter."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import nn
from tjit.lower.llvm.split import split_axis


def mish(x):
    return x * jnp.tanh(jnp.log1p(jnp.exp(x)))


def layernorm(x, w, b):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5) * w + b


def block(w, d, X, Y, s):
    Xw, Xd = X @ w, X @ d
    out = 1 - Y * (Xw + s * Xd)
    sv = out > 0
    out = out * sv
    g = w @ d + s * (d @ d) - jnp.sum(out * Y * Xd)
    h = d @ d + jnp.sum(Xd * sv * Xd)
    return g, h


def compiled(f, *args, **kw):
    return tjit.jit(f, **kw).lower(*args).compile()


def kinds(c):
    return [k for k, _ in c.fusion_summary()]


def check_against_interpreter(f, *args, rtol=2e-5, atol=1e-6):
    got = tjit.jit(f)(*args)
    want = tjit.jit(f, backend="interpreter")(*args)
    for g, w in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


@pytest.fixture
def x():
    return np.random.RandomState(0).randn(16, 64).astype(np.float32) * 3


def test_mish_forward_is_one_kernel(x):
    c = compiled(mish, x)
    assert kinds(c) == ["kernel"]
    check_against_interpreter(mish, x)


def test_mish_grad_is_one_kernel_without_temporaries(x):
    f = tjit.grad(lambda x: jnp.sum(mish(x)))
    c = compiled(f, x)
    assert kinds(c) == ["kernel"]
    mem = c.memory_analysis()
    assert mem.temp_size_in_bytes < x.nbytes, mem  # forward values recomputed, not stored
    assert mem.output_size_in_bytes == x.nbytes
    check_against_interpreter(f, x)


def test_mish_value_and_grad_stays_small(x):
    f = tjit.value_and_grad(lambda x: jnp.sum(mish(x)))
    c = compiled(f, x)
    assert kinds(c).count("kernel") <= 2
    assert c.memory_analysis().temp_size_in_bytes < x.nbytes
    check_against_interpreter(f, x, rtol=1e-4)


@pytest.mark.parametrize("fn", [lambda x: nn.softmax(x, axis=-1),
                                lambda x: nn.log_softmax(x, axis=-1)])
def test_softmax_at_most_two_kernels(fn, x):
    assert kinds(compiled(fn, x)).count("kernel") <= 2
    check_against_interpreter(fn, x)
    g = tjit.grad(lambda x: jnp.sum(fn(x) * jnp.cos(x)))
    assert kinds(compiled(g, x)).count("kernel") <= 2
    check_against_interpreter(g, x, rtol=1e-4, atol=1e-5)


def test_layernorm_forward_and_backward_at_most_two_kernels(x):
    w = np.linspace(0.5, 1.5, 64).astype(np.float32)
    b = np.linspace(-1, 1, 64).astype(np.float32)
    assert kinds(compiled(layernorm, x, w, b)).count("kernel") <= 2
    check_against_interpreter(layernorm, x, w, b, rtol=1e-4, atol=1e-5)
    g = tjit.grad(lambda x, w, b: jnp.sum(layernorm(x, w, b) * x), argnums=(0, 1, 2))
    assert kinds(compiled(g, x, w, b)).count("kernel") <= 2
    check_against_interpreter(g, x, w, b, rtol=1e-3, atol=1e-3)


def test_block_two_kernels_plus_library_calls():
    rng = np.random.RandomState(1)
    n = 1000
    X = rng.randn(n, 8).astype(np.float32)
    Y = np.sign(rng.randn(n)).astype(np.float32)
    w, d = rng.randn(8).astype(np.float32), rng.randn(8).astype(np.float32)
    c = compiled(block, w, d, X, Y, np.float32(0.3))
    k = kinds(c)
    assert k.count("kernel") <= 2 and set(k) <= {"kernel", "dot"}, k
    check_against_interpreter(block, w, d, X, Y, np.float32(0.3), rtol=1e-4, atol=1e-3)


def test_broadcast_exp_vector_is_materialized_not_recomputed_per_row():
    # exp(v) broadcast along the leading axis of a big matrix: recomputing it per row
    # costs 3 units x rows; storing it costs 8 bytes per element of v.
    v = np.linspace(-1, 1, 256).astype(np.float32)
    m = np.ones((512, 256), np.float32)
    f = lambda v, m: m * jnp.exp(v) + jnp.exp(v)[None, :] * 2  # noqa: E731
    c = compiled(f, v, m)
    text = c.as_text()
    assert kinds(c).count("kernel") == 2, text  # exp(v) once, then the broadcast product
    check_against_interpreter(f, v, m)


def test_row_broadcast_along_trailing_axis_is_recomputed():
    # a per-row value broadcast along the trailing axis is hoisted by LICM: free to inline
    r = np.linspace(-1, 1, 64).astype(np.float32)
    m = np.ones((64, 128), np.float32)
    f = lambda r, m: m * jnp.exp(r)[:, None]  # noqa: E731
    assert kinds(compiled(f, r, m)) == ["kernel"]
    check_against_interpreter(f, r, m)


def test_sibling_outputs_share_one_kernel(x):
    f = lambda x: (jnp.sin(x) * 2, jnp.cos(x) + 1, x * x)  # noqa: E731
    c = compiled(f, x)
    assert kinds(c) == ["kernel"]
    (k,) = c.kernels()
    assert len([a for a in k.args if a.role == "out"]) == 3
    check_against_interpreter(f, x)


def test_column_reduction_uses_accumulate_style(x):
    f = lambda x: jnp.sum(x * x, axis=0)  # noqa: E731
    (k,) = compiled(f, x).kernels()
    assert not k.row_style and k.reduce_axes == (0,)
    check_against_interpreter(f, x)


def test_dot_with_fused_epilogue():
    rng = np.random.RandomState(2)
    x = rng.randn(32, 16).astype(np.float32)
    w = rng.randn(16, 8).astype(np.float32)
    b = rng.randn(8).astype(np.float32)
    f = lambda x, w, b: jnp.tanh(x @ w + b)  # noqa: E731
    assert kinds(compiled(f, x, w, b)) == ["dot", "kernel"]
    check_against_interpreter(f, x, w, b)


def test_as_text_shows_program_kernels_and_llvm(x):
    c = compiled(mish, x)
    text = c.as_text()
    assert "fused kernels" in text and "kernel fusion_0" in text
    assert "define" in c.as_text(llvm=True)


def test_relu_mlp_grad_plans_without_cycles():
    # once failed with "cyclic dependency between fused kernels": a sibling merge joined
    # a value feeding a dot with a kernel consuming a later dot's output
    rng = np.random.RandomState(5)
    x = rng.randn(16, 32).astype(np.float32)
    w = rng.randn(32, 32).astype(np.float32) * 0.2
    w2 = rng.randn(32, 8).astype(np.float32) * 0.2
    f = tjit.grad(lambda w: jnp.sum((jnp.maximum(x @ w, 0.0) @ w2) ** 2))
    check_against_interpreter(f, w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(300_000,), (600, 500), (40_000, 3), (5, 7, 1000)])
@pytest.mark.parametrize("monoid", ["sum", "max"])
def test_full_reduction_of_a_large_array_is_a_parallel_row_pass(shape, monoid):
    x = np.random.RandomState(5).randn(*shape).astype(np.float32)
    red = getattr(jnp, monoid)
    f = lambda x: red(jnp.exp(x) * 0.5 - x)  # noqa: E731
    c = compiled(f, x)
    ks = c.kernels()
    assert kinds(c) == ["kernel", "kernel"]
    assert split_axis(ks[0]) == 0 and ks[0].shape[0] > 1  # the big pass is split
    assert c.memory_analysis().temp_size_in_bytes < x.nbytes // 8  # only row partials
    want = getattr(np, monoid)(np.exp(x.astype(np.float64)) * 0.5 - x)
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x)), want, rtol=2e-6)


def test_small_and_prime_sized_full_reductions_stay_one_kernel():
    for n in (1000, 1_000_003):  # below the threshold; a prime has no row split
        x = np.linspace(-1, 1, n, dtype=np.float32)
        c = compiled(lambda x: jnp.sum(x * x), x)
        assert kinds(c) == ["kernel"]
        np.testing.assert_allclose(np.asarray(tjit.jit(lambda x: jnp.sum(x * x))(x)),
                                   np.sum(x.astype(np.float64) ** 2), rtol=1e-5)


def test_transposed_dot_operand_is_read_in_place():
    rng = np.random.RandomState(6)
    x, u, v = (rng.rand(*s).astype(np.float32) for s in ((300, 200), (300, 20), (200, 20)))
    f = lambda x, u, v: jnp.sum(x * jnp.log(u @ v.T + 1e-15))  # noqa: E731
    c = compiled(f, x, u, v)
    assert kinds(c) == ["dot", "kernel", "kernel"]  # no transpose copy of v
    want = np.sum(x * np.log(u.astype(np.float64) @ v.T + 1e-15))
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x, u, v)), want, rtol=1e-5)


def test_gathers_fuse_with_their_index_math_and_consumers():
    """x[idx] and take(..., mode='fill') are indexed loads inside one kernel (the index
    normalization, the gather and the elementwise consumer), not library calls."""
    rng = np.random.RandomState(7)
    emb = rng.randn(100, 16).astype(np.float32)
    tok = rng.randint(-120, 120, size=(8, 12)).astype(np.int32)
    pos = rng.randn(12, 16).astype(np.float32)
    f = lambda e, t, p: e[t] * 4.0 + p  # noqa: E731
    g = lambda e, t, p: jnp.take(e, t, axis=0, mode="fill", fill_value=0.0) + p  # noqa
    for fn in (f, g):
        assert kinds(compiled(fn, emb, tok, pos)) == ["kernel"]
        check_against_interpreter(fn, emb, tok, pos, rtol=0, atol=0)
    t64 = np.clip(np.where(tok < 0, tok + 100, tok), 0, 99)
    np.testing.assert_array_equal(np.asarray(tjit.jit(f)(emb, tok, pos)), emb[t64] * 4 + pos)
    norm = np.where(tok < 0, tok + 100, tok)   # negative indices count from the end
    inb = (norm >= 0) & (norm < 100)
    want = np.where(inb[..., None], emb[np.clip(norm, 0, 99)], 0.0) + pos
    np.testing.assert_array_equal(np.asarray(tjit.jit(g)(emb, tok, pos)), want)


@pytest.mark.parametrize("mode", ["drop", "clip"])
def test_single_row_scatters_are_masked_elementwise_kernels(mode):
    """x.at[i].set/add/mul/min/max(v) with one index: one kernel, NumPy's results for
    indices inside, below and beyond the rows (dropped or clamped per mode)."""
    rng = np.random.RandomState(8)
    x = rng.randn(5, 3).astype(np.float32)
    v = rng.randn(3).astype(np.float32)
    ops = {"set": lambda r, u: u, "add": np.add, "multiply": np.multiply,
           "min": np.minimum, "max": np.maximum}
    for name, combine in ops.items():
        f = lambda x, i, v, name=name: getattr(x.at[i], name)(v, mode=mode)  # noqa: E731
        assert kinds(compiled(f, x, np.int32(1), v)) == ["kernel"], name
        for i in (-7, 0, 4, 5, 9):   # (x.at[i] counts negatives from the end first)
            want = x.copy()
            j = i + 5 if -5 <= i < 0 else i
            j = min(max(j, 0), 4) if mode == "clip" else j
            if 0 <= j < 5:
                want[j] = combine(x[j], v)
            np.testing.assert_array_equal(np.asarray(tjit.jit(f)(x, np.int32(i), v)), want,
                                          err_msg=f"{name} at {i}")
