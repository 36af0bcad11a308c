"""Pytrees: nested containers (tuple, list, dict, None, namedtuple and registered
classes) whose leaves are arrays. Mirrors ``jax.tree_util``, including key paths
(``tree_flatten_with_path``, ``keystr`` and the key classes ``SequenceKey``, ``DictKey``,
``GetAttrKey``, ``FlattenedIndexKey``)."""

import collections
import functools

from tjit.tracing.extended_dtypes import ExtendedArray

_registry = {}
_keys_registry = {}  # nodetype -> flatten_with_keys(obj) -> ([(key, child)...], aux)


class _Node:
    __slots__ = ("to_iter", "from_iter")

    def __init__(self, to_iter, from_iter):
        self.to_iter = to_iter      # obj -> (children, aux_data)
        self.from_iter = from_iter  # (aux_data, children) -> obj


def split_by_sizes(seq, sizes):
    """``seq`` cut into consecutive pieces of ``sizes``, plus the rest."""
    out, i = [], 0
    for n in sizes:
        out.append(list(seq[i:i + n]))
        i += n
    out.append(list(seq[i:]))
    return out


def register_pytree_node(nodetype, flatten_func, unflatten_func,
                         flatten_with_keys_func=None):
    """Register ``nodetype``: ``flatten_func(obj) -> (children, aux)``,
    ``unflatten_func(aux, children) -> obj``; optionally
    ``flatten_with_keys_func(obj) -> ([(key, child), ...], aux)`` names the children in
    key paths (without it they are ``FlattenedIndexKey(i)``). A type registers once (as
    in JAX: registering list again would change every pytree holding a list)."""
    if nodetype in _registry:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}: "
                         f"a type can be registered as a pytree node once; register a "
                         f"subclass to give it other flatten functions")
    _registry[nodetype] = _Node(flatten_func, unflatten_func)
    if flatten_with_keys_func is not None:
        _keys_registry[nodetype] = flatten_with_keys_func
    # returns None, as JAX's does (a notebook cell ending in it shows nothing)


def register_pytree_node_class(cls):
    """Class decorator: uses ``obj.tree_flatten()`` and ``cls.tree_unflatten(aux, ch)``."""
    register_pytree_node(cls, lambda o: o.tree_flatten(), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Register the class ``nodetype`` as a pytree whose ``data_fields`` are children and
    ``meta_fields`` static aux data (JAX's signature). Left out, both come from the dataclass's ``init``
    fields: those declared ``field(metadata=dict(static=True))`` are meta, the rest data;
    ``drop_fields`` are in neither."""
    import dataclasses
    if (data_fields is None) != (meta_fields is None):
        raise TypeError(f"register_dataclass: data_fields and meta_fields must both be "
                        f"specified when either is specified. Got data_fields={data_fields} "
                        f"meta_fields={meta_fields}.")
    if data_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass: data_fields and meta_fields are required "
                            f"when nodetype is not a dataclass. Got nodetype={nodetype!r}")
        fields = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    meta_fields = list(meta_fields)
    data_fields = list(data_fields)
    _check_dataclass_fields(nodetype, data_fields, meta_fields, drop_fields)

    def flat(o):
        return [getattr(o, k) for k in data_fields], tuple(getattr(o, k) for k in meta_fields)

    def unflat(aux, ch):
        return nodetype(**dict(zip(data_fields, ch)), **dict(zip(meta_fields, aux)))

    def flat_with_keys(o):  # data fields are named by attribute in key paths, as JAX
        children, aux = flat(o)
        return [(GetAttrKey(k), c) for k, c in zip(data_fields, children)], aux
    register_pytree_node(nodetype, flat, unflat, flat_with_keys)
    return nodetype


def _check_dataclass_fields(nodetype, data_fields, meta_fields, drop_fields):
    """JAX's checks: a dataclass's data and meta fields are its ``init`` fields (less
    ``drop_fields``), each once; else unflatten would fail later, far from the cause."""
    import dataclasses
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = {*data_fields, *meta_fields}
        if given != init:
            msg = (f"register_dataclass({nodetype.__name__}): data_fields and meta_fields "
                   f"must include all dataclass fields with ``init=True`` and only them.")
            if init - given:
                msg += (f" Missing fields: {init - given}. Add them to drop_fields to "
                        f"suppress this error.")
            if given - init:
                msg += f" Unexpected fields: {given - init}."
            raise ValueError(msg)
    overlap = set(data_fields) & set(meta_fields)
    if overlap:
        raise ValueError(f"register_dataclass({getattr(nodetype, '__name__', nodetype)}): "
                         f"data_fields and meta_fields must not overlap. Overlapping "
                         f"fields: {overlap}.")


def _sorted_keys(d):
    """A dict's keys in the sorted order pytrees use; keys that do not compare (1 and
    "y") raise JAX's ValueError, naming the keys and the fix, instead of sort's TypeError."""
    try:
        return sorted(d)
    except TypeError as e:
        shown = ", ".join(f"{k!r} ({type(k).__name__})" for k in list(d)[:8])
        raise ValueError(
            "Comparator raised exception while sorting pytree dictionary keys: "
            f"{e}. The keys were {shown}{', ...' if len(d) > 8 else ''}. A dict in a "
            "pytree needs keys that sort against each other (e.g. all str or all int); "
            "use an OrderedDict to keep insertion order instead.") from e


def _dict_flatten(d):
    keys = _sorted_keys(d)
    return [d[k] for k in keys], tuple(keys)


register_pytree_node(tuple, lambda t: (t, None), lambda _, ch: tuple(ch))
register_pytree_node(list, lambda t: (t, None), lambda _, ch: list(ch))
register_pytree_node(dict, _dict_flatten, lambda keys, ch: dict(zip(keys, ch)))
_DICT_NODE = _registry[dict]
register_pytree_node(type(None), lambda _: ((), None), lambda _, ch: None)
register_pytree_node(collections.OrderedDict,
                     lambda d: (list(d.values()), tuple(d.keys())),
                     lambda keys, ch: collections.OrderedDict(zip(keys, ch)))


def _defaultdict_flatten(d):
    children, keys = _dict_flatten(d)   # (sorts the keys once)
    return children, (d.default_factory, keys)


register_pytree_node(collections.defaultdict, _defaultdict_flatten,
                     lambda aux, ch: collections.defaultdict(aux[0], zip(aux[1], ch)))


def _is_namedtuple(x):       # (on every leaf flattened: kept inline)
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_namedtuple_type(t):
    return isinstance(t, type) and issubclass(t, tuple) and hasattr(t, "_fields")


class PyTreeDef:
    """The structure of a pytree (hashable, comparable)."""

    __slots__ = ("node_type", "aux", "child_defs", "num_leaves", "_hash")

    def __init__(self, node_type, aux, children):
        self.node_type = node_type  # None marks a leaf
        self.aux = aux
        self.child_defs = children  # (a tuple; children() is the public list)
        self.num_leaves = 1 if node_type is None else sum(c.num_leaves for c in children)
        self._hash = None

    @property
    def num_nodes(self):
        return 1 + sum(c.num_nodes for c in self.child_defs)

    def __eq__(self, other):
        # Aux data must be equal and of the same types: {1: x} and {True: x} unflatten to
        # different dicts, so they are different structures (JAX calls them equal, and its
        # jit then returns {True: ...} for f({1: ...}) after f({True: ...}))
        return self is other or (type(other) is PyTreeDef and self.node_type is other.node_type
                                 and _aux_equal(self.aux, other.aux)
                                 and _aux_types(self.aux) == _aux_types(other.aux)
                                 and self.child_defs == other.child_defs)

    def __hash__(self):
        if self._hash is None:
            try:
                self._hash = hash((self.node_type, self.aux, self.child_defs))
            except TypeError:
                self._hash = hash((self.node_type, self.child_defs))
        return self._hash

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this structure's leaves; ValueError naming the key
        path where ``tree`` does not have this structure."""
        return flatten_up_to_or_raise(self, tree, "flatten_up_to")

    def children(self):
        """The structures of the root's children (``[]`` for a leaf), as JAX's method."""
        return list(self.child_defs)

    def node_data(self):
        """``(node type, aux data)`` of the root, None for a leaf (JAX's method; a dict's
        aux data is its sorted keys as a list, as JAX shows them)."""
        if self.node_type is None:
            return None
        return self.node_type, list(self.aux) if self.node_type is dict else self.aux

    def compose(self, inner_treedef):
        """This structure with ``inner_treedef`` in place of each leaf."""
        if self.node_type is None:
            return inner_treedef
        return _node(self.node_type, self.aux,
                     tuple([c.compose(inner_treedef) for c in self.child_defs]))

    def walk(self, f_node, f_leaf, leaves):
        """Fold ``leaves`` up this structure: ``f_leaf(x)`` at each leaf (``x`` itself when
        ``f_leaf`` is None) and ``f_node(tuple of child results, aux data)`` at each node,
        as JAX's method."""
        it = iter(leaves)

        def go(d):
            if d.node_type is None:
                x = next(it)
                return x if f_leaf is None else f_leaf(x)
            return f_node(tuple([go(c) for c in d.child_defs]), d.node_data()[1])
        try:
            return go(self)
        except StopIteration:
            raise ValueError(f"PyTreeDef.walk: too few leaves for {self}") from None

    @staticmethod
    def from_node_data_and_children(registry, node_data, children):
        """The structure whose root is ``node_data`` (as :meth:`node_data` gives it; None
        for a leaf) over the structures ``children``, as JAX's method."""
        children = tuple(children)
        if not all(isinstance(c, PyTreeDef) for c in children):
            raise TypeError(f"PyTreeDef.from_node_data_and_children: children must be "
                            f"PyTreeDefs, got {[type(c).__name__ for c in children]}")
        if node_data is None:
            if children:
                raise ValueError(f"PyTreeDef.from_node_data_and_children: a leaf (node_data "
                                 f"None) has no children, got {len(children)}")
            return _LEAF
        node_type, aux = node_data
        if not is_tree_node(node_type):
            raise ValueError(f"PyTreeDef.from_node_data_and_children: {node_type!r} is not "
                             f"a registered pytree node type; register it first")
        if node_type is dict:
            aux = tuple(aux)
            if len(aux) != len(children):
                raise ValueError(f"PyTreeDef.from_node_data_and_children: a dict with "
                                 f"{len(aux)} keys needs {len(aux)} children, got "
                                 f"{len(children)}")
        elif node_type is type(None) and children:
            raise ValueError(f"PyTreeDef.from_node_data_and_children: None has no "
                             f"children, got {len(children)}")
        return _node(node_type, aux, children)

    def __repr__(self):
        return f"PyTreeDef({self._str()})"

    def _str(self):
        if self.node_type is None:
            return "*"
        kids = ", ".join(c._str() for c in self.child_defs)
        if self.node_type is tuple:
            return f"({kids}{',' if len(self.child_defs) == 1 else ''})"
        if self.node_type is list:
            return f"[{kids}]"
        if self.node_type is dict:
            return "{" + ", ".join(f"{k!r}: {c._str()}" for k, c in
                                   zip(self.aux, self.child_defs)) + "}"
        if self.node_type is type(None):
            return "None"
        # JAX's format: CustomNode(name[str(aux)], [kids]); namedtuples show their type
        name = getattr(self.node_type, "__name__", self.node_type)
        head = f"namedtuple[{name}]" if _is_namedtuple_type(self.node_type) else \
            f"{name}[{self.aux}]"
        return f"CustomNode({head}, [{kids}])"


def _aux_equal(a, b):
    """Aux data equality; aux holding arrays (unhashable, elementwise ==) compares equal
    only where == gives one truth value, so such structures are told apart, not an error."""
    try:
        return a is b or bool(a == b)
    except (TypeError, ValueError):
        return False


_LEAF = PyTreeDef(None, None, ())
_LEAF_TYPES = {float, int, bool, complex}  # common leaves, checked before the registry


def register_leaf_type(t):
    """Mark ``t`` (e.g. the array class) as always a leaf: a fast path for flattening."""
    _LEAF_TYPES.add(t)


def is_extended_array(x):
    """The public tree API's leaf rule (``tjit/tree_util.py``): an array of an extended
    dtype (a typed key array) is a leaf there, a node over its data here."""
    return isinstance(x, ExtendedArray)


def _flatten(x, leaves, is_leaf):
    t = type(x)
    if t in _LEAF_TYPES and (is_leaf is None or is_leaf is is_extended_array):
        leaves.append(x)
        return _LEAF
    if t is tuple or t is list:
        if is_leaf is None or not is_leaf(x):
            return _node(t, None, tuple([_flatten(c, leaves, is_leaf) for c in x]))
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    if t is dict and _registry[dict] is _DICT_NODE:   # (the common case, inline)
        keys = _sorted_keys(x)
        return _node(dict, tuple(keys), tuple([_flatten(x[k], leaves, is_leaf)
                                               for k in keys]))
    node = _registry.get(t)
    if node is None:
        if _is_namedtuple(x):
            return _node(t, None, tuple([_flatten(c, leaves, is_leaf) for c in x]))
        leaves.append(x)
        return _LEAF
    children, aux = node.to_iter(x)
    kids = tuple([_flatten(c, leaves, is_leaf) for c in children])
    return _node(t, aux, kids)


_interned = {}


def _node(t, aux, kids):
    """Interned PyTreeDef: repeated structures (every jit call) reuse one object, so
    comparing and hashing them for cache keys is cheap. The key holds the types in the
    aux data: {1: x} and {True: x} are different structures (see PyTreeDef.__eq__)."""
    try:
        if aux is None:   # (tuples and lists)
            key = (t, kids)
        elif type(aux) is tuple:
            types = tuple(map(type, aux))
            key = (t, aux, types if tuple not in types else _aux_types(aux), kids)
        else:
            key = (t, aux, type(aux), kids)
        d = _interned.get(key)
    except TypeError:  # unhashable aux data
        return PyTreeDef(t, aux, kids)
    if d is None:
        if len(_interned) > 100_000:
            _interned.clear()
        d = _interned[key] = PyTreeDef(t, aux, kids)
    return d


def _aux_types(aux):
    """The types in aux data, through nested tuples (1 == True, but they build different
    dicts and dataclasses)."""
    if type(aux) is not tuple:
        return type(aux)
    return tuple(map(_aux_types, aux))


def tree_flatten(tree, is_leaf=None):
    """Returns ``(leaves, treedef)``."""
    leaves = []
    treedef = _flatten(tree, leaves, is_leaf)
    return leaves, treedef


def _build(treedef, it):
    if treedef.node_type is None:
        return next(it)
    kids = [_build(c, it) for c in treedef.child_defs]
    t = treedef.node_type
    node = _registry.get(t)
    if node is None:  # namedtuple
        return t(*kids)
    return node.from_iter(treedef.aux, kids)


def tree_unflatten(treedef, leaves):
    """The pytree of structure ``treedef`` with ``leaves`` (an iterable of exactly
    ``treedef.num_leaves`` values) at its leaves."""
    if type(leaves) is not list:
        leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        few = "few" if len(leaves) < treedef.num_leaves else "many"
        raise ValueError(f"tree_unflatten: too {few} leaves for {treedef}: expected "
                         f"{treedef.num_leaves}, got {len(leaves)}")
    return _build(treedef, iter(leaves))


class _Mismatch(Exception):
    """Raised inside :func:`_flatten_up_to` where the tree departs from the treedef."""


def _flatten_up_to(treedef, tree):
    if treedef.node_type is None:
        return [tree]
    if type(tree) is not treedef.node_type:
        raise _Mismatch
    node = _registry.get(treedef.node_type)
    if node is None:
        children, aux = list(tree), None
    else:
        children, aux = node.to_iter(tree)
    if len(children) != len(treedef.child_defs) or not _aux_equal(aux, treedef.aux):
        raise _Mismatch
    out = []
    for c, d in zip(children, treedef.child_defs):
        out.extend(_flatten_up_to(d, c))
    return out


def flatten_up_to_or_raise(treedef, tree, op, subject="the tree"):
    """``treedef.flatten_up_to(tree)``; where ``tree`` lacks the structure, a ValueError
    naming the operation ``op``, the ``subject`` (e.g. "tree 2"), the key path and how
    the two differ there."""
    try:
        return _flatten_up_to(treedef, tree)
    except _Mismatch:
        where, expected, got = _where_they_differ(treedef, tree)
        raise ValueError(f"{op}: pytree structure mismatch: {subject} does not have the "
                         f"structure {treedef}: {where} the structure has {expected}, but "
                         f"{subject} has {got}") from None


def _where_they_differ(treedef, tree):
    """``("at key path ..." or "at the root", expected, got)`` for a mismatch message."""
    path, expected, got = _first_difference(treedef, tree, ())
    return (f"at key path {keystr(path)}" if path else "at the root"), expected, got


def _node_text(node_type, aux, n):
    """A pytree node in words, for structure-mismatch messages."""
    if node_type is None:
        return "a leaf"
    if node_type is type(None):
        return "None"
    name = getattr(node_type, "__name__", repr(node_type))
    if node_type is dict:
        return f"a dict with keys {list(aux)}"
    if node_type in (tuple, list) or _is_namedtuple_type(node_type):
        return f"a {name} of length {n}"
    return f"a {name} node of {n} children with aux data {aux!r:.60}"


def _value_text(x):
    t = type(x)
    node = _registry.get(t)
    if node is None and not _is_namedtuple(x):
        return f"a leaf of type {t.__name__} ({x!r:.40})"
    children, aux = (list(x), None) if node is None else node.to_iter(x)
    return _node_text(t, aux, len(children))


def _first_difference(treedef, tree, path):
    """``(key path, expected, got)`` where ``tree`` first departs from ``treedef`` (the
    slow walk behind :func:`flatten_up_to_or_raise`'s message)."""
    t = treedef.node_type
    here = (path, _node_text(t, treedef.aux, len(treedef.child_defs)), _value_text(tree))
    if type(tree) is not t:
        return here
    children, aux = (list(tree), None) if _registry.get(t) is None else \
        _registry[t].to_iter(tree)
    if len(children) != len(treedef.child_defs) or not _aux_equal(aux, treedef.aux):
        return here
    keyed = ([(SequenceKey(i), c) for i, c in enumerate(tree)] if t is tuple or t is list
             else _children_with_keys(tree, t))
    for (k, c), d in zip(keyed, treedef.child_defs):
        if d.node_type is not None:
            found = _first_difference(d, c, path + (k,))
            if found is not None:
                return found
    return None


def tree_leaves(tree, is_leaf=None):
    """tree_leaves(tree, is_leaf=None): the leaves of the pytree ``tree`` in flattening
    order (``None`` is an empty subtree), as ``jax.tree_util.tree_leaves``.

    Example::

        >>> tree_leaves({"b": [1, 2], "a": (3, None)})
        [3, 1, 2]
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    """tree_structure(tree, is_leaf=None): the PyTreeDef of ``tree`` (its shape without
    the leaves), as ``jax.tree_util.tree_structure``.

    Example::

        >>> tree_structure({"a": 1, "b": (2, 3)}).num_leaves
        3
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f, tree, *rest, is_leaf=None):
    """Apply ``f`` leafwise; ``rest`` trees must share ``tree``'s structure."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [flatten_up_to_or_raise(treedef, r, "tree_map", f"tree {i + 2} (of {len(rest) + 1})")
              for i, r in enumerate(rest)]
    return treedef.unflatten([f(*xs) for xs in zip(leaves, *others)])


class _NoInitializer:
    """The default of ``tree_reduce``'s ``initializer``: None is a value one may pass."""

    def __repr__(self):
        return "<no initializer>"


NO_INITIALIZER = _NoInitializer()


def tree_reduce(f, tree, initializer=NO_INITIALIZER, is_leaf=None):
    """``functools.reduce(f, tree_leaves(tree)[, initializer])``."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is NO_INITIALIZER:
        return functools.reduce(f, leaves)
    return functools.reduce(f, leaves, initializer)


def tree_all(tree):
    return all(tree_leaves(tree))


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    expected = outer_treedef.compose(inner_treedef)
    try:
        flat = outer_treedef.flatten_up_to(pytree_to_transpose)
        inners = [inner_treedef.flatten_up_to(x) for x in flat]
    except ValueError as e:   # (JAX raises TypeError "Mismatch" here)
        raise TypeError(f"tree_transpose: the tree does not have the structure of "
                        f"outer_treedef composed with inner_treedef, {expected}: {e}") from None
    cols = list(zip(*inners)) if inners else [()] * inner_treedef.num_leaves
    return inner_treedef.unflatten([outer_treedef.unflatten(list(c)) for c in cols])


def treedef_is_leaf(treedef):
    """True for a structure of one node: a leaf, None or an empty container (JAX's rule)."""
    return not treedef.child_defs


def all_leaves(iterable, is_leaf=None):
    """Whether every element of ``iterable`` is a leaf (None is not: it is an empty
    subtree). With ``is_leaf``, JAX's rule: ``tree_leaves(list(iterable), is_leaf)`` is
    the elements themselves, so an ``is_leaf`` that takes the list itself gives False."""
    if is_leaf is None:
        return all(tree_structure(x) == _LEAF for x in iterable)
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(items, leaves))


class Partial(functools.partial):
    """A functools.partial that is a pytree (its args are leaves), as jax.tree_util.Partial.

    A ``functools.partial`` (or Partial) given as ``func`` stays whole, in the static part:
    only this Partial's own arguments are leaves (JAX's rule; ``partial.__new__`` would
    merge the inner arguments into these)."""

    def __new__(cls, func, *args, **kwargs):
        if not isinstance(func, functools.partial):
            return super().__new__(cls, func, *args, **kwargs)
        inner = func
        func = _CallableShim(inner)
        out = super().__new__(cls, func, *args, **kwargs)
        # (set once built: the shim then reads as the partial it holds)
        func.func, func.args, func.keywords = inner.func, inner.args, inner.keywords
        return out


class _CallableShim:
    """Calls, hashes and compares as the partial it holds, without being one."""

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        return self.fun == (other.fun if isinstance(other, _CallableShim) else other)

    def __repr__(self):
        return f"_CallableShim({self.fun!r})"


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, ch: Partial(func, *ch[0], **ch[1]))


# -- key paths --------------------------------------------------------------------------------
class _KeyEntry:
    """Base of the key classes: immutable, hashable, compared by type and field."""

    __slots__ = ()
    _field = None

    def __init__(self, value):
        object.__setattr__(self, self._field, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _value(self):
        return getattr(self, self._field)

    def __eq__(self, other):
        return type(other) is type(self) and self._value() == other._value()

    def __hash__(self):
        return hash((type(self).__name__, self._value()))

    def __repr__(self):
        return f"{type(self).__name__}({self._field}={self._value()!r})"

    def __reduce__(self):
        return type(self), (self._value(),)


class SequenceKey(_KeyEntry):
    """The position ``idx`` of a child of a tuple or list; renders as ``[idx]``."""
    __slots__ = ("idx",)
    __match_args__ = ("idx",)
    _field = "idx"

    def __str__(self):
        return f"[{self.idx}]"


class DictKey(_KeyEntry):
    """The key of a child of a dict; renders as ``[key!r]`` (e.g. ``['a']``)."""
    __slots__ = ("key",)
    __match_args__ = ("key",)
    _field = "key"

    def __str__(self):
        return f"[{self.key!r}]"


class GetAttrKey(_KeyEntry):
    """The attribute ``name`` of a namedtuple field or dataclass; renders as ``.name``."""
    __slots__ = ("name",)
    __match_args__ = ("name",)
    _field = "name"

    def __str__(self):
        return f".{self.name}"


class FlattenedIndexKey(_KeyEntry):
    """The position of a child of a node registered without keys; renders as ``[key]``."""
    __slots__ = ("key",)
    __match_args__ = ("key",)
    _field = "key"

    def __str__(self):
        return f"[<flat index {self.key}>]"   # (JAX's rendering; keystr(simple=True): the index)


KeyEntry = _KeyEntry
KeyPath = tuple


def _dict_keys_flatten(d):
    keys = _sorted_keys(d)
    return [(DictKey(k), d[k]) for k in keys], tuple(keys)


_keys_registry[dict] = _dict_keys_flatten
_keys_registry[type(None)] = lambda _: ((), None)
_keys_registry[collections.OrderedDict] = lambda d: (
    [(DictKey(k), v) for k, v in d.items()], tuple(d.keys()))
_keys_registry[collections.defaultdict] = lambda d: (
    [(DictKey(k), d[k]) for k in _sorted_keys(d)], (d.default_factory, tuple(_sorted_keys(d))))


def keystr(keys, *, simple=False, separator=""):
    """Render a key path as a string.

    Args:
      keys: a key path (tuple of key entries), e.g. from :func:`tree_flatten_with_path`.
      simple: render each entry as its bare value (``a``, ``0``, ``name``) instead of
        ``['a']``, ``[0]``, ``.name``.
      separator: put between entries.

    Returns:
      e.g. ``keystr((DictKey('a'), SequenceKey(0))) == "['a'][0]"``.
    """
    if simple:
        return separator.join(str(k._value()) if isinstance(k, _KeyEntry) else str(k)
                              for k in keys)
    return separator.join(str(k) for k in keys)


def _keyed_children(x, t, fwk):
    kids, _ = fwk(x)
    out = []
    for entry in kids:
        if not (isinstance(entry, tuple) and len(entry) == 2):
            raise ValueError(f"the flatten_with_keys function registered for "
                             f"{getattr(t, '__name__', t)} must return ([(key, child), ...], "
                             f"aux_data); got the entry {entry!r:.80}")
        out.append(entry)
    return out


def _children_with_keys(x, t):
    """``[(key, child)]`` of a pytree node ``x``, or None when ``x`` is a leaf."""
    fwk = _keys_registry.get(t)
    if fwk is not None:
        return _keyed_children(x, t, fwk)
    node = _registry.get(t)
    if node is None:
        if _is_namedtuple(x):
            return [(GetAttrKey(f), c) for f, c in zip(type(x)._fields, x)]
        return None
    children, _ = node.to_iter(x)
    return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)]


def _flatten_with_path(x, path, out, is_leaf):
    t = type(x)
    if (t in _LEAF_TYPES and is_leaf is None) or (is_leaf is not None and is_leaf(x)):
        out.append((path, x))
        return
    if t is tuple or t is list:
        for i, c in enumerate(x):
            _flatten_with_path(c, path + (SequenceKey(i),), out, is_leaf)
        return
    kids = _children_with_keys(x, t)
    if kids is None:
        out.append((path, x))
        return
    for k, c in kids:
        _flatten_with_path(c, path + (k,), out, is_leaf)


def _flatten_at_paths(x, path, out, is_leaf):
    """``_flatten_with_path`` for an ``is_leaf(path, x)`` predicate, which
    ``tree_structure`` cannot call: builds the PyTreeDef in the same walk."""
    if is_leaf(path, x):
        out.append((path, x))
        return _LEAF
    t = type(x)
    kids = (list(zip(map(SequenceKey, range(len(x))), x)) if t is tuple or t is list
            else None if t in _LEAF_TYPES else _children_with_keys(x, t))
    if kids is None:
        out.append((path, x))
        return _LEAF
    defs = tuple([_flatten_at_paths(c, path + (k,), out, is_leaf) for k, c in kids])
    node = _registry.get(t)
    if node is None:   # a namedtuple
        return PyTreeDef(t, None, defs)
    return _node(t, None if t is tuple or t is list else node.to_iter(x)[1], defs)


def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """Like :func:`tree_flatten`, but each leaf comes with its key path.

    ``is_leaf_takes_path``: ``is_leaf`` is called as ``is_leaf(path, x)``.

    Returns:
      ``([(path, leaf), ...], treedef)``; a path is a tuple of ``SequenceKey`` (tuple,
      list), ``DictKey`` (dict), ``GetAttrKey`` (namedtuple field, dataclass) or
      ``FlattenedIndexKey`` (classes registered without keys) entries.
    """
    out = []
    if is_leaf_takes_path and is_leaf is not None:
        treedef = _flatten_at_paths(tree, (), out, is_leaf)
    else:
        _flatten_with_path(tree, (), out, is_leaf)
        treedef = tree_structure(tree, is_leaf)
    if len(out) != treedef.num_leaves:
        raise ValueError(f"tree_flatten_with_path: a registered flatten_with_keys function "
                         f"gives {len(out)} leaves but flatten gives {treedef.num_leaves} "
                         f"for {treedef}; make both return the same children")
    return out, treedef


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """``[(path, leaf), ...]`` of ``tree`` (see :func:`tree_flatten_with_path`)."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    """Like :func:`tree_map`, but calls ``f(path, leaf, *rest_leaves)``
    (``is_leaf(path, x)`` with ``is_leaf_takes_path``)."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    others = [flatten_up_to_or_raise(treedef, r, "tree_map_with_path",
                                     f"tree {i + 2} (of {len(rest) + 1})") for i, r in enumerate(rest)]
    return treedef.unflatten([f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)])


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Register ``nodetype`` with named children.

    Args:
      flatten_with_keys: ``obj -> ([(key, child), ...], aux_data)``; the keys appear in
        key paths (any hashable object with a ``__str__``, usually a key class).
      unflatten_func: ``(aux_data, children) -> obj``.
      flatten_func: optional faster ``obj -> (children, aux_data)``; derived from
        ``flatten_with_keys`` when omitted.
    """
    if flatten_func is None:
        def flatten_func(x):
            kids, aux = flatten_with_keys(x)
            return [c for _, c in kids], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls):
    """Class decorator: uses ``obj.tree_flatten_with_keys()``, ``cls.tree_unflatten(aux,
    children)`` and, when defined, ``obj.tree_flatten()``."""
    flat = (lambda o: o.tree_flatten()) if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, lambda o: o.tree_flatten_with_keys(),
                              cls.tree_unflatten, flat)
    return cls


# -- one-level views, structure building, broadcasting (jax.tree_util's smaller names) --------
def register_static(cls):
    """Register ``cls`` as a pytree with no leaves: its instances are part of the
    structure, so ``jit`` treats them as static (hashable values), as
    ``jax.tree_util.register_static``. Returns ``cls`` (usable as a decorator).

    Example::

        >>> @register_static
        ... class Mode(str):
        ...     pass
        >>> tree_leaves([1.0, Mode("add")])
        [1.0]
    """
    register_pytree_with_keys(cls, lambda obj: ((), obj), lambda obj, _children: obj)
    return cls


def is_tree_node(typ):
    """Whether ``typ`` is a pytree node type (built in, registered or a namedtuple), as
    ``jax.tree_util.is_tree_node``.

    Example::

        >>> is_tree_node(dict), is_tree_node(float)
        (True, False)
    """
    return typ in _registry or (isinstance(typ, type) and issubclass(typ, tuple)
                                and hasattr(typ, "_fields"))


def _one_level(tree):
    """(children, aux) of a pytree node; ValueError for a leaf."""
    t = type(tree)
    node = _registry.get(t)
    if node is not None:
        return node.to_iter(tree)
    if _is_namedtuple(tree):
        return list(tree), t
    raise ValueError(f"can't tree-flatten type: {t}")


def flatten_one_level(tree):
    """Flatten one node of a pytree: ``(children, aux data)``, as
    ``jax.tree_util.flatten_one_level``; raises ValueError for a leaf.

    Example::

        >>> flatten_one_level(((1, 2), {'c': 3}))
        (((1, 2), {'c': 3}), None)
    """
    children, aux = _one_level(tree)
    return (tuple(children) if type(tree) is dict else children), aux   # (JAX's containers)


def flatten_one_level_with_keys(tree):
    """Flatten one node with its children's keys: ``([(key, child), ...], aux data)``,
    as ``jax.tree_util.flatten_one_level_with_keys``.

    Example::

        >>> flatten_one_level_with_keys({'a': 1, 'b': 2})
        (((DictKey(key='a'), 1), (DictKey(key='b'), 2)), ('a', 'b'))
    """
    children, aux = _one_level(tree)
    t = type(tree)
    if t is tuple or t is list:
        keyed = [(SequenceKey(i), c) for i, c in enumerate(tree)]
    else:
        keyed = _children_with_keys(tree, t)
    # JAX's containers: a tuple for the built-in nodes, a list for the others
    builtin = t in (tuple, list, dict, type(None))
    return (tuple(keyed) if builtin else list(keyed)), aux


def treedef_children(treedef):
    """The structures of a node's children (``[]`` for a leaf), as
    ``jax.tree_util.treedef_children``.

    Example::

        >>> treedef_children(tree_structure([(1, 2), 3]))
        [PyTreeDef((*, *)), PyTreeDef(*)]
    """
    return list(treedef.child_defs)


def treedef_tuple(treedefs):
    """The structure of a tuple whose children have ``treedefs``, as
    ``jax.tree_util.treedef_tuple``.

    Example::

        >>> treedef_tuple([tree_structure([1, 2]), tree_structure(3)])
        PyTreeDef(([*, *], *))
    """
    treedefs = tuple(treedefs)
    if not all(isinstance(t, PyTreeDef) for t in treedefs):
        raise TypeError(f"treedef_tuple: expected PyTreeDefs, got "
                        f"{[type(t).__name__ for t in treedefs]}")
    return _node(tuple, None, treedefs)


def broadcast_prefix(prefix_tree, full_tree, is_leaf=None):
    """The leaves of ``prefix_tree`` repeated over the leaves of the subtree of
    ``full_tree`` each stands for (one per leaf of ``full_tree``)."""
    leaves, treedef = tree_flatten(prefix_tree, is_leaf)
    try:
        subtrees = _flatten_up_to(treedef, full_tree)
    except _Mismatch:
        where, expected, got = _where_they_differ(treedef, full_tree)
        raise ValueError(f"tree_broadcast: {treedef} is not a prefix of "
                         f"{tree_structure(full_tree)}: {where} the prefix has {expected}, "
                         f"but the full tree has {got}") from None
    out = []
    for x, sub in zip(leaves, subtrees):
        out.extend([x] * tree_structure(sub).num_leaves)
    return out


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """``prefix_tree`` with each leaf repeated over its subtree of ``full_tree``, giving
    ``full_tree``'s structure, as ``jax.tree_util.tree_broadcast``.

    Example::

        >>> tree_broadcast([1, 2], [(0, 0), {'a': 0}])
        [(1, 1), {'a': 2}]
    """
    return tree_structure(full_tree).unflatten(broadcast_prefix(prefix_tree, full_tree,
                                                                is_leaf))


_NO_IDENTITY = object()


def tree_reduce_associative(operation, tree, *, identity=_NO_IDENTITY, is_leaf=None):
    """Reduce the leaves with an associative ``operation`` as a balanced binary tree
    (halves first), as ``jax.tree_util.tree_reduce_associative``.

    Example::

        >>> tree_reduce_associative(lambda a, b: a + b, [1, (2, 3), {'x': 4}])
        10
    """
    def reduce(seq):
        if len(seq) == 1:
            return seq[0]
        half = len(seq) // 2
        return operation(reduce(seq[:half]), reduce(seq[half:]))
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _NO_IDENTITY:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    return reduce(leaves)


class _Registry:
    """The pytree registry as an object, as ``jax.tree_util.default_registry``: its
    ``flatten``, ``flatten_one_level`` and ``flatten_one_level_with_keys`` methods and
    ``register_node``."""

    def flatten(self, tree, leaf_predicate=None):
        return tree_flatten(tree, leaf_predicate)

    def flatten_one_level(self, tree):
        """``(children, aux)``, or None for a leaf (JAX's registry method)."""
        try:
            return _one_level(tree)
        except ValueError:
            return None

    def flatten_one_level_with_keys(self, tree):
        try:
            return flatten_one_level_with_keys(tree)
        except ValueError:
            return None

    def register_node(self, nodetype, flatten_func, unflatten_func,
                      flatten_with_keys_func=None):
        register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)

    def is_node(self, typ):
        return is_tree_node(typ)

    def __repr__(self):
        return "tjit.tree_util.default_registry"


default_registry = _Registry()
