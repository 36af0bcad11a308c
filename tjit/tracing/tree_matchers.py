"""jit's argument matchers: is this call's argument pytree the structure of the last
call, and its leaves, without building a treedef (:func:`flatten_as`, and
:func:`flattener`, the same test generated once per treedef as straight-line code); and
:func:`unflattener`, one generated expression that rebuilds the outputs. They read the
pytree registry of :mod:`tjit.tracing.tree_util` and must agree with its
``tree_flatten``/``tree_unflatten`` (tests/test_jit_dispatch.py checks both ways).
"""

import functools

from tjit.tracing.tree_util import (
    _DICT_NODE,
    _LEAF,
    _LEAF_TYPES,
    _aux_equal,
    _aux_types,
    _is_namedtuple,
    _registry,
)


def flatten_as(treedef, tree):
    """The leaves of ``tree`` when ``tree_flatten(tree)`` would give a treedef equal to
    ``treedef``, else None. Checks the structure node by node without building a
    treedef: the cheap test of a jitted call's arguments against its last structure."""
    leaves = []
    return leaves if _match(treedef, tree, leaves) else None


def _match(d, x, leaves):
    t = d.node_type
    if t is None:   # a leaf there: x must not be a container itself
        tx = type(x)
        if tx in _LEAF_TYPES or (tx not in _registry and not _is_namedtuple(x)):
            leaves.append(x)
            return True
        return False
    if type(x) is not t:
        return False
    kids = d.child_defs
    if t is tuple or t is list:
        children = x
    elif t is dict and _registry[dict] is _DICT_NODE:
        if len(x) != len(kids):
            return False
        try:   # (same length and every key of aux present: the same key set)
            children = [x[k] for k in d.aux]
        except (KeyError, TypeError):
            return False
        if not _str_keys(d.aux) and _typed_keys(x) != _typed_keys(d.aux):
            return False   # {1: x} against {True: x}: equal keys of other types
    else:
        node = _registry.get(t)
        if node is None:   # namedtuple
            children = x
        else:
            children, aux = node.to_iter(x)
            if not _aux_equal(aux, d.aux) or _aux_types(aux) != _aux_types(d.aux):
                return False
    if len(children) != len(kids):
        return False
    for c, k in zip(children, kids):
        if k is _LEAF:   # (inline: most children are leaves)
            tc = type(c)
            if tc in _LEAF_TYPES or (tc not in _registry and not _is_namedtuple(c)):
                leaves.append(c)
                continue
            return False
        if not _match(k, c, leaves):
            return False
    return True


def _str_keys(keys):
    """Whether every dict key is a str (no key of another type can equal one)."""
    return all(type(k) is str for k in keys)


def _typed_keys(keys):
    """Dict keys with their types: {1: x} and {True: x} have the same keys by ==."""
    return frozenset((_aux_types(k), k) for k in keys)


def flattener(treedef):
    """A function ``tree -> leaves or None`` equal to ``flatten_as(treedef, tree)``,
    generated once as straight-line code when ``treedef`` holds only tuples, lists,
    dicts, None and namedtuples (else ``flatten_as`` itself): for the arguments of
    every call of a jitted function."""
    consts = {"_LT": _LEAF_TYPES, "_R": _registry, "_NT": _is_namedtuple, "_TK": _typed_keys}
    lines, leaves, count = [], [], [0]

    def const(value):
        name = f"_c{len(consts)}"
        consts[name] = value
        return name

    def emit(d, var):
        t = d.node_type
        if t is None:
            lines.append(f"if not (type({var}) in _LT or (type({var}) not in _R and "
                         f"not _NT({var}))): return None")
            leaves.append(var)
            return True
        if t is type(None):
            lines.append(f"if {var} is not None: return None")
            return True
        builtin_dict = t is dict and _registry[dict] is _DICT_NODE
        if not (t is tuple or t is list or builtin_dict or
                (t not in _registry and issubclass(t, tuple) and hasattr(t, "_fields"))):
            return False
        lines.append(f"if type({var}) is not {const(t)} or len({var}) != "
                     f"{len(d.child_defs)}: return None")
        if builtin_dict and not _str_keys(d.aux):   # (1 == True: compare the key types)
            lines.append(f"if _TK({var}) != {const(_typed_keys(d.aux))}: return None")
        for i, c in enumerate(d.child_defs):
            count[0] += 1
            kid = f"x{count[0]}"
            index = const(d.aux[i]) if builtin_dict else str(i)
            lines.append(f"{kid} = {var}[{index}]")
            if not emit(c, kid):
                return False
        return True

    if not emit(treedef, "x0"):
        return functools.partial(flatten_as, treedef)
    body = "\n        ".join(lines)
    src = (f"def flat(x0):\n    try:\n        {body}\n    except KeyError:\n"
           f"        return None\n    return [{', '.join(leaves)}]\n")
    exec(src, consts)  # noqa: S102 (generated from the treedef; names only constants)
    return consts["flat"]


def unflattener(treedef):
    """A function ``leaves -> tree`` equal to ``tree_unflatten(treedef, leaves)`` for a
    list of exactly ``treedef.num_leaves`` leaves, generated once as one expression
    (no recursion or registry lookups per call): for outputs rebuilt on every call."""
    consts = {}
    counter = [0]

    def const(value):
        name = f"_c{len(consts)}"
        consts[name] = value
        return name

    def expr(d):
        t = d.node_type
        if t is None:
            i = counter[0]
            counter[0] += 1
            return f"xs[{i}]"
        kids = [expr(c) for c in d.child_defs]
        if t is tuple:
            return f"({', '.join(kids)}{',' if len(kids) == 1 else ''})"
        if t is list:
            return f"[{', '.join(kids)}]"
        if t is dict and _registry[dict] is _DICT_NODE:
            return "{" + ", ".join(f"{const(k)}: {e}" for k, e in zip(d.aux, kids)) + "}"
        node = _registry.get(t)
        if node is None:   # namedtuple
            return f"{const(t)}({', '.join(kids)})"
        return f"{const(node.from_iter)}({const(d.aux)}, [{', '.join(kids)}])"

    body = expr(treedef)
    return eval(f"lambda xs: {body}", consts)  # (names only constants)
