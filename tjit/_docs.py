"""Docstrings for public functions written without one, as JAX's ``implements`` does:
the signature, the reference library's summary line, a "tjit:" note on what differs,
and an example whose output is computed when the docstring is made.

A namespace calls ``fill_missing_docstrings`` once, at import, for its public names;
functions that have their own docstring are left alone.
"""

import inspect
import re
import warnings

# the reference's parameters that tjit never takes: arrays are immutable, and JAX's
# functions take no out=/where= either
_IMMUTABLE_NOTE = {"out": "out= (arrays are immutable; use the return value)",
                   "where": "where=", "casting": "casting=", "order": "order=",
                   "subok": "subok=", "signature": "signature=", "extobj": "extobj="}
_FLOAT_SAMPLE = "{p}.asarray([-1.5, 0.0, 2.5])"
_INT_SAMPLE = "{p}.asarray([1, 2, 6])"


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


def _example(fun, name, prefix, namespace, expression=None):
    """(``>>> call`` and its printed result, the value), or ("", None) when no sample
    input fits."""
    if expression is None:
        positional = [p for p in _params(fun) if p.default is p.empty
                      and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(positional) not in (1, 2):
            return "", None
        candidates = [f"{prefix}.{name}({', '.join([s] * len(positional))})"
                      for s in (_FLOAT_SAMPLE, _INT_SAMPLE)]
    else:
        candidates = [expression]
    for text in candidates:
        text = text.format(p=prefix)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = eval(text, {prefix: namespace})  # our own fixed text
        except Exception:  # noqa: BLE001, S112 (this sample does not fit: try the next)
            continue
        return f">>> {text}\n{value!r}", value
    return "", None


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
        ref = getattr(reference, name, None)
        if not inspect.isfunction(fun) or (fun.__doc__ or "").strip() or ref is None:
            continue
        if namespace.get(fun.__name__) is fun and hasattr(reference, fun.__name__):
            name, ref = fun.__name__, getattr(reference, fun.__name__)  # aliases: its own
        fun.__doc__ = numpy_style_docstring(
            fun, name, ref, f"{ref_prefix}.{name}", prefix, module,
            examples.get(name), notes.get(name, ""))
