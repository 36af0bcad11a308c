"""Structured control-flow primitives: ``cond``, ``while`` and ``scan``.

Each takes its bodies as :class:`ClosedJaxpr` params with no consts of their own: the
values a body closes over are hoisted into explicit leading operands by the ``lax``
wrappers (``tjit/lax/_control_flow.py``), so the primitives see everything they read.

* ``cond_p``: operands ``index (i32[]), *ops``; param ``branches`` (tuple of jaxprs with
  identical input and output types). Runs ``branches[clamp(index)]``.
* ``while_p``: operands ``*cond_consts, *body_consts, *carry``; params ``cond_jaxpr``,
  ``body_jaxpr``, ``cond_nconsts``, ``body_nconsts``.
* ``scan_p``: operands ``*consts, *carry, *xs``; params ``jaxpr``, ``length``,
  ``reverse``, ``num_consts``, ``num_carry``, ``unroll``; results are the final carry
  followed by the per-iteration outputs stacked along a new leading axis.

Types are compared by shape and dtype; weak types may differ (as JAX: a loop's final
carry has the weak type of the body's output, which may be strong for a weak carry
input; a cond output is weak only when it is weak in every branch). Reference implementations interpret the bodies with
:func:`eval_jaxpr_reference` on raw arrays of the namespace ``xp``.
"""


from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, Var, eval_jaxpr_reference
from tjit.tracing.shapes import definitely_equal
from tjit.primitives.base import as_dtype_out, new_primitive


# -- type helpers shared with the lax wrappers ---------------------------------------------
def same_type(a, b):
    """Shape and dtype equal (weak types ignored); symbolic dims compared exactly."""
    if a.dtype != b.dtype or len(a.shape) != len(b.shape):
        return False
    if a.shape == b.shape:
        return True
    try:
        return all(definitely_equal(x, y) for x, y in zip(a.shape, b.shape))
    except Exception:  # undecidable symbolic dims: not provably the same type
        return False


def type_str(aval):
    """``f32[3]`` plus a weak-type marker when set."""
    return aval.str_short() + (" (weak)" if aval.weak_type else "")


def _types_str(avals):
    s = ", ".join(a.str_short() for a in avals)
    return s if len(avals) == 1 else f"({s})"


def check_carry(op, fun_name, in_avals, out_avals, paths=None):
    """Raise a TypeError naming each carry element whose output type differs from its
    input type (shape or dtype)."""
    if len(in_avals) != len(out_avals):
        raise TypeError(f"{op}: {fun_name} must return {len(in_avals)} carry values (one per "
                        f"carry input), got {len(out_avals)}")
    bad = []
    for i, (a, b) in enumerate(zip(in_avals, out_avals)):
        if same_type(a, b):
            continue
        what = []
        if a.dtype != b.dtype:
            what.append("the dtypes do not match")
        if not (len(a.shape) == len(b.shape) and a.shape == b.shape):
            what.append("the shapes do not match")
        name = paths[i] if paths else f"carry element {i}"
        bad.append(f"  {name}: input type {type_str(a)} but output type {type_str(b)} "
                   f"({' and '.join(what) or 'the types do not match'})")
    if bad:
        raise TypeError(
            f"{op}: {fun_name} carry output must have the same types as the carry input, "
            f"but they differ:\n" + "\n".join(bad) + "\nFix: make the function return "
            f"values of the input's shape and dtype, e.g. initialise the carry with the "
            f"right dtype (jnp.zeros(..., dtype), jnp.float32(0)) or cast the output with "
            f"x.astype(init.dtype); a Python scalar init is weakly typed and takes the "
            f"output's dtype")


def _check_inputs(op, what, avals, expected):
    if len(avals) != len(expected):
        raise TypeError(f"{op}: {what} takes {len(expected)} inputs, got {len(avals)}")
    for i, (a, e) in enumerate(zip(avals, expected)):
        if not same_type(a, e):
            raise TypeError(f"{op}: {what} input {i} has type {e.str_short()} but the operand "
                            f"passed has type {a.str_short()}")


def _check_closed(op, name, j):
    if not isinstance(j, ClosedJaxpr):
        raise TypeError(f"{op}: param {name} must be a ClosedJaxpr, got {type(j).__name__}")


# -- cond ----------------------------------------------------------------------------------
cond_p = new_primitive("cond", multiple_results=True)


def _branch_names(n, i, j):
    if n == 2:
        return "lax.cond", "true_fun and false_fun"
    return "lax.switch", f"branches {i} and {j}"


@cond_p.def_abstract_eval
def _cond_abstract(index, *ops, branches):
    if not branches:
        raise TypeError("lax.cond: needs at least one branch")
    for b in branches:
        _check_closed("lax.cond", "branches", b)
    if index.dtype != dtypes.int32 or index.shape != ():
        raise TypeError(f"lax.cond: the branch index must be an int32 scalar, got "
                        f"{index.str_short()}")
    b0 = branches[0]
    for i, b in enumerate(branches):
        _check_inputs("lax.cond", f"branch {i}", ops, b.in_avals)
        a, c = b0.out_avals, b.out_avals
        if len(a) != len(c) or not all(same_type(x, y) for x, y in zip(a, c)):
            op, names = _branch_names(len(branches), 0, i)
            if len(branches) == 2:  # branches = (false_fun, true_fun)
                a, c = c, a
            raise TypeError(f"{op}: {names} output must have identical types, got "
                            f"{_types_str(a)} and {_types_str(c)}")
    return [a.update(weak_type=w) for a, w in zip(b0.out_avals, _cond_weak(branches=branches))]


def _cond_weak(*in_weak, branches):
    outs = zip(*[b.out_avals for b in branches])
    return [all(a.weak_type for a in avals) for avals in outs]


cond_p.def_weak_type(_cond_weak)


@cond_p.def_impl
def _cond_impl(xp, index, *ops, branches):
    i = int(index)
    i = min(max(i, 0), len(branches) - 1)  # clamped like lax.switch
    b = branches[i]
    outs = eval_jaxpr_reference(b.jaxpr, b.consts, list(ops), xp)
    return [as_dtype_out(xp, o, a.dtype) for o, a in zip(outs, b.out_avals)]


# -- while ---------------------------------------------------------------------------------
while_p = new_primitive("while", multiple_results=True)


@while_p.def_abstract_eval
def _while_abstract(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    _check_closed("lax.while_loop", "cond_jaxpr", cond_jaxpr)
    _check_closed("lax.while_loop", "body_jaxpr", body_jaxpr)
    cconsts = avals[:cond_nconsts]
    bconsts = avals[cond_nconsts:cond_nconsts + body_nconsts]
    carry = avals[cond_nconsts + body_nconsts:]
    _check_inputs("lax.while_loop", "cond_fun", cconsts + carry, cond_jaxpr.in_avals)
    _check_inputs("lax.while_loop", "body_fun", bconsts + carry, body_jaxpr.in_avals)
    out = cond_jaxpr.out_avals
    if len(out) != 1 or out[0].dtype != dtypes.bool_ or out[0].shape != ():
        raise TypeError(f"lax.while_loop: cond_fun must return a boolean scalar, but got "
                        f"output type(s) {_types_str(out) if out else '()'}")
    body_in = body_jaxpr.in_avals[body_nconsts:]
    check_carry("lax.while_loop", "body_fun", body_in, body_jaxpr.out_avals)
    return list(body_jaxpr.out_avals)


def _while_weak(*in_weak, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    return [a.weak_type for a in body_jaxpr.out_avals]


while_p.def_weak_type(_while_weak)


@while_p.def_impl
def _while_impl(xp, *vals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cconsts = list(vals[:cond_nconsts])
    bconsts = list(vals[cond_nconsts:cond_nconsts + body_nconsts])
    carry = list(vals[cond_nconsts + body_nconsts:])
    cj, bj = cond_jaxpr, body_jaxpr
    while bool(eval_jaxpr_reference(cj.jaxpr, cj.consts, cconsts + carry, xp)[0]):
        carry = eval_jaxpr_reference(bj.jaxpr, bj.consts, bconsts + carry, xp)
    avals = bj.in_avals[body_nconsts:]
    return [as_dtype_out(xp, c, a.dtype) for c, a in zip(carry, avals)]


# -- scan ----------------------------------------------------------------------------------
scan_p = new_primitive("scan", multiple_results=True)


def _scan_split(seq, num_consts, num_carry):
    return (list(seq[:num_consts]), list(seq[num_consts:num_consts + num_carry]),
            list(seq[num_consts + num_carry:]))


@scan_p.def_abstract_eval
def _scan_abstract(*avals, jaxpr, length, reverse, num_consts, num_carry, unroll):
    _check_closed("lax.scan", "jaxpr", jaxpr)
    consts, carry, xs = _scan_split(avals, num_consts, num_carry)
    j_consts, j_carry, j_xs = _scan_split(jaxpr.in_avals, num_consts, num_carry)
    for i, x in enumerate(xs):
        if not x.shape or not definitely_equal(x.shape[0], length):
            raise TypeError(f"lax.scan: scanned-over operand {i} has type {x.str_short()}, "
                            f"expected a leading axis of length {length}")
    x_slices = [ShapedArray(x.shape[1:], x.dtype, x.weak_type) for x in xs]
    _check_inputs("lax.scan", "the body", consts + carry + x_slices, jaxpr.in_avals)
    out = jaxpr.out_avals
    check_carry("lax.scan", "the body function", j_carry, out[:num_carry])
    ys = [ShapedArray((length,) + y.shape, y.dtype, y.weak_type) for y in out[num_carry:]]
    return list(out[:num_carry]) + ys


def _scan_weak(*in_weak, jaxpr, length, reverse, num_consts, num_carry, unroll):
    return [a.weak_type for a in jaxpr.out_avals]


scan_p.def_weak_type(_scan_weak)


@scan_p.def_impl
def _scan_impl(xp, *vals, jaxpr, length, reverse, num_consts, num_carry, unroll):
    consts, carry, xs = _scan_split(vals, num_consts, num_carry)
    y_avals = jaxpr.out_avals[num_carry:]
    ys = [xp.empty((length,) + tuple(a.shape), dtype=a.dtype) for a in y_avals]
    j = jaxpr.jaxpr
    for step in range(length):
        i = length - 1 - step if reverse else step
        xs_i = [x[i, ...] for x in xs]  # 0-d arrays, never NumPy scalars
        outs = eval_jaxpr_reference(j, jaxpr.consts, consts + carry + xs_i, xp)
        carry = outs[:num_carry]
        for buf, y in zip(ys, outs[num_carry:]):
            buf[i] = y
    c_avals = jaxpr.in_avals[num_consts:num_consts + num_carry]
    return [as_dtype_out(xp, c, a.dtype) for c, a in zip(carry, c_avals)] + ys


# -- helpers shared by the lax wrappers and the transformation rules ------------------------
def join_branch_consts(traced):
    """Give every branch the union of all branches' hoisted consts as leading inputs (JAX's
    ``_initial_style_jaxprs_with_common_consts``).

    Args:
      traced: list of ``(closed, consts)``: a branch whose first ``len(consts)`` inputs
        take ``consts``.

    Returns:
      ``(branches, all_consts)``: a tuple of ClosedJaxprs taking ``all_consts`` first.
    """
    if not any(consts for _, consts in traced):
        return tuple(closed for closed, _ in traced), []
    all_consts, avals, where = [], [], {}
    for closed, consts in traced:
        for c, v in zip(consts, closed.jaxpr.invars):
            if id(c) not in where:
                where[id(c)] = len(all_consts)
                all_consts.append(c)
                avals.append(v.aval)
    branches = []
    for closed, consts in traced:
        j = closed.jaxpr
        mine = {id(c): v for c, v in zip(consts, j.invars)}
        lead = [mine[id(c)] if id(c) in mine else Var(a) for c, a in zip(all_consts, avals)]
        invars = lead + j.invars[len(consts):]
        branches.append(ClosedJaxpr(Jaxpr([], invars, j.outvars, j.eqns), []))
    return tuple(branches), all_consts


CONTROL_FLOW_PRIMITIVES = (cond_p, while_p, scan_p)

__all__ = ["cond_p", "while_p", "scan_p", "same_type", "check_carry", "type_str",
           "join_branch_consts"]
