"""tjit's version, as ``jax.version`` holds JAX's: ``__version__`` (a string) and
``__version_info__`` (its numeric parts, for comparisons such as
``version.__version_info__ >= (0, 1)``)."""

_version = "0.1.0"
__version__ = _version


def _version_as_tuple(version_str):
    """The leading numeric parts: '0.1.0' -> (0, 1, 0); '1.2.0rc1' -> (1, 2)."""
    out = []
    for part in version_str.split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


__version_info__ = _version_as_tuple(__version__)

__all__ = ["__version__", "__version_info__"]
