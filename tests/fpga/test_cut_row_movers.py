"""Readers and writers of streams cut per row (``Stage.row``: a row-style stage whose
row is not a multiple of the beat's W lanes) whose length is a whole number of beats:
the port stays a pointer to elements (``Design.port_lanes`` 1) and the mover moves a
masked beat a row, so a row of 3 int32 in a run of 624 compiles and matches NumPy
(g++ rejected the mover's whole-beat form, which named no loop index there)."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.devices import hls_compile

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _batched_dot(a, b):
    return lax.dot_general(a, b, (((1,), (1,)), ((0,), (0,))))


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_cut_rows_of_whole_beats(dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(-9, 9, (208, 3)).astype(dtype)     # 624 elements: 39 whole beats
    b = rng.integers(-9, 9, (208, 3)).astype(dtype)
    c = tjit.jit(_batched_dot).lower(a, b).compile(backend="hls")
    (d,) = c.executable.designs.values()
    readers = [st for st in d.stages if st.kind == "read"]
    assert readers and all(st.row == 3 and st.lanes > 1 for st in readers)
    assert d.port_lanes == [1] * len(d.ports)
    np.testing.assert_array_equal(np.asarray(c(a, b)),
                                  np.einsum("ij,ij->i", a.astype(np.float64), b).astype(dtype))
