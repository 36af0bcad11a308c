"""``x ** n`` with a Python int ``n`` is ``lax.integer_pow`` on every path: eager, the
reference interpreter and compiled code give the same bits (they share one op sequence,
``elementwise._integer_pow_expand``).

An exponent passed *into* ``jit`` is traced, so ``jit(jnp.power)(x, 3)`` binds ``pow``
(x ** 3.0, NumPy's power) where eager ``jnp.power(x, 3)`` binds ``integer_pow``, as in
JAX: a different primitive, which may differ by an ulp in float32. That was the 1-ulp
difference between eager ``x ** 3`` and the interpreter; it is not a disagreement of the
two reference paths."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

_RNG = np.random.default_rng(14)
_YS = list(range(-6, 10))


def _sample(dt):
    dt = np.dtype(dt)
    if dt.kind == "c":
        return (_RNG.standard_normal(64) + 1j * _RNG.standard_normal(64)).astype(dt)
    if dt.kind == "f":
        v = _RNG.standard_normal(64) * 3
        v[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-3]
        return v.astype(dt)
    info = np.iinfo(dt)
    return _RNG.integers(max(info.min, -9), min(info.max, 9), 64).astype(dt)


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


@pytest.mark.parametrize("dt", ["float32", "float16", "complex64", "int32", "int8",
                                "uint8"])
def test_integer_pow_eager_interpreter_compiled_agree(dt):
    x = jnp.asarray(_sample(dt))
    ys = [y for y in _YS if y >= 0 or np.dtype(dt).kind in "fc"]
    ways = {"x ** y": lambda x, y: x ** y, "jnp.power": jnp.power,
            "lax.integer_pow": lax.integer_pow}
    for name, fn in ways.items():
        def program(x, fn=fn):
            return [fn(x, y) for y in ys]  # y a Python int: static, as in user code
        interp = tjit.jit(program, backend="interpreter")(x)
        compiled = tjit.jit(program)(x)
        for y, want, got in zip(ys, interp, compiled):
            eager = fn(x, y)
            assert _bits(eager) == _bits(want), (name, y)
            # compiled shares the op sequence (README: same bits, not just within the
            # ulp table)
            assert _bits(got) == _bits(want), (name, y)
        if np.dtype(dt) == np.float32:  # accuracy: float64 reference within the table
            for y, want in zip(ys, interp):
                with np.errstate(divide="ignore", invalid="ignore"):  # 0 ** -n: inf
                    ref = np.power(np.asarray(x, np.float64), y)
                ok = np.isfinite(ref) & (np.abs(ref) < 3e38)
                err = np.abs(np.asarray(want, np.float64)[ok] - ref[ok])
                ulp = np.spacing(np.abs(ref[ok]).astype(np.float32)).astype(np.float64)
                assert (err <= 1.5 * ulp).all(), (name, y, (err / ulp).max())


def test_traced_exponent_binds_pow_as_in_jax():
    x = jnp.ones(3)
    assert "integer_pow[y=3]" in str(tjit.make_jaxpr(lambda x: x ** 3)(x))
    jaxpr = str(tjit.make_jaxpr(jnp.power)(x, 3))
    assert "pow " in jaxpr and "integer_pow" not in jaxpr
