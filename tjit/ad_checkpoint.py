"""``tjit.ad_checkpoint``: gradient checkpointing (as ``jax.ad_checkpoint``).

``checkpoint``/``remat``, ``checkpoint_name``, the policies (``checkpoint_policies``)
and ``print_saved_residuals``/``saved_residuals`` to see what reverse mode keeps.
Implemented in ``tjit/transforms/checkpoint.py``.
"""

from tjit.transforms.checkpoint import (  # noqa: F401
    checkpoint, remat, checkpoint_name, checkpoint_policies, print_saved_residuals,
    saved_residuals, everything_saveable, nothing_saveable, dots_saveable, checkpoint_dots,
    dots_with_no_batch_dims_saveable, save_only_these_names, save_any_names_but_these,
    save_anything_except_these_names, save_from_both_policies)

__all__ = ["checkpoint", "remat", "checkpoint_name", "checkpoint_policies",
           "print_saved_residuals", "saved_residuals"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
