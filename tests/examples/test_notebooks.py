"""The example notebooks (``examples/notebooks/``) run from the first cell to the last
on a Jupyter kernel of this interpreter (nbclient), as a user would run them: any cell
that raises fails the test. Their own cells check results against NumPy, finite
differences and a Python loop; here we check what they display."""

import pathlib
import sys

import pytest

nbformat = pytest.importorskip("nbformat", reason="the test extra brings nbformat")
nbclient = pytest.importorskip("nbclient", reason="the test extra brings nbclient")

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "notebooks"


def execute(nb, cwd):
    # "python3" is ipykernel's spec; jupyter_client starts it with sys.executable
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=120,
                                     resources={"metadata": {"path": str(cwd)}})
    client.execute()
    return nb


def outputs(nb, mime):
    return [o["data"][mime] for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", ()) if mime in o.get("data", {})]


def test_the_kernel_is_this_interpreter_and_a_cell_that_raises_fails_the_run(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import sys, tjit; print(sys.executable)"),
        nbformat.v4.new_code_cell("1 / 0")])
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="ZeroDivisionError"):
        execute(nb, tmp_path)
    text = nb.cells[0].outputs[0]["text"]
    assert pathlib.Path(text.strip()).resolve() == pathlib.Path(sys.executable).resolve()


def test_quickstart(tmp_path):
    nb = execute(nbformat.read(NOTEBOOKS / "quickstart.ipynb", as_version=4), tmp_path)
    (picture,) = outputs(nb, "text/html")   # tjit.show's plan of Mish's gradient
    assert picture.count('<g class="tjit-node tjit-kernel"') == 1
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.outputs)
    assert "TypeError: tjit arrays are immutable" in text
    assert "[('kernel', 'fusion_0')]" in text


def test_train_mlp_digits(tmp_path):
    nb = execute(nbformat.read(NOTEBOOKS / "train_mlp_digits.ipynb", as_version=4),
                 tmp_path)
    assert len(outputs(nb, "image/png")) == 1       # the loss plot
    (picture,) = outputs(nb, "text/html")           # the training step's plan
    assert picture.count('<g class="tjit-node tjit-dot"') >= 3
    assert picture.count('<g class="tjit-node tjit-kernel"') >= 2


def code_text(nb):
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.outputs)


def test_data_wrangling(tmp_path):
    pytest.importorskip("pandas", reason="the test extra brings pandas")
    nb = execute(nbformat.read(NOTEBOOKS / "data_wrangling.ipynb", as_version=4), tmp_path)
    assert (tmp_path / "wrangling.png").stat().st_size > 0
    assert (tmp_path / "scatter.png").stat().st_size > 0
    text = code_text(nb)
    # what JAX refuses too is shown with an error that names the fix
    assert "use x = x.at[idx].set(value) instead of x[idx] = value" in text
    assert "pandas.factorize" in text
    assert "wrap it with jnp.asarray(...) first" in text
    assert "rows with qty > 5" in text              # masks handed to pandas as NumPy
    assert "all agree with NumPy" in text


def test_numerical_methods(tmp_path):
    nb = execute(nbformat.read(NOTEBOOKS / "numerical_methods.ipynb", as_version=4),
                 tmp_path)
    text = code_text(nb)
    assert "two strongest frequencies: [10. 40.]" in text
    assert "use x = x.at[idx].set(value)" in text
    assert "all agree with NumPy" in text
