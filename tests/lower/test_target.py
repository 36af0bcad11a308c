"""tjit.lower.llvm.target: host JIT, O3, object code round trips, symbol binding."""

import ctypes
import hashlib
import re

import numpy as np
import pytest
from llvmlite import ir

from tjit.lower.llvm import target

KERNEL_T = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                            ctypes.c_int64)
F32 = ir.FloatType()
I64 = ir.IntType(64)


def affine_kernel_ir(name, scale=2.0, shift=1.0, math=None):
    """IR of the tjit kernel ABI: y[i] = math(x[i] * scale + shift) for i in [start, end).

    math: None, or the name of a ``float(float)`` function to call (e.g. "expf",
    "llvm.exp.f32"), declared in the module.
    """
    mod = ir.Module(name="test")
    i8pp = ir.IntType(8).as_pointer().as_pointer()
    fnty = ir.FunctionType(ir.VoidType(), [i8pp, I64.as_pointer(), I64, I64])
    fn = ir.Function(mod, fnty, name)
    fn.attributes.add("nounwind")
    for a in fn.args[:2]:
        a.add_attribute("noalias")
    args, _, start, end = fn.args
    entry, loop, done = (fn.append_basic_block(s) for s in ("entry", "loop", "done"))
    b = ir.IRBuilder(entry)
    ptrs = []
    for k in range(2):
        raw = b.load(b.gep(args, [ir.Constant(I64, k)], inbounds=True))
        ptrs.append(b.bitcast(raw, F32.as_pointer()))
    x, y = ptrs
    b.cbranch(b.icmp_signed("<", start, end), loop, done)
    b = ir.IRBuilder(loop)
    i = b.phi(I64)
    v = b.load(b.gep(x, [i], inbounds=True))
    v = b.fadd(b.fmul(v, ir.Constant(F32, scale)), ir.Constant(F32, shift))
    if math is not None:
        callee = ir.Function(mod, ir.FunctionType(F32, [F32]), math)
        v = b.call(callee, [v])
    b.store(v, b.gep(y, [i], inbounds=True))
    i1 = b.add(i, ir.Constant(I64, 1), flags=["nsw", "nuw"])
    i.add_incoming(start, entry)
    i.add_incoming(i1, loop)
    b.cbranch(b.icmp_signed("<", i1, end), loop, done)
    ir.IRBuilder(done).ret_void()
    return str(mod)


def unique_name(tag, *parts):
    """Content-derived symbol name, as the renderer derives them (see target docstring)."""
    return f"{tag}_" + hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def run_kernel(addr, x, start=0, end=None):
    y = np.full_like(x, -7.0)
    argv = (ctypes.c_void_p * 2)(x.ctypes.data, y.ctypes.data)
    KERNEL_T(addr)(argv, None, start, x.size if end is None else end)
    return y


@pytest.fixture
def x():
    return np.random.default_rng(0).standard_normal(1003).astype(np.float32)


def test_compile_ir_matches_numpy(x):
    name = unique_name("affine", 2.0, 1.0)
    addrs = target.compile_ir(affine_kernel_ir(name), [name])
    np.testing.assert_array_equal(run_kernel(addrs[name], x), x * np.float32(2) + 1)
    # a sub-range touches exactly [start, end)
    y = run_kernel(addrs[name], x, 10, 517)
    np.testing.assert_array_equal(y[10:517], x[10:517] * np.float32(2) + 1)
    assert (y[:10] == -7).all() and (y[517:] == -7).all()
    t = target.last_timings()
    assert {"parse", "optimize", "codegen", "load", "total"} <= set(t)
    assert all(v >= 0 for v in t.values())


def test_compile_again_reuses_address():
    name = unique_name("affine", 3.0, 0.5)
    text = affine_kernel_ir(name, 3.0, 0.5)
    a1 = target.compile_ir(text, [name])
    a2 = target.compile_ir(text, [name])
    assert a1 == a2 and target.is_loaded(name)


def test_same_name_different_code_raises():
    name = unique_name("clash")
    target.compile_ir(affine_kernel_ir(name, 1.0, 1.0), [name])
    with pytest.raises(ValueError, match="already loaded with different code"):
        target.compile_ir(affine_kernel_ir(name, 5.0, 1.0), [name])
    with pytest.raises(ValueError, match="already loaded with different code"):
        target.load_object(target.emit_object(affine_kernel_ir(name, 5.0, 1.0)), [name])


def test_assembly_is_vectorized():
    feats = target.llvm.get_host_cpu_features()
    if not (feats.get("avx2") or feats.get("avx512f")):
        pytest.skip("host has neither AVX2 nor AVX-512")
    asm = target.assembly(affine_kernel_ir(unique_name("asm")))
    reg = "zmm" if target.prefers_512() else "ymm"
    assert reg in asm, asm[:2000]


# multi-line signature, struct return, nested parens in a type, unnamed_addr, quoted name
EXTRA_DEFINES = """
define void @g(ptr %p,
               i64 %n) {
  ret void
}
define internal { float, float } @"h.q"(ptr %p, void (i64)* %cb) unnamed_addr nounwind {
  ret { float, float } zeroinitializer
}
define i32 @k() local_unnamed_addr #0 {
  ret i32 0
}
attributes #0 = { nounwind }
"""


def test_host_attributes_rewrite(monkeypatch):
    monkeypatch.setattr(target, "prefers_512", lambda: True)
    text = affine_kernel_ir("attr_probe") + EXTRA_DEFINES
    tagged = target.with_host_attributes(text)
    mod = target.llvm.parse_assembly(tagged)  # still valid IR
    printed = str(mod)
    groups = dict(re.findall(r"^attributes #(\d+) = (.*)$", printed, re.MULTILINE))
    defines = [ln for ln in printed.splitlines() if ln.startswith("define")]
    assert len(defines) == 4
    for ln in defines:  # LLVM merges our group into each function's own group
        (g,) = re.findall(r"#(\d+)", ln)
        assert '"prefer-vector-width"="512"' in groups[g]
    assert target.with_host_attributes(tagged) == tagged  # idempotent
    monkeypatch.setattr(target, "prefers_512", lambda: False)
    assert target.with_host_attributes(text) == text


def test_object_round_trip(x):
    name = unique_name("obj", 0.5, -2.0)
    obj = target.emit_object(affine_kernel_ir(name, 0.5, -2.0))
    assert isinstance(obj, bytes) and len(obj) > 100
    assert not target.is_loaded(name)
    addrs = target.load_object(obj, [name])
    np.testing.assert_array_equal(run_kernel(addrs[name], x), x * np.float32(0.5) - 2)
    assert target.load_object(obj, [name]) == addrs  # duplicate load is skipped


def test_compile_object_returns_loadable_bytes(x):
    name = unique_name("cobj", 4.0, 0.0)
    text = affine_kernel_ir(name, 4.0, 0.0)
    addrs, obj = target.compile_object(text, [name])
    assert obj == target.emit_object(text)  # deterministic: disk entries match
    assert target.load_object(obj, [name]) == addrs


@pytest.mark.parametrize("math", ["expf", "llvm.exp.f32"])
def test_libm_symbols_resolve_from_object(x, math):
    name = unique_name("libm", math)
    obj = target.emit_object(affine_kernel_ir(name, 1.0, 0.0, math=math))
    y = run_kernel(target.load_object(obj, [name])[name], x)
    np.testing.assert_allclose(y, np.exp(x.astype(np.float64)), rtol=2e-6)


def test_missing_name_and_bad_ir_errors():
    name = unique_name("missing")
    with pytest.raises(ValueError, match="defines no function 'not_there'"):
        target.compile_ir(affine_kernel_ir(name), [name, "not_there"])
    with pytest.raises(ValueError, match="LLVM IR is invalid"):
        target.compile_ir("define void @f( {", ["f"])
    bad = affine_kernel_ir(unique_name("ext"), math="tjit_no_such_fn")
    with pytest.raises(ValueError, match="'tjit_no_such_fn', which is not loaded"):
        target.compile_ir(bad, [unique_name("ext")])


def test_host_key_is_stable_and_short():
    k = target.host_key()
    assert k == target.host_key() and len(k) < 80
    assert target.llvm.get_host_cpu_name() in k
