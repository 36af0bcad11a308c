"""Docstrings for public functions written without one, as JAX's ``implements`` does:
the signature, the reference library's summary line, a "tjit:" note on what differs,
and an example whose output is computed when the docstring is made.

A namespace calls ``fill_missing_docstrings`` once, at import, for its public names;
functions that have their own docstring are left alone.
"""

import inspect
import re
import textwrap
import warnings

import numpy as np

# the reference's parameters that tjit never takes: arrays are immutable, and JAX's
# functions take no out=/where= either
_IMMUTABLE_NOTE = {"out": "out= (arrays are immutable; use the return value)",
                   "where": "where=", "casting": "casting=", "order": "order=",
                   "subok": "subok=", "signature": "signature=", "extobj": "extobj="}
# samples are made with ``jnp`` (tjit.numpy beside tjit's functions, numpy beside the
# reference's), so they read the same in every namespace's examples
_FLOAT_SAMPLE = "jnp.asarray([-1.5, 0.0, 2.5])"
_INT_SAMPLE = "jnp.asarray([1, 2, 6])"
_MATRIX_SAMPLE = "jnp.asarray([[2.0, 1.0], [1.0, 3.0]])"
# tried in order; a result without NaN is preferred (acos, log, ... outside their domain)
_SAMPLES = (_FLOAT_SAMPLE, "jnp.asarray([0.25, 0.5, 0.75])", "jnp.asarray([1.5, 2.0, 3.0])",
            _INT_SAMPLE, _MATRIX_SAMPLE)


def _summary(ref):
    """The first paragraph of ``ref``'s docstring that is not a signature line."""
    doc = inspect.getdoc(ref) or ""
    for para in re.split(r"\n\s*\n", doc):
        text = " ".join(para.split())
        if text and not re.match(r"^[\w.]+\(.*\)$", text):
            return text
    return ""


def _reference_params(ref):
    try:
        return list(inspect.signature(ref).parameters)
    except (TypeError, ValueError):  # ufuncs: names from the documented signature line
        first = (inspect.getdoc(ref) or "").split("\n")[0]
        return re.findall(r"(\w+)=", first) + (["signature"] if "signature" in first else [])


def _params(fun):
    try:
        return list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return []


def example_globals(root, module):
    """The names an example sees: ``root`` bound to ``module`` and ``jnp`` to tjit.numpy,
    or to numpy when ``module`` is the reference (numpy, scipy)."""
    import importlib
    tjit_side = (getattr(module, "__name__", "") or "").startswith("tjit")
    return {"jnp": importlib.import_module("tjit.numpy") if tjit_side else np, root: module}


def _run(text, root, module):
    """``text`` evaluated with ``root`` bound to ``module``; (True, value) or (False, None)
    when it raises (this sample does not fit the function)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return True, eval(text, example_globals(root, module))  # our own fixed text
    except Exception:  # noqa: BLE001
        return False, None


def _same(got, want):
    """Whether a tjit result matches the reference library's (values and shapes)."""
    if isinstance(want, tuple):  # JAX gives lists where NumPy 2 gives tuples (meshgrid)
        return (isinstance(got, (tuple, list)) and len(got) == len(want)
                and all(_same(g, w) for g, w in zip(got, want)))
    try:
        g, w = np.asarray(got), np.asarray(want)
        return g.shape == w.shape and bool(np.allclose(g, w, rtol=1e-5, atol=1e-6,
                                                       equal_nan=True))
    except (TypeError, ValueError):
        return False


def _example(fun, name, prefix, namespace, expression=None, reference=None):
    """(``>>> call`` and its printed result, the value), or ("", None) when no sample
    input fits; with a ``reference`` module (bound to the same root name), only a call
    whose result equals the reference's is taken."""
    root = prefix.split(".")[0]
    if expression is None:
        positional = [p for p in _params(fun) if p.default is p.empty
                      and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(positional) not in (1, 2):
            return "", None
        candidates = [f"{prefix}.{name}({', '.join([s] * len(positional))})"
                      for s in _SAMPLES]
    else:
        candidates = [expression]
    fallback = "", None
    for text in candidates:
        text = text.format(p=root)
        ok, value = _run(text, root, namespace)
        if not ok or type(value).__name__ == "function":
            continue
        if reference is not None:
            ok, want = _run(text, root, reference)
            if not ok or not _same(value, want):
                continue
        if not _has_nan(value):
            return f">>> {text}\n{value!r}", value
        fallback = fallback if fallback[0] else (f">>> {text}\n{value!r}", value)
    return fallback


def _has_nan(value):
    try:
        return bool(np.isnan(np.asarray(value, dtype=complex)).any())
    except (TypeError, ValueError):
        return False


def numpy_style_docstring(fun, name, reference, ref_name, prefix, namespace,
                          expression=None, note=""):
    """A docstring for ``fun`` (public as ``prefix.name``) from ``reference``'s."""
    try:
        sig = f"{name}{inspect.signature(fun)}"
    except (TypeError, ValueError):
        sig = name
    ours = {p.name for p in _params(fun)}
    n_positional = sum(p.kind is not p.KEYWORD_ONLY and p.default is p.empty
                       for p in _params(fun))  # named differently maybe (x vs val): skip
    dropped = [_IMMUTABLE_NOTE.get(p, f"{p}=") for p in _reference_params(reference)
               [n_positional:] if p not in ours and p not in ("args", "kwargs")]
    example, value = _example(fun, name, prefix, namespace, expression)
    diffs = []
    if type(value).__name__ == "Array":
        diffs.append("returns a tjit Array (immutable; traced under jit/grad/vmap)")
    if dropped:
        diffs.append("does not take " + ", ".join(dropped))
    if note:
        diffs.append(note)
    lines = [sig, "", _summary(reference) or f"tjit's version of {ref_name}.", "",
             f"tjit implementation of :func:`{ref_name}`; "
             + (f"differences: {'; '.join(diffs)}." if diffs else "same arguments and result.")]
    if example:
        lines += ["", "Example::", ""] + ["    " + ln for ln in example.split("\n")]
    return "\n".join(lines)


def fill_missing_docstrings(namespace, names, reference, ref_prefix, prefix, module,
                            examples=None, notes=None):
    """Give each function ``namespace[name]`` without a docstring one made from
    ``reference.name``'s (``examples``/``notes``: per-name expression and extra note)."""
    examples, notes = examples or {}, notes or {}
    for name in names:
        fun = namespace.get(name)
        if not inspect.isfunction(fun) or (fun.__doc__ or "").strip():
            continue    # (before getattr: numpy.random would be imported for jnp.random)
        ref = getattr(reference, name, None)
        if ref is None:
            continue
        if namespace.get(fun.__name__) is fun and hasattr(reference, fun.__name__):
            name, ref = fun.__name__, getattr(reference, fun.__name__)  # aliases: its own
        fun.__doc__ = numpy_style_docstring(
            fun, name, ref, f"{ref_prefix}.{name}", prefix, module,
            examples.get(name), notes.get(name, ""))


def _differences(fun, reference):
    """How ``fun``'s parameters differ from ``reference``'s, as phrases (leading
    positional parameters are compared by position: NumPy's ``a`` may be tjit's ``x``)."""
    ours = _params(fun)
    names = {p.name for p in ours}
    n_positional = sum(p.kind is not p.KEYWORD_ONLY and p.default is p.empty for p in ours)
    theirs = _reference_params(reference)
    dropped = [_IMMUTABLE_NOTE.get(p, f"{p}=") for p in theirs[n_positional:]
               if p not in names and p not in ("args", "kwargs")]
    added = [f"{p.name}=" for p in ours[n_positional:] if p.name not in theirs
             and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    out = []
    if dropped:
        out.append("does not take " + ", ".join(dropped))
    if added:
        out.append("also takes " + ", ".join(added))
    return out


def add_differences_notes(namespace, names, reference, ref_prefix):
    """Append a line naming the NumPy function and how the parameters differ to each
    function ``namespace[name]`` whose own docstring does not mention NumPy or JAX."""
    for name in names:
        fun = namespace.get(name)
        if not inspect.isfunction(fun):
            continue    # (before getattr: no numpy submodule imported for a module of ours)
        ref, doc = getattr(reference, name, None), fun.__doc__ or ""
        if (ref is None or not doc.strip()
                or re.search(r"numpy|jax", doc.split(_STORED_MARK)[0], re.IGNORECASE)):
            continue
        diffs = ["returns tjit Arrays (immutable; traced under jit/grad/vmap)"]
        diffs += _differences(fun, ref)
        body, mark, example = inspect.cleandoc(doc).partition(_STORED_MARK.strip("\n"))
        note = textwrap.fill(f"NumPy: :func:`{ref_prefix}.{name}`; differences: "
                             f"{'; '.join(diffs)}.", 84)
        fun.__doc__ = body.rstrip() + "\n\n" + note + (("\n\n" + mark + example)
                                                       if mark else "")


# example roots: the name examples call through -> (tjit's module, the reference's)
EXAMPLE_ROOTS = {"jnp": ("tjit.numpy", "numpy"), "jsp": ("tjit.scipy", "scipy")}


def add_module_examples(namespace):
    """Append the stored examples (``_doc_examples.EXAMPLES``) to the functions of the
    tjit.scipy module whose globals are ``namespace`` (``jsp.special.erf`` for
    tjit.scipy.special's ``erf``). Each such module calls it last, so that its examples
    are there however it was imported (tjit.scipy loads its submodules on first use)."""
    from tjit._doc_examples import EXAMPLES
    prefix = "jsp" + namespace["__name__"][len("tjit.scipy"):]   # tjit.scipy.x -> jsp.x
    add_stored_examples(namespace, namespace["__all__"], prefix, EXAMPLES)


def scipy_example_namespaces():
    """(namespace, prefix) of tjit.scipy.special, .linalg and each .stats distribution,
    checked against SciPy's (``jsp`` is ``tjit.scipy`` here and ``scipy`` there)."""
    import importlib
    stats = importlib.import_module("tjit.scipy.stats")
    dists = [n for n in stats.__all__ if inspect.ismodule(getattr(stats, n))]
    return (("tjit.scipy.special", "jsp.special"), ("tjit.scipy.linalg", "jsp.linalg")) + tuple(
        (f"tjit.scipy.stats.{n}", f"jsp.stats.{n}") for n in dists)


# (namespace, prefix) pairs whose documented functions get stored examples
EXAMPLE_NAMESPACES = (("tjit.numpy", "jnp"), ("tjit.numpy.linalg", "jnp.linalg"),
                      ("tjit.numpy.fft", "jnp.fft"))


_STORED_MARK = "\n\nExample (its result checked against NumPy's)::\n\n"

# calls for functions the sample inputs do not fit (sizes, shapes, axes, index lists...);
# each must run unchanged on NumPy (jnp bound to numpy) and give the same result there
EXAMPLE_CALLS = {
    "jnp.apply_along_axis": "jnp.apply_along_axis(jnp.sum, 1, jnp.arange(6).reshape(2, 3))",
    "jnp.apply_over_axes": "jnp.apply_over_axes(jnp.sum, jnp.arange(6).reshape(2, 3), [0])",
    "jnp.arange": "jnp.arange(1, 7, 2)",
    "jnp.argpartition": "jnp.argpartition(jnp.asarray([3, 1, 2]), 1)",
    "jnp.array_split": "jnp.array_split(jnp.arange(6), 3)",
    "jnp.astype": "jnp.astype(jnp.asarray([1.7, -2.2]), jnp.int32)",
    "jnp.lexsort": "jnp.lexsort((jnp.asarray([3, 1, 2, 1]), jnp.asarray([1, 2, 1, 1])))",
    "jnp.atleast_1d": "jnp.atleast_1d(3.0)",
    "jnp.atleast_2d": "jnp.atleast_2d(jnp.asarray([1, 2]))",
    "jnp.atleast_3d": "jnp.atleast_3d(jnp.asarray([1, 2]))",
    "jnp.bartlett": "jnp.bartlett(5)", "jnp.blackman": "jnp.blackman(5)",
    "jnp.hamming": "jnp.hamming(5)", "jnp.hanning": "jnp.hanning(5)",
    "jnp.kaiser": "jnp.kaiser(4, 5.0)",
    "jnp.broadcast_arrays": "jnp.broadcast_arrays(jnp.asarray([1, 2]), jnp.asarray([[3], [4]]))",
    "jnp.broadcast_shapes": "jnp.broadcast_shapes((2, 1), (3,))",
    "jnp.broadcast_to": "jnp.broadcast_to(jnp.asarray([1, 2]), (2, 2))",
    "jnp.choose": "jnp.choose(jnp.asarray([0, 1, 0]), "
                  "[jnp.asarray([1, 2, 3]), jnp.asarray([4, 5, 6])])",
    "jnp.clip": "jnp.clip(jnp.asarray([-2, 0, 5]), 0, 3)",
    "jnp.delete": "jnp.delete(jnp.arange(5), 1)",
    "jnp.diag_indices": "jnp.diag_indices(2)",
    "jnp.dsplit": "jnp.dsplit(jnp.arange(8).reshape(1, 2, 4), 2)",
    "jnp.einsum": "jnp.einsum('ij,j->i', jnp.asarray([[1, 2], [3, 4]]), jnp.asarray([1, 1]))",
    "jnp.empty": "jnp.empty((0, 2))", "jnp.empty_like": "jnp.empty_like(jnp.ones((2, 0)))",
    "jnp.expand_dims": "jnp.expand_dims(jnp.asarray([1, 2]), 0)",
    "jnp.eye": "jnp.eye(2, 3, k=1)",
    "jnp.frombuffer": "jnp.frombuffer(b'\\x01\\x02\\x03', dtype=jnp.uint8)",
    "jnp.fromfunction": "jnp.fromfunction(lambda i, j: i + j, (2, 3))",
    "jnp.fromstring": "jnp.fromstring('1 2 3', dtype=jnp.int32, sep=' ')",
    "jnp.full": "jnp.full((2, 2), 7)",
    "jnp.hsplit": "jnp.hsplit(jnp.arange(4).reshape(2, 2), 2)",
    "jnp.vsplit": "jnp.vsplit(jnp.arange(4).reshape(2, 2), 2)",
    "jnp.split": "jnp.split(jnp.arange(6), 3)",
    "jnp.identity": "jnp.identity(2)",
    "jnp.insert": "jnp.insert(jnp.arange(4), 1, 9)",
    "jnp.interp": "jnp.interp(jnp.asarray([0.5, 1.5]), jnp.asarray([0.0, 1.0, 2.0]), "
                  "jnp.asarray([0.0, 10.0, 20.0]))",
    "jnp.isdtype": "jnp.isdtype(jnp.float32, 'real floating')",
    "jnp.isscalar": "jnp.isscalar(3.0), jnp.isscalar(jnp.ones(2))",
    "jnp.issubdtype": "jnp.issubdtype(jnp.int32, jnp.integer)",
    "jnp.ix_": "jnp.ix_(jnp.asarray([0, 1]), jnp.asarray([2, 3]))",
    "jnp.mask_indices": "jnp.mask_indices(3, jnp.triu)",
    "jnp.meshgrid": "jnp.meshgrid(jnp.asarray([1, 2]), jnp.asarray([3, 4, 5]))",
    "jnp.moveaxis": "jnp.moveaxis(jnp.arange(6).reshape(2, 3), 0, 1)",
    "jnp.pad": "jnp.pad(jnp.asarray([1, 2]), 1)",
    "jnp.partition": "jnp.partition(jnp.asarray([3, 1, 2]), 1)",
    "jnp.permute_dims": "jnp.permute_dims(jnp.arange(6).reshape(2, 3), (1, 0))",
    "jnp.piecewise": "jnp.piecewise(jnp.asarray([-1.0, 2.0]), [jnp.asarray([True, False]), "
                     "jnp.asarray([False, True])], [-1.0, 1.0])",
    "jnp.polyfit": "jnp.polyfit(jnp.asarray([0.0, 1.0, 2.0]), jnp.asarray([1.0, 3.0, 5.0]), 1)",
    "jnp.take": "jnp.take(jnp.asarray([4, 5, 6]), jnp.asarray([0, 2]))",
    "jnp.take_along_axis": "jnp.take_along_axis(jnp.asarray([[3, 1], [2, 4]]), "
                           "jnp.asarray([[1], [0]]), axis=1)",
    "jnp.ravel_multi_index": "jnp.ravel_multi_index((jnp.asarray([0, 1]), "
                             "jnp.asarray([2, 0])), (2, 3))",
    "jnp.reshape": "jnp.reshape(jnp.arange(6), (2, 3))",
    "jnp.rollaxis": "jnp.rollaxis(jnp.arange(6).reshape(2, 3), 1)",
    "jnp.select": "jnp.select([jnp.asarray([True, False]), jnp.asarray([False, True])], "
                  "[jnp.asarray([1, 2]), jnp.asarray([3, 4])])",
    "jnp.swapaxes": "jnp.swapaxes(jnp.arange(6).reshape(2, 3), 0, 1)",
    "jnp.tri": "jnp.tri(3, 2)",
    "jnp.tril_indices": "jnp.tril_indices(2)", "jnp.triu_indices": "jnp.triu_indices(2)",
    "jnp.linalg.matrix_power": "jnp.linalg.matrix_power(jnp.asarray([[1, 1], [0, 1]]), 3)",
    "jnp.linalg.lstsq": "jnp.linalg.lstsq(jnp.asarray([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]), "
                        "jnp.asarray([1.0, 4.0, 0.0]))[0]",
    "jnp.linalg.tensorsolve": "jnp.linalg.tensorsolve(jnp.eye(4).reshape(2, 2, 2, 2) * 2, "
                              "jnp.ones((2, 2)))",
    "jnp.linalg.tensorinv": "jnp.linalg.tensorinv(jnp.eye(2) * 2, ind=1)",
    "jnp.fft.fftfreq": "jnp.fft.fftfreq(4)", "jnp.fft.rfftfreq": "jnp.fft.rfftfreq(4)",
}


def find_examples():
    """{"jnp.name": example} for the documented functions of ``EXAMPLE_NAMESPACES``
    without one: a call on a small sample whose result equals the same call in NumPy.
    Slow (seconds: it runs every candidate), so ``python -m tjit._docs`` stores the
    result in ``tjit/_doc_examples.py`` and imports only read it."""
    import importlib
    found, seen = {}, set()
    for modname, prefix in EXAMPLE_NAMESPACES + scipy_example_namespaces():
        mod = importlib.import_module(modname)
        ours, reference = EXAMPLE_ROOTS[prefix.split(".")[0]]
        ours, reference = importlib.import_module(ours), importlib.import_module(reference)
        if prefix.startswith("jsp."):  # scipy's submodules load on import only
            importlib.import_module("scipy." + prefix.split(".", 1)[1].split(".")[0])
        for name in mod.__all__:
            fun = getattr(mod, name)
            doc = (getattr(fun, "__doc__", None) or "").split(_STORED_MARK)[0]
            if (not inspect.isfunction(fun) or not doc.strip() or ">>>" in doc
                    or id(fun) in seen):  # an alias (arccos of acos) shares one docstring
                continue
            seen.add(id(fun))
            example, _ = _example(fun, name, prefix, ours, reference=reference,
                                  expression=EXAMPLE_CALLS.get(f"{prefix}.{name}"))
            if example:
                found[f"{prefix}.{name}"] = example
    return found


def add_stored_examples(namespace, names, prefix, stored):
    """Append ``stored[prefix.name]`` (see ``find_examples``) to the docstring of each
    function ``namespace[name]`` that has a docstring but no example."""
    for name in names:
        fun = namespace.get(name)
        example = stored.get(f"{prefix}.{name}")
        doc = getattr(fun, "__doc__", None) or ""
        if example is None or not inspect.isfunction(fun) or ">>>" in doc:
            continue
        fun.__doc__ = (inspect.cleandoc(doc) + _STORED_MARK
                       + "\n".join("    " + ln for ln in example.split("\n")))


if __name__ == "__main__":  # python -m tjit._docs: regenerate tjit/_doc_examples.py
    import os
    import pprint

    from tjit._docs_jax import find_examples as find_jax_examples
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_doc_examples.py")
    numpy_examples, jax_examples = find_examples(), find_jax_examples()  # before writing
    with open(path, "w") as f:
        f.write('"""Examples for docstrings that have none, made by ``python -m tjit._docs`` '
                '(each a call\non a small sample whose result equals NumPy\'s; '
                'tests/test_docstrings.py re-checks them)."""\n\n')
        f.write("EXAMPLES = " + pprint.pformat(numpy_examples, width=100) + "\n")
        f.write("\n# tjit, lax, random, nn: written as JAX code (tjit/_docs_jax.py)\n")
        f.write("JAX_EXAMPLES = " + pprint.pformat(jax_examples, width=100) + "\n")
