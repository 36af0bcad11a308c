"""compile_spmd's per-call path: arguments that are exactly the traced ones go straight
to the executable; any other (another dtype, a pytree, a wrong shape) takes the general
path, with the same results or its errors. Checked against NumPy with a stand-in
communicator whose members all hold the same value."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.devices.collectives import bind_axis
from tjit.parallel import compile_spmd


class _Replicated:
    """A communicator of ``size`` members that all pass this member's operand."""
    rank, size = 0, 3

    def allreduce(self, x, op):
        return x * self.size if op == "sum" else x.copy()


def test_fast_and_general_calls_agree_with_numpy():
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    run = compile_spmd(lambda a, b: (lax.psum(a, "i"), b * 2, lax.pmean(a, "i")),
                       {"i": 3}, (x, x[0]))
    with bind_axis("i", _Replicated()):
        for a, b in [(x, x[0]),                                       # fast
                     (tjit.numpy.asarray(x), tjit.numpy.asarray(x[0])),   # fast (Arrays)
                     (x.astype(np.float64), x[0]),                     # general: converted
                     (x.T.copy().T, x[0])]:                            # C-order copy
            s, d, m = run(a, b)
            assert isinstance(s, tjit.Array) and s.dtype == np.float32
            np.testing.assert_allclose(np.asarray(s), 3 * x.astype(np.float64), rtol=1e-6)
            np.testing.assert_allclose(np.asarray(d), 2 * x[0].astype(np.float64), rtol=1e-6)
            np.testing.assert_allclose(np.asarray(m), x.astype(np.float64), rtol=1e-6)
        with pytest.raises(TypeError, match="do not match the compiled structure"):
            run((x, x[0]))
        with pytest.raises(Exception, match=r"4, ?3|shape"):
            run(np.ones((5, 3), np.float32), x[0])
    with pytest.raises(NameError, match="unbound axis name: i"):
        run(x, x[0])
