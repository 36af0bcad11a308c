"""Follow-ups: errors for traced or non-integer static ints (one shared check, and a scan of
the source for the patterns that bypassed it), quantiles over an empty axis, mgrid/ogrid
with 0j steps, reshape/ravel order='A', set-operation errors naming the public function,
and one cache of byte tables for narrow dtypes."""

import ast
import pathlib
import warnings

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, nn, random
from tjit.experimental import sparse
from tjit._sympy import sympy
from tjit.primitives import base, elementwise
from tjit.scipy import linalg as jsp_linalg
from tjit.scipy import special as jsp_special
from tjit.tracing.errors import ConcretizationTypeError, static_index

TJIT = pathlib.Path(tjit.__file__).parent
KEY = random.PRNGKey(0)
X3 = jnp.ones(3)
M22 = jnp.ones((2, 2))


# -- 1. a traced value where a static int is needed names the op and the argument ----------
# (split, scan, integer_pow, tensordot and one_hot printed the tracer object instead)
TRACED = [
    ("split", "num", lambda n: random.split(KEY, num=n)),
    ("lax.scan", "length", lambda n: lax.scan(lambda c, x: (c, c), 0.0, None, length=n)),
    ("lax.scan", "unroll", lambda n: lax.scan(lambda c, x: (c, x), 0.0, X3, unroll=n)),
    ("lax.map", "batch_size", lambda n: lax.map(lambda x: x, X3, batch_size=n)),
    ("integer_pow", "exponent", lambda n: lax.integer_pow(2.0, n)),
    ("tensordot", "axes", lambda n: jnp.tensordot(M22, M22, axes=n)),
    ("one_hot", "num_classes", lambda n: nn.one_hot(jnp.zeros(3, jnp.int32), n)),
    ("softmax", "axis", lambda n: nn.softmax(M22, axis=n)),
    ("ball", "d", lambda n: random.ball(KEY, n)),
    ("slice_in_dim", "start_index", lambda n: lax.slice_in_dim(X3, n, 2)),
    ("index_in_dim", "index", lambda n: lax.index_in_dim(X3, n)),
    ("jnp.union1d", "size", lambda n: jnp.union1d(X3, X3, size=n)),
    ("roll", "axis", lambda n: jnp.roll(X3, 1, axis=n)),
]


@pytest.mark.parametrize("op,arg,f", TRACED, ids=[f"{o}-{a}" for o, a, _ in TRACED])
def test_traced_static_int_names_op_and_argument(op, arg, f):
    with pytest.raises(ConcretizationTypeError) as info:
        tjit.jit(f)(1)
    msg = str(info.value)
    assert op in msg and arg in msg, msg
    assert "Tracer(" not in msg, msg   # the tracer's repr is no explanation
    assert isinstance(info.value, TypeError)   # as JAX's ConcretizationTypeError


# -- 6. a non-integer static int: TypeError naming the operation (was Python's bare
# "'float' object cannot be interpreted as an integer")
NON_INT = [
    ("split", lambda: random.split(KEY, num=1.5)),
    ("integer_pow", lambda: lax.integer_pow(2.0, 2.0)),
    ("one_hot", lambda: nn.one_hot(jnp.zeros(3, jnp.int32), 2.5)),
    ("roll", lambda: jnp.roll(X3, 1.5)),
    ("jnp.tril_indices", lambda: jnp.tril_indices(3, 1.5)),
    ("jnp.nonzero", lambda: jnp.nonzero(X3, size=2.5)),
    ("lax.broadcast_shapes", lambda: lax.broadcast_shapes((2.0,), (1,))),
    ("multigammaln", lambda: jsp_special.multigammaln(2.0, 2.5)),
    ("hadamard", lambda: jsp_linalg.hadamard(2.0)),
    ("sparse.eye", lambda: sparse.eye(2.5)),
    ("bcoo_transpose", lambda: sparse.bcoo_transpose(sparse.eye(2), permutation=(1.0, 0))),
    ("pad", lambda: jnp.pad(X3, ((1, 1.5),))),
    ("split", lambda: jnp.split(jnp.ones(4), [1, 2.5])),
    ("jnp.hanning", lambda: jnp.hanning(3.5)),
    ("jnp.union1d", lambda: jnp.union1d(X3, X3, size=1.5)),
]


@pytest.mark.parametrize("op,f", NON_INT, ids=[o for o, _ in NON_INT])
def test_non_integer_static_int_names_the_operation(op, f):
    with pytest.raises(TypeError) as info:
        f()
    assert op in str(info.value), str(info.value)


def test_static_index_accepts_integer_likes_and_symbolic_dims_only_when_asked():
    assert static_index(np.int64(3), "n", "op") == 3
    assert static_index(jnp.asarray(4), "n", "op") == 4
    with pytest.raises(TypeError, match=r"^op: n must be an integer, got 1.5$"):
        static_index(1.5, "n", "op")
    b = sympy.Symbol("b", integer=True, positive=True)
    with pytest.raises(TypeError, match=r"^op: n must be an integer, got b$"):
        static_index(b, "n", "op")
    assert static_index(2 * (b + 1) - 2 * b, "n", "op", dims=True) == 2   # canonical int
    assert static_index(b - 1, "n", "op", dims=True) == b - 1
    sym = tjit.jit(lambda x: lax.slice_in_dim(x, 0, x.shape[0]), polymorphic_shapes=["(b,)"])
    np.testing.assert_array_equal(sym(np.arange(5.0)), np.arange(5.0))


# The mechanism behind both classes: ``operator.index`` inside ``try: ... except
# TypeError`` also catches the ConcretizationTypeError of a tracer (a TypeError, as JAX's)
# and replaces it with a message about types; and a bare ``operator.index`` on a user
# argument raises Python's message, which names no operation. Both go through
# tracing.errors.static_index (or static_ints) now.
# Exemptions are checked, not trusted: a predicate's TypeError handler must answer "no"
# (return False or None) and nothing else. (shapes.axis_tuple was listed here as a
# predicate while its handler fell through with a tracer: the list hid it.)
PREDICATES = {   # (file, function): operator.index as a test, never an error to the user
    ("numpy/_shape.py", "_is_int_like"), ("tracing/argnums.py", "is_index"),
    ("tracing/size_rounding.py", "_operand"),
}
TRACER_REFUSED_BEFORE = {   # (file, function): a tracer is refused just above the call
    ("numpy/_indexing.py", "_static_bound"),
}
PUBLIC_SURFACE = ("numpy", "lax", "nn", "random", "scipy", "experimental")


def _index_calls(tree):
    """(node, enclosing function name, enclosing Try nodes) of operator.index calls."""
    out = []

    def visit(node, fn, tries):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "index" and getattr(node.func.value, "id", "") == "operator":
            out.append((node, fn, tries))
        for child in ast.iter_child_nodes(node):
            visit(child, child.name if isinstance(child, (ast.FunctionDef,
                                                          ast.AsyncFunctionDef)) else fn,
                  tries + (node,) if isinstance(node, ast.Try) and child in node.body
                  else tries)

    visit(tree, "<module>", ())
    return out


def _handler_names(handler):
    t = handler.type
    elts = t.elts if isinstance(t, ast.Tuple) else [t]
    return {getattr(e, "id", getattr(e, "attr", "*")) for e in elts if e is not None} or {"*"}


def _swallows_tracer_error(try_node):
    for h in try_node.handlers:
        names = _handler_names(h)
        if names & {"ConcretizationTypeError", "TracerIntegerConversionError"}:
            return False
        if names & {"TypeError", "Exception", "*"}:
            return True
    return False


def _answers_no(try_node):
    """Whether every TypeError handler of ``try_node`` only returns False or None."""
    return all(len(h.body) == 1 and isinstance(h.body[0], ast.Return)
               and isinstance(h.body[0].value, ast.Constant)
               and h.body[0].value.value in (False, None)
               for h in try_node.handlers if _handler_names(h) & {"TypeError", "*"})


def _bypasses(rel, source):
    found = []
    for call, fn, tries in _index_calls(ast.parse(source)):
        if (rel, fn) in TRACER_REFUSED_BEFORE or \
                ((rel, fn) in PREDICATES and tries and all(map(_answers_no, tries))):
            continue
        if any(_swallows_tracer_error(t) for t in tries):
            found.append(f"{rel}:{call.lineno} ({fn}): except TypeError hides a tracer")
        elif rel.split("/")[0] in PUBLIC_SURFACE and not tries:
            found.append(f"{rel}:{call.lineno} ({fn}): bare operator.index on an argument")
    return found


def test_the_bypass_scan_finds_both_patterns():
    hidden = ("def f(n):\n    try:\n        n = operator.index(n)\n"
              "    except TypeError:\n        raise TypeError('f: n must be an int')\n")
    handled = hidden.replace("    except TypeError", "    except ConcretizationTypeError:\n"
                             "        raise\n    except TypeError")
    bare = "def g(n):\n    return operator.index(n)\n"
    assert len(_bypasses("tracing/x.py", hidden)) == 1
    assert not _bypasses("tracing/x.py", handled)
    assert len(_bypasses("numpy/x.py", bare)) == 1 and not _bypasses("tracing/x.py", bare)
    # a listed predicate must answer "no" in its handler: one that falls through is flagged
    predicate = ("def is_index(n):\n    try:\n        operator.index(n)\n        return True\n"
                 "    except TypeError:\n        return False\n")
    assert not _bypasses("tracing/argnums.py", predicate)
    assert len(_bypasses("tracing/argnums.py", predicate.replace("return False", "pass"))) == 1


def test_the_scan_exemptions_exist():
    # a stale entry (a renamed or moved function) would exempt nothing, silently
    for rel, fn in PREDICATES | TRACER_REFUSED_BEFORE:
        calls = _index_calls(ast.parse((TJIT / rel).read_text()))
        assert any(f == fn for _, f, _ in calls), (rel, fn)


def test_no_operator_index_bypasses_the_shared_static_int_check():
    found = []
    for path in sorted(TJIT.rglob("*.py")):
        rel = path.relative_to(TJIT).as_posix()
        if rel != "tracing/errors.py":
            found += _bypasses(rel, path.read_text())
    assert not found, "use tracing.errors.static_index:\n" + "\n".join(found)


def test_static_index_is_defined_once():
    from tjit.primitives import slicing
    assert not hasattr(slicing, "static_index")


def test_shape_entries_are_checked_as_static_indices():
    # shapes.canonical_dim was a second copy of static_index(dims=True) (and
    # slicing.simplify_dim of its symbolic branch): one answer and one error for each
    from tjit.tracing.shapes import canonical_dim, symbol
    b = symbol("b")
    for d in (3, np.int64(3), np.uint8(3), 2 * (b + 1) - 2 * b, (b + 1) * (b - 1), b):
        got, want = canonical_dim(d, "op"), static_index(d, "shape", "op", dims=True)
        assert got == want and type(got) is type(want), (d, got, want)
    assert type(canonical_dim(np.int64(3))) is int and canonical_dim(b + 2 - b) == 2
    assert canonical_dim((b + 1) * (b - 1)) == b ** 2 - 1       # expanded, as slices'
    for bad in (2.5, "3", None):
        with pytest.raises(TypeError, match="op: shape must be an integer") as e1:
            canonical_dim(bad, "op")
        with pytest.raises(TypeError) as e2:
            static_index(bad, "shape", "op", dims=True)
        assert str(e1.value) == str(e2.value)
    with pytest.raises(ConcretizationTypeError, match="zeros: its shape argument"):
        tjit.jit(lambda n: jnp.zeros((2, n)))(3)


# -- 2. quantiles over an empty axis: NaN for every name and method ---------------------------
# NumPy: NaN for median and the nan* names, IndexError for quantile/percentile; JAX 0.10:
# an internal gather error for all. tjit: NaN throughout (the documented NumPy convention).
@pytest.mark.parametrize("name,q", [("quantile", 0.5), ("percentile", 50.0), ("median", None),
                                    ("nanquantile", 0.5), ("nanpercentile", 50.0),
                                    ("nanmedian", None)])
@pytest.mark.parametrize("axis", [0, None])
def test_quantiles_of_an_empty_axis_are_nan(name, q, axis):
    x = np.ones((0, 3), np.float32)
    args = (x,) if q is None else (x, q)
    got = getattr(jnp, name)(*args, axis=axis)
    jitted = tjit.jit(lambda a: getattr(jnp, name)(*((a,) if q is None else (a, q)),
                                                  axis=axis))(x)
    want_shape = (3,) if axis == 0 else ()
    if name in ("median", "nanquantile", "nanpercentile", "nanmedian"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want_shape = np.shape(getattr(np, name)(*args, axis=axis))
    for r in (got, jitted):
        assert r.shape == want_shape and r.dtype == np.float32
        assert np.isnan(np.asarray(r)).all()


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest",
                                    "inverted_cdf", "hazen", "weibull",
                                    "closest_observation", "median_unbiased"])
def test_every_quantile_method_gives_nan_on_an_empty_axis(method):
    got = jnp.quantile(np.ones((0, 2), np.float32), np.array([0.0, 0.3, 1.0]), axis=0,
                       method=method)
    assert got.shape == (3, 2) and np.isnan(np.asarray(got)).all()
    ok = jnp.quantile(np.arange(5.0), 0.3, method=method)   # a non-empty row still works
    np.testing.assert_allclose(ok, np.quantile(np.arange(5.0), 0.3, method=method))


# -- 3. mgrid/ogrid/r_ with 0j steps: no points, as NumPy (JAX 0.10 reads 0j as step 1) ----
@pytest.mark.parametrize("expr", ["mgrid[0:3:0j]", "mgrid[0:3:0j, 0:2:2j]", "ogrid[0:3:0j]",
                                  "ogrid[0:3:0j, 0:2:3j]", "r_[0:3:0j]", "c_[0:3:0j]",
                                  "mgrid[3:0:0j]", "mgrid[0:3:0.5j]", "mgrid[0:3:1j]",
                                  "mgrid[0:3:-2j]"])
def test_grids_with_zero_point_steps_match_numpy(expr):
    got, want = eval("jnp." + expr), eval("np." + expr)
    pairs = zip(got, want) if isinstance(want, (list, tuple)) else [(got, want)]
    for g, w in pairs:
        assert g.shape == w.shape, (expr, g.shape, w.shape)
        np.testing.assert_allclose(np.asarray(g), w.astype(np.asarray(g).dtype))


@pytest.mark.parametrize("grid", ["mgrid", "ogrid", "r_"])
def test_grid_with_a_zero_real_step_names_itself(grid):
    with pytest.raises(ZeroDivisionError, match=rf"jnp.{grid}: slice step must not be zero"):
        getattr(jnp, grid)[0:3:0]


# -- 4. reshape/ravel order='A': 'F' for a Fortran-ordered NumPy array, else 'C' (NumPy) --
@pytest.mark.parametrize("make", [
    lambda: np.arange(6.0).reshape(2, 3), lambda: np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    lambda: np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1), lambda: np.arange(3.0),
    lambda: np.asfortranarray(np.arange(24.0).reshape(2, 3, 4))])
def test_reshape_and_ravel_order_a_match_numpy(make):
    a = make()
    for shape in [(a.size,), (a.size // a.shape[0], a.shape[0])]:
        np.testing.assert_array_equal(jnp.reshape(a, shape, order="A"),
                                      np.reshape(a, shape, order="A"))
    np.testing.assert_array_equal(jnp.ravel(a, order="A"), np.ravel(a, order="A"))
    # a tjit array is C-ordered: 'A' is 'C', under jit too
    t = jnp.asarray(a)
    np.testing.assert_array_equal(tjit.jit(lambda v: jnp.ravel(v, order="A"))(t),
                                  np.ravel(np.ascontiguousarray(a)))


# -- 5. set operations name themselves, not an internal helper ('jnp.setops') --------------
@pytest.mark.parametrize("fname", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
def test_set_operation_size_errors_name_the_function(fname):
    f = getattr(jnp, fname)
    with pytest.raises(TypeError, match=rf"^jnp.{fname}: size must be an integer"):
        f(X3, X3, size=1.5)
    with pytest.raises(ValueError, match=rf"^jnp.{fname}: size must be non-negative"):
        f(X3, X3, size=-1)
    with pytest.raises(ValueError, match=rf"jnp.{fname}: size must be non-negative"):
        tjit.jit(lambda a: f(a, a, size=-1))(X3)


def test_error_names_in_numpy_sources_are_public_names():
    """Literal function names given to the argument checks of tjit/numpy are public
    names (a helper's own name, like 'setops', tells the user nothing)."""
    import re
    public = set(dir(jnp)) | set(dir(jnp.linalg)) | set(dir(jnp.fft)) | set(dir(jnp.ndarray))
    public |= {"indexing"}
    bad = []
    for path in sorted((TJIT / "numpy").rglob("*.py")):
        text = path.read_text()
        for m in re.finditer(r'"jnp\.([A-Za-z_]\w*)|(?:ensure_array|_static|_static_int|'
                             r'_set_size|_size_arg)\(\s*(?:[^,()"]*,\s*)?"([A-Za-z_]\w*)"',
                             text):
            name = m.group(1) or m.group(2)
            if name not in public and name not in ("size", "N", "M", "k", "n", "m", "axis",
                                                   "fill_value", "ndim"):
                bad.append(f"{path.name}:{text[:m.start()].count(chr(10)) + 1} {name}")
    assert not bad, bad


# -- 7. one cache of byte tables: a conversion of a one-byte dtype builds its table once ----
def test_narrow_conversions_build_their_byte_table_once_and_match_ml_dtypes(monkeypatch):
    # a table is the conversion of all 256 byte patterns; spy on the conversions of
    # exactly those (earlier tests may have built some tables: a repeat must build none)
    built = []
    convert = elementwise._convert_impl

    def spy(xp, v, **params):
        if v.size == 256:
            built.append(np.dtype(params["new_dtype"]))
        return convert(xp, v, **params)
    monkeypatch.setattr(elementwise, "_convert_impl", spy)
    x = np.random.default_rng(0).standard_normal(base.TABLE_MIN_SIZE).astype(
        ml_dtypes.float8_e4m3fn)
    x[:3] = [np.nan, 0.0, -0.0]
    for dt in (np.float32, np.int8, ml_dtypes.bfloat16, ml_dtypes.float8_e5m2):
        want = np.array([v.astype(dt) for v in x])    # element by element, ml_dtypes'
        for repeat in range(2):
            got = np.asarray(lax.convert_element_type(jnp.asarray(x), dt))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.view(np.uint8).reshape(len(x), -1),
                                          want.view(np.uint8).reshape(len(x), -1))
            assert built.count(np.dtype(dt)) <= 1, (dt, repeat, built)


# -- argument names: one helper (tracing.argnums.leaf_names) for jit, checkpoint, explain ----
def test_jit_and_saved_residuals_name_leaves_by_the_same_key_paths():
    # jit's names were the parameter and a flat leaf index (params[0]); saved_residuals'
    # the key path, as JAX's debug_info: both now the key path
    from tjit.ad_checkpoint import saved_residuals

    def f(params, x):
        return jnp.sin(params["w"] * x[1]).sum()
    params, x = {"w": np.ones(3, np.float32)}, (np.ones(2, np.float32), np.ones(3, np.float32))
    described = [d for _, d in saved_residuals(f, params, x)]
    assert "from the argument params['w']" in described and "from the argument x[1]" in described
    compiled = tjit.jit(f).lower(params, x).compile()
    with pytest.raises(TypeError, match=r"Argument 'params\['w'\]' compiled with f32\[3\]"):
        compiled({"w": np.ones(4, np.float32)}, x)
    with pytest.raises(TypeError, match=r"Argument 'x\[1\]' compiled with f32\[3\]"):
        compiled(params, (x[0], np.ones(4, np.float32)))


# -- a traced array with a Python scalar: promote_args' fast lane makes the general path's --
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int8, np.uint8])
@pytest.mark.parametrize("scalar", [3, -2, 1.5])
def test_traced_array_with_python_scalar_traces_as_the_general_path(dtype, scalar):
    # the general path's answer: the same scalar as a weak 0-d array operand (promoted
    # by the lattice, never by the fast lane)
    x = np.arange(1, 5).astype(dtype)
    if np.dtype(dtype).kind == "u" and scalar < 0:   # outside the dtype: refused, as JAX
        for run in (tjit.jit(lambda a: a * scalar), lambda a: jnp.asarray(a) * scalar):
            with pytest.raises(OverflowError, match="too large to convert to uint8"):
                run(x)
        return
    for f in (lambda a, s: a * s, lambda a, s: s - a, lambda a, s: jnp.maximum(s, a)):
        fast = tjit.make_jaxpr(lambda a: f(a, scalar))(x)
        general = tjit.make_jaxpr(lambda a, s: f(a, s))(x, jnp.asarray(scalar))
        assert fast.out_avals[0].dtype == general.out_avals[0].dtype
        assert fast.out_avals[0].weak_type == general.out_avals[0].weak_type
        got = tjit.jit(lambda a: f(a, scalar))(x)
        want = f(jnp.asarray(x), jnp.asarray(scalar))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # a weak traced operand (a Python scalar argument) stays on the general path
    weak = tjit.make_jaxpr(lambda s: s * 2)(3.0)
    assert weak.out_avals[0].weak_type


# -- tracers answer attribute reads without a __getattr__ hook --------------------------------
def test_tracers_refuse_concrete_only_attributes_without_a_getattr_hook():
    # a __getattr__ on Tracer (97b40ff) made CPython send every attribute read of every
    # tracer through its slower hook: tracing a 1000-equation chain 6.15 -> 6.88 ms. The
    # refusals are properties now; this keeps any tracer class from growing one again
    from tjit.tracing import core

    def with_subclasses(c):
        return [c] + [s for sub in c.__subclasses__() for s in with_subclasses(sub)]
    classes = with_subclasses(core.Tracer)
    assert len(classes) >= 5      # (JVP, Jaxpr, Batch, Remat, Jet... tracers: all loaded)
    for cls in classes:
        assert not any("__getattr__" in vars(k) for k in cls.__mro__ if k is not object), cls
    seen = {}

    def f(x):
        seen["has_device"] = hasattr(x, "device")
        with pytest.raises(AttributeError, match="'sharding' is not available on .* it "
                                                 "belongs to a computed array"):
            x.sharding
        with pytest.raises(AttributeError, match="no attribute 'not_a_member'"):
            x.not_a_member
        return x
    tjit.jit(f)(np.ones(2, np.float32))
    tjit.vmap(f)(np.ones((2, 2), np.float32))
    assert seen == {"has_device": False}
