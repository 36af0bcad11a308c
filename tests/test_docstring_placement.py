"""A string literal written as a docstring but placed after a statement is no docstring:
the function's ``__doc__`` is None and the text is dead code (lax's
``_unary_with_accuracy`` had its label assignment above its docstring)."""

import ast
import pathlib

import tjit

_ROOT = pathlib.Path(tjit.__file__).parent


def _displaced_docstrings(source):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                ast.get_docstring(node) is None:
            for stmt in node.body[1:3]:
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                        and isinstance(stmt.value.value, str):
                    yield node.name, node.lineno


def test_the_check_finds_a_displaced_docstring():
    src = 'def f(x):\n    y = 1\n    """Doc."""\n    return y\n'
    assert list(_displaced_docstrings(src)) == [("f", 1)]


def test_no_docstring_follows_a_statement():
    found = [f"{p.relative_to(_ROOT)}:{line} {name}" for p in sorted(_ROOT.rglob("*.py"))
             for name, line in _displaced_docstrings(p.read_text())]
    assert not found, "docstrings placed after a statement:\n" + "\n".join(found)
