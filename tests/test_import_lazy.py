"""`import tjit` stays cheap: optional and heavy libraries load only when asked for.

SciPy, CuPy, PyOpenCL and mpi4py are imported by the features that need them (a
scipy-backed routine, a CUDA or OpenCL device, an MPI run), never by importing tjit's
public modules or by a first jitted CPU program. sympy (about half of what ``import
tjit`` cost) is imported by the first symbolic size (``tjit._sympy``): a program of
concrete shapes (jit, grad, vmap, indexing, reshapes) never loads it, a polymorphic one
does and still computes the right numbers. tjit.scipy's submodules load on first use,
as jax.scipy's do. Each check runs in a fresh interpreter, so that modules other tests
imported do not count.
"""

import json
import subprocess
import sys
import textwrap

LAZY = ("scipy", "cupy", "pyopencl", "mpi4py", "pkg_resources", "sympy",
        "tjit.scipy.special", "tjit.scipy.stats", "tjit.scipy.linalg")


def _loaded_after(code):
    """The modules of ``LAZY`` that are in ``sys.modules`` after running ``code``."""
    probe = textwrap.dedent(code) + textwrap.dedent(f"""
        import json, sys
        print(json.dumps([m for m in {LAZY!r} if m in sys.modules]))
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_optional_library():
    loaded = _loaded_after("""
        import tjit, tjit.numpy, tjit.lax, tjit.nn, tjit.random, tjit.scipy
    """)
    assert loaded == [], f"import tjit imported {loaded}; import them where they are used"


def test_first_cpu_program_loads_no_optional_library():
    loaded = _loaded_after("""
        import numpy as np
        import tjit
        import tjit.numpy as jnp
        x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
        out = tjit.jit(lambda a: jnp.tanh(a @ a.T).sum())(x)
        want = np.tanh(x.astype(np.float64) @ x.T.astype(np.float64)).sum()
        assert abs(float(out) - want) < 1e-4 * abs(want), (out, want)
        tjit.devices()

        # grad of an MLP loss, jitted, with slicing, reshapes and a vmap
        def loss(p, x):
            h = jnp.tanh(x @ p["w1"] + p["b1"])
            return jnp.mean((h @ p["w2"]).reshape(-1) - x[:, ::2].sum(axis=1)) ** 2
        rng = np.random.default_rng(0)
        p = {"w1": rng.standard_normal((4, 8)).astype(np.float32),
             "b1": np.zeros(8, np.float32),
             "w2": rng.standard_normal((8, 1)).astype(np.float32)}
        g = tjit.jit(tjit.grad(loss))(p, x)
        eps, i = 1e-3, (1, 2)
        def np_loss(w1):
            h = np.tanh(x.astype(np.float64) @ w1 + p["b1"])
            return np.mean((h @ p["w2"]).reshape(-1) - x[:, ::2].sum(axis=1)) ** 2
        w_hi, w_lo = p["w1"].astype(np.float64), p["w1"].astype(np.float64)
        w_hi[i] += eps
        w_lo[i] -= eps
        fd = (np_loss(w_hi) - np_loss(w_lo)) / (2 * eps)
        assert abs(float(g["w1"][i]) - fd) < 1e-2 * max(1.0, abs(fd)), (g["w1"][i], fd)
        rows = tjit.vmap(lambda r: jnp.concatenate([r, r[:1]]))(x)
        assert np.array_equal(np.asarray(rows), np.concatenate([x, x[:, :1]], axis=1))
    """)
    assert loaded == [], f"a first CPU program imported {loaded}"


def test_polymorphic_program_imports_sympy_and_is_right():
    loaded = _loaded_after("""
        import numpy as np
        import tjit
        import tjit.numpy as jnp
        f = tjit.jit(lambda x: jnp.tanh(x).sum(axis=0) * x.shape[0],
                     polymorphic_shapes=("(b, 4)",))
        for n in (3, 5):
            x = np.arange(4.0 * n, dtype=np.float32).reshape(n, 4) / 10
            want = np.tanh(x.astype(np.float64)).sum(axis=0) * n
            assert np.allclose(np.asarray(f(x)), want, rtol=1e-5), n
        # automatic dynamic shapes: the second size makes the first symbols of the process
        g = tjit.jit(lambda x: x[: x.shape[0] // 2].sum() * 2)
        for n in (6, 7, 9):
            x = np.arange(n, dtype=np.float32)
            assert float(g(x)) == 2 * x[: n // 2].sum(), n
    """)
    assert loaded == ["sympy"], f"a polymorphic program imported {loaded}"


def test_scipy_submodules_load_on_first_use():
    loaded = _loaded_after("""
        import math
        import tjit
        assert abs(float(tjit.scipy.special.erf(0.5)) - math.erf(0.5)) < 1e-6
        from tjit.scipy.stats import norm
        assert abs(float(norm.pdf(0.0)) - 1 / math.sqrt(2 * math.pi)) < 1e-6
        assert ">>> jsp.stats.norm.pdf(" in norm.pdf.__doc__   # stored examples attached
        assert "special" in dir(tjit.scipy)
    """)
    # (SciPy itself: erf's eager reference implementation calls it)
    assert [m for m in loaded if m != "scipy"] == ["tjit.scipy.special", "tjit.scipy.stats"]


def test_sympy_imported_by_the_user_before_or_after_tjit():
    """Expressions of a sympy that the user imported (before tjit, or after it but before
    tjit needed one) are dims all the same, with tjit's wrappers installed on sympy."""
    for first, then in (("import sympy", "import tjit"), ("import tjit", "import sympy")):
        _loaded_after(f"""
            {first}
            {then}
            import numpy as np
            import tjit.numpy as jnp
            from tjit import _sympy
            n = sympy.Symbol("n", integer=True, positive=True)
            assert _sympy.is_expr(n) and not _sympy.is_expr(3)
            assert getattr(sympy.Basic, "_tjit_size_questions", False)
            assert tjit.eval_shape(lambda x: x.reshape(-1), tjit.ShapeDtypeStruct(
                (n, 4), np.float32)).shape == (4 * n,)
        """)


def test_first_symbolic_use_from_several_threads():
    """Threads that need sympy at once wait for one import and set-up (no half-made
    state): each thread's polymorphic program gives NumPy's numbers."""
    _loaded_after("""
        import threading
        import numpy as np
        import tjit
        import tjit.numpy as jnp
        start, errors = threading.Barrier(4), []
        def run(k):
            try:
                start.wait()
                f = tjit.jit(lambda x: jnp.cumsum(x[1:]) * x.shape[0],
                             polymorphic_shapes=("(b,)",))
                for n in (4 + k, 9 + k):
                    x = np.arange(n, dtype=np.float32)
                    assert np.allclose(np.asarray(f(x)), np.cumsum(x[1:]) * n), (k, n)
            except Exception as e:  # noqa: BLE001  (reported below)
                errors.append(repr(e))
        threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
    """)
