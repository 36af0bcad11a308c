"""Every public callable of tjit.lax, tjit.numpy.random (and its Generator's methods),
tjit.random, tjit.nn, tjit.scipy's modules and tjit.numpy.linalg/fft, and the Array
conversions and protocols a user calls (float(x), len(x), np.asarray(x)...), when
called eagerly with bad input, raises with a traceback whose last frame is the
caller's own line and holds no tjit frame; with TJIT_TRACEBACK_FILTERING=off the tjit
frames are there (tjit/_namespace.py's publish makes the entry points;
tracing/traceback_util.py filters)."""

import importlib
import os
import traceback
import types
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

TJIT_DIR = os.path.dirname(tjit.__file__) + os.sep
THIS_FILE = os.path.abspath(__file__)

NAMESPACES = [
    "tjit.lax", "tjit.lax.linalg", "tjit.numpy.random", "tjit.random", "tjit.nn",
    "tjit.nn.initializers", "tjit.scipy.special", "tjit.scipy.linalg", "tjit.scipy.signal",
    "tjit.scipy.ndimage", "tjit.scipy.integrate", "tjit.scipy.stats",
    "tjit.scipy.optimize", "tjit.scipy.sparse.linalg", "tjit.numpy.linalg", "tjit.numpy.fft",
] + [f"tjit.scipy.stats.{d}" for d in tjit.scipy.stats.__all__
     if isinstance(getattr(tjit.scipy.stats, d), types.ModuleType)]

# bad inputs, tried in turn until one raises (each one a call from this file's line)
_BAD = [("x",), (object(),), (), (jnp.ones((2, 3)), "x"),
        (jnp.ones((2, 3)), object(), object())]


def _call_from_here(fn, args):
    fn(*args)  # the last frame of every traceback the test accepts


def _raised(fn):
    """The error of the first bad input ``fn`` refuses, or None."""
    for args in _BAD:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _call_from_here(fn, args)
        except Exception as e:  # noqa: BLE001 - each function raises its own type
            return e
    return None


def _callables():
    """(label, callable) for each public function of the namespaces, the public methods
    of their classes (on an instance where one is made without arguments), and the
    initializers that tjit.nn.initializers' factories return."""
    out = []
    for ns in NAMESPACES:
        mod = importlib.import_module(ns)
        for name in mod.__all__:
            value = getattr(mod, name)
            if isinstance(value, types.ModuleType):
                continue
            if isinstance(value, type):
                if ns == "tjit.numpy.random" and name == "Generator":
                    rng = jnp.random.default_rng(0)
                    out += [(f"{ns}.Generator.{m}", getattr(rng, m)) for m in vars(value)
                            if not m.startswith("_") and callable(getattr(rng, m))]
                continue
            if callable(value):
                out.append((f"{ns}.{name}", value))
    from tjit.nn import initializers
    for name in ["constant", "uniform", "normal", "truncated_normal", "glorot_uniform",
                 "he_normal", "lecun_uniform", "orthogonal"]:
        factory = getattr(initializers, name)
        init = factory(0.5) if name == "constant" else factory()
        out.append((f"tjit.nn.initializers.{name}()", init))
    return out


_CALLABLES = _callables()
# what no bad input makes raise, listed so that a new one is noticed: initializer
# factories take anything and return the initializer (whose errors are tested above)
_TAKES_ANYTHING = {f"tjit.nn.initializers.{n}" for n in [
    "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "kaiming_normal",
    "kaiming_uniform", "lecun_normal", "lecun_uniform", "orthogonal", "delta_orthogonal",
    "truncated_normal",
    "xavier_normal", "xavier_uniform"]}


@pytest.fixture
def mode():
    old = tjit.config.traceback_filtering
    yield lambda m: tjit.config.update("traceback_filtering", m)
    tjit.config.update("traceback_filtering", old)


def _frames(e):
    return traceback.extract_tb(e.__traceback__)


def test_every_public_callable_raises_into_the_callers_frame(mode):
    mode("quiet_remove_frames")
    assert len(_CALLABLES) > 300
    silent, leaking = [], []
    for label, fn in _CALLABLES:
        e = _raised(fn)
        if e is None:
            silent.append(label)
            continue
        frames = _frames(e)
        last = frames[-1]
        if (os.path.abspath(last.filename) != THIS_FILE or last.name != "_call_from_here"
                or any(f.filename.startswith(TJIT_DIR) for f in frames)):
            leaking.append((label, type(e).__name__, last.filename, last.name))
    assert leaking == []
    assert set(silent) == _TAKES_ANYTHING


def test_filtering_off_keeps_the_tjit_frames(mode):
    """off: tracebacks are untouched: tjit's frames (the entry point's at least) are
    there, with no filtering note or unfiltered cause (a "(raised in lax.abs)" note,
    where the message names no operation, is kept)."""
    mode("off")
    inside = 0
    for label, fn in _CALLABLES:
        e = _raised(fn)
        if e is None:
            continue
        assert not any("TJIT_TRACEBACK_FILTERING" in n for n in getattr(e, "__notes__", ())), \
            label
        assert not isinstance(e.__cause__, tjit.tracing.traceback_util.UnfilteredStackTrace)
        if any(f.filename.startswith(TJIT_DIR) for f in _frames(e)):
            inside += 1
        else:  # only Python's own refusal of the call's arguments has no frame inside
            assert isinstance(e, TypeError) and "argument" in str(e), (label, e)
    assert inside > len(_CALLABLES) // 2


_x, _s, _i = jnp.ones(3), jnp.asarray(1.5), jnp.asarray(np.int32(4))
DUNDERS = {
    "__float__": lambda: float(_x),
    "__int__": lambda: int(_x),
    "__bool__": lambda: bool(_x),
    "__complex__": lambda: complex(_x),
    "__index__": lambda: [1, 2, 3][_s],
    "__len__": lambda: len(_s),
    "__iter__": lambda: iter(_s),
    "__array__": lambda: _x.__array__(dtype="not a dtype"),
    "item": lambda: _x.item(7),
}


@pytest.mark.parametrize("name", sorted(DUNDERS))
def test_array_conversions_raise_into_the_callers_frame(mode, name):
    mode("remove_frames")
    with pytest.raises(Exception) as info:  # each its own type
        DUNDERS[name]()
    frames = _frames(info.value)
    assert os.path.abspath(frames[-1].filename) == THIS_FILE and \
        frames[-1].name == "<lambda>", frames[-1]
    assert not any(f.filename.startswith(TJIT_DIR) for f in frames)
    mode("off")
    with pytest.raises(Exception) as info:
        DUNDERS[name]()
    assert any(f.filename.startswith(TJIT_DIR) for f in _frames(info.value))


def test_conversions_still_work_and_internal_callers_are_not_filtered(mode):
    mode("remove_frames")
    assert float(_s) == 1.5 and int(_i) == 4 and [0, 1, 2, 3, 4][_i] == 4
    assert len(_x) == 3 and [float(v) for v in _x] == [1.0, 1.0, 1.0]
    np.testing.assert_array_equal(np.asarray(_x), np.ones(3))
    # an error raised inside jit leaves through jit's boundary only, filtered once
    with pytest.raises(Exception) as info:
        tjit.jit(lambda v: tjit.lax.add(v, "x"))(_x)
    assert not isinstance(info.value.__cause__.__cause__,
                          tjit.tracing.traceback_util.UnfilteredStackTrace)
