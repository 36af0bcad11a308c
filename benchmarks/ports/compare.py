"""Compare the per-cell records of a page run with JAX and with tjit (run_page.py).

A cell matches when both raise the same exception type, or neither raises and the
printed text and the last expression's repr agree token by token: numbers within a
tolerance (float32 results computed in another order differ in the last digits), any
other token exactly, after normalising things that differ by design (object addresses,
device names, timings, the package's name in reprs).
"""

import json
import re
import sys

NUM = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan"
TOKEN = re.compile(rf"({NUM})|(\S)")

# Texts that differ between the two by design, replaced before comparing.
NORMALISE = [
    (re.compile(r"0x[0-9a-f]+"), "0xADDR"),
    (re.compile(r"\b(?:TFRT_)?CpuDevice\(id=\d+\)|\bcpu:\d+\b|\bTFRT_CPU_\d+\b"), "DEVICE"),
    (re.compile(r"\btjit\b"), "jax"),
    (re.compile(r"[\d.]+ ?(?:ns|µs|us|ms|s) ± [\d.]+ ?(?:ns|µs|us|ms|s).*"), "TIMING"),
    # jaxpr params of JAX's sharding in types, which tjit's primitives do not carry
    (re.compile(r"\[(?:out_)?sharding=None\]|\s+(?:out_)?sharding=None(?=[\]\s])"
                r"|(?<=\[)(?:out_)?sharding=None\s+"), ""),
]


def normalise(s):
    for pat, rep in NORMALISE:
        s = pat.sub(rep, s)
    return s


def tokens(s):
    out = []
    for m in TOKEN.finditer(normalise(s)):
        out.append(("n", float(m.group(1))) if m.group(1) else ("t", m.group(2)))
    return out


def close(a, b, rtol, atol):
    if a != a and b != b:
        return True
    if a in (float("inf"), float("-inf")) or b in (float("inf"), float("-inf")):
        return a == b
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def same_text(a, b, rtol=2e-3, atol=2e-5):
    ta, tb = tokens(a or ""), tokens(b or "")
    if len(ta) != len(tb):
        return False
    for (ka, va), (kb, vb) in zip(ta, tb):
        if ka != kb:
            return False
        if ka == "n" and not close(va, vb, rtol, atol):
            return False
        if ka == "t" and va != vb:
            return False
    return True


def compare_cell(j, t):
    """'match', or a short description of the difference."""
    if "skipped" in j:
        return "skipped"
    je, te = j["exc"], t["exc"]
    if je or te:
        if je and te:   # (tjit may raise a subclass of JAX's type: RefError of Exception)
            return "match" if je["type"] in te.get("mro", [te["type"]]) else \
                f"exc {je['type']} vs {te['type']}: {te['msg'][:200]}"
        if te:
            return f"tjit raises {te['type']}: {te['msg'][:300]}"
        return f"jax raises {je['type']}: {je['msg'][:200]}; tjit runs"
    if not same_text(j["stdout"], t["stdout"]):
        return f"stdout differs:\n  jax : {j['stdout'][:600]!r}\n  tjit: {t['stdout'][:600]!r}"
    if (j["repr"] is None) != (t["repr"] is None) or not same_text(j["repr"], t["repr"]):
        return f"repr differs:\n  jax : {str(j['repr'])[:600]!r}\n  tjit: {str(t['repr'])[:600]!r}"
    return "match"


def _same_shape(a, b):
    """Same tokens apart from the numbers' values: the difference is only numeric."""
    ta, tb = tokens(a or ""), tokens(b or "")
    return len(ta) == len(tb) and all(ka == kb and (ka == "n" or va == vb)
                                      for (ka, va), (kb, vb) in zip(ta, tb))


def classify(j, t, verdict):
    """A rough kind for a differing cell, to tally what is by design and what is not."""
    je, te = j.get("exc"), t.get("exc")
    jt = (j.get("stdout") or "") + str(j.get("repr") or "")
    tt = (t.get("stdout") or "") + str(t.get("repr") or "")
    if je and not te and (je["type"] == "ImportError" or "unexpected keyword" in je["msg"]
                          or "has no attribute" in je["msg"]):
        return "docs newer than JAX 0.10.2"
    if je and not te and je["type"] in ("ModuleNotFoundError", "NameError"):
        return "harness (JAX side)"
    if te and te["type"] == "NameError":
        return "follows an earlier failure"
    if te and not je:
        return "tjit raises"
    if "{ lambda" in jt or "{ lambda" in tt:
        return "jaxpr text"
    if "from the argument" in jt:
        return "print_saved_residuals format"
    if not je and not te and _same_shape(jt, tt):
        return "numbers"
    return "other"


def compare(jax_json, tjit_json):
    j_cells = json.load(open(jax_json))
    t_cells = json.load(open(tjit_json))
    out = []
    for j, t in zip(j_cells, t_cells):
        v = compare_cell(j, t)
        kind = None if v in ("match", "skipped") else classify(j, t, v)
        out.append((j["i"], v, kind))
    return out


if __name__ == "__main__":
    for i, verdict, kind in compare(sys.argv[1], sys.argv[2]):
        print(i, f"[{kind}]" if kind else "", verdict)
