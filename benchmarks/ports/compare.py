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


def compare(jax_json, tjit_json):
    j_cells = json.load(open(jax_json))
    t_cells = json.load(open(tjit_json))
    return [(j["i"], compare_cell(j, t)) for j, t in zip(j_cells, t_cells)]


if __name__ == "__main__":
    for i, verdict in compare(sys.argv[1], sys.argv[2]):
        print(i, verdict)
