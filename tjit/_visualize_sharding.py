"""``jax.debug.visualize_sharding`` / ``visualize_array_sharding``: which device holds
which block of a 1-d or 2-d array, drawn as JAX draws it without colour (a ``rich``
table with square box lines, each cell ``CPU 0`` or ``CPU 0,1`` for replicas), in plain
text: tjit needs no ``rich``.

The cell sizes follow JAX's rule: 10 lines tall for a whole 2-d array (``scale``
times), as wide as the array's aspect ratio times 2.5 (at least ``min_width``, at most
``max_width``), a 1-d array one line tall; each label centred in its cell.
"""

import builtins

from tjit.tracing.core import Array, Tracer


def _chunk(n, sl):
    """(index of the block, its size) of the slice ``sl`` of a dimension of size ``n``."""
    if isinstance(sl, int):
        return sl, 1
    start, stop = sl.start or 0, n if sl.stop is None else sl.stop
    size = stop - start
    return (start // size if size else 0), size


def _cells(shape, sharding):
    """{(row, col): (device ids, height fraction or None for 1-d, width fraction)}."""
    cells = {}
    for dev, index in sharding.devices_indices_map(tuple(shape)).items():
        index = tuple(index) + (slice(None),) * (len(shape) - len(index))
        if len(shape) == 2:
            (r, h), (c, w) = _chunk(shape[0], index[0]), _chunk(shape[1], index[1])
            key, height, width = (r, c), h / shape[0], w / shape[1]
        else:
            c, w = _chunk(shape[0], index[0])
            key, height, width = (0, c), None, w / shape[0]
        ids, _, _ = cells.get(key, (set(), None, None))
        cells[key] = (ids | {dev.id}, height, width)
    return cells


def render_sharding(shape, sharding, *, scale=1.0, min_width=9, max_width=80):
    """The text :func:`visualize_sharding` prints (without the blank line after)."""
    shape = tuple(shape)
    if not 1 <= len(shape) <= 2:
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 "
                         "dimensions.")
    base_height = int(10 * scale)
    base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
    kind = next(iter(sharding.device_set)).platform.upper()
    cells = _cells(shape, sharding)
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    text = {}
    for (r, c), (ids, height, width) in cells.items():
        label = f"{kind} " + ",".join(str(i) for i in sorted(ids))
        w = min(max(int(width * base_width * 2.5), min_width), max_width)
        left, extra = divmod(w - len(label) - 2, 2)
        h = 1 if height is None else int(height * base_height)
        top, extra_v = divmod(h - 2, 2)
        # (rich pads the label by these amounts; negative paddings are 0)
        row = " " * max(left, 0) + label + " " * max(left + extra, 0)
        text[r, c] = [""] * max(top, 0) + [row] + [""] * max(top + extra_v, 0)
    widths = [max(len(line) for r in range(rows) for line in text[r, c])
              for c in range(cols)]
    heights = [max(len(text[r, c]) for c in range(cols)) for r in range(rows)]

    def rule(left, mid, right):
        return left + mid.join("─" * w for w in widths) + right

    out = [rule("┌", "┬", "┐")]
    for r in range(rows):
        if r:
            out.append(rule("├", "┼", "┤"))
        for i in range(heights[r]):
            parts = []
            for c in range(cols):   # (a shorter or narrower cell: blank below, right)
                lines = text[r, c]
                parts.append((lines[i] if i < len(lines) else "").ljust(widths[c]))
            out.append("│" + "│".join(parts) + "│")
    out.append(rule("└", "┴", "┘"))
    return "\n".join(out)


def visualize_sharding(shape, sharding, *, use_color=True, scale=1.0, min_width=9,
                       max_width=80, color_map=None):
    """Print which device holds which block of an array of ``shape`` (1-d or 2-d) laid
    out as ``sharding``, as ``jax.debug.visualize_sharding`` prints it without colour
    (``use_color`` and ``color_map`` are accepted; tjit prints plain text).

    Raises:
      ValueError: ``shape`` has no dimension or more than two.
    """
    builtins.print(render_sharding(shape, sharding, scale=scale, min_width=min_width,
                                   max_width=max_width), end="\n\n")


def inspect_array_sharding(value, *, callback):
    """Call ``callback(sharding)`` with each array leaf's sharding, as
    ``jax.debug.inspect_array_sharding``: eagerly its ``.sharding``; inside a traced
    function, at trace time, the sharding of the device the program runs on (tjit runs
    a traced program on one device, so every layout places the whole array there)."""
    import tjit
    from tjit.sharding import SingleDeviceSharding
    from tjit.tracing.tree_util import tree_leaves
    for leaf in tree_leaves(value):
        if isinstance(leaf, Array):
            callback(leaf.sharding)
        elif isinstance(leaf, Tracer):
            callback(SingleDeviceSharding(tjit.devices()[0]))
        else:
            raise TypeError(f"inspect_array_sharding: expected arrays, got "
                            f"{type(leaf).__name__} {leaf!r:.60}")


def visualize_array_sharding(arr, **kwargs):
    """Print the layout of the 1-d or 2-d array ``arr`` (:func:`visualize_sharding`), as
    ``jax.debug.visualize_array_sharding``."""
    inspect_array_sharding(arr, callback=lambda s: visualize_sharding(arr.shape, s,
                                                                      **kwargs))
