"""The math library, linked: each ``mathlib`` function compiled once per process.

Kernels of the ``"scalar"`` compile profile (``profile.py``) call math functions
instead of inlining their polynomials, so LLVM optimizes ``sin`` once per process
rather than once per kernel that uses it (an unrolled ODE with a ``sin`` per step
spent most of its compile time on the same inlined polynomial). ``call`` declares and
calls ``tjit_math_<name>_<f32|f64>`` in a kernel's module; ``ensure_loaded`` compiles
the functions a kernel needs (one tiny module each, the same ``mathlib`` IR a vector
kernel inlines) into the process-wide engine and publishes their addresses with
``llvm.add_symbol``, so that the kernel's object code links wherever it is loaded
(also from the disk cache in a later process).
"""

import os
import threading

import llvmlite.binding as llvm
from llvmlite import ir

from tjit.lower.llvm import mathlib, target
from tjit.lower.llvm.profile import math_symbol

__all__ = ["call", "ensure_loaded"]

_LOCK = threading.Lock()
_ADDRESSES = {}     # symbol -> address in this process (a forked child keeps them)
#: Counters for tests: functions compiled, and loaded from the cache.
STATS = {"compiled": 0, "loaded": 0}


def _after_fork_in_child():
    global _LOCK
    _LOCK = threading.Lock()    # (a fork while another thread compiled would leave it held)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def call(builder, name, args, ty):
    """Emit a call of math function ``name`` (``mathlib.emit_math``'s arguments)."""
    module = builder.module
    sym = math_symbol(name, "float64" if isinstance(ty, ir.DoubleType) else "float32")
    fn = module.globals.get(sym)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ty, [ty] * mathlib.arity(name)), name=sym)
        fn.attributes.add("nounwind")
        fn.attributes.add("readnone")     # pure: LLVM may hoist and merge calls
    return builder.call(fn, list(args))


def function_ir(sym):
    """LLVM IR text of the module defining math symbol ``sym``."""
    name, kind = sym[len("tjit_math_"):].rsplit("_", 1)
    ty = ir.DoubleType() if kind == "f64" else ir.FloatType()
    module = ir.Module(name=sym)
    fn = ir.Function(module, ir.FunctionType(ty, [ty] * mathlib.arity(name)), name=sym)
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    b.ret(mathlib.emit_math(b, name, list(fn.args), ty))
    return str(module)


def ensure_loaded(symbols, cache=None):
    """Compile (or load) and publish the math functions ``symbols`` not yet in this
    process. ``cache``: optional ``(get, put)`` of object code by symbol (the runtime's
    disk cache), so that a later process links the functions instead of compiling them."""
    missing = [s for s in symbols if s not in _ADDRESSES]
    if not missing:
        return
    with _LOCK:
        for sym in missing:
            if sym in _ADDRESSES:
                continue
            addr = None
            obj = cache[0](sym) if cache else None
            if obj is not None:
                try:
                    addr = target.load_object(obj, [sym])[sym]
                    STATS["loaded"] += 1
                except (ValueError, RuntimeError):
                    addr = None     # unusable entry: compile below
            if addr is None:
                # (the full pipeline: these run on every element of every small kernel)
                addrs, obj = target.compile_object(function_ir(sym), [sym])
                addr = addrs[sym]
                STATS["compiled"] += 1
                if cache:
                    cache[1](sym, obj)
            llvm.add_symbol(sym, addr)
            _ADDRESSES[sym] = addr
