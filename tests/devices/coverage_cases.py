"""Cases that jit every primitive, for the backend coverage checks
(``tests/devices/test_cuda_coverage.py``, ``benchmarks/cuda_coverage.py``): the
edge-value table's (``tests/primitives/edge_cases.py``) on the first of float32, int32,
uint32, bool and complex64 a primitive takes, plus cases for the primitives that table exempts
(LAPACK forms, fft) and whole programs (random samplers, top_k, cumulative ops, row
scatters, sorts).
"""

import collections

import numpy as np

import tjit
import tjit.numpy as jnp
from tests.primitives import edge_cases as E
from tjit import lax

F32 = np.float32


def _rng():
    return np.random.default_rng(0)


def _spd(n=4, batch=()):
    a = _rng().standard_normal((*batch, n, n)).astype(F32)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=F32)


def split_static(case):
    """(a jit-able function of the case's dynamic args, those args): the args at
    ``case.static`` are closed over."""
    static = set(case.static)
    dyn = [a for i, a in enumerate(case.args) if i not in static]

    def f(*xs):
        it = iter(xs)
        return case.fn(*[a if i in static else next(it) for i, a in enumerate(case.args)])
    return f, dyn


def extra_cases():
    """Cases for the primitives the edge-value table exempts, and whole programs."""
    r = _rng()
    m = r.standard_normal((4, 4)).astype(F32)
    tall = r.standard_normal((5, 3)).astype(F32)
    x = r.standard_normal((6, 10)).astype(F32)
    many_ids = r.integers(0, 4, 200).astype(np.int32)
    qr_raw = lambda a: jnp.linalg.qr(a, mode="raw")  # noqa: E731
    C = E.Case
    cases = [
        C("cholesky", "cholesky", jnp.linalg.cholesky, (_spd(),)),
        C("eigh", "eigh", lambda a: jnp.linalg.eigh(a)[0], (_spd(),)),
        C("lu", "lu", lambda a: lax.linalg.lu(a)[0], (m,)),
        C("lu_pivots_to_permutation", "lu_pivots_to_permutation",
          lambda p: lax.linalg.lu_pivots_to_permutation(p, 5),
          (np.array([2, 2, 3, 4], np.int32),)),
        C("qr", "qr", lambda a: jnp.linalg.qr(a)[1], (tall,)),
        C("svd", "svd", lambda a: jnp.linalg.svd(a, compute_uv=False), (tall,)),
        C("triangular_solve", "triangular_solve",
          lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
          (np.tril(m) + 4 * np.eye(4, dtype=F32), r.standard_normal((4, 2)).astype(F32))),
        C("eig", "eig", lambda a: jnp.abs(jnp.linalg.eigvals(a)), (m,)),
        C("schur", "schur", lambda a: tjit.scipy.linalg.schur(a)[0].diagonal(), (_spd(),)),
        C("geqrf", "qr(mode='raw')", lambda a: qr_raw(a)[0], (tall,)),
        C("householder_product", "householder_product", lax.linalg.householder_product,
          (tall, np.array([1.2, 1.5, 0.0], F32))),
        C("ormqr", "ormqr", lambda a, t, c: lax.linalg.ormqr(a, t, c, left=True,
                                                              transpose=True),
          (tall, np.array([1.2, 1.5, 0.0], F32), r.standard_normal((5, 2)).astype(F32))),
        C("hessenberg", "hessenberg", lambda a: lax.linalg.hessenberg(a)[0], (m,)),
        C("tridiagonal", "tridiagonal", lambda a: lax.linalg.tridiagonal(a)[1], (_spd(),)),
        C("fft", "fft", lambda a: jnp.abs(jnp.fft.fft(a)), (x,)),
        C("(programs)", "random.normal",
          lambda k: tjit.random.normal(k, (64,)), (np.array([0, 7], np.uint32),)),
        C("(programs)", "random.uniform",
          lambda k: tjit.random.uniform(k, (64,)), (np.array([0, 7], np.uint32),)),
        C("(programs)", "random.gamma",
          lambda k: tjit.random.gamma(k, 2.0, (16,)), (np.array([0, 7], np.uint32),)),
        C("(programs)", "top_k rows", lambda a: lax.top_k(a, 3), (x,)),
        C("(programs)", "cumsum rows", lambda a: jnp.cumsum(a, axis=1), (x,)),
        C("(programs)", "cummax cols", lambda a: lax.cummax(a, axis=0), (x,)),
        C("(programs)", "segment_sum", lambda v, i: tjit.ops.segment_sum(v, i, 4),
          (x, np.array([0, 3, 1, 3, 0, 2], np.int32))),
        C("(programs)", "x.at[ids].add(rows)",
          lambda a, i, v: a.at[i].add(v),
          (x, np.array([5, 1, 1], np.int32), np.ones((3, 10), F32))),
        # (ids repeated past the row scatter's rounds; elementwise scatters: ufunc.at)
        C("(programs)", "segment_prod, 200 ids", lambda v, i: tjit.ops.segment_prod(v, i, 4),
          (r.uniform(0.9, 1.1, (200, 3)).astype(F32), many_ids)),
        C("(programs)", "segment_max, 200 ids", lambda v, i: tjit.ops.segment_max(v, i, 4),
          (r.standard_normal((200, 3)).astype(F32), many_ids)),
        C("(programs)", "x.at[i, j].multiply", lambda a: a.at[
            jnp.array([0, 1, 0]), jnp.array([2, 2, 2])].multiply(3.0), (x,)),
        C("(programs)", "x.at[i, j].min", lambda a: a.at[
            jnp.array([0, 1, 0]), jnp.array([2, 2, 2])].min(-3.0), (x,)),
        C("(programs)", "sort rows", lambda a: jnp.sort(a, axis=1), (x,)),
        C("(programs)", "argsort rows", lambda a: jnp.argsort(a, axis=1), (x,)),
    ]
    return cases


def all_cases(only=None):
    """Edge-value cases (first dtype of f32, int32, bool, complex64 that a primitive
    takes) and the extra ones, as {primitive: [Case]}."""
    out = collections.defaultdict(list)
    for dt in (E.F32, np.dtype("int32"), np.dtype("uint32"), E.BOOL, E.C64):
        got = collections.defaultdict(list)
        for c in E.cases_for(dt):
            got[c.prim].append(c)
        for prim, cs in got.items():
            if prim not in out:
                out[prim] = cs
    for c in extra_cases():
        out[c.prim].append(c)
    return {p: cs for p, cs in out.items() if only is None or p in only}
