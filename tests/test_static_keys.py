"""static_keys.static_key: the per-call key of a static argument, remembered for the same
unchangeable object. A remembered key must never outlive what it describes: a mutable
value changed between calls, or another object at a reused address, keys afresh."""

import dataclasses
import gc
from collections import namedtuple

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing import static_keys
from tjit.tracing.static_keys import static_key, typed_key

P = namedtuple("P", "a b")


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: object
    b: object = 1.0


@dataclasses.dataclass(unsafe_hash=True)
class Mutable:   # (hashable yet changeable: its key must be built at each call)
    k: object


class Box:   # (an object with its own == and hash over changeable state)
    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return type(other) is Box and self.k == other.k

    def __hash__(self):
        return hash(self.k)


VALUES = [3, "s", None, True, b"x", 2.0, -0.0, 1j, np.int32(2), np.float32(-0.0),
          (1, 2, 3), (1, 2.0), (0.0, -0.0), ((1, (2,)), "a"), P(1, 2.0), Frozen(1),
          Frozen((1, 2.0), np.int8(3)), frozenset([1, 2.0]), Mutable(2), Box(2),
          (Mutable(1), 2), Frozen(Box(1))]


@pytest.mark.parametrize("v", VALUES, ids=repr)
def test_static_key_is_typed_key_with_its_hash_first_and_again(v):
    for _ in range(2):   # (computed, then possibly remembered)
        key, h = static_key(v)
        assert key == typed_key(v) and h == hash(typed_key(v))


def test_only_unchangeable_values_are_remembered():
    static_keys._MEMO.clear()
    kept = [(1, 2.0), Frozen(1, "a"), P(np.int32(1), None)]
    changeable = [Mutable(1), Box(1), (Mutable(1),), Frozen(Box(1)), frozenset([1])]
    for v in kept + changeable:
        static_key(v)
    remembered = [e[0] for e in static_keys._MEMO.values()]
    assert all(any(r is v for r in remembered) for v in kept)
    assert not any(r is v for r in remembered for v in changeable)


def test_a_new_object_at_a_reused_address_is_keyed_afresh():
    static_keys._MEMO.clear()
    static_key((1, 2))
    # (the memo holds the tuple, so its address cannot be taken by another object; a
    # forged entry under another object's address is refused by the identity check)
    other = (1.0, 2)
    static_keys._MEMO[id(other)] = ((1, 2), typed_key((1, 2)), hash(typed_key((1, 2))))
    assert static_key(other)[0] == typed_key(other) != typed_key((1, 2))
    static_keys._MEMO.clear()


def test_the_memo_stays_bounded():
    static_keys._MEMO.clear()
    for i in range(3 * static_keys._MEMO_SIZE):
        static_key((i, "new"))
    assert len(static_keys._MEMO) <= static_keys._MEMO_SIZE
    static_keys._MEMO.clear()
    gc.collect()


def test_jit_sees_a_mutable_static_changed_between_calls():
    f = tjit.jit(lambda x, m: x + m.k, static_argnums=1)
    x = np.arange(3, dtype=np.int32)
    m = Mutable(2)
    assert f(x, m).dtype == np.int32
    m.k = 2.0   # (equal and same hash: only the typed key tells them apart)
    out = f(x, m)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), x + np.float32(2.0))
    box = Box(2)
    t = (box,)
    f2 = tjit.jit(lambda x, t: x + t[0].k, static_argnums=1)
    assert f2(x, t).dtype == np.int32
    box.k = 2.0
    assert f2(x, t).dtype == np.int32   # (Box is keyed by its own ==: equal, one program)


def _first(s):
    return s[0] if isinstance(s, tuple) else s.a


@pytest.mark.parametrize("first,second", [((2, 3), (2.0, 3)), (Frozen(2), Frozen(2.0)),
                                          ((0.0,), (-0.0,))])
def test_jit_with_remembered_statics_compiles_apart(first, second):
    # (x * s is int32 for an int and float32 for a float; x / s's infinities have s's sign)
    f = tjit.jit(lambda x, s: (x * _first(s), x / _first(s)), static_argnums=1)
    x = np.array([1, -2, 3], dtype=np.int32)
    for s in (first, second, first, second):   # (each key remembered, then reused)
        prod, inv = f(x, s)
        want = x * _first(s)
        assert prod.dtype == (np.float32 if isinstance(_first(s), float) else np.int32)
        np.testing.assert_array_equal(np.asarray(prod), want)
        with np.errstate(divide="ignore"):
            np.testing.assert_array_equal(np.asarray(inv), x / np.float32(_first(s)))


# -- odeint's closure conversions, kept per function ----------------------------------------
@dataclasses.dataclass(frozen=True)
class Turn:   # dy/dt = atan2(k, -1): pi for k = 0.0, -pi for k = -0.0
    k: float

    def __call__(self, y, t):
        return jnp.arctan2(self.k, -1.0) + 0 * y


@pytest.mark.parametrize("order", [(0.0, -0.0), (-0.0, 0.0)])
def test_odeint_of_equal_callables_of_other_field_values_apart(order):
    from tjit.experimental.ode import odeint
    ts = np.array([0.0, 1.0], np.float32)
    alive = []   # (both alive: the conversions are kept per function while it lives)
    for k in order:
        alive.append(Turn(k))
        got = np.asarray(odeint(alive[-1], jnp.float32(0.0), jnp.asarray(ts)))
        np.testing.assert_allclose(got, [0.0, np.arctan2(k, -1.0)], rtol=1e-5)


def test_odeint_weak_and_strong_arguments_converted_apart():
    # (bfloat16 y * a weak 2.0 stays bfloat16; * a strong float32 is float32, which the
    # solver's loop refuses: the same in either order, not the first call's conversion)
    from tjit.experimental.ode import odeint

    def grow(y, t, a):
        return y * a
    ts = jnp.asarray(np.array([0.0, 0.5], np.float32))
    y0 = jnp.ones(2, jnp.bfloat16)
    assert odeint(grow, y0, ts, 2.0).dtype == jnp.bfloat16
    with pytest.raises(TypeError, match="dtype"):
        odeint(grow, y0, ts, np.float32(2.0))
