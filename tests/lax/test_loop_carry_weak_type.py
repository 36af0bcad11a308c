"""A weakly typed loop init whose body output is strongly typed gives a strong final
carry, as JAX (checked against jax 0.10.2: Array(3, dtype=int32), not weak)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

CASES = {
    "scan": lambda: lax.scan(lambda c, x: (c + x, None), 0, jnp.arange(3))[0],
    "fori": lambda: lax.fori_loop(0, 3, lambda i, c: c + jnp.int32(1), 0),
    "while": lambda: lax.while_loop(lambda c: c < 3, lambda c: c + jnp.int32(1), 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("jit", [False, True])
def test_strong_body_output_makes_strong_carry(name, jit):
    f = CASES[name]
    out = tjit.jit(f)() if jit else f()
    assert int(out) == 3 and out.dtype == np.int32 and not out.weak_type


def test_weak_body_output_keeps_weak_carry():
    out = lax.fori_loop(0, 3, lambda i, c: c + 1, 0)
    assert int(out) == 3 and out.weak_type
    out = lax.fori_loop(0, 3, lambda i, c: c + 1.5, 0)   # promoted to float32, strong
    assert float(out) == 4.5 and out.dtype == np.float32 and not out.weak_type


def _traced_weak_flags(loop):
    """Run ``loop(hook)`` (the body calls ``hook(carry)``, which returns None) and return
    the weak flags of the carries the body was traced with."""
    seen = []
    loop(lambda c: seen.append(c.weak_type))
    return seen


LOOPS = {  # weak Python-float init, strongly typed body output (JAX 0.10.2: traced once)
    "scan": lambda hook: lax.scan(lambda c, x: (hook(c) or c + x, c), 0.0, jnp.arange(3.0)),
    "fori": lambda hook: lax.fori_loop(0, 3, lambda i, c: hook(c) or c + jnp.float32(1), 0.0),
    "while": lambda hook: lax.while_loop(lambda c: c < 3.0,
                                         lambda c: hook(c) or c + jnp.float32(1), 0.0),
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_weak_carry_is_traced_once_and_stays_weak_in_the_body(name):
    # JAX's typematch ignores weak types: no second trace with a strong carry
    assert _traced_weak_flags(LOOPS[name]) == [True]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_ys_of_a_weak_carry_are_weak_and_final_carry_strong(jit, reverse):
    xs = np.arange(1.0, 4.0, dtype=np.float32)

    def f(xs):
        return lax.scan(lambda c, x: (c + x, c), 0.0, xs, reverse=reverse)

    carry, ys = (tjit.jit(f) if jit else f)(jnp.asarray(xs))
    order = xs[::-1] if reverse else xs
    want_ys = np.concatenate([[0.0], np.cumsum(order)[:-1]])
    np.testing.assert_allclose(np.asarray(ys), want_ys[::-1] if reverse else want_ys)
    assert float(carry) == xs.sum()
    assert carry.dtype == ys.dtype == np.float32
    assert not carry.weak_type and ys.weak_type


def test_weak_carry_under_vmap_and_grad():
    xs = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    carry, ys = tjit.vmap(lambda x: lax.scan(lambda c, y: (c + y, c), 0.0, x))(
        jnp.asarray(xs))
    np.testing.assert_allclose(np.asarray(carry), xs.sum(1))
    assert ys.weak_type and not carry.weak_type
    # d/da sum(ys) with c <- c * a + x, c0 = 1: ys = (1, a, a^2 + 1) -> 1 + 2a
    g = tjit.grad(lambda a: lax.scan(lambda c, x: (c * a + x, c), 1.0,
                                     jnp.arange(3.0))[1].sum())(2.0)
    assert float(g) == 5.0
