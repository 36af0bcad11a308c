"""Tracebacks leaving tjit's public entry points end in user code (JAX's traceback_util)."""

import os
import traceback

import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.traceback_util import UnfilteredStackTrace, filter_traceback

TJIT_DIR = os.path.dirname(tjit.__file__)


def _frames(tb):
    return [f.filename for f in traceback.extract_tb(tb)]


def _tjit_frames(tb):
    return [f for f in _frames(tb) if f.startswith(TJIT_DIR)]


def user_fn(x):
    return jnp.dot(x, jnp.ones((3, 4)))  # (2, 5) @ (3, 4): a shape error


@pytest.fixture
def mode():
    old = tjit.config.traceback_filtering
    yield lambda m: tjit.config.update("traceback_filtering", m)
    tjit.config.update("traceback_filtering", old)


def _raise(entry):
    with pytest.raises(tjit.ShapeError) as info:
        entry()
    return info.value


ENTRY_POINTS = {
    "jit": lambda: tjit.jit(user_fn)(jnp.ones((2, 5))),
    "grad": lambda: tjit.grad(lambda x: user_fn(x).sum())(jnp.ones((2, 5))),
    "vmap": lambda: tjit.vmap(user_fn)(jnp.ones((4, 2, 5))),
    "jit_of_grad": lambda: tjit.jit(tjit.grad(lambda x: user_fn(x).sum()))(jnp.ones((2, 5))),
    "jvp": lambda: tjit.jvp(user_fn, (jnp.ones((2, 5)),), (jnp.ones((2, 5)),)),
    "make_jaxpr": lambda: tjit.make_jaxpr(user_fn)(jnp.ones((2, 5))),
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_remove_frames_drops_tjit_frames_and_keeps_the_original(mode, entry):
    mode("remove_frames")
    e = _raise(ENTRY_POINTS[entry])
    assert not _tjit_frames(e.__traceback__), _frames(e.__traceback__)
    assert any(f.endswith("test_traceback_filtering.py") for f in _frames(e.__traceback__))
    # the user's function is still in the trace, so the error points at its line
    assert "user_fn" in [f.name for f in traceback.extract_tb(e.__traceback__)]
    assert isinstance(e.__cause__, UnfilteredStackTrace)
    assert _tjit_frames(e.__cause__.__traceback__)  # the full trace is kept
    assert "ShapeError" in "".join(traceback.format_exception(e))


def test_quiet_remove_frames_adds_a_note(mode):
    mode("quiet_remove_frames")
    e = _raise(ENTRY_POINTS["jit"])
    assert not _tjit_frames(e.__traceback__)
    assert e.__cause__ is None
    assert any("TJIT_TRACEBACK_FILTERING=off" in n for n in e.__notes__)


def test_auto_outside_ipython_removes_frames_quietly(mode):
    mode("auto")
    e = _raise(ENTRY_POINTS["vmap"])
    assert not _tjit_frames(e.__traceback__)
    assert len(e.__notes__) == 1


def test_off_leaves_the_traceback_untouched(mode):
    mode("off")
    e = _raise(ENTRY_POINTS["jit"])
    assert _tjit_frames(e.__traceback__)
    assert e.__cause__ is None and not getattr(e, "__notes__", None)


def test_tracebackhide_marks_tjit_frames(mode):
    mode("tracebackhide")
    e = _raise(ENTRY_POINTS["jit"])
    tb, marked, unmarked = e.__traceback__, 0, 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(TJIT_DIR):
            marked += bool(tb.tb_frame.f_locals.get("__tracebackhide__"))
            unmarked += not tb.tb_frame.f_locals.get("__tracebackhide__")
        tb = tb.tb_next
    assert marked and not unmarked


def test_nested_boundaries_filter_once(mode):
    """jit(grad(f)): the inner boundary leaves the exception to the outermost one."""
    mode("remove_frames")
    e = _raise(ENTRY_POINTS["jit_of_grad"])
    assert isinstance(e.__cause__, UnfilteredStackTrace)
    assert not isinstance(e.__cause__.__cause__, UnfilteredStackTrace)


def test_exception_chain_of_the_user_is_kept(mode):
    mode("remove_frames")

    def f(x):
        try:
            raise KeyError("inner")
        except KeyError as k:
            raise ValueError("outer") from k

    with pytest.raises(ValueError) as info:
        tjit.jit(f)(jnp.ones(2))
    assert isinstance(info.value.__cause__.__cause__, KeyError)


def test_filter_traceback_keeps_user_frames_in_order():
    try:
        user_fn(jnp.ones((2, 5)))
    except tjit.ShapeError as e:
        tb = e.__traceback__
    kept = [f.name for f in traceback.extract_tb(filter_traceback(tb))]
    assert kept == ["test_filter_traceback_keeps_user_frames_in_order", "user_fn"]


def test_bad_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="traceback_filtering.*remove_frames"):
        tjit.config.update("traceback_filtering", "sometimes")
