"""Scalar operations of the kernel IR as C expressions with tjit's semantics.

Raw C disagrees with tjit (BACKENDS.md, "Facts measured"): ``fmaxf(NaN, 1)`` is 1,
``7 % 0`` and ``INT_MIN / -1`` are undefined (CUDA gives -1), signed overflow and
``(int)NaN`` are undefined, shifts by >= the bit width are undefined. So every op is
written so that C's result is defined and equals ``kernel_ir.evaluate``'s with tjit's
reference implementations (the rules of ``lower/llvm/codegen_ops.py``):

* integer add/sub/mul/neg/abs wrap: computed in an unsigned type of at least 32 bits
  (uint16 * uint16 would otherwise promote to a signed int and overflow), then cast
  back (two's complement on every target);
* ``x / 0`` is -1 (all ones unsigned), ``x rem 0`` is x, ``INT_MIN / -1`` is INT_MIN;
* shifts by amounts outside ``[0, bits)`` give 0 (the sign fill for the arithmetic
  right shift, which shifts the signed view of unsigned operands too);
* float -> int saturates, NaN -> 0; float -> bool is ``x != 0`` (NaN is true);
* float max/min are IEEE 754-2019 maximum/minimum (``llvm.maximum``): a NaN operand
  wins and -0 orders below +0, in either operand order;
* ``sign`` keeps NaN and gives +0 for +-0; float comparisons are C's (ordered, ``!=``
  unordered) which is tjit's rule;
* transcendentals call the dialect's accurate functions (``expf``, ``log1pf``...);
  ``logistic`` uses a stable two-branch formula; ``rsqrt`` is ``1 / sqrt(x)``;
* float16 values live in float registers: an op computes in float and rounds once to
  half (NumPy's float16 loops do the same; for + - * / and sqrt float's 24 bits make
  that the correctly rounded half result); where tjit's reference implementation is
  several NumPy steps (``rsqrt``, ``logistic``) each step rounds, as there. float64 ->
  float16 rounds once (no detour through float). Sum/product accumulators stay floats
  and round when the reduction's value is used (NumPy's float16 sums accumulate in
  float too; a half accumulator would stall at 2048 + 1).

Every value is held in a named local, so macros-free inline ternaries never evaluate
an operand twice. Helpers that need statements are ``static inline`` functions named
after their op and dtypes, each wrapped in an ``#ifndef`` guard so that many kernels
can share one translation unit.
"""

import numpy as np

from tjit.xla_like import kernel_ir as K

__all__ = ["SUPPORTED", "TRANSCENDENTAL", "Scalar"]

SUPPORTED = frozenset(np.dtype(d) for d in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64"))
F16 = np.dtype("float16")
F32 = np.dtype("float32")
# float16 ops whose float result is already a half value (no rounding needed)
_HALF_EXACT = frozenset(("neg", "abs", "max", "min", "sign", "floor", "ceil", "round",
                         "round_even", "is_finite"))
TRANSCENDENTAL = K.TRANSCENDENTAL_OPS
_ARITH = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_BITS = {"and": "&", "or": "|", "xor": "^"}
_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_MONOID_OP = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}


def check_dtype(dt, what):
    """Raise NotImplementedError unless the C renderer handles dtype ``dt``."""
    dt = np.dtype(dt)
    if dt not in SUPPORTED:
        raise NotImplementedError(
            f"C renderer: {what} on dtype {dt.name} is not supported (supported: bool, "
            "int8-64, uint8-64, float16, float32, float64); route it to a library call")
    return dt


def _tag(dt):
    return np.dtype(dt).name


class Scalar:
    """Writes C expressions for one dialect and collects the helpers they call."""

    def __init__(self, dialect):
        self.d = dialect
        self.helpers = {}          # name -> definition, in first-use order

    # -- types ---------------------------------------------------------------------------
    def t(self, dt):
        return self.d.type(dt)

    def _unsigned(self, dt):
        return self.t(np.dtype(f"u{np.dtype(dt).itemsize}"))

    def _signed(self, dt):
        return self.t(np.dtype(f"i{np.dtype(dt).itemsize}"))

    def _wide(self, dt):
        """The unsigned type wrapping arithmetic of ``dt`` is done in (>= 32 bits)."""
        return self.t(np.dtype("u8" if np.dtype(dt).itemsize == 8 else "u4"))

    def helper(self, name, text):
        if name not in self.helpers:
            self.helpers[name] = f"#ifndef TJ_H_{name}\n#define TJ_H_{name}\n" \
                                 f"{self.d.func_prefix} {text}\n#endif"
        return name

    def half(self, spelling, **fmt):
        """The dialect's float16 ``spelling`` (a ``Dialect.half_*`` attribute's name)
        formatted with ``fmt``; the helpers it calls join the prelude."""
        text = getattr(self.d, spelling)
        if not text:
            raise NotImplementedError(f"C renderer: dialect {self.d.name!r} does not render "
                                      "float16; route it to a library call")
        text = text.format(**fmt)
        funcs, used, seen = self.d.half_funcs, set(), text
        while True:     # (the helpers the text calls, and those they call)
            more = {n for n in funcs if n + "(" in seen} - used
            if not more:
                break
            used |= more
            seen = " ".join(funcs[n] for n in more)
        for name in funcs:      # (in their table's order: callees first)
            if name in used:
                self.helper(name, funcs[name])
        return text

    def round_half(self, x):
        """The float ``x`` rounded to the nearest half value (still a float)."""
        return self.half("half_round", x=x)

    def prelude(self):
        return "\n".join(self.helpers.values())

    # -- constants -----------------------------------------------------------------------
    def const(self, value, dt):
        """A C literal of dtype ``dt`` holding ``value``."""
        dt = check_dtype(dt, "constant")
        if dt.kind == "b":
            return "true" if bool(value) else "false"
        if dt.kind == "f":
            v = float(dt.type(value))       # (a float16 constant: its half value, as float)
            tag = "F64" if dt.itemsize == 8 else "F32"
            if np.isnan(v):
                return f"TJ_NAN_{tag}"
            if v in (float("inf"), float("-inf")):
                return f"TJ_INF_{tag}" if v > 0 else f"(-TJ_INF_{tag})"
            text = repr(v)
            if "e" not in text and "." not in text:
                text += ".0"
            return f"({text}{'f' if dt.itemsize <= 4 else ''})"
        bits = 8 * dt.itemsize
        v = int(value) & ((1 << bits) - 1)
        if dt.kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        if -(1 << 31) < v < (1 << 31):
            return f"(({self.t(dt)}){v})"
        return f"(({self.t(dt)})0x{v & ((1 << bits) - 1):x}{self.d.u64_suffix})"

    # -- conversions ---------------------------------------------------------------------
    def convert(self, x, src, dst):
        """``convert_element_type`` of the C value ``x`` from ``src`` to ``dst``."""
        src, dst = np.dtype(src), np.dtype(dst)
        if src == dst:
            return x
        if dst.kind == "b":
            return f"({x} != 0)"       # for floats NaN != 0 is true: tjit's rule
        if src.kind == "f" and dst.kind in "iu":     # (a half value is a float)
            return f"{self._f2i(F32 if src == F16 else src, dst)}({x})"
        if dst == F16:
            if src.itemsize == 8 and src.kind == "f":
                return self.half("half_from_f64", x=x)
            return self.round_half(f"((float){x})")  # ints: < 2^24 exact, else inf anyway
        return f"(({self.t(dst)}){x})"   # ints wrap (two's complement); floats round

    def bitcast(self, x, src, dst):
        """The bits of the C value ``x`` (dtype ``src``) as ``dst`` of the same width,
        through a union (defined in C, OpenCL C and CUDA; no aliasing through casts)."""
        if src.itemsize != dst.itemsize or "b" in (src.kind, dst.kind) or F16 in (src, dst):
            raise TypeError(f"C renderer: bitcast needs non-bool, non-half dtypes of one "
                            f"width, got {src.name} -> {dst.name}")
        if src == dst:
            return x
        name = f"tj_bits_{_tag(src)}_{_tag(dst)}"
        st, dt = self.t(src), self.t(dst)
        return self.helper(name, f"{dt} {name}({st} x) {{ union {{ {st} a; {dt} b; }} u; "
                                 f"u.a = x; return u.b; }}") + f"({x})"

    def _f2i(self, src, dst):
        name = f"tj_cvt_{_tag(src)}_{_tag(dst)}"
        ft, it = self.t(src), self.t(dst)
        bits = 8 * dst.itemsize
        sfx = "f" if src.itemsize == 4 else ""
        if dst.kind == "u":
            hi, top = f"{float(2 ** bits)!r}{sfx}", self.const((1 << bits) - 1, dst)
            body = f"return !(x > 0) ? ({it})0 : x >= {hi} ? {top} : ({it})x;"
        else:
            lim = f"{float(2 ** (bits - 1))!r}{sfx}"
            lo, top = self.const(-(1 << (bits - 1)), dst), self.const((1 << (bits - 1)) - 1,
                                                                      dst)
            body = (f"return x != x ? ({it})0 : x <= -{lim} ? {lo} : x >= {lim} ? {top} "
                    f": ({it})x;")
        return self.helper(name, f"{it} {name}({ft} x) {{ {body} }}")

    # -- elementwise ops -----------------------------------------------------------------
    def op(self, op, args, arg_dtypes, out_dtype):
        """The C expression of kernel-IR op ``op`` on the C values ``args``."""
        out = check_dtype(out_dtype, f"op {op!r}")
        dts = [check_dtype(d, f"op {op!r}") for d in arg_dtypes]
        if op == "convert":
            return self.convert(args[0], dts[0], out)
        if op == "bitcast":
            return self.bitcast(args[0], dts[0], out)
        if op == "select":
            if dts[0].kind != "b" or dts[1] != dts[2]:
                raise TypeError(f"C renderer: select needs a bool predicate and equal case "
                                f"dtypes, got {[d.name for d in dts]}")
            return f"({args[0]} ? {args[1]} : {args[2]})"
        if len(set(dts)) != 1:
            raise TypeError(f"C renderer: op {op!r} needs operands of one dtype, got "
                            f"{[d.name for d in dts]}; insert a convert")
        dt = dts[0]
        if op in _CMP:
            return f"({args[0]} {_CMP[op]} {args[1]})"
        if dt == F16:
            return self._half_op(op, args)
        r = {"f": self._float_op, "b": self._bool_op}.get(dt.kind, self._int_op)(op, args, dt)
        if r is None:
            raise TypeError(f"C renderer: op {op!r} is not defined for dtype {dt.name}")
        return r

    def _float_op(self, op, args, dt):
        t, d = self.t(dt), self.d
        x = args[0]
        y = args[1] if len(args) == 2 else None
        if op in _ARITH:
            return f"({x} {_ARITH[op]} {y})"
        if op == "neg":
            return f"(-{x})"
        if op in ("max", "min"):   # IEEE 754-2019: NaN wins, -0 < +0
            cmp, neg = (">", "!") if op == "max" else ("<", "")
            return (f"(({x} != {x} || {x} {cmp} {y} || ({x} == {y} && {neg}signbit({x}))) "
                    f"? {x} : {y})")
        if op == "sign":
            return (f"({x} != {x} ? {x} : {x} > 0 ? ({t})1 : {x} < 0 ? ({t})-1 : "
                    f"({t})0)")
        if op == "is_finite":
            inf = "TJ_INF_F32" if dt.itemsize == 4 else "TJ_INF_F64"
            return f"({d.math_name('abs', dt)}({x}) < {inf})"
        if op == "rsqrt":   # not rsqrtf: CUDA's is approximate
            return f"(({t})1 / {d.math_name('sqrt', dt)}({x}))"
        if op == "logistic":
            return f"{self._logistic(dt)}({x})"
        if op == "log1p":   # log1p(x) = x below the smallest normal (PoCL's gives 0 there)
            tiny = "1.17549435e-38f" if dt.itemsize == 4 else "2.2250738585072014e-308"
            return (f"({d.math_name('abs', dt)}({x}) < {tiny} ? {x} : "
                    f"{d.math_name('log1p', dt)}({x}))")
        if op == "digamma":     # (no C library has one)
            return f"{self._digamma(dt)}({x})"
        if op == "lgamma":
            return f"{self._lgamma(dt)}({x})"
        # fma: a*b + c rounded once in every dialect (C99 fma/fmaf, OpenCL's fma, CUDA's
        # fmaf whatever --fmad says, hls::fma)
        if op in ("abs", "floor", "ceil", "round", "round_even", "sqrt", "rem",
                  "nextafter", "fma") or op in TRANSCENDENTAL:
            return f"{d.math_name(op, dt)}({', '.join(args)})"
        return None

    def _half_op(self, op, args):
        """A float16 op: the float op, rounded once to half (``rsqrt`` and ``logistic``
        round after each of their reference implementation's NumPy steps)."""
        rh = self.round_half
        if op == "nextafter":   # a step of the half's bits (a float step rounds back);
            # x == y gives y, as C's nextafter for float/double (tjit's rule on every dtype)
            return f"{self._nextafter_half()}({args[0]}, {args[1]})"
        if op == "rsqrt":        # 1 / sqrt(x) in two float16 steps
            root = rh(f"{self.d.math_name('sqrt', F32)}({args[0]})")
            return rh(f"(1.0f / {root})")
        if op == "logistic":
            return f"{self._logistic_half()}({args[0]})"
        if op == "fma":          # (fmaf then a rounding to half would round twice)
            raise TypeError("C renderer: fma needs float32 or float64 operands, got float16")
        r = self._float_op(op, args, F32)
        if r is None:
            raise TypeError(f"C renderer: op {op!r} is not defined for dtype float16")
        return r if op in _HALF_EXACT else rh(r)

    def _nextafter_half(self):
        name, u16 = "tj_nextafter_float16", self.t(np.dtype("uint16"))
        self.round_half("x")          # (declares tj_h2f / tj_f2h: exact on half values)
        return self.helper(name, f"float {name}(float x, float y) {{ if (x != x || y != y) "
                                 f"return x + y; if (x == y) return y; if (x == 0) return "
                                 f"y > 0 ? 5.9604645e-08f : -5.9604645e-08f; {u16} h = "
                                 f"tj_f2h(x); h = ({u16})((y > x) == (x > 0) ? h + 1 : h - 1);"
                                 f" return tj_h2f(h); }}")

    def _logistic_half(self):
        # tjit's impl on float16: e = exp(-|x|), then 1 / (1 + e) or e / (1 + e), each
        # NumPy step rounded to half
        name, rh = "tj_logistic_float16", self.round_half
        exp, fabs = self.d.math_name("exp", F32), self.d.math_name("abs", F32)
        e, den = rh(f"{exp}(-{fabs}(x))"), rh("(1.0f + e)")
        return self.helper(name, f"float {name}(float x) {{ const float e = {e}; "
                                 f"const float d = {den}; "
                                 f"return x >= 0 ? {rh('(1.0f / d)')} : {rh('(e / d)')}; }}")

    def _lgamma(self, dt):
        # the library's, with the reference semantics' (SciPy's) value where C's differs:
        # lgamma(-inf) = -inf (denormals keep the library's true value, -log|x|)
        name, t = f"tj_lgamma_{_tag(dt)}", self.t(dt)
        inf = "TJ_INF_F32" if dt.itemsize == 4 else "TJ_INF_F64"
        return self.helper(name, f"{t} {name}({t} x) {{ if (x == -{inf}) return x; "
                                 f"return {self.d.math_name('lgamma', dt)}(x); }}")

    def _digamma(self, dt):
        # +-0: -+inf, negative integers and -inf: NaN (kernel_semantics); x < 0 by
        # reflection, psi(x) = psi(1 - x) - pi cot(pi x), cot(pi r) = sin(pi (1/2 - |r|)) /
        # sin(pi |r|) with r = x - round(x) exact; then psi(x) = psi(x + 1) - 1/x up to
        # 10 and the asymptotic series (Bernoulli numbers) there
        name, t = f"tj_digamma_{_tag(dt)}", self.t(dt)
        f = {n: self.d.math_name(n, dt) for n in ("floor", "abs", "sin", "log")}
        sfx = "f" if dt.itemsize == 4 else ""
        pi = f"3.141592653589793{sfx}"
        nan = "TJ_NAN_F32" if dt.itemsize == 4 else "TJ_NAN_F64"
        series = "0"
        for c in reversed([1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760,
                           1 / 12, -3617 / 8160]):
            series = f"({c!r}{sfx} + u * {series})" if series != "0" else f"{c!r}{sfx}"
        inf = "TJ_INF_F32" if dt.itemsize == 4 else "TJ_INF_F64"
        body = (f"if (x != x) return x; if (x == 0) return signbit(x) ? {inf} : -{inf}; "
                f"if (x < 0 && {f['floor']}(x) == x) return {nan}; "
                f"{t} acc = 0; if (x < 0) {{ {t} r = x - {f['floor']}(x + ({t})0.5); "
                f"{t} a = {f['abs']}(r); {t} c = {f['sin']}({pi} * (({t})0.5 - a)) / "
                f"{f['sin']}({pi} * a); acc = r < 0 ? {pi} * c : -{pi} * c; x = 1 - x; }} "
                f"while (x < 10) {{ acc -= 1 / x; x += 1; }} {t} u = 1 / (x * x); "
                f"return acc + {f['log']}(x) - ({t})0.5 / x - u * {series};")
        return self.helper(name, f"{t} {name}({t} x) {{ {body} }}")

    def _logistic(self, dt):
        # 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: no overflow, no cancellation
        name, t = f"tj_logistic_{_tag(dt)}", self.t(dt)
        exp = self.d.math_name("exp", dt)
        return self.helper(name, f"{t} {name}({t} x) {{ if (x >= 0) {{ {t} e = {exp}(-x); "
                                 f"return ({t})1 / (({t})1 + e); }} {t} e = {exp}(x); "
                                 f"return e / (({t})1 + e); }}")

    def _bool_op(self, op, args, dt):
        if op == "not":
            return f"(!{args[0]})"
        if len(args) != 2:
            return None
        x, y = args
        if op in ("and", "mul", "min"):
            return f"({x} && {y})"
        if op in ("or", "add", "max"):
            return f"({x} || {y})"
        if op == "xor":
            return f"({x} != {y})"
        return None

    def _int_op(self, op, args, dt):
        t, w = self.t(dt), self._wide(dt)
        x = args[0]
        y = args[1] if len(args) == 2 else None
        signed = dt.kind == "i"
        if op in ("add", "sub", "mul"):
            return f"(({t})(({w}){x} {_ARITH[op]} ({w}){y}))"
        if op == "neg":
            return f"(({t})(({w})0 - ({w}){x}))"
        if op == "abs":
            return f"({x} < 0 ? ({t})(({w})0 - ({w}){x}) : {x})" if signed else x
        if op == "sign":
            return f"(({t})(({x} > 0) - ({x} < 0)))" if signed else f"(({t})({x} != 0))"
        if op == "not":
            return f"(({t})~{x})"
        if op == "population_count":    # of the bits of x's own width
            wide = "u8" if dt.itemsize == 8 else "u4"
            count = self.d.popcount[dt.itemsize == 8]
            return f"(({t}){count}(({self.t(np.dtype(wide))})({self._unsigned(dt)}){x}))"
        if op in _BITS:
            return f"(({t})({x} {_BITS[op]} {y}))"
        if op in ("max", "min"):
            return f"({x} {'>' if op == 'max' else '<'} {y} ? {x} : {y})"
        if op in ("div", "rem"):
            return f"{self._divrem(op, dt)}({x}, {y})"
        if op.startswith("shift_"):
            return self._shift(op, x, y, dt)
        return None

    def _divrem(self, op, dt):
        name, t = f"tj_{op}_{_tag(dt)}", self.t(dt)
        if dt.kind == "i":
            w = self._wide(dt)
            # y == -1 first: x / -1 is -x (wrapping, so INT_MIN stays), x rem -1 is 0
            by_m1 = f"({t})(({w})0 - ({w})x)" if op == "div" else f"({t})0"
            zero = f"({t})-1" if op == "div" else "x"
            body = (f"return y == 0 ? {zero} : y == -1 ? {by_m1} : "
                    f"({t})(x {'/' if op == 'div' else '%'} y);")
        else:
            zero = f"({t})~({t})0" if op == "div" else "x"
            body = f"return y == 0 ? {zero} : ({t})(x {'/' if op == 'div' else '%'} y);"
        return self.helper(name, f"{t} {name}({t} x, {t} y) {{ {body} }}")

    def _shift(self, op, x, y, dt):
        t, u, w = self.t(dt), self._unsigned(dt), self._wide(dt)
        bits = 8 * dt.itemsize
        oob = f"({u}){y} >= {bits}"      # negative amounts are huge unsigned
        if op == "shift_left":
            return f"({oob} ? ({t})0 : ({t})(({w}){x} << {y}))"
        if op == "shift_right_logical":
            return f"({oob} ? ({t})0 : ({t})(({u}){x} >> {y}))"
        s = self._signed(dt)             # the sign fill of the signed view, for uints too
        return f"(({t})(({s}){x} >> ({oob} ? {bits - 1} : (int){y})))"

    # -- reductions ----------------------------------------------------------------------
    def identity(self, monoid, dt):
        """The monoid's identity (``kernel_ir.identity``) as a C literal."""
        return self.const(K.identity(monoid, dt), dt)

    def combine(self, monoid, acc, x, dt):
        """``acc (monoid) x`` with evaluate's meaning (``kernel_semantics``): sum/prod/
        max/min are the ops of the same names (bool: or/and/or/and); ``and``/``or`` are
        logical on bool and bitwise on integers."""
        dt = np.dtype(dt)
        if dt == F16 and monoid in ("sum", "prod"):   # float accumulator, rounded on use
            return f"({acc} {'+' if monoid == 'sum' else '*'} {x})"
        if monoid in _MONOID_OP:
            return self.op(_MONOID_OP[monoid], [acc, x], [dt, dt], dt)
        if monoid in ("and", "or"):
            if dt.kind == "b":
                return f"({acc} {'&&' if monoid == 'and' else '||'} {x})"
            return self.op(monoid, [acc, x], [dt, dt], dt)
        raise ValueError(f"C renderer: unknown monoid {monoid!r}")
