"""jit's fast path for calls with static arguments (keyed by each static's typed key and
the Arrays' (shape, dtype, weak)): every call is checked against NumPy, whichever path
serves it, over random sequences that revisit signatures, change a static's type, sign
or contents, pass statics by keyword, change the config or donate; and a signature seen
before must not reach the general path again."""

import dataclasses
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.api import Jitted
from tjit.config import config


@dataclasses.dataclass(frozen=True)
class Frozen:
    k: object


@dataclasses.dataclass(unsafe_hash=True)
class Mutable:   # (hashable yet changeable: keyed afresh at each call)
    k: object


def _number(s):
    return s.k if isinstance(s, (Frozen, Mutable)) else s[0] if isinstance(s, tuple) else s


# statics equal by == in pairs (2 == 2.0 == True + 1 ...), of other types inside
STATICS = [2, 2.0, np.int32(2), np.float32(2), True, 0.0, -0.0, (2, 3), (2.0, 3),
           ((-0.0,), 1), Frozen(2), Frozen(2.0), Frozen(-0.0)]


def _flat_number(s):
    while not isinstance(s, (int, float, np.number, bool)):
        s = _number(s)
    return s


def _expected(x, s):
    """NumPy float64 reference of ``x * s`` and ``1 / s`` (weak Python scalars keep x's
    dtype class: int32 stays int32 with an int, goes float32 with a float, as in JAX)."""
    n = _flat_number(s)
    floaty = isinstance(n, (float, np.floating)) or x.dtype.kind == "f"
    dtype = np.float32 if floaty else np.int32
    with np.errstate(divide="ignore"):
        return (x.astype(np.float64) * float(n)).astype(dtype), \
            np.float32(1.0) / np.float32(n) + 0 * x.astype(np.float32)


def _fun(x, s):
    n = _flat_number(s)
    return x * n, 1.0 / jnp.asarray(n, jnp.float32) + 0 * x.astype(jnp.float32)


class _GeneralPathSpy:
    """Counts the calls that reach jit's general path (the fast paths missed)."""

    def __init__(self, monkeypatch):
        self.calls = []
        general = Jitted._call_compiled

        def counted(jitted, args, kwargs):
            self.calls.append(None)
            return general(jitted, args, kwargs)
        monkeypatch.setattr(Jitted, "_call_compiled", counted)


def _check(out, x, s):
    want_prod, want_inv = _expected(x, s)
    prod, inv = out
    assert prod.dtype == want_prod.dtype, (s, prod.dtype)
    np.testing.assert_array_equal(np.asarray(prod), want_prod)
    np.testing.assert_array_equal(np.asarray(inv), want_inv)
    # (signed zeros: 1/-0.0 is -inf; array_equal does not tell 0.0 from -0.0)
    assert np.array_equal(np.signbit(np.asarray(prod)), np.signbit(want_prod))


@pytest.mark.parametrize("seed", [0, 1])
def test_random_sequences_of_statics_match_numpy_and_repeat_on_the_fast_path(
        seed, monkeypatch):
    rng = np.random.default_rng(seed)
    spy = _GeneralPathSpy(monkeypatch)
    f = tjit.jit(_fun, static_argnums=1)
    xs = [np.array([1, -2, 3], np.int32), np.array([1.5, -2.0], np.float32),
          np.array([[1, 2], [3, 4]], np.int32)]
    seen = set()
    for _ in range(120):
        x = xs[rng.integers(len(xs))]
        s = STATICS[rng.integers(len(STATICS))]
        by_name = bool(rng.integers(2))
        out = f(jnp.asarray(x), s=s) if by_name else f(jnp.asarray(x), s)
        _check(out, x, s)
        sig = (x.dtype, x.shape, repr(type(s)), repr(s), by_name)
        general_before = len(spy.calls)
        if sig in seen:   # (seen before: served without the general path)
            assert general_before == len(spy.calls), sig
        seen.add(sig)
    assert len(spy.calls) == len(seen)


def test_mutable_static_changed_between_calls_recompiles(monkeypatch):
    spy = _GeneralPathSpy(monkeypatch)
    f = tjit.jit(_fun, static_argnums=1)
    x = np.array([1, -2, 3], np.int32)
    m = Mutable(2)
    for k in (2, 2, 2.0, 2.0, -0.0, 2, -0.0):   # (2 == 2.0, same hash: typed keys differ)
        m.k = k
        _check(f(jnp.asarray(x), m), x, m)
    assert len(spy.calls) == 3    # one general call per state first seen


def test_config_change_and_clear_cache_reach_the_general_path(monkeypatch):
    spy = _GeneralPathSpy(monkeypatch)
    f = tjit.jit(lambda x, s: x * s, static_argnums=1)
    x = jnp.asarray(np.array([1, 2], np.int32))
    f(x, 2.5)
    f(x, 2.5)
    assert len(spy.calls) == 1
    old = config.enable_x64
    try:    # (int32 * a weak float is float64 with x64 on: the program differs)
        config.update("enable_x64", not old)
        out = f(x, 2.5)
        assert out.dtype == (np.float64 if not old else np.float32)
        np.testing.assert_array_equal(np.asarray(out), [2.5, 5.0])
        assert len(spy.calls) == 2
    finally:
        config.update("enable_x64", old)
    f.clear_cache()
    np.testing.assert_array_equal(np.asarray(f(x, 2.5)), [2.5, 5.0])
    assert len(spy.calls) == 3 and f.trace_count == 3


def test_other_argument_kinds_take_the_general_path_with_right_numbers(monkeypatch):
    spy = _GeneralPathSpy(monkeypatch)
    f = tjit.jit(lambda x, s, y=0.0: x * s + y, static_argnums=1)
    x = np.array([1.0, 2.0], np.float32)
    f(jnp.asarray(x), 3)
    n = len(spy.calls)
    # a NumPy array, a dynamic keyword and a Python scalar are not fast-path arguments
    for call, want in ((lambda: f(x, 3), x * 3), (lambda: f(jnp.asarray(x), 3, y=1.0),
                                                  x * 3 + 1), (lambda: f(2.0, 3), 6.0)):
        for _ in range(2):
            np.testing.assert_array_equal(np.asarray(call()), want)
            n += 1
            assert len(spy.calls) == n
    with pytest.raises(ValueError, match="static argument 's' must be hashable"):
        f(jnp.asarray(x), [3])


def test_statics_passed_by_keyword_in_either_order(monkeypatch):
    spy = _GeneralPathSpy(monkeypatch)
    f = tjit.jit(lambda x, a, b: x * a - b, static_argnames=("a", "b"))
    x = np.array([1, 2], np.int32)
    for i, (a, b) in enumerate(((2, 1), (2.0, 1), (2, -0.0), (2, 1))):
        if i == 3:   # (each way of passing (2, 1) was seen: no general call)
            n = len(spy.calls)
        for out in (f(jnp.asarray(x), a=a, b=b), f(jnp.asarray(x), b=b, a=a),
                    f(jnp.asarray(x), a, b=b)):
            want = x.astype(np.float64) * a - b
            floaty = isinstance(a, float) or isinstance(b, float)
            assert out.dtype == (np.float32 if floaty else np.int32)
            np.testing.assert_array_equal(np.asarray(out), want)
    assert len(spy.calls) == n
    # one program per (a, b) and way of passing a: by keyword in either order, or not
    assert f.trace_count == 3 * 2


def test_donated_arguments_deleted_on_the_fast_path():
    g = tjit.jit(lambda x, n, y: (x + n, y * n), static_argnums=1, donate_argnums=2)
    for i in range(3):   # the second and third calls take the fast path
        x = jnp.asarray(np.full(4, float(i), np.float32))
        y = jnp.asarray(np.ones(4, np.float32))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a, b = g(x, 2, y)
        np.testing.assert_array_equal(np.asarray(a), np.full(4, i + 2.0))
        np.testing.assert_array_equal(np.asarray(b), np.full(4, 2.0))
        assert y.is_deleted() and not x.is_deleted()
    assert g.trace_count == 1


# -- checkpoint's and pmap's caches key statics by static_key too --------------------------
def _twice(x, s):
    return x * _flat_number(s) + _flat_number(s)


@pytest.mark.parametrize("wrap", ["checkpoint", "pmap"])
def test_checkpoint_and_pmap_rekey_changed_and_remembered_statics(wrap):
    if wrap == "checkpoint":
        h = tjit.checkpoint(_twice, static_argnums=(1,))
        x = np.array([1, -2, 3], np.int32)
    else:
        h = tjit.pmap(_twice, static_broadcasted_argnums=1)
        x = np.array([[1, -2, 3]], np.int32)     # (one device)
    m, ints, floats = Mutable(2), (2, 3), (2.0, 3)
    for s, k in ((m, 2), (m, 2.0), (m, -0.0), (m, 2), (ints, None), (floats, None),
                 (ints, None), (floats, None), (Frozen(-0.0), None), (Frozen(0.0), None)):
        if k is not None:
            m.k = k   # (the same object changed: keyed afresh)
        n = _flat_number(s)
        # (checkpoint: under a new jit, where its trace cache serves the body)
        got = h(jnp.asarray(x), s) if wrap == "pmap" else \
            tjit.jit(lambda x: h(x, s))(jnp.asarray(x))
        want = x.astype(np.float64) * n + n
        assert got.dtype == (np.float32 if isinstance(n, float) else np.int32), (s, got)
        np.testing.assert_array_equal(np.asarray(got), want)
        assert np.array_equal(np.signbit(np.asarray(got)), np.signbit(want)), s


# -- pytrees of Arrays with statics: the last call's structure, avals and statics ----------
def _tree_fun(p, s, q=None):
    n = _flat_number(s)
    return {"a": p["a"] * n, "b": [p["b"][0] - n]}


@pytest.mark.parametrize("seed", [0, 1])
def test_pytree_calls_with_statics_repeat_on_the_fast_path(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    spy = _GeneralPathSpy(monkeypatch)
    f = tjit.jit(_tree_fun, static_argnums=1)
    arrays = [np.array([1, -2, 3], np.int32), np.array([1.5, -2.0], np.float32),
              np.array([[1, 2]], np.int32)]
    m = Mutable(2)
    previous, repeats = None, 0
    for _ in range(80):
        if previous is None or rng.integers(2):   # (else the last call's choices again)
            a, b = (arrays[j] for j in rng.integers(len(arrays), size=2))
            s = [2, 2.0, -0.0, (2, 3), (2.0, 3), Frozen(2.0), m][rng.integers(7)]
            by_name = bool(rng.integers(2))
        if s is m and rng.integers(2):
            m.k = [2, 2.0][rng.integers(2)]   # (changed in place: keyed afresh)
        numpy_leaf = rng.integers(6) == 0     # (a NumPy leaf: not the fast path)
        p = {"a": jnp.asarray(a), "b": [b if numpy_leaf else jnp.asarray(b)]}
        n_before = len(spy.calls)
        out = f(p, s=s) if by_name else f(p, s)
        n = _flat_number(s)
        floaty = isinstance(n, float)
        for got, want, x in ((out["a"], a.astype(np.float64) * n, a),
                             (out["b"][0], b.astype(np.float64) - n, b)):
            assert got.dtype == (np.float32 if floaty or x.dtype.kind == "f" else np.int32)
            np.testing.assert_array_equal(np.asarray(got), want)
            assert np.array_equal(np.signbit(np.asarray(got)), np.signbit(want))
        sig = (a.dtype, a.shape, b.dtype, b.shape, repr(type(s)), repr(s), by_name)
        if sig == previous and not numpy_leaf:   # (the same as the last call)
            assert len(spy.calls) == n_before, sig
            repeats += 1
        previous = None if numpy_leaf else sig
    assert repeats >= 15


def test_pytree_leaves_donated_with_statics_deleted_on_the_fast_path():
    g = tjit.jit(lambda p, n: [w * n for w in p], static_argnums=1, donate_argnums=0)
    for i in range(3):   # the second and third calls take the fast path
        p = [jnp.asarray(np.full(4, float(i), np.float32)), jnp.asarray(np.ones(2))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = g(p, 3)
        np.testing.assert_array_equal(np.asarray(out[0]), np.full(4, 3.0 * i))
        assert p[0].is_deleted() and p[1].is_deleted()
    assert g.trace_count == 1
