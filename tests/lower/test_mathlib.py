"""Accuracy and IEEE behaviour of mathlib's inline math functions.

Each function is compiled into a small loop kernel ``void f(T *x, [T *y,] T *out, i64 n)``
(own JIT helper below: host CPU and features, opt level 3; no dependency on target.py)
and called through ctypes. float32 results are compared, in ulps of the float32 result,
with float64 references (NumPy / SciPy) over ~1e6 points per function: logarithmically
spaced magnitudes of both signs, random bit patterns and special values. float64 results
are compared with 80-bit long double references (NumPy on x86) and mpmath for erf.
"""

import ctypes
import functools

import numpy as np
import pytest

llvm = pytest.importorskip("llvmlite.binding")
from llvmlite import ir  # noqa: E402

from tjit.lower.llvm import mathlib  # noqa: E402

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
LD = np.longdouble
HAVE_LD = np.finfo(LD).nmant >= 63

#: documented max ulp (mathlib's docstring table): name -> (float32, float64)
BOUNDS = {"exp": (1, 1), "exp2": (1, 1), "expm1": (1, 1), "log": (1, 1), "log1p": (2, 1),
          "tanh": (2, 2), "logistic": (1, 1), "sin": (1, 1), "cos": (1, 1), "tan": (2, 2),
          "erf": (2, 1), "pow": (1, 2), "atan2": (2, 2), "cbrt": (1, 1)}
#: range of |x| where the sin/cos/tan bound holds
TRIG_RANGE = {F32: 1e5, F64: 1e9}


# ----------------------------------------------------------------------------------------
# A tiny JIT: one loop kernel per (function, dtype).

@functools.lru_cache(maxsize=None)
def _target_machine():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten(),
                                        opt=3, jit=True)


def _kernel_ir(name, dt):
    """LLVM IR of ``void kern(T *in0, [T *in1,] T *out, i64 n)`` applying ``name``."""
    ty = ir.DoubleType() if dt == F64 else ir.FloatType()
    nin = 2 if name in ("pow", "atan2") else 1
    i64 = ir.IntType(64)
    mod = ir.Module(name=f"math_{name}")
    mod.triple = llvm.get_process_triple()
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [ty.as_pointer()] * (nin + 1) + [i64]),
                     name="kern")
    for a in fn.args[:-1]:
        a.add_attribute("noalias")
    n = fn.args[-1]
    entry, body, done = fn.append_basic_block("entry"), fn.append_basic_block("body"), \
        fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_signed(">", n, ir.Constant(i64, 0)), body, done)
    b.position_at_end(body)
    i = b.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    xs = [b.load(b.gep(p, [i], inbounds=True)) for p in fn.args[:nin]]
    b.store(mathlib.emit_math(b, name, xs, ty), b.gep(fn.args[nin], [i], inbounds=True))
    nxt = b.add(i, ir.Constant(i64, 1), flags=["nuw", "nsw"])
    i.add_incoming(nxt, body)
    b.cbranch(b.icmp_signed("<", nxt, n), body, done)
    b.position_at_end(done)
    b.ret_void()
    return str(mod)


class _Compiled:
    def __init__(self, name, dt):
        tm = _target_machine()
        mod = llvm.parse_assembly(_kernel_ir(name, dt))
        mod.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=3)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
        self.asm = tm.emit_assembly(mod)
        self.engine = llvm.create_mcjit_compiler(mod, tm)
        self.engine.finalize_object()
        nin = 2 if name in ("pow", "atan2") else 1
        self.fn = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * (nin + 1)), ctypes.c_int64)(
            self.engine.get_function_address("kern"))
        self.dt = dt

    def __call__(self, *xs):
        xs = [np.ascontiguousarray(x, self.dt) for x in np.broadcast_arrays(*xs)]
        out = np.empty_like(xs[0])
        self.fn(*[x.ctypes.data for x in xs], out.ctypes.data, out.size)
        return out


@functools.lru_cache(maxsize=None)
def compiled(name, dt):
    return _Compiled(name, np.dtype(dt))


# ----------------------------------------------------------------------------------------
# References and ulp distances.

def ulp_error(got, ref, dt):
    """|got - ref| in ulps of the correctly rounded result (ref is more precise than dt).
    Infinite/NaN agreement counts as 0; a NaN or inf where ref is finite counts as inf."""
    fi = np.finfo(dt)
    ref = np.asarray(ref)
    wide = LD if ref.dtype == LD else np.float64
    ref_r = ref.astype(dt)
    got_w, ref_w = got.astype(wide), ref.astype(wide)
    _, e = np.frexp(np.abs(ref_w))
    ulp = np.ldexp(wide(1), np.maximum(e - 1 - fi.nmant, fi.minexp - fi.nmant).astype(np.int32))
    with np.errstate(all="ignore"):
        err = np.abs(got_w - ref_w) / ulp
    same_special = (np.isnan(got) & np.isnan(ref_r)) | (np.isinf(got) & (got == ref_r))
    err = np.where(same_special, 0, err)
    # a result of inf/NaN where the reference is finite (or vice versa) is an error
    bad = (np.isnan(got) != np.isnan(ref_r)) | (np.isinf(got) & (got != ref_r))
    return np.where(bad, np.inf, err).astype(np.float64)


def sweep32(n_log=300_000, n_bits=300_000, lo=-45, hi=38.6, seed=0):
    """float32 test points: log-spaced magnitudes of both signs, random bit patterns
    (covering denormals, inf and NaN) and special values."""
    rng = np.random.default_rng(seed)
    mag = 10.0 ** rng.uniform(lo, hi, n_log)
    bits = rng.integers(0, 2 ** 32, n_bits, dtype=np.uint64).astype(np.uint32).view(F32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0,
                        np.finfo(F32).max, np.finfo(F32).tiny, np.finfo(F32).smallest_subnormal],
                       F32)
    with np.errstate(over="ignore"):
        return np.concatenate([mag.astype(F32), (-mag).astype(F32), bits, special, -special])
