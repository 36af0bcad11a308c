"""A JAX-style rule table (``ad.primitive_jvps[p] = rule``) that reads and writes one
slot of the primitive object: tjit keeps all of a primitive's rules on the primitive."""

from collections.abc import MutableMapping

from tjit.extend.core import _USER_PRIMITIVES
from tjit.primitives.base import REGISTRY
from tjit.tracing.core import Primitive


# JAX calls a jvp rule with tuples (primals, tangents) and a batching rule with tuples
# (args, dims); tjit's transforms pass lists, which its own rules may extend
_TUPLE_SLOTS = ("jvp", "batch")


def _with_tuples(rule):
    """``rule`` called with its two sequences as tuples, as JAX calls it (code printing
    or matching them, e.g. ``isinstance(primals, tuple)``, sees what it sees in JAX)."""
    def called_as_in_jax(first, second, **params):
        return rule(tuple(first), tuple(second), **params)
    called_as_in_jax._registered = rule   # (what the table gives back)
    called_as_in_jax.__name__ = getattr(rule, "__name__", "rule")
    return called_as_in_jax


class RuleTable(MutableMapping):
    """``table[p]``: ``p``'s rule in slot ``slot`` (KeyError when it has none)."""

    def __init__(self, slot, what):
        self.slot, self.what = slot, what

    def _check(self, p):
        if not isinstance(p, Primitive):
            raise TypeError(f"{self.what} rules are registered for a Primitive "
                            f"(tjit.extend.core.Primitive), got {p!r}")

    def __getitem__(self, p):
        self._check(p)
        rule = getattr(p, self.slot)
        if rule is None:
            raise KeyError(p)
        return getattr(rule, "_registered", rule)

    def __setitem__(self, p, rule):
        self._check(p)
        if not callable(rule):
            raise TypeError(f"the {self.what} rule of '{p.name}' must be callable, got "
                            f"{rule!r}")
        setattr(p, self.slot, _with_tuples(rule) if self.slot in _TUPLE_SLOTS else rule)

    def __delitem__(self, p):
        self[p]  # noqa: B018 (KeyError when absent)
        setattr(p, self.slot, None)

    def __iter__(self):
        for p in list(REGISTRY.values()) + list(_USER_PRIMITIVES):
            if getattr(p, self.slot) is not None:
                yield p

    def __len__(self):
        return sum(1 for _ in self)

    def __repr__(self):
        return f"<{self.what} rules of {len(self)} primitives>"
