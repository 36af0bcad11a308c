"""The trace behind ``tjit.experimental.jet``: values carrying truncated Taylor series.

A :class:`JetTracer` holds a primal ``x0`` and the coefficients ``[x1, ..., xK]`` of
``x(t) = x0 + x1 t + x2 t^2 + ... + xK t^K`` (the *unscaled* coefficients; ``jet``'s
default factorial scaling happens at the API boundary). :class:`JetTrace` processes
each primitive by its rule in :data:`jet_rules`, which receives the primals and the
coefficient lists and binds its computation under the parent trace, exactly as
``JVPTrace`` binds a primitive's jvp rule (``tjit/transforms/ad.py``): so jet composes
with jit, grad and vmap, and under ``jit`` the whole series computation lands in one
jaxpr.

Symbolic zeros: an input that does not depend on the perturbation carries
:data:`zero_series`; a primitive whose inputs all carry it is bound on the primals
alone. A primitive whose outputs are integer or boolean (comparisons, argmax,
population_count, ...) has zero series whatever its inputs, as its derivatives are
(tjit's jvp gives such outputs float0 tangents).
"""

import tjit.numpy as jnp
from tjit.tracing import dtypes
from tjit.tracing.core import (
    PrimalTracer, Trace, Tracer, current_trace, escaped_tracer_error, get_aval,
    set_current_trace)
from tjit.tree_util import register_pytree_node


class ZeroTerm:
    """One Taylor coefficient known to be zero."""

    def __repr__(self):
        return "zero_term"


class ZeroSeries:
    """A whole Taylor series known to be zero (the value does not vary)."""

    def __repr__(self):
        return "zero_series"


zero_term = ZeroTerm()
zero_series = ZeroSeries()
register_pytree_node(ZeroTerm, lambda z: ((), None), lambda _, xs: zero_term)
register_pytree_node(ZeroSeries, lambda z: ((), None), lambda _, xs: zero_series)

#: primitive -> ``rule(primals, series, **params) -> (primal_out, series_out)``. The
#: rule runs under the parent trace; ``series`` holds one list of ``order`` arrays per
#: operand (zeros instantiated); ``series_out`` is a list of ``order`` arrays, or
#: :data:`zero_series`, per output (a list of those for a multiple-results primitive).
jet_rules = {}

#: primitive name -> why it has no rule (said in the NotImplementedError), so that a
#: primitive is either ruled or listed here (tests/transforms/test_jet.py checks).
no_rule = {}


class JetTracer(PrimalTracer):
    """A value and its Taylor terms; a concrete primal converts to a Python scalar
    (:class:`~tjit.tracing.core.PrimalTracer`)."""

    __slots__ = ("primal", "terms")

    def __init__(self, trace, primal, terms):
        self._trace = trace
        self.primal = primal
        self.terms = terms

    @property
    def aval(self):
        return get_aval(self.primal)

    def _describe(self):
        return "a value carrying a Taylor series (jet)"


class JetTrace(Trace):
    """Propagates truncated Taylor series alongside primal values."""

    name = "jet"

    def __init__(self, parent, order, fun_name="<function>"):
        self.parent = parent
        self.order = order
        self.fun_name = fun_name

    def to_pair(self, x):
        if isinstance(x, JetTracer) and x._trace is self:
            return x.primal, x.terms
        if isinstance(x, Tracer) and not x._trace.is_valid:
            raise escaped_tracer_error(x)
        return x, zero_series

    def wrap(self, primal, terms):
        if terms is zero_series or not dtypes.is_inexact(get_aval(primal).dtype):
            return primal
        return JetTracer(self, primal, terms)

    def process_primitive(self, prim, args, params):
        primals, series = zip(*[self.to_pair(a) for a in args]) if args else ((), ())
        if all(s is zero_series for s in series):
            with set_current_trace(self.parent):
                return prim.bind(*primals, **params)
        rule = jet_rules.get(prim)
        with set_current_trace(self.parent):
            if rule is None:
                if not _any_inexact(prim, primals, params):
                    return prim.bind(*primals, **params)   # integer/boolean results
                why = no_rule.get(prim.name)
                raise NotImplementedError(
                    f"jet: no Taylor-series rule for the primitive '{prim.name}' (reached "
                    f"while propagating series through {self.fun_name})"
                    + (f": {why}" if why else "") + ". Register one in "
                    f"tjit.experimental.jet.jet_rules, or keep the primitive out of the "
                    f"function given to jet.")
            keep = getattr(rule, "keeps_zero_series", False)
            series = [s if keep and s is zero_series else
                      instantiate_series(p, s, self.order) for p, s in zip(primals, series)]
            out, series_out = rule(list(primals), series, **params)
        if prim.multiple_results:
            return [self.wrap(o, s) for o, s in zip(out, series_out)]
        return self.wrap(out, series_out)


def _any_inexact(prim, primals, params):
    """Whether one of ``prim``'s outputs on ``primals`` is floating or complex (so it
    could vary with them)."""
    outs = prim.abstract_eval(*[get_aval(p) for p in primals], **params)
    outs = outs if prim.multiple_results else [outs]
    return any(dtypes.is_inexact(a.dtype) for a in outs)


def zeros_like_primal(x):
    """Zeros of ``x``'s shape, dtype and weak type (a Python scalar's zero stays weak,
    so it does not promote the arrays it meets)."""
    return jnp.zeros_like(x)


def instantiate_series(primal, terms, order):
    """``terms`` as ``order`` arrays: a symbolic zero becomes zeros like ``primal``."""
    if terms is zero_series:
        return [zeros_like_primal(primal) for _ in range(order)]
    return [zeros_like_primal(primal) if t is zero_term else t for t in terms]


def jet_flat(flat_fun, primals, series, order, name="<function>"):
    """Taylor-mode propagation through a flat function ``flat_fun(*xs) -> list``.

    ``series`` holds, per primal, a list of ``order`` unscaled coefficients or
    :data:`zero_series`. Returns ``(out_primals, out_series)`` with every output series
    instantiated (a list of ``order`` arrays). Binds under the current trace.
    """
    trace = JetTrace(current_trace(), order, name)
    ins = [trace.wrap(p, s) for p, s in zip(primals, series)]
    try:
        with set_current_trace(trace):
            outs = flat_fun(*ins)
        pairs = [trace.to_pair(o) for o in outs]
    finally:
        trace.invalidate()
    out_primals = [p for p, _ in pairs]
    return out_primals, [instantiate_series(p, s, order) for p, s in pairs]


def jet_call(fun, primals, series):
    """Rule-level helper: the unscaled series of ``fun(*primals)`` (one output) given
    each primal's coefficient list; ``order`` is read from the series (as JAX's
    ``jet2`` used inside rules). Returns ``(primal_out, terms_out)``."""
    order = len(series[0]) if series else 0
    outs, out_series = jet_flat(lambda *xs: [fun(*xs)], list(primals), list(series), order)
    return outs[0], out_series[0]


__all__ = ["JetTrace", "JetTracer", "ZeroSeries", "ZeroTerm", "zero_series", "zero_term",
           "jet_rules", "no_rule", "jet_flat", "jet_call", "instantiate_series",
           "zeros_like_primal"]
