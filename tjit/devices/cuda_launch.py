"""Kernel launches of the CUDA runner straight through the driver (``cuLaunchKernel`` by
way of CuPy's ``cupy_backends.cuda.api.driver.launchKernel``), with the kernel's
argument block built once per size binding.

Why: a ``RawKernel`` call converts every argument on every launch (a CPointer object
per array, a CScalar per size scalar), pads the grid tuples and looks the function up
per device: about 5 us of host time per launch on an H100, most of it Python-level
work around a ~2 us driver call. Here the argument block (one 8-byte slot per kernel
parameter: a device pointer, or an int64 size; and the array of their addresses that
``cuLaunchKernel`` reads) is made once; a launch writes the pointers of the buffers
that change per call into their slots and calls the driver. The driver copies the
arguments at launch, so the block can be rewritten for the next launch at once.
"""

import ctypes


class ArgumentBlock:
    """``cuLaunchKernel``'s ``kernelParams`` for one kernel: ``slots[i]`` holds argument
    ``i`` (``c_void_p`` for a buffer, ``c_int64`` for a size), ``address`` is the
    address of the array of their addresses."""

    def __init__(self, values, kinds):
        """``values``: per parameter, a device pointer (int, or None: set per launch) or
        a size; ``kinds``: per parameter, "buffer" or "size"."""
        self.slots = [ctypes.c_void_p(v) if kind == "buffer" else ctypes.c_int64(int(v))
                      for v, kind in zip(values, kinds)]
        self._addresses = (ctypes.c_void_p * max(len(self.slots), 1))(
            *[ctypes.addressof(s) for s in self.slots])
        self.address = ctypes.addressof(self._addresses)


def driver_launcher(driver, function, grid, block, values, kinds):
    """``(slots, launch)``: ``launch(stream_ptr)`` launches ``function`` (a CuPy
    ``Function``, whose ``ptr`` is the CUfunction) on ``grid`` x ``block`` threads with
    the arguments in ``slots`` (see :class:`ArgumentBlock`); None where the driver
    binding or the function pointer is missing (the caller calls the Function)."""
    fptr = getattr(function, "ptr", None)
    launch_kernel = getattr(driver, "launchKernel", None)
    if driver is None or not isinstance(fptr, int) or launch_kernel is None:
        return None
    args = ArgumentBlock(values, kinds)
    gx, bx, address = max(1, int(grid)), max(1, int(block)), args.address

    def launch(stream_ptr, keep=args):
        launch_kernel(fptr, gx, 1, 1, bx, 1, 1, 0, stream_ptr, address, 0)
    return args.slots, launch
