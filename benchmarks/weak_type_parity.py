"""Result dtype and weak type of every public function, tjit beside JAX.

    /work/jaxvenv/bin/python benchmarks/weak_type_parity.py [--x64] [--ns numpy,nn] [--jit]

Calls each public function of tjit.numpy, lax, nn, scipy.special, numpy.linalg,
numpy.fft, random (and Array methods) with Python scalars, weakly typed arrays and
strong bool/int8/uint8/float16/bfloat16/float32 arrays, in the same way in both
libraries, and prints every case where the results' (dtype, weak_type) differ, or where
JAX answers and tjit raises. A mismatch in the weak flag is a silent wrong answer one
operation later (``softmax(weak) * half_array`` is float16 in JAX, float32 if softmax's
result is strong in one library and weak in the other). Needs JAX; not run by CI.
"""

import argparse
import os
import sys
import warnings
from collections import Counter

import numpy as np

if "--x64" in sys.argv:
    os.environ["JAX_ENABLE_X64"] = os.environ["TJIT_ENABLE_X64"] = "1"

import jax  # noqa: E402
import jax.numpy as jjnp  # noqa: E402
import jax.scipy.special  # noqa: E402
import ml_dtypes  # noqa: E402
from jax._src.lax import lax as jax_lax_internal  # noqa: E402

import tjit  # noqa: E402
import tjit.numpy as tjnp  # noqa: E402
import tjit.scipy.special  # noqa: E402

jax.config.update("jax_platforms", "cpu")

NAMESPACES = {
    "numpy": (jjnp, tjnp),
    "lax": (jax.lax, tjit.lax),
    "nn": (jax.nn, tjit.nn),
    "scipy.special": (jax.scipy.special, tjit.scipy.special),
    "numpy.linalg": (jjnp.linalg, tjnp.linalg),
    "numpy.fft": (jjnp.fft, tjnp.fft),
    "random": (jax.random, tjit.random),
}

# Names that touch files, global state or take callables/shapes only.
SKIP = {"save", "savez", "load", "fromfile", "tofile", "set_printoptions", "printoptions",
        "frombuffer", "genfromtxt", "loadtxt", "fromfunction", "fromiter", "get_printoptions",
        "seterr", "geterr", "errstate", "show_config", "info", "vectorize", "frompyfunc",
        "piecewise", "apply_along_axis", "apply_over_axes", "from_dlpack", "block_until_ready"}

_MATRIX = np.array([[1.0, 0.2, 0.1], [0.2, 0.9, 0.3], [0.1, 0.3, 0.8]])
_INTS = np.array([[3, 1, 0], [1, 2, 1], [0, 1, 2]])

STRONG = ("bool", "int8", "uint8", "float16", "bfloat16", "float32")
CROSS = ("bool", "int8", "float16")  # the strong partners of weak inputs in binary calls
WEAK = ("pyfloat", "pyint", "weakf", "weaki", "weak0")  # weak0: a 0-d weak float32 array


def make(lib, kind):
    """The input called ``kind`` built with ``lib`` ('jax' or 'tjit')."""
    np_ = jjnp if lib == "jax" else tjnp
    if kind == "pyfloat":
        return 0.5
    if kind == "pyint":
        return 2
    if kind in ("weakf", "weaki", "weak0"):
        dt = np.dtype(np.int32 if kind == "weaki" else np.float32)
        x = np_.asarray({"weakf": _MATRIX, "weaki": _INTS, "weak0": 0.5}[kind], dtype=dt)
        if lib == "jax":
            return jax_lax_internal._convert_element_type(x, dt, weak_type=True)
        return tjit.lax.convert_element_type(x, dt, weak_type=True)
    dt = ml_dtypes.bfloat16 if kind == "bfloat16" else np.dtype(kind)
    src = np.eye(3) if kind == "bool" else (_INTS if kind[0] in "iu" else _MATRIX)
    return np_.asarray(src.astype(dt))


def describe(out):
    """(dtype, weak) of each leaf of a result, or the type name of non-arrays."""
    leaves = out if isinstance(out, (tuple, list)) else [out]
    res = []
    for v in leaves:
        if isinstance(v, (tuple, list)):
            res.extend(describe(v))
        elif hasattr(v, "dtype") and hasattr(v, "shape") and not isinstance(v, np.ndarray):
            res.append((str(v.dtype), bool(getattr(v, "weak_type", False))))
        else:
            res.append(type(v).__name__)
    return tuple(res)


def call(lib, fn, kinds, use_jit, key=None):
    args = [make(lib, k) for k in kinds]
    lead = [] if key is None else [key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if use_jit:
            jit = jax.jit if lib == "jax" else tjit.jit
            return describe(jit(lambda *a: fn(*lead, *a))(*args))
        return describe(fn(*lead, *args))


def combos(arity):
    kinds = WEAK + STRONG
    if arity == 0:
        return [()]
    out = [(k,) * arity for k in kinds]
    if arity >= 2:
        out += [(w, s) + ("float32",) * (arity - 2) for w in WEAK for s in CROSS]
        out += [(s, w) + ("float32",) * (arity - 2) for w in WEAK for s in CROSS]
    return out


def arity_of(jfn, key):
    for n in (1, 2, 3, 0):
        try:
            call("jax", jfn, ("float32",) * n, False, key)
            return n
        except Exception:
            continue
    return None


def compare(ns, name, jfn, tfn, keys, modes):
    jkey, tkey = keys
    n = arity_of(jfn, jkey)
    if n is None:
        return [], 0
    found, checked = [], 0
    for kinds in combos(n):
        for use_jit in modes:
            try:
                want = call("jax", jfn, kinds, use_jit, jkey)
            except Exception:
                continue
            checked += 1
            try:
                got = call("tjit", tfn, kinds, use_jit, tkey)
            except Exception as e:
                got = f"raises {type(e).__name__}: {str(e).splitlines()[0][:90] if str(e) else ''}"
            if got != want:
                found.append((ns, name, "jit" if use_jit else "eager", kinds, want, got))
                print(f"{ns}.{name} [{found[-1][2]}] {kinds}: jax {want}  tjit {got}",
                      flush=True)
    return found, checked


def method_pairs():
    """Array methods as functions of the array (and one more argument)."""
    jx = make("jax", "float32")
    def is_method(n):
        try:
            return callable(getattr(jx, n))
        except Exception:  # (deprecated attributes raise)
            return False
    names = sorted(n for n in dir(jx) if not n.startswith("_") and is_method(n))
    skip = {"block_until_ready", "copy_to_host_async", "delete", "addressable_data",
            "on_device_size_in_bytes", "tobytes", "tolist", "item", "to_device",
            "is_deleted", "is_fully_addressable", "is_fully_replicated", "devices",
            "device", "unsafe_buffer_pointer", "global_shards", "addressable_shards",
            "format", "layout", "sharding", "copy"}
    for n in names:
        if n in skip:
            continue
        yield n, (lambda n: lambda x, *a: getattr(x, n)(*a))(n), \
            (lambda n: lambda x, *a: getattr(x, n)(*a))(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--x64", action="store_true")
    ap.add_argument("--ns", default=",".join([*NAMESPACES, "methods"]))
    ap.add_argument("--eager-only", action="store_true")
    ap.add_argument("--names", default="")
    opts = ap.parse_args()
    modes = (False,) if opts.eager_only else (False, True)
    only = set(filter(None, opts.names.split(",")))
    found, checked, missing = [], 0, []
    for ns in opts.ns.split(","):
        if ns == "methods":
            pairs = list(method_pairs())
            keys = (None, None)
        else:
            jmod, tmod = NAMESPACES[ns]
            names = sorted(n for n in dir(jmod) if not n.startswith("_") and n not in SKIP
                           and callable(getattr(jmod, n)) and not isinstance(getattr(jmod, n), type))
            missing += [f"{ns}.{n}" for n in names if not hasattr(tmod, n)]
            pairs = [(n, getattr(jmod, n), getattr(tmod, n)) for n in names if hasattr(tmod, n)]
            keys = ((jax.random.key(0), tjit.random.key(0)) if ns == "random" else (None, None))
        for name, jfn, tfn in pairs:
            if only and name not in only:
                continue
            f, c = compare(ns, name, jfn, tfn, keys, modes)
            found += f
            checked += c
    by_fn = Counter((ns, name) for ns, name, *_ in found)
    print(f"\n{checked} cases compared, {len(found)} mismatches in {len(by_fn)} functions"
          f" (x64={'on' if opts.x64 else 'off'})")
    for (ns, name), k in sorted(by_fn.items()):
        print(f"  {ns}.{name}: {k}")


if __name__ == "__main__":
    main()
