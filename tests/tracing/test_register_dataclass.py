"""tree_util.register_dataclass as JAX documents it: fields marked
``field(metadata=dict(static=True))`` are static aux data, not leaves."""

import dataclasses
import functools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import tree_util


@tree_util.register_dataclass
@dataclasses.dataclass
class _Layer:
    w: object
    b: object
    act: str = dataclasses.field(default="relu", metadata=dict(static=True))
    cache: object = dataclasses.field(default=None, init=False)  # not an init field


def test_static_metadata_fields_are_aux_data_not_leaves():
    layer = _Layer(np.ones(2, np.float32), np.arange(2.0, dtype=np.float32), "tanh")
    leaves, treedef = tjit.tree.flatten(layer)
    assert len(leaves) == 2
    np.testing.assert_array_equal(leaves[1], [0.0, 1.0])
    back = tjit.tree.unflatten(treedef, [np.zeros(2), np.ones(2)])
    assert back.act == "tanh" and np.asarray(back.b).tolist() == [1.0, 1.0]
    # another static value is another tree structure (a new trace under jit)
    assert tjit.tree.structure(_Layer(1.0, 2.0, "relu")) != tjit.tree.structure(
        _Layer(1.0, 2.0, "tanh"))


def test_jit_branches_on_a_static_field():
    calls = []

    @tjit.jit
    def apply(layer, x):
        calls.append(layer.act)
        y = layer.w * x + layer.b
        return jnp.tanh(y) if layer.act == "tanh" else jnp.maximum(y, 0.0)

    x = np.array([-2.0, 3.0], np.float32)
    w, b = np.float32(1.5), np.float32(-0.5)
    np.testing.assert_allclose(np.asarray(apply(_Layer(w, b, "tanh"), x)),
                               np.tanh(1.5 * x - 0.5), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(apply(_Layer(w, b, "relu"), x)),
                               np.maximum(1.5 * x - 0.5, 0), rtol=1e-6)
    assert calls == ["tanh", "relu"]
    g = tjit.grad(lambda layer: jnp.sum(apply(layer, x)))(_Layer(w, b, "relu"))
    assert g.act == "relu"
    np.testing.assert_allclose(float(g.w), 3.0, rtol=1e-6)  # only x = 3 is active


def test_explicit_fields_drop_fields_and_errors():
    @dataclasses.dataclass
    class Pair:
        a: object
        b: object
        note: str = ""

    tree_util.register_dataclass(Pair, data_fields=["a"], meta_fields=["b", "note"])
    assert tjit.tree.leaves(Pair(1, 2, "n")) == [1]

    @dataclasses.dataclass
    class Dropped:
        a: object
        scratch: object = None

    tree_util.register_dataclass(Dropped, drop_fields=["scratch"])
    assert tjit.tree.leaves(Dropped(5, 7)) == [5]
    with pytest.raises(TypeError, match="must both be specified"):
        tree_util.register_dataclass(Pair, data_fields=["a"])
    with pytest.raises(TypeError, match="not a dataclass"):
        tree_util.register_dataclass(type("Plain", (), {}))
    functools.partial(tree_util.register_dataclass, data_fields=[], meta_fields=[])(
        dataclasses.make_dataclass("Empty", []))
