"""Every op record through the compiled CPU path at symbolic sizes.

Each record's array arguments get polymorphic shapes: every distinct dim above 1 becomes
a size symbol (dims of equal size share one, so "same size" constraints keep holding;
0 and 1 stay literal, as broadcasting depends on them). The record is traced once with
``jit(polymorphic_shapes=...)`` and the one compiled program is then called at the
record's own sizes and at two larger ones, each against the reference interpreter
(``backend="interpreter"``) on the same arguments, which traces at concrete sizes.

A record whose function needs concrete sizes at trace time (a reshape to literal dims,
a slice with literal bounds past a symbolic extent, ...) cannot be traced this way;
those are counted, and most records must trace.
"""

import importlib

import numpy as np
import pytest

import tjit
from tests.primitives.harness import assert_close, make_arg
from tests.primitives.test_registry import RECORD_MODULES

#: Fraction of the records that must trace with symbolic sizes (898 of 975 when this
#: was written: the rest reshape, slice or broadcast to literal sizes).
MIN_SYMBOLIC_FRACTION = 0.9
GROWTH = (0, 2, 5)   # added to every symbol's size: the record's own sizes, then larger


def _records():
    out = []
    for mod in RECORD_MODULES:
        out.extend(importlib.import_module(f"tests.primitives.{mod}").RECORDS)
    return out


RECORDS = _records()
#: id(record) -> whether it traced at symbolic sizes, as test_record_at_symbolic_sizes
#: found (``_trace`` is deterministic): the count below need not trace ~1000 records again
_TRACES = {}


def _spec(shape, names):
    dims = [str(d) if d <= 1 else names.setdefault(d, f"s{len(names)}") for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _grow(spec_arg, grow):
    """The record's arg spec with every symbolic dim grown by ``grow``."""
    shape = tuple(d if d <= 1 else d + grow for d in spec_arg[0])
    return (shape,) + tuple(spec_arg[1:])


def _is_array_spec(s):
    return isinstance(s, tuple) and len(s) >= 2 and isinstance(s[0], tuple)


def _trace(rec):
    """(jitted polymorphic function, flat function, dynamic positions) or None."""
    dyn = [i for i in range(len(rec.args)) if i not in rec.static]
    if not any(_is_array_spec(rec.args[i]) and any(d > 1 for d in rec.args[i][0])
               for i in dyn):
        return None
    names = {}
    specs = [_spec(rec.args[i][0], names) if _is_array_spec(rec.args[i]) else None
             for i in dyn]
    rng = np.random.default_rng(0)
    np_args = [make_arg(s, rng) for s in rec.args]

    def flat(*dyn_vals):
        full = list(np_args)
        for i, v in zip(dyn, dyn_vals):
            full[i] = v
        full = [a if i in rec.static else tjit.numpy.asarray(a) for i, a in enumerate(full)]
        return rec.fn(*full)

    jf = tjit.jit(flat, polymorphic_shapes=specs)
    try:
        jf.lower(*[np_args[i] for i in dyn])
    except Exception:  # noqa: BLE001 -- needs concrete sizes at trace time (counted)
        return None
    return jf, flat, dyn


def _args_at(rec, dyn, grow):
    """The dynamic arguments with every symbolic dim grown by ``grow``, or None when a
    record's own generator cannot make them (it fixes shapes or value ranges)."""
    rng = np.random.default_rng(grow)
    out = []
    for i in dyn:
        spec = rec.args[i]
        if not _is_array_spec(spec):
            out.append(spec)
            continue
        spec = _grow(spec, grow)
        try:
            a = make_arg(spec, rng)
        except ValueError:
            return None
        if np.shape(a) != spec[0]:
            return None
        out.append(a)
    return out


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


@pytest.mark.parametrize("rec", RECORDS, ids=str)
def test_record_at_symbolic_sizes(rec):
    traced = _trace(rec)
    _TRACES[id(rec)] = traced is not None
    if traced is None:
        return  # counted by test_most_records_trace_symbolically
    jf, flat, dyn = traced
    interp = tjit.jit(flat, backend="interpreter")
    traces = None
    for grow in GROWTH:
        args = _args_at(rec, dyn, grow)
        if args is None:  # the record's data generator makes one size only
            assert grow, f"{rec.name}: cannot make arguments at the record's own sizes"
            break
        got, want = _as_list(jf(*args)), _as_list(interp(*args))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (rec.name, grow)
            assert_close(g, w, max(rec.rtol, 1e-6), max(rec.atol, 1e-6),
                         f"{rec.name} at +{grow}: compiled (symbolic) vs interpreter")
        traces = jf.trace_count if traces is None else traces
    assert jf.trace_count == traces, f"{rec.name}: retraced for new sizes"


def test_most_records_trace_symbolically():
    candidates = [r for r in RECORDS
                  if any(_is_array_spec(s) and any(d > 1 for d in s[0]) for s in r.args)]
    traced = [r for r in candidates
              if (_TRACES[id(r)] if id(r) in _TRACES else _trace(r) is not None)]
    frac = len(traced) / len(candidates)
    assert frac >= MIN_SYMBOLIC_FRACTION, (
        f"only {len(traced)} of {len(candidates)} records trace at symbolic sizes")
