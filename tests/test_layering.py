"""DESIGN.md's import rules: a lower layer never imports a higher one."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "tjit"

# folder -> module prefixes it must not import (DESIGN.md, "Layers and who may import whom")
FORBIDDEN = {
    "tracing": ["tjit.primitives", "tjit.transforms", "tjit.xla_like", "tjit.lower",
                "tjit.devices", "tjit.numpy", "tjit.lax", "tjit.nn", "tjit.random", "tjit.api"],
    "primitives": ["tjit.transforms", "tjit.xla_like.fusion", "tjit.lower", "tjit.devices",
                   "tjit.numpy", "tjit.nn", "tjit.random", "tjit.api"],
    "transforms": ["tjit.xla_like", "tjit.lower", "tjit.devices", "tjit.numpy", "tjit.api"],
    "xla_like": ["tjit.devices", "tjit.lower.llvm", "tjit.lower.cuda", "tjit.lower.opencl",
                 "tjit.lower.hls", "tjit.api"],
    "lower": ["tjit.tracing", "tjit.transforms", "tjit.api"],
    "devices": ["tjit.transforms", "tjit.numpy", "tjit.api"],
    "numpy": ["tjit.xla_like", "tjit.lower", "tjit.devices"],
    "lax": ["tjit.xla_like", "tjit.lower", "tjit.devices"],
    "nn": ["tjit.xla_like", "tjit.lower", "tjit.devices"],
    "random": ["tjit.xla_like", "tjit.lower", "tjit.devices"],
}


def _imports(path):
    tree = ast.parse(path.read_text())
    pkg = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                mod = ".".join(base + ([mod] if mod else []))
            yield node.lineno, mod
            for a in node.names:  # `from tjit import numpy` imports tjit.numpy
                yield node.lineno, f"{mod}.{a.name}"


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_no_upward_imports(folder):
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for line, mod in _imports(path):
            for prefix in FORBIDDEN[folder]:
                if mod == prefix or mod.startswith(prefix + "."):
                    bad.append(f"{path.relative_to(ROOT.parent)}:{line} imports {mod}")
    assert not bad, "layering violations:\n" + "\n".join(bad)
