"""Global switches, set through ``tjit.config.update(name, value)`` as in JAX.

Every option has JAX's name with or without its ``jax_`` prefix
(``update("jax_enable_x64", True)`` is ``update("enable_x64", True)``), reads as an
attribute under both names (``config.jax_enable_x64``), and most have a context manager
in ``tjit`` (``with tjit.disable_jit(): ...``). An unknown name raises
:class:`UnknownConfigOptionError` (an ``AttributeError``, as JAX's, and a
``ValueError``).

What each option does in tjit (``OPTIONS`` below is the table):

- ``enable_x64``: 64-bit dtypes (``TJIT_ENABLE_X64`` or ``JAX_ENABLE_X64`` at start-up).
- ``log_compiles``, ``explain_cache_misses``: log every trace and compile with its cause
  (``compile_log.py``; ``TJIT_LOG=compiles``). tjit's log always says why it compiled,
  so the two switches turn on the same log.
- ``disable_jit``: ``jit`` calls the Python function instead of compiling it (and the
  ``lax`` loops and conditionals run as Python when their operands are concrete).
- ``debug_nans``, ``debug_infs``: an eager op whose float output has a NaN (an inf)
  raises ``FloatingPointError`` naming the op; a jitted call whose output has one is run
  again op by op, eagerly, to raise at the op that made it.
- ``platforms`` (``JAX_PLATFORMS``/``TJIT_PLATFORMS``), ``platform_name``: the backends
  ``jit`` chooses from, in order (``"cpu"``, ``"cuda"``/``"gpu"``, ``"opencl"``...).
- ``default_device``: the device (or platform name) a ``jit`` without ``device=`` or
  ``backend=`` runs on.
- ``numpy_rank_promotion``: ``"allow"``, ``"warn"`` or ``"raise"`` when a jnp op
  broadcasts arrays of different ranks.
- ``numpy_dtype_promotion``: ``"standard"`` or ``"strict"`` (no implicit promotion
  between different strongly typed dtypes).
- ``compilation_cache_dir``, ``enable_compilation_cache``: where tjit's disk cache of
  compiled code lives, and whether it is used (``TJIT_CACHE_DIR``).
- ``while_loop_checkpoints``: tjit's own: reverse mode through ``while_loop`` keeps at
  most k loop states (``transforms/while_grad.py``).
- ``traceback_filtering``: how tracebacks leaving tjit's API look.
- ``num_cpu_devices``: how many CPU devices the host shows (as ``TJIT_NUM_CPU_DEVICES``;
  -1: that variable, else 1); set it before the devices are first listed
  (``devices/backend.py`` refuses a later change, as JAX does).
- ``debug_key_reuse``: a typed PRNG key used twice raises ``KeyReuseError``
  (``tjit/key_reuse.py``).
- ``no_tracing``: a ``jit`` that would trace (first call, new shape, ``lower``,
  ``make_jaxpr``) raises ``RuntimeError`` naming the function and the cause.
- ``no_execution``: running a compiled program or an eager op raises ``RuntimeError``.
- ``transfer_guard`` (set-only: sets the three below), ``transfer_guard_host_to_device``,
  ``transfer_guard_device_to_host``, ``transfer_guard_device_to_device``: ``"allow"``,
  ``"log"``, ``"disallow"``, ``"log_explicit"``, ``"disallow_explicit"``
  (``tracing/transfer_guard.py``; ``JAX_TRANSFER_GUARD*`` at start-up).

Accepted because tjit already behaves as every value asks:
``default_matmul_precision`` (tjit's dots always accumulate at float32 precision or
better, which every level allows), ``enable_checks`` and ``check_tracer_leaks`` (tjit
always checks leaked tracers when they are used), ``persistent_cache_min_compile_time_secs``
and ``persistent_cache_min_entry_size_bytes`` (tjit stores every compiled kernel).
``remat3``, ``scan3`` and ``custom_vjp3`` (JAX's switches between its old and new
implementations of remat, scan and custom_vjp, which compute the same values; tjit has
one of each; JAX's new remat page turns ``jax_remat3`` on before anything else).
Accepted only at the value tjit implements, else a clear error:
``default_prng_impl`` (``"threefry2x32"``) and ``threefry_partitionable`` (True, JAX's
default, whose random bits tjit reproduces).

Context managers set the option for the process and restore it on exit (JAX's are
per thread).
"""

import contextlib
import os


class UnknownConfigOptionError(AttributeError, ValueError):
    """``tjit.config.update``/``read`` of a name tjit has no option for."""


def _bool(name, v):
    if isinstance(v, str):
        low = v.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off", ""):
            return False
        raise ValueError(f"tjit.config: {name} takes a bool, got {v!r}")
    return bool(v)


def _choice(*values):
    def parse(name, v):
        if v not in values:
            raise ValueError(f"tjit.config: {name} must be one of "
                             f"{', '.join(repr(x) for x in values)}; got {v!r}")
        return v
    return parse


def _optional_choice(*values):
    inner = _choice(*values)
    return lambda name, v: None if v is None else inner(name, v)


def _only(value, why):
    def parse(name, v):
        if v != value:
            raise ValueError(f"tjit.config: {name}={v!r} is not supported: {why}")
        return v
    return parse


def _loop_checkpoints(name, k):
    if k is None:
        return None
    if isinstance(k, bool) or not hasattr(k, "__index__") or int(k) < 1:
        raise ValueError(f"tjit.config.update: while_loop_checkpoints must be None (record "
                         f"every loop state) or an int >= 1 (the most states kept), got {k!r}")
    return int(k)


def _optional_str(name, v):
    if v is not None and not isinstance(v, str):
        raise ValueError(f"tjit.config: {name} takes a string or None, got "
                         f"{type(v).__name__} {v!r:.60}")
    return v or None


def _platforms(name, v):
    v = _optional_str(name, v)
    return None if v is None else ",".join(p.strip() for p in v.split(",") if p.strip())


def _default_device(name, v):
    if v is None or isinstance(v, str):
        return v
    if type(v).__name__ == "Device" or hasattr(v, "platform"):
        return v
    raise ValueError("tjit.default_device must be given a Device (e.g. "
                     "`tjit.devices('cpu')[0]`) or a platform name like 'cpu', got "
                     f"{v!r:.60}")


def _device_count(name, v):
    if isinstance(v, bool) or not hasattr(v, "__index__") or (int(v) < 1 and int(v) != -1):
        raise ValueError(f"tjit.config: {name} takes a number of devices >= 1 (or -1: "
                         f"TJIT_NUM_CPU_DEVICES or 1), got {v!r}")
    return int(v)


def _number(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"tjit.config: {name} takes a number, got {v!r}")
    return v


_TRACEBACK_MODES = ("off", "tracebackhide", "remove_frames", "quiet_remove_frames", "auto")
_MATMUL_PRECISIONS = (
    "default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
    "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
    "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
    "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64")


#: JAX's transfer guard levels (``tjit/tracing/transfer_guard.py`` applies them)
TRANSFER_GUARD_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")


def _env(*names):
    for n in names:
        v = os.environ.get(n)
        if v is not None:
            return v
    return None


#: name -> (parse(name, value) -> value, default, changes compiled programs)
OPTIONS = {
    "enable_x64": (_bool, False, True),
    "log_compiles": (_bool, False, False),
    "explain_cache_misses": (_bool, False, False),
    "traceback_filtering": (_choice(*_TRACEBACK_MODES), "auto", False),
    "while_loop_checkpoints": (_loop_checkpoints, None, True),
    "disable_jit": (_bool, False, False),
    "debug_nans": (_bool, False, False),
    "debug_infs": (_bool, False, False),
    "platforms": (_platforms, None, True),
    "default_device": (_default_device, None, True),
    "numpy_rank_promotion": (_choice("allow", "warn", "raise"), "allow", True),
    "numpy_dtype_promotion": (_choice("standard", "strict"), "standard", True),
    "compilation_cache_dir": (_optional_str, None, False),
    "enable_compilation_cache": (_bool, True, False),
    "default_matmul_precision": (_optional_choice(*_MATMUL_PRECISIONS), None, False),
    "enable_checks": (_bool, False, False),
    "check_tracer_leaks": (_bool, False, False),
    "persistent_cache_min_compile_time_secs": (_number, 1.0, False),
    "persistent_cache_min_entry_size_bytes": (_number, 0, False),
    "remat3": (_bool, False, False),
    "scan3": (_bool, False, False),
    "custom_vjp3": (_bool, False, False),
    "default_prng_impl": (_only("threefry2x32", "tjit's keys are threefry2x32 keys"),
                          "threefry2x32", False),
    "num_cpu_devices": (_device_count, -1, False),
    "threefry_partitionable": (_only(True, "tjit draws JAX's default (partitionable) "
                                     "random bits"), True, False),
    "debug_key_reuse": (_bool, False, True),   # (traces check keys: JAX's jit key too)
    "no_tracing": (_bool, False, False),
    "no_execution": (_bool, False, False),
    # (set-only: sets the three directions below, which the guards read)
    "transfer_guard": (_optional_choice(*TRANSFER_GUARD_LEVELS), None, False),
    "transfer_guard_host_to_device": (_optional_choice(*TRANSFER_GUARD_LEVELS), None, False),
    "transfer_guard_device_to_host": (_optional_choice(*TRANSFER_GUARD_LEVELS), None, False),
    "transfer_guard_device_to_device": (_optional_choice(*TRANSFER_GUARD_LEVELS), None,
                                        False),
}
_TRANSFER_DIRECTIONS = ("transfer_guard_host_to_device", "transfer_guard_device_to_host",
                        "transfer_guard_device_to_device")
_ALIASES = {"platform_name": "platforms"}   # JAX's older name


def _from_environment():
    """Start-up values from the environment (JAX's variables and tjit's own)."""
    values = {name: default for name, (_, default, _) in OPTIONS.items()}
    found = {
        "enable_x64": _env("TJIT_ENABLE_X64", "JAX_ENABLE_X64"),
        "traceback_filtering": _env("TJIT_TRACEBACK_FILTERING", "JAX_TRACEBACK_FILTERING"),
        "platforms": _env("JAX_PLATFORMS"),
        "disable_jit": _env("JAX_DISABLE_JIT"),
        "debug_nans": _env("JAX_DEBUG_NANS"),
        "debug_infs": _env("JAX_DEBUG_INFS"),
        "numpy_rank_promotion": _env("JAX_NUMPY_RANK_PROMOTION"),
        "numpy_dtype_promotion": _env("JAX_NUMPY_DTYPE_PROMOTION"),
        "compilation_cache_dir": _env("JAX_COMPILATION_CACHE_DIR"),
        "transfer_guard_host_to_device": _env("JAX_TRANSFER_GUARD_HOST_TO_DEVICE",
                                              "JAX_TRANSFER_GUARD"),
        "transfer_guard_device_to_host": _env("JAX_TRANSFER_GUARD_DEVICE_TO_HOST",
                                              "JAX_TRANSFER_GUARD"),
        "transfer_guard_device_to_device": _env("JAX_TRANSFER_GUARD_DEVICE_TO_DEVICE",
                                                "JAX_TRANSFER_GUARD"),
    }
    for name, raw in found.items():
        if raw is not None:
            try:
                values[name] = OPTIONS[name][0](name, raw)
            except ValueError as e:
                raise ValueError(f"{e} (from the environment)") from None
    # TJIT_LOG=compiles: log every trace and compile with its cause (compile_log.py)
    values["log_compiles"] = "compiles" in os.environ.get("TJIT_LOG", "").split(",")
    return values


class _Config:
    def __init__(self):
        for name, value in _from_environment().items():
            object.__setattr__(self, name, value)
        # names the values of the options compiled programs depend on: caches keyed on it
        # (jit's, the eager lanes') miss after a change, and hit again once the options
        # are back (a ``with enable_x64():`` block in a loop does not recompile the rest)
        self._versions = {}
        self.version = self._version_of_options()
        self._listeners = []
        self.profiling = False   # tjit.profiler is recording (not an option)
        self._refresh_hooks()

    def _canonical(self, name):
        plain = name[4:] if name.startswith("jax_") else name
        plain = _ALIASES.get(plain, plain)
        if plain not in OPTIONS:
            raise UnknownConfigOptionError(
                f"Unrecognized config option: {name}; tjit knows: "
                + ", ".join(OPTIONS) + " (each also with a jax_ prefix)")
        return plain

    def update(self, name, value):
        """Set a config option, e.g. ``update("jax_enable_x64", True)``."""
        name = self._canonical(name)
        parse, _, compiled_in = OPTIONS[name]
        value = parse(name, value)
        object.__setattr__(self, name, value)
        if name == "transfer_guard":   # (as JAX's: sets every direction, None included)
            for direction in _TRANSFER_DIRECTIONS:
                object.__setattr__(self, direction, value)
        if compiled_in:
            self.version = self._version_of_options()
        self._refresh_hooks()
        for listener in self._listeners:
            listener()

    def _version_of_options(self):
        """A small int per combination of the compiled-in options' values, the same for
        the same values (a new one for values that cannot be hashed)."""
        values = tuple(getattr(self, n) for n, (_, _, compiled_in) in OPTIONS.items()
                       if compiled_in)
        try:
            return self._versions.setdefault(values, len(self._versions))
        except TypeError:   # (never equal to a kept one)
            self._versions[object()] = None
            return len(self._versions) - 1

    def set_profiling(self, on):
        """(tjit.profiler) Jitted calls record spans while ``on``."""
        object.__setattr__(self, "profiling", bool(on))
        self._refresh_hooks()

    def on_change(self, listener):
        """Call ``listener()`` after every update (modules that keep state derived from
        options register here; this module imports none of them)."""
        self._listeners.append(listener)

    def read(self, name):
        return getattr(self, self._canonical(name))

    @property
    def values(self):
        """Every option's value, under its ``jax_`` name (as ``jax.config.values``)."""
        return {f"jax_{n}": getattr(self, n) for n in OPTIONS}

    @property
    def x64_enabled(self):
        return self.enable_x64

    def config_with_absl(self):
        """Define an absl flag per option under its ``jax_`` name (``--jax_enable_x64``),
        as ``jax.config.config_with_absl``; flags given on the command line are applied
        once ``absl.app.run`` has parsed it. Options whose values are not a bool, int,
        float or str get no flag. Needs the ``absl-py`` package."""
        try:
            from absl import app, flags
        except ImportError as e:
            raise ImportError("config.config_with_absl needs absl-py (pip install "
                              "absl-py)") from e
        define = {bool: flags.DEFINE_bool, int: flags.DEFINE_integer,
                  float: flags.DEFINE_float, str: flags.DEFINE_string}
        for name, value in self.values.items():
            if type(value) in define:
                define[type(value)](name, value, f"tjit option {name[4:]}")

        def apply_given_flags():
            for name in self.values:
                try:
                    flag = flags.FLAGS[name]
                except KeyError:
                    continue
                if flag.present:
                    self.update(name, flag.value)
        app.call_after_init(apply_given_flags)

    def _refresh_hooks(self):
        # one flag for the hot paths to read: does jit or an eager op have more to do?
        # (host-to-device transfers are looked for only while their guard is not "allow")
        guards_h2d = self.transfer_guard_host_to_device not in (None, "allow")
        object.__setattr__(self, "guards_host_to_device", guards_h2d)
        object.__setattr__(self, "jit_hooks", self.disable_jit or self.debug_nans or
                           self.debug_infs or getattr(self, "profiling", False) or
                           self.no_execution or guards_h2d or self.debug_key_reuse)
        object.__setattr__(self, "checks_floats", self.debug_nans or self.debug_infs)
        # eager ops take the checked general path (tracing/float_checks.py): float
        # checks, no_execution, the host-to-device guard, and the promotion checks
        # tjit.numpy's eager lanes would skip
        object.__setattr__(self, "eager_checks", self.checks_floats or (
            self.numpy_rank_promotion != "allow" or self.numpy_dtype_promotion == "strict")
            or self.no_execution or guards_h2d)

    def __getattr__(self, name):  # only names not found normally: jax_enable_x64, ...
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self, self._canonical(name))

    def __setattr__(self, name, value):
        if name in OPTIONS or name.startswith("jax_"):
            self.update(name, value)  # jax.config.jax_enable_x64 = True, parsed as update
        else:
            object.__setattr__(self, name, value)

    @contextlib.contextmanager
    def option(self, name, value):
        """Set ``name`` to ``value`` inside a ``with`` block, then restore it."""
        name = self._canonical(name)
        old = getattr(self, name)
        self.update(name, value)
        try:
            yield
        finally:
            self.update(name, old)


config = _Config()


class _OptionContext:
    """``tjit.<option>(value)``: a context manager setting the option in a ``with``
    block (as JAX's config states); ``.value`` reads the option."""

    _REQUIRED = object()

    def __init__(self, name, doc, default=_REQUIRED):
        self.__name__ = self.__qualname__ = name
        self.__doc__ = doc
        self._default = default

    def __call__(self, new_val=_REQUIRED):
        if new_val is self._REQUIRED:
            new_val = self._default
            if new_val is self._REQUIRED:
                raise TypeError(f"tjit.{self.__name__}() takes the option's new value")
        return config.option(self.__name__, new_val)

    @property
    def value(self):
        return config.read(self.__name__)

    def __repr__(self):
        return f"<tjit option {self.__name__}={self.value!r}>"


def disable_jit(disable=True):
    """Inside ``with tjit.disable_jit():``, ``jit`` runs the Python function op by op
    (and the ``lax`` loops as Python loops) so that ``print`` and a debugger see values.

    >>> import tjit, tjit.numpy as jnp
    >>> with tjit.disable_jit():
    ...     print(tjit.jit(lambda x: x + 1)(jnp.float32(1)))
    2.0
    """
    return config.option("disable_jit", disable)


debug_nans = _OptionContext("debug_nans", """``with tjit.debug_nans():`` an op making a
    NaN raises ``FloatingPointError`` naming it; a jitted call whose output has one is
    run again op by op to name the op (see ``tjit.config``).

    >>> import tjit, tjit.numpy as jnp
    >>> with tjit.debug_nans():
    ...     try:
    ...         jnp.log(jnp.float32(-1))
    ...     except FloatingPointError as e:
    ...         print(e)
    invalid value (nan) encountered in log
    """, default=True)
debug_infs = _OptionContext("debug_infs", """``with tjit.debug_infs():`` an op making an
    inf raises ``FloatingPointError`` naming it.

    >>> import tjit, tjit.numpy as jnp
    >>> with tjit.debug_infs():
    ...     try:
    ...         jnp.exp(jnp.float32(100))
    ...     except FloatingPointError as e:
    ...         print(e)
    invalid value (inf) encountered in exp
    """, default=True)
log_compiles = _OptionContext("log_compiles", """``with tjit.log_compiles():`` log every
    trace and compile with its cause (through Python's ``logging``, logger ``"tjit"``).

    >>> import tjit
    >>> with tjit.log_compiles():
    ...     print(tjit.config.log_compiles)
    True
    """, default=True)
explain_cache_misses = _OptionContext("explain_cache_misses", """``with
    tjit.explain_cache_misses():`` log why each compile happened (tjit's compile log,
    as ``log_compiles``).

    >>> import tjit
    >>> with tjit.explain_cache_misses():
    ...     print(tjit.config.jax_explain_cache_misses)
    True
    """, default=True)
enable_x64 = _OptionContext("enable_x64", """``with tjit.enable_x64(True):`` 64-bit
    dtypes in the block.

    >>> import tjit, tjit.numpy as jnp
    >>> with tjit.enable_x64():
    ...     print(jnp.arange(3).dtype, jnp.ones(2).dtype)
    int64 float64
    """, default=True)
default_device = _OptionContext("default_device", """``with tjit.default_device(device):``
    jitted calls without ``device=`` or ``backend=`` run on ``device`` (a Device or a
    platform name such as ``"cpu"``).

    >>> import tjit
    >>> with tjit.default_device(tjit.devices("cpu")[0]):
    ...     print(tjit.jit(lambda x: x * 2)(1.5))
    3.0
    """)
default_matmul_precision = _OptionContext("default_matmul_precision", """Accepted for JAX
    code: tjit's dots always accumulate at float32 precision or better, which every
    level allows.

    >>> import tjit, tjit.numpy as jnp
    >>> with tjit.default_matmul_precision("float32"):
    ...     print(jnp.ones((2, 3)) @ jnp.ones(3))
    [3. 3.]
    """)
numpy_rank_promotion = _OptionContext("numpy_rank_promotion", """``with
    tjit.numpy_rank_promotion("raise"):`` refuse (``"warn"``: warn about) broadcasting
    arrays of different ranks; 0-d operands always broadcast.

    >>> import tjit, tjit.numpy as jnp
    >>> with tjit.numpy_rank_promotion("raise"):
    ...     try:
    ...         jnp.ones((2, 3)) + jnp.ones(3)
    ...     except ValueError as e:
    ...         print(str(e)[:50])
    Operands could not be broadcast together for add o
    """)
numpy_dtype_promotion = _OptionContext("numpy_dtype_promotion", """``with
    tjit.numpy_dtype_promotion("strict"):`` refuse implicit promotion between different
    strongly typed dtypes (Python scalars still take the array's type).

    >>> import tjit, tjit.numpy as jnp
    >>> with tjit.numpy_dtype_promotion("strict"):
    ...     print((jnp.ones(2, jnp.int32) + 1).dtype)
    ...     try:
    ...         jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)
    ...     except ValueError as e:
    ...         print(type(e).__name__)
    int32
    TypePromotionError
    """)
check_tracer_leaks = _OptionContext("check_tracer_leaks", """Accepted for JAX code: tjit
    always reports a leaked tracer when it is used.

    >>> import tjit
    >>> with tjit.check_tracer_leaks():
    ...     print(tjit.jit(lambda x: x + 1)(1))
    2
    """, default=True)
enable_checks = _OptionContext("enable_checks", """Accepted for JAX code (tjit's own
    checks always run).

    >>> import tjit
    >>> with tjit.enable_checks():
    ...     print(tjit.config.enable_checks)
    True
    """, default=True)

debug_key_reuse = _OptionContext("debug_key_reuse", """``with tjit.debug_key_reuse(True):``
    a typed PRNG key consumed twice (two samplers, ``split`` twice, a jitted function
    that consumed it) raises ``tjit.errors.KeyReuseError`` (``tjit/key_reuse.py``).

    >>> import tjit
    >>> with tjit.debug_key_reuse(True):
    ...     key = tjit.random.key(0)
    ...     x = tjit.random.normal(key)
    ...     try:
    ...         tjit.random.uniform(key)
    ...     except tjit.errors.KeyReuseError as e:
    ...         print(str(e)[:44])
    Previously-consumed key passed to uniform. S
    """)
default_prng_impl = _OptionContext("default_prng_impl", """``with
    tjit.default_prng_impl("threefry2x32"):`` the PRNG implementation of new keys in the
    block (as ``jax.default_prng_impl``); tjit has threefry2x32 only, so any other name
    raises ValueError. ``.value`` reads it.

    >>> import tjit
    >>> tjit.default_prng_impl.value
    'threefry2x32'
    """)


def checking_leaks():
    """JAX's ``checking_leaks()``: ``check_tracer_leaks(True)`` (tjit always reports a
    leaked tracer when it is used).

    >>> import tjit
    >>> with tjit.checking_leaks():
    ...     print(tjit.config.jax_check_tracer_leaks)
    True
    """
    return config.option("check_tracer_leaks", True)


no_tracing = _OptionContext("no_tracing", """``with tjit.no_tracing():`` a ``jit`` that
    would trace its function (a first call, a new shape, a changed static argument...)
    raises ``RuntimeError`` naming the function and the cause instead: a check that a
    loop does not recompile. Calls of programs already compiled run as usual.

    >>> import tjit, tjit.numpy as jnp
    >>> f = tjit.jit(lambda x: x * 2)
    >>> _ = f(jnp.ones(3))
    >>> with tjit.no_tracing():
    ...     print(f(jnp.ones(3)))
    ...     try:
    ...         f(jnp.ones(4))
    ...     except RuntimeError as e:
    ...         print(str(e)[:40])
    [2. 2. 2.]
    re-tracing function <lambda> at <doctest
    """, default=True)
no_execution = _OptionContext("no_execution", """``with tjit.no_execution():`` running a
    compiled program or an eager op raises ``RuntimeError`` naming it; tracing
    (``make_jaxpr``, ``eval_shape``, ``jit(f).lower``) still works.

    >>> import tjit, tjit.numpy as jnp
    >>> with tjit.no_execution():
    ...     print(tjit.make_jaxpr(jnp.sin)(1.0).out_avals)
    ...     try:
    ...         jnp.sin(jnp.float32(1))
    ...     except RuntimeError as e:
    ...         print(str(e).split(" (")[0])
    [ShapedArray(float32[], weak_type=True)]
    tjit tried to execute function sin, but the no_execution config option is set
    """, default=True)
transfer_guard_host_to_device = _OptionContext("transfer_guard_host_to_device", """``with
    tjit.transfer_guard_host_to_device(level):`` what a host-to-device transfer does in
    the block (``"allow"``, ``"log"``, ``"disallow"``, ``"log_explicit"``,
    ``"disallow_explicit"``; see ``tjit/tracing/transfer_guard.py``).

    >>> import numpy as np, tjit, tjit.numpy as jnp
    >>> with tjit.transfer_guard_host_to_device("disallow"):
    ...     try:
    ...         jnp.sin(np.ones(2, np.float32))
    ...     except RuntimeError as e:
    ...         print(str(e)[:58])
    Disallowed host-to-device transfer: aval=ShapedArray(float
    """)
transfer_guard_device_to_host = _OptionContext("transfer_guard_device_to_host", """``with
    tjit.transfer_guard_device_to_host(level):`` what copying a device array to the host
    (``np.asarray(x)``, ``float(x)``, printing; explicit: ``device_get``) does in the
    block. Arrays on the CPU are host memory: reading them is no transfer (as JAX's CPU
    backend).

    >>> import numpy as np, tjit, tjit.numpy as jnp
    >>> with tjit.transfer_guard_device_to_host("disallow"):
    ...     print(np.asarray(jnp.ones(2)))   # (a CPU array)
    [1. 1.]
    """)
transfer_guard_device_to_device = _OptionContext("transfer_guard_device_to_device",
                                                 """``with
    tjit.transfer_guard_device_to_device(level):`` what copying an array between two
    devices does in the block (explicit: ``device_put`` onto another device).

    >>> import tjit
    >>> with tjit.transfer_guard_device_to_device("disallow"):
    ...     print(tjit.config.transfer_guard_device_to_device)
    disallow
    """)


@contextlib.contextmanager
def transfer_guard(new_val):
    """``with tjit.transfer_guard(new_val):`` the transfer guard level of every direction
    (host-to-device, device-to-host, device-to-device) in the block, as JAX's.

    >>> import numpy as np, tjit, tjit.numpy as jnp
    >>> with tjit.transfer_guard("disallow"):
    ...     x = tjit.device_put(np.ones(2, np.float32))   # explicit: allowed
    ...     print(x + x)
    [2. 2.]
    """
    with contextlib.ExitStack() as stack:
        for direction in _TRANSFER_DIRECTIONS:
            stack.enter_context(config.option(direction, new_val))
        # (exits first: setting it back to None resets the directions the stack restores)
        stack.enter_context(config.option("transfer_guard", new_val))
        yield
