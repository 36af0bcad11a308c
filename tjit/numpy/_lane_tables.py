"""The tables in which tjit.numpy's eager lanes keep their per-signature plans.

A plan records what a signature's first call did (the dtypes promotion chose, the NumPy
call made), and where a default dtype took part (``int32 / int32`` is float32 without
x64, float64 with it) that depends on the x64 switch. Every table is made here and
emptied when the switch changes, so each plan in it was made under the current setting
and a call never reads the switch: reading ``config.enable_x64`` costs about as much as
the rest of a plan's lookup.
"""

from tjit.config import config

_tables = []
_x64_seen = [config.enable_x64]


def new_table():
    """An empty plan table (a dict), emptied whenever the x64 switch changes."""
    table = {}
    _tables.append(table)
    return table


def keep(table, key, plan):
    """Remember ``plan`` in ``table`` (bounded: emptied when it grows past 512)."""
    if len(table) > 512:
        table.clear()
    table[key] = plan


def _on_config_change():
    x64 = config.enable_x64
    if x64 != _x64_seen[0]:
        _x64_seen[0] = x64
        for table in _tables:
            table.clear()


config.on_change(_on_config_change)
