"""``tjit.interpreters.ad`` (as ``jax.interpreters.ad``): a primitive's forward-mode
rule (``primitive_jvps[p] = rule``, ``rule(primals, tangents, **params) -> (out,
tangent_out)``) and its transpose for reverse mode (``primitive_transposes[p] = rule``,
``rule(ct, *args, **params)`` -> one cotangent or None per argument, linear arguments
being :class:`UndefinedPrimal`). A tangent or cotangent may be the symbolic
:class:`Zero`. ``grad``/``vjp`` transpose the linear part of the jvp rule, so every
primitive that rule applies to tangents needs a transpose rule."""

from tjit.interpreters._rule_table import RuleTable
from tjit.primitives.rules import (
    UndefinedPrimal,
    Zero,
    add_tangents,
    instantiate,
    is_undefined_primal,
    zeros_like_aval,
)

primitive_jvps = RuleTable("jvp", "jvp (differentiation)")
primitive_transposes = RuleTable("transpose", "transpose")


def instantiate_zeros(t):
    """``t`` with a symbolic :class:`Zero` made an array of zeros."""
    return instantiate(t)


def add_jaxvals(x, y):
    """``x + y`` for (co)tangents, either of which may be a symbolic :class:`Zero`."""
    return add_tangents(x, y)


def _sum_tangents(contributions, out):
    total = Zero.from_value(out)
    for t in contributions:
        total = add_tangents(total, t)
    return total


def defjvp(prim, *jvprules):
    """Forward mode from one rule per argument: ``jvprules[i](g, *primals, **params)``
    is the output tangent due to argument ``i``'s tangent ``g`` (None: it has none).
    The output tangent is their sum; symbolic zero tangents are skipped."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        parts = [rule(t, *primals, **params) for rule, t in zip(jvprules, tangents)
                 if rule is not None and type(t) is not Zero]
        return out, _sum_tangents(parts, out)
    primitive_jvps[prim] = jvp


def defjvp2(prim, *jvprules):
    """As :func:`defjvp`, the rules also getting the output: ``rule(g, ans, *primals,
    **params)``."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        parts = [rule(t, out, *primals, **params) for rule, t in zip(jvprules, tangents)
                 if rule is not None and type(t) is not Zero]
        return out, _sum_tangents(parts, out)
    primitive_jvps[prim] = jvp


def deflinear(prim, transpose_rule):
    """A primitive linear in all its arguments: its jvp applies it to the tangents;
    ``transpose_rule(ct, **params)`` returns one cotangent per argument."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if all(type(t) is Zero for t in tangents):
            return out, Zero.from_value(out)
        return out, prim.bind(*[instantiate(t) for t in tangents], **params)

    def transpose(ct, *args, **params):
        if type(ct) is Zero:
            return [Zero(a.aval) if is_undefined_primal(a) else None for a in args]
        return transpose_rule(ct, **params)
    primitive_jvps[prim] = jvp
    primitive_transposes[prim] = transpose


def deflinear2(prim, transpose_rule):
    """As :func:`deflinear`, ``transpose_rule(ct, *args, **params)`` also getting the
    arguments (:class:`UndefinedPrimal` for the linear ones)."""
    deflinear(prim, lambda ct, **params: None)
    plain = primitive_transposes[prim]

    def transpose(ct, *args, **params):
        if type(ct) is Zero:
            return plain(ct, *args, **params)
        return transpose_rule(ct, *args, **params)
    primitive_transposes[prim] = transpose


__all__ = ["UndefinedPrimal", "Zero", "add_jaxvals", "add_tangents", "defjvp", "defjvp2",
           "deflinear", "deflinear2", "instantiate_zeros", "is_undefined_primal",
           "primitive_jvps", "primitive_transposes", "zeros_like_aval"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
