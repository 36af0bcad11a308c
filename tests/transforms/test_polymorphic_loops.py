import numpy as np

import tjit
from tjit import lax


def test_fori_loop_over_symbolic_size_traces_once():
    f = tjit.jit(lambda a: lax.fori_loop(0, a.shape[0], lambda i, c: c + a[i] * 2.0,
                                         a[0] * 0.0),
                 polymorphic_shapes=["(b, 3)"])
    for n in (1, 2, 5):
        x = np.arange(n * 3.0, dtype=np.float32).reshape(n, 3)
        np.testing.assert_allclose(np.asarray(f(x)), 2 * x.sum(0))
    assert f.trace_count == 1
