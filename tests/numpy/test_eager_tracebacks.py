"""Errors of eager ``tjit.numpy`` calls end in user code (tracing/traceback_util.py's
filter_at_entry): for a sweep of functions, operators and methods given a bad shape,
dtype or axis, the traceback's last frame is the user's line and no frame is tjit's,
the message names the operation, and TJIT_TRACEBACK_FILTERING=off (``off``) leaves
the traceback whole. The fast lanes keep working after each error."""

import os
import traceback

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

TJIT_DIR = os.path.dirname(tjit.__file__) + os.sep
THIS_FILE = os.path.abspath(__file__)

a3, a4 = jnp.ones(3), jnp.ones(4)
m = jnp.ones((2, 3))
i3 = jnp.arange(3)

# name the message must contain -> the user's call (each lambda's line is its last frame)
CASES = {
    "reshape": lambda: jnp.reshape(a3, (7,)),
    "add": lambda: jnp.add(a3, a4),
    "add ": lambda: a3 + a4,                       # the operator
    "subtract": lambda: 1.0 - jnp.ones((2, 3)) - a4,
    "multiply": lambda: a3 * jnp.ones(5),
    "true_divide": lambda: jnp.true_divide(a3, a4),
    "sum": lambda: jnp.sum(m, axis=2),
    "sum ": lambda: m.sum(axis=5),                 # a method
    "mean": lambda: jnp.mean(m, axis=-3),
    "exp": lambda: jnp.exp("x"),
    "negative": lambda: jnp.negative(jnp.asarray(np.array([True]))),
    "power": lambda: jnp.power(a3, a4),
    "bitwise_and": lambda: a3 & a3,
    "invert": lambda: ~a3,
    "logaddexp": lambda: jnp.logaddexp(a3, a4),
    "logical_and": lambda: jnp.logical_and(a3, a4),
    "matmul": lambda: m @ m,
    "concatenate": lambda: jnp.concatenate([m, a3]),
    "transpose": lambda: jnp.transpose(m, (0, 2)),
    "astype": lambda: a3.astype("U3"),
    "asarray": lambda: jnp.asarray(["x", "y"]),
    "where": lambda: jnp.where(a3 > 0, a4, 0.0),
    "index": lambda: m[0, 0, 0],  # too many indices (out-of-bounds ints clamp, as JAX)
    "at": lambda: jnp.zeros(3).at[0].set(jnp.ones(2)),
    "linalg.inv": lambda: jnp.linalg.inv(m),
    "fft": lambda: jnp.fft.fft(a3, axis=3),
    "argmax": lambda: jnp.argmax(m, axis=4),
    "clip": lambda: jnp.clip(a3, a4, 2.0),
}
# what each message names, where the name of the case is not the operation's own word
NAMED = {"index": "index", "at": "x.at[idx].set", "linalg.inv": "inv", "fft": "fft",
         "add ": "add", "sum ": "sum", "subtract": "subtract", "invert": "invert",
         "bitwise_and": "bitwise_and", "matmul": "matmul", "asarray": "asarray"}


@pytest.fixture
def mode():
    old = tjit.config.traceback_filtering
    yield lambda m: tjit.config.update("traceback_filtering", m)
    tjit.config.update("traceback_filtering", old)


def _raised(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the sweep takes each case's own type
        return e
    raise AssertionError("no error")


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filtering", ["quiet_remove_frames", "remove_frames"])
def test_eager_errors_end_in_user_code(mode, name, filtering):
    mode(filtering)
    for _ in range(2):  # the first call of a signature and a later one
        e = _raised(CASES[name])
        frames = traceback.extract_tb(e.__traceback__)
        assert not [f for f in frames if f.filename.startswith(TJIT_DIR)], \
            traceback.format_tb(e.__traceback__)
        assert os.path.abspath(frames[-1].filename) == THIS_FILE, frames[-1]
        assert frames[-1].name == "<lambda>"  # the user's call is the last frame
        word = NAMED.get(name, name.strip())  # in the message, or noted beside it
        assert word in str(e) or f"jnp.{word}" in "".join(getattr(e, "__notes__", ())), \
            (word, str(e))
    if filtering == "remove_frames":  # the whole traceback is kept as the cause
        assert isinstance(e.__cause__, tjit.tracing.traceback_util.UnfilteredStackTrace)
        assert any(f.filename.startswith(TJIT_DIR)
                   for f in traceback.extract_tb(e.__cause__.__traceback__))


@pytest.mark.parametrize("name", ["reshape", "add ", "sum ", "index", "at"])
def test_off_keeps_tjit_frames(mode, name):
    mode("off")
    e = _raised(CASES[name])
    assert any(f.filename.startswith(TJIT_DIR) for f in traceback.extract_tb(e.__traceback__))
    assert not getattr(e, "__notes__", None)


def test_tracebackhide_marks_every_tjit_frame(mode):
    mode("tracebackhide")
    e = _raised(CASES["reshape"])
    tb, tjit_frames = e.__traceback__, 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(TJIT_DIR):
            tjit_frames += 1
            assert tb.tb_frame.f_locals.get("__tracebackhide__"), tb.tb_frame.f_code
        tb = tb.tb_next
    assert tjit_frames


def test_errors_inside_jit_still_filtered_once(mode):
    """An eager entry point called by a function jit traces leaves the filtering to
    jit's boundary (one UnfilteredStackTrace, not one per level)."""
    mode("remove_frames")

    def f(x):
        return jnp.reshape(x, (7,))
    e = _raised(lambda: tjit.jit(f)(a3))
    names = [fr.name for fr in traceback.extract_tb(e.__traceback__)]
    assert names[-1] == "f" and "<lambda>" in names
    assert not isinstance(e.__cause__.__cause__, tjit.tracing.traceback_util.UnfilteredStackTrace)


def test_operators_still_defer_and_fast_lanes_still_run(mode):
    mode("quiet_remove_frames")

    class Other:
        def __radd__(self, other):
            return "deferred"
    assert a3 + Other() == "deferred"  # NotImplemented, not a filtered TypeError
    with pytest.raises(TypeError, match="unsupported operand"):
        a3 + object()
    _raised(CASES["add "])
    np.testing.assert_array_equal(a3 + a3, np.full(3, 2.0))
    np.testing.assert_array_equal(jnp.exp(jnp.zeros(2)), np.ones(2))
    assert jnp.abs is jnp.absolute  # aliases stay one function
    assert jnp.reshape.__wrapped__.__name__ == "reshape"  # signature and docs kept
    assert "reshape" in jnp.reshape.__doc__.lower()
