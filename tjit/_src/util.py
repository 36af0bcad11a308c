"""``safe_map`` and ``safe_zip`` as ``jax._src.util`` defines them: ``map`` and ``zip``
that return lists and refuse arguments of different lengths (a jaxpr interpreter pairs
variables with values; a silent truncation there would drop outputs)."""


def _check_lengths(name, args):
    lengths = [len(a) for a in args]
    if len(set(lengths)) > 1:
        raise ValueError(f"{name}: the arguments have different lengths {lengths}; "
                         f"{name} pairs them element by element, so they must be equal")


def safe_map(f, *args):
    """``list(map(f, *args))``, raising ValueError when the ``args`` differ in length."""
    args = [list(a) for a in args]
    _check_lengths("safe_map", args)
    return list(map(f, *args))


def safe_zip(*args):
    """``list(zip(*args))``, raising ValueError when the ``args`` differ in length."""
    args = [list(a) for a in args]
    _check_lengths("safe_zip", args)
    return list(zip(*args))
