"""Table-driven primitive tests: one :class:`OpRecord` per case runs

  1. eager tjit vs a NumPy reference (independent oracle),
  2. the traced jaxpr: type-checked, output avals equal the eager result's shape/dtype,
  3. ``jit`` (interpreter backend) vs eager,
  4. ``eval_jaxpr`` (re-binding) and ``eval_jaxpr_reference`` vs eager.

Records live next to the tests of each primitive family (``test_<family>.py`` defines
``RECORDS``); ``test_registry.py`` checks every registered primitive is covered.
"""

import dataclasses

import numpy as np

import tjit
from tjit.tracing.jaxpr import check_jaxpr, eval_jaxpr, eval_jaxpr_reference


@dataclasses.dataclass
class OpRecord:
    name: str
    fn: object                 # callable on tjit arrays
    ref: object                # callable on NumPy arrays
    args: tuple                # tuple of arg specs: (shape, dtype[, kind]) or concrete values
    primitives: tuple = ()     # names of primitives this record exercises
    rtol: float = 1e-6
    atol: float = 1e-6
    static: tuple = ()         # positions of args passed as Python values (not arrays)

    def __str__(self):
        return self.name


def make_arg(spec, rng):
    """(shape, dtype, kind) -> NumPy array. kinds: normal, positive, unit, int, small_int,
    bool, nonzero, anything given as a callable(rng, shape) -> values."""
    if not isinstance(spec, tuple) or len(spec) < 2 or not isinstance(spec[0], tuple):
        return spec  # a concrete value
    shape, dtype = spec[0], np.dtype(spec[1])
    kind = spec[2] if len(spec) > 2 else "normal"
    if callable(kind):
        v = kind(rng, shape)
    elif dtype == np.bool_ or kind == "bool":
        v = rng.random(shape) < 0.5
    elif np.issubdtype(dtype, np.integer):
        lo, hi = (0, 10) if np.issubdtype(dtype, np.unsignedinteger) else (-10, 10)
        if kind == "nonzero":
            v = rng.integers(1, hi, shape) * (1 if lo == 0 else rng.choice([-1, 1], shape))
        elif kind == "positive":
            v = rng.integers(1, hi, shape)
        else:
            v = rng.integers(lo, hi, shape)
    elif kind == "positive":
        v = rng.uniform(0.1, 3.0, shape)
    elif kind == "unit":
        v = rng.uniform(-0.95, 0.95, shape)
    elif kind == "nonzero":
        v = rng.uniform(0.5, 3.0, shape) * rng.choice([-1.0, 1.0], shape)
    elif kind == "gt1":
        v = rng.uniform(1.05, 4.0, shape)
    else:
        v = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating) and not callable(kind):
        v = v + 1j * rng.standard_normal(shape)
    return np.asarray(v).astype(dtype)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def assert_close(actual, expected, rtol, atol, what):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if actual.dtype == np.bool_ or np.issubdtype(actual.dtype, np.integer):
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what,
                                   equal_nan=True)


def check_record(rec, seed=0):
    rng = np.random.default_rng(seed)
    np_args = [make_arg(s, rng) for s in rec.args]
    tj_args = [a if i in rec.static else tjit.numpy.asarray(a) for i, a in enumerate(np_args)]

    # 1. eager vs NumPy
    eager = _as_list(rec.fn(*tj_args))
    ref = _as_list(rec.ref(*np_args))
    assert len(eager) == len(ref), f"{rec.name}: {len(eager)} outputs vs {len(ref)}"
    for e, r in zip(eager, ref):
        assert isinstance(e, tjit.Array), f"{rec.name}: eager output is {type(e)}"
        r = np.asarray(r)
        assert_close(e, r.astype(e.dtype) if r.dtype != e.dtype and r.size else r,
                     rec.rtol, rec.atol, f"{rec.name} eager vs NumPy")

    # 2. jaxpr typing
    dyn = [i for i in range(len(tj_args)) if i not in rec.static]

    def flat(*dyn_vals):
        full = list(tj_args)
        for i, v in zip(dyn, dyn_vals):
            full[i] = v
        return rec.fn(*full)

    dyn_args = [tj_args[i] for i in dyn]
    closed = tjit.make_jaxpr(flat)(*dyn_args)
    check_jaxpr(closed)
    for e, aval in zip(eager, closed.out_avals):
        assert tuple(e.shape) == tuple(aval.shape), f"{rec.name}: eager shape {e.shape} vs " \
                                                   f"traced {aval}"
        assert e.dtype == aval.dtype, f"{rec.name}: eager dtype {e.dtype} vs traced {aval}"

    # 3. jit vs eager
    jitted = _as_list(tjit.jit(flat)(*dyn_args))
    for j, e in zip(jitted, eager):
        assert j.dtype == e.dtype, f"{rec.name}: jit dtype {j.dtype} vs eager {e.dtype}"
        assert_close(j, e, 1e-6, 1e-6, f"{rec.name} jit vs eager")

    # 4. both interpreters vs eager
    raw = [np.asarray(a) for a in dyn_args]
    outs = eval_jaxpr_reference(closed.jaxpr, closed.consts, raw)
    for o, e in zip(outs, eager):
        assert_close(o, e, 1e-6, 1e-6, f"{rec.name} eval_jaxpr_reference vs eager")
    outs = eval_jaxpr(closed.jaxpr, closed.consts, *dyn_args)
    for o, e in zip(outs, eager):
        assert_close(o, e, 1e-6, 1e-6, f"{rec.name} eval_jaxpr vs eager")
    return closed
