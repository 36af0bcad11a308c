"""Each public tjit module that mirrors a JAX module lists JAX's names plus only the
tjit-only names in ``INTENDED`` below: no helper imports (``promote``, ``np``,
``tree_flatten``...) in ``dir()`` -- what tab completion shows -- or in ``__all__``.

JAX's names are read from ``tests/jax_public_names.txt`` (no jax import here); rewrite it
with ``/work/jaxvenv/bin/python tests/test_public_names.py --regenerate`` (a Python with
both jax and tjit installed) after a JAX upgrade or when tjit gains a JAX module.
"""

import importlib
import pathlib
import sys

DATA = pathlib.Path(__file__).with_name("jax_public_names.txt")

_ERRORS = "tjit's exception types at the top level as well as in tjit.errors"
_OLD_CORE = "jax.core's name before JAX moved it to jax.extend.core; ported primitive code uses it"
_MPI = "tjit's multi-process runtime (MPI), beyond jax.distributed's initialize/shutdown"
_CHECKIFY = "the error classes checkify's Error holds, for except clauses (JAX: jax._src.checkify)"
_HIJAX = "tjit's gradient accumulators / rule converters for hijax types"
_NP_NAME = "NumPy's name (JAX dropped it); NumPy code ports to jnp unchanged"
_LISTENERS = "the listener registries, to inspect or clear what is registered"

# module -> {tjit-only public name: why it is meant to be public}
INTENDED = {
    "tjit": {
        "ConcretizationTypeError": _ERRORS, "TracerBoolConversionError": _ERRORS,
        "TracerIntegerConversionError": _ERRORS, "UnexpectedTracerError": _ERRORS,
        "ShapeError": _ERRORS, "InconclusiveDimensionError": _ERRORS, "TjitError": _ERRORS,
        "show": "tjit's readable dump of a function's jaxpr and compiled kernels",
        "tree_map": "older JAX's top-level alias of tree_util.tree_map; ported code calls it",
        "tree_leaves": "older JAX's top-level alias of tree_util.tree_leaves",
        "tree_structure": "older JAX's top-level alias of tree_util.tree_structure",
    },
    "tjit.ad_checkpoint": {
        "checkpoint": "older JAX's jax.ad_checkpoint.checkpoint (now jax.checkpoint)",
        "remat": "older JAX's jax.ad_checkpoint.remat (now jax.remat)",
        "saved_residuals": "print_saved_residuals's data as a list, for tests and tools",
    },
    "tjit.core": {n: _OLD_CORE for n in (
        "ClosedJaxpr", "Jaxpr", "JaxprEqn", "Literal", "Primitive", "Var", "get_aval",
        "jaxpr_as_fun")},
    "tjit.distributed": {n: _MPI for n in (
        "DistributedError", "GlobalArray", "MPICommunicator", "global_devices",
        "make_array_from_process_local_data", "process_allgather", "process_count",
        "process_index")},
    "tjit.dlpack": {"SUPPORTED_DTYPES": "older JAX's list of the dtypes DLPack exchanges"},
    "tjit.errors": {"TjitError": "the base class of tjit's errors (catch them all)"},
    "tjit.experimental.checkify": {n: _CHECKIFY for n in (
        "BatchedError", "DivisionByZeroError", "ErrorEffect", "FailedCheckError",
        "JaxException", "NaNError", "OOBError")},
    "tjit.experimental.hijax": {n: _HIJAX for n in (
        "GradAccum", "NullAccum", "RefAccum", "ValAccum", "jvp_from_lin",
        "linearize_from_jvp", "vjp_from_jvp", "vjp_from_lin")},
    "tjit.experimental.sparse": {
        "bcoo_eliminate_zeros": "BCOO's counterpart of bcsr_eliminate_zeros"},
    "tjit.extend.core": {"get_aval": "the aval of a value (jax.core.get_aval's new home)"},
    "tjit.interpreters.batching": {
        "moveaxis": "older JAX's batching helper, used by ported batching rules",
        "not_mapped": "older JAX's marker of an unbatched operand (None)",
    },
    "tjit.interpreters.mlir": {
        "LoweringFunction": "the type of a lowering rule registered with register_lowering"},
    "tjit.lax": {
        "ROUND_AWAY_FROM_ZERO": "lax.round's rounding_method as a plain int",
        "ROUND_TO_NEAREST_EVEN": "lax.round's rounding_method as a plain int",
        "select_and_gather_add": "the windowed primitive behind max-pool gradients",
        "select_and_scatter_add": "the windowed primitive behind max-pool gradients",
        "zeros_like_array": "older JAX's lax.zeros_like_array",
    },
    "tjit.lax.linalg": {"symmetrize": "(x + x^H) / 2, as eigh's symmetrize_input does"},
    "tjit.monitoring": {n: _LISTENERS for n in (
        "get_event_duration_listeners", "get_event_listeners",
        "get_event_time_span_listeners", "get_scalar_listeners")},
    "tjit.nn": {"normalize": "older JAX's name of nn.standardize"},
    "tjit.nn.initializers": {"compute_fans": "the fan-in/fan-out the variance scalings use"},
    "tjit.numpy": {
        "Array": "the array type under jnp as well as tjit.Array",
        "array2string": "NumPy's formatter of an array's values",
        "bitcast_view": "a dtype reinterpretation of an array's bytes (view with a dtype)",
        "fix": _NP_NAME, "half": "NumPy's alias of float16", "in1d": _NP_NAME, "round_": _NP_NAME,
        "row_stack": _NP_NAME, "trapz": _NP_NAME,
        "promote_dtypes": "the dtype promotion of several arrays at once, as jnp does it",
        "random": "NumPy's np.random spelling, over tjit.random's keys",
        "savez_compressed": "NumPy's writer of a compressed .npz",
    },
    "tjit.numpy.linalg": {n: "NumPy's named-tuple result type" for n in (
        "EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult")},
    "tjit.random": {
        "shuffle": "older JAX's random.shuffle (permutation along an axis)",
        "threefry_2x32": "the Threefry-2x32 block function keys are built on",
    },
    "tjit.scipy.optimize": {"line_search": "the BFGS line search, usable on its own"},
    "tjit.scipy.stats": {"ModeResult": "stats.mode's result type, as SciPy's"},
    "tjit.test_util": {"numerical_jvp": "check_grads's finite-difference jvp"},
}


def read_jax_names():
    """{tjit module: (JAX's names, JAX names tjit lacks, recorded)} from the data file."""
    names, missing = {}, {}
    current = None
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line[0].isspace():
            current.extend(line.split())
            continue
        key, _, rest = line.partition(":")
        table = missing if key.startswith("!") else names
        current = table.setdefault(key.lstrip("!"), [])
        current.extend(rest.split())
    return {m: (set(n), set(missing.get(m, ()))) for m, n in names.items()}


def tjit_public_names(module):
    """What a user sees: dir() without _-names, and ``from module import *``."""
    shown = {n for n in dir(module) if not n.startswith("_")}
    return shown | {n for n in getattr(module, "__all__", ()) if not n.startswith("_")}


def test_public_names_are_jax_names_or_intended():
    table = read_jax_names()
    assert set(INTENDED) <= set(table), set(INTENDED) - set(table)
    leaks, lost, stale = {}, {}, {}
    for name, (jax_names, known_missing) in sorted(table.items()):
        module = importlib.import_module(name)
        ours = tjit_public_names(module)
        intended = INTENDED.get(name, {})
        extra = ours - jax_names - set(intended)
        if extra:
            leaks[name] = sorted(extra)
        gone = jax_names - ours - known_missing
        if gone:
            lost[name] = sorted(gone)
        if set(intended) - ours:
            stale[name] = sorted(set(intended) - ours)
    assert not leaks, (
        f"public names JAX does not have (helper imports? import them as _name, or list "
        f"them in __all__ with publish(); or add them to INTENDED with a reason): {leaks}")
    assert not lost, f"JAX names tjit had and lost: {lost}"
    assert not stale, f"INTENDED names the module no longer has: {stale}"


def test_dir_equals_all_where_all_is_defined():
    """A module with ``__all__`` shows exactly it (publish's ``__dir__``), so a helper that
    is kept out of ``__all__`` is kept out of tab completion too."""
    for name in read_jax_names():
        module = importlib.import_module(name)
        if hasattr(module, "__all__"):
            shown = {n for n in dir(module) if not n.startswith("_")}
            listed = {n for n in module.__all__ if not n.startswith("_")}
            assert shown == listed, (name, sorted(shown ^ listed))


# ---- regeneration (needs jax; never run by pytest) ----

_HELPER_ROOTS = {"typing", "typing_extensions", "collections", "functools", "__future__",
                 "itertools", "operator", "contextlib", "dataclasses", "abc", "warnings"}


def _jax_public_names(jax_module, submodules):
    """JAX's public names of ``jax_module``: dir() without _-names, *_p primitives (tjit
    keeps those out of dir too) and JAX's own helper imports (modules that are not
    public jax submodules; typing and functools objects under their own names); plus
    the names its deprecation table still resolves, and its public submodules."""
    import types
    out = set(submodules)
    for n in dir(jax_module):
        if n.startswith("_") or n.endswith("_p"):
            continue
        value = getattr(jax_module, n)
        if isinstance(value, types.ModuleType):
            if n in submodules:
                out.add(n)
            continue
        owner = getattr(value, "__module__", None) or type(value).__module__
        imported = getattr(value, "__name__", None) == n   # (`from typing import Any`)
        if imported and isinstance(owner, str) and owner.split(".")[0] in _HELPER_ROOTS:
            continue
        if type(value).__module__ == "__future__":   # `from __future__ import annotations`
            continue
        out.add(n)
    deprecated = getattr(jax_module, "_deprecations", {})
    out |= {n for n, entry in deprecated.items() if entry[1] is not None}
    return out


def regenerate():
    import pkgutil
    import textwrap
    import warnings

    import jax
    warnings.simplefilter("ignore")
    found = ["jax"] + [
        i.name for i in pkgutil.walk_packages(jax.__path__, "jax.", onerror=lambda n: None)
        if not any(p.startswith("_") for p in i.name.split("."))]
    modules = {}
    for name in found:
        try:
            modules[name] = importlib.import_module(name)
        except Exception:  # a JAX module for hardware this machine lacks
            pass
    lines = [
        f"# JAX {jax.__version__}'s public names per module, for tests/test_public_names.py.",
        "# Generated by: /work/jaxvenv/bin/python tests/test_public_names.py --regenerate",
        "# (dir() of each public jax module tjit also has, less _-names, *_p primitives and",
        "# JAX's own helper imports; plus deprecated names JAX still resolves and public",
        "# submodules.) '!module:' lines: JAX names tjit lacked when this was generated.",
    ]
    for name, module in modules.items():
        tname = "tjit" + name[len("jax"):]
        try:
            tmod = importlib.import_module(tname)
        except ImportError:
            continue
        subs = {c.rsplit(".", 1)[1] for c in modules if c.rpartition(".")[0] == name}
        names = sorted(_jax_public_names(module, subs))
        missing = sorted(set(names) - tjit_public_names(tmod))
        for prefix, group in (("", names), ("!", missing)):
            if group or not prefix:
                lines.append(textwrap.fill(f"{prefix}{tname}: " + " ".join(group), 92,
                                           subsequent_indent="    ", break_on_hyphens=False))
    DATA.write_text("\n".join(lines) + "\n")


if __name__ == "__main__" and "--regenerate" in sys.argv:
    sys.path.remove(str(pathlib.Path(__file__).resolve().parent))  # (tests/numpy is not numpy)
    regenerate()
