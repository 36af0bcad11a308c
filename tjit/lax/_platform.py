"""``lax.platform_dependent``: the branch for the platform being traced for.

JAX stages every branch and picks one when lowering. tjit knows the backend when it
traces (``jit`` traces per backend: tracing/target_platform.py), so it calls the chosen
branch only; the other branches are not traced.
"""

from tjit.tracing.target_platform import current_platform

# tjit backend names -> the platform keyword a JAX program uses for them
_JAX_PLATFORM = {"gpu": "cuda", "cuda": "cuda", "interpreter": "cpu"}


def platform_dependent(*args, default=None, **per_platform):
    """``per_platform[platform](*args)`` for the platform the code is traced for, else
    ``default(*args)``, as ``jax.lax.platform_dependent``.

    Args:
      args: the branches' arguments (pytrees of arrays).
      default: the branch for a platform not named.
      per_platform: branches by platform: ``cpu``, ``cuda`` (tjit's CUDA backend),
        ``opencl``, ``hls``, and JAX's ``tpu``/``rocm`` (never chosen by tjit). The
        reference interpreter (``jit(f, backend="interpreter")``) counts as ``cpu``.

    Returns:
      What the chosen branch returns. Under ``jit`` the branch is the one for the jit's
      backend; outside ``jit`` the one for ``tjit.default_backend()``.
    """
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
    if default is not None and not callable(default):
        raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
    platform = current_platform()
    platform = _JAX_PLATFORM.get(platform, platform)
    branch = per_platform.get(platform, default)
    if branch is None:
        raise NotImplementedError(
            f"lax.platform_dependent: no branch for platform '{platform}' (branches: "
            f"{sorted(per_platform)}); add a {platform}= branch or default=")
    return branch(*args)


__all__ = ["platform_dependent"]
