"""Every test that runs kernels on OpenCL says so with the ``opencl`` marker, so that
where the OpenCL backend cannot run (no driver, or a compiler that builds nothing, as
PoCL's LLVM 14 on a CPU it does not know) it is skipped with the reason (tests/conftest.py)
instead of failing. A static check over the test sources: a call with
``backend="opencl"`` or ``"opencl_swi"`` outside ``pytest.raises`` needs the marker on
its test function or module (tests parametrized over backend names are marked at
collection)."""

import ast
import pathlib

TESTS = pathlib.Path(__file__).resolve().parent
OPENCL_BACKENDS = {"opencl", "opencl_swi"}


def _is_opencl_mark(node):
    """``pytest.mark.opencl`` (or a call of it) anywhere in ``node``."""
    return any(isinstance(n, ast.Attribute) and n.attr == "opencl"
               and isinstance(n.value, ast.Attribute) and n.value.attr == "mark"
               for n in ast.walk(node))


def _raises_block(node):
    return isinstance(node, ast.With) and any(
        isinstance(i.context_expr, ast.Call) and isinstance(i.context_expr.func, ast.Attribute)
        and i.context_expr.func.attr == "raises" for i in node.items)


def _opencl_calls(node, expected_error=False):
    """Line numbers of calls given ``backend="opencl"``/``"opencl_swi"`` in ``node``,
    not counting those inside ``with pytest.raises(...)`` (a test of the refusal)."""
    expected_error = expected_error or _raises_block(node)
    found = []
    if isinstance(node, ast.Call) and not expected_error:
        found += [node.lineno for k in node.keywords
                  if k.arg == "backend" and isinstance(k.value, ast.Constant)
                  and k.value.value in OPENCL_BACKENDS]
    for child in ast.iter_child_nodes(node):
        found += _opencl_calls(child, expected_error)
    return found


def unmarked_opencl_tests(path):
    text = path.read_text()
    if "opencl" not in text:
        return []
    tree = ast.parse(text, str(path))
    module_marked = any(isinstance(s, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "pytestmark" for t in s.targets)
        and _is_opencl_mark(s.value) for s in tree.body)
    if module_marked:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name.startswith("test") \
                and not any(_is_opencl_mark(d) for d in node.decorator_list):
            out += [f"{path.relative_to(TESTS)}:{line} ({node.name})"
                    for line in _opencl_calls(node)]
    return out


def test_the_check_sees_an_unmarked_opencl_call(tmp_path):
    f = tmp_path / "test_x.py"
    f.write_text("import pytest\n"
                 "def test_a(x):\n    tjit.jit(f, backend='opencl')(x)\n"
                 "@pytest.mark.opencl\ndef test_b(x):\n    tjit.jit(f, backend='opencl')(x)\n"
                 "def test_c(x):\n    with pytest.raises(RuntimeError):\n"
                 "        tjit.jit(f, backend='opencl_swi')(x)\n"
                 "def test_d(x):\n    tjit.jit(f, backend='cpu')(x)\n")
    global TESTS
    saved, TESTS = TESTS, tmp_path
    try:
        assert unmarked_opencl_tests(f) == ["test_x.py:3 (test_a)"]
    finally:
        TESTS = saved


def test_every_test_running_opencl_is_marked():
    bad = [hit for p in sorted(TESTS.rglob("test_*.py")) for hit in unmarked_opencl_tests(p)]
    assert not bad, ("tests that run on OpenCL without @pytest.mark.opencl (they fail "
                     "instead of skipping where OpenCL cannot run): " + ", ".join(bad))
