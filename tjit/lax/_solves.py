"""``lax.custom_root`` and ``lax.custom_linear_solve``: solvers differentiated implicitly
at their solution (JAX's jax/_src/lax/control_flow/solves.py), never through their
iterations.

Each callable is traced once into a jaxpr whose closed-over arrays become explicit
operands, so a rule can tell the function's parameters from its input:

* custom_root: ``x* = solve(f, guess)`` with ``f(x*) = 0``; its tangent is
  ``-tangent_solve(df/dx at x*, df/dparams . dparams)`` (the implicit function theorem).
* custom_linear_solve: ``x = solve(matvec, b)``; ``dx = solve(matvec, db - dmatvec(x))``.
  The tangent solve is a ``linear_call`` (tjit/transforms/linear_call.py) whose stated
  transpose is ``transpose_solve(vecmat, .)``, so reverse mode runs the transposed solve
  rather than transposing the solver's loop (which a while_loop would not allow).

Only ``f``'s / ``matvec``'s parameters are differentiated; the solvers' own closed-over
arrays get no gradient, as in JAX.
"""

import functools

from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer, get_aval
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.tracing.tree_util import split_by_sizes, tree_flatten, tree_unflatten
from tjit.transforms.ad import jvp, linear_transpose, linearize
from tjit.transforms.custom_derivatives import custom_jvp, trace_flat
from tjit.transforms.linear_call import linear_call
from tjit.lax._ad import stop_gradient
from tjit.lax._elementwise import asarray_for_lax, neg, sub
from tjit.lax._structural import zeros_like_array


def _leaves(tree):
    flat, treedef = tree_flatten(tree)
    return [x if isinstance(x, (Array, Tracer)) else asarray_for_lax(x) for x in flat], treedef


def _check_tree(op, fun_name, got, want, has_aux=False):
    if got != want:
        aux = " (with has_aux=True it returns (solution, aux))" if has_aux else ""
        raise TypeError(f"{op}: {fun_name}() output pytree structure must match the input's, "
                        f"got {got} and {want}{aux}")


def _check_shapes(op, fun_name, got, want):
    got_shapes = [tuple(get_aval(x).shape) for x in got]
    want_shapes = [tuple(get_aval(x).shape) for x in want]
    if got_shapes != want_shapes:
        raise ValueError(f"{op}: {fun_name}() output shapes must match the input's, got "
                         f"{got_shapes} and {want_shapes}")


def _trace(op, fun_name, fun, in_tree, like, has_aux=False, n_in=1):
    """``fun`` over ``n_in`` pytrees shaped like ``like`` (flat leaves), traced:
    (jaxpr, consts, number of outputs before the aux ones, aux tree or None)."""
    store = {}

    def flat(*leaves):
        k = len(like)
        args = [tree_unflatten(in_tree, list(leaves[i * k:(i + 1) * k])) for i in range(n_in)]
        out = fun(*args)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(f"{op}: with has_aux=True {fun_name}() must return "
                                f"(solution, aux), got {type(out).__name__}")
            out, aux = out
        out_flat, out_tree = _leaves(out)
        _check_tree(op, fun_name, out_tree, in_tree, has_aux)
        _check_shapes(op, fun_name, out_flat, like)
        aux_flat, store["aux_tree"] = _leaves(aux) if has_aux else ([], None)
        store["n_out"] = len(out_flat)
        return out_flat + aux_flat

    closed, consts = trace_flat(flat, [get_aval(x) for x in like] * n_in, fun_name)
    return closed.jaxpr, consts, store["n_out"], store["aux_tree"]


def _run(jaxpr, consts, *args):
    if type(jaxpr) is _TransposedMatvec:
        return jaxpr.run(consts, args)
    return eval_jaxpr(jaxpr, [], *consts, *args)


class _TransposedMatvec:
    """vecmat of a non-symmetric custom_linear_solve, in the place of its jaxpr: matvec's
    jaxpr transposed in ``x`` when run, with matvec's consts as its own. Only derivatives
    run it (the transposed solve's map and its derivative in the matrix), so a call that
    is not differentiated never transposes matvec."""

    def __init__(self, mv_jaxpr, x_avals):
        self.mv_jaxpr, self.x_avals = mv_jaxpr, x_avals

    def run(self, consts, ys):
        def matvec(*x):
            return list(_run(self.mv_jaxpr, consts, *x))
        return list(linear_transpose(matvec, *self.x_avals)(list(ys)))


# -- custom_root -----------------------------------------------------------------------------
def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """Solve ``f(x) = 0`` with ``solve`` and differentiate the root implicitly, as
    ``jax.lax.custom_root``.

    Args:
      f: function of one pytree returning a pytree of the same structure; gradients
        are taken with respect to the arrays ``f`` closes over.
      initial_guess: the starting point (a pytree of arrays).
      solve: ``solve(f, initial_guess) -> x`` with ``f(x) == 0`` (not checked; it need
        not be differentiable, e.g. a ``while_loop``); with ``has_aux`` it returns
        ``(x, aux)``.
      tangent_solve: ``tangent_solve(g, y) -> z`` with ``g(z) == y`` for the linear
        function ``g`` (``f`` linearized at the root), e.g. ``lambda g, y: y / g(1.0)``
        for scalars; must be linear in ``y`` for reverse mode.
      has_aux: whether ``solve`` returns auxiliary data as a second output (it gets no
        gradient).

    Returns:
      ``solve(f, initial_guess)``, whose derivative is
      ``-tangent_solve(df/dx, df/dparams . dparams)`` at the root.
    """
    guess, tree = _leaves(initial_guess)
    f_jaxpr, f_consts, _, _ = _trace("custom_root", "f", f, tree, guess)
    solve_jaxpr, solve_consts, n_sol, aux_tree = _trace(
        "custom_root", "solve", functools.partial(solve, f), tree, guess, has_aux)

    def linearize_and_solve(x, b):
        return tangent_solve(linearize(f, x)[1], b)

    ls_jaxpr, ls_consts, _, _ = _trace("custom_root", "tangent_solve", linearize_and_solve,
                                       tree, guess, n_in=2)
    lengths = (len(f_consts), len(solve_consts), len(ls_consts))
    jaxprs = (f_jaxpr, solve_jaxpr, ls_jaxpr, n_sol)
    out = _custom_root(lengths, jaxprs, *f_consts, *solve_consts, *ls_consts, *guess)
    solution = tree_unflatten(tree, out[:n_sol])
    return (solution, tree_unflatten(aux_tree, out[n_sol:])) if has_aux else solution


@functools.partial(custom_jvp, nondiff_argnums=(0, 1))
def _custom_root(lengths, jaxprs, *args):
    _, solve_consts, _, guess = split_by_sizes(args, lengths)
    return _run(jaxprs[1], stop_gradient(solve_consts), *guess)


@_custom_root.defjvp
def _custom_root_jvp(lengths, jaxprs, primals, tangents):
    f_consts, _, ls_consts, _ = split_by_sizes(primals, lengths)
    f_consts_dot = split_by_sizes(tangents, lengths)[0]
    f_jaxpr, _, ls_jaxpr, n_sol = jaxprs
    out = _custom_root(lengths, jaxprs, *primals)
    solution = out[:n_sol]
    # f(params, x*(params)) = 0  =>  df/dx . dx = -df/dparams . dparams
    if not f_consts:  # f has no parameters: the root does not move
        return out, [zeros_like_array(o) for o in out]
    rhs = jvp(lambda *c: _run(f_jaxpr, c, *solution), tuple(f_consts),
              tuple(f_consts_dot))[1]
    solution_dot = [neg(t) for t in _run(ls_jaxpr, ls_consts, *solution, *rhs)]
    aux_dot = [zeros_like_array(a) for a in out[n_sol:]]
    return out, solution_dot + aux_dot


# -- custom_linear_solve ---------------------------------------------------------------------
def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
                        has_aux=False):
    """Solve ``matvec(x) = b`` with ``solve`` and differentiate implicitly, as
    ``jax.lax.custom_linear_solve``.

    Args:
      matvec: the linear map (a differentiable function of one pytree shaped like
        ``b``); gradients flow to the arrays it closes over.
      b: the right-hand side, a pytree of arrays.
      solve: ``solve(matvec, b) -> x`` with ``matvec(x) == b`` (not checked; need not be
        differentiable).
      transpose_solve: ``transpose_solve(vecmat, b)`` solving with the transposed map
        ``vecmat`` (made by ``linear_transpose``); needed for reverse mode unless
        ``symmetric``.
      symmetric: ``matvec`` is its own transpose: ``solve`` serves as ``transpose_solve``.
      has_aux: ``solve`` and ``transpose_solve`` return ``(x, aux)``.

    Returns:
      ``solve(matvec, b)``, whose derivative is ``solve(matvec, db - dmatvec(x))``.
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_flat, tree = _leaves(b)
    op = "custom_linear_solve"
    mv_jaxpr, mv_consts, _, _ = _trace(op, "matvec", matvec, tree, b_flat)
    solve_jaxpr, solve_consts, n_x, aux_tree = _trace(
        op, "solve", functools.partial(solve, matvec), tree, b_flat, has_aux)
    if transpose_solve is None:
        tr_jaxpr, tr_consts, vm_jaxpr, vm_consts = None, [], None, []
    else:
        if symmetric:
            vecmat = matvec
        else:
            transposed = []  # matvec transposed once, if transpose_solve calls vecmat

            def vecmat(y):
                if not transposed:
                    transposed.append(linear_transpose(matvec, b))
                return transposed[0](y)[0]
        tr_jaxpr, tr_consts, _, _ = _trace(
            op, "transpose_solve", functools.partial(transpose_solve, vecmat), tree, b_flat,
            has_aux)
        # vecmat's own jaxpr: the transposed solve's derivative in the matrix goes through
        # it (symmetric: it is matvec's; else matvec's transposed when a derivative runs it)
        vm_jaxpr = mv_jaxpr if symmetric else \
            _TransposedMatvec(mv_jaxpr, [get_aval(v) for v in b_flat])
        vm_consts = mv_consts
    lengths = (len(mv_consts), len(solve_consts), len(tr_consts), len(vm_consts))
    jaxprs = (mv_jaxpr, solve_jaxpr, tr_jaxpr, vm_jaxpr, n_x)
    out = _linear_solve(lengths, jaxprs, *mv_consts, *solve_consts, *tr_consts, *vm_consts,
                        *b_flat)
    x = tree_unflatten(tree, out[:n_x])
    return (x, tree_unflatten(aux_tree, out[n_x:])) if has_aux else x


def _matvec_rhs(jaxprs, mv_consts, mv_dot, b_dot, x):
    """``db - dmatvec(x)``: matvec(params, x) = b differentiated at fixed x."""
    rhs = list(b_dot)
    moving = [i for i, c in enumerate(mv_consts) if dtypes.is_inexact(get_aval(c).dtype)]
    if moving:  # (integer parameters, e.g. sizes a matvec closes over, do not move)
        def matvec_at_x(*params):
            c = list(mv_consts)
            for i, v in zip(moving, params):
                c[i] = v
            return _run(jaxprs[0], c, *x)
        mv_params_dot = jvp(matvec_at_x, tuple(mv_consts[i] for i in moving),
                            tuple(mv_dot[i] for i in moving))[1]
        rhs = [sub(bd, md) for bd, md in zip(rhs, mv_params_dot)]
    return rhs


@functools.partial(custom_jvp, nondiff_argnums=(0, 1))
def _linear_solve(lengths, jaxprs, *args):
    _, solve_consts, _, _, b = split_by_sizes(args, lengths)
    return _run(jaxprs[1], stop_gradient(solve_consts), *b)


@_linear_solve.defjvp
def _linear_solve_jvp(lengths, jaxprs, primals, tangents):
    mv_consts, _, _, _, _ = split_by_sizes(primals, lengths)
    mv_dot, _, _, _, b_dot = split_by_sizes(tangents, lengths)
    out = _linear_solve(lengths, jaxprs, *primals)
    x = out[:jaxprs[4]]
    rhs = _matvec_rhs(jaxprs, mv_consts, mv_dot, b_dot, x)
    x_dot = _solve_map(lengths, jaxprs, primals[:sum(lengths)], rhs)
    return out, list(x_dot) + [zeros_like_array(a) for a in out[jaxprs[4]:]]


def _transposed(lengths, jaxprs, consts):
    """The transposed problem: vecmat as the map, transpose_solve as its solve."""
    mv_jaxpr, solve_jaxpr, tr_jaxpr, vm_jaxpr, n_x = jaxprs
    mv, sv, tr, vm, _ = split_by_sizes(consts, lengths)
    return ((lengths[3], lengths[2], lengths[1], lengths[0]),
            (vm_jaxpr, tr_jaxpr, solve_jaxpr, mv_jaxpr, n_x), [*vm, *tr, *sv, *mv])


def _solve_map(lengths, jaxprs, consts, rhs):
    """``solve(matvec, rhs)`` without aux outputs, linear in ``rhs``: a ``linear_call``
    whose transpose is ``transpose_solve(vecmat, .)`` (JAX's linear_solve_p transpose), so
    reverse mode never transposes the solver's loop. Both directions are
    :func:`_solve_plain`, differentiable in the matrix at every order."""
    t_lengths, t_jaxprs, _ = _transposed(lengths, jaxprs, consts)

    def fun(res, r):
        return _solve_plain(lengths, jaxprs, *res, *r)

    def fun_transpose(res, ct):
        if jaxprs[2] is None:
            raise TypeError("custom_linear_solve: transpose_solve required for backwards "
                            "mode automatic differentiation of custom_linear_solve; pass "
                            "transpose_solve=, or symmetric=True when matvec is symmetric")
        return _solve_plain(t_lengths, t_jaxprs, *_transposed(lengths, jaxprs, res)[2], *ct)

    return linear_call(fun, fun_transpose, list(consts), list(rhs))


@functools.partial(custom_jvp, nondiff_argnums=(0, 1))
def _solve_plain(lengths, jaxprs, *args):
    """The solve itself (the solver's closed-over arrays get no gradient, as in JAX),
    differentiated implicitly: matvec's parameters move the solution by
    ``solve(db - dmatvec(x))``. Under a ``linear_call`` this rule gives the derivative of
    ``A^-1 r`` in ``A`` (``-A^-1 dA A^-1 r``) that the solver's own ops would miss; the rule
    is traced only when differentiated, so the pair never recurses at the call."""
    n = sum(lengths)
    solve_consts = split_by_sizes(args[:n], lengths)[1]
    return _run(jaxprs[1], stop_gradient(solve_consts), *args[n:])[:jaxprs[4]]


@_solve_plain.defjvp
def _solve_plain_jvp(lengths, jaxprs, primals, tangents):
    n = sum(lengths)
    x = _solve_plain(lengths, jaxprs, *primals)
    rhs = _matvec_rhs(jaxprs, primals[:lengths[0]], tangents[:lengths[0]], tangents[n:], x)
    return x, list(_solve_map(lengths, jaxprs, primals[:n], rhs))


__all__ = ["custom_root", "custom_linear_solve"]
