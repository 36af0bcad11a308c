"""IR clean-ups on closed jaxprs: dead-code elimination, common-subexpression
elimination, constant folding and loop-invariant code motion. ``simplify`` (what ``jit``
runs on every traced program) is ``fold_constants -> cse -> hoist_loop_invariants ->
dce``.

Every pass returns a new :class:`ClosedJaxpr` with the same inputs and output types and
never mutates its argument (Var objects are shared: they are immutable identities).
Outputs may end up being literals, constants or inputs directly. Sub-jaxprs (control
flow bodies) are cleaned up too, keeping their signatures, except where a rule below
says otherwise:

* dce drops unused outputs and operands of ``cond`` and unused ys, carries, consts and
  xs of ``scan``; effectful equations (``prim.effectful``, or containing one) stay.
* fold evaluates an equation whose inputs are all known (literals, concrete consts,
  folded values) with its reference implementation when it is small: every output has
  at most :data:`FOLD_MAX_ELEMENTS` elements and every input at most
  :data:`FOLD_MAX_INPUT_ELEMENTS` (so folding never costs much at trace time or bloats
  the program with big constants). Scalars become literals, arrays new consts.
  Broadcasts and iotas are never folded: they cost nothing once fused, while a folded
  array would be bytes to load. Inside
  sub-jaxprs only scalar results are folded (bodies keep no consts). Control-flow
  equations are not evaluated (a loop could run long), but a ``cond`` with a known
  index is replaced by the selected branch.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import Array
from tjit.tracing.jaxpr import ClosedJaxpr, DropVar, Jaxpr, Literal, Var
from tjit.primitives.control_flow import cond_p, scan_p, while_p

FOLD_MAX_ELEMENTS = 1024
# ops that only replicate their input (folding them creates constant arrays to load)
_EXPANDING = frozenset(["broadcast_in_dim", "iota"])
FOLD_MAX_INPUT_ELEMENTS = 1 << 16


# -- shared helpers ------------------------------------------------------------------------
def _is_sub(p):
    return isinstance(p, (ClosedJaxpr, Jaxpr))


def _subs_of(eqn):
    for p in eqn.params.values():
        if _is_sub(p):
            yield p
        elif isinstance(p, tuple):
            yield from (x for x in p if _is_sub(x))


def _has_effects_jaxpr(j):
    j = j.jaxpr if isinstance(j, ClosedJaxpr) else j
    return any(has_effects(e) for e in j.eqns)


def has_effects(eqn):
    """True if the equation's primitive is effectful or a sub-jaxpr contains one."""
    return eqn.primitive.effectful or any(_has_effects_jaxpr(s) for s in _subs_of(eqn))


def _map_subjaxprs(eqn, fn, memo):
    """``eqn`` with every sub-jaxpr param replaced by ``fn(closed)`` (memoized by identity,
    so equations sharing a body keep sharing the new one)."""
    def one(p):
        key = id(p)
        hit = memo.get(key)
        if hit is None:
            closed = p if isinstance(p, ClosedJaxpr) else ClosedJaxpr(p, [])
            new = fn(closed)
            if isinstance(p, Jaxpr):
                new = p if new is closed else new.jaxpr
            hit = memo[key] = (p, new)  # keep p alive so its id is not reused
        return hit[1]

    params, changed = {}, False
    for k, p in eqn.params.items():
        if _is_sub(p):
            q = one(p)
        elif isinstance(p, tuple) and p and all(_is_sub(x) for x in p):
            q = tuple(one(x) for x in p)
            q = p if all(a is b for a, b in zip(p, q)) else q
        else:
            q = p
        changed |= q is not p
        params[k] = q
    return eqn.replace(params=params) if changed else eqn


def _is_var(v):
    return type(v) is not Literal


# -- dead-code elimination -----------------------------------------------------------------
def dce(closed):
    """Remove equations whose outputs are never used (and unused constants).

    Args:
      closed: a ClosedJaxpr.

    Returns:
      A new ClosedJaxpr with the same inputs and outputs.
    """
    return _dce_keep_signature(closed, {})


def _dce_keep_signature(closed, memo):
    j = closed.jaxpr
    eqns, live = _dce_eqns(j.eqns, j.outvars, memo)
    cv = [(v, c) for v, c in zip(j.constvars, closed.consts) if v in live]
    new = Jaxpr([v for v, _ in cv], j.invars, j.outvars, eqns)
    return ClosedJaxpr(new, [c for _, c in cv])


def _dce_eqns(eqns, outvars, memo):
    """Backward liveness sweep: (kept equations, set of live vars)."""
    live = {v for v in outvars if _is_var(v)}
    kept = []
    for eqn in reversed(eqns):
        used = [v in live for v in eqn.outvars]
        effects = has_effects(eqn)
        if not any(used) and not effects:
            continue
        rule = _DCE_RULES.get(eqn.primitive)
        if rule is not None and not effects:
            eqn = rule(eqn, used, memo)
        else:
            eqn = _map_subjaxprs(eqn, lambda c: _dce_keep_signature(c, memo), memo)
        live.update(v for v in eqn.invars if _is_var(v))
        kept.append(eqn)
    kept.reverse()
    return kept, live


def _prune_body(closed, used_out, memo):
    """Drop unused outputs of a body and its dead equations: (jaxpr pieces, live set)."""
    j = closed.jaxpr
    outvars = [v for v, u in zip(j.outvars, used_out) if u]
    eqns, live = _dce_eqns(j.eqns, outvars, memo)
    return outvars, eqns, live


def _rebuild(closed, keep_in, outvars, eqns, live):
    j = closed.jaxpr
    cv = [(v, c) for v, c in zip(j.constvars, closed.consts) if v in live]
    invars = [v for v, k in zip(j.invars, keep_in) if k]
    return ClosedJaxpr(Jaxpr([v for v, _ in cv], invars, outvars, eqns), [c for _, c in cv])


def _dce_cond(eqn, used, memo):
    branches = eqn.params["branches"]
    pruned = [_prune_body(b, used, memo) for b in branches]
    keep_in = [any(b.jaxpr.invars[k] in p[2] for b, p in zip(branches, pruned))
               for k in range(len(eqn.invars) - 1)]
    new_branches = tuple(_rebuild(b, keep_in, *p) for b, p in zip(branches, pruned))
    invars = [eqn.invars[0]] + [v for v, k in zip(eqn.invars[1:], keep_in) if k]
    outvars = [v for v, u in zip(eqn.outvars, used) if u]
    return eqn.replace(invars=invars, outvars=outvars,
                       params={**eqn.params, "branches": new_branches})


def _dce_scan(eqn, used, memo):
    p = eqn.params
    body, nc, nk = p["jaxpr"], p["num_consts"], p["num_carry"]
    j = body.jaxpr
    used_carry, used_ys = list(used[:nk]), list(used[nk:])
    while True:  # a carry is live if used outside or read by a live body output
        outvars, eqns, live = _prune_body(body, used_carry + used_ys, memo)
        grow = [k for k in range(nk) if not used_carry[k] and j.invars[nc + k] in live]
        if not grow:
            break
        for k in grow:
            used_carry[k] = True
    keep_in = [v in live for v in j.invars[:nc]] + used_carry + \
        [v in live for v in j.invars[nc + nk:]]
    new_body = _rebuild(body, keep_in, outvars, eqns, live)
    invars = [v for v, k in zip(eqn.invars, keep_in) if k]
    outvars = [v for v, u in zip(eqn.outvars, used_carry + used_ys) if u]
    params = {**p, "jaxpr": new_body, "num_consts": sum(keep_in[:nc]),
              "num_carry": sum(used_carry)}
    return eqn.replace(invars=invars, outvars=outvars, params=params)


_DCE_RULES = {cond_p: _dce_cond, scan_p: _dce_scan}


# -- common-subexpression elimination ------------------------------------------------------
def cse(closed):
    """Reuse the result of an earlier equation with the same primitive, the same input
    atoms (literals compared by value and dtype) and equal params (sub-jaxprs compared
    by identity). Effectful equations are never merged.

    Returns:
      A new ClosedJaxpr with the same inputs and outputs.
    """
    return _cse_keep_signature(closed, {})


def _cse_keep_signature(closed, memo):
    j = closed.jaxpr
    subst, seen, eqns = {}, {}, []
    for eqn in j.eqns:
        invars = [subst.get(v, v) if _is_var(v) else v for v in eqn.invars]
        eqn = _map_subjaxprs(eqn, lambda c: _cse_keep_signature(c, memo), memo)
        eqn = eqn.replace(invars=invars)
        key = None if has_effects(eqn) else _eqn_key(eqn)
        prev = seen.get(key) if key is not None else None
        if prev is not None and not any(isinstance(v, DropVar) for v in prev.outvars):
            for a, b in zip(eqn.outvars, prev.outvars):
                subst[a] = b
            continue
        if key is not None:
            seen[key] = eqn
        eqns.append(eqn)
    outvars = [subst.get(v, v) if _is_var(v) else v for v in j.outvars]
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, outvars, eqns), closed.consts)


def _atom_key(v):
    if _is_var(v):
        return v
    val = np.asarray(v.val)
    return ("lit", dtypes.key(val.dtype), v.aval.weak_type, val.tobytes())


def _param_key(p):
    if isinstance(p, tuple):
        return ("tuple",) + tuple(_param_key(x) for x in p)
    if isinstance(p, (bool, int, float, complex)):
        return (type(p).__name__, p)
    return p  # dtypes, strings, jaxprs (identity), sympy dims...


def _eqn_key(eqn):
    try:
        key = (eqn.primitive, tuple(_atom_key(v) for v in eqn.invars),
               tuple(sorted((k, _param_key(p)) for k, p in eqn.params.items())))
        hash(key)
    except TypeError:  # unhashable params: never merged
        return None
    return key


# -- constant folding ----------------------------------------------------------------------
def fold_constants(closed):
    """Evaluate small equations whose inputs are all known at trace time.

    Known inputs are literals, constants with concrete values and earlier folded
    results. See the module docstring for the size limits.

    Returns:
      A new ClosedJaxpr; folded scalars are literals, folded arrays new consts.
    """
    return _Folder(allow_consts=True, memo={}).run(closed)


class _Folder:
    def __init__(self, allow_consts, memo):
        self.allow_consts = allow_consts
        self.memo = memo
        self.subst = {}   # Var -> atom that replaces it
        self.known = {}   # Var -> NumPy value
        self.constvars, self.consts, self.eqns = [], [], []

    def run(self, closed):
        j = closed.jaxpr
        for v, c in zip(j.constvars, closed.consts):
            raw = c._value if type(c) is Array else c
            if isinstance(raw, (np.ndarray, np.generic)):
                self.known[v] = raw
        for eqn in j.eqns:
            self.eqn(eqn)
        outvars = [self.atom(v) for v in j.outvars]
        new = Jaxpr(list(j.constvars) + self.constvars, j.invars, outvars, self.eqns)
        return ClosedJaxpr(new, list(closed.consts) + self.consts)

    def atom(self, v):
        while _is_var(v) and v in self.subst:
            v = self.subst[v]
        return v

    def value(self, a):
        return np.asarray(a.val) if not _is_var(a) else self.known.get(a)

    def eqn(self, eqn):
        invars = [self.atom(v) for v in eqn.invars]
        if eqn.primitive is cond_p and self.try_inline(eqn, invars):
            return
        eqn = _map_subjaxprs(eqn, self.fold_sub, self.memo).replace(invars=invars)
        vals = [self.value(a) for a in invars]
        if all(v is not None for v in vals) and self.foldable(eqn, vals):
            outs = self.evaluate(eqn, vals)
            if outs is not None:
                for v, o in zip(eqn.outvars, outs):
                    self.bind(v, o)
                return
        self.eqns.append(eqn)

    def fold_sub(self, closed):
        return _Folder(allow_consts=False, memo=self.memo).run(closed)

    def foldable(self, eqn, vals):
        prim = eqn.primitive
        if prim.impl is None or not prim.foldable or has_effects(eqn) or \
                any(True for _ in _subs_of(eqn)):
            return False
        if any(v.size > FOLD_MAX_INPUT_ELEMENTS for v in vals):
            return False
        if prim.name in _EXPANDING:  # a broadcast of a constant stays a broadcast: the
            return False             # compiler fuses it for free; a folded array is bytes
        for v in eqn.outvars:
            shape = v.aval.shape
            if not all(type(d) is int for d in shape):
                return False
            n = int(np.prod(shape, dtype=np.int64))
            if n > FOLD_MAX_ELEMENTS or (shape and not self.allow_consts):
                return False
        return True

    @staticmethod
    def evaluate(eqn, vals):
        try:
            with np.errstate(all="ignore"):
                outs = eqn.primitive.impl(np, *vals, **eqn.params)
        except Exception:  # leave it to run time, where it raises or behaves as traced
            return None
        outs = list(outs) if eqn.primitive.multiple_results else [outs]
        res = []
        for v, o in zip(eqn.outvars, outs):
            o = np.asarray(o)
            if o.shape != tuple(v.aval.shape):
                return None
            res.append(o if o.dtype == v.aval.dtype else o.astype(v.aval.dtype))
        return res if len(res) == len(eqn.outvars) else None

    def bind(self, v, val):
        if isinstance(v, DropVar):
            return
        self.known[v] = val
        if val.ndim == 0:
            self.subst[v] = Literal(val, v.aval)
        else:  # the folded var itself becomes a constvar (its equation is gone)
            self.constvars.append(v)
            self.consts.append(Array(val, v.aval.weak_type))

    def try_inline(self, eqn, invars):
        """cond with a known index: splice in the selected branch's equations."""
        idx = self.value(invars[0])
        if idx is None or has_effects(eqn):
            return False
        branches = eqn.params["branches"]
        b = branches[min(max(int(idx), 0), len(branches) - 1)]
        j = b.jaxpr
        if j.constvars or any(o.aval.weak_type != bo.aval.weak_type
                              for o, bo in zip(eqn.outvars, j.outvars)):
            return False
        for jv, a in zip(j.invars, invars[1:]):
            self.subst[jv] = a
        for inner in j.eqns:  # fresh outvars: a body may be inlined more than once
            fresh = [type(v)(v.aval) for v in inner.outvars]
            for v, f in zip(inner.outvars, fresh):
                self.subst[v] = f
            self.eqn(inner.replace(outvars=fresh))
        resolved = [self.atom(bv) for bv in j.outvars]
        for ov, a in zip(eqn.outvars, resolved):
            self.subst[ov] = a
        return True


# -- loop-invariant code motion -------------------------------------------------------------
def hoist_loop_invariants(closed):
    """Move the equations of ``scan`` and ``while`` bodies (and ``while`` predicates) whose
    operands are all loop constants out of the loop, in front of it; their results
    become new constants of the body. XLA's while-loop-invariant code motion does the
    same: ``lax.fori_loop(0, n, lambda i, c: jnp.linalg.solve(m, c), c)`` then factors
    ``m`` once, not ``n`` times. Inner loops are treated first, so an invariant of two
    nested loops moves out of both.

    Not moved: effectful equations; equations without variable operands (constant
    folding's job); and any whose result has more elements than its largest operand
    (broadcasts, iotas, outer products: hoisted, they would be buffers to store and
    load, where inside the loop they fuse for free). A hoisted equation also runs when
    the loop runs zero times, as in XLA: the programs are pure, so only time is spent.

    Returns:
      A new ClosedJaxpr with the same inputs and outputs (``closed`` itself when no loop
      has anything to hoist).
    """
    return _hoist_keep_signature(closed, {})


def _hoist_keep_signature(closed, memo):
    j = closed.jaxpr
    eqns, changed = [], False
    for eqn in j.eqns:
        new = _map_subjaxprs(eqn, lambda c: _hoist_keep_signature(c, memo), memo)
        rule = _HOIST_RULES.get(new.primitive)
        out = rule(new) if rule is not None else [new]
        changed |= new is not eqn or len(out) > 1
        eqns.extend(out)
    if not changed:
        return closed
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.outvars, eqns), closed.consts)


def _size(shape):
    n = 1
    for d in shape:
        if type(d) is not int:
            return None
        n *= d
    return n


def _hoistable(eqn, invariant):
    ins = [v for v in eqn.invars if _is_var(v)]
    if not ins or not all(v in invariant for v in ins) or has_effects(eqn):
        return False
    biggest = max((_size(v.aval.shape) for v in ins), key=lambda n: -1 if n is None else n)
    if biggest is None:     # (symbolic sizes: not sure it does not grow; stays)
        return False
    sizes = [_size(v.aval.shape) for v in eqn.outvars]
    return all(n is not None and n <= max(biggest, 1) for n in sizes)


def _split_body(body, n_consts, outer_consts):
    """Hoist ``body``'s invariant equations (its first ``n_consts`` inputs are bound to
    the outer atoms ``outer_consts``): (outer equations, the new body with the hoisted
    values as extra constants after the old ones, their outer atoms), or None."""
    j = body.jaxpr
    invariant = dict(zip(j.invars[:n_consts], outer_consts))   # body var -> outer atom
    hoisted, kept, moved = [], [], []    # moved: the hoisted results' body vars
    for eqn in j.eqns:
        if not _hoistable(eqn, invariant):
            kept.append(eqn)
            continue
        outer_outs = [Var(v.aval) for v in eqn.outvars]
        hoisted.append(eqn.replace(
            invars=[invariant[v] if _is_var(v) else v for v in eqn.invars],
            outvars=outer_outs))
        for v, o in zip(eqn.outvars, outer_outs):
            if not isinstance(v, DropVar):
                invariant[v] = o
                moved.append(v)
    if not hoisted:
        return None
    used = {v for e in kept for v in e.invars if _is_var(v)}
    used.update(v for v in j.outvars if _is_var(v))
    moved = [v for v in moved if v in used]    # (those only hoisted equations read: none)
    invars = j.invars[:n_consts] + moved + j.invars[n_consts:]
    new_body = ClosedJaxpr(Jaxpr(j.constvars, invars, j.outvars, kept), body.consts)
    return hoisted, new_body, [invariant[v] for v in moved]


def _hoist_scan(eqn):
    p = eqn.params
    nc = p["num_consts"]
    split = _split_body(p["jaxpr"], nc, eqn.invars[:nc])
    if split is None:
        return [eqn]
    hoisted, body, extra = split
    params = {**p, "jaxpr": body, "num_consts": nc + len(extra)}
    invars = eqn.invars[:nc] + extra + eqn.invars[nc:]
    return hoisted + [eqn.replace(invars=invars, params=params)]


def _hoist_while(eqn):
    p = eqn.params
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    cconsts, bconsts = eqn.invars[:cn], eqn.invars[cn:cn + bn]
    carry = eqn.invars[cn + bn:]
    out, params = [], dict(p)
    split = _split_body(p["cond_jaxpr"], cn, cconsts)
    if split is not None:
        hoisted, params["cond_jaxpr"], extra = split
        out += hoisted
        cconsts = cconsts + extra
    split = _split_body(p["body_jaxpr"], bn, bconsts)
    if split is not None:
        hoisted, params["body_jaxpr"], extra = split
        out += hoisted
        bconsts = bconsts + extra
    if not out:
        return [eqn]
    params["cond_nconsts"], params["body_nconsts"] = len(cconsts), len(bconsts)
    return out + [eqn.replace(invars=cconsts + bconsts + carry, params=params)]


_HOIST_RULES = {scan_p: _hoist_scan, while_p: _hoist_while}


# -- pipeline ------------------------------------------------------------------------------
def simplify(closed):
    """``fold_constants``, then ``cse``, then loop-invariant code motion, then ``dce``
    (what ``jit`` runs after tracing)."""
    return dce(hoist_loop_invariants(cse(fold_constants(closed))))


__all__ = ["dce", "cse", "fold_constants", "hoist_loop_invariants", "simplify", "has_effects",
           "FOLD_MAX_ELEMENTS",
           "FOLD_MAX_INPUT_ELEMENTS"]
