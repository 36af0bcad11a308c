"""The host target: LLVM set-up, O3 optimisation and one process-wide MCJIT.

Everything that turns LLVM IR text into callable machine code lives here, apart from
how that IR is produced (the kernel renderer) and where compiled objects are kept
(``tjit.devices.disk_cache``):

    addrs = compile_ir(ir_text, ["k_1f3a..."])     # parse, verify, O3, codegen, load
    obj = emit_object(ir_text)                      # optimised object code (bytes) ...
    addrs = load_object(obj, ["k_1f3a..."])         # ... loaded later, e.g. from disk
    code = load_owned(obj, ["k_1f3a..."])           # ... or loaded until `code` dies

``compile_ir``/``load_object`` link into one process-wide engine, for code that lives as
long as the process (the runtime's helpers). Kernels use ``load_owned``: their memory is
returned when no one holds their ``OwnedCode`` (see "Freeable code" below).

The target machine is the host's: CPU name and its full feature string, opt level 3,
the static relocation model and the JIT code model that MCJIT expects. Functions are
tagged ``"prefer-vector-width"="512"`` when the host has AVX-512F (LLVM otherwise
picks 256-bit vectors on many such CPUs; 512 measured 1.3-1.6x faster, PERF_NOTES.md).

**Symbol names.** Process-wide code lives in one MCJIT engine, where a second definition
of a name would silently shadow the first. So a name is bound once per process: loading
the *same* code again under the same name (same IR text, or the same object bytes)
reuses the first address and skips the work; *different* code under a bound name
raises ``ValueError``. Callers derive kernel names from content hashes
(``kernel_ir.kernel_hash``), so the second case means a bug, never bad luck. Freeable
code follows the same rule while it is loaded.

All LLVM calls are serialised by one lock: LLVM's global context is not thread-safe.
"""

import ctypes
import ctypes.util
import hashlib
import os
import re
import sys
import threading
import time

import llvmlite

from tjit.lower.llvm.binding import llvm  # (imported on first use)

__all__ = [
    "assembly",
    "compile_ir",
    "compile_object",
    "emit_object",
    "host_key",
    "is_loaded",
    "last_timings",
    "load_object",
    "load_owned",
    "optimize",
    "optimized_ir",
    "prefers_512",
    "release_unused",
    "with_host_attributes",
]

_LOCK = threading.RLock()
_STATE = None              # _Host, created on first use
_LOADED = {}               # symbol name -> (ir digest or None, object digest, address)
_LAST_TIMINGS = {}


class _Host:
    """Process-wide LLVM objects: the target machine and the MCJIT engine."""

    def __init__(self):
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()   # inline asm (e.g. the thread runtime's)
        self.triple = llvm.get_process_triple()
        self.cpu = llvm.get_host_cpu_name()
        try:
            feats = llvm.get_host_cpu_features()
            self.features = feats.flatten()
            self.avx512f = bool(feats.get("avx512f", False))
        except RuntimeError:  # LLVM cannot query this host: baseline features
            self.features, self.avx512f = "", False
        self.tm = self.target_machine()
        self._codegen_machines = {3: self.tm}
        self.data_layout = str(self.tm.target_data)
        _load_libm()
        self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), self.tm)

    def target_machine(self, opt=3):
        """A new host target machine (an MCJIT engine owns and frees the one it gets)."""
        # reloc "default" (static) and codemodel "jitdefault" (large on 64-bit) are what
        # MCJIT's RuntimeDyld links reliably wherever the JIT memory lands.
        return llvm.Target.from_triple(self.triple).create_target_machine(
            cpu=self.cpu, features=self.features, opt=opt, reloc="default",
            codemodel="jitdefault", jit=True)

    def codegen_machine(self, opt):
        """The target machine that emits object code at codegen level ``opt`` (kept;
        called under ``_LOCK``)."""
        tm = self._codegen_machines.get(opt)
        if tm is None:
            tm = self._codegen_machines[opt] = self.target_machine(opt)
        return tm


def _load_libm():
    """Make libm's symbols (expf, sinf, ... that LLVM may call) visible to the JIT linker.

    CPython usually has libm mapped already; loading it by name is a cheap guarantee.
    """
    if not sys.platform.startswith("linux"):
        return  # macOS: libm is part of libSystem; Windows: the CRT is loaded
    # the glibc name first: find_library runs ldconfig (slow); musl and others need it
    for find in (lambda: "libm.so.6", lambda: ctypes.util.find_library("m")):
        name = find()
        try:
            if name:
                llvm.load_library_permanently(name)
                return
        except RuntimeError:
            pass  # symbols are then resolved from whatever the process has loaded


def _host():
    global _STATE
    if _STATE is None:
        with _LOCK:
            if _STATE is None:
                _STATE = _Host()
    return _STATE


def _after_fork_in_child():
    # A fork while another thread held the lock would leave it locked forever.
    global _LOCK, _ARENA_LOCK
    _LOCK = threading.RLock()
    _ARENA_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


# ----------------------------------------------------------------------------------------
# Facts about the host.

def host_key():
    """A short string naming this host's code generation: part of the disk-cache key.

    Returns:
      ``"<cpu>-<hash of triple and feature string>-llvmlite<version>"``.
    """
    h = _host()
    digest = hashlib.sha256(f"{h.triple}|{h.features}".encode()).hexdigest()[:16]
    return f"{h.cpu}-{digest}-llvmlite{llvmlite.__version__}"


def prefers_512():
    """True when the host has AVX-512F, so functions should prefer 512-bit vectors."""
    return _host().avx512f


_DEFINE = re.compile(r"^define\b", re.MULTILINE)
_GROUP = re.compile(r"#(\d+)")
_UNNAMED = re.compile(r"\s+(local_)?unnamed_addr\b")


def _after_signature(text, pos):
    """Index just past the parameter list of the ``define`` at ``pos`` (and any
    ``unnamed_addr``), where function attributes go. Parameter lists may span lines and
    contain nested parentheses; the name may be quoted. None when the text is not a
    well-formed signature (the parser then reports the error)."""
    at = text.find("@", pos)
    if at >= 0 and text.startswith('@"', at):
        at = text.find('"', at + 2) + 1
    i = text.find("(", at) if at > 0 else -1
    if i < 0:
        return None
    depth = 0
    while i < len(text):
        c = text[i]
        depth += (c == "(") - (c == ")")
        i += 1
        if depth == 0:
            break
    if depth:
        return None
    m = _UNNAMED.match(text, i)
    return m.end() if m else i


def with_host_attributes(ir_text):
    """Tag every defined function with the host's preferred vector width.

    llvmlite's IR builder cannot write string attributes, so this is a text rewrite: it
    appends an attribute group ``"prefer-vector-width"="512"`` and references it right
    after each ``define``'s parameter list. A no-op when the host lacks AVX-512F or the
    text already mentions ``prefer-vector-width``.

    Args:
      ir_text: LLVM IR as text.
    Returns:
      The IR text, tagged.
    """
    if not prefers_512() or "prefer-vector-width" in ir_text:
        return ir_text
    group = 1 + max((int(g) for g in _GROUP.findall(ir_text)), default=0)
    cuts = [_after_signature(ir_text, m.start()) for m in _DEFINE.finditer(ir_text)]
    if None in cuts:
        return ir_text  # malformed: leave it for the parser to report
    pieces, last = [], 0
    for cut in cuts:
        pieces += [ir_text[last:cut], f" #{group}"]
        last = cut
    pieces.append(ir_text[last:])
    return "".join(pieces) + f'\nattributes #{group} = {{ "prefer-vector-width"="512" }}\n'


# ----------------------------------------------------------------------------------------
# IR -> optimised module -> object code.

def _parse(ir_text, timings):
    h = _host()
    t0 = time.perf_counter()
    try:
        mod = llvm.parse_assembly(with_host_attributes(ir_text))
        mod.verify()
    except RuntimeError as e:
        raise ValueError(f"tjit LLVM target: the generated LLVM IR is invalid: {e}\n"
                         "This is a bug in the kernel renderer; dump the IR with "
                         "TJIT_DUMP or target.assembly() to inspect it.") from None
    mod.triple = h.triple
    mod.data_layout = h.data_layout
    timings["parse"] = time.perf_counter() - t0
    return mod


#: Compile profiles (``profile.py``): pipeline speed level, whether loops are
#: vectorized, interleaved and unrolled, and the code generator's opt level. For small
#: kernels, codegen at level 0 (fast instruction selection and register allocation)
#: took 1.2 ms where levels 1-3 took 12-25 ms on the same 10-op kernel; its code is
#: slower per element, which a kernel of at most 1024 points does not feel.
#: ``"explicit"``: runtime helpers whose IR is vectorized by hand or a scalar chain
#: (``top_k.py``, the row scans of ``cumulative.py``): the loop vectorizer has nothing to
#: add (top_k's LLVM time 74 -> 39 ms at the same speed).
#: ``"light"`` (pipeline level None): IR written as the machine code should be (tjit's
#: own sgemm: register tiles, packing loops), which needs only inlining and a clean-up
#: (``LIGHT_PASSES``) before code generation. O2 found nothing to improve there: the
#: sgemm module took 174 ms of LLVM CPU with O2, 71 light, at the same speed (thread CPU
#: time per call on 12 shapes and layouts, alternating: 0.83-1.05x of O2's, noise).
#: The other hand-written runtime helpers (thread runtime, loop driver, call table,
#: argument copier, BLAS shims, top_k) use it too: O2/O3 took 2-3x its LLVM time on each
#: (thread runtime 34 -> 13 ms, top_k 28 -> 13) and added no speed. ``sroa`` puts a
#: helper's scalar stack slots (top_k's counters) in registers: without it top_k on
#: ascending rows ran 0.86 ms instead of O2's 0.72, with it 0.68 (the sgemm has no stack
#: slots: same object bytes).
#: ``"control"``: the light pipeline with fast instruction selection (codegen level 0),
#: for runtime helpers whose time is in what they call, not in their own instructions:
#: the thread runtime (atomics, spin and futex waits around the kernels it calls), the
#: argument filler, the call table and the BLAS shims. Each compiled 3-4x faster (thread
#: runtime 13.7 -> 4.3 ms of LLVM CPU, the float32 BLAS shim 10.8 -> 2.7, a first call
#: that splits a step across threads builds the runtime) with the same per-call times
#: (tiny jit dispatch, a kernel split across threads, small float64 gemms). Not for
#: code with loops of its own work: the loop driver measured +1 ns an iteration, the
#: own sgemm ~10x slower, top_k 1.35x.
PROFILES = {"vector": (3, True, 3), "scalar": (1, False, 0), "explicit": (2, False, 2),
            "light": (None, False, 2), "control": (None, False, 0)}
LIGHT_PASSES = ("always_inliner", "sroa", "instruction_combine", "simplify_cfg",
                "dead_code_elimination")


def pipeline(tm, profile):
    """``(pass builder, module pass manager)`` of ``profile``'s pipeline, tuned for
    target machine ``tm``: run ``mpm.run(module, pb)``, then free the manager with
    ``_free_pass_manager`` (callers hold the LLVM lock or a context of their own)."""
    level, vectorize, _ = PROFILES[profile]
    pto = llvm.create_pipeline_tuning_options(speed_level=level or 0)
    pto.loop_vectorization = pto.slp_vectorization = vectorize
    pto.loop_interleaving = pto.loop_unrolling = vectorize
    pb = llvm.create_pass_builder(tm, pto)
    if level is not None:
        return pb, pb.getModulePassManager()
    mpm = llvm.create_new_module_pass_manager()
    for name in LIGHT_PASSES:
        getattr(mpm, f"add_{name}_pass")()
    return pb, mpm


def optimize(module_ref, profile="vector"):
    """Run LLVM's pipeline (new pass manager) on a parsed module, in place.

    ``"vector"``: O3 with loop and SLP vectorisation, interleaving and unrolling (the
    host target machine supplies the cost model). ``"scalar"``: O1 without those, for
    small kernels where compile time dominates (``profile.py``). See ``PROFILES``.

    Args:
      module_ref: an ``llvmlite.binding.ModuleRef`` (already parsed and verified).
      profile: a key of ``PROFILES``.
    Returns:
      The same module.
    """
    h = _host()
    with _LOCK:
        pb, mpm = pipeline(h.tm, profile)
        try:
            mpm.run(module_ref, pb)
        finally:
            _free_pass_manager(mpm)
    return module_ref


def _free_pass_manager(mpm):
    """Free an O3 pipeline (~70 KiB). llvmlite never does: in ``ModulePassManager``'s
    MRO the no-op ``ObjectRef._dispose`` shadows ``NewPassManager._dispose``, so every
    compile leaked one. (The PassBuilder's instrumentation callbacks, ~2.5 KiB, still
    leak inside llvmlite; reusing one builder would leave dangling callbacks instead.)"""
    if not mpm.closed:
        llvm.newpassmanagers.NewPassManager._dispose(mpm)
        mpm.detach()


def _check_externals(mod):
    """Fail with a clear error (MCJIT would abort the process) on unresolvable calls."""
    for fn in mod.functions:
        if (fn.is_declaration and not fn.name.startswith("llvm.")
                and not llvm.address_of_symbol(fn.name)):
            raise ValueError(
                f"tjit LLVM target: the IR calls external function {fn.name!r}, which "
                "is not loaded in this process. Emit it inline (mathlib) or load "
                "its library with llvmlite.binding.load_library_permanently.")


def _optimized_module(ir_text, timings, profile="vector"):
    mod = _parse(ir_text, timings)
    t0 = time.perf_counter()
    optimize(mod, profile)
    timings["optimize"] = time.perf_counter() - t0
    _check_externals(mod)
    return mod


def emit_object(ir_text, profile="vector"):
    """Optimised host object code for LLVM IR text (what the disk cache stores).

    Args:
      ir_text: LLVM IR as text.
      profile: the pipeline (``PROFILES``).
    Returns:
      ``bytes``: a relocatable object file for this host (see ``host_key``).
    """
    with _LOCK:
        timings = {}
        mod = _optimized_module(ir_text, timings, profile)
        t0 = time.perf_counter()
        obj = _host().codegen_machine(PROFILES[profile][2]).emit_object(mod)
        timings["codegen"] = time.perf_counter() - t0
        _set_timings(timings)
        return obj


def assembly(ir_text):
    """Host assembly of the optimised IR (for tests and compiler dumps)."""
    with _LOCK:
        mod = _optimized_module(ir_text, {})
        return _host().tm.emit_assembly(mod)


def optimized_ir(ir_text):
    """The LLVM IR text after O3 (for compiler dumps)."""
    with _LOCK:
        return str(_optimized_module(ir_text, {}))


# ----------------------------------------------------------------------------------------
# Loading into the process-wide engine.

def _digest(data):
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


def _bound(names, obj_digest, ir_digest):
    """Addresses when every name is already bound to this code; None when none is.

    Raises ValueError when a name is bound to different code (see the module docstring).
    """
    found = {}
    for name in names:
        entry = _LOADED.get(name)
        if entry is None:
            continue
        ir_d, obj_d, addr = entry
        if obj_d != obj_digest and (ir_digest is None or ir_d != ir_digest):
            raise ValueError(
                f"tjit LLVM target: symbol {name!r} is already loaded with different "
                "code. Kernel names must be unique per content: derive them from "
                "kernel_ir.kernel_hash (plus any codegen options).")
        found[name] = addr
    if not found:
        return None
    if len(found) != len(names):
        missing = [n for n in names if n not in found]
        raise ValueError(f"tjit LLVM target: this code is loaded but does not define "
                         f"{missing}; pass the names the IR actually defines.")
    return found


def _load(obj, names, ir_digest, timings):
    obj_digest = _digest(obj)
    found = _bound(names, obj_digest, ir_digest)
    if found is not None:
        return found
    h = _host()
    t0 = time.perf_counter()
    h.engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
    h.engine.finalize_object()
    addrs = {}
    for name in names:
        addr = h.engine.get_function_address(name)
        if not addr:
            raise ValueError(f"tjit LLVM target: the compiled code defines no function "
                             f"{name!r}; pass the names the IR actually defines.")
        addrs[name] = addr
    for name, addr in addrs.items():
        _LOADED[name] = (ir_digest, obj_digest, addr)
    timings["load"] = time.perf_counter() - t0
    return addrs


def load_object(obj_bytes, names):
    """Link object code (from ``emit_object``, e.g. read from the disk cache) into the JIT.

    Args:
      obj_bytes: a relocatable object file for this host.
      names: the function symbols to look up.
    Returns:
      ``{name: address}``; call an address through ctypes.
    Raises:
      ValueError: a name is already bound to different code, or is not defined.
    """
    names = list(names)
    with _LOCK:
        timings = {}
        addrs = _load(bytes(obj_bytes), names, None, timings)
        _set_timings(timings)
        return addrs


def compile_object(ir_text, names, profile="vector"):
    """Compile LLVM IR and load it; also return the object code for the disk cache.

    Args:
      ir_text: LLVM IR as text (function attributes for the host are added here).
      names: the function symbols to look up.
      profile: the pipeline (``PROFILES``).
    Returns:
      ``({name: address}, object_bytes)``.
    """
    names = list(names)
    with _LOCK:
        t0 = time.perf_counter()
        obj = emit_object(ir_text, profile)
        timings = dict(_LAST_TIMINGS)
        addrs = _load(obj, names, _digest(ir_text), timings)
        timings["total"] = time.perf_counter() - t0
        _set_timings(timings)
        return addrs, obj


def compile_ir(ir_text, names, profile="vector"):
    """Parse, verify, optimise (O3) and JIT LLVM IR text; return function addresses.

    Compiling the same text under the same names again returns the first addresses
    without recompiling.

    Args:
      ir_text: LLVM IR as text.
      names: the function symbols to look up.
      profile: the pipeline (``PROFILES``).
    Returns:
      ``{name: address}``.
    """
    names = list(names)
    with _LOCK:
        ir_digest = _digest(ir_text)
        entries = [_LOADED.get(n) for n in names]
        if entries and all(e is not None and e[0] == ir_digest for e in entries):
            return {n: e[2] for n, e in zip(names, entries)}
        return compile_object(ir_text, names, profile)[0]


def is_loaded(name):
    """True when a function of this name is already linked into the process."""
    return name in _LOADED


# ----------------------------------------------------------------------------------------
# Freeable code: object code whose memory is returned once nothing uses it.
#
# MCJIT cannot unload one object, only a whole engine, and an engine (with the target
# machine it owns) costs ~40 KiB and ~2 ms to make. So up to ARENA_SIZE objects share an
# engine (an "arena"); load_owned returns an OwnedCode per object, and an arena is freed
# when it is full and none of its OwnedCode objects is alive. A live object thus pins at
# most ARENA_SIZE - 1 dead ones; the arena still being filled is freed by
# release_unused(). Finalizers only queue their arena (_RELEASED): the bookkeeping runs
# under _ARENA_LOCK, which is not re-entrant, so a finalizer run by the garbage collector
# in the middle of a load defers to that load instead of changing the arena under it.

#: Objects per freeable engine (see above).
ARENA_SIZE = 16

_ARENA_LOCK = threading.Lock()
_ARENA = None             # the _Arena that new freeable code goes into
_ARENA_NAMES = {}         # symbol -> (arena, object digest, address), live arenas only
_RELEASED = []            # one arena per OwnedCode that died, not yet counted
#: Counters for tests: engines made and freed, objects loaded into them.
ARENA_STATS = {"engines": 0, "freed": 0, "objects": 0}


class _Arena:
    __slots__ = ("engine", "live", "loaded", "names")

    def __init__(self):
        self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""),
                                                 _host().target_machine())
        self.live = 0       # OwnedCode objects alive
        self.loaded = 0     # objects loaded
        self.names = []
        ARENA_STATS["engines"] += 1

    def free(self):
        for name in self.names:
            _ARENA_NAMES.pop(name, None)
        self.engine.close()   # unmaps its code and frees its target machine
        ARENA_STATS["freed"] += 1


class OwnedCode:
    """Object code loaded by :func:`load_owned`: callable while this object lives.

    Keep it referenced from whatever calls ``addresses`` (e.g. an attribute of the
    ctypes function made from them).
    """

    __slots__ = ("addresses", "_arena", "__weakref__")

    def __init__(self, arena, addresses):
        self.addresses = addresses
        self._arena = arena

    def __del__(self):
        try:
            _RELEASED.append(self._arena)
            _collect(blocking=False)
        except Exception:  # noqa: BLE001  (interpreter shutdown: modules half torn down)
            pass


def _collect(blocking):
    """Count queued releases; free full arenas nothing uses. Without ``blocking``, a
    thread that holds a lock leaves the queue to the next load or release_unused()."""
    if not _LOCK.acquire(blocking=blocking):
        return
    try:
        if not _ARENA_LOCK.acquire(blocking=blocking):
            return
        try:
            _count_releases()
        finally:
            _ARENA_LOCK.release()
    finally:
        _LOCK.release()


def _count_releases():
    while _RELEASED:
        arena = _RELEASED.pop()
        arena.live -= 1
        if arena.live == 0 and arena is not _ARENA:
            arena.free()


def _loaded_in_arena(names, obj_digest):
    """(arena, addresses) when these names are loaded from this code in a live arena."""
    found = [_ARENA_NAMES.get(n) for n in names]
    if all(f is None for f in found):
        return None
    arena = found[0][0] if found[0] else None
    if any(f is None or f[1] != obj_digest or f[0] is not arena for f in found):
        raise ValueError(f"tjit LLVM target: symbols {names} are already loaded with "
                         "different code. Kernel names must be unique per content: derive "
                         "them from kernel_ir.kernel_hash (plus any codegen options).")
    return arena, {n: f[2] for n, f in zip(names, found)}


def _open_arena():
    global _ARENA
    if _ARENA is None or _ARENA.loaded >= ARENA_SIZE:
        full, _ARENA = _ARENA, _Arena()
        if full is not None and full.live == 0:
            full.free()
    return _ARENA


def load_owned(obj_bytes, names):
    """Link object code so that its memory is returned when no one uses it.

    Loading the same code under the same names while it is still loaded returns the
    same addresses (another OwnedCode) without linking again.

    Args:
      obj_bytes: a relocatable object file for this host (``emit_object``).
      names: the function symbols to look up.
    Returns:
      An :class:`OwnedCode`; ``.addresses`` is ``{name: address}``, valid while it lives.
    Raises:
      ValueError: a name is loaded with different code, or is not defined.
    """
    names, obj = list(names), bytes(obj_bytes)
    digest = _digest(obj)
    with _LOCK, _ARENA_LOCK:
        _count_releases()
        found = _loaded_in_arena(names, digest)
        if found is None:
            arena = _open_arena()
            arena.engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
            arena.engine.finalize_object()
            arena.loaded += 1
            ARENA_STATS["objects"] += 1
            addrs = {n: arena.engine.get_function_address(n) for n in names}
            missing = [n for n, a in addrs.items() if not a]
            if missing:
                raise ValueError(f"tjit LLVM target: the compiled code defines no function "
                                 f"{missing}; pass the names the IR actually defines.")
            for n, a in addrs.items():
                _ARENA_NAMES[n] = (arena, digest, a)
                arena.names.append(n)
            found = arena, addrs
        arena, addrs = found
        arena.live += 1
        return OwnedCode(arena, addrs)


def release_unused():
    """Free every arena whose code no OwnedCode uses, the one being filled included."""
    global _ARENA
    _collect(blocking=True)
    with _LOCK, _ARENA_LOCK:
        _count_releases()
        if _ARENA is not None and _ARENA.live == 0:
            _ARENA.free()
            _ARENA = None


def _set_timings(timings):
    _LAST_TIMINGS.clear()
    _LAST_TIMINGS.update(timings)


def last_timings():
    """Seconds spent in each phase of the last compile or load on any thread.

    Returns:
      dict with some of ``parse`` (incl. verify), ``optimize``, ``codegen``, ``load``
      (link into the JIT) and ``total``.
    """
    with _LOCK:
        return dict(_LAST_TIMINGS)
