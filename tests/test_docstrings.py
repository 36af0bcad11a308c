"""Every public callable has a docstring; the ones made from NumPy's (tjit/_docs.py) carry
the signature, the differences and an example whose result matches NumPy's."""

import doctest
import importlib
import inspect
import re
import types
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
import tjit.scipy
import tjit.scipy.stats

NAMESPACES = ["tjit", "tjit.numpy", "tjit.numpy.linalg", "tjit.numpy.fft", "tjit.numpy.random",
              "tjit.lax", "tjit.lax.linalg", "tjit.nn", "tjit.nn.initializers", "tjit.random",
              "tjit.scipy.special", "tjit.scipy.stats", "tjit.scipy.linalg",
              "tjit.scipy.optimize", "tjit.scipy.signal", "tjit.scipy.integrate",
              "tjit.scipy.ndimage", "tjit.scipy.fft", "tjit.scipy.sparse.linalg",
              "tjit.image", "tjit.experimental.sparse"] + [
    f"tjit.scipy.stats.{n}" for n in tjit.scipy.stats.__all__
    if isinstance(getattr(tjit.scipy.stats, n), types.ModuleType)]


def _doc(v):
    return (v.__dict__.get("__doc__") if isinstance(v, type) else inspect.getdoc(v)) or ""


@pytest.mark.parametrize("name", NAMESPACES)
def test_every_public_callable_has_a_docstring(name):
    mod = importlib.import_module(name)
    missing = [n for n in mod.__all__ if callable(getattr(mod, n))
               and not isinstance(getattr(mod, n), types.ModuleType)
               and not _doc(getattr(mod, n)).strip()]
    assert not missing, f"{name}: no docstring on {missing}"


GENERATED = sorted(n for n in jnp.__all__ if inspect.isfunction(getattr(jnp, n))
                   and "tjit implementation of :func:`numpy." in (getattr(jnp, n).__doc__ or ""))


def test_some_docstrings_are_generated():
    assert {"floor", "isnan", "logical_and", "finfo"} <= set(GENERATED)


@pytest.mark.parametrize("name", GENERATED)
def test_generated_docstring_has_signature_differences_and_a_numpy_matching_example(name):
    fun = getattr(jnp, name)
    doc = fun.__doc__
    assert doc.split("\n")[0] == f"{fun.__name__}{inspect.signature(fun)}"
    assert "differences:" in doc or "same arguments and result" in doc
    calls = re.findall(r"^\s*>>> (.*)$", doc, re.MULTILINE)
    assert calls, f"jnp.{name}: no example"
    for call in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = eval(call, {"jnp": jnp})
            want = eval(call.replace("jnp.", "np."), {"np": np})
        if isinstance(want, tuple) and not isinstance(got, tjit.Array):
            assert tuple(got) == want
        else:
            np.testing.assert_allclose(np.asarray(got, np.float64 if np.isrealobj(want)
                                                  else np.complex128),
                                       np.asarray(want), rtol=1e-6, equal_nan=True)


def test_own_docstrings_are_kept():
    """The generator leaves functions that have a docstring alone."""
    assert "tjit implementation of" not in jnp.sum.__doc__
    assert "tjit implementation of" not in jnp.matmul.__doc__


def _split(example):
    call, _, shown = example.partition("\n")
    return call.removeprefix(">>> "), shown


@pytest.mark.parametrize("qualname", sorted(__import__("tjit._doc_examples").
                                            _doc_examples.EXAMPLES))
def test_stored_example_matches_numpy_and_prints_as_shown(qualname):
    """tjit/_doc_examples.py (``python -m tjit._docs``): each example's call gives NumPy's
    result, prints as its docstring shows, and is in the function's docstring."""
    from tjit._doc_examples import EXAMPLES
    from tjit._docs import EXAMPLE_ROOTS, example_globals
    call, shown = _split(EXAMPLES[qualname])
    root = qualname.split(".")[0]
    ours, reference = (importlib.import_module(m) for m in EXAMPLE_ROOTS[root])
    if root == "jsp":  # scipy's submodules load on import only
        importlib.import_module("scipy." + qualname.split(".")[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = eval(call, example_globals(root, ours))
        want = eval(call, example_globals(root, reference))  # the same call on NumPy/SciPy
    assert repr(got) == shown, "regenerate tjit/_doc_examples.py: python -m tjit._docs"
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)
    fun = eval(qualname, example_globals(root, ours))
    assert call in fun.__doc__


def test_every_listed_example_call_gives_numpys_result_and_is_stored():
    """tjit/_docs.py's EXAMPLE_CALLS (calls for functions the sample inputs do not fit):
    each was taken, i.e. ran on both libraries with equal results, and is in its docstring."""
    from tjit._doc_examples import EXAMPLES
    from tjit._docs import EXAMPLE_CALLS
    for qualname, call in EXAMPLE_CALLS.items():
        assert EXAMPLES.get(qualname, "").startswith(f">>> {call}\n"), (
            f"{qualname}: not stored; run python -m tjit._docs and see why it was rejected")
        assert f">>> {call}" in eval(qualname, {"jnp": jnp}).__doc__


def _hand_written_examples():
    """(qualname, function) of tjit.numpy's namespaces whose own docstrings show examples
    (generated and stored ones are checked against NumPy above; NumPy's own objects that
    tjit re-exports, like set_printoptions, keep NumPy's docstrings)."""
    from tjit._docs import _STORED_MARK
    seen, found = set(), []
    for modname in ("tjit.numpy", "tjit.numpy.linalg", "tjit.numpy.fft", "tjit.numpy.random"):
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            fun = getattr(mod, name)
            doc = getattr(fun, "__doc__", None) or ""
            if (isinstance(fun, type) or id(fun) in seen or ">>>" not in doc
                    or _STORED_MARK in doc or "tjit implementation of" in doc
                    or (getattr(fun, "__module__", None) or "").startswith("numpy")):
                continue
            seen.add(id(fun))
            found.append((f"{modname}.{name}", fun))
    return found


def test_hand_written_docstring_examples_print_what_they_show():
    """Every ``>>>`` example written into a docstring by hand runs and prints what it
    shows (doctest), so the examples a notebook user copies stay true."""
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    found = _hand_written_examples()
    assert len(found) > 30
    failed = []
    for qualname, fun in found:
        for test in finder.find(fun, qualname, globs={"jnp": jnp, "np": np, "tjit": tjit}):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if runner.run(test, out=lambda _: None).failed:
                    failed.append(qualname)
    assert not failed, f"docstring examples that do not print what they show: {failed}"


@pytest.mark.parametrize("name", ["tjit.numpy", "tjit.numpy.linalg", "tjit.numpy.fft"])
def test_every_function_with_a_numpy_namesake_states_how_it_differs(name):
    """A docstring of a function NumPy also has names NumPy or JAX (its own words, the
    generated "tjit implementation of" line, or the parameter comparison appended at
    import: tjit/_docs.py add_differences_notes)."""
    mod = importlib.import_module(name)
    reference = {"tjit.numpy": np, "tjit.numpy.linalg": np.linalg, "tjit.numpy.fft": np.fft}
    silent = [n for n in mod.__all__ if inspect.isfunction(getattr(mod, n))
              and hasattr(reference[name], n)
              and not re.search(r"numpy|jax", _doc(getattr(mod, n)).split(
                  "Example (its result checked")[0], re.IGNORECASE)]
    assert not silent, f"{name}: docstrings that do not say how they differ from NumPy: {silent}"


def test_the_differences_note_compares_parameters_with_numpys():
    doc = jnp.reshape.__doc__
    assert "NumPy: :func:`numpy.reshape`" in doc and "also takes newshape=" in doc
    assert "numpy.linalg.det`; differences: returns tjit Arrays" in " ".join(
        jnp.linalg.det.__doc__.split())


def _jax_examples():
    from tjit._doc_examples import JAX_EXAMPLES
    return JAX_EXAMPLES


@pytest.mark.parametrize("modname,prefix", __import__("tjit._docs_jax").
                         _docs_jax.NAMESPACES)
def test_every_public_function_of_the_jax_namespaces_shows_an_example(modname, prefix):
    """tjit, lax, random, nn: a public function without an example fails here; add its
    call to tjit/_docs_jax.py CALLS and run python -m tjit._docs."""
    mod = importlib.import_module(modname)
    missing = [n for n in mod.__all__ if callable(getattr(mod, n))
               and not isinstance(getattr(mod, n), (type, types.ModuleType))
               and ">>>" not in (getattr(mod, n).__doc__ or "")]
    assert not missing, f"{modname}: no example in the docstring of {missing}"


@pytest.mark.parametrize("qualname", sorted(_jax_examples()))
def test_jax_namespace_example_matches_its_reference_and_prints_as_shown(qualname):
    """Each stored example of tjit/_docs_jax.py prints what its docstring shows, and,
    where CALLS names a NumPy/SciPy reference, equals it (computed in float64)."""
    from tjit._docs_jax import CALLS, example_globals, reference_value, run_example
    call, shown = _split(_jax_examples()[qualname])
    assert call == CALLS[qualname][0], "regenerate: python -m tjit._docs"
    got, printed = run_example(call)
    assert printed == shown, "regenerate tjit/_doc_examples.py: python -m tjit._docs"
    fun = eval(qualname, example_globals())
    same = [q for q in CALLS if eval(q, example_globals()) is fun]  # aliases share one doc
    assert any(f">>> {CALLS[q][0]}" in fun.__doc__ for q in same)
    if CALLS[qualname][1] is not None:
        want = reference_value(qualname)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w),
                                       rtol=1e-5, atol=1e-6)


def test_jax_namespace_docstrings_state_the_documented_differences_from_jax():
    from tjit._docs_jax import NOTES, example_globals
    for qualname, note in NOTES.items():
        doc = " ".join(eval(qualname, example_globals()).__doc__.split())
        assert note in doc, f"{qualname}: the docstring does not say {note!r}"


def test_the_generator_refuses_an_example_that_disagrees_with_its_reference(monkeypatch):
    import tjit._docs_jax as docs_jax
    monkeypatch.setattr(docs_jax, "CALLS", {"jax.nn.relu": (
        "jax.nn.relu(jnp.asarray([-1.0, 2.0]))", lambda x: np.abs(x))})  # a wrong reference
    with pytest.raises(AssertionError, match="jax.nn.relu"):
        docs_jax.find_examples()


def test_hand_written_examples_of_the_jax_namespaces_print_what_they_show():
    """The ``>>>`` examples written by hand into tjit's, lax's, random's and nn's
    docstrings (not the stored ones, checked above) run and print what they show."""
    from tjit._docs_jax import NAMESPACES, STORED_MARK
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    globs = {"jax": tjit, "tjit": tjit, "jnp": jnp, "np": np, "lax": tjit.lax,
             "jsp": tjit.scipy, "tree_leaves": tjit.tree_leaves,
             "tree_structure": tjit.tree_structure}
    tried, failed = 0, []
    for modname, _ in NAMESPACES:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            fun = getattr(mod, name)
            doc = getattr(fun, "__doc__", None) or ""
            if isinstance(fun, type) or ">>>" not in doc or STORED_MARK in doc:
                continue
            for test in finder.find(fun, f"{modname}.{name}", globs=dict(globs)):
                tried += 1
                if runner.run(test, out=lambda _: None).failed:
                    failed.append(f"{modname}.{name}")
    assert tried >= 10
    assert not failed, f"docstring examples that do not print what they show: {failed}"
