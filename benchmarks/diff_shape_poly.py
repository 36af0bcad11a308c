"""Differential hunt: declared symbolic (polymorphic) dims against JAX's shape polymorphism.

Each program is traced once by ``tjit.jit(f, polymorphic_shapes=...)`` with a symbolic
batch dim ``b`` (and, where it makes sense, a symbolic feature dim ``c``), run at several
concrete sizes and compared with NumPy in float64; the compile count says whether one
program served every size. Where JAX is importable, ``jax.export.export`` with the same
symbolic shapes says whether JAX accepts the program, and the output shapes of both are
printed. Rows of interest: tjit refuses (InconclusiveDimensionError, ...) where JAX
accepts, or tjit gives a wrong number / shape / several compiles. A comparison tool, not a
test: CI has no JAX.

    /work/jaxvenv/bin/python benchmarks/diff_shape_poly.py [-v] [--only NAME]

Prints one line per program (status for tjit, JAX's verdict) and the counts.
"""

import argparse
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")

SIZES_B = (1, 2, 3, 5, 8)
SIZES_BC = ((2, 3), (5, 4), (8, 1), (3, 7))


class Lib:
    """The library a program is written against (tjit or JAX), by the same names."""

    def __init__(self, jax, jnp, lax):
        self.jax, self.jnp, self.lax = jax, jnp, lax


def _np_window_max(x, w, s):
    n = (x.shape[0] - w) // s + 1
    return np.stack([x[i * s:i * s + w].max(0) for i in range(max(n, 0))]) \
        if n > 0 else np.zeros((0,) + x.shape[1:])


def _np_conv1d(x, k, s):
    # x: (N, W, C) NWC; k: (K, C, O) WIO; VALID, stride s
    n_out = (x.shape[1] - k.shape[0]) // s + 1
    out = np.zeros((x.shape[0], max(n_out, 0), k.shape[2]))
    for i in range(max(n_out, 0)):
        out[:, i] = np.einsum("nkc,kco->no", x[:, i * s:i * s + k.shape[0]], k)
    return out


def _np_grad_window_max(x):
    # windows [2i, 2i+2) (the last one padded on the right with -inf): one at each argmax
    g = np.zeros_like(x)
    for i in range(0, len(x), 2):
        w = x[i:i + 2]
        g[i + np.argmax(w, 0), np.arange(x.shape[1])] = 1
    return g


def _same_pad(n, k, s):
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    return total // 2, total - total // 2


K3 = np.random.default_rng(1).standard_normal((3, 2, 4))
W = np.random.default_rng(2).standard_normal((3, 5))


def _conv(L, x):
    return L.lax.conv_general_dilated(x, L.jnp.asarray(K3, x.dtype), (2,), "VALID",
                                      dimension_numbers=("NWC", "WIO", "NWC"))


def _scan_cumsum(L, x):
    def step(c, xi):
        c = c + xi
        return c, c * 2
    return L.lax.scan(step, L.jnp.zeros(x.shape[1:], x.dtype), x)[1]


# name -> (spec, program(L, x), NumPy float64 reference(x), minimum b)
PROGRAMS = {
    # slices
    "x[::2]": ("b, 3", lambda L, x: x[::2], lambda x: x[::2]),
    "x[::-1]": ("b, 3", lambda L, x: x[::-1], lambda x: x[::-1]),
    "x[::-2]": ("b, 3", lambda L, x: x[::-2], lambda x: x[::-2]),
    "x[1::3]": ("b, 3", lambda L, x: x[1::3], lambda x: x[1::3]),
    "x[::-3]": ("b, 3", lambda L, x: x[::-3], lambda x: x[::-3]),
    "x[1:]": ("b, 3", lambda L, x: x[1:], lambda x: x[1:]),
    "x[:-1]": ("b, 3", lambda L, x: x[:-1], lambda x: x[:-1]),
    "x[1:-1]": ("b, 3", lambda L, x: x[1:-1], lambda x: x[1:-1]),
    "x[2:]": ("b, 3", lambda L, x: x[2:], lambda x: x[2:]),
    "x[:5]": ("b, 3", lambda L, x: x[:5], lambda x: x[:5]),
    "x[-2:]": ("b, 3", lambda L, x: x[-2:], lambda x: x[-2:]),
    "x[:b//2]": ("b, 3", lambda L, x: x[:x.shape[0] // 2], lambda x: x[:x.shape[0] // 2]),
    "x[b//2:]": ("b, 3", lambda L, x: x[x.shape[0] // 2:], lambda x: x[x.shape[0] // 2:]),
    "x[:, ::2] (c)": ("b, c", lambda L, x: x[:, ::2], lambda x: x[:, ::2]),
    "x[5:2:-1]": ("b, 3", lambda L, x: x[5:2:-1], lambda x: x[5:2:-1]),
    "x[:-3:-1]": ("b, 3", lambda L, x: x[:-3:-1], lambda x: x[:-3:-1]),
    "x[-1::-2]": ("b, 3", lambda L, x: x[-1::-2], lambda x: x[-1::-2]),
    "x[3::-1]": ("b, 3", lambda L, x: x[3::-1], lambda x: x[3::-1]),
    "x[1:-1].mean()": ("b, 3", lambda L, x: x[1:-1].mean(0), lambda x: x[1:-1].mean(0)),
    "x[2:] - x[:-2]": ("b, 3", lambda L, x: x[2:] - x[:-2], lambda x: x[2:] - x[:-2]),
    "x[:5] * x[-5:]": ("b, 3", lambda L, x: x[:5] * x[-5:], lambda x: x[:5] * x[-5:]),
    "x[::2].mean()": ("b, 3", lambda L, x: x[::2].mean(0), lambda x: x[::2].mean(0)),
    "x.at[::2].set(0)": ("b, 3", lambda L, x: x.at[::2].set(0.),
                         lambda x: np.where((np.arange(len(x)) % 2 == 0)[:, None], 0., x)),
    "x.at[1:].add(x[:-1])": ("b, 3", lambda L, x: x.at[1:].add(x[:-1]),
                             lambda x: np.concatenate([x[:1], x[1:] + x[:-1]])),
    "x[0]": ("b, 3", lambda L, x: x[0], lambda x: x[0]),
    "x[-1]": ("b, 3", lambda L, x: x[-1], lambda x: x[-1]),
    "dynamic_slice(x, 1, 1)": ("b, 3", lambda L, x: L.lax.dynamic_slice_in_dim(x, 1, 1),
                               lambda x: x[min(1, x.shape[0] - 1):][:1]),
    "dynamic_slice(x, 0, b)": ("b, 3",
                               lambda L, x: L.lax.dynamic_slice_in_dim(x, 0, x.shape[0]),
                               lambda x: x),
    "dynamic_slice size b//2": (
        "b, 3", lambda L, x: L.lax.dynamic_slice_in_dim(x, 1, x.shape[0] // 2),
        lambda x: x[min(1, x.shape[0] - x.shape[0] // 2):][:x.shape[0] // 2]),
    "dynamic_update_slice": (
        "b, 3", lambda L, x: L.lax.dynamic_update_slice_in_dim(x, x[:1] * 0, 1, 0),
        lambda x: np.concatenate([x[:1], 0 * x[1:2], x[2:]]) if len(x) > 1 else 0 * x, 1),
    "split into 2 of (2b, 3)": ("2*b, 3", lambda L, x: L.jnp.split(x, 2)[1] - L.jnp.split(x, 2)[0],
                                lambda x: np.split(x, 2)[1] - np.split(x, 2)[0]),
    "zeros(b // 2)": ("b, 3", lambda L, x: L.jnp.zeros((x.shape[0] // 2, 3)) + x[:x.shape[0] // 2],
                      lambda x: x[:x.shape[0] // 2]),
    "linspace(0, 1, b)": ("b, 3", lambda L, x: x * L.jnp.linspace(0., 1., x.shape[0])[:, None],
                          lambda x: x * np.linspace(0., 1., x.shape[0])[:, None]),
    "diff axis 0": ("b, 3", lambda L, x: L.jnp.diff(x, axis=0), lambda x: np.diff(x, axis=0)),
    "triu of (b, b)": ("b, b", lambda L, x: L.jnp.triu(x), lambda x: np.triu(x)),
    "outer": ("b, 3", lambda L, x: L.jnp.outer(x[:, 0], x[:, 1]),
              lambda x: np.outer(x[:, 0], x[:, 1])),
    "trace of (b, b)": ("b, b", lambda L, x: L.jnp.trace(x), lambda x: np.trace(x)),
    "cumsum reverse": ("b, 3", lambda L, x: L.jnp.cumsum(x[::-1], 0)[::-1],
                       lambda x: np.cumsum(x[::-1], 0)[::-1]),
    # reshapes
    "reshape(-1)": ("b, 3", lambda L, x: x.reshape(-1), lambda x: x.reshape(-1)),
    "reshape(b, 3, 1)": ("b, 3", lambda L, x: x.reshape(x.shape[0], 3, 1),
                         lambda x: x.reshape(x.shape[0], 3, 1)),
    "reshape(-1, 2, 3) of (b, 6)": ("b, 6", lambda L, x: x.reshape(-1, 2, 3),
                                    lambda x: x.reshape(-1, 2, 3)),
    "reshape(b*c)": ("b, c", lambda L, x: x.reshape(-1), lambda x: x.reshape(-1)),
    "reshape(b*c) -> (b, c)": ("b, c", lambda L, x: x.reshape(-1).reshape(x.shape),
                               lambda x: x),
    "reshape (b, 2c) -> (2b, c)": (
        "b, 2*c", lambda L, x: x.reshape(2 * x.shape[0], x.shape[1] // 2),
        lambda x: x.reshape(2 * x.shape[0], x.shape[1] // 2)),
    # joins and copies
    "concatenate([x, x[::-1]])": ("b, 3", lambda L, x: L.jnp.concatenate([x, x[::-1]]),
                                  lambda x: np.concatenate([x, x[::-1]])),
    "concatenate axis 1 (c)": ("b, c", lambda L, x: L.jnp.concatenate([x, x], 1),
                               lambda x: np.concatenate([x, x], 1)),
    "pad": ("b, 3", lambda L, x: L.jnp.pad(x, ((1, 2), (0, 1))),
            lambda x: np.pad(x, ((1, 2), (0, 1)))),
    "tile": ("b, 3", lambda L, x: L.jnp.tile(x, (2, 1)), lambda x: np.tile(x, (2, 1))),
    "repeat": ("b, 3", lambda L, x: L.jnp.repeat(x, 2, axis=0),
               lambda x: np.repeat(x, 2, axis=0)),
    "stack": ("b, 3", lambda L, x: L.jnp.stack([x, -x], 1), lambda x: np.stack([x, -x], 1)),
    "roll": ("b, 3", lambda L, x: L.jnp.roll(x, 1, 0), lambda x: np.roll(x, 1, 0)),
    "flip": ("b, c", lambda L, x: L.jnp.flip(x), lambda x: np.flip(x)),
    "transpose": ("b, c", lambda L, x: x.T, lambda x: x.T),
    # conv / windows over a symbolic spatial dim (N=2, W=b, C=2)
    "conv stride 2 VALID": ("2, b, 2", _conv, lambda x: _np_conv1d(x, K3, 2), 3),
    "reduce_window max 2/2": (
        "b, 3", lambda L, x: L.lax.reduce_window(x, -np.inf, L.lax.max, (2, 1), (2, 1),
                                                 "VALID"),
        lambda x: _np_window_max(x, 2, 2), 2),
    "conv stride 2 SAME": (
        "2, b, 2", lambda L, x: L.lax.conv_general_dilated(
            x, L.jnp.asarray(K3, x.dtype), (2,), "SAME",
            dimension_numbers=("NWC", "WIO", "NWC")),
        lambda x: _np_conv1d(np.pad(x, ((0, 0), _same_pad(x.shape[1], 3, 2), (0, 0))), K3, 2)),
    "conv stride 1 SAME": (
        "2, b, 2", lambda L, x: L.lax.conv_general_dilated(
            x, L.jnp.asarray(K3, x.dtype), (1,), "SAME",
            dimension_numbers=("NWC", "WIO", "NWC")),
        lambda x: _np_conv1d(np.pad(x, ((0, 0), _same_pad(x.shape[1], 3, 1), (0, 0))), K3, 1)),
    "max window 3 stride 1 SAME": (
        "b, 3", lambda L, x: L.lax.reduce_window(x, -np.inf, L.lax.max, (3, 1), (1, 1), "SAME"),
        lambda x: _np_window_max(np.pad(x, (_same_pad(len(x), 3, 1), (0, 0)),
                                        constant_values=-np.inf), 3, 1)),
    "max window 2 stride 2 SAME": (
        "b, 3", lambda L, x: L.lax.reduce_window(x, -np.inf, L.lax.max, (2, 1), (2, 1), "SAME"),
        lambda x: _np_window_max(np.pad(x, (_same_pad(len(x), 2, 2), (0, 0)),
                                        constant_values=-np.inf), 2, 2)),
    "grad of max window 2 stride 2 SAME": (
        "b, 3", lambda L, x: L.jax.grad(lambda y: L.lax.reduce_window(
            y, -np.inf, L.lax.max, (2, 1), (2, 1), "SAME").sum())(x),
        lambda x: _np_grad_window_max(x)),
    "avg window 3 stride 2 VALID": (
        "b, 3", lambda L, x: L.lax.reduce_window(x, 0., L.lax.add, (3, 1), (2, 1), "VALID") / 3,
        lambda x: np.stack([x[i:i + 3].mean(0) for i in range(0, len(x) - 2, 2)]), 3),
    # sizes as values
    "arange(b)": ("b, 3", lambda L, x: x + L.jnp.arange(x.shape[0])[:, None],
                  lambda x: x + np.arange(x.shape[0])[:, None]),
    "mean over b": ("b, 3", lambda L, x: x.mean(0), lambda x: x.mean(0)),
    "mean over b, c": ("b, c", lambda L, x: x.mean(), lambda x: x.mean()),
    "var over b": ("b, 3", lambda L, x: x.var(0), lambda x: x.var(0)),
    "x * b": ("b, 3", lambda L, x: x * x.shape[0], lambda x: x * x.shape[0]),
    "x / (b // 2 + 1)": ("b, 3", lambda L, x: x / (x.shape[0] // 2 + 1),
                         lambda x: x / (x.shape[0] // 2 + 1)),
    "x.size": ("b, c", lambda L, x: x.sum() / x.size, lambda x: x.sum() / x.size),
    "b >= 1 branch": ("b, 3", lambda L, x: x * 2 if x.shape[0] >= 1 else x, lambda x: x * 2),
    "b + 1 > b branch": ("b, 3", lambda L, x: x * 3 if x.shape[0] + 1 > x.shape[0] else x,
                         lambda x: x * 3),
    "b % 2 < 2 branch": ("b, 3", lambda L, x: x + 1 if x.shape[0] % 2 < 2 else x,
                         lambda x: x + 1),
    "b // 2 <= b branch": ("b, 3", lambda L, x: x - 1 if x.shape[0] // 2 <= x.shape[0] else x,
                           lambda x: x - 1),
    "ones((b, c))": ("b, c", lambda L, x: x + L.jnp.ones(x.shape), lambda x: x + 1),
    "eye(b)": ("b, 3", lambda L, x: L.jnp.eye(x.shape[0]) @ x, lambda x: x),
    # broadcasting and reductions
    "broadcast (b,1)+(1,c)": ("b, c", lambda L, x: x[:, :1] + x[:1, :],
                              lambda x: x[:, :1] + x[:1, :]),
    "argmax axis 0": ("b, 3", lambda L, x: L.jnp.argmax(x, 0), lambda x: np.argmax(x, 0)),
    "argmin axis 1 (c)": ("b, c", lambda L, x: L.jnp.argmin(x, 1), lambda x: np.argmin(x, 1)),
    "sort axis 0": ("b, 3", lambda L, x: L.jnp.sort(x, 0), lambda x: np.sort(x, 0)),
    "argsort axis 0": ("b, 3", lambda L, x: L.jnp.argsort(x, 0, stable=True),
                       lambda x: np.argsort(x, 0, kind="stable")),
    "cumsum axis 0": ("b, 3", lambda L, x: L.jnp.cumsum(x, 0), lambda x: np.cumsum(x, 0)),
    "cumprod axis 1 (c)": ("b, c", lambda L, x: L.jnp.cumprod(x, 1),
                           lambda x: np.cumprod(x, 1)),
    "max axis 0": ("b, 3", lambda L, x: x.max(0), lambda x: x.max(0)),
    "softmax axis 0": ("b, 3", lambda L, x: L.jax.nn.softmax(x, 0),
                       lambda x: np.exp(x - x.max(0)) / np.exp(x - x.max(0)).sum(0)),
    "matmul x @ W": ("b, 3", lambda L, x: x @ L.jnp.asarray(W, x.dtype), lambda x: x @ W),
    "matmul x @ x.T": ("b, c", lambda L, x: x @ x.T, lambda x: x @ x.T),
    "matmul x.T @ x": ("b, c", lambda L, x: x.T @ x, lambda x: x.T @ x),
    "einsum bc,bd->cd": ("b, c", lambda L, x: L.jnp.einsum("bc,bd->cd", x, x),
                         lambda x: np.einsum("bc,bd->cd", x, x)),
    "where": ("b, 3", lambda L, x: L.jnp.where(x > 0, x, 0.), lambda x: np.where(x > 0, x, 0.)),
    "take_along_axis": ("b, 3", lambda L, x: L.jnp.take_along_axis(
        x, L.jnp.argsort(x, 0), 0), lambda x: np.take_along_axis(x, np.argsort(x, 0), 0)),
    "x[argmax]": ("b, 3", lambda L, x: x[L.jnp.argmax(x[:, 0])],
                  lambda x: x[np.argmax(x[:, 0])]),
    "x[::2] + x[1::2] of (2b, 3)": ("2*b, 3", lambda L, x: x[::2] + x[1::2],
                                    lambda x: x[::2] + x[1::2]),
    "concatenate(x[::2], x[1::2])": ("b, 3", lambda L, x: L.jnp.concatenate([x[::2], x[1::2]]),
                                     lambda x: np.concatenate([x[::2], x[1::2]])),
    "reshape (2b, 3) -> (b, 6)": ("2*b, 3", lambda L, x: x.reshape(x.shape[0] // 2, -1),
                                  lambda x: x.reshape(x.shape[0] // 2, -1)),
    "arange(b // 2)": ("b, 3", lambda L, x: L.jnp.arange(x.shape[0] // 2) * 1.,
                       lambda x: np.arange(x.shape[0] // 2) * 1.),
    "x[b - 1]": ("b, 3", lambda L, x: x[x.shape[0] - 1], lambda x: x[-1]),
    "split at [2]": ("b, 3", lambda L, x: L.jnp.split(x, [2])[1], lambda x: np.split(x, [2])[1]),
    "roll by b // 2": ("b, 3", lambda L, x: L.jnp.roll(x, x.shape[0] // 2, 0),
                       lambda x: np.roll(x, x.shape[0] // 2, 0)),
    "pad by b": ("b, 3", lambda L, x: L.jnp.pad(x, ((0, x.shape[0]), (0, 0))),
                 lambda x: np.pad(x, ((0, x.shape[0]), (0, 0)))),
    "broadcast_to x[:1]": ("b, 3", lambda L, x: L.jnp.broadcast_to(x[:1], x.shape) + x,
                           lambda x: x[:1] + x),
    "norm axis 0": ("b, 3", lambda L, x: L.jnp.linalg.norm(x, axis=0),
                    lambda x: np.linalg.norm(x, axis=0)),
    "take x[arange(b)[::2]]": ("b, 3", lambda L, x: x[L.jnp.arange(x.shape[0])[::2]],
                               lambda x: x[::2]),
    "b == 1 branch": ("b, 3", lambda L, x: x if x.shape[0] == 1 else x * 2, lambda x: x * 2, 2),
    "b >= 2 branch": ("b, 3", lambda L, x: x if x.shape[0] >= 2 else x * 2, lambda x: x, 2),
    "fft axis 0": ("b, 3", lambda L, x: L.jnp.fft.fft(x, axis=0).real,
                   lambda x: np.fft.fft(x, axis=0).real),
    # JAX refuses these: tjit must not give a number
    "x[::2] + x[1::2] of (b, 3)": ("b, 3", lambda L, x: x[::2] + x[1::2],
                                   lambda x: x[::2] + x[1::2], 2),
    "reshape (b, 3) -> (-1, 2)": ("b, 3", lambda L, x: x.reshape(-1, 2),
                                  lambda x: x.reshape(-1, 2), 2),
    "x[:b//2] + x[b//2:]": ("b, 3", lambda L, x: x[:x.shape[0] // 2] + x[x.shape[0] // 2:],
                            lambda x: x[:x.shape[0] // 2] + x[x.shape[0] // 2:], 2),
    # transforms
    "vmap over b": ("b, 3", lambda L, x: L.jax.vmap(lambda r: r @ r)(x),
                    lambda x: (x * x).sum(1)),
    "grad of mean": ("b, 3", lambda L, x: L.jax.grad(lambda y: (y ** 2).mean())(x),
                     lambda x: 2 * x / x.size),
    "grad through x[::2]": ("b, 3", lambda L, x: L.jax.grad(lambda y: (y[::2] ** 2).sum())(x),
                            lambda x: np.where((np.arange(x.shape[0]) % 2 == 0)[:, None],
                                               2 * x, 0.)),
    "scan over b": ("b, 3", lambda L, x: _scan_cumsum(L, x), lambda x: 2 * np.cumsum(x, 0)),
    "fori_loop b times": ("b, 3", lambda L, x: L.lax.fori_loop(
        0, x.shape[0], lambda i, c: c + x[i], L.jnp.zeros(3, x.dtype)),
        lambda x: x.sum(0)),
    "vmap of x[::2]": ("b, c", lambda L, x: L.jax.vmap(lambda r: r[::2].sum())(x),
                       lambda x: x[:, ::2].sum(1)),
}


def _sizes(spec, minimum):
    names = [d.strip() for d in spec.split(",")]
    has_c = any("c" in d for d in names)
    out = []
    for b, c in (SIZES_BC if has_c else [(b, None) for b in SIZES_B]):
        if b < minimum:
            continue
        env = {"b": b, "c": c}
        out.append(tuple(int(eval(d, {}, env)) for d in names))
    return out


def run_tjit(name, spec, prog, ref, minimum, auto=False):
    """(status, jitted function): ``auto``: tjit's automatic dynamic shapes (no
    polymorphic_shapes; several programs are allowed there)."""
    import tjit
    import tjit.numpy as tjnp
    from tjit import lax as tlax
    L = Lib(tjit, tjnp, tlax)
    jf = tjit.jit(lambda x: prog(L, x)) if auto else \
        tjit.jit(lambda x: prog(L, x), polymorphic_shapes=[f"({spec})"])
    rng = np.random.default_rng(0)
    for shape in _sizes(spec, minimum):
        x = rng.standard_normal(shape).astype(np.float32)
        try:
            got = np.asarray(jf(x))
        except Exception as e:  # noqa: BLE001 (a hunt reports every failure)
            return f"RAISES {type(e).__name__}: {str(e)[:160]}", None
        want = np.asarray(ref(x.astype(np.float64)))
        if got.shape != want.shape:
            return f"WRONG SHAPE at {shape}: {got.shape} vs NumPy {want.shape}", None
        if not np.allclose(got, want, rtol=1e-4, atol=1e-4, equal_nan=True):
            return f"WRONG VALUE at {shape}: max err {np.abs(got - want).max():.3g}", None
    if jf.compile_count != 1 and not auto:
        return f"{jf.compile_count} COMPILES", None
    return "ok", jf


def run_jax(spec, prog):
    try:
        import jax
        import jax.numpy as jjnp
        from jax import export, lax
    except ImportError:
        return "no jax"
    L = Lib(jax, jjnp, lax)
    try:
        arg = jax.ShapeDtypeStruct(export.symbolic_shape(spec), np.float32)
        exp = export.export(jax.jit(lambda x: prog(L, x)))(arg)
        return "accepts " + ", ".join(str(a.shape) for a in exp.out_avals)
    except Exception as e:  # noqa: BLE001
        return f"refuses ({type(e).__name__}: {str(e)[:100]})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=None)
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--auto", action="store_true",
                    help="also run each program under automatic dynamic shapes")
    args = ap.parse_args()
    counts = {"ok": 0, "refused where JAX accepts": 0, "wrong": 0, "refused by both": 0,
              "several compiles": 0}
    for name, (spec, prog, ref, *minimum) in PROGRAMS.items():
        if args.only and args.only not in name:
            continue
        status, _ = run_tjit(name, spec, prog, ref, minimum[0] if minimum else 1)
        verdict = run_jax(spec, prog)
        if status == "ok":
            counts["ok"] += 1
        elif status.startswith("WRONG"):
            counts["wrong"] += 1
        elif status.endswith("COMPILES"):
            counts["several compiles"] += 1
        elif verdict.startswith("accepts") or verdict == "no jax":
            counts["refused where JAX accepts"] += 1
        else:
            counts["refused by both"] += 1
        if args.v or status != "ok":
            print(f"{name:32s} tjit: {status}\n{'':32s} JAX:  {verdict}")
        if args.auto:
            auto, jf = run_tjit(name, spec, prog, ref, minimum[0] if minimum else 1, True)
            if args.v or auto != "ok":
                print(f"{name:32s} automatic dynamic shapes: {auto}" +
                      (f" ({jf.compile_count} compiles)" if jf is not None else ""))
    print(f"{sum(counts.values())} programs: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
