"""``cond``, ``while`` and ``scan`` plan steps on a CUDA device, driven from the host.

Each body is a Program prepared once per size binding as a CUDA runner (its kernels,
cuBLAS dots and library calls stay on the device); the host loop launches one body call
per iteration. Where the host must see a device value, it waits for the device:

* ``while``: the predicate (a device scalar) is copied to the host before every
  iteration: one device->host synchronization per trip (~10 µs);
* ``cond``: the branch index is copied to the host once per call;
* ``scan``: the trip count is static: no synchronization; ys are written in place.

Buffers follow ``control_flow`` (the CPU's rules): a carry buffer the loop owns (fresh
from the previous iteration, or a donated argument) is given to the body as donated;
the step's results are buffers it owns (pass-throughs are copied).
"""

from tjit.devices.control_flow import Body
from tjit.xla_like.plan import concrete


def build(step, make_runner, env, cp):
    """``run(args, given) -> results`` for ``step`` at the size binding ``env`` on CuPy
    ``cp``; ``make_runner(program)`` prepares a body program."""
    runners = [make_runner(b) for b in step.bodies]
    bodies = [Body(r) for r in runners]
    run = {"cond": _cond, "while": _while, "scan": _scan}[step.name](step, bodies, env, cp)
    run.runners = runners
    return run


def _owned_copies(values, owned):
    return [v if o else v.copy() for v, o in zip(values, owned)]


def _cond(step, branches, env, cp):
    last = len(branches) - 1

    def run(args, given=()):
        index = int(args[0])          # (device -> host: which branch to launch)
        branch = branches[min(max(index, 0), last)]  # clamped, like lax.switch
        outs = branch.run(args[1:])
        return _owned_copies(outs, branch.owned(outs))
    return run


def _while(step, bodies, env, cp):
    cond, body = bodies
    n_cond, n_body = step.attrs["cond_nconsts"], step.attrs["body_nconsts"]

    def run(args, given=()):
        cond_consts = list(args[:n_cond])
        body_consts = list(args[n_cond:n_cond + n_body])
        carry = list(args[n_cond + n_body:])
        owned = [k in given for k in range(len(carry))]
        while bool(cond.run(cond_consts + carry)[0]):   # (device -> host sync per trip)
            donated = tuple(n_body + k for k, o in enumerate(owned) if o)
            carry = body.run(body_consts + carry, donated)
            owned = body.owned(carry)
        return _owned_copies(carry, owned)
    return run


def _scan(step, bodies, env, cp):
    (body,) = bodies
    a = step.attrs
    length, reverse = concrete(a["length"], env), a["reverse"]
    n_consts, n_carry = a["num_consts"], a["num_carry"]
    ys_avals = [(tuple(concrete(d, env) for d in shape), dtype)
                for shape, dtype in step.out_avals[n_carry:]]

    def run(args, given=()):
        consts = list(args[:n_consts])
        carry = list(args[n_consts:n_consts + n_carry])
        xs = args[n_consts + n_carry:]
        ys = [cp.empty(shape, dtype) for shape, dtype in ys_avals]
        owned = [k in given for k in range(n_carry)]
        for t in range(length):
            i = length - 1 - t if reverse else t
            donated = tuple(n_consts + k for k, o in enumerate(owned) if o)
            # (x[i] of a C-contiguous x is contiguous: a view, no copy)
            outs = body.run(consts + carry + [x[i, ...] for x in xs], donated)
            carry = outs[:n_carry]
            owned = body.owned(outs)[:n_carry]
            for buf, y in zip(ys, outs[n_carry:]):
                buf[i] = y
        return _owned_copies(carry, owned) + ys
    return run
