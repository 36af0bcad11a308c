"""Global switches, set through ``tjit.config.update(name, value)`` as in JAX."""

import os


_BOOL_OPTIONS = ("enable_x64", "log_compiles")
# options that leave compiled programs valid
_NOT_COMPILED_IN = ("log_compiles", "traceback_filtering")


def _loop_checkpoints(k):
    if k is None:
        return None
    if isinstance(k, bool) or not hasattr(k, "__index__") or int(k) < 1:
        raise ValueError(f"tjit.config.update: while_loop_checkpoints must be None (record "
                         f"every loop state) or an int >= 1 (the most states kept), got {k!r}")
    return int(k)


_TRACEBACK_MODES = ("off", "tracebackhide", "remove_frames", "quiet_remove_frames", "auto")


def _traceback_mode(mode):
    if mode not in _TRACEBACK_MODES:
        raise ValueError(f"tjit.config: traceback_filtering (TJIT_TRACEBACK_FILTERING) must be "
                         f"one of {', '.join(_TRACEBACK_MODES)}; got {mode!r}")
    return mode


class _Config:
    def __init__(self):
        self.enable_x64 = os.environ.get("TJIT_ENABLE_X64", "0").lower() in ("1", "true")
        # TJIT_LOG=compiles: log every trace and compile with its cause (compile_log.py)
        self.log_compiles = "compiles" in os.environ.get("TJIT_LOG", "").split(",")
        # reverse mode through while_loop: None records every loop state on a tape, an
        # int k >= 1 keeps at most k states (Revolve checkpointing; transforms/while_grad.py)
        self.while_loop_checkpoints = None
        # how tracebacks leaving tjit's API look (tracing/traceback_util.py; JAX's modes)
        self.traceback_filtering = _traceback_mode(
            os.environ.get("TJIT_TRACEBACK_FILTERING", "auto"))
        self.version = 0  # bumped on every change so caches keyed on config invalidate

    def update(self, name, value):
        """Set a config option, e.g. ``update("enable_x64", True)``."""
        name = name.replace("jax_", "", 1) if name.startswith("jax_") else name
        if not hasattr(self, name) or name == "version":
            known = ", ".join(k for k in vars(self) if k != "version")
            raise ValueError(f"tjit.config.update: unknown option {name!r}; known: {known}")
        if name == "while_loop_checkpoints":
            value = _loop_checkpoints(value)
        if name == "traceback_filtering":
            value = _traceback_mode(value)
        setattr(self, name, bool(value) if name in _BOOL_OPTIONS else value)
        if name not in _NOT_COMPILED_IN:
            self.version += 1

    def read(self, name):
        return getattr(self, name)

    @property
    def x64_enabled(self):
        return self.enable_x64


config = _Config()
