"""The eager two-Array lane keyed by signature ids (tracing.core.signature), its plans
for operands that need promotion or broadcasting (numpy._mixed_lane), the plan tables
emptied when the x64 switch changes (numpy._lane_tables), and NumPy's warnings switched
off by entering a context of their own (tracing.fp_quiet.quiet_run).

Every result is checked against the reference interpreter under ``jit`` (dtype, weak
flag and bits) on the signature's first call (the general path) and on later ones
(the kept plan), and the values against NumPy in float64.
"""

import threading
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.core import signature
from tjit.tracing.fp_quiet import quiet_call, quiet_run

from tests.numpy.exact import assert_same as _same

#: JAX never warns: a lane call that needed NumPy's warnings off would fail here
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

_RNG = np.random.default_rng(7)


def _interp(f, *args):
    return tjit.jit(f, backend="interpreter")(*args)


def _operands():
    return {
        "f32[16]": jnp.asarray(_RNG.standard_normal(16).astype(np.float32)),
        "f32[3,4]": jnp.asarray(_RNG.standard_normal((3, 4)).astype(np.float32)),
        "f32[4]": jnp.asarray(_RNG.standard_normal(4).astype(np.float32)),
        "f16[16]": jnp.asarray(_RNG.standard_normal(16).astype(np.float16)),
        "i32[16]": jnp.asarray(_RNG.integers(-50, 50, 16).astype(np.int32)),
        "i32[16] nonzero": jnp.asarray(_RNG.integers(1, 50, 16).astype(np.int32)),
        "i32[3,4]": jnp.asarray(_RNG.integers(-50, 50, (3, 4)).astype(np.int32)),
        "i8[4]": jnp.asarray(np.array([-128, -1, 3, 127], np.int8)),
        "u8[16]": jnp.asarray(_RNG.integers(0, 255, 16).astype(np.uint8)),
        "bool[16]": jnp.asarray(_RNG.integers(0, 2, 16).astype(bool)),
        # weakly typed arrays, as a Python number's broadcast under jit gives
        "weak f32[16]": tjit.tracing.core.Array(_RNG.standard_normal(16).astype(np.float32), True),
        "weak i32[4]": tjit.tracing.core.Array(np.array([3, -2, 0, 9], np.int32), True),
    }


#: (lhs, rhs): pairs that need promotion, broadcasting or both
PAIRS = [("f32[16]", "i32[16]"), ("i32[16]", "i32[16] nonzero"), ("f32[3,4]", "f32[4]"),
         ("i32[3,4]", "f32[4]"), ("f16[16]", "f32[16]"), ("u8[16]", "i32[16]"),
         ("bool[16]", "f32[16]"), ("i8[4]", "i32[3,4]"), ("f32[16]", "weak f32[16]"),
         ("weak i32[4]", "f32[3,4]"), ("weak i32[4]", "i8[4]"), ("weak f32[16]", "i32[16]"),
         ("f32[4]", "f32[3,4]")]
OPS = ["add", "subtract", "multiply", "true_divide", "maximum", "minimum", "less",
       "equal", "arctan2", "power", "floor_divide", "remainder"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("lhs,rhs", PAIRS)
def test_mixed_pairs_match_interpreter_on_every_call(op, lhs, rhs):
    ops = _operands()
    x, y = ops[lhs], ops[rhs]
    f = getattr(jnp, op)
    want = _interp(f, x, y)
    for _ in range(3):  # the general path, then the kept plan
        _same(f(x, y), want)


@pytest.mark.parametrize("op", ["+", "*", "/", "<", "=="])
def test_operators_match_numpy_in_float64(op):
    ops = _operands()
    fn = {"+": np.add, "*": np.multiply, "/": np.true_divide, "<": np.less,
          "==": np.equal}[op]
    for lhs, rhs in [("f32[16]", "i32[16]"), ("i32[16]", "i32[16] nonzero"),
                     ("f32[3,4]", "f32[4]")]:
        x, y = ops[lhs], ops[rhs]
        want = fn(np.asarray(x, np.float64), np.asarray(y, np.float64))
        for _ in range(2):
            got = eval(f"x {op} y")
            np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=1e-6)


def test_result_carries_its_signature():
    """A lane's result holds its plan's signature id: the id a fresh Array of the same
    shape, dtype and weak flag gets (a wrong one would pick another signature's plan)."""
    ops = _operands()
    for lhs, rhs in PAIRS:
        x, y = ops[lhs], ops[rhs]
        for _ in range(3):
            out = x * y
            if out._sig is not None:
                fresh = tjit.tracing.core.Array(np.array(out._value), out.weak_type)
                assert out._sig == signature(fresh), (lhs, rhs)


def test_signature_ids():
    a = jnp.ones(3, jnp.float32)
    assert signature(a) == signature(jnp.zeros(3, jnp.float32))
    assert signature(a) != signature(jnp.ones(4, jnp.float32))
    assert signature(a) != signature(jnp.ones(3, jnp.int32))
    assert signature(a) != signature(tjit.tracing.core.Array(np.ones(3, np.float32), True))  # weak
    assert a._sig == signature(a)


def test_deleted_array_is_refused_after_its_plan_was_kept():
    x, y = jnp.ones((3, 4)), jnp.arange(4, dtype=jnp.float32)
    x + y
    x + y
    x.delete()
    assert x._sig is None
    with pytest.raises(RuntimeError):
        x + y


@pytest.mark.parametrize("lhs,rhs", [("i32[16]", "i32[16] nonzero"), ("f32[16]", "i32[16]"),
                                     ("weak i32[4]", "f32[3,4]"), ("u8[16]", "i32[16]")])
def test_plans_follow_the_x64_switch(lhs, rhs):
    """A plan made under one x64 setting never serves the other (int32 / int32 is
    float32 without x64, float64 with it): each call matches the interpreter's under the
    setting of the moment, switched back and forth."""
    ops = _operands()
    x, y = ops[lhs], ops[rhs]
    old = tjit.config.enable_x64
    try:
        for x64 in [False, True, False, True]:
            tjit.config.update("enable_x64", x64)
            for f in (jnp.true_divide, jnp.multiply, jnp.add):
                want = _interp(f, x, y)
                for _ in range(2):
                    _same(f(x, y), want)
    finally:
        tjit.config.update("enable_x64", old)


def test_no_warnings_where_numpy_would_warn():
    big = jnp.asarray(np.full(4, 3e38, np.float32))
    ints = jnp.asarray(np.array([4, 0, -1, 2], np.int32))
    zeros = jnp.asarray(np.zeros(4, np.int32))
    m = jnp.asarray(np.full((2, 4), 3e38, np.float32))
    for _ in range(3):  # (filterwarnings: a RuntimeWarning fails the test)
        assert np.isinf(np.asarray(big * ints)[0])
        assert np.isinf(np.asarray(ints / zeros)[0]) and np.isnan(np.asarray(zeros / zeros)[0])
        assert np.isinf(np.asarray(m + big)).all()


def test_quiet_run_switches_warnings_off_and_refuses_reentry():
    x = np.array([3e38, 1.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = quiet_run(np.multiply, x, np.float32(10))
        assert np.isinf(out[0])
        assert np.isinf(quiet_call(np.multiply, x, np.float32(10))[0])
        # entered already (the call below runs inside it): RuntimeError, and the lanes
        # take quiet_call instead
        with pytest.raises(RuntimeError):
            quiet_run(quiet_run, np.multiply, x, x)
        # the caller's error state is untouched
        with pytest.raises(FloatingPointError), np.errstate(over="raise"):
            np.multiply(x, np.float32(10))


def test_threads_share_the_lanes():
    """Eager ops from several threads at once (the quiet context is entered by one thread
    at a time; the others fall back) give the single-thread results, without warnings."""
    ops = _operands()
    pairs = [(ops[a], ops[b]) for a, b in PAIRS]
    want = [np.asarray(x * y) for x, y in pairs] + [np.asarray(x / y) for x, y in pairs]
    big = jnp.asarray(np.full(64, 3e38, np.float32))
    errors = []

    def work():
        # (a RuntimeWarning raises here too: the module's filterwarnings mark sets the
        # process-wide filters; catch_warnings is not thread-safe, so none is entered)
        try:
            for _ in range(200):
                got = [np.asarray(x * y) for x, y in pairs] + \
                    [np.asarray(x / y) for x, y in pairs]
                for g, w in zip(got, want):
                    assert g.dtype == w.dtype and g.tobytes() == w.tobytes()
                assert np.isinf(np.asarray(big + big)).all()
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_lanes_stay_off_under_tracing():
    """Two concrete Arrays combined inside jit are staged (the lane serves the eager
    trace only), so the jaxpr shows the op."""
    x, y = jnp.ones((3, 4)), jnp.arange(4, dtype=jnp.int32)
    x * y
    x * y  # a kept plan
    jaxpr = tjit.make_jaxpr(lambda: x * y)()
    assert "mul" in str(jaxpr)
