"""Differential hunt: bad input through the public API. Every public function of
tjit.numpy, tjit.lax, tjit.nn, tjit.random and tjit.scipy.{special,linalg,signal,stats}
(found by introspection) is first called with a plain valid call (arguments chosen by
parameter name, kept only where JAX accepts them), then with one argument made bad at a
time: axis out of range or not an integer, negative and non-integer sizes, unknown string
options (mode='bogus', order='Q', ...), None, strings, ragged lists, complex or bool
arrays, a second array of a mismatched shape, keys that are not keys. Each bad call runs
on JAX, on NumPy/SciPy where the name exists, and on tjit eagerly and under jit (where
JAX raises); a few run under grad and vmap. A comparison tool, not a test (CI has no JAX):
run it with the JAX venv, which also has tjit installed.

    /work/jaxvenv/bin/python benchmarks/diff_errors.py [--only NS,...] [--names a,b]
        [--timeout S] [--list-all]

Flags, one line each, then counts per namespace:
  SILENT    tjit returns a value where JAX raises and NumPy raises or has no such name
  LENIENT   tjit returns a value where JAX raises but NumPy accepts (NumPy's semantics)
  INTERNAL  tjit raises an internal class (IndexError, KeyError, AttributeError,
            AssertionError, ZeroDivisionError, ...) where JAX raises TypeError/ValueError
  CLASS     tjit's class is not JAX's builtin class (TypeError vs ValueError vs IndexError)
  HANG      a call ran past --timeout seconds;  CRASH  the worker process died

Known differences kept on purpose (tjit follows the documented semantics):
  - lax functions take negative axes (counted from the end, as NumPy does) where JAX
    rejects them (see diff_lax.py's list); those LENIENT lines are expected.

Each namespace runs in a worker process; a worker that dies is restarted after the case
it died in, which is reported as CRASH.
"""

import argparse
import collections
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
              "scipy.signal", "scipy.stats"]
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
               "elements", "dividend", "divisor", "angle", "position", "f", "signal"}
SEQ_NAMES = {"arrays", "tup", "operands", "args", "xi", "arys"}


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
        "seed": 0, "num_samples": 2, "dim": 0,
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


# -- bad arguments ------------------------------------------------------------------------
STRING_OPTIONS = {"mode", "method", "order", "kind", "side", "norm", "padding", "casting",
                  "interpolation", "how", "sort_kind", "boundary", "approx", "output",
                  "window", "nan_policy", "alternative", "lapack_driver", "which", "side",
                  "ddof_mode", "sign", "indexing", "implementation", "precision"}
AXIS_NAMES = {"axis", "axis1", "axis2", "source", "destination", "dimension", "start",
              "dim"}
SIZE_NAMES = {"shape", "n", "N", "num", "k", "M", "size", "num_classes", "repeats", "reps",
              "newshape", "new_sizes", "sizes", "bins", "deg", "decimals", "shift",
              "num_samples", "out_shape", "indices_or_sections", "nbits"}


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
        # the first line and the notes: tjit's entry points note "(raised in jnp.std)"
        # on a message that names an inner function
        msg = str(e).strip().splitlines()[:1] + list(getattr(e, "__notes__", ()))
        return ("raise", type(e).__name__, bases, " ".join(msg)[:300], _where(e))
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
def public_functions(tmod, jmod):
    out = []
    for name in sorted(dir(tmod)):
        if name.startswith("_"):
            continue
        f = getattr(tmod, name)
        if not callable(f) or isinstance(f, type) or inspect.ismodule(f):
            continue
        out.append(name)
    return out


def cases_of(ns, j, t, names_only, timeout):
    """Every case of the namespace: (name, label, args, kwargs), baselines checked on JAX."""
    for name in public_functions(t.module, j.module):
        if names_only and name not in names_only:
            continue
        jf = getattr(j.module, name, None)
        params = params_of(getattr(t.module, name))
        if jf is None or params is None:
            continue
        for args, kwargs, profile in baselines(params):
            r = outcome(jf, materialize(args, j), materialize(kwargs, j), timeout)
            if r[0] == "ok":
                yield name, "baseline", args, kwargs
                for m in mutations(params, args, kwargs, profile):
                    yield (name, *m)
                break


def run_case(ns, libs, name, label, args, kwargs, timeout):
    j, t, n = libs
    res = {"ns": ns, "name": name, "label": label,
           "call": f"{name}({', '.join([show(a) for a in args] + [f'{k}={show(v)}' for k, v in kwargs.items()])})"}
    res["jax"] = outcome(getattr(j.module, name), materialize(args, j),
                         materialize(kwargs, j), timeout)
    if label == "baseline":
        res["tjit"] = outcome(getattr(t.module, name), materialize(args, t),
                              materialize(kwargs, t), timeout)
        return res
    nf = getattr(n.module, name, None) if n is not None else None
    res["numpy"] = (outcome(nf, materialize(args, t), materialize(kwargs, t), timeout)
                    if nf is not None and not any(isinstance(v, (Key, NotAKey))
                                                  for v in list(args) + list(kwargs.values()))
                    else None)
    tf = getattr(t.module, name)
    res["tjit"] = outcome(tf, materialize(args, t), materialize(kwargs, t), timeout)
    if res["jax"][0] == "raise" or res["tjit"][0] == "raise":
        call = jitted(t, tf, materialize(args, t), materialize(kwargs, t))
        res["tjit_jit"] = outcome(call, (), {}, timeout) if call else None
        if transformable(args, label):
            for kind in ("vmap", "grad"):
                for lib, fn in ((j, getattr(j.module, name)), (t, tf)):
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


def worker(ns, start, names_only, timeout):
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
            if not _names_op(res["name"], tr[3]):
                flags.append(("NONAME", mode, f"{tr[1]}: {tr[3][:140]}"))
    return flags


# -- the driver ---------------------------------------------------------------------------
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
    opts = ap.parse_args()
    names_only = set(filter(None, opts.names.split(",")))
    if opts.worker:
        return worker(opts.worker, opts.start, names_only, opts.timeout)
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
