"""The primitives behind lax's functions under JAX's ``lax.<name>_p`` names
(``lax.exp_p``, ``lax.while_p``, ``lax.scatter_add_p``), for code that reads jaxprs:
a custom interpreter compares ``eqn.primitive`` with them (JAX's "Writing custom
interpreters" notebook keys its registry on ``lax.exp_p``). The call primitives of
custom derivatives and checkpoint, and the host callbacks, live in their own modules."""

from tjit.primitives import base
from tjit.primitives.ad_prims import AD_PRIMITIVES

_OWN_MODULES = {p.name for p in AD_PRIMITIVES} | {"debug_callback", "io_callback",
                                                  "pure_callback"}

# every primitive defined when tjit.lax has imported its modules (this runs last)
PRIMITIVES = {f"{name.replace('-', '_')}_p": p for name, p in base.REGISTRY.items()
              if name not in _OWN_MODULES}
# JAX's name for the regularized incomplete beta primitive (tjit's betainc_p)
PRIMITIVES["regularized_incomplete_beta_p"] = base.REGISTRY["betainc"]
globals().update(PRIMITIVES)

__all__ = [*sorted(PRIMITIVES)]  # noqa: PLE0604  (names built from the registry)
