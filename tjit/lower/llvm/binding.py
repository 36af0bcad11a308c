"""llvmlite's LLVM binding, imported the first time tjit compiles or loads machine code.

``import llvmlite.binding`` loads LLVM's shared library and wraps its functions (~30 ms
of CPU, a tenth of ``import tjit``), which a session that never compiles (eager calls,
tracing, ``make_jaxpr``, a GPU backend) does not need. So the modules that call LLVM
write ``from tjit.lower.llvm.binding import llvm`` and use ``llvm.X`` as they would use
``llvmlite.binding.X``: the first attribute read imports llvmlite.binding and copies its
names onto this stand-in, so every later ``llvm.X`` is an ordinary module attribute read.
"""

import types


class _LazyBinding(types.ModuleType):
    """Stands for llvmlite.binding; ``__getattr__`` runs only for names it lacks."""

    def __getattr__(self, name):
        if name.startswith("__"):   # (introspection: copy, pickle, doctest) imports nothing
            raise AttributeError(name)
        import llvmlite.binding as real  # (the import system's lock: one thread loads)
        self.__dict__.update((k, v) for k, v in vars(real).items() if not k.startswith("__"))
        return getattr(real, name)


llvm = _LazyBinding("llvmlite.binding", "llvmlite.binding, imported on first use "
                    "(see tjit.lower.llvm.binding)")
