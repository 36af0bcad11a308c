"""tjit.scipy.sparse.linalg (cg, bicgstab, gmres) against SciPy's solvers step for step
(a fixed number of iterations), np.linalg.solve in float64 once converged, central
differences for gradients, a Python loop for vmap and the reference interpreter for
jit; errors for operators and vectors that do not fit."""

import inspect

import numpy as np
import pytest
import scipy.sparse.linalg as ssl

import tjit
import tjit.numpy as jnp
from tjit.scipy.sparse.linalg import bicgstab, cg, gmres

N_DIM = 8
# SciPy 1.12 renamed the relative tolerance from tol to rtol
_SCIPY_RTOL = "rtol" if "rtol" in inspect.signature(ssl.cg).parameters else "tol"


def _systems():
    rng = np.random.default_rng(1)
    n = N_DIM
    q = rng.standard_normal((n, n))
    c = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
    b = rng.standard_normal(n)
    return {
        "spd": q @ q.T + 0.5 * np.eye(n),
        "nonsym": rng.standard_normal((n, n)) + 3 * np.eye(n),
        "hpd": c @ c.conj().T + np.eye(n),
        "complex": c + 4 * np.eye(n),
        "b": b,
        "bc": b + 1j * rng.standard_normal(n),
    }


SYS = _systems()


def _jacobi(a):
    return np.diag(1 / np.diag(a))


def _rel_err(x, ref):
    return np.abs(np.asarray(x) - ref).max() / np.abs(ref).max()


# (name, tjit solver, SciPy solver, matrix, rhs, preconditioner or None)
STEP_CASES = [
    ("cg", cg, ssl.cg, "spd", "b", False),
    ("cg_jacobi", cg, ssl.cg, "spd", "b", True),
    ("cg_complex", cg, ssl.cg, "hpd", "bc", False),
    ("bicgstab", bicgstab, ssl.bicgstab, "nonsym", "b", False),
    ("bicgstab_jacobi", bicgstab, ssl.bicgstab, "nonsym", "b", True),
    ("bicgstab_complex", bicgstab, ssl.bicgstab, "complex", "bc", False),
]


@pytest.mark.parametrize("name,solver,ref,a,b,precondition", STEP_CASES,
                         ids=[c[0] for c in STEP_CASES])
def test_fixed_iterations_match_scipy(x64, name, solver, ref, a, b, precondition):
    """Three iterations with no tolerance: the same iterate as SciPy's (same algorithm)."""
    a, b = SYS[a], SYS[b]
    m = _jacobi(a) if precondition else None
    x, info = solver(a, b, maxiter=3, tol=0.0, M=m)
    want = ref(a, b, maxiter=3, M=m, **{_SCIPY_RTOL: 1e-300})[0]
    assert info is None
    assert x.dtype == b.dtype
    assert _rel_err(x, want) < 1e-12


@pytest.mark.parametrize("method", ["batched", "incremental"])
@pytest.mark.parametrize("system", [("nonsym", "b"), ("complex", "bc")])
@pytest.mark.parametrize("restart", [3, 20])
def test_gmres_restarts_match_scipy(x64, method, system, restart):
    a, b = SYS[system[0]], SYS[system[1]]
    x, info = gmres(a, b, restart=restart, maxiter=2, tol=0.0, solve_method=method)
    want = ssl.gmres(a, b, restart=restart, maxiter=2, **{_SCIPY_RTOL: 1e-300})[0]
    assert _rel_err(x, want) < 1e-12
    assert int(info) == 0


CONVERGE_CASES = [
    (cg, {}, "spd", "b"), (cg, {}, "hpd", "bc"),
    (bicgstab, {}, "nonsym", "b"), (bicgstab, {}, "complex", "bc"),
    (gmres, {"solve_method": "batched"}, "nonsym", "b"),
    (gmres, {"solve_method": "incremental", "restart": 4}, "complex", "bc"),
]


@pytest.mark.parametrize("solver,kw,a,b", CONVERGE_CASES,
                         ids=[f"{c[0].__name__}-{c[2]}-{c[1]}" for c in CONVERGE_CASES])
def test_converges_to_numpy_solution_within_tol(x64, solver, kw, a, b):
    a, b = SYS[a], SYS[b]
    tol = 1e-9
    x, _ = solver(a, b, tol=tol, **kw)
    x = np.asarray(x)
    # SciPy's rule on the true residual (2x slack: the solvers test a recursive one)
    assert np.linalg.norm(a @ x - b) <= 2 * tol * np.linalg.norm(b)
    assert _rel_err(x, np.linalg.solve(a, b)) < 1e-6


def test_atol_stops_early(x64):
    a, b = SYS["spd"], SYS["b"]
    loose, _ = cg(a, b, tol=0.0, atol=1e-1)
    tight, _ = cg(a, b, tol=0.0, atol=1e-12)
    assert 1e-12 < np.linalg.norm(a @ np.asarray(loose) - b) <= 1e-1
    assert np.linalg.norm(a @ np.asarray(tight) - b) <= 1e-11


@pytest.mark.parametrize("solver", [cg, bicgstab, gmres])
def test_preconditioner_as_function_and_as_matmul_object(x64, solver):
    a = SYS["spd"]
    b = SYS["b"]
    d = 1 / np.diag(a)

    class Diagonal:  # an operator known only through @ and its shape
        shape = a.shape

        def __matmul__(self, x):
            return jnp.asarray(d) * x

    as_matrix, _ = solver(a, b, M=np.diag(d), maxiter=2, tol=0.0)
    as_function, _ = solver(a, b, M=lambda x: d * x, maxiter=2, tol=0.0)
    as_object, _ = solver(a, b, M=Diagonal(), maxiter=2, tol=0.0)
    del Diagonal.shape  # an @ operator need not state its shape
    np.testing.assert_allclose(solver(a, b, M=Diagonal(), maxiter=2, tol=0.0)[0], as_matrix,
                               rtol=1e-12)
    np.testing.assert_allclose(as_function, as_matrix, rtol=1e-12)
    np.testing.assert_allclose(as_object, as_matrix, rtol=1e-12)


def _block_operator():
    """A pytree operator {"u": (3,), "v": (2, 2)} -> same, and its dense 7x7 matrix."""
    rng = np.random.default_rng(2)
    q = rng.standard_normal((7, 7))
    dense = q @ q.T + 7 * np.eye(7)

    def matvec(x):
        flat = jnp.concatenate([x["u"], x["v"].reshape(-1)])
        y = jnp.dot(dense, flat)
        return {"u": y[:3], "v": y[3:].reshape(2, 2)}

    b = {"u": rng.standard_normal(3), "v": rng.standard_normal((2, 2))}
    return matvec, dense, b


@pytest.mark.parametrize("solver", [cg, bicgstab, gmres])
def test_matrix_free_pytree_operator(x64, solver):
    matvec, dense, b = _block_operator()
    x, _ = solver(matvec, b, tol=1e-10)
    assert set(x) == {"u", "v"} and x["v"].shape == (2, 2)
    want = np.linalg.solve(dense, np.concatenate([b["u"], b["v"].ravel()]))
    got = np.concatenate([np.asarray(x["u"]), np.asarray(x["v"]).ravel()])
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


def test_x0_and_maxiter_zero_return_the_guess(x64):
    a, b = SYS["spd"], SYS["b"]
    x0 = np.linspace(0.0, 1.0, N_DIM)
    for solver in (cg, bicgstab, gmres):
        np.testing.assert_array_equal(solver(a, b, x0=x0, maxiter=0)[0], x0)
    # a guess near the solution converges to it as well
    near = np.linalg.solve(a, b) + 1e-3
    np.testing.assert_allclose(cg(a, b, x0=near, tol=1e-10)[0], np.linalg.solve(a, b),
                               rtol=1e-7)


def test_dtypes_follow_b_as_jax():
    """Without x64 float32 in, float32 out; an operator of a narrower dtype is fine, one
    that promotes x is refused (the iterate keeps b's dtype)."""
    a = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)
    b = np.array([1.0, 2.0], np.float32)
    for solver in (cg, bicgstab, gmres):
        x, _ = solver(a, b)
        assert x.dtype == np.float32
        np.testing.assert_allclose(x, np.linalg.solve(a.astype(float), b), rtol=1e-4)
    xc, _ = gmres(a.astype(np.complex64), b.astype(np.complex64))
    assert xc.dtype == np.complex64


def test_info(x64):
    a, b = SYS["nonsym"], SYS["b"]
    assert cg(SYS["spd"], b)[1] is None and bicgstab(a, b)[1] is None
    info = gmres(a, b)[1]
    assert int(info) == 0
    # as JAX's: -1 only when x has NaNs (a NaN residual reads as norm 0, so a NaN b or A
    # returns the guess)
    assert int(gmres(a, b, x0=np.full(N_DIM, np.nan))[1]) == -1


# -- gradients (implicit, through lax.custom_linear_solve) ------------------------------------
GRAD_CASES = [(cg, "spd"), (bicgstab, "nonsym"), (gmres, "nonsym")]


def _central(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


@pytest.mark.parametrize("solver,a", GRAD_CASES, ids=[c[0].__name__ for c in GRAD_CASES])
def test_grad_wrt_b_matches_central_differences(x64, solver, a):
    a, b = SYS[a], SYS["b"]
    w = np.arange(1.0, N_DIM + 1)

    def loss(bb):
        return jnp.sum(w * solver(a, bb, tol=1e-12)[0] ** 2)

    want = _central(lambda bb: np.sum(w * np.linalg.solve(a, bb) ** 2), b)
    np.testing.assert_allclose(tjit.grad(loss)(b), want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("solver,a", GRAD_CASES, ids=[c[0].__name__ for c in GRAD_CASES])
def test_grad_wrt_operator_parameters_matches_central_differences(x64, solver, a):
    """A(p) x = a x + p[0] x + p[1] * (x shifted): gradients reach A's parameters."""
    a, b = SYS[a], SYS["b"]
    shift = np.roll(np.eye(N_DIM), 1, axis=1)
    shift = shift + shift.T  # keeps cg's operator symmetric

    def loss(p):
        def matvec(x):
            return jnp.dot(a, x) + p[0] * x + p[1] * jnp.dot(shift, x)
        return jnp.sum(jnp.sin(solver(matvec, b, tol=1e-12)[0]))

    def loss_np(p):
        return np.sum(np.sin(np.linalg.solve(a + p[0] * np.eye(N_DIM) + p[1] * shift, b)))

    p = np.array([0.3, 0.1])
    np.testing.assert_allclose(tjit.grad(loss)(p), _central(loss_np, p), rtol=1e-6)


@pytest.mark.parametrize("solver,a", [(cg, "hpd"), (gmres, "complex")],
                         ids=["cg", "gmres"])
def test_grad_of_a_complex_solve_matches_central_differences(x64, solver, a):
    """A real loss of a complex solution, differentiated w.r.t. a real shift of A (cg
    then declares no symmetry: the transposed solve uses A's transpose)."""
    a, b = SYS[a], SYS["bc"]

    def loss(p):
        return jnp.sum(jnp.abs(solver(lambda x: jnp.dot(a, x) + p * x, b, tol=1e-13)[0]) ** 2)

    def loss_np(p):
        return np.sum(np.abs(np.linalg.solve(a + p[0] * np.eye(N_DIM), b)) ** 2)

    np.testing.assert_allclose(tjit.grad(loss)(0.2), _central(loss_np, np.array([0.2]))[0],
                               rtol=1e-6)


def test_jvp_of_cg_matches_central_differences(x64):
    a, b = SYS["spd"], SYS["b"]
    db = np.linspace(-1.0, 1.0, N_DIM)
    _, tangent = tjit.jvp(lambda bb: cg(a, bb, tol=1e-12)[0], (b,), (db,))
    want = (np.linalg.solve(a, b + 1e-6 * db) - np.linalg.solve(a, b - 1e-6 * db)) / 2e-6
    np.testing.assert_allclose(tangent, want, rtol=1e-6)


# -- jit, the interpreter, vmap ---------------------------------------------------------------
JIT_CASES = [(cg, {}, "spd"), (bicgstab, {}, "nonsym"),
             (gmres, {"solve_method": "incremental", "restart": 3}, "nonsym")]


@pytest.mark.parametrize("solver,kw,a", JIT_CASES, ids=[c[0].__name__ for c in JIT_CASES])
def test_jit_matches_eager_and_interpreter(x64, solver, kw, a):
    a, b = SYS[a], SYS["b"]

    def f(aa, bb):
        return solver(aa, bb, maxiter=4, tol=0.0, **kw)[0]

    eager = f(a, b)
    np.testing.assert_allclose(tjit.jit(f)(a, b), eager, rtol=1e-12)
    np.testing.assert_allclose(tjit.jit(f, backend="interpreter")(a, b), eager, rtol=1e-12)


@pytest.mark.parametrize("solver,kw,a", JIT_CASES, ids=[c[0].__name__ for c in JIT_CASES])
def test_vmap_over_b_and_over_a_matches_a_loop(x64, solver, kw, a):
    a = SYS[a]
    rng = np.random.default_rng(3)
    bs = rng.standard_normal((3, N_DIM))
    as_ = np.stack([a, a + np.eye(N_DIM), 2 * a])

    def f(aa, bb):
        return solver(aa, bb, tol=1e-10, **kw)[0]

    got = tjit.vmap(f, in_axes=(None, 0))(a, bs)
    np.testing.assert_allclose(got, np.stack([np.linalg.solve(a, v) for v in bs]), rtol=1e-7)
    got = tjit.vmap(f)(as_, bs)
    want = np.stack([np.linalg.solve(m, v) for m, v in zip(as_, bs)])
    np.testing.assert_allclose(got, want, rtol=1e-7)


@pytest.mark.parametrize("solver,kw,a", JIT_CASES, ids=[c[0].__name__ for c in JIT_CASES])
def test_vmap_of_fixed_iterations_matches_a_loop_of_calls(x64, solver, kw, a):
    """With tol=0 each batch member runs exactly maxiter steps: the batched loop must give
    each one the iterate its own call gives."""
    a = SYS[a]
    bs = np.random.default_rng(4).standard_normal((3, N_DIM))

    def f(bb):
        return solver(a, bb, tol=0.0, maxiter=3, **kw)[0]

    want = np.stack([np.asarray(f(v)) for v in bs])
    np.testing.assert_allclose(tjit.vmap(f)(bs), want, rtol=1e-10, atol=1e-12)


def test_jit_of_grad(x64):
    a, b = SYS["nonsym"], SYS["b"]

    def loss(bb):
        return jnp.sum(bicgstab(a, bb, tol=1e-12)[0])

    np.testing.assert_allclose(tjit.jit(tjit.grad(loss))(b),
                               np.linalg.solve(a.T, np.ones(N_DIM)), rtol=1e-7)


@pytest.mark.parametrize("solver,kw", [(cg, {}), (gmres, {"solve_method": "incremental"})],
                         ids=["cg", "gmres"])
def test_polymorphic_shapes_solve_every_size(x64, solver, kw):
    """maxiter's default (10 * size) and gmres' restart stay valid for a symbolic size."""
    def matvec(x):
        return 3.0 * x + jnp.roll(x, 1) + jnp.roll(x, -1)  # symmetric, positive definite

    f = tjit.jit(lambda v: solver(matvec, v, tol=1e-10, **kw)[0], polymorphic_shapes=("n",))
    for n in (5, 9):
        v = np.linspace(-1.0, 2.0, n)
        dense = 3 * np.eye(n) + np.roll(np.eye(n), 1, axis=0) + np.roll(np.eye(n), -1, axis=0)
        np.testing.assert_allclose(f(v), np.linalg.solve(dense, v), rtol=1e-8)


# -- errors -----------------------------------------------------------------------------------
def _errors():
    a = SYS["spd"]
    b = SYS["b"]
    return [
        ("not square", (np.ones((N_DIM, 3)), b), {}, ValueError, "square matrix"),
        ("A does not fit b", (np.eye(3), b), {}, ValueError, "needs 3 rows"),
        ("M does not fit b", (a, b), {"M": np.eye(3)}, ValueError, "M of shape"),
        ("A not an operator", ("A", b), {}, TypeError, "function, a square matrix"),
        ("pytree b with a matrix", (a, {"u": b}), {}, ValueError, "pass A as a function"),
        ("x0 shape", (a, b), {"x0": np.ones(3)}, ValueError, "matching shapes"),
        ("x0 structure", (a, b), {"x0": (b,)}, ValueError, "matching tree structure"),
        ("integer b", (a, np.arange(N_DIM)), {}, TypeError, "floating or complex"),
        ("mixed dtypes in b", (lambda x: x, {"u": b, "v": b.astype(np.float32)}), {},
         TypeError, "share one dtype"),
        ("A's output shape", (lambda x: x[:2], b), {}, ValueError, r"A\(x\) must return"),
        ("A promotes", (lambda x: x * 1j, b), {}, TypeError, r"A\(x\) returns dtypes"),
        ("M's output", (a, b), {"M": lambda x: (x,)}, ValueError, r"M\(x\) must return"),
    ]


@pytest.mark.parametrize("solver", [cg, bicgstab, gmres])
@pytest.mark.parametrize("case", _errors(), ids=[c[0] for c in _errors()])
def test_errors_name_the_solver_and_the_fix(x64, solver, case):
    _, args, kw, exc, text = case
    with pytest.raises(exc, match=text) as info:
        solver(*args, **kw)
    assert f"scipy.sparse.linalg.{solver.__name__}" in str(info.value)


def test_gmres_argument_errors(x64):
    a, b = SYS["nonsym"], SYS["b"]
    with pytest.raises(ValueError, match="solve_method 'qr'"):
        gmres(a, b, solve_method="qr")
    with pytest.raises(ValueError, match="restart must be at least 1"):
        gmres(a, b, restart=0)


def test_namespace_as_jax():
    import tjit.scipy
    assert tjit.scipy.sparse.linalg.cg is cg
    assert sorted(tjit.scipy.sparse.linalg.__all__) == ["bicgstab", "cg", "gmres"]
