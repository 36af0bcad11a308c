"""The docstrings that ``import tjit.numpy`` makes, kept on disk between processes.

jnp's functions written without a docstring get one made from NumPy's, with an example
run at import (``_docs.fill_missing_docstrings``), and the others a line on how their
parameters differ from NumPy's (``add_differences_notes``, which compares signatures):
~35 ms of CPU, an eighth of ``import tjit``. A function's ``__doc__`` cannot be made on
its first read (CPython keeps it as a plain attribute, which ``help()``, IDEs and Sphinx
read directly), so instead the finished docstrings are stored in tjit's cache folder
(``$TJIT_CACHE_DIR``, ``devices/disk_cache``) and later imports set them from there.

The entry's key holds the tjit, NumPy and Python versions and the path, size and
modification time of every tjit module loaded by then: after an edit, another NumPy or
another install the docstrings are made again (and stored). With the compilation cache
off (``enable_compilation_cache``) or no usable folder they are made every time.
"""

import hashlib
import inspect
import marshal
import os
import sys

import numpy as np

#: Counters for tests: docstring sets made (``make`` called) and set from the cache.
STATS = {"made": 0, "cached": 0}


def fill(namespaces, make):
    """Give the functions of ``namespaces`` the docstrings ``make()`` gives them: from
    the cache when it has this key's entry, else by calling ``make`` (and storing them).

    Args:
      namespaces: ``(prefix, namespace dict)`` pairs (``("jnp", globals())``); a
        namespace's ``__all__`` names its public functions.
      make: sets the docstrings (``_docs.fill_missing_docstrings`` and the like).
    """
    cache = _cache()
    key = _key() if cache is not None else None
    if cache is not None:
        data = cache.get(key)
        if data is not None and _apply(namespaces, data):
            STATS["cached"] += 1
            return
    before = {(p, n): f.__doc__ for p, n, f in _functions(namespaces)}
    make()
    STATS["made"] += 1
    if cache is not None:
        made = [(p, n, f.__doc__) for p, n, f in _functions(namespaces)
                if f.__doc__ != before.get((p, n)) and isinstance(f.__doc__, str)]
        cache.put(key, marshal.dumps(made))


def _functions(namespaces):
    for prefix, ns in namespaces:
        for name in ns.get("__all__", ()):
            fun = ns.get(name)
            if inspect.isfunction(fun):
                yield prefix, name, fun


def _cache():
    """The disk cache, or None while the compilation cache is off."""
    from tjit.config import config
    if not config.enable_compilation_cache:
        return None
    from tjit.devices import disk_cache
    return disk_cache.default_cache()


def _key():
    from tjit import __version__
    h = hashlib.sha256(b"tjit docstrings 1\0")
    h.update(f"{__version__}\0{np.__version__}\0{sys.version}\0".encode())
    paths = [getattr(mod, "__file__", None) if name.split(".")[0] == "tjit" else None
             for name, mod in sorted(sys.modules.copy().items(), key=lambda item: item[0])]
    # what make() reads but a cache hit never imports: the stored examples and their code
    here = os.path.dirname(os.path.abspath(__file__))
    paths += [os.path.join(here, "_doc_examples.py"), os.path.join(here, "_docs.py")]
    for path in paths:
        if path:
            try:
                st = os.stat(path)
            except OSError:
                continue
            h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def _apply(namespaces, data):
    """Set the stored docstrings; False when the entry is not a list of them."""
    try:
        made = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return False
    if not isinstance(made, list) or not all(
            isinstance(m, tuple) and len(m) == 3 and all(isinstance(x, str) for x in m)
            for m in made):
        return False
    by_prefix = dict(namespaces)
    for prefix, name, doc in made:
        fun = by_prefix.get(prefix, {}).get(name)
        if inspect.isfunction(fun):
            fun.__doc__ = doc
    return True
