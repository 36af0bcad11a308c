"""Differential hunt: bad input through the public API. Every public function of
tjit.numpy, tjit.lax, tjit.nn, tjit.random and tjit.scipy.{special,linalg,signal,stats},
and of their submodules JAX has too (jnp.linalg.*, jnp.fft.*, lax.linalg.*,
scipy.stats.norm.* and the other distributions; named 'linalg.inv', 'norm.logpdf'), found
by introspection, is first called with a plain valid call (an argument kit from KITS where
one is written for the function, else arguments chosen by parameter name; the first JAX
accepts is kept), then with one argument made bad at a
time: axis out of range or not an integer, negative and non-integer sizes, unknown string
options (mode='bogus', order='Q', ...), None, strings, ragged lists, complex or bool
arrays, a second array of a mismatched shape, keys that are not keys; and a hand-written
namespace "special" (control flow, transformations, indexing, option strings, linalg and
conv arguments: special_cases()). Each bad call runs
on JAX, on NumPy/SciPy where the name exists, and on tjit eagerly and under jit (where
JAX raises); a few run under grad and vmap. A comparison tool, not a test (CI has no JAX):
run it with the JAX venv, which also has tjit installed.

    /work/jaxvenv/bin/python benchmarks/diff_errors.py [--only NS,...] [--names a,b]
        [--timeout S] [--list-all] [--x64]

--x64 turns on 64-bit types in both libraries (jax_enable_x64; the workers inherit it
through JAX_ENABLE_X64, which both read at start-up).

Flags, one line each, then counts per namespace:
  SILENT    tjit returns a value where JAX raises and NumPy raises or has no such name
  LENIENT   tjit returns a value where JAX raises but NumPy accepts (NumPy's semantics)
  INTERNAL  tjit raises an internal class (IndexError, KeyError, AttributeError,
            AssertionError, ZeroDivisionError, ...) where JAX raises TypeError/ValueError
  CLASS     tjit's class is not JAX's builtin class (TypeError vs ValueError vs IndexError)
  HANG      a call ran past --timeout seconds;  CRASH  the worker process died

Known differences kept on purpose (tjit follows the documented semantics):
  - lax functions take negative axes (counted from the end, as NumPy does) where JAX
    rejects them, and lax.cummax/cummin take bools (see diff_lax.py's list).
  - NumPy's semantics where JAX's refusal is incidental to its implementation: argmax/
    argmin of complex numbers (lexicographic order), round(bool) -> bool, quantile with a
    bool q, vander/polyfit of bools; jax.nn's functions of bools (sigmoid(True) is 0.73:
    tjit promotes, JAX's lax rules refuse bool) and softmax of bools in scipy.special.
  - Decisions left to the lead (tjit returns NumPy's answer where JAX refuses):
    lax.clamp/pad/reduce_window convert a Python-scalar bound, padding or init value to
    the operand's dtype where that loses nothing (lax.clamp(0.2, complex x, 0.8), as
    lax.add(complex x, 0.2); JAX 0.10 refuses any Python float beside a non-float32
    operand); lax.argmax/argmin of complex (lexicographic, as np.argmax); jnp.partition/
    argpartition of complex and bool; window functions (bartlett, kaiser, ...) of a
    negative M give an empty array (NumPy); norm.ppf/isf of bools; multinomial of a
    non-integer n (0 where x cannot sum to n, as SciPy).
  - NumPy's IndexError for a compress/extract condition longer than the axis and for
    fancy indices that do not broadcast together (JAX: ValueError).
  - TypeError for None/str/ragged lists given to lax functions and for axis='a' (JAX's
    ValueError there comes from inside its conversion code).
  - A traced value where a static one is needed (special's "traced ..." cases): tjit
    raises TracerIntegerConversionError (a ConcretizationTypeError, a TypeError) naming the
    argument; JAX's class varies by function (ValueError from hashing a static argument,
    TypeError from its shape checks), so CLASS lines there are expected.
  - ShapeError (a ValueError, NumPy's class) from lax.concatenate/transpose/linalg rank
    checks where JAX raises TypeError (CLASS lines); Broadcast/ContractionShapeError show
    how such errors can be both, a candidate for the remaining shape rules.

Each namespace runs in a worker process; a worker that dies is restarted after the case
it died in, which is reported as CRASH.
"""

import argparse
import collections
import importlib
import inspect
import json
import os
import signal
import subprocess
import sys
import traceback
import warnings

import numpy as np

warnings.filterwarnings("ignore")

NAMESPACES = ["numpy", "lax", "nn", "random", "scipy.special", "scipy.linalg",
              "scipy.signal", "scipy.stats", "special"]
#: NumPy/SciPy modules holding the same names (None: no reference beyond JAX)
REFERENCE = {"numpy": "numpy", "scipy.special": "scipy.special",
             "scipy.linalg": "scipy.linalg", "scipy.signal": "scipy.signal",
             "scipy.stats": "scipy.stats"}
#: builtin classes a user catches, most specific first
BUILTIN_CLASSES = (NotImplementedError, IndexError, KeyError, TypeError, ValueError,
                   ZeroDivisionError, AttributeError, AssertionError, RecursionError,
                   OverflowError, RuntimeError, LookupError, ArithmeticError)
#: JAX's classes a user catches (JAX's NameError for axis='a' is not one to copy)
USER_CLASSES = ("TypeError", "ValueError", "IndexError", "NotImplementedError", "KeyError")
INTERNAL = ("IndexError", "KeyError", "AttributeError", "AssertionError",
            "ZeroDivisionError", "RecursionError", "UnboundLocalError", "NameError",
            "StopIteration", "OverflowError", "RuntimeError", "SystemError")


# -- argument specs: materialized per library ---------------------------------------------
class Key:
    """A PRNG key of the library the call runs on."""
    def __repr__(self):
        return "key(0)"


class NotAKey:
    def __repr__(self):
        return "float array as key"


class FromLib:
    """A value built by the library the call runs on: FromLib("lax.GatherDimensionNumbers",
    (1,), (0,), (0,)) is jax.lax.GatherDimensionNumbers(...) on JAX, tjit.lax's on tjit."""
    def __init__(self, path, *args, **kwargs):
        self.path, self.args, self.kwargs = path, args, kwargs

    def __repr__(self):
        return f"{self.path}(...)"


def _arr(shape, dtype="float32", lo=0.1, hi=0.9, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 4, size=shape).astype(dtype)
    v = rng.uniform(lo, hi, size=shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.uniform(lo, hi, size=shape)
    return v.astype(dtype)


def materialize(v, lib):
    if isinstance(v, Key):
        return lib.random_key(0)
    if isinstance(v, NotAKey):
        return np.array([0.5, 1.5], np.float32)
    if isinstance(v, FromLib):
        head, _, rest = v.path.partition(".")
        return attr(importlib.import_module(f"{lib.name}.{head}"), rest)(*v.args, **v.kwargs)
    if isinstance(v, list):
        return [materialize(e, lib) for e in v]
    if isinstance(v, tuple):
        return tuple(materialize(e, lib) for e in v)
    if isinstance(v, np.ndarray):
        return v.copy()
    return v


def show(v):
    if isinstance(v, np.ndarray):
        return f"{v.dtype}{list(v.shape)}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(show(e) for e in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner},)"
    return repr(v)


# -- baseline arguments by parameter name -------------------------------------------------
ARRAY_NAMES = {"a", "x", "x1", "x2", "y", "arr", "array", "ary", "m", "operand", "v", "b",
               "lhs", "rhs", "xp", "fp", "p", "data", "values", "input", "in1", "in2",
               "z", "u", "w", "c", "s", "t", "k1", "alpha", "beta", "logits", "labels",
               "A", "B", "M", "array1", "array2", "ar1", "ar2", "element", "test_elements",
               "vals", "condition", "cond", "mask", "xs", "ys", "log_probs", "q",
               "elements", "dividend", "divisor", "angle", "position", "f", "signal",
               # distribution parameters (scipy.stats.*, random samplers) and a few more
               "df", "mu", "loc", "scale", "lam", "dfnum", "dfden", "concentration",
               "kappa", "h0", "a1", "a2", "prototype", "ar", "sample", "seq_of_zeros",
               "Zxx", "filt", "mean"}
SEQ_NAMES = {"arrays", "tup", "operands", "args", "xi", "arys", "keys", "choices"}


def baseline_value(name, profile):
    shape, dtype = profile
    if name in ARRAY_NAMES:
        return _arr(shape, dtype)
    if name in SEQ_NAMES:
        return [_arr(shape, dtype), _arr(shape, dtype, seed=1)]
    table = {
        "axis": 0, "axes": (0,), "axis1": 0, "axis2": 1, "source": 0, "destination": 1,
        "shape": (2, 3), "newshape": shape[::-1] if len(shape) > 1 else shape,
        "new_sizes": shape, "sizes": shape, "dimension": 0, "dimensions": None,
        "n": 3, "N": 3, "num": 3, "k": 1, "M": 3, "size": 3, "num_classes": 4,
        "dtype": np.float32, "new_dtype": np.float32, "key": Key(), "indices": np.array([0, 1]),
        "repeats": 2, "reps": 2, "fill_value": 1.0, "start": 0, "stop": 5, "end": 5,
        "step": 1, "bins": 3, "deg": 2, "ord": 2, "decimals": 1, "shift": 1,
        "permutation": tuple(range(len(shape)))[::-1], "indices_or_sections": 2,
        "sections": 2, "obj": 0, "pad_width": 1, "precision": None, "start_index": 0,
        "limit_index": 2, "stride": 1, "index": 0, "idx": 0, "nbits": 3,
        "broadcast_dimensions": tuple(range(len(shape))), "out_shape": shape,
        "subscripts": "ij->ji", "sorted_sequence": np.sort(_arr((5,))), "side": "left",
        "minval": 0.0, "maxval": 1.0, "lower": 0.0, "upper": 1.0, "shape_": (2, 3),
        "seed": 0, "num_samples": 2, "dim": 0, "kth": 1, "val": 1.0, "d": 3, "rank": 3,
        "new_shape": shape[::-1], "exponent_bits": 5, "mantissa_bits": 10,
        "index_dtype": np.int32, "start_dimension": 0,
    }
    if name in table:
        return table[name]
    raise LookupError(name)


PROFILES = [((3, 4), "float32"), ((4, 4), "float32"), ((5,), "float32"),
            ((3, 4), "int32"), ((3, 4), "bool"), ((2, 3, 4), "float32")]


def params_of(f):
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return None
    return [p for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def baselines(params):
    """Candidate valid calls: (positional args, keyword args) per profile."""
    required = [p for p in params if p.default is inspect.Parameter.empty]
    out = []
    for profile in PROFILES:
        args, kwargs = [], {}
        try:
            for p in required:
                v = baseline_value(p.name, profile)
                if p.kind == p.KEYWORD_ONLY:
                    kwargs[p.name] = v
                else:
                    args.append(v)
        except LookupError:
            return []
        out.append((args, kwargs, profile))
    return out


def _profile(args, kwargs):
    first = next((v for v in list(args) + list(kwargs.values())
                  if isinstance(v, np.ndarray)), np.zeros(()))
    return first.shape, str(first.dtype)


def kit_calls(ns, name):
    """Hand-written valid calls (KITS) for functions the name table cannot fill."""
    return [(list(args), dict(kwargs), _profile(args, kwargs))
            for args, kwargs in KITS.get(ns, {}).get(name, ())]


_X, _V, _S = _arr((3, 4)), _arr((5,)), _arr((4, 4))
_I = np.array([0, 2, 1], np.int32)
_B = _arr((3, 4), "bool")
_GDN = FromLib("lax.GatherDimensionNumbers", offset_dims=(1,), collapsed_slice_dims=(0,),
               start_index_map=(0,))
_SDN = FromLib("lax.ScatterDimensionNumbers", update_window_dims=(1,),
               inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
_IMG, _KER = _arr((1, 2, 5, 5)), _arr((3, 2, 3, 3))


def _add(a, b):
    return a + b


#: argument kits: a valid call, (args, kwargs), per function whose parameter names the
#: table above does not cover (or covers with values the function refuses); the first
#: one JAX accepts is the baseline the mutations start from
KITS = {
    "numpy": {
        "apply_along_axis": [((lambda r: r.sum(), 0, _X), {})],
        "apply_over_axes": [((lambda a, ax: a.sum(axis=ax, keepdims=True), _X, (0,)), {})],
        "argpartition": [((_X, 1), {})], "partition": [((_X, 1), {})],
        "array": [((_X,), {})], "array_equal": [((_X, _X), {})],
        "array_equiv": [((_X, _X), {})],
        "choose": [((np.array([0, 1, 0]), [_V[:3], _V[1:4]]), {})],
        "empty_like": [((_X,), {})], "fill_diagonal": [((_S, 1.0), {"inplace": False})],
        "heaviside": [((_X - 0.5, _X), {})], "histogramdd": [((_arr((5, 2)),), {})],
        "lexsort": [(([_V, _V[::-1]],), {})],
        "piecewise": [((_V, [_V > 0.5], [lambda v: v * 2, 0.0]), {})],
        "poly": [((_V[:3],), {})], "polyadd": [((_V[:3], _V[:2]), {})],
        "polymul": [((_V[:3], _V[:2]), {})], "polysub": [((_V[:3], _V[:2]), {})],
        "put": [((_X, np.array([0, 5]), _V[:2]), {"inplace": False})],
        "ravel_multi_index": [(((np.array([0, 1]), np.array([1, 2])), (3, 4)), {})],
        "resize": [((_X, (2, 6)), {})], "select": [(([_B], [_X]), {})],
        "trim_zeros": [((np.array([0.0, 1.0, 2.0, 0.0], np.float32),), {})],
        "unique": [((_V,), {})],
        "bartlett": [((5,), {})], "blackman": [((5,), {})], "hamming": [((5,), {})],
        "hanning": [((5,), {})], "kaiser": [((5, 2.0), {})],
        "bincount": [((np.array([1, 2, 2, 3]),), {})],
        "broadcast_to": [((_V[:4], (3, 4)), {})], "clip": [((_X, 0.2, 0.8), {})],
        "cross": [((_arr((2, 3)), _arr((2, 3), seed=1)), {})],
        "digitize": [((_V, np.array([0.2, 0.5, 0.8], np.float32)), {})],
        "einsum": [(("ij,jk->ik", _X, _X.T), {})], "indices": [(((2, 3),), {})],
        "place": [((_X, _B, _V[:2]), {"inplace": False})],
        "put_along_axis": [((_X, np.array([[0], [1], [2]]), _arr((3, 1)), 1),
                            {"inplace": False})],
        "reshape": [((_X, (4, 3)), {})],
        "unpackbits": [((np.array([3, 200], np.uint8),), {})],
        "linalg.solve": [((_S + 4 * np.eye(4, dtype=np.float32), _S[:, 0]), {})],
        "linalg.tensorsolve": [((_S + 4 * np.eye(4, dtype=np.float32), _S[:, 0]), {})],
        "linalg.matrix_power": [((_S, 2), {})],
        "fft.fftfreq": [((5,), {})], "fft.rfftfreq": [((5,), {})],
    },
    "lax": {
        "argmax": [((_X, 0, np.int32), {})], "argmin": [((_X, 0, np.int32), {})],
        "associative_scan": [((_add, _X), {})],
        "broadcast_to_rank": [((_X, 3), {})], "clamp": [((0.2, _X, 0.8), {})],
        "collapse": [((_arr((2, 3, 4)), 0, 2), {})],
        "conv": [((_IMG, _KER, (1, 1), "SAME"), {})],
        "conv_general_dilated": [((_IMG, _KER, (1, 1), "SAME"), {})],
        "conv_general_dilated_patches": [((_IMG, (3, 3), (1, 1), "SAME"), {})],
        "conv_transpose": [((_arr((1, 5, 5, 2)), _arr((3, 3, 2, 3)), (1, 1), "SAME"), {})],
        "conv_with_general_padding": [((_IMG, _KER, (1, 1), ((1, 1), (1, 1)), (1, 1),
                                        (1, 1)), {})],
        "dot_general": [((_X, _X, (((1,), (1,)), ((), ()))), {})],
        "dynamic_slice": [((_X, (0, 1), (2, 2)), {})],
        "dynamic_slice_in_dim": [((_X, 1, 2, 0), {})],
        "dynamic_update_slice": [((_X, _arr((2, 2)), (0, 1)), {})],
        "dynamic_update_slice_in_dim": [((_X, _arr((1, 4)), 1, 0), {})],
        "dynamic_update_index_in_dim": [((_X, _arr((4,)), 1, 0), {})],
        "fft": [((_X.astype(np.complex64), "fft", (4,)), {})],
        "gather": [((_X, np.array([[0], [2]]), _GDN, (1, 4)), {})],
        "index_take": [((_X, (np.array([0, 2]),), (0,)), {})],
        "pad": [((_X, 0.0, [(1, 1, 0), (0, 1, 1)]), {})],
        "ragged_dot": [((_arr((6, 4)), _arr((2, 4, 3)), np.array([2, 4], np.int32)), {})],
        "reduce": [((_X, 0.0, _add, (0,)), {})],
        "reduce_precision": [((_X, 5, 10), {})],
        "reduce_window": [((_X, 0.0, _add, (2, 2), (1, 1), "VALID"), {})],
        "scatter": [((_X, np.array([[0], [2]]), _arr((2, 4)), _SDN), {})],
        "scatter_add": [((_X, np.array([[0], [2]]), _arr((2, 4)), _SDN), {})],
        "scatter_mul": [((_X, np.array([[0], [2]]), _arr((2, 4)), _SDN), {})],
        "scatter_min": [((_X, np.array([[0], [2]]), _arr((2, 4)), _SDN), {})],
        "scatter_max": [((_X, np.array([[0], [2]]), _arr((2, 4)), _SDN), {})],
        "scatter_sub": [((_X, np.array([[0], [2]]), _arr((2, 4)), _SDN), {})],
        "select": [((_B, _X, _X[::-1]), {})], "select_n": [((_B, _X, _X[::-1]), {})],
        "slice": [((_X, (0, 1), (2, 3)), {})], "sort_key_val": [((_X, _X[::-1]), {})],
        "broadcast_in_dim": [((_X, (2, 3, 4), (1, 2)), {})],
        "expand_dims": [((_X, (0,)), {})], "imag": [((_X.astype(np.complex64),), {})],
        "real": [((_X.astype(np.complex64),), {})], "integer_pow": [((_X, 2), {})],
        "rev": [((_X, (0,)), {})], "squeeze": [((_arr((1, 3, 4)), (0,)), {})],
        "tile": [((_X, (2, 1)), {})], "map": [((lambda a: a * 2, _X), {})],
        "broadcast_shapes": [(((3, 4), (4,)), {})],
    },
    "random": {
        "ball": [((Key(), 3), {})],
        "chisquare": [((Key(), _V), {})], "t": [((Key(), _V), {})],
        "double_sided_maxwell": [((Key(), _V, _V), {})], "f": [((Key(), _V, _V), {})],
        "multivariate_normal": [((Key(), _V[:2], np.eye(2, dtype=np.float32)), {})],
        "poisson": [((Key(), _V), {})], "rayleigh": [((Key(), _V), {})],
        "triangular": [((Key(), _V * 0, _V, _V + 1), {})], "wald": [((Key(), _V), {})],
        "weibull_min": [((Key(), _V, _V), {})], "fold_in": [((Key(), 3), {})],
        "generalized_normal": [((Key(), 2.0, (3,)), {})], "key_data": [((Key(),), {})],
    },
    "scipy.signal": {
        "istft": [((_arr((5, 4)).astype(np.complex64),), {"nperseg": 8})],
    },
    "scipy.stats": {
        "multivariate_normal.pdf": [((_V[:2], _V[:2], np.eye(2, dtype=np.float32)), {})],
        "multivariate_normal.logpdf": [((_V[:2], _V[:2], np.eye(2, dtype=np.float32)), {})],
        "dirichlet.pdf": [((np.array([0.2, 0.3, 0.5], np.float32), _V[:3]), {})],
        "dirichlet.logpdf": [((np.array([0.2, 0.3, 0.5], np.float32), _V[:3]), {})],
        "multinomial.pmf": [((np.array([1.0, 2.0], np.float32), 3,
                              np.array([0.4, 0.6], np.float32)), {})],
        "multinomial.logpmf": [((np.array([1.0, 2.0], np.float32), 3,
                                 np.array([0.4, 0.6], np.float32)), {})],
    },
}


# -- bad arguments ------------------------------------------------------------------------
STRING_OPTIONS = {"mode", "method", "order", "kind", "side", "norm", "padding", "casting",
                  "interpolation", "how", "sort_kind", "boundary", "approx", "output",
                  "window", "nan_policy", "alternative", "lapack_driver", "which", "side",
                  "ddof_mode", "sign", "indexing", "implementation", "precision"}
AXIS_NAMES = {"axis", "axis1", "axis2", "source", "destination", "dimension", "start",
              "dim", "start_dimension", "stop_dimension"}
SIZE_NAMES = {"shape", "n", "N", "num", "k", "M", "size", "num_classes", "repeats", "reps",
              "newshape", "new_sizes", "sizes", "bins", "deg", "decimals", "shift",
              "num_samples", "out_shape", "indices_or_sections", "nbits", "rank", "count",
              "kth"}


def mutations(params, args, kwargs, profile):
    """(label, args, kwargs) with one argument made bad."""
    shape, dtype = profile
    ndim = len(shape)
    names = [p.name for p in params]
    pos = {p.name: i for i, p in enumerate(params) if i < len(args)}

    def put(name, value):
        a, k = list(args), dict(kwargs)
        if name in pos:
            a[pos[name]] = value
        else:
            k[name] = value
        return a, k

    out = []
    for p in params:
        n = p.name
        current = args[pos[n]] if n in pos else kwargs.get(n, p.default)
        if isinstance(current, np.ndarray) and n in ARRAY_NAMES:
            out.append((f"{n}=None", *put(n, None)))
            out.append((f"{n}='abc'", *put(n, "abc")))
            out.append((f"{n}=ragged list", *put(n, [[1.0, 2.0], [3.0]])))
            if current.dtype.kind == "f":
                out.append((f"{n}=complex", *put(n, current.astype(np.complex64))))
                out.append((f"{n}=bool", *put(n, current > 0.5)))
            if current.ndim:
                other = _arr((current.shape[-1] + 2,) + (2,) * 0, str(current.dtype))
                if sum(isinstance(args[pos[m]] if m in pos else None, np.ndarray)
                       for m in names) >= 2:
                    out.append((f"{n}=mismatched {list(other.shape)}", *put(n, other)))
        if isinstance(current, list) and n in SEQ_NAMES and current:
            bad = [current[0], _arr((current[0].shape[0] + 1,) + current[0].shape[1:], dtype)]
            out.append((f"{n}=mismatched shapes", *put(n, bad)))
            out.append((f"{n}=[]", *put(n, [])))
            out.append((f"{n}=[array, None]", *put(n, [current[0], None])))
        if isinstance(current, Key):
            out.append((f"{n}=not a key", *put(n, NotAKey())))
            out.append((f"{n}=int 0", *put(n, 0)))
        if n in AXIS_NAMES and (n in pos or n in kwargs or p.default is None
                                or isinstance(p.default, int)):
            out.append((f"{n}={ndim + 2}", *put(n, ndim + 2)))
            out.append((f"{n}={-ndim - 3}", *put(n, -ndim - 3)))
            out.append((f"{n}=1.5", *put(n, 1.5)))
            out.append((f"{n}='a'", *put(n, "a")))
        if n == "axis" and (p.default is None or isinstance(p.default, int) or n in pos):
            out.append(("axis=(0, 0)", *put(n, (0, 0))))
        if n in SIZE_NAMES and (n in pos or n in kwargs or isinstance(p.default, int)):
            if isinstance(current, tuple):
                out.append((f"{n}=(-2, 3)", *put(n, (-2,) + tuple(current[1:]))))
                out.append((f"{n}=(2.5,)", *put(n, (2.5,))))
            else:
                out.append((f"{n}=-2", *put(n, -2)))
                out.append((f"{n}=2.5", *put(n, 2.5)))
            out.append((f"{n}='a'", *put(n, "a")))
        if n in ("dtype", "new_dtype") and (n in pos or n in kwargs or p.default is None):
            out.append((f"{n}='bogus'", *put(n, "bogus")))
            out.append((f"{n}=object", *put(n, object)))
        if n in STRING_OPTIONS and (isinstance(p.default, str) or n in pos or n in kwargs):
            out.append((f"{n}='bogus'", *put(n, "Q" if n == "order" else "bogus")))
        if n == "indices" and isinstance(current, np.ndarray):
            out.append(("indices=float", *put(n, current.astype(np.float32))))
    return out


# -- hand-written cases: transforms, control flow, indexing, options ----------------------
def special_cases():
    """(name, call(lib)) where lib has .jax (tjit or jax), .jnp, .lax, .random."""
    x = _arr((3, 4))
    v = _arr((4,))
    i = np.array([0, 1])
    c = [
        ("cond branches differ in shape",
         lambda L: L.lax.cond(True, lambda a: a, lambda a: a[0], x)),
        ("cond branches differ in dtype",
         lambda L: L.lax.cond(True, lambda a: a, lambda a: a.astype(np.int32), x)),
        ("cond non-scalar predicate",
         lambda L: L.lax.cond(np.array([True, False]), lambda a: a, lambda a: a, x)),
        ("cond float predicate", lambda L: L.lax.cond(1.5, lambda a: a, lambda a: -a, x)),
        ("switch float index", lambda L: L.lax.switch(1.5, [lambda a: a, lambda a: -a], x)),
        ("switch no branches", lambda L: L.lax.switch(0, [], x)),
        ("scan carry changes shape", lambda L: L.lax.scan(lambda c, a: (c[0], a), x, v)),
        ("scan carry changes dtype",
         lambda L: L.lax.scan(lambda c, a: (c.astype(np.int32), a), x, v)),
        ("scan length mismatch", lambda L: L.lax.scan(lambda c, a: (c, a), 0.0, v, length=3)),
        ("scan xs leading dims differ", lambda L: L.lax.scan(lambda c, a: (c, a), 0.0, (v, x))),
        ("while_loop body changes shape",
         lambda L: L.lax.while_loop(lambda a: False, lambda a: a[0], x)),
        ("while_loop cond not bool", lambda L: L.lax.while_loop(lambda a: a, lambda a: a, x)),
        ("fori_loop float bounds", lambda L: L.lax.fori_loop(0, 2.5, lambda k, a: a, x)),
        ("fori_loop body changes dtype",
         lambda L: L.lax.fori_loop(0, 2, lambda k, a: a.astype(np.int32), x)),
        ("map mismatched leading dims", lambda L: L.lax.map(lambda t: t[0] + t[1], (v, x))),
        ("jit static_argnums out of range", lambda L: L.jax.jit(lambda a: a, static_argnums=3)(x)),
        ("jit donate_argnums out of range", lambda L: L.jax.jit(lambda a: a, donate_argnums=3)(x)),
        ("vmap in_axes out of range", lambda L: L.jax.vmap(lambda a: a, in_axes=5)(x)),
        ("vmap mismatched sizes", lambda L: L.jax.vmap(lambda a, b: a + b)(x, v)),
        ("vmap in_axes wrong length", lambda L: L.jax.vmap(lambda a, b: a, in_axes=(0,))(x, x)),
        ("vmap in_axes float", lambda L: L.jax.vmap(lambda a: a, in_axes=0.5)(x)),
        ("vmap out_axes out of range", lambda L: L.jax.vmap(lambda a: a, out_axes=4)(x)),
        ("vmap of nothing to map", lambda L: L.jax.vmap(lambda a: a, in_axes=None)(x)),
        ("grad of non-scalar", lambda L: L.jax.grad(lambda a: a * 2)(x)),
        ("grad of int input", lambda L: L.jax.grad(lambda a: (a * 2).sum())(np.arange(3))),
        ("grad argnums out of range", lambda L: L.jax.grad(lambda a: a.sum(), argnums=2)(x)),
        ("grad of complex output", lambda L: L.jax.grad(lambda a: (a * 1j).sum())(x)),
        ("jacfwd of int input", lambda L: L.jax.jacfwd(lambda a: a * 2)(np.arange(3))),
        ("jvp tangent shape mismatch", lambda L: L.jax.jvp(lambda a: a * 2, (x,), (v,))),
        ("jvp tangent dtype mismatch",
         lambda L: L.jax.jvp(lambda a: a * 2, (x,), (x.astype(np.float16),))),
        ("jvp primals not a tuple", lambda L: L.jax.jvp(lambda a: a * 2, x, x)),
        ("vjp cotangent shape mismatch", lambda L: L.jax.vjp(lambda a: a * 2, x)[1](v)),
        ("split of a float array", lambda L: L.random.split(np.array([0.5, 1.5], np.float32))),
        ("split num negative", lambda L: L.random.split(L.random.key(0), -1)),
        ("split num float", lambda L: L.random.split(L.random.key(0), 2.5)),
        ("fold_in float data", lambda L: L.random.fold_in(L.random.key(0), 1.5)),
        ("key of float seed", lambda L: L.random.key(1.5)),
        ("key of array seed", lambda L: L.random.key(np.array([1, 2]))),
        ("normal float shape", lambda L: L.random.normal(L.random.key(0), (2.5,))),
        ("normal int dtype", lambda L: L.random.normal(L.random.key(0), (2,), np.int32)),
        ("uniform minval > maxval shapes",
         lambda L: L.random.uniform(L.random.key(0), (2,), minval=np.zeros(3))),
        ("randint float dtype",
         lambda L: L.random.randint(L.random.key(0), (2,), 0, 5, np.float32)),
        ("choice replace=False too many",
         lambda L: L.random.choice(L.random.key(0), 3, (5,), replace=False)),
        ("choice p wrong length",
         lambda L: L.random.choice(L.random.key(0), 3, (2,), p=np.ones(4) / 4)),
        ("index with float", lambda L: L.jnp.asarray(x)[1.5]),
        ("index with float array", lambda L: L.jnp.asarray(x)[np.array([0.5])]),
        ("index too many", lambda L: L.jnp.asarray(x)[0, 0, 0]),
        ("index ragged fancy", lambda L: L.jnp.asarray(x)[np.array([0, 1]), np.array([0, 1, 2])]),
        ("index with string", lambda L: L.jnp.asarray(x)["a"]),
        ("index with None list", lambda L: L.jnp.asarray(x)[[None, 1]]),
        ("bool mask wrong shape", lambda L: L.jnp.asarray(x)[np.array([True, False])]),
        (".at set mismatched", lambda L: L.jnp.asarray(x).at[0].set(np.ones(5))),
        (".at bogus mode", lambda L: L.jnp.asarray(x).at[0].get(mode="bogus")),
        ("reshape wrong size", lambda L: L.jnp.reshape(x, (5, 2))),
        ("reshape order Q", lambda L: L.jnp.reshape(x, (4, 3), order="Q")),
        ("ravel order Q", lambda L: L.jnp.ravel(x, order="Q")),
        ("concatenate rank mismatch", lambda L: L.jnp.concatenate([x, v])),
        ("concatenate dim mismatch", lambda L: L.jnp.concatenate([x, x[:, :2]], axis=0)),
        ("concatenate dtype object", lambda L: L.jnp.concatenate([x, x], dtype=object)),
        ("stack shape mismatch", lambda L: L.jnp.stack([x, x[:2]])),
        ("where shape mismatch", lambda L: L.jnp.where(x > 0.5, x, _arr((5,)))),
        ("where one of x,y", lambda L: L.jnp.where(x > 0.5, x)),
        ("matmul mismatch", lambda L: L.jnp.matmul(x, x)),
        ("matmul scalar", lambda L: L.jnp.matmul(x, 2.0)),
        ("dot mismatch", lambda L: L.jnp.dot(x, x)),
        ("einsum bad subscripts", lambda L: L.jnp.einsum("ij,jk->il", x, x.T)),
        ("einsum operand count", lambda L: L.jnp.einsum("ij,jk->ik", x)),
        ("einsum mismatch", lambda L: L.jnp.einsum("ij,jk->ik", x, x)),
        ("pad mode bogus", lambda L: L.jnp.pad(x, 1, mode="bogus")),
        ("pad negative", lambda L: L.jnp.pad(x, -1)),
        ("pad width wrong len", lambda L: L.jnp.pad(x, ((1, 1), (1, 1), (1, 1)))),
        ("norm ord bogus", lambda L: L.jnp.linalg.norm(x, ord="bogus")),
        ("norm ord 3 matrix", lambda L: L.jnp.linalg.norm(x, ord=3)),
        ("take mode bogus", lambda L: L.jnp.take(x, i, mode="bogus")),
        ("searchsorted side bogus", lambda L: L.jnp.searchsorted(v, v, side="bogus")),
        ("searchsorted method bogus", lambda L: L.jnp.searchsorted(v, v, method="bogus")),
        ("fft norm bogus", lambda L: L.jnp.fft.fft(v, norm="bogus")),
        ("fft n=0", lambda L: L.jnp.fft.fft(v, n=0)),
        ("convolve mode bogus", lambda L: L.jnp.convolve(v, v, mode="bogus")),
        ("convolve 2-D", lambda L: L.jnp.convolve(x, v)),
        ("ones float shape", lambda L: L.jnp.ones((2.5,))),
        ("ones string shape", lambda L: L.jnp.ones("a")),
        ("arange complex", lambda L: L.jnp.arange(1j)),
        ("arange step 0", lambda L: L.jnp.arange(0, 5, 0)),
        ("linspace num float", lambda L: L.jnp.linspace(0, 1, 2.5)),
        ("eye float N", lambda L: L.jnp.eye(2.5)),
        ("astype bogus", lambda L: L.jnp.asarray(x).astype("bogus")),
        ("asarray string", lambda L: L.jnp.asarray("abc")),
        ("asarray object array", lambda L: L.jnp.asarray(np.array([object()]))),
        ("array ragged", lambda L: L.jnp.array([[1, 2], [3]])),
        ("sum dtype bogus", lambda L: L.jnp.sum(x, dtype="bogus")),
        ("sum where mismatched", lambda L: L.jnp.sum(x, where=np.ones(5, bool))),
        ("mean where float", lambda L: L.jnp.mean(x, where=x)),
        ("argsort stable bogus kind", lambda L: L.jnp.argsort(x, kind="bogus")),
        ("sort order", lambda L: L.jnp.sort(x, order="a")),
        ("clip complex", lambda L: L.jnp.clip(x.astype(np.complex64), 0, 1)),
        ("round float decimals", lambda L: L.jnp.round(x, 1.5)),
        ("repeat float", lambda L: L.jnp.repeat(x, 1.5)),
        ("repeat wrong len", lambda L: L.jnp.repeat(x, np.array([1, 2]), axis=0)),
        ("tile float", lambda L: L.jnp.tile(x, 1.5)),
        ("split unequal", lambda L: L.jnp.split(x, 3, axis=1)),
        ("transpose bad axes", lambda L: L.jnp.transpose(x, (0, 0))),
        ("transpose wrong len", lambda L: L.jnp.transpose(x, (0,))),
        ("moveaxis repeated", lambda L: L.jnp.moveaxis(x, (0, 0), (0, 1))),
        ("broadcast_to smaller", lambda L: L.jnp.broadcast_to(x, (4,))),
        ("squeeze non-1", lambda L: L.jnp.squeeze(x, 0)),
        ("expand_dims repeated", lambda L: L.jnp.expand_dims(x, (0, 0))),
        ("diagonal same axes", lambda L: L.jnp.diagonal(x, axis1=0, axis2=0)),
        ("trace same axes", lambda L: L.jnp.trace(x, axis1=1, axis2=1)),
        ("histogram bins negative", lambda L: L.jnp.histogram(v, bins=-1)),
        ("histogram range reversed", lambda L: L.jnp.histogram(v, range=(1, 0))),
        ("bincount negative length", lambda L: L.jnp.bincount(i, length=-1)),
        ("bincount float input", lambda L: L.jnp.bincount(v)),
        ("unique size negative", lambda L: L.jnp.unique(v, size=-1)),
        ("nonzero size negative", lambda L: L.jnp.nonzero(v, size=-1)),
        ("linalg.inv non-square", lambda L: L.jnp.linalg.inv(x)),
        ("linalg.solve mismatch", lambda L: L.jnp.linalg.solve(_arr((4, 4)), _arr((3,)))),
        ("linalg.cholesky 1-D", lambda L: L.jnp.linalg.cholesky(v)),
        ("linalg.det int", lambda L: L.jnp.linalg.det(np.eye(3, dtype=np.int32))),
        ("linalg.eigh non-square", lambda L: L.jnp.linalg.eigh(x)),
        ("linalg.svd 1-D", lambda L: L.jnp.linalg.svd(v)),
        ("linalg.qr mode bogus", lambda L: L.jnp.linalg.qr(x, mode="bogus")),
        ("linalg.matrix_power float", lambda L: L.jnp.linalg.matrix_power(_arr((3, 3)), 1.5)),
        ("linalg.tensorsolve mismatch", lambda L: L.jnp.linalg.tensorsolve(x, v)),
        ("dot_general bad contracting",
         lambda L: L.lax.dot_general(x, x, (((1,), (1, 0)), ((), ())))),
        ("dot_general contract out of range",
         lambda L: L.lax.dot_general(x, x, (((5,), (1,)), ((), ())))),
        ("conv bad strides len",
         lambda L: L.lax.conv(_arr((1, 1, 5, 5)), _arr((1, 1, 3, 3)), (1,), "SAME")),
        ("conv padding bogus",
         lambda L: L.lax.conv(_arr((1, 1, 5, 5)), _arr((1, 1, 3, 3)), (1, 1), "BOGUS")),
        ("conv channel mismatch",
         lambda L: L.lax.conv(_arr((1, 2, 5, 5)), _arr((1, 1, 3, 3)), (1, 1), "SAME")),
        ("dynamic_slice wrong index count", lambda L: L.lax.dynamic_slice(x, (0,), (1, 1))),
        ("dynamic_slice float index", lambda L: L.lax.dynamic_slice(x, (0.5, 0), (1, 1))),
        ("dynamic_update_slice bigger", lambda L: L.lax.dynamic_update_slice(v, x, (0,))),
        ("gather bad dnums",
         lambda L: L.lax.gather(x, i[:, None],
                                L.lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 4))),
        ("reduce_window bad dims",
         lambda L: L.lax.reduce_window(x, 0.0, L.lax.add, (2,), (1,), "VALID")),
        ("select mismatched", lambda L: L.lax.select(x > 0.5, x, v)),
        ("select non-bool pred", lambda L: L.lax.select(x, x, x)),
        ("convert_element_type bogus", lambda L: L.lax.convert_element_type(x, "bogus")),
        ("add dtype mismatch", lambda L: L.lax.add(x, x.astype(np.float16))),
        ("add shape mismatch", lambda L: L.lax.add(x, v[:3])),
        ("rem int by zero", lambda L: L.lax.rem(np.int32(1), np.int32(0))),
        ("div int by zero", lambda L: L.lax.div(np.int32(1), np.int32(0))),
        ("pad negative interior", lambda L: L.lax.pad(v, 0.0, [(0, 0, -1)])),
        ("pad config wrong len", lambda L: L.lax.pad(x, 0.0, [(0, 0, 0)])),
        ("rev out of range", lambda L: L.lax.rev(x, (3,))),
        ("transpose bad perm", lambda L: L.lax.transpose(x, (0, 0))),
        ("sort num_keys 0", lambda L: L.lax.sort(x, num_keys=0)),
        ("sort num_keys too big", lambda L: L.lax.sort((x, x), num_keys=3)),
        ("argmax index_dtype float", lambda L: L.lax.argmax(x, 0, np.float32)),
        ("reduce mismatched init", lambda L: L.lax.reduce(x, (0.0, 0.0), L.lax.add, (0,))),
        ("iota float dim", lambda L: L.lax.broadcasted_iota(np.int32, (2, 3), 0.5)),
        ("nn.one_hot float classes", lambda L: L.jax.nn.one_hot(i, 2.5)),
        ("nn.one_hot negative classes", lambda L: L.jax.nn.one_hot(i, -1)),
        ("nn.softmax axis out", lambda L: L.jax.nn.softmax(x, axis=5)),
        ("tree_map mismatched", lambda L: L.jax.tree_util.tree_map(lambda a, b: a, (1, 2), (1,))),
        ("device_put bad device", lambda L: L.jax.device_put(x, "bogus")),
        ("block_until_ready None", lambda L: L.jax.block_until_ready(object())),
        ("eval_shape bad arg", lambda L: L.jax.eval_shape(lambda a: a + 1, "abc")),
        ("checkpoint policy bogus", lambda L: L.jax.checkpoint(lambda a: a, policy="bogus")(x)),
        ("custom_jvp wrong tangent", lambda L: _custom_jvp_bad(L)),
    ]
    return c + traced_static_cases(x, v, i)


def traced_static_cases(x, v, i):
    """A jit argument (a tracer) where a static value is needed: an axis, a shape, a count.
    JAX raises a ConcretizationTypeError (or another TypeError/ValueError); each must raise,
    never return a value or crash."""
    def jit1(L, f, *args):
        return L.jax.jit(f)(*args)
    return [
        ("traced axis sum", lambda L: jit1(L, lambda a, n: L.jnp.sum(a, axis=n), x, 1)),
        ("traced axis cumsum", lambda L: jit1(L, lambda a, n: L.jnp.cumsum(a, axis=n), x, 1)),
        ("traced axis argmax", lambda L: jit1(L, lambda a, n: L.jnp.argmax(a, axis=n), x, 1)),
        ("traced axis concatenate",
         lambda L: jit1(L, lambda a, n: L.jnp.concatenate([a, a], n), x, 1)),
        ("traced axis lax.cumsum", lambda L: jit1(L, lambda a, n: L.lax.cumsum(a, axis=n), x, 0)),
        ("traced shape zeros", lambda L: jit1(L, lambda n: L.jnp.zeros((n, 2)), 3)),
        ("traced shape reshape", lambda L: jit1(L, lambda a, n: a.reshape((n, -1)), x, 4)),
        ("traced shape lax.iota", lambda L: jit1(L, lambda n: L.lax.iota(np.int32, n), 3)),
        ("traced shape lax.full", lambda L: jit1(L, lambda n: L.lax.full((n,), 1.0), 3)),
        ("traced shape random.normal",
         lambda L: jit1(L, lambda n: L.random.normal(L.random.key(0), (n,)), 3)),
        ("traced k top_k", lambda L: jit1(L, lambda a, k: L.lax.top_k(a, k), v, 2)),
        ("traced float k top_k", lambda L: jit1(L, lambda a, k: L.lax.top_k(a, k), v, 2.0)),
        ("traced num linspace", lambda L: jit1(L, lambda n: L.jnp.linspace(0, 1, n), 5)),
        ("traced size nonzero", lambda L: jit1(L, lambda a, n: L.jnp.nonzero(a, size=n), v, 2)),
        ("traced size unique", lambda L: jit1(L, lambda a, n: L.jnp.unique(a, size=n), v, 2)),
        ("traced kth partition", lambda L: jit1(L, lambda a, n: L.jnp.partition(a, n), v, 2)),
        ("traced n diff", lambda L: jit1(L, lambda a, n: L.jnp.diff(a, n), v, 1)),
        ("traced decimals round", lambda L: jit1(L, lambda a, n: L.jnp.round(a, n), v, 1)),
        ("traced ord norm", lambda L: jit1(L, lambda a, n: L.jnp.linalg.norm(a, n), v, 2)),
        ("traced exponent matrix_power",
         lambda L: jit1(L, lambda a, n: L.jnp.linalg.matrix_power(a, n), x[:3, :3], 2)),
        ("traced classes one_hot", lambda L: jit1(L, lambda a, n: L.jax.nn.one_hot(a, n), i, 3)),
        ("traced repeats repeat", lambda L: jit1(L, lambda a, n: L.jnp.repeat(a, n), v, 2)),
        ("traced pad width", lambda L: jit1(L, lambda a, n: L.jnp.pad(a, n), v, 1)),
        ("traced stop lax.collapse", lambda L: jit1(L, lambda a, n: L.lax.collapse(a, 0, n), x, 2)),
        ("traced rank lax.broadcast_to_rank",
         lambda L: jit1(L, lambda a, n: L.lax.broadcast_to_rank(a, n), v, 3)),
        ("traced reps lax.tile", lambda L: jit1(L, lambda a, n: L.lax.tile(a, (n, 1)), x, 2)),
        ("traced fft_lengths lax.fft",
         lambda L: jit1(L, lambda a, n: L.lax.fft(a, "fft", (n,)), v.astype(np.complex64), 4)),
        ("traced count unpackbits",
         lambda L: jit1(L, lambda a, n: L.jnp.unpackbits(a, count=n), np.array([3], np.uint8), 3)),
        ("traced length scan",
         lambda L: jit1(L, lambda n: L.lax.scan(lambda c, _: (c, c), 0.0, None, length=n), 3)),
    ]


def _custom_jvp_bad(L):
    @L.jax.custom_jvp
    def f(a):
        return a * 2.0

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), np.ones(3, np.float32)  # a tangent of another shape
    return L.jax.jvp(f, (1.0,), (1.0,))


# -- running one call ---------------------------------------------------------------------
class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def outcome(fn, args, kwargs, timeout):
    """('ok', summary) or ('raise', class name, builtin class name, message)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        return ("ok", _summary(fn(*args, **kwargs)))
    except Timeout:
        return ("hang",)
    except BaseException as e:  # noqa: BLE001 - the hunt records every class
        if isinstance(e, KeyboardInterrupt):
            raise
        bases = [c.__name__ for c in BUILTIN_CLASSES if isinstance(e, c)] or \
            [type(e).__name__]
        # the first line (cut to 300 characters) and the "(raised in jnp.std)" notes
        # tjit's entry points add to a message that names an inner function; other
        # notes are left out
        first = str(e).strip().splitlines()[:1]
        notes = [n for n in getattr(e, "__notes__", ()) if n.startswith("(raised in")]
        msg = " ".join([first[0][:300]] if first else []) + "".join(f" {n}" for n in notes)
        return ("raise", type(e).__name__, bases, msg, _where(e))
    finally:
        signal.alarm(0)


def _where(e):
    tb = traceback.extract_tb(e.__traceback__)
    return f"{os.path.relpath(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""


def _summary(r):
    try:
        leaves = r if isinstance(r, (tuple, list)) else [r]
        return ";".join(f"{getattr(x, 'dtype', type(x).__name__)}"
                        f"{list(getattr(x, 'shape', ()))}" for x in leaves[:4])
    except Exception:  # noqa: BLE001
        return type(r).__name__


class Lib:
    def __init__(self, name, module, random_key, jit, grad=None, vmap=None):
        self.name, self.module, self.random_key, self.jit = name, module, random_key, jit
        self.grad, self.vmap = grad, vmap


def _libs(ns):
    import importlib

    import jax
    import tjit
    jax.config.update("jax_platforms", "cpu")
    tjit.config.update("traceback_filtering", "off")  # INTERNAL lines name the raising line
    jmod = importlib.import_module(f"jax.{ns}")
    tmod = importlib.import_module(f"tjit.{ns}")
    ref = importlib.import_module(REFERENCE[ns]) if ns in REFERENCE else None
    j = Lib("jax", jmod, jax.random.key, jax.jit, jax.grad, jax.vmap)
    t = Lib("tjit", tmod, tjit.random.key, tjit.jit, tjit.grad, tjit.vmap)
    n = Lib("numpy", ref, None, None) if ref is not None else None
    return j, t, n


def jitted(lib, fn, args, kwargs):
    """fn under lib's jit: the array arguments traced, the rest closed over."""
    flat = list(args) + list(kwargs.values())
    traced = [i for i, v in enumerate(flat) if isinstance(v, np.ndarray) and
              v.dtype.kind in "biufc"]
    if not traced:
        return None

    def call(*arrays):
        vals = list(flat)
        for i, a in zip(traced, arrays):
            vals[i] = a
        return fn(*vals[:len(args)], **dict(zip(kwargs, vals[len(args):])))
    return lambda: lib.jit(call)(*[flat[i] for i in traced])


# -- the worker: one namespace ------------------------------------------------------------
def attr(module, dotted):
    """module.a.b for the name 'a.b' (submodule functions: 'linalg.inv', 'norm.logpdf'),
    None where a part is missing."""
    for part in dotted.split("."):
        module = getattr(module, part, None)
    return module


def public_functions(tmod, jmod, prefix=""):
    """The public functions of tmod, and one level down those of its submodules that JAX
    has too (jnp.linalg.*, jnp.fft.*, lax.linalg.*, scipy.stats.norm.*, ...)."""
    out = []
    for name in sorted(dir(tmod)):
        if name.startswith("_"):
            continue
        f = getattr(tmod, name)
        if inspect.ismodule(f):
            if not prefix and inspect.ismodule(getattr(jmod, name, None)):
                out += public_functions(f, getattr(jmod, name), f"{name}.")
            continue
        if not callable(f) or isinstance(f, type):
            continue
        out.append(prefix + name)
    return out


def cases_of(ns, j, t, names_only, timeout):
    """Every case of the namespace: (name, label, args, kwargs), baselines checked on JAX."""
    for name in public_functions(t.module, j.module):
        if names_only and name not in names_only:
            continue
        jf = attr(j.module, name)
        params = params_of(attr(t.module, name))
        if jf is None or params is None:
            continue
        for args, kwargs, profile in kit_calls(ns, name) + baselines(params):
            r = outcome(jf, materialize(args, j), materialize(kwargs, j), timeout)
            if r[0] == "ok":
                yield name, "baseline", args, kwargs
                for m in mutations(params, args, kwargs, profile):
                    yield (name, *m)
                break


def run_case(ns, libs, name, label, args, kwargs, timeout):
    j, t, n = libs
    shown = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    res = {"ns": ns, "name": name, "label": label, "call": f"{name}({', '.join(shown)})"}
    res["jax"] = outcome(attr(j.module, name), materialize(args, j),
                         materialize(kwargs, j), timeout)
    if label == "baseline":
        res["tjit"] = outcome(attr(t.module, name), materialize(args, t),
                              materialize(kwargs, t), timeout)
        return res
    nf = attr(n.module, name) if n is not None else None
    res["numpy"] = (outcome(nf, materialize(args, t), materialize(kwargs, t), timeout)
                    if nf is not None and not any(isinstance(v, (Key, NotAKey))
                                                  for v in list(args) + list(kwargs.values()))
                    else None)
    tf = attr(t.module, name)
    res["own_name"] = getattr(tf, "__name__", name)  # an alias's function (amax: max)
    res["tjit"] = outcome(tf, materialize(args, t), materialize(kwargs, t), timeout)
    if res["jax"][0] == "raise" or res["tjit"][0] == "raise":
        call = jitted(t, tf, materialize(args, t), materialize(kwargs, t))
        res["tjit_jit"] = outcome(call, (), {}, timeout) if call else None
        if transformable(args, label):
            for kind in ("vmap", "grad"):
                for lib, fn in ((j, attr(j.module, name)), (t, tf)):
                    call = transformed(kind, lib, fn, materialize(args, lib),
                                       materialize(kwargs, lib))
                    res[f"{lib.name}_{kind}"] = outcome(call, (), {}, timeout)
    return res


def transformable(args, label):
    """A subset under vmap and grad: a float array first, the mistake elsewhere."""
    return bool(args) and isinstance(args[0], np.ndarray) and args[0].dtype.kind == "f" \
        and not label.startswith(TRANSFORM_SKIP)


TRANSFORM_SKIP = ("a=", "x=", "x1=", "operand=", "arr=", "ary=", "m=", "input=")


def transformed(kind, lib, fn, args, kwargs):
    """fn under lib's vmap (a batch of 2 of the first argument) or grad (of the sum of
    the first result's real part, with respect to the first argument)."""
    import importlib
    lnp = importlib.import_module(f"{lib.name}.numpy")
    rest = args[1:]
    if kind == "vmap":
        batch = np.stack([args[0], args[0] * 0.5])
        return lambda: lib.vmap(lambda a: fn(a, *rest, **kwargs))(batch)

    def scalar(a):
        out = fn(a, *rest, **kwargs)
        out = out[0] if isinstance(out, (tuple, list)) else out
        return lnp.sum(lnp.real(out)).astype(lnp.float32)
    return lambda: lib.grad(scalar)(args[0])


class Bundle:
    """One library's modules as a special case calls them: L.jax.jit, L.jnp, L.lax..."""
    def __init__(self, name):
        import importlib
        self.name = name
        self.jax = importlib.import_module(name)
        for sub in ("numpy", "lax", "random", "nn", "tree_util"):
            importlib.import_module(f"{name}.{sub}")
        self.jnp, self.lax, self.random = self.jax.numpy, self.jax.lax, self.jax.random


def special_worker(start, names_only, timeout):
    import jax
    import tjit
    jax.config.update("jax_platforms", "cpu")
    tjit.config.update("traceback_filtering", "off")
    j, t = Bundle("jax"), Bundle("tjit")
    for i, (name, call) in enumerate(special_cases()):
        if i < start or (names_only and name not in names_only):
            continue
        print(json.dumps({"start": i, "name": name, "label": "special"}), flush=True)
        res = {"ns": "special", "name": name, "label": "special", "call": name, "i": i,
               "jax": outcome(lambda: call(j), (), {}, timeout),
               "tjit": outcome(lambda: call(t), (), {}, timeout)}
        print(json.dumps(res, default=str), flush=True)
    print(json.dumps({"done": True}), flush=True)


def worker(ns, start, names_only, timeout):
    if ns == "special":
        return special_worker(start, names_only, timeout)
    libs = _libs(ns)
    j, t, _ = libs
    for i, (name, label, args, kwargs) in enumerate(cases_of(ns, j, t, names_only, timeout)):
        if i < start:
            continue
        print(json.dumps({"start": i, "name": name, "label": label}), flush=True)
        try:
            res = run_case(ns, libs, name, label, args, kwargs, timeout)
        except Exception as e:  # noqa: BLE001 - the tool itself must go on
            res = {"ns": ns, "name": name, "label": label, "tool_error": repr(e)}
        res["i"] = i
        print(json.dumps(res, default=str), flush=True)
    print(json.dumps({"done": True}), flush=True)


# -- judging ------------------------------------------------------------------------------
def _names_op(name, msg):
    return name.lower().strip("_") in msg.lower()


def judge(res):
    """Flags of one bad call: [(kind, mode, detail)]."""
    if res.get("label") == "baseline" or "tool_error" in res:
        return []
    flags = []
    nr = res.get("numpy")
    for mode, jmode in (("tjit", "jax"), ("tjit_jit", "jax"), ("tjit_vmap", "jax_vmap"),
                        ("tjit_grad", "jax_grad")):
        tr, jr = res.get(mode), res.get(jmode)
        if tr is None or jr is None:
            continue
        if tr[0] == "hang":
            flags.append(("HANG", mode, ""))
            continue
        if jr[0] != "raise":
            continue
        if tr[0] == "ok":
            kind = "SILENT" if nr is None or nr[0] != "ok" else "LENIENT"
            flags.append((kind, mode, f"tjit -> {tr[1]}; jax {jr[1]}: {jr[3][:120]}"))
        elif tr[0] == "raise":
            jbase, tbases = jr[2][0], tr[2]
            if tr[1] in INTERNAL and jbase in ("TypeError", "ValueError"):
                flags.append(("INTERNAL", mode, f"{tr[1]} at {tr[4]}: {tr[3][:160]}"
                                                f" (jax {jbase})"))
            elif jbase in USER_CLASSES and jbase not in tbases:
                flags.append(("CLASS", mode, f"tjit {tr[1]}({'/'.join(tbases)}) vs jax "
                                             f"{jr[1]}({jbase}): {tr[3][:140]}"))
            if res["label"] != "special" and not any(
                    _names_op(n, tr[3]) for n in (res["name"], res.get("own_name", ""))
                    if n):
                flags.append(("NONAME", mode, f"{tr[1]}: {tr[3][:140]}"))
    return flags


# -- the driver ---------------------------------------------------------------------------
def rejudge(paths, modes):
    table = collections.Counter()
    for path in paths:
        with open(path) as fh:
            for res in json.load(fh):
                ns = res.get("ns", "?")
                if "crash" in res:
                    table[ns, "CRASH"] += 1
                    continue
                table[ns, "cases"] += res.get("label") != "baseline"
                for kind, mode, _ in judge(res):
                    table[ns, kind] += mode in modes
    namespaces = sorted({ns for ns, _ in table})
    kinds = ["cases", "SILENT", "LENIENT", "INTERNAL", "CLASS", "NONAME", "HANG", "CRASH"]
    print(f"{'namespace':15}" + "".join(f"{k:>10}" for k in kinds))
    for ns in namespaces + ["total"]:
        row = [sum(table[n, k] for n in namespaces) if ns == "total" else table[ns, k]
               for k in kinds]
        print(f"{ns:15}" + "".join(f"{v:>10}" for v in row))

def run_namespace(ns, names_only, timeout):
    start, results = 0, []
    while True:
        cmd = [sys.executable, __file__, "--worker", ns, "--start", str(start),
               "--timeout", str(timeout)]
        if names_only:
            cmd += ["--names", ",".join(names_only)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)
        last, done = None, False
        for line in proc.stdout:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "start" in rec:
                last = rec
            elif rec.get("done"):
                done = True
            else:
                results.append(rec)
        proc.wait()
        if done or last is None:
            return results
        results.append({"ns": ns, "name": last["name"], "label": last["label"],
                        "crash": proc.returncode})
        start = last["start"] + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=",".join(NAMESPACES))
    ap.add_argument("--names", default="")
    ap.add_argument("--timeout", type=int, default=30)
    ap.add_argument("--worker")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--noname", action="store_true", help="print NONAME lines too")
    ap.add_argument("--rejudge", nargs="+", metavar="JSON",
                    help="judge results saved with --json again (no calls); with "
                         "--modes, count only those tjit modes")
    ap.add_argument("--modes", default="tjit,tjit_jit,tjit_vmap,tjit_grad")
    ap.add_argument("--x64", action="store_true", help="jax_enable_x64 in both libraries")
    opts = ap.parse_args()
    if opts.x64:
        os.environ["JAX_ENABLE_X64"] = "1"  # before any import; the workers inherit it
    names_only = set(filter(None, opts.names.split(",")))
    if opts.worker:
        return worker(opts.worker, opts.start, names_only, opts.timeout)
    if opts.rejudge:
        return rejudge(opts.rejudge, opts.modes.split(","))
    table = collections.Counter()
    everything = []
    for ns in opts.only.split(","):
        results = run_namespace(ns, names_only, opts.timeout)
        everything += results
        for res in results:
            if "crash" in res:
                print(f"CRASH    {ns}.{res['name']} [{res['label']}] exit {res['crash']}")
                table[ns, "CRASH"] += 1
                continue
            table[ns, "cases"] += res.get("label") != "baseline"
            if res.get("label") == "baseline" and res.get("tjit", ("ok",))[0] != "ok":
                table[ns, "baseline refused"] += 1
            for kind, mode, detail in judge(res):
                table[ns, kind] += 1
                if kind != "NONAME" or opts.noname:
                    print(f"{kind:8} {ns}.{res['name']} [{res['label']}] {mode}: {detail}"
                          f"\n         {res['call']}")
        sys.stdout.flush()
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(everything, fh, default=str)
    kinds = ["cases", "SILENT", "LENIENT", "INTERNAL", "CLASS", "NONAME", "HANG", "CRASH",
             "baseline refused"]
    print("\n" + f"{'namespace':15}" + "".join(f"{k:>10}" for k in kinds[:-1]) + "  base-refused")
    for ns in opts.only.split(","):
        print(f"{ns:15}" + "".join(f"{table[ns, k]:>10}" for k in kinds))


if __name__ == "__main__":
    sys.exit(main())
