"""Run one JAX docs page's code cells in order and record what each cell shows.

    python run_page.py PAGE.md|PAGE.ipynb --as jax|tjit --out result.json

With ``--as tjit`` every ``import jax...`` resolves to the same-named tjit module (an
import alias: the page's text is not edited), which is what porting by changing imports
does. Per cell we keep the printed stdout, the repr of a last expression (as a notebook
displays it) and the exception type and message, if any. IPython magics are dropped
(``%timeit stmt`` runs ``stmt`` once); cells that install packages are skipped.
"""

import argparse
import ast
import contextlib
import importlib
import importlib.abc
import importlib.util
import io
import json
import os
import re
import signal
import sys
import traceback
import warnings

CELL_TIMEOUT_S = int(os.environ.get("PORTS_CELL_TIMEOUT", "120"))


def md_cells(text):
    """Code cells of a MyST page: ```{code-cell} blocks (options lines dropped)."""
    cells = []
    for m in re.finditer(r"^```\{code-cell\}[^\n]*\n(.*?)^```", text, re.S | re.M):
        body = m.group(1)
        tags = []
        lines = body.split("\n")
        # options: ':tags: [...]' lines or a '---' YAML block
        if lines and lines[0].strip() == "---":
            end = lines.index("---", 1) if "---" in lines[1:] else 0
            opts, lines = lines[1:end], lines[end + 1:]
            tags = re.findall(r"[\w-]+", " ".join(o for o in opts if "tags" in o))
        while lines and lines[0].startswith(":"):
            tags += re.findall(r"[\w-]+", lines[0]) if "tags" in lines[0] else []
            lines = lines[1:]
        cells.append({"source": "\n".join(lines), "tags": tags})
    return cells


def ipynb_cells(text):
    nb = json.loads(text)
    out = []
    for c in nb["cells"]:
        if c.get("cell_type") != "code":
            continue
        src = c["source"]
        out.append({"source": "".join(src) if isinstance(src, list) else src,
                    "tags": c.get("metadata", {}).get("tags", [])})
    return out


def strip_magics(src):
    """Drop IPython magics; `%timeit stmt` keeps `stmt` (run once)."""
    out = []
    skip_cell_magic = False
    for line in src.split("\n"):
        s = line.lstrip()
        if s.startswith("%%"):
            if s.startswith("%%timeit") or s.startswith("%%time"):
                continue
            skip_cell_magic = True
            continue
        if s.startswith("%") or s.startswith("!"):
            m = re.match(r"(\s*)%timeit(?:\s+-\S+(?:\s+\d+)?)*\s+(.*)", line)
            if m:
                out.append(m.group(1) + m.group(2))
            else:
                m = re.match(r"(\s*)%time\s+(.*)", line)
                if m:
                    out.append(m.group(1) + m.group(2))
            continue
        out.append(line)
    return "" if skip_cell_magic else "\n".join(out)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolve `jax` and `jax.x.y` to `tjit` and `tjit.x.y` (the same module objects)."""

    def find_spec(self, fullname, path, target=None):
        if fullname == "jax" or fullname.startswith("jax."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        mod = importlib.import_module("tjit" + spec.name[3:])
        return mod

    def exec_module(self, module):
        pass


def _alias_jax():
    sys.meta_path.insert(0, _Alias())


class _Anything:
    """Stands in for a plotting or data module this machine lacks (matplotlib, pandas):
    every attribute, call and item is another stand-in, so plotting cells run as no-ops
    for JAX and tjit alike instead of failing for one of them."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getitem__(self, key):
        return _Anything()

    def __iter__(self):
        return iter([_Anything(), _Anything()])

    def __repr__(self):
        return "<stand-in>"


STUBBED = ("matplotlib", "matplotlib.pyplot", "matplotlib.cm", "pandas", "seaborn")


def _stub_missing_modules():
    """Same stand-ins for both runs: plots are not compared, and the JAX venv lacks them."""
    import types
    for name in STUBBED:
        mod = types.ModuleType(name)
        mod.__getattr__ = lambda attr: _Anything()
        sys.modules[name] = mod


def _offline_datasets():
    """scipy.datasets downloads its images (pooch); pages get a fixed small image."""
    import types
    import numpy as np
    mod = types.ModuleType("scipy.datasets")
    rng = np.random.default_rng(0)
    face = rng.integers(0, 256, (96, 128, 3), dtype=np.uint8)
    mod.face = lambda gray=False: face.mean(-1).astype(np.uint8) if gray else face
    mod.ascent = lambda: face[..., 0].astype(np.int64)
    sys.modules["scipy.datasets"] = mod
    import scipy
    scipy.datasets = mod


def _fixed_seeds():
    """Pages draw from NumPy's global generator unseeded; both runs get the same draws."""
    import random
    import numpy as np
    np.random.seed(0)
    random.seed(0)


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout(f"cell ran past {CELL_TIMEOUT_S} s")


def run_cell(src, ns):
    tree = ast.parse(src)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    buf = io.StringIO()
    rec = {"stdout": "", "repr": None, "exc": None}
    signal.alarm(CELL_TIMEOUT_S)
    try:
        with contextlib.redirect_stdout(buf), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(tree, "<cell>", "exec"), ns)
            if last is not None:
                val = eval(compile(last, "<cell>", "eval"), ns)
                if val is not None:
                    rec["repr"] = repr(val)
    except BaseException as e:  # noqa: BLE001 - a cell's failure is data here
        if isinstance(e, KeyboardInterrupt):
            raise
        tb = traceback.extract_tb(e.__traceback__)
        rec["exc"] = {"type": type(e).__name__, "msg": str(e)[:2000],
                      "mro": [c.__name__ for c in type(e).__mro__],
                      "where": [f"{f.filename}:{f.lineno} {f.name}" for f in tb[-4:]]}
    finally:
        signal.alarm(0)
    rec["stdout"] = buf.getvalue()[:20000]
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--as", dest="impl", choices=["jax", "tjit"], required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    text = open(a.page).read()
    cells = ipynb_cells(text) if a.page.endswith(".ipynb") else md_cells(text)
    if a.impl == "tjit":
        _alias_jax()
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=1")
    signal.signal(signal.SIGALRM, _on_alarm)
    _stub_missing_modules()
    _offline_datasets()
    # (importing JAX draws from NumPy's global generator: import first, then seed)
    importlib.import_module("jax.numpy")
    _fixed_seeds()
    ns = {"__name__": "__main__"}
    results = []
    for i, c in enumerate(cells):
        src = strip_magics(c["source"])
        if re.search(r"^\s*(pip|conda)\s+install", src, re.M):
            results.append({"i": i, "skipped": "install"})
            continue
        try:
            ast.parse(src)
        except SyntaxError as e:
            results.append({"i": i, "skipped": f"syntax: {e}"})
            continue
        rec = run_cell(src, ns)
        rec.update(i=i, source=c["source"], tags=c["tags"])
        results.append(rec)
        status = "EXC " + rec["exc"]["type"] if rec["exc"] else "ok"
        sys.stderr.write(f"[{a.impl}] cell {i}: {status}\n")
    with open(a.out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
