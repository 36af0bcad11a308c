"""Writes jax_number_operands.json: what JAX gives for ``array op number`` and ``number op
array`` (dtype and weak flag, or the error's type) over the dtypes, Python number kinds
and operators of tests/numpy/test_python_number_lane.py. Run with JAX installed:

    python tests/numpy/data/make_jax_number_operands.py    (JAX 0.10.2 made the file)
"""

import json
import operator
import os

import numpy as np

OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
       "**": operator.pow, "//": operator.floordiv, "%": operator.mod, "==": operator.eq,
       "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
       ">=": operator.ge, "&": operator.and_, "|": operator.or_, "^": operator.xor,
       "<<": operator.lshift, ">>": operator.rshift}
DTYPES = ["bool", "uint8", "int8", "int16", "uint32", "int32", "float16", "float32",
          "complex64"]
NUMBERS = {"int": 3, "float": 1.5, "complex": 0.5 - 1j}


def outcomes(jnp):
    """``"dtype op kind side" -> "dtype weak"`` or the exception's type name."""
    out = {}
    for d in DTYPES:
        a = jnp.asarray(np.array([1, 2, 3]).astype(d))
        for kind, v in NUMBERS.items():
            for name, f in OPS.items():
                for side in (1, 0):
                    try:
                        r = f(a, v) if side else f(v, a)
                        out[f"{d} {name} {kind} {side}"] = f"{r.dtype} {r.weak_type}"
                    except Exception as e:  # noqa: BLE001 - the outcome is its type
                        out[f"{d} {name} {kind} {side}"] = type(e).__name__
    return out


if __name__ == "__main__":
    import jax
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_number_operands.json")
    with open(path, "w") as f:
        json.dump({"jax": jax.__version__, "outcomes": outcomes(jnp)}, f, indent=0,
                  sort_keys=True)
