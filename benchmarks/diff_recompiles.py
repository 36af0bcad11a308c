"""Differential hunt: how often common user patterns trace and compile, tjit against JAX.

Each pattern is written once against a "kit" (tjit or jax) and run in this process with
both. Traces and compiles are counted through the public monitoring API, with JAX's event
names (tjit reports its jit traces and compiles under them, ``tjit/monitoring.py``):

- ``/jax/core/compile/jaxpr_trace_duration``: one trace of a function to a jaxpr;
- ``/jax/core/compile/backend_compile_duration``: one compile of a jaxpr to code.

Every pattern also returns its results, compared between the two libraries: a cache entry
shared by two different programs (a wrong key) shows as a mismatch, not only as a count.
A row is flagged ``MORE`` where tjit compiles more often than JAX and ``WRONG`` where the
values differ. Where both libraries could share one wrong entry, a pattern states what
each call alone gives (``EXPECT``), flagged ``tjit-WRONG`` / ``jax-WRONG``: JAX keys
static arguments and jitted callables by ``==``, so ``(2, 3)`` then ``(2.0, 3)``,
``Conf(2)`` then ``Conf(2.0)``, ``0.0`` then ``-0.0`` run the first call's program.
The disk-cache row runs two fresh processes per library.

Patterns share module-level functions (``_f``, ``_sq``), whose programs both libraries
keep across patterns: a later pattern's count is of what it adds.

Last run (2026-11-27, x32, CPU): 0 flagged of 34, 5 rows jax-WRONG (the static and
callable keys above); tjit compiles fewer than JAX for batch
sizes (2 vs 8; padded buckets 2 vs 4), scan lengths (2 vs 3), polymorphic batch (1 vs 3),
and as often elsewhere (new lambdas, closures, partials and bound methods trace and
compile once per new function object in both).

    /work/jaxvenv/bin/python benchmarks/diff_recompiles.py
    /work/jaxvenv/bin/python benchmarks/diff_recompiles.py --only static,lambda -v
"""

import argparse
import dataclasses
import enum
import functools
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

import jax  # noqa: E402
import jax.numpy as jjnp  # noqa: E402

import tjit  # noqa: E402
import tjit.numpy as tjnp  # noqa: E402

TRACE = "/jax/core/compile/jaxpr_trace_duration"
COMPILE = "/jax/core/compile/backend_compile_duration"


class Kit:
    def __init__(self, lib, jnp):
        self.name = lib.__name__
        self.lib, self.jnp, self.lax = lib, jnp, lib.lax
        self.jit, self.grad, self.vmap = lib.jit, lib.grad, lib.vmap


KITS = [Kit(tjit, tjnp), Kit(jax, jjnp)]


# The patterns' own functions: JAX also compiles each eager op once per signature
# (``jit(iota)``, ...), which the counts leave out.
USER_FUN = re.compile(
    r"(?<![A-Za-z0-9])(_f|_g|_sq|<lambda>|step|run|apply\w*|Scale)(?![A-Za-z0-9_])")


class Counter:
    def __init__(self):
        self.traces = self.compiles = 0
        self.names = []

    def __call__(self, event, duration, fun_name="", **kwargs):
        if not USER_FUN.search(fun_name or ""):
            return
        self.names.append(fun_name)
        if event == TRACE:
            self.traces += 1
        elif event == COMPILE:
            self.compiles += 1


# -- patterns: each takes a kit and returns a list of results (NumPy-convertible) ------
PATTERNS = {}
# pattern -> its results' trailing strings (dtypes) as each call alone gives them: where
# both libraries share one wrong cache entry, comparing them with each other shows nothing
EXPECT = {}


def pattern(name, expect=None):
    def register(f):
        PATTERNS[name] = f
        if expect is not None:
            EXPECT[name] = expect
        return f
    return register


def _f(x, s):
    return x * s + 1


@pattern("scalar_values")
def _(k):   # a Python float of a new value each call: weak-typed, one program
    f = k.jit(_f)
    x = k.jnp.arange(4.0)
    return [f(x, s) for s in (0.5, 1.5, 2.5, 3.5)]


@pattern("int_then_float_scalar")
def _(k):   # int and float Python scalars: two weak dtypes, two programs
    f = k.jit(_f)
    x = k.jnp.arange(4.0)
    return [f(x, 2), f(x, 2.0), f(x, 3), f(x, 3.0)]


@pattern("numpy_vs_python_scalar")
def _(k):   # np.float32(2) is strong, 2.0 weak
    f = k.jit(_f)
    x = k.jnp.arange(4.0)
    return [f(x, 2.0), f(x, np.float32(2)), f(x, np.float32(3)), f(x, 3.0)]


@pattern("numpy_float64_x32")
def _(k):   # float64 NumPy arrays canonicalize to float32 in x32 mode
    f = k.jit(lambda a: a * 2)
    outs = [f(np.arange(4.0)), f(np.arange(4.0, dtype=np.float32)), f(k.jnp.arange(4.0))]
    return outs + [o.dtype.name for o in outs]


@pattern("batch_sizes")
def _(k):   # batch sizes 2..9: tjit's automatic dynamic shapes vs per-shape compiles
    f = k.jit(lambda x: (x * 2).sum(axis=1))
    return [f(np.ones((b, 3), np.float32) * b) for b in range(2, 10)]


@pattern("batch_sizes_bucketed")
def _(k):   # the usual JAX workaround: pad to powers of two
    f = k.jit(lambda x: (x * 2).sum(axis=1))
    outs = []
    for b in range(2, 10):
        p = 1 << (b - 1).bit_length()
        x = np.zeros((p, 3), np.float32)
        x[:b] = b
        outs.append(f(x)[:b])
    return outs


class Mode(enum.Enum):
    SUM = "sum"
    MAX = "max"


@dataclasses.dataclass(frozen=True)
class Conf:
    scale: float
    mode: str


def _g(x, conf):
    r = x * conf.scale
    return r.sum() if conf.mode == "sum" else r.max()


@pattern("static_equal_new_objects")
def _(k):   # equal but new tuples, dataclasses, enums, strings: hits
    f = k.jit(lambda x, shape, conf, mode, name: (
        _g(x.reshape(shape), conf) + (1 if mode is Mode.SUM else 2) + len(name)),
        static_argnums=(1, 2, 3, 4))
    x = k.jnp.arange(6.0)
    return [f(x, tuple([2, 3]), Conf(2.0, "sum"), Mode("sum"), "ab" + str(i) * 0)
            for i in range(4)]


@pattern("static_new_values")
def _(k):   # new static values: one compile each
    f = k.jit(_g, static_argnums=1)
    x = k.jnp.arange(6.0)
    return [f(x, Conf(s, m)) for s in (1.0, 2.0) for m in ("sum", "max")]


@pattern("static_tuple_int_vs_float", expect=["int32", "float32"])
def _(k):   # (2, 3) == (2.0, 3) in Python: JAX keys statics by == and hash
    f = k.jit(lambda x, t: x + t[0], static_argnums=1)
    x = k.jnp.arange(3, dtype=k.jnp.int32)
    outs = [f(x, (2, 3)), f(x, (2.0, 3))]
    return [o.dtype.name for o in outs]


@pattern("static_numpy_scalar_types", expect=["int32", "float32"])
def _(k):
    f = k.jit(lambda x, t: x * t[0], static_argnums=1)
    x = k.jnp.arange(3, dtype=k.jnp.int32)
    outs = [f(x, (np.int32(2),)), f(x, (np.float32(2),))]
    return [o.dtype.name for o in outs]


@pattern("static_dataclass_field_types", expect=["int32", "float32"])
def _(k):
    f = k.jit(lambda x, c: x * c.scale, static_argnums=1)
    x = k.jnp.arange(3, dtype=k.jnp.int32)
    outs = [f(x, Conf(2, "sum")), f(x, Conf(2.0, "sum"))]
    return [o.dtype.name for o in outs]


@pattern("static_signed_zero", expect=["inf", "-inf"])
def _(k):
    f = k.jit(lambda x, s: x / s, static_argnums=1)
    x = k.jnp.ones(1)
    return [str(float(f(x, 0.0)[0])), str(float(f(x, -0.0)[0]))]


@dataclasses.dataclass(frozen=True)
class Scale:
    k: object

    def __call__(self, x):
        return x * self.k


@pattern("jit_of_equal_callables", expect=["int32", "float32"])
def _(k):   # Scale(2) == Scale(2.0): jit keyed by the callable's ==
    a, b = Scale(2), Scale(2.0)
    fa, fb = k.jit(a), k.jit(b)
    x = k.jnp.arange(3, dtype=k.jnp.int32)
    return [fa(x).dtype.name, fb(x).dtype.name]


@pattern("closure_new_array")
def _(k):   # a new closure over a new array each step (jit inside the loop)
    x = k.jnp.arange(4.0)
    outs = []
    for i in range(4):
        w = k.jnp.full((4,), float(i))

        def step(x):
            return x * w
        outs.append(k.jit(step)(x))
    return outs


@pattern("lambda_per_iteration")
def _(k):   # jit(lambda ...) created in the loop
    x = k.jnp.arange(4.0)
    return [k.jit(lambda a: a * 2 + 1)(x) for _ in range(4)]


@pattern("jit_same_function_per_iteration")
def _(k):   # jit(f) of one module-level function, re-wrapped each step
    x = k.jnp.arange(4.0)
    return [k.jit(_f)(x, 2.0) for _ in range(4)]


@pattern("partial_new_array")
def _(k):   # jit(partial(f, new_array)) each step
    x = k.jnp.arange(4.0)
    return [k.jit(functools.partial(_f, s=k.jnp.float32(i)))(x) for i in range(4)]


@pattern("jit_of_partial_array_arg")
def _(k):   # partial with the array as a traced argument (the recommended way)
    x = k.jnp.arange(4.0)
    f = k.jit(_f)
    return [functools.partial(f, s=k.jnp.float32(i))(x) for i in range(4)]


class Model:
    def __init__(self, kit, w):
        self.kit, self.w = kit, w

    def apply(self, x):
        return x * self.w


@pattern("bound_method_per_call")
def _(k):   # jit(obj.method) rebuilt each step, one object
    m = Model(k, 3.0)
    x = k.jnp.arange(4.0)
    return [k.jit(m.apply)(x) for _ in range(4)]


@pattern("bound_method_two_objects")
def _(k):   # two objects: their methods must not share a program
    x = k.jnp.arange(4.0)
    a, b = Model(k, 2.0), Model(k, 5.0)
    return [k.jit(a.apply)(x), k.jit(b.apply)(x), k.jit(a.apply)(x)]


class HashModel:
    """self as a static argument: hashed and compared by its configuration."""
    def __init__(self, w):
        self.w = w

    def __hash__(self):
        return hash(self.w)

    def __eq__(self, other):
        return isinstance(other, HashModel) and self.w == other.w

    @functools.partial(jax.jit, static_argnums=0)
    def apply_jax(self, x):
        return x * self.w

    @functools.partial(tjit.jit, static_argnums=0)
    def apply_tjit(self, x):
        return x * self.w


@pattern("method_self_static")
def _(k):
    x = k.jnp.arange(4.0)
    name = "apply_tjit" if k.lib is tjit else "apply_jax"
    return [getattr(HashModel(w), name)(x) for w in (2.0, 2.0, 3.0, 2.0)]


@pattern("list_vs_tuple_and_dict_order")
def _(k):   # list vs tuple: new structure; dict key order: same structure
    f = k.jit(lambda t: t[0] * 2 + t[1] if not isinstance(t, dict) else t["a"] - t["b"])
    a, b = k.jnp.arange(3.0), k.jnp.ones(3)
    return [f([a, b]), f((a, b)), f([a, b]), f({"a": a, "b": b}), f({"b": b, "a": a})]


@pattern("int32_vs_int64_input")
def _(k):   # int64 input canonicalizes to int32 in x32 mode
    f = k.jit(lambda x: x * 2)
    outs = [f(np.arange(3, dtype=np.int32)), f(np.arange(3, dtype=np.int64)),
            f(k.jnp.arange(3))]
    return outs + [o.dtype.name for o in outs]


@pattern("weak_vs_strong")
def _(k):   # weak scalar, strong 0-d array, weak 0-d array (jnp.asarray(2.0) is strong)
    f = k.jit(lambda x, s: x + s)
    x = k.jnp.arange(3, dtype=k.jnp.float16)
    outs = [f(x, 2.0), f(x, k.jnp.float32(2.0)), f(x, 3.0), f(x, k.jnp.asarray(2.0))]
    return outs + [o.dtype.name for o in outs]


@pattern("donated_args")
def _(k):   # donation: each call gets a fresh buffer, one program
    f = k.jit(lambda x: x + 1, donate_argnums=0)
    x = k.jnp.zeros(8)
    for _ in range(4):
        x = f(x)
    return [x]


@pattern("grad_of_jit_new_fn")
def _(k):   # grad(jit(f)) rebuilt each step with one f
    x = k.jnp.float32(1.5)
    return [k.grad(k.jit(lambda v: v * _f(v, 2.0)))(x) for _ in range(1)] + \
        [k.grad(k.jit(_sq))(x) for _ in range(3)]


def _sq(v):
    return v * v * 3


@pattern("jit_of_grad_new_fn")
def _(k):   # jit(grad(f)) rebuilt each step with one f
    x = k.jnp.float32(1.5)
    return [k.jit(k.grad(_sq))(x) for _ in range(3)]


@pattern("grad_of_jit_reused")
def _(k):
    g = k.grad(k.jit(_sq))
    return [g(k.jnp.float32(v)) for v in (1.0, 2.0, 3.0)]


@pattern("vmap_of_jit")
def _(k):
    f = k.jit(_sq)
    return [k.vmap(f)(k.jnp.arange(float(n))) for n in (3, 3, 5)]


def _sgd_update(params, grads, lr):
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


@pattern("optax_like_lr_schedule")
def _(k):   # the learning rate a Python float changing every step
    tree_map = k.lib.tree_util.tree_map

    @k.jit
    def step(params, x, lr):
        g = k.grad(lambda p: ((p["w"] * x + p["b"]) ** 2).sum())(params)
        return tree_map(lambda p, gi: p - lr * gi, params, g)
    params = {"w": k.jnp.ones(3), "b": k.jnp.zeros(3)}
    x = k.jnp.arange(3.0)
    for i in range(5):
        params = step(params, x, 0.1 / (i + 1))
    return [params["w"], params["b"]]


@pattern("optax_like_lr_array")
def _(k):   # the learning rate as a jnp scalar (strong float32)
    @k.jit
    def step(w, lr):
        return w - lr * w
    w = k.jnp.ones(3)
    for i in range(5):
        w = step(w, k.jnp.float32(0.1 / (i + 1)))
    return [w]


@pattern("scan_lengths")
def _(k):   # lax.scan over inputs of different lengths
    def run(xs):
        return k.lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)
    f = k.jit(run)
    return [f(k.jnp.arange(float(n))) for n in (3, 4, 5, 4)]


@pattern("scan_length_static")
def _(k):   # scan length as a static argument
    f = k.jit(lambda c, n: k.lax.scan(lambda c, _: (c * 2, c), c, None, length=n),
              static_argnums=1)
    return [f(k.jnp.float32(1.0), n) for n in (3, 4, 3)]


@pattern("polymorphic_batch")
def _(k):   # JAX: shape polymorphism is jax.export's; tjit.jit takes polymorphic_shapes
    if k.lib is tjit:
        f = k.jit(lambda x: (x * 2).sum(axis=1), polymorphic_shapes="(b, 3)")
    else:
        f = k.jit(lambda x: (x * 2).sum(axis=1))
    return [f(np.ones((b, 3), np.float32) * b) for b in (2, 5, 7, 2)]


# -- running -----------------------------------------------------------------------------
def run_pattern(name, kit):
    c = Counter()
    kit.lib.monitoring.register_event_duration_secs_listener(c)
    try:
        out = PATTERNS[name](kit)
        out = [np.asarray(o) if not isinstance(o, str) else o
               for o in jax.tree_util.tree_leaves([np.asarray(v) if hasattr(v, "dtype") else v
                                                   for v in tjit.tree_util.tree_leaves(out)])]
    finally:
        kit.lib.monitoring.unregister_event_duration_listener(c)
    return c, out


def same(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, str) or isinstance(y, str):
            if x != y:
                return False
        elif x.shape != y.shape or not np.allclose(x, y, rtol=1e-5, atol=1e-6):
            return False
    return True


_DISK_SCRIPT = """
import sys, numpy as np
lib = __import__(sys.argv[1])
if sys.argv[1] == "jax":
    lib.config.update("jax_compilation_cache_dir", sys.argv[2])
    lib.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    lib.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
hits = []
lib.monitoring.register_event_listener(lambda e, **k: hits.append(e))
if sys.argv[1] == "tjit":   # (its compile log notes a program or kernels from disk)
    import logging
    class H(logging.Handler):
        def emit(self, r):
            hits.extend(["cache_hit"] * ("from the disk cache" in r.getMessage()
                                         or "hit on disk" in r.getMessage()))
    logging.getLogger("tjit.compiles").addHandler(H())
    logging.getLogger("tjit.compiles").setLevel(logging.DEBUG)
n = [0]
lib.monitoring.register_event_duration_secs_listener(
    lambda e, d, **k: n.__setitem__(0, n[0] + (e == "%s")))
f = lib.jit(lambda x: (x * 3 + 1).sum())
print(float(f(np.arange(5.0, dtype=np.float32))), n[0],
      sum("cache_hits" in e or "cache_hit" in e for e in hits))
""" % COMPILE


def disk_cache():
    """Two fresh processes per library on one cache directory: compiles and the second
    process's cache hits (tjit: its kernel cache, TJIT_CACHE_DIR; JAX: its persistent
    compilation cache)."""
    rows = {}
    for lib in ("tjit", "jax"):
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, TJIT_CACHE_DIR=d)
            outs = []
            for _ in range(2):
                r = subprocess.run([sys.executable, "-c", _DISK_SCRIPT, lib, d], env=env,
                                   capture_output=True, text=True, timeout=300)
                outs.append(r.stdout.strip() or r.stderr.strip()[-300:])
            rows[lib] = outs
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--skip-disk", action="store_true")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    names = [n for n in PATTERNS if not a.only or any(s in n for s in a.only.split(","))]
    print(f"{'pattern':34s} {'tjit tr/co':>10s} {'jax tr/co':>10s}  flag")
    flagged = 0
    for name in names:
        res = {}
        for kit in KITS:
            try:
                res[kit.name] = run_pattern(name, kit)
            except Exception as e:   # noqa: BLE001 (reported as the row's result)
                res[kit.name] = (None, f"{type(e).__name__}: {str(e)[:200]}")
        (ct, ot), (cj, oj) = res["tjit"], res["jax"]
        flags = []
        if ct is None or cj is None:
            flags.append(f"ERROR tjit={ot if ct is None else 'ok'} "
                         f"jax={oj if cj is None else 'ok'}")
        else:
            want = EXPECT.get(name)
            if want is None and not same(ot, oj):
                flags.append("WRONG")
            for lib, out in (("tjit", ot), ("jax", oj)):
                if want is not None and [str(o) for o in out[-len(want):]] != want:
                    flags.append(f"{lib}-WRONG")
            if "jax-WRONG" in flags:
                pass     # (JAX's count is of a shared wrong entry)
            elif ct.compiles > cj.compiles:
                flags.append("MORE")
            elif ct.compiles < cj.compiles:
                flags.append("fewer")
        if any(f in ("WRONG", "MORE", "tjit-WRONG") or f.startswith("ERROR")
               for f in flags):
            flagged += 1
        tc = "-" if ct is None else f"{ct.traces}/{ct.compiles}"
        jc = "-" if cj is None else f"{cj.traces}/{cj.compiles}"
        print(f"{name:34s} {tc:>10s} {jc:>10s}  {' '.join(flags)}")
        if a.v and "WRONG" in flags:
            print("   tjit:", ot, "\n   jax: ", oj)
        if a.v and ct is not None and cj is not None:
            print("   tjit:", ct.names, "\n   jax: ", cj.names)
    if not a.skip_disk and (not a.only or "disk" in a.only):
        for lib, outs in disk_cache().items():
            print(f"disk cache {lib:5s}: process 1 (value compiles hits) = {outs[0]!r}; "
                  f"process 2 = {outs[1]!r}")
    print(f"{flagged} flagged of {len(names)}")


if __name__ == "__main__":
    main()
