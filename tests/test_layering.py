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
    "scipy": ["tjit.xla_like", "tjit.lower", "tjit.devices"],
    "image": ["tjit.xla_like", "tjit.lower", "tjit.devices"],
    # mutable array refs: public surface over tracing/refs.py, transforms and jnp
    "state": ["tjit.xla_like", "tjit.lower", "tjit.devices", "tjit.api"],
    # JAX's example libraries: written on the public API only, as user code would be
    "example_libraries": ["tjit.tracing", "tjit.primitives", "tjit.transforms",
                          "tjit.xla_like", "tjit.lower", "tjit.devices"],
    # scale-out, above the public surface: the MPI runtime and global arrays, meshes and
    # shardings, pmap/compile_spmd, shard_map. They reach the compiled plan only through
    # jit and the communicator seam of devices/collectives.py, never the compiler.
    "distributed": ["tjit.transforms", "tjit.xla_like", "tjit.lower", "tjit.api",
                    "tjit.parallel", "tjit.experimental"],
    "sharding.py": ["tjit.transforms", "tjit.xla_like", "tjit.lower", "tjit.api",
                    "tjit.parallel", "tjit.experimental"],
    "parallel.py": ["tjit.xla_like", "tjit.lower", "tjit.experimental"],
    "experimental": ["tjit.transforms", "tjit.xla_like", "tjit.lower"],
    # user-defined primitives (JAX's jax.extend.core / jax.interpreters): the primitive
    # on tracing/, its rule tables on the primitive; mlir.lower_fun inlines through
    # xla_like's lowering (xla.apply_primitive through jit), never a backend
    "extend": ["tjit.xla_like", "tjit.lower", "tjit.devices", "tjit.api"],
    "interpreters": ["tjit.lower", "tjit.devices"],
}
#: The scale-out modules: no layer below them imports them (devices/ learns about other
#: processes through hooks that tjit.distributed sets, e.g. backend.set_process_layout).
SCALE_OUT = ["tjit.distributed", "tjit.sharding", "tjit.parallel", "tjit.experimental"]
for _lower in ("tracing", "primitives", "transforms", "xla_like", "lower", "devices",
               "numpy", "lax", "nn", "random", "scipy", "image", "example_libraries",
               "state"):
    FORBIDDEN[_lower] = FORBIDDEN[_lower] + SCALE_OUT


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
    paths = [ROOT / folder] if folder.endswith(".py") else sorted((ROOT / folder).rglob("*.py"))
    assert paths and paths[0].exists(), f"tjit/{folder} is gone: update FORBIDDEN"
    for path in paths:
        for line, mod in _imports(path):
            for prefix in FORBIDDEN[folder]:
                if mod == prefix or mod.startswith(prefix + "."):
                    bad.append(f"{path.relative_to(ROOT.parent)}:{line} imports {mod}")
    assert not bad, "layering violations:\n" + "\n".join(bad)


def _module_graph(folders):
    """{module: modules of ``folders`` it imports} over the modules of ``folders``."""
    mods = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = path
    graph = {}
    for name, path in mods.items():
        deps = set()
        for _, mod in _imports(path):
            while mod and mod not in mods:
                mod = mod.rpartition(".")[0]
            if mod and mod != name and path.name != "__init__.py":
                deps.add(mod)
        graph[name] = deps
    return graph


def _cycle(graph):
    """One import cycle of ``graph`` as a list of modules, or None."""
    state = {}

    def visit(m, stack):
        state[m] = "open"
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == "open":
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d, stack)
                if found:
                    return found
        stack.pop()
        state[m] = "done"
        return None
    for m in sorted(graph):
        if m not in state:
            found = visit(m, [])
            if found:
                return found
    return None


def test_no_import_cycles_in_compiler_and_devices():
    """Backends register with ``devices/backend.py``; nothing there imports a backend
    back (the CPU backend and the interpreter once imported each other)."""
    cycle = _cycle(_module_graph(["devices", "xla_like", "lower"]))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_registry_and_interpreter_import_no_backend():
    for path in (ROOT / "devices" / "backend.py", ROOT / "devices" / "executable.py",
                 ROOT / "api.py"):
        bad = [m for _, m in _imports(path) if m == "tjit.lower.llvm"
               or m.startswith(("tjit.devices.cpu.", "tjit.lower.llvm."))]
        if path.name != "api.py":
            bad += [m for _, m in _imports(path) if m == "tjit.devices.cpu"]
        assert not bad, f"{path.name} imports backend code: {bad}"


def test_scale_out_uses_only_the_public_seam_of_devices():
    """tjit.distributed, sharding, parallel and experimental use devices/ through its
    public names (the Communicator interface, bind_axes, run_on_devices, backend's
    hooks), never its private helpers."""
    paths = [ROOT / "sharding.py", ROOT / "parallel.py"] + sorted(
        (ROOT / "distributed").rglob("*.py")) + sorted((ROOT / "experimental").rglob("*.py"))
    bad = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "tjit.devices"):
                bad += [f"{path.relative_to(ROOT.parent)}:{node.lineno} imports "
                        f"{node.module}.{a.name}" for a in node.names
                        if a.name.startswith("_")]
    assert not bad, "private names across the scale-out seam:\n" + "\n".join(bad)
