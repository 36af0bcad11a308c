"""Random multi-stage dataflow designs whose stages read temporaries and donated inputs
in different orders: the class of defect where the memory plan assumed a design's
stages run one after another (a stage wrote a slot or a donated buffer another stage of
the same design still read). Each drawn program is planned for HLS and checked for the
invariant directly (no slot holds two values that one design's kernels use; no output
goes into a donated argument's buffer that another kernel of its design reads), then
run through HLS C simulation (stages in threads) and single-work-item OpenCL on PoCL,
as a plain call, a donated call and a ``fori_loop`` carrying the same step, against the
reference interpreter. A C-simulation build is a g++ run (~1-3 s), so the default draws
a few programs; ``-m slow`` draws many. Deterministic: the "ci" profile is derandomized.
"""

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import hls_compile, opencl_context
from tjit.xla_like.compile import compile_program
from tjit.xla_like.plan import kernel_runs
from tjit.xla_like.target import HLS

_HLS = hls_compile.unavailable_reason()
_OCL = opencl_context.unavailable_reason()
pytestmark = pytest.mark.skipif(_HLS is not None, reason=str(_HLS))
BACKENDS = [
    "hls",
    pytest.param("opencl_swi", marks=[pytest.mark.opencl, pytest.mark.skipif(
        _OCL is not None, reason=str(_OCL))]),
]
SHAPE = (24, 40)

# Each op reads pool values in its own order (reversed rows or columns, row and column
# reductions broadcast back) so that stages of one design consume a value at different
# times; "host" is a sort (a library step): it ends a design, so values made after it
# may reuse the slots of values that died before it.
OPS = {
    "tanh": (1, lambda m, a: m.tanh(a) * 0.9),
    "scale": (1, lambda m, a: a * 0.5 + 0.25),
    "rev_rows": (1, lambda m, a: a[::-1, :] * 0.75),
    "rev_cols": (1, lambda m, a: a[:, ::-1] - 0.125),
    "row_sum": (1, lambda m, a: a - m.sum(a, axis=1, keepdims=True) / SHAPE[1]),
    "col_max": (1, lambda m, a: a * 0.5 - m.max(a, axis=0, keepdims=True)),
    "host": (1, lambda m, a: m.sort(a, axis=1)),
    "add": (2, lambda m, a, b: a + b),
    "mul": (2, lambda m, a, b: a * m.tanh(b)),
    "where": (2, lambda m, a, b: m.where(a > b, a, b * 0.5)),
}


@st.composite
def designs(draw):
    """(steps, outputs): steps ``(op, operand indices)`` over a pool that starts with the
    two inputs (0: the donated one); outputs: pool indices, the first the new value of
    input 0 (the update a donated call or a loop writes into its buffer)."""
    n = draw(st.integers(3, 9))
    steps = []
    for k in range(n):
        size = 2 + k
        op = draw(st.sampled_from(sorted(OPS)))
        # (operands drawn towards the inputs and the oldest values: late readers)
        args = tuple(draw(st.integers(0, size - 1)) for _ in range(OPS[op][0]))
        steps.append((op, args))
    size = 2 + n
    update = draw(st.integers(2, size - 1))
    sides = draw(st.lists(st.integers(0, size - 1), max_size=2, unique=True))
    return steps, [update] + [s for s in sides if s != update]


def evaluate(m, w, x, steps, outputs):
    pool = [w, x]
    for op, args in steps:
        pool.append(OPS[op][1](m, *(pool[a] for a in args)))
    return [pool[k] for k in outputs]


def _inputs(seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(2)]


def _check(got, want, what):
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-4,
                                   err_msg=what)


def plan_races(prog):
    """Where ``prog``'s plan lets a design write memory another of its kernels reads:
    slots holding two values of one design, and outputs written into a donated
    argument's buffer beside another kernel of the design reading the argument (an
    in-place kernel that is its only reader reads each element before writing it)."""
    found = []
    runs = [steps for _, steps in kernel_runs(prog.steps)]
    for steps in runs:
        used = {v for s in steps for v in s.ins + s.outs if v in prog.slot_of}
        by_slot = {}
        for v in used:
            by_slot.setdefault(prog.slot_of[v], []).append(v)
        found += [("slot", k, vs) for k, vs in by_slot.items() if len(vs) > 1]
        for pos, o in prog.aliases.items():
            p = prog.params[pos]
            writer = [s for s in steps if o in s.outs]
            readers = [s for s in steps if p in s.ins]
            if writer and readers and readers != writer:
                found.append(("donated", pos, o))
    for body in prog.sub_programs():
        found += plan_races(body)
    return found


def _programs(steps, outputs):
    """The drawn step as a plain function, and inside a fori_loop (its carries are
    donated to the body's outputs from the second trip on)."""
    def f(w, x):
        return tuple(evaluate(jnp, w, x, steps, outputs))

    def loop(w, x):
        def body(i, c):
            w, acc = c
            out = evaluate(jnp, w, x, steps, outputs)
            return out[0], acc + sum(jnp.sum(o) for o in out[1:]) * 1e-3
        return lax.fori_loop(0, 3, body, (w, jnp.float32(0)))
    return f, loop


def _check_design(backend, design, seed):
    steps, outputs = design
    w, x = _inputs(seed)
    f, loop = _programs(steps, outputs)
    what = f"{backend}: {steps} -> {outputs}"
    for g in (f, loop):
        assert not plan_races(compile_program(tjit.make_jaxpr(g)(w, x), HLS, (0,))), what
    _check(tjit.jit(f, backend=backend)(w, x), tjit.jit(f, backend="interpreter")(w, x), what)
    with warnings.catch_warnings():     # (a donation the plan declines warns)
        warnings.simplefilter("ignore")
        exe = tjit.jit(f, donate_argnums=0).lower(w, x).compile(backend=backend).executable
    want = tjit.jit(f, backend="interpreter")(w, x)
    for _ in range(3):                  # (a race shows on some calls only)
        _check(exe.call([w.copy(), x], (0,)), want, what + " (donated)")
    got = tjit.tree_util.tree_leaves(tjit.jit(loop, backend=backend)(w, x))
    _check(got, tjit.tree_util.tree_leaves(tjit.jit(loop, backend="interpreter")(w, x)),
           what + " (fori_loop)")


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=3, deadline=None)
@given(designs(), st.integers(0, 2**16))
def test_random_design_matches_interpreter(backend, design, seed):
    _check_design(backend, design, seed)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None)
@given(designs(), st.integers(0, 2**16))
def test_random_design_many(backend, design, seed):
    _check_design(backend, design, seed)


def test_hls_plans_have_no_race_and_in_order_plans_do():
    """The invariant on many drawn programs (planning only, no build); the same programs
    planned with in-order liveness (``concurrent_kernels=False``) must show races on
    many of them, or the generator no longer draws the defect's class."""
    in_order = dataclasses.replace(HLS, concurrent_kernels=False)
    w, x = _inputs(0)
    raced = {"slot": 0, "donated": 0}

    @settings(max_examples=150, deadline=None)
    @given(designs())
    def check(design):
        steps, outputs = design
        for g in _programs(steps, outputs):
            cj = tjit.make_jaxpr(g)(w, x)
            assert not plan_races(compile_program(cj, HLS, (0,))), (steps, outputs)
            for kind in {r[0] for r in plan_races(compile_program(cj, in_order, (0,)))}:
                raced[kind] += 1
    check()
    assert raced["slot"] >= 5 and raced["donated"] >= 5, raced
