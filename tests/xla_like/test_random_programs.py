"""Random fused programs: the compiled CPU path against the reference interpreter and
NumPy (float64).

Hypothesis draws a small program over 1-3 inputs of broadcast-compatible shapes: a
sequence of elementwise ops (bounded ones, so values stay finite; integer and boolean
detours), reductions over random axes (with and without keepdims, then broadcast back
against full-size values), cumulative sums, argmax, concatenation, gathers, loops (compiled
bodies), transposes, strided slices and reshapes, with one or two of the values as outputs. The
same program text runs on ``tjit.numpy`` under ``jit`` (fused LLVM kernels: fusion,
rematerialization and multi-output decisions all vary with the program) and under
``jit(backend="interpreter")``, and on NumPy in float64.

Deterministic: the "ci" hypothesis profile of tests/conftest.py is derandomized.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tjit
import tjit.numpy as jnp

UNARY = {
    "tanh": lambda m, x: m.tanh(x),
    "sin": lambda m, x: m.sin(x),
    "exp_tanh": lambda m, x: m.exp(m.tanh(x)),
    "log1p_abs": lambda m, x: m.log1p(m.abs(x)),
    "sqrt_abs": lambda m, x: m.sqrt(m.abs(x)),
    "square": lambda m, x: x * x,
    "neg": lambda m, x: -x,
    "logistic": lambda m, x: 1 / (1 + m.exp(-m.tanh(x))),
    "scale": lambda m, x: x * 0.5 + 0.25,
    "clip": lambda m, x: m.clip(x, -0.5, 0.75),
    # integer and boolean detours: floor division and remainder of negative numbers,
    # float->int truncation, comparisons as masks
    "int_ops": lambda m, x: ((m.floor(x * 8).astype(m.int32) // 3) % 5).astype(m.float32),
    "mask": lambda m, x: (x > 0.1).astype(m.float32) * x,
    "cumsum": lambda m, x: m.cumsum(x, axis=-1) if x.ndim else x,
}
BINARY = {
    "add": lambda m, x, y: x + y,
    "sub": lambda m, x, y: x - y,
    "mul": lambda m, x, y: x * y,
    "max": lambda m, x, y: m.maximum(x, y),
    "min": lambda m, x, y: m.minimum(x, y),
    "where": lambda m, x, y: m.where(x > y, x, y * 0.5),
    "div": lambda m, x, y: x / (1 + m.abs(y)),
}
REDUCE = ("sum", "max", "mean", "min")


@st.composite
def programs(draw):
    rank = draw(st.integers(1, 3))
    base = tuple(draw(st.sampled_from([1, 2, 3, 5, 8, 17])) for _ in range(rank))
    n_in = draw(st.integers(1, 3))
    inputs = []
    for _ in range(n_in):  # trailing-aligned, some dims broadcast (1) or dropped
        keep = draw(st.integers(max(1, rank - 1), rank))
        shape = tuple(d if draw(st.booleans()) or d == 1 else 1 for d in base[rank - keep:])
        inputs.append(shape if any(d > 1 for d in shape) or draw(st.booleans()) else base)
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "reduce", "layout",
                                     "index", "loop"]))
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(sorted(UNARY)))))
        elif kind == "binary":
            steps.append(("binary", draw(st.sampled_from(sorted(BINARY))),
                          draw(st.integers(0, 50))))
        elif kind == "reduce":
            steps.append(("reduce", draw(st.sampled_from(REDUCE)), draw(st.integers(0, 2)),
                          draw(st.booleans())))
        elif kind == "loop":
            steps.append(("loop", draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, 3))))
        elif kind == "index":
            steps.append(("index", draw(st.sampled_from(["argmax", "concat", "take"])),
                          draw(st.integers(0, 2))))
        else:
            steps.append(("layout", draw(st.sampled_from(["T", "slice", "flip_reshape"])),
                          draw(st.integers(0, 2))))
    n_out = draw(st.integers(1, 2))
    return inputs, steps, n_out


def run(m, inputs, steps, n_out):
    """Execute the program with array module ``m`` (numpy or tjit.numpy)."""
    pool = list(inputs)
    for step in steps:
        x = pool[-1]
        if step[0] == "unary":
            pool.append(UNARY[step[1]](m, x))
        elif step[0] == "binary":
            y = _compatible(pool, x, step[2])
            pool.append(BINARY[step[1]](m, x, y))
        elif step[0] == "reduce" and x.ndim:
            _, name, axis, keepdims = step
            pool.append(getattr(m, name)(x, axis=axis % x.ndim, keepdims=keepdims))
        elif step[0] == "layout" and x.ndim:
            pool.append(_layout(m, x, step[1], step[2]))
        elif step[0] == "loop":
            pool.append(_loop(m, x, UNARY[step[1]], step[2]))
        elif step[0] == "index" and x.ndim:
            pool.append(_index(m, x, step[1], step[2]))
    return [pool[-1]] + ([pool[len(inputs) + len(pool) // 3 - 1]] if n_out > 1 and
                         len(pool) > len(inputs) else [])


def _compatible(pool, x, pick):
    """A value of the pool that broadcasts against ``x`` without growing it."""
    options = [v for v in pool if v.ndim <= x.ndim and all(
        a in (1, b) for a, b in zip(v.shape[::-1], x.shape[::-1]))]
    return options[pick % len(options)]


def _layout(m, x, kind, axis):
    axis %= x.ndim
    if kind == "T":
        return m.transpose(x)
    if kind == "slice":
        return x[(slice(None),) * axis + (slice(None, None, 2),)]
    flat = m.reshape(x, (-1,))
    return m.reshape(flat[::-1], x.shape)


def _loop(m, x, op, trips):
    """A fori_loop (a scan of ``trips`` steps under tjit) around ``op``."""
    body = lambda i, c: op(m, c) * 0.5 + c * 0.25 + 0.01 * i  # noqa: E731
    if m is np:
        for i in range(trips):
            x = body(i, x)
        return x
    return tjit.lax.fori_loop(0, jnp.int32(trips), body, x)


def _index(m, x, kind, axis):
    axis %= x.ndim
    if kind == "argmax":   # float32 indices, broadcast back along the reduced axis
        return m.expand_dims(m.argmax(x, axis=axis), axis).astype(m.float32) + x * 0.0
    if kind == "concat":
        return m.concatenate([x, x * 0.5], axis=axis)
    n = x.shape[axis]      # a gather: reversed odd positions
    return m.take(x, np.arange(n - 1, -1, -2), axis=axis)


def _inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


@settings(max_examples=120, deadline=None)
@given(programs(), st.integers(0, 2**16))
def test_random_program_compiled_matches_interpreter_and_numpy(program, seed):
    shapes, steps, n_out = program
    args = _inputs(shapes, seed)
    f = lambda *a: run(jnp, a, steps, n_out)  # noqa: E731
    got = tjit.jit(f)(*args)
    interp = tjit.jit(f, backend="interpreter")(*args)
    want = run(np, [a.astype(np.float64) for a in args], steps, n_out)
    for g, i, w in zip(got, interp, want):
        g, i, w = np.asarray(g), np.asarray(i), np.asarray(w)
        assert g.shape == w.shape and g.dtype == np.float32, (g.shape, w.shape, g.dtype)
        scale = 1 + float(np.max(np.abs(w[np.isfinite(w)]), initial=0))
        np.testing.assert_allclose(g, i, rtol=1e-4, atol=2e-5 * scale,
                                   err_msg=f"compiled vs interpreter: {steps}")
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4 * scale,
                                   err_msg=f"compiled vs NumPy float64: {steps}")


@settings(max_examples=80, deadline=None)
@given(programs(), st.integers(0, 2**16))
def test_random_program_gradient_compiled_matches_interpreter(program, seed):
    """jit(grad(...)) of a random program: the backward pass fuses with the forward one
    (recomputation, multi-output kernels, column reductions of broadcast gradients)."""
    shapes, steps, n_out = program
    args = _inputs(shapes, seed)
    weights = [np.random.default_rng(seed + 1).standard_normal(np.shape(w)).astype(np.float32)
               for w in run(np, args, steps, n_out)]

    def loss(*a):
        return sum(jnp.sum(o * w) for o, w in zip(run(jnp, a, steps, n_out), weights))
    g = tjit.grad(loss, argnums=tuple(range(len(args))))
    got = tjit.jit(g)(*args)
    want = tjit.jit(g, backend="interpreter")(*args)
    for k, (a, b) in enumerate(zip(got, want)):
        a, b = np.asarray(a), np.asarray(b)
        scale = 1 + float(np.max(np.abs(b[np.isfinite(b)]), initial=0))
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=5e-5 * scale,
                                   err_msg=f"d/d arg {k}, compiled vs interpreter: {steps}")
