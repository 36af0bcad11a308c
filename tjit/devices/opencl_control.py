"""cond / while / scan plan steps of the OpenCL backend, driven from the host.

Each body is a Program of its own, prepared once per size binding as an OpenCL runner
(its kernels are in the executable's one OpenCL program). The host loops over body
calls; carries stay on the device between iterations. Per iteration the host reads
back one scalar: a cond's branch index, a while's predicate. A scan's ``xs`` rows and
``ys`` rows are device-to-device copies at byte offsets (no kernel, no host copy).

Values are immutable once written, except the plan's temporary slots, which later
steps reuse: a result that is one of the step's own inputs (a body that passes a
carry through) is copied, so it never aliases a buffer that is written again.

Buffer reuse: a body's carries are donated to its outputs (``plan``), so a carry the
loop owns (the previous trip's fresh output, or a donated argument handed to the loop:
``Program.loop_donations``) is updated in its own buffer (``opencl._Runner``'s
donation) instead of a new buffer and a device copy per trip; which outputs are fresh
is ``control_flow``'s rule, as on the CPU and CUDA.
"""

import numpy as np

from tjit.devices.control_flow import Body
from tjit.devices.opencl_context import DevArray
from tjit.xla_like.plan import carry_inputs, concrete


def step(runner, s, make_runner):
    """``run(vals)`` for control step ``s`` of ``runner`` (an ``opencl._Runner``);
    ``make_runner(program)`` prepares a body's runner at the same size binding."""
    bodies = [make_runner(b) for b in s.bodies]
    build = {"cond": _cond, "while": _while, "scan": _scan}[s.name]
    loop = build(runner, s, bodies)
    ins = [runner.index[v] for v in s.ins]
    outs = [(n, runner.index[v]) for n, v in enumerate(s.outs) if v is not None]
    dev = runner.dev
    first = carry_inputs(s).start
    handed = [(j - first, pos) for j, pos in runner.prog.loop_donations.get(id(s), {}).items()]

    def run(vals):
        args = [vals[k] for k in ins]
        res = loop(args, {k for k, pos in handed if pos in runner.given})
        for n, k in outs:
            r = res[n]
            if isinstance(r, DevArray) and any(r is a for a in args):
                c = dev.empty(r.shape, r.dtype)
                dev.copy(c, r, r.nbytes)
                r = c
            vals[k] = r
    return run


def _cond(runner, s, branches):
    last = len(branches) - 1

    def loop(args, given):
        index = int(np.asarray(runner.on_host(args[0])))
        return branches[min(max(index, 0), last)].execute(args[1:])   # clamped (switch)
    return loop


def _while(runner, s, bodies):
    cond, body = bodies
    fresh = Body(body)
    n_cond, n_body = s.attrs["cond_nconsts"], s.attrs["body_nconsts"]

    def loop(args, given):
        cond_consts = list(args[:n_cond])
        body_consts = list(args[n_cond:n_cond + n_body])
        carry = list(args[n_cond + n_body:])
        owned = [k in given for k in range(len(carry))]
        while bool(np.asarray(runner.on_host(cond.execute(cond_consts + carry)[0]))):
            donated = tuple(n_body + k for k, o in enumerate(owned) if o)
            carry = body.execute(body_consts + carry, donated)
            owned = fresh.owned(carry)
        return carry
    return loop


def _scan(runner, s, bodies):
    (body,) = bodies
    fresh = Body(body)
    a, env, dev = s.attrs, runner.env, runner.dev
    length, reverse = concrete(a["length"], env), a["reverse"]
    n_consts, n_carry = a["num_consts"], a["num_carry"]
    ys_avals = [(tuple(concrete(d, env) for d in shape), np.dtype(dtype))
                for shape, dtype in s.out_avals[n_carry:]]

    def row(x, i):
        if not isinstance(x, DevArray):
            return x[i, ...]
        r = dev.empty(x.shape[1:], x.dtype)
        dev.copy(r, x, r.nbytes, src_offset=i * r.nbytes)
        return r

    def loop(args, given):
        consts = list(args[:n_consts])
        carry = list(args[n_consts:n_consts + n_carry])
        xs = args[n_consts + n_carry:]
        ys = [dev.empty(shape, dtype) for shape, dtype in ys_avals]
        owned = [k in given for k in range(n_carry)]
        for t in range(length):
            i = length - 1 - t if reverse else t
            donated = tuple(n_consts + k for k, o in enumerate(owned) if o)
            outs = body.execute(consts + carry + [row(x, i) for x in xs], donated)
            carry = outs[:n_carry]
            owned = fresh.owned(outs)[:n_carry]
            for buf, y in zip(ys, outs[n_carry:]):
                n = buf.nbytes // max(length, 1)
                if isinstance(y, DevArray):
                    dev.copy(buf, y, n, dst_offset=i * n)
                else:
                    runner._count("to_device", n)
                    dev.write(buf, np.asarray(y, buf.dtype), dst_offset=i * n)
        return carry + ys
    return loop
