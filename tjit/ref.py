"""``jax.ref``: mutable array references and their read/write functions (see
tjit/state/ and tjit/tracing/refs.py)."""

from tjit.state import (  # noqa: F401
    AbstractRef, Ref, addupdate, empty_ref, free_ref, freeze, get, new_ref, set, swap)

__all__ = ["AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze", "get",
           "new_ref", "set", "swap"]
