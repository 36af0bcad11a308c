"""The AttributeError of a NumPy name that ``tjit.numpy`` does not have (as
``jax.numpy`` does not): NumPy code ported by changing its import reaches for
``np.nditer``, ``np.seterr`` or ``np.ubyte``, and a bare "has no attribute" leaves the
reader guessing whether tjit is incomplete. The message says why the name is absent and
what to write instead. Used by ``tjit.numpy.__getattr__``, which Python calls only for
names the module lacks, so it costs nothing on the way to the names it has."""

import numpy as np

_IMMUTABLE = ("tjit arrays are immutable, as JAX's; use the functional form, e.g. "
              "x = x.at[idx].set(value) or x = jnp.where(mask, value, x)")

_NO_LAYOUT = "tjit arrays have no memory layout to choose; use jnp.asarray(x)"

_NON_NUMERIC = ("tjit arrays hold numbers and bools, as JAX's: keep dates, text and "
                "records in NumPy or pandas and pass numeric columns to tjit")

_C_TYPE_NAMES = {
    "byte": "int8", "ubyte": "uint8", "short": "int16", "ushort": "uint16",
    "intc": "int32", "uintc": "uint32", "longlong": "int64", "ulonglong": "uint64",
    "intp": "int64", "uintp": "uint64", "longdouble": "float64",
    "clongdouble": "complex128",
}

_WHY = {
    "nditer": "it iterates and writes in place; " + _IMMUTABLE + "; or iterate a host copy: "
              "numpy.nditer(numpy.asarray(x))",
    "ndenumerate": "iterate a host copy, numpy.ndenumerate(numpy.asarray(x)), or write the "
                   "loop as vectorized jnp operations (or jax.vmap)",
    "ndindex": "use numpy.ndindex(*shape) (it yields plain index tuples) or jnp.indices",
    "copyto": _IMMUTABLE, "putmask": _IMMUTABLE,
    "seterr": "tjit does not trap floating-point errors: results follow IEEE rules (inf, "
              "nan); to stop at the first nan use tjit.config.update('debug_nans', True)",
    "geterr": "tjit does not trap floating-point errors; see tjit.config 'debug_nans'",
    "errstate": "tjit does not trap floating-point errors, so there is no state to set; "
                "use tjit.config.update('debug_nans', True) to find nans",
    "emath": "pass complex input to jnp.sqrt / jnp.log / jnp.power instead, e.g. "
             "jnp.sqrt(x.astype(jnp.complex64))",
    "ascontiguousarray": _NO_LAYOUT, "asfortranarray": _NO_LAYOUT, "require": _NO_LAYOUT,
    "datetime64": _NON_NUMERIC, "timedelta64": _NON_NUMERIC, "str_": _NON_NUMERIC,
    "bytes_": _NON_NUMERIC, "void": _NON_NUMERIC, "recarray": _NON_NUMERIC,
    "rec": _NON_NUMERIC, "char": _NON_NUMERIC,
    "ma": "masked arrays are NumPy's; keep a boolean mask beside the array and use "
          "jnp.where(mask, x, fill) or the where= argument of reductions",
    "genfromtxt": "read the file with numpy.genfromtxt(...) and convert: jnp.asarray(data)",
    "loadtxt": "read the file with numpy.loadtxt(...) and convert: jnp.asarray(data)",
    "savetxt": "write a host copy: numpy.savetxt(fname, numpy.asarray(x))",
    "lib": "numpy.lib's helpers work on NumPy arrays: call them on a host copy outside jit, "
           "e.g. numpy.lib.stride_tricks.sliding_window_view(numpy.asarray(x), 3)",
}


def missing_name_error(name):
    """The AttributeError for ``tjit.numpy.<name>``, saying why and what instead when the
    name is NumPy's."""
    base = f"module 'tjit.numpy' has no attribute {name!r}"
    if name.startswith("_") or not hasattr(np, name):
        return AttributeError(base)
    if name in _C_TYPE_NAMES:
        why = (f"tjit.numpy names dtypes by size (as jax.numpy): use "
               f"jnp.{_C_TYPE_NAMES[name]}")
    elif name in _WHY:
        why = _WHY[name]
    else:
        why = (f"it is NumPy-only (jax.numpy lacks it too): use numpy.{name} itself, "
               f"with tjit arrays converted by numpy.asarray(x) outside jit")
    return AttributeError(f"{base}: numpy.{name} is not part of tjit.numpy; {why}")
