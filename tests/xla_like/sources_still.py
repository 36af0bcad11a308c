"""Running a cross-process program-cache check while tjit's sources hold still.

The program cache's key includes the size and modification time of the compiler's
source files (``program_cache._source_digest``), so two processes that see different
sources do not share entries: by design, a process whose compiler was edited in between
misses. A check that one process reads back what another stored is therefore only
meaningful while nobody edits tjit (in a working tree shared with an editor or other
checkouts, a save lands between the writer and the reader now and then): it is rerun
when the sources changed during it, never judged on a mix of two compilers.
"""

import os

import pytest

TJIT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tjit")


def snapshot():
    """``{path: (size, mtime_ns)}`` of every ``.py`` file under tjit/ (a superset of the
    files any program key is made of)."""
    out = {}
    for root, dirs, files in os.walk(TJIT):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                try:
                    st = os.stat(path)
                    out[path] = (st.st_size, st.st_mtime_ns)
                except OSError:     # removed while walking: a change too
                    out[path] = None
    return out


def changed(before, after):
    """The files (relative to tjit/) added, removed or modified between two snapshots."""
    return sorted(os.path.relpath(p, TJIT) for p in before.keys() | after.keys()
                  if before.get(p) != after.get(p))


def run_while_sources_hold_still(attempt, tries=3):
    """``attempt(n)`` (n = 0, 1, ...; use n to keep each try's cache folder apart), rerun
    when tjit's sources changed while it ran; its result, or its exception when the
    sources held still. Fails, naming the files, when they changed during every try."""
    edited = []
    for n in range(tries):
        before = snapshot()
        try:
            result = attempt(n)
        except Exception:               # noqa: BLE001 (judged below)
            edited = changed(before, snapshot())
            if edited:
                continue                # a mix of two compilers: not a verdict
            raise
        edited = changed(before, snapshot())
        if not edited:
            return result
    pytest.fail(f"tjit's sources changed during each of {tries} tries (last: {edited[:5]}): "
                "another process is editing them; program-cache keys follow the sources, "
                "so this cross-process check cannot be judged now")
