r"""``tjit.experimental.jet``: Taylor-mode higher-order automatic differentiation, as
``jax.experimental.jet``.

Given the Taylor coefficients of the inputs along a curve,

.. math:: (h_0, h_1, \ldots, h_K) = (h(x), \partial h(x)[v], \ldots, \partial^K h(x)[v,\ldots,v]),

``jet(f, (h_0,), ((h_1, ..., h_K),))`` returns those of :math:`f \circ h` in one forward
pass, without nesting ``jvp`` K times: each primitive has a rule that propagates a
truncated Taylor polynomial (``_jet_rules.py``) and the trace (``_jet_trace.py``) runs
them, under ``jit``, ``grad`` or ``vmap`` alike.

>>> import tjit.numpy as jnp
>>> from tjit.experimental.jet import jet
>>> y, (y1, y2) = jet(jnp.sin, (0.5 ** 3,), ((3 * 0.5 ** 2, 6 * 0.5),))
>>> round(float(y2), 4)    # cos(h0) h2 - sin(h0) h1^2: Faa di Bruno
2.9065

Primitives without a rule raise ``NotImplementedError`` naming them; add one to
:data:`jet_rules` (``rule(primals, series, **params) -> (primal_out, series_out)``,
with unscaled coefficients).
"""

import functools

import numpy as np

from tjit import lax
from tjit.lax._elementwise import asarray_for_lax
from tjit.tracing.core import Array, Tracer, get_aval
from tjit.tracing import dtypes
from tjit.tree_util import tree_flatten, tree_structure, tree_unflatten
from tjit.experimental import (  # noqa: F401 (importing them fills jet_rules)
    _jet_control_flow, _jet_linalg, _jet_rules)
from tjit.experimental._jet_trace import (
    JetTrace, JetTracer, ZeroSeries, ZeroTerm, jet_flat, jet_rules, zero_series, zero_term)


def jet(fun, primals, series, factorial_scaled=True, **_):
    r"""Taylor-mode higher-order automatic differentiation.

    Args:
      fun: function of arrays (pytrees allowed) returning arrays or a pytree of them.
      primals: tuple or list of the arguments of ``fun`` (the point ``h_0``).
      series: tuple or list with one entry per argument: the list of its higher Taylor
        terms ``[h_1, ..., h_K]``, each with that argument's structure (an argument that
        is a pytree takes a list of pytrees) or ``zero_term``. ``K``, the same for every
        argument, is the degree. Terms of integer or boolean arguments carry no
        derivative and are ignored (as their tangents are float0 under ``jvp``).
      factorial_scaled: True (default): the k-th term is the k-th derivative
        :math:`\partial^k h(x)[v, ..., v]`, in input and output. False: the plain
        Taylor coefficients (the k-th derivative divided by k!), as ``jet2``.

    Returns:
      ``(primals_out, series_out)``: ``fun(*primals)``, and the output's terms with
      the output's structure, each leaf replaced by its list of ``K`` terms.
    """
    order = _order_of(primals, series)
    compiled = _compiled(fun, order, factorial_scaled)
    if compiled is not None:   # jet(jit(f)): the jit of jet(f), traced once per signature
        return compiled(tuple(primals), tuple(series))
    flat_p, in_tree = tree_flatten(tuple(primals))
    flat_s = _flat_series(primals, series, order)
    flat_p = [_to_array(p) for p in flat_p]
    flat_s = [_check_terms(p, s, i) for i, (p, s) in enumerate(zip(flat_p, flat_s))]
    if factorial_scaled:
        flat_s = [s if s is zero_series else [_scale(t, 1 / _factorial(k))
                                              for k, t in enumerate(s, 1)] for s in flat_s]
    store = {}

    def flat_fun(*leaves):
        out, store["tree"] = tree_flatten(fun(*tree_unflatten(in_tree, leaves)))
        return out
    outs, out_series = jet_flat(flat_fun, flat_p, flat_s, order, _name(fun))
    if factorial_scaled:
        out_series = [[_scale(t, _factorial(k)) for k, t in enumerate(s, 1)]
                      for s in out_series]
    return tree_unflatten(store["tree"], outs), tree_unflatten(store["tree"], out_series)


jet2 = functools.partial(jet, factorial_scaled=False)
jet2.__doc__ = "``jet`` on plain Taylor coefficients (``factorial_scaled=False``)."


def fact(n):
    """``n!`` as an array (``exp(lgamma(n + 1))``, as JAX's ``jet.fact``)."""
    return lax.exp(lax.lgamma(n + 1.0))


def _factorial(k):
    return float(np.prod(np.arange(1, k + 1, dtype=np.float64)))


def _scale(t, c):
    """``t * c``; a zero term, a factor 1 and an integer or boolean output's (zero)
    terms are left as they are."""
    if t is zero_term or c == 1 or not dtypes.is_inexact(get_aval(t).dtype):
        return t
    return t * c


def _order_of(primals, series):
    """The common number of terms ``K``, after checking the containers' shapes."""
    if not isinstance(primals, (tuple, list)) or not isinstance(series, (tuple, list)):
        raise TypeError("jet: primals and series must be tuples or lists (one entry per "
                        f"argument of the function); got {type(primals).__name__} and "
                        f"{type(series).__name__}")
    if len(primals) != len(series):
        raise ValueError(f"jet: {len(primals)} primals but {len(series)} series; give one "
                         f"list of Taylor terms per argument")
    orders = {len(s) if isinstance(s, (tuple, list)) else None for s in series}
    if None in orders:
        raise TypeError("jet: each argument's series must be a list or tuple of terms; "
                        f"got {[type(s).__name__ for s in series]}")
    if len(orders) > 1:
        raise ValueError("jet terms have inconsistent lengths for different arguments: "
                         f"{[len(s) for s in series]}; every argument needs the same "
                         f"number of Taylor terms")
    return orders.pop() if orders else 0


def _flat_series(primals, series, order):
    """Per flattened primal leaf, its list of ``order`` terms."""
    flat = []
    for i, (p, s) in enumerate(zip(primals, series)):
        tree = tree_structure(p)
        per_term = []
        for k, term in enumerate(s):
            if term is zero_term:   # a known-zero term of the whole argument
                per_term.append([zero_term] * tree.num_leaves)
                continue
            leaves, t_tree = tree_flatten(term)
            if t_tree != tree:
                raise ValueError(f"jet: term {k} of argument {i} has structure {t_tree} "
                                 f"but the argument has {tree}; each term must have its "
                                 f"argument's structure")
            per_term.append(leaves)
        flat.extend([list(ts) for ts in zip(*per_term)] if per_term else
                    [[] for _ in range(tree.num_leaves)])
    return flat


def _check_terms(p, terms, i):
    """The terms of leaf ``i`` as arrays of its primal's dtype; :data:`zero_series` for
    an integer or boolean primal."""
    aval = get_aval(p)
    if not dtypes.is_inexact(aval.dtype):
        return zero_series
    out = []
    for k, t in enumerate(terms):
        if t is zero_term:
            out.append(t)
            continue
        t = _to_array(t)
        ta = get_aval(t)
        if tuple(ta.shape) != tuple(aval.shape):
            raise ValueError(f"jet: term {k} of input {i} has shape {tuple(ta.shape)} but "
                             f"its primal has shape {tuple(aval.shape)}; each Taylor term "
                             f"must have its primal's shape")
        if ta.dtype != aval.dtype:
            t = lax.convert_element_type(t, aval.dtype)
        out.append(t)
    return out


def _to_array(x):
    """An argument as jit and jvp take it: Python scalars weakly typed."""
    return x if isinstance(x, (Array, Tracer)) else asarray_for_lax(x)


def _name(fun):
    return getattr(fun, "__name__", type(fun).__name__)


def _compiled(fun, order, factorial_scaled):
    """For ``fun = jit(f)``: the jitted ``(primals, series) -> jet(f, ...)``, else None
    (``Jitted._jit_of_transform``, as ``jvp(jit(f))`` is served)."""
    jit_of = getattr(fun, "_jit_of_transform", None)
    if jit_of is None:
        return None

    def make(f):
        def jet_of(primals, series):
            return jet(f, primals, series, factorial_scaled=factorial_scaled)
        jet_of.__name__ = f"jet({_name(f)})"
        return jet_of
    return jit_of(("jet", order, factorial_scaled), make)


__all__ = ["jet", "jet2", "fact", "jet_rules", "zero_series", "zero_term", "ZeroSeries",
           "ZeroTerm", "JetTrace", "JetTracer"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
