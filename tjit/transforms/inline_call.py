"""A ``jit`` call met by a transformation (grad, vmap, an enclosing jit's trace): traced
to a jaxpr once per signature, its dead code dropped, then evaluated under that trace.

Inlining the Python function would differentiate everything it computes, results used
or not, so an unused ``custom_vjp`` call inside ``jvp(jit(f))`` (or ``hessian``'s forward
pass) raised "can't apply forward-mode autodiff". JAX's jit traces the function first
and runs dead-code elimination before differentiating the call; this does the same.

The traced jaxpr is a function of the call's signature and of the context the trace ran
in (:func:`trace_context`), as JAX's pjit caches it: the jitted function keeps it, so a
loop of ``vmap(jit(f))`` or ``grad(jit(f))`` calls traces ``f`` once per signature.

Under an eager transformation the call need not run equation by equation:
:func:`eager_plan` recognizes three stacks and says which function to compile (once per
signature and plan) and how to use it:

* an eager ``grad``/``vjp`` (reverse mode's JVP trace over a linearize trace over the
  eager trace): :func:`linearizer`'s function computes the primal outputs and the
  residuals; the linear jaxpr its trace records, paired with its transpose (traced
  once), is applied to the tangents as one ``linear_call`` equation, which the backward
  pass transposes as one call, compiled when the backward pass runs eagerly (JAX
  partially evaluates the jvp of its pjit equation, runs the known part compiled and
  transposes the rest as one compiled call);
* an eager ``vmap``: the batched function (JAX's batched pjit jaxpr), its outputs
  batched along their first axis;
* an eager ``jvp`` (a JVP trace over the eager trace: ``jvp(grad(jit(f)))``'s
  Hessian-vector product, whose grad is such a call): the jvp of the function, its output
  tangents that are symbolic zeros recorded when it is traced (JAX's jvp of its pjit
  jaxpr).
"""

import weakref

from tjit.config import config
from tjit.primitives.ad_prims import linear_call_p
from tjit.primitives.rules import Zero, instantiate, tangent_aval
from tjit.tracing.axis_env import bound_axes
from tjit.tracing.core import Array, EvalTrace, Tracer, get_aval, set_current_trace
from tjit.tracing.dtypes import is_float0
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.tracing.jaxpr_trace import trace_to_jaxpr
from tjit.tracing.target_platform import current_platform
from tjit.transforms import loop_remat
from tjit.transforms.ad import JVPTrace, JVPTracer, backward_pass, jvp_flat, linearize_flat
from tjit.transforms.batching import BatchTrace, BatchTracer, vmap

# (the pairing of a linear jaxpr with its transpose over shared leading operands)
from tjit.transforms.linear_call import _pair as pair_with_transpose
from tjit.transforms.linear_call import transpose_eagerly_with
from tjit.transforms.partial_eval import LinearizeTrace
from tjit.transforms.passes import dce


def differentiates(trace):
    """Whether ``trace`` or a trace it hands values to computes derivatives (forward
    mode, or linearization in reverse mode), so that code it sees is differentiated
    (``jvp(vmap(jit(f)))`` differentiates what the vmap trace passes on)."""
    while trace is not None:
        if isinstance(trace, (JVPTrace, LinearizeTrace)):
            return True
        trace = getattr(trace, "parent", None)
    return False


def trace_context():
    """What a trace done here depends on besides its arguments: the target platform
    (``lax.platform_dependent``), the named axes bound (collectives read their sizes),
    whether scan bodies are rematerialized (``loop_remat``) and the config options that
    compiled programs depend on (x64, ...)."""
    return current_platform(), bound_axes(), loop_remat.level(), config.version


def signature(leaves):
    """Per leaf ``(shape, dtype, weak_type)``, or None when a dim is symbolic (a trace
    at symbolic sizes records guards on the enclosing program: it is not reused)."""
    sig = []
    for x in leaves:
        a = get_aval(x)
        if any(type(d) is not int for d in a.shape):
            return None
        sig.append((a.shape, a.dtype, a.weak_type))
    return tuple(sig)


class InlineEntry:
    """A jitted function's trace at one signature: the dead-code-free jaxpr and the
    structure of its outputs."""

    __slots__ = ("closed", "out_tree")

    def __init__(self, closed, out_tree):
        self.closed, self.out_tree = closed, out_tree

    @property
    def reusable(self):
        """False when the jaxpr closes over a tracer of an enclosing transformation
        (valid for this call only)."""
        return not any(isinstance(c, Tracer) for c in self.closed.consts)

    def __call__(self, leaves):
        """The flat outputs for ``leaves`` (arrays or tracers), under the current trace."""
        return eval_jaxpr(self.closed.jaxpr, self.closed.consts, *leaves)


def trace_without_dead_code(flat_fun, leaves, name, store):
    """An :class:`InlineEntry` of ``flat_fun`` (flat lists in and out; it stores its
    output tree in ``store["tree"]``, as ``ad.linearize_flat``'s) traced at the avals of
    ``leaves``."""
    closed = dce(trace_to_jaxpr(flat_fun, [get_aval(x) for x in leaves], name))
    return InlineEntry(closed, store["tree"])


def eager_plan(trace, leaves):
    """A :class:`ReversePlan`, :class:`ForwardPlan` or :class:`BatchPlan` for a call on
    ``leaves`` under ``trace``, or None: another stack, a leaf of another trace, nothing
    differentiated or batched, or the float checks on (eager ops check each result)."""
    if config.checks_floats:
        return None
    if type(trace) is JVPTrace:
        if isinstance(trace.parent, EvalTrace):
            return ForwardPlan.of(trace, leaves)
        return ReversePlan.of(trace, leaves)
    if type(trace) is BatchTrace and isinstance(trace.parent, EvalTrace):
        return BatchPlan.of(trace, leaves)
    return None


class ReversePlan:
    """A call under an eager grad: its primal half compiled (see the module's doc)."""

    __slots__ = ("key", "mask", "primals")

    def __init__(self, primals, mask):
        self.primals, self.mask = primals, mask
        self.key = ("linearize", mask)

    @classmethod
    def of(cls, trace, leaves):
        """The plan when ``trace`` is a JVP trace over a linearize trace over the eager
        trace and each leaf is concrete or a value it differentiates with a concrete
        primal (at least one); else None."""
        lin = trace.parent
        if type(lin) is not LinearizeTrace or not isinstance(lin.parent, EvalTrace):
            return None
        primals, mask = [], []
        for x in leaves:
            if type(x) is JVPTracer and x._trace is trace and type(x.primal) is Array:
                primals.append(x.primal)
                mask.append(True)
            elif type(x) is Array:
                primals.append(x)
                mask.append(False)
            else:
                return None
        return cls(primals, tuple(mask)) if any(mask) else None

    def build(self, entry, name, compile):
        """(the function to compile, what :meth:`run` needs besides it); ``compile(fn)``
        jits a function as the plan's own function is."""
        return linearizer(entry, self.mask, name, compile)

    def run(self, known, record, trace, leaves):
        return record(known, trace, leaves, self.primals, self.mask)


class ForwardPlan:
    """A call under an eager jvp: the jvp of the function compiled."""

    __slots__ = ("key", "mask", "primals", "tangents")

    def __init__(self, primals, tangents, mask):
        self.primals, self.tangents, self.mask = primals, tangents, mask
        self.key = ("jvp", mask)

    @classmethod
    def of(cls, trace, leaves):
        """The plan when each leaf is concrete or a value ``trace`` perturbs with a
        concrete primal and tangent (at least one); else None."""
        primals, tangents, mask = [], [], []
        for x in leaves:
            if type(x) is JVPTracer and x._trace is trace and type(x.primal) is Array \
                    and type(x.tangent) is Array and not is_float0(x.tangent):
                primals.append(x.primal)
                tangents.append(x.tangent)
                mask.append(True)
            elif type(x) is Array:
                primals.append(x)
                mask.append(False)
            else:
                return None
        return cls(primals, tangents, tuple(mask)) if tangents else None

    def build(self, entry, name, compile):
        """``(jvp_of, record)``: ``jvp_of(*primals, *tangents)`` (the perturbed leaves'
        tangents) returns ``entry``'s outputs followed by their tangents that are not
        symbolic zeros; tracing it records which are in ``record["zero_mask"]``."""
        mask, record = self.mask, {}

        def jvp_of(*vals):
            primals, tangents = vals[:len(mask)], iter(vals[len(mask):])
            ts = [next(tangents) if m else Zero(tangent_aval(get_aval(p)))
                  for p, m in zip(primals, mask)]
            outs, t_outs = jvp_flat(lambda *xs: entry(list(xs)), primals, ts, name)
            record["zero_mask"] = [type(t) is Zero for t in t_outs]
            return list(outs) + [t for t in t_outs if type(t) is not Zero]
        jvp_of.__name__ = f"jvp({name})"
        return jvp_of, record

    def run(self, jvp_of, record, trace, leaves):
        with set_current_trace(trace.parent):
            outs = jvp_of(*self.primals, *self.tangents)
        zero_mask = record["zero_mask"]
        tangents = iter(outs[len(zero_mask):])
        return [p if z else JVPTracer(trace, p, next(tangents))
                for p, z in zip(outs, zero_mask)]


class BatchPlan:
    """A call under an eager vmap: the batched function compiled."""

    __slots__ = ("dims", "key", "values")

    def __init__(self, trace, values, dims):
        self.values, self.dims = values, dims
        self.key = ("vmap", dims, trace.axis_size, trace.axis_name)

    @classmethod
    def of(cls, trace, leaves):
        values, dims = [], []
        for x in leaves:
            if type(x) is BatchTracer and x._trace is trace and type(x.val) is Array:
                values.append(x.val)
                dims.append(x.batch_dim)
            elif type(x) is Array:
                values.append(x)
                dims.append(None)
            else:
                return None
        if all(d is None for d in dims):
            return None
        return cls(trace, values, tuple(dims))

    def build(self, entry, name, compile):
        _, dims, size, axis_name = self.key

        def batched(*values):
            return vmap(lambda *xs: entry(list(xs)), in_axes=dims, out_axes=0,
                        axis_name=axis_name, axis_size=size)(*values)
        batched.__name__ = f"vmap({name})"
        return batched, None

    def run(self, batched, _, trace, leaves):
        with set_current_trace(trace.parent):
            outs = batched(*self.values)
        return [BatchTracer(trace, o, 0) for o in outs]


class Linearized:
    """What :func:`linearizer` recorded when its function was traced: the linear jaxpr
    (residuals as constvars, the perturbed inputs' tangents in, the outputs' non-zero
    tangents out), which outputs have a zero tangent, and (built at the first call) that
    jaxpr and its transpose as ``linear_call_p``'s callee and transpose; an eager
    backward pass runs the transpose compiled (``compile``: ``linear_call``'s
    ``transpose_eagerly_with``)."""

    __slots__ = ("compile", "consts", "jaxpr", "name", "params", "zero_mask")

    def __init__(self, name, compile):
        self.name, self.compile = name, compile
        self.jaxpr = self.zero_mask = self.params = self.consts = None

    def _pair(self):
        j = self.jaxpr
        n_res = len(j.constvars)

        def callee(*vals):
            return eval_jaxpr(j, vals[:n_res], *vals[n_res:])

        def transpose(*vals):
            cts = backward_pass(j, vals[:n_res], vals[n_res:])
            return [instantiate(c) if type(c) is Zero else c for c in cts]
        callee, transposed, consts = pair_with_transpose(
            callee, transpose, [v.aval for v in j.constvars], [v.aval for v in j.invars],
            self.name)
        self.consts = consts
        self.params = {"callee": callee, "transpose": transposed,
                       "num_res": len(consts) + n_res}
        transpose_eagerly_with(transposed, self.compile(
            _evaluator(transposed, callee, self.params["num_res"], self.name)))

    def __call__(self, known, trace, leaves, primals, mask):
        """The call's outputs under ``trace`` (a :class:`ReversePlan`'s): ``known``
        (the compiled :func:`linearizer` function) run eagerly on ``primals``, its primal
        outputs paired with the tangents of the linear call on those of the perturbed
        ``leaves``."""
        with set_current_trace(trace.parent.parent):
            outs = known(*primals)
        n = len(self.zero_mask)
        out_primals, residuals = outs[:n], outs[n:]
        out_tangents = iter(())
        if not all(self.zero_mask):
            if self.params is None:
                self._pair()
            tangents = [x.tangent for x, m in zip(leaves, mask) if m]
            with set_current_trace(trace.parent):
                out_tangents = iter(linear_call_p.bind(*self.consts, *residuals, *tangents,
                                                       **self.params))
        return [p if z else JVPTracer(trace, p, next(out_tangents))
                for p, z in zip(out_primals, self.zero_mask)]


def _evaluator(transposed, callee, num_res, name):
    """A function of ``linear_call_p``'s operands with ``transposed`` as its callee
    (``callee`` its transpose) that evaluates ``transposed``, to be compiled. The jaxprs
    are held weakly: the compiled function is kept by a table keyed weakly by
    ``transposed``."""
    refs = weakref.ref(transposed), weakref.ref(callee)

    def evaluate(*operands):
        t, c = refs[0](), refs[1]()
        # (the checks of an eager bind, once per signature: the types must be the jaxpr's)
        linear_call_p.abstract_eval(*[get_aval(x) for x in operands], callee=t,
                                    transpose=c, num_res=num_res)
        return eval_jaxpr(t.jaxpr, t.consts, *operands)
    evaluate.__name__ = f"transpose({name})"
    return evaluate


def linearizer(entry, mask, name, compile):
    """``(known, record)``: ``known(*primals)`` returns ``entry``'s outputs followed by
    the residuals of its linearization in the inputs ``mask`` marks; tracing it fills
    ``record`` (a :class:`Linearized`, which compiles the transpose with ``compile``)."""
    record = Linearized(name, compile)

    def known(*primals):
        def perturbed_fun(*ps):
            it = iter(ps)
            return entry([next(it) if m else p for p, m in zip(primals, mask)])
        outs, linear, record.zero_mask = linearize_flat(
            perturbed_fun, [p for p, m in zip(primals, mask) if m], name)
        record.jaxpr = linear.jaxpr
        return list(outs) + list(linear.consts)
    known.__name__ = name
    return known, record


__all__ = ["BatchPlan", "ForwardPlan", "InlineEntry", "Linearized", "ReversePlan",
           "differentiates", "eager_plan", "linearizer", "signature", "trace_context",
           "trace_without_dead_code"]
