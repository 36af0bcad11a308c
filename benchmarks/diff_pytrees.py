"""Differential hunt: pytrees through tjit.tree_util / tjit.tree and the transformations,
against JAX's own tree_util (an independent reference: both import in one process).

Random pytrees (nested dicts with str / int / tuple keys, lists, tuples, namedtuples,
OrderedDict, defaultdict, None, empty containers, dataclasses registered with
register_dataclass, classes registered with register_pytree_node_class (with aux data),
register_pytree_with_keys and plain register_pytree_node, Partial, register_static) are
built twice from one seed, once for each library, and compared on: leaves, treedef repr,
num_leaves / num_nodes / children() / node_data(), unflatten round trips, equality and hash
of structures, key paths (keystr, simple keystr, key reprs), tree_map_with_path, tree_map
with is_leaf and with a second tree (mutated: both must fail, or both succeed alike),
flatten_one_level(_with_keys) of every node, all_leaves, tree_reduce, tree_transpose,
tree_broadcast and the jax.tree module. A second section sends random trees through vmap
(in_axes / out_axes prefixes), grad (has_aux, argnums tuples), jvp / vjp (float0 tangents
of integer leaves), jit (static_argnames, donate_argnums), custom_jvp / custom_vjp with
pytree residuals, and flatten_util.ravel_pytree (mixed dtypes). A third section runs fixed
cases: registration errors, Partial of a Partial, typed key arrays as leaves, keys that are
equal by value (1, 1.0, True), jacrev/hessian/linear_transpose/scan over pytrees.

    /work/jaxvenv/bin/python benchmarks/diff_pytrees.py --seed 0 --trees 300
    /work/jaxvenv/bin/python benchmarks/diff_pytrees.py --only transforms,cases -v

Each difference prints as FLAG <check>: with both results; a crash in tjit where JAX works
is a difference too. Error messages are not compared (only that both raise).
"""

import argparse
import collections
import dataclasses
import random
import re
import sys
import traceback

import numpy as np

import jax
import jax.flatten_util
import jax.numpy as jjnp
import tjit
import tjit.flatten_util
import tjit.numpy as tjnp

LIBS = {"jax": jax, "tjit": tjit}


# -- node classes, registered with both libraries -------------------------------------------------
NT = collections.namedtuple("NT", "x y")
NT1 = collections.namedtuple("NT1", "only")


@dataclasses.dataclass
class DC:
    a: object
    b: object
    tag: int = dataclasses.field(default=0, metadata=dict(static=True))


class DCExplicit:
    """Registered with explicit data_fields / meta_fields (not a dataclass)."""

    def __init__(self, p, q, name):
        self.p, self.q, self.name = p, q, name

    def __repr__(self):
        return f"DCExplicit({self.p!r}, {self.q!r}, {self.name!r})"


class WithAux:
    """register_pytree_node_class, children in a different order from the fields."""

    def __init__(self, x, y, aux):
        self.x, self.y, self.aux = x, y, aux

    def tree_flatten(self):
        return (self.y, self.x), self.aux

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[1], children[0], aux)

    def __repr__(self):
        return f"WithAux({self.x!r}, {self.y!r}, {self.aux!r})"


class Keyed:
    """register_pytree_with_keys: named children of mixed key kinds."""

    def __init__(self, p, q):
        self.p, self.q = p, q

    def __repr__(self):
        return f"Keyed({self.p!r}, {self.q!r})"


class Plain:
    """register_pytree_node without keys: FlattenedIndexKey paths."""

    def __init__(self, *vals):
        self.vals = vals

    def __repr__(self):
        return f"Plain{self.vals!r}"


class Mode(str):
    """register_static: no leaves, part of the structure."""


def _register(L):
    tu = L.tree_util
    tu.register_dataclass(DC)
    tu.register_dataclass(DCExplicit, data_fields=["p", "q"], meta_fields=["name"])
    tu.register_pytree_node_class(WithAux)
    tu.register_pytree_with_keys(
        Keyed, lambda k: (((tu.GetAttrKey("p"), k.p), (tu.DictKey("q"), k.q)), "kaux"),
        lambda aux, ch: Keyed(*ch))
    tu.register_pytree_node(Plain, lambda p: (p.vals, len(p.vals)), lambda n, ch: Plain(*ch))
    tu.register_static(Mode)


for _L in LIBS.values():
    _register(_L)


# -- random trees ----------------------------------------------------------------------------------
def _leaf(rng):
    k = rng.randrange(6)
    if k == 0:
        return rng.randrange(-5, 5)
    if k == 1:
        return round(rng.uniform(-2, 2), 3)
    if k == 2:
        return np.arange(rng.randrange(1, 4), dtype=np.float32) + rng.randrange(3)
    if k == 3:
        return np.float32(rng.uniform(-1, 1))
    if k == 4:
        return True
    return "s%d" % rng.randrange(9)


def _dict_keys(rng, n):
    kind = rng.randrange(4)
    if kind == 0:
        pool = ["a", "b", "c", "w", "z", "k1", "k10"]
    elif kind == 1:
        pool = [0, 1, 2, 5, 10, -3]
    elif kind == 2:
        pool = [(0, 1), (0, 0), (1,), (2, 0)]
    else:
        pool = [1, 2.5, 0.5, 3, True]   # int / float / bool mix: comparable
    return rng.sample(pool, min(n, len(pool)))


def make_tree(rng, L, depth=0):
    """A random pytree; ``L`` is the library whose Partial is used (same rng stream ->
    the same tree for both libraries)."""
    if depth >= 4 or rng.random() < 0.25 + 0.12 * depth:
        return _leaf(rng)
    kind = rng.randrange(15)
    n = rng.randrange(0, 4)

    def kids(m):
        return [make_tree(rng, L, depth + 1) for _ in range(m)]

    if kind == 0:
        keys = _dict_keys(rng, n)
        return dict(zip(keys, kids(len(keys))))
    if kind == 1:
        return kids(n)
    if kind == 2:
        return tuple(kids(n))
    if kind == 3:
        return NT(*kids(2))
    if kind == 4:
        keys = _dict_keys(rng, n)
        return collections.OrderedDict(zip(reversed(keys), kids(len(keys))))
    if kind == 5:
        keys = _dict_keys(rng, n)
        return collections.defaultdict(list, zip(keys, kids(len(keys))))
    if kind == 6:
        return None
    if kind == 7:
        return DC(*kids(2), tag=rng.randrange(3))
    if kind == 8:
        return DCExplicit(*kids(2), name="n%d" % rng.randrange(3))
    if kind == 9:
        return WithAux(*kids(2), aux=("aux", rng.randrange(3)))
    if kind == 10:
        return Keyed(*kids(2))
    if kind == 11:
        return Plain(*kids(n))
    if kind == 12:
        return L.tree_util.Partial(max, *kids(n))
    if kind == 13:
        return Mode("m%d" % rng.randrange(2))
    return NT1(*kids(1))


def mutate(rng, tree):
    """A tree of (usually) another structure: one node changed somewhere."""
    t = type(tree)
    if t in (list, tuple) and tree and rng.random() < 0.6:
        i = rng.randrange(len(tree))
        items = list(tree)
        items[i] = mutate(rng, items[i])
        return t(items)
    if t is dict and tree and rng.random() < 0.6:
        out = dict(tree)
        k = rng.choice(list(out))
        out[k] = mutate(rng, out[k])
        return out
    choice = rng.randrange(5)
    if choice == 0:
        return [tree]
    if choice == 1:
        return (tree, 1)
    if choice == 2:
        return None if tree is not None else 0
    if choice == 3 and t in (list, tuple):
        return list(tree) if t is tuple else tuple(tree)
    return {"zz": tree}


# -- normalising results for comparison --------------------------------------------------------------
def norm(x):
    """A library-independent text of a result (arrays as lists, Partial by its args)."""
    if isinstance(x, (jax.Array, tjit.Array, np.ndarray, np.generic)):
        a = np.asarray(x)
        if a.dtype.kind == "V":
            return f"float0{a.shape}"
        return f"arr{a.dtype.name}{np.round(a.astype(np.float64), 5).tolist()}"
    if isinstance(x, (jax.tree_util.Partial, tjit.tree_util.Partial)):
        return f"Partial({norm(x.func)}, {norm(list(x.args))}, {norm(x.keywords)})"
    if type(x) in (list, tuple) or isinstance(x, tuple) and hasattr(x, "_fields"):
        inner = ", ".join(norm(c) for c in x)
        return f"{type(x).__name__}[{inner}]"
    if isinstance(x, dict):
        inner = ", ".join(f"{k!r}: {norm(v)}" for k, v in x.items())
        extra = f"<{x.default_factory.__name__}>" if isinstance(x, collections.defaultdict) \
            else ""
        return f"{type(x).__name__}{extra}{{{inner}}}"
    if isinstance(x, (DC, DCExplicit, WithAux, Keyed, Plain)):
        fields = vars(x)
        return f"{type(x).__name__}({', '.join(f'{k}={norm(v)}' for k, v in fields.items())})"
    if isinstance(x, (jax.tree_util.PyTreeDef, tjit.tree_util.PyTreeDef)):
        return "PyTreeDef" + _treedef_text(x)
    return repr(x).replace("jax.tree_util.Partial", "Partial").replace(
        "tjit.tracing.tree_util.Partial", "Partial")


def _treedef_text(td):
    return str(td)[len("PyTreeDef"):].replace("Partial[", "Partial[")


class Report:
    def __init__(self, verbose):
        self.flags, self.counts, self.verbose = [], collections.Counter(), verbose

    def flag(self, name, msg):
        self.flags.append((name, msg))
        print("FLAG %s: %s" % (name, msg), flush=True)


_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _close_texts(a, b, rtol=1e-4):
    """Texts equal but for float values within ``rtol`` (float32 rounding differences)."""
    if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
        return False
    xs, ys = [float(v) for v in _NUMBER.findall(a)], [float(v) for v in _NUMBER.findall(b)]
    return np.allclose(xs, ys, rtol=rtol, atol=rtol)


def run_both(fn):
    out = {}
    for name, L in LIBS.items():
        try:
            out[name] = ("ok", fn(L))
        except Exception as e:  # noqa: BLE001 (an error is a result to compare)
            out[name] = ("err", f"{type(e).__name__}: {str(e)[:300]}")
    return out["jax"], out["tjit"]


def check(rep, name, fn, tree_text="", compare=norm):
    """Run ``fn(L)`` for both libraries; flag a differing result, or an error on one side."""
    (js, jv), (ts, tv) = run_both(fn)
    rep.counts[name] += 1
    if js == "err" and ts == "err":
        return
    if js != ts:
        rep.flag(name, f"{tree_text}\n    jax:  {jv if js == 'err' else compare(jv)}"
                       f"\n    tjit: {tv if ts == 'err' else compare(tv)}")
        if rep.verbose and ts == "err":
            traceback.print_exc()
        return
    a, b = compare(jv), compare(tv)
    if a != b and not _close_texts(a, b):
        rep.flag(name, f"{tree_text}\n    jax:  {a}\n    tjit: {b}")


# -- section 1: tree_util on random trees -------------------------------------------------------------
IS_LEAF = {
    "list": lambda x: isinstance(x, list),
    "none": lambda x: x is None,
    "tuple2": lambda x: isinstance(x, tuple) and len(x) == 2,
    "dict1": lambda x: isinstance(x, dict) and len(x) == 1,
}


def _nodes(L, tree):
    """Every subtree of ``tree`` that is a node (pre-order), by the library's own rules."""
    out = []

    def walk(x):
        one = L.tree_util.default_registry.flatten_one_level(x)
        if one is None:
            return
        out.append(x)
        for c in one[0]:
            walk(c)
    walk(tree)
    return out


def tree_checks(rep, seed):
    def build(L, s=seed):
        return make_tree(random.Random(s), L)

    text = "seed %d tree %s" % (seed, norm(build(jax)))
    tu_checks = {
        "leaves": lambda L: L.tree_util.tree_leaves(build(L)),
        "structure": lambda L: L.tree_util.tree_structure(build(L)),
        "num_leaves/nodes": lambda L: (L.tree_util.tree_structure(build(L)).num_leaves,
                                       L.tree_util.tree_structure(build(L)).num_nodes),
        "children": lambda L: L.tree_util.tree_structure(build(L)).children(),
        "treedef_children": lambda L: L.tree_util.treedef_children(
            L.tree_util.tree_structure(build(L))),
        "node_data": lambda L: L.tree_util.tree_structure(build(L)).node_data(),
        "is_leaf(treedef)": lambda L: L.tree_util.treedef_is_leaf(
            L.tree_util.tree_structure(build(L))),
        "roundtrip": lambda L: L.tree_util.tree_unflatten(
            *reversed(L.tree_util.tree_flatten(build(L)))),
        "tree.unflatten": lambda L: L.tree.unflatten(L.tree.structure(build(L)),
                                                     L.tree.leaves(build(L))),
        "treedef==": lambda L: (L.tree_util.tree_structure(build(L))
                                == L.tree_util.tree_structure(build(L))),
        "hash": lambda L: (hash(L.tree_util.tree_structure(build(L)))
                           == hash(L.tree_util.tree_structure(build(L)))),
        "paths": lambda L: [(L.tree_util.keystr(p), v)
                            for p, v in L.tree_util.tree_flatten_with_path(build(L))[0]],
        "path reprs": lambda L: [repr(p) for p, _ in L.tree_util.tree_leaves_with_path(
            build(L))],
        "keystr simple": lambda L: [L.tree_util.keystr(p, simple=True, separator="/")
                                    for p, _ in L.tree.leaves_with_path(build(L))],
        "map_with_path": lambda L: L.tree_util.tree_map_with_path(
            lambda p, x: L.tree_util.keystr(p), build(L)),
        "tree.map_with_path": lambda L: L.tree.map_with_path(
            lambda p, x, y: (len(p), norm(y)), build(L), build(L)),
        "flatten_with_path treedef": lambda L: L.tree.flatten_with_path(build(L))[1],
        "map 2 trees": lambda L: L.tree.map(lambda a, b: (norm(a), norm(b)), build(L),
                                            build(L)),
        "all_leaves": lambda L: L.tree_util.all_leaves(L.tree_util.tree_leaves(build(L))),
        "all_leaves(tree)": lambda L: L.tree_util.all_leaves([build(L)]),
        "all": lambda L: L.tree.all(build(L)),
        "reduce": lambda L: L.tree.reduce(lambda a, b: a + [norm(b)], build(L), []),
        "reduce(None)": lambda L: L.tree_util.tree_reduce(lambda a, b: (a, norm(b)), build(L),
                                                          None),
        "reduce_associative": lambda L: L.tree.reduce_associative(
            lambda a, b: "(%s+%s)" % (a, b), L.tree.map(norm, build(L)), identity="0"),
        "one_level": lambda L: [(len(list(L.tree_util.flatten_one_level(n)[0])),
                                 type(L.tree_util.flatten_one_level(n)[0]).__name__)
                                for n in _nodes(L, build(L))],
        # (namedtuples left out: JAX 0.10.2's flatten_one_level_with_keys names every field
        # of a namedtuple by its first field, .x .x; its key paths are right)
        "one_level_keys": lambda L: [
            [str(k) for k, _ in L.tree_util.flatten_one_level_with_keys(n)[0]]
            for n in _nodes(L, build(L)) if not hasattr(type(n), "_fields")],
        "is_tree_node": lambda L: [L.tree_util.is_tree_node(type(n))
                                   for n in _nodes(L, build(L))],
    }
    for name, fn in tu_checks.items():
        check(rep, name, fn, text)
    for lname, pred in IS_LEAF.items():
        check(rep, f"leaves is_leaf={lname}",
              lambda L: L.tree_util.tree_leaves(build(L), is_leaf=pred), text)
        check(rep, f"structure is_leaf={lname}",
              lambda L: L.tree_util.tree_structure(build(L), is_leaf=pred), text)
        check(rep, f"map is_leaf={lname}",
              lambda L: L.tree.map(lambda x: norm(x)[:20], build(L), is_leaf=pred), text)
        check(rep, f"paths is_leaf={lname}",
              lambda L: [L.tree_util.keystr(p) for p, _ in L.tree_util.tree_flatten_with_path(
                  build(L), is_leaf=pred)[0]], text)
        check(rep, f"all_leaves is_leaf={lname}",
              lambda L: L.tree_util.all_leaves(L.tree_util.tree_leaves(build(L), pred), pred),
              text)
    check(rep, "paths is_leaf(path)",
          lambda L: [L.tree_util.keystr(p) for p, _ in L.tree_util.tree_flatten_with_path(
              build(L), is_leaf=lambda p, x: len(p) >= 2, is_leaf_takes_path=True)[0]], text)

    # a second tree of (usually) another structure: both fail or both agree
    def other(L):
        return mutate(random.Random(seed + 7), build(L))
    check(rep, "map mismatch", lambda L: L.tree_util.tree_map(lambda a, b: norm(b), build(L),
                                                              other(L)), text)
    check(rep, "treedef== mutated", lambda L: L.tree_util.tree_structure(build(L))
          == L.tree_util.tree_structure(other(L)), text)
    check(rep, "flatten_up_to mutated", lambda L: L.tree_util.tree_structure(
        build(L)).flatten_up_to(other(L)), text)
    check(rep, "broadcast", lambda L: L.tree.broadcast(
        L.tree.map(lambda _: 1, build(L), is_leaf=IS_LEAF["list"]), build(L)), text)
    check(rep, "broadcast mutated", lambda L: L.tree.broadcast(build(L), other(L)), text)

    # transpose: an outer list of three copies of the tree
    def transposed(L, inner_none=False):
        t = build(L)
        outer = L.tree.structure([0, 0, 0])
        inner = None if inner_none else L.tree.structure(t)
        return L.tree.transpose(outer, inner, [t, build(L), build(L)])
    check(rep, "transpose", transposed, text)
    check(rep, "transpose(None)", lambda L: transposed(L, True), text)
    check(rep, "compose", lambda L: L.tree.structure([0, (0,)]).compose(
        L.tree.structure(build(L))), text)
    check(rep, "unflatten few", lambda L: L.tree_util.tree_unflatten(
        L.tree_util.tree_structure(build(L)), L.tree_util.tree_leaves(build(L))[1:]), text)


# -- section 2: pytrees through the transformations ---------------------------------------------------
X = np.arange(6.0, dtype=np.float32).reshape(2, 3)


def array_tree(rng, depth=0):
    """A random pytree of float32 arrays of shape (2, 3) (and int32 scalars, None)."""
    if depth >= 3 or rng.random() < 0.3:
        k = rng.randrange(6)
        if k == 0:
            return np.int32(rng.randrange(1, 4))
        if k == 1:
            return None
        return (X + rng.randrange(5)) / (1 + rng.randrange(3))
    kind = rng.randrange(9)
    kids = [array_tree(rng, depth + 1) for _ in range(rng.randrange(1, 3))]
    if kind == 6:
        return WithAux(kids[0], kids[-1], aux=("aux", 1))
    if kind == 7:
        return Keyed(kids[0], kids[-1])
    if kind == 8:
        return Plain(*kids)
    if kind == 0:
        return {"k%d" % i: c for i, c in enumerate(kids)}
    if kind == 1:
        return list(kids)
    if kind == 2:
        return NT(kids[0], kids[-1])
    if kind == 3:
        return DC(kids[0], kids[-1], tag=1)
    if kind == 4:
        return collections.OrderedDict(zip(["z", "a"], kids))
    return tuple(kids)


def _np(L):
    return jjnp if L is jax else tjnp


def _floats(L, t):
    """The float leaves of ``t`` (a loss is their squares' sum)."""
    return [x for x in L.tree_util.tree_leaves(t) if _dtype(x).kind == "f"]


def _dtype(x):
    """``x``'s dtype without reading its value (a traced int leaf is a tracer in tjit;
    JAX leaves a leaf with a float0 tangent untraced)."""
    return np.dtype(getattr(x, "dtype", None) or np.asarray(x).dtype)


def _loss(L, t):
    return sum((_np(L).sin(x) * x).sum() for x in _floats(L, t)) + 0.0


def _int_float0(L, t):
    """Tangents of ``t``: ones for floats, float0 zeros for ints (JAX's rule)."""
    return L.tree_util.tree_map(
        lambda x: np.zeros(np.shape(x), jax.dtypes.float0) if np.asarray(x).dtype.kind in "iub"
        else np.ones_like(x), t)


def transform_checks(rep, seed):
    def tree(L):
        return array_tree(random.Random(seed))

    text = "seed %d tree %s" % (seed, norm(tree(jax)))
    check(rep, "grad", lambda L: L.grad(lambda t: _loss(L, t), allow_int=True)(tree(L)), text)
    check(rep, "grad has_aux argnums", lambda L: L.grad(
        lambda a, t, c: (_loss(L, t) * c + (a ** 2).sum(), {"aux": t}),
        argnums=(0, 2), has_aux=True)(X, tree(L), np.float32(2)), text)
    check(rep, "value_and_grad argnums tuple", lambda L: L.value_and_grad(
        lambda a, t: _loss(L, t) + a.sum(), argnums=(1,), allow_int=True)(X, tree(L)), text)
    check(rep, "jvp float0", lambda L: L.jvp(lambda t: _loss(L, t), (tree(L),),
                                             (_int_float0(L, tree(L)),)), text)
    check(rep, "jvp tree out", lambda L: L.jvp(
        lambda t: L.tree_util.tree_map(lambda x: x * 2, t), (tree(L),),
        (_int_float0(L, tree(L)),)), text)
    check(rep, "vjp", lambda L: L.vjp(lambda t: L.tree_util.tree_map(lambda x: x * 3, t),
                                      tree(L))[1](tree(L)), text)
    check(rep, "vjp has_aux", lambda L: L.vjp(lambda t: (_loss(L, t), t), tree(L),
                                              has_aux=True)[1](np.float32(1)), text)
    check(rep, "jit", lambda L: L.jit(lambda t: L.tree_util.tree_map(lambda x: x + 1, t))(
        tree(L)), text)
    check(rep, "jit static_argnames", lambda L: L.jit(
        lambda t, cfg: L.tree_util.tree_map(lambda x: x * cfg[1][0], t),
        static_argnames="cfg")(tree(L), cfg=("s", (3,), NT(1, 2))), text)
    check(rep, "jit donate", lambda L: L.jit(
        lambda a, t: (a + 1, L.tree_util.tree_map(lambda x: x * 2, t)), donate_argnums=(1,))(
        X, L.tree_util.tree_map(_np(L).asarray, tree(L))), text)
    check(rep, "ravel_pytree", lambda L: L.flatten_util.ravel_pytree(tree(L))[0], text)
    check(rep, "unravel", lambda L: (lambda fu: fu[1](fu[0]))(
        L.flatten_util.ravel_pytree(tree(L))), text)

    # vmap: in_axes as a prefix of the tree (a leaf or None at random subtrees)
    def vmapped(L, out_prefix):
        t = tree(L)
        rng = random.Random(seed + 1)
        axes = L.tree_util.tree_map(lambda x: None if np.ndim(x) == 0 else rng.choice([0, 1]),
                                    t)
        if rng.random() < 0.5:   # cut: a whole subtree gets one axis spec
            axes = L.tree_util.tree_map(
                lambda s: 0 if L.tree_util.tree_leaves(s) and all(
                    a == 0 for a in L.tree_util.tree_leaves(s)) else s,
                axes, is_leaf=lambda s: isinstance(s, (list, dict)))
        out_axes = (1, 0) if out_prefix else 0
        return L.vmap(lambda a, tt: (a * 2, L.tree_util.tree_map(lambda x: x * a.sum(), tt)),
                      in_axes=(0, axes), out_axes=out_axes)(_batch_for(t, axes, L), t)
    check(rep, "vmap in_axes prefix", lambda L: vmapped(L, False), text)
    check(rep, "vmap out_axes prefix", lambda L: vmapped(L, True), text)

    # custom_vjp / custom_jvp whose residuals and tangents are pytrees
    def cvjp(L):
        @L.custom_vjp
        def f(a, t):
            return a * _loss(L, t)

        def fwd(a, t):
            return f(a, t), (NT(a, t), [_loss(L, t)])

        def bwd(res, g):
            p, (lv,) = res
            gt = L.grad(lambda tt: _loss(L, tt), allow_int=True)(p.y)
            gt = L.tree_util.tree_map(lambda x: None if x.dtype == jax.dtypes.float0 else
                                      x * g * p.x.sum(), gt)
            return (g * lv * np.ones_like(X), gt)
        f.defvjp(fwd, bwd)
        return L.grad(lambda a, t: f(a, t).sum(), argnums=(0, 1), allow_int=True)(X, tree(L))
    check(rep, "custom_vjp tree residuals", cvjp, text)

    def cjvp(L):
        @L.custom_jvp
        def f(t):
            return _loss(L, t)

        @f.defjvp
        def f_jvp(primals, tangents):
            (t,), (dt,) = primals, tangents
            g = L.grad(lambda tt: _loss(L, tt), allow_int=True)(t)
            dot = sum((a * b).sum() for a, b in zip(_floats(L, g), _floats(L, dt)))
            return f(t), dot + 0.0
        return L.grad(f, allow_int=True)(tree(L))
    check(rep, "custom_jvp tree", cjvp, text)


def _batch_for(t, axes, L):
    """A batched ``a`` whose size matches the batch size the axes pick in ``t`` (2 for
    axis 0 of a (2, 3) leaf, 3 for axis 1; 2 when nothing is mapped)."""
    sizes = [np.shape(x)[ax] for x, ax in zip(
        L.tree_util.tree_leaves(t), L.tree_util.tree_structure(t).flatten_up_to(
            L.tree.broadcast(axes, t, is_leaf=lambda s: s is None)))
             if ax is not None and np.ndim(x)]
    n = sizes[0] if sizes else 2
    return np.arange(n * 4, dtype=np.float32).reshape(n, 4)


# -- section 3: fixed cases (registration, Partial, key arrays, tree_map edge cases) ------------------
def _register_twice(L):
    class Twice:
        pass
    L.tree_util.register_pytree_node(Twice, lambda o: ((), None), lambda a, c: Twice())
    L.tree_util.register_pytree_node(Twice, lambda o: ((), None), lambda a, c: Twice())


def _dataclass_fields(L, data, meta, drop=()):
    @dataclasses.dataclass
    class Two:
        a: object
        b: object
    return L.tree_util.register_dataclass(Two, data, meta, drop) and "registered"


def _key(L, n=None):
    k = L.random.key(0)
    return k if n is None else L.random.split(k, n)


CASES = {
    "register twice": _register_twice,
    "dataclass missing field": lambda L: _dataclass_fields(L, ["a"], []),
    "dataclass unexpected field": lambda L: _dataclass_fields(L, ["a", "b", "c"], []),
    "dataclass overlap": lambda L: _dataclass_fields(L, ["a", "b"], ["a"]),
    "dataclass drop_fields": lambda L: _dataclass_fields(L, ["a"], [], ["b"]),
    "Partial of Partial": lambda L: L.tree.leaves(L.tree_util.Partial(
        L.tree_util.Partial(max, 1), 2)),
    "Partial kwargs": lambda L: L.tree.map(lambda x: x * 2, L.tree_util.Partial(
        lambda a, key: a + key, 1, key=2))(),
    "Partial through jit": lambda L: L.jit(lambda p: p(np.float32(2)))(
        L.tree_util.Partial(lambda a, b: a * b, np.float32(3))),
    "map None below a leaf": lambda L: L.tree.map(lambda a, b: (a, b), [1, 2], [None, 3]),
    "map None vs leaf": lambda L: L.tree.map(lambda a, b: (a, b), [1, None], [2, 3]),
    "map is_leaf root": lambda L: L.tree.leaves([1, [2]], is_leaf=lambda x: isinstance(x, list)),
    "unflatten iterator": lambda L: L.tree.unflatten(L.tree.structure([0, (0,)]), iter([1, 2])),
    "unflatten too few": lambda L: L.tree.unflatten(L.tree.structure([0, (0,)]), [1]),
    "unflatten too many": lambda L: L.tree.unflatten(L.tree.structure([0, (0,)]), [1, 2, 3]),
    "reduce initializer None": lambda L: L.tree_util.tree_reduce(lambda a, b: (a, b), [1, 2],
                                                                 None),
    "treedef_tuple": lambda L: L.tree_util.treedef_tuple([L.tree.structure(1),
                                                          L.tree.structure({"a": None})]),
    "walk": lambda L: L.tree.structure({"b": [1, 2], "a": 3}).walk(
        lambda c, d: ("N", c, d), lambda x: ("L", x), [10, 20, 30]),
    "from_node_data_and_children": lambda L: L.tree.structure(1).from_node_data_and_children(
        L.tree_util.default_registry, (dict, ["a", "b"]),
        [L.tree.structure(1), L.tree.structure(None)]),
    "keys 1 / True / 1.0": lambda L: [list(L.tree.map(lambda x: x, {k: 0}))[0].__class__
                                      for k in (True, 1, 1.0, True)],
    "jit keys 1 / True": lambda L: [type(list(f({k: 1.0}))[0]) for f in [L.jit(lambda t: t)]
                                    for k in (True, 1, True)],
    "key array leaves": lambda L: len(L.tree.leaves({"k": _key(L), "a": 1})),
    "key array structure": lambda L: L.tree.structure({"k": _key(L, 3)}),
    "key array map 2": lambda L: L.tree.map(lambda k, j: (k.shape, j.shape), {"k": _key(L, 3)},
                                            {"k": _key(L, 3)}),
    "key array flatten_one_level": lambda L: L.tree_util.flatten_one_level(_key(L)),
    "key array is_tree_node": lambda L: L.tree_util.is_tree_node(type(_key(L))),
    "key array transpose": lambda L: L.tree.map(lambda k: k.shape, L.tree.transpose(
        L.tree.structure([0, 0]), None, [(_key(L), _key(L)), (_key(L), _key(L, 3))])),
    "key array broadcast": lambda L: L.tree.map(lambda x: x, L.tree.broadcast(
        [1, 2], [_key(L, 3), {"a": _key(L)}])),
    "key array vmap tree": lambda L: L.vmap(lambda t: L.random.uniform(t["k"]).shape)(
        {"k": _key(L, 3)}),
    "vmap out_axes None for unbatched": lambda L: L.vmap(
        lambda a: (a, {"c": np.float32(1)}), out_axes=(0, None))(X),
    "vmap in_axes dict order": lambda L: L.vmap(lambda t: t["b"] + t["a"], in_axes=(
        {"b": 1, "a": 0},))({"a": X, "b": X.T}),
    "vmap arg with None inside": lambda L: L.vmap(lambda t: t["a"] * 2)({"a": X, "n": None}),
    "jacrev tree to tree": lambda L: L.jacrev(lambda t: {"s": _np(L).sin(t["a"]) * t["b"][1],
                                                         "p": (t["b"][0] ** 2,)})(
        {"a": X[0], "b": (X[1, :2], np.float32(3))}),
    "jacfwd has_aux": lambda L: L.jacfwd(lambda a: (NT(a * 2, a.sum()), [a]), has_aux=True)(
        X[0]),
    "hessian tree": lambda L: L.hessian(lambda t: (_np(L).sin(t["a"]) * t["b"]).sum())(
        {"a": X[0], "b": np.float32(2)}),
    "linear_transpose tree": lambda L: L.linear_transpose(
        lambda t: {"o": t["a"] * 2 + t["b"][1]}, {"a": X[0], "b": (X[0], np.float32(1))})(
        {"o": X[0]}),
    "scan tree carry": lambda L: L.lax.scan(
        lambda c, xs: ({"s": c["s"] + xs["v"]}, NT(xs["v"], None)), {"s": np.float32(0)},
        {"v": X[0]}),
    "custom_vjp bwd None subtree": lambda L: _custom_vjp_none(L),
    "ravel mixed dtypes": lambda L: L.flatten_util.ravel_pytree(
        {"a": np.ones(2, np.float16), "b": np.arange(3, dtype=np.int32), "c": np.bool_(True)}
    )[0],
    "unravel mixed dtypes": lambda L: (lambda fu: fu[1](fu[0]))(L.flatten_util.ravel_pytree(
        [np.ones(2, np.float32), np.arange(2, dtype=np.int8), None, ()])),
}


def _custom_vjp_none(L):
    @L.custom_vjp
    def f(a, t):
        return a * t["w"] + t["b"][0]
    f.defvjp(lambda a, t: (f(a, t), (a, t)), lambda r, g: (g, {"w": g * r[0], "b": None}))
    return L.grad(lambda a, t: f(a, t).sum(), argnums=(0, 1))(X, {"w": X + 2, "b": (X, X[0])})


# Differences kept on purpose (printed, not flagged), with the reason
KNOWN = {
    "jit keys 1 / True": "JAX's jit matches {1: x} to the cached {True: x} (equal keys) and "
                         "returns {True: ...}; tjit keeps each key's own type",
}


def case_checks(rep):
    for name, fn in CASES.items():
        if name in KNOWN:
            (_, jv), (_, tv) = run_both(fn)
            print(f"KNOWN {name}: jax {norm(jv)}, tjit {norm(tv)}: {KNOWN[name]}")
            continue
        check(rep, name, fn, "(fixed case)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trees", type=int, default=200)
    ap.add_argument("--only", default="trees,transforms",
                    help="comma-separated sections: trees, transforms, cases (the default "
                         "runs all three)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    rep = Report(args.verbose)
    only = args.only.split(",") + (["cases"] if args.only == "trees,transforms" else [])
    if "cases" in only:
        case_checks(rep)
    for i in range(args.trees):
        seed = args.seed * 100_003 + i
        if "trees" in only:
            tree_checks(rep, seed)
        if "transforms" in only and i % 4 == 0:
            transform_checks(rep, seed)
    print("\nchecks run:", sum(rep.counts.values()), "in", len(rep.counts), "kinds")
    by_name = collections.Counter(n for n, _ in rep.flags)
    print("flags:", len(rep.flags), dict(by_name))
    return 1 if rep.flags else 0


if __name__ == "__main__":
    sys.exit(main())
