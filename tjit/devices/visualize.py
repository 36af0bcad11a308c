"""The compiled program as a picture: an HTML view of an executable's plan.

``Compiled._repr_html_`` (Jupyter), ``Compiled.visualize(path)`` (a standalone page) and
``tjit.show(f, *args)`` render through :class:`ProgramView`. It reads only what every
planned executable exposes (``executable.program``: steps, values, buffer slots,
donation; ``memory_analysis``; ``kernel_source(kernel)``: LLVM IR on the CPU, OpenCL
or CUDA C; ``as_text(source=True)`` for a whole HLS design), so it sits in ``devices/`` beside the executables it reads: it needs
``xla_like``'s plan types and (for the CPU's loop style) ``lower.llvm``, both below
``devices/`` in DESIGN.md's table, and nothing of tracing or the public API (the caller
passes the jaxpr as text).

Layout: a plan is a sequence of steps joined by buffers, so the graph is a layered
layout in step order of our own (inputs, steps, outputs top to bottom; an edge between
neighbours is a straight line, a longer one runs in its own lane to the right, lanes
assigned greedily like registers to intervals), drawn as inline SVG. Graphviz's
``dot`` would lay out general graphs better, but it needs a system binary that pip
cannot install and that a notebook user may lack, and in step order no node ever needs
reordering. Everything is inline (CSS, SVG, a few lines of JS that only open a step's
details on click), so a saved page needs no network; every text is HTML-escaped
(kernel sources contain ``<`` and ``&``).
"""

import html
import itertools
import re

import numpy as np

from tjit.xla_like import kernel_ir as K
from tjit.xla_like.plan import ControlStep, DotStep, KernelStep, concrete

#: Library steps that are collectives (MPI/NCCL across processes).
COLLECTIVES = frozenset({"psum", "pmax", "pmin", "all_gather", "psum_scatter",
                         "all_to_all", "ppermute", "axis_index"})
COLORS = {"kernel": "#dbeafe", "dot": "#fde68a", "library": "#e5e7eb",
          "control": "#e9d5ff", "collective": "#fecaca", "param": "#dcfce7",
          "output": "#fce7f3", "const": "#f3f4f6"}
_ids = itertools.count()

#: The marker of a whole design's source in ``as_text(source=True)`` (HLS: one C++ file
#: for all kernels); per-kernel sources come from ``executable.kernel_source``.
_DESIGN_MARK = re.compile(r"^// ---- (HLS C\+\+)\s*$", re.MULTILINE)


def step_kind(s):
    """``kernel``, ``dot``, ``control``, ``collective`` or ``library``."""
    if isinstance(s, KernelStep):
        return "kernel"
    if isinstance(s, DotStep):
        return "dot"
    if isinstance(s, ControlStep):
        return "control"
    prim = getattr(s.primitive, "name", None) or s.name
    return "collective" if prim in COLLECTIVES else "library"


def fmt_bytes(n):
    if not isinstance(n, (int, np.integer)):
        return f"{n} B"
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _nbytes(value):
    return concrete(value.nbytes, {}) if all(isinstance(d, int) for d in value.shape) \
        else value.nbytes


def _aval(value):
    return f"{np.dtype(value.dtype).name}[{','.join(str(d) for d in value.shape)}]"


def loop_style(kernel, backend):
    """How a kernel loops: elementwise or reduction, in place, one hyperplane; on the
    CPU also the LLVM profile and the axis split across threads."""
    k = kernel
    space = "×".join(str(d) for d in k.shape) or "scalar"
    if not k.reduce_axes:
        style = f"elementwise over {space}"
    elif k.row_style:
        style = f"row reduction over axes {list(k.reduce_axes)} of {space}"
    else:
        style = f"reduction over axes {list(k.reduce_axes)} of {space}"
    if k.inplace:
        style += ", in place"
    if k.hyperplane is not None:
        style += f", one hyperplane of i{k.hyperplane[0]}"
    if backend == "cpu":
        from tjit.lower.llvm.profile import compile_profile
        from tjit.lower.llvm.split import split_axis
        axis = split_axis(k)
        style += f"; {compile_profile(k)} code" + (
            "" if axis is None else f", threads split i{axis}")
    return style


def fused_ops(kernel):
    """The ops a kernel fuses, with counts, in first-seen order (``exp, mul×3``)."""
    counts = {}
    for n in K.all_nodes(kernel):
        if isinstance(n, K.Op):
            counts[n.op] = counts.get(n.op, 0) + 1
    monoids = [s.monoid for s in kernel.stages]
    for m in monoids:
        counts[f"reduce_{m}"] = counts.get(f"reduce_{m}", 0) + 1
    return ", ".join(op if c == 1 else f"{op}×{c}" for op, c in counts.items())


def design_source(executable):
    """``(language, text)`` of a backend's one source file for the whole program (the
    HLS design), or None."""
    try:
        text = executable.as_text(source=True)
    except NotImplementedError:
        return None
    m = _DESIGN_MARK.search(text)
    return None if m is None else (m.group(1), text[m.end():].strip("\n"))


class _Graph:
    """Nodes in one column in step order, edges in lanes (see the module docstring)."""

    BOX_W, STEP_H, SMALL_H, GAP, LANE = 460, 74, 26, 22, 12

    def __init__(self, prefix):
        self.prefix = prefix
        self.nodes = []    # (key, kind, title, lines, anchor)
        self.edges = []    # (from key, to key, label)

    def node(self, key, kind, title, lines=(), anchor=None):
        self.nodes.append((key, kind, title, tuple(lines), anchor))

    def svg(self):
        y, pos = 10, {}
        for key, kind, *_ in self.nodes:
            h = self.SMALL_H if kind in ("param", "output", "const") else self.STEP_H
            pos[key] = (y, h)
            y += h + self.GAP
        order = {key: n for n, (key, *_) in enumerate(self.nodes)}
        nets = {}     # (source, label) -> its targets: one value read by several steps
        for a, b, lab in self.edges:
            if a in pos and b in pos and b not in nets.setdefault((a, lab), []):
                nets[(a, lab)].append(b)
        nets = sorted(nets.items(), key=lambda e: order[e[0][0]])
        lanes, lane_of = [], {}      # lane -> the last node index it is busy to
        for (a, lab), targets in nets:
            last = max(order[b] for b in targets)
            if len(targets) == 1 and last - order[a] == 1:
                continue     # next node: a straight line down
            free = [n for n, end in enumerate(lanes) if end < order[a]]
            n = free[0] if free else len(lanes)
            lanes[n:n + 1] = [last]
            lane_of[(a, lab)] = n
        x0 = 10
        width = x0 + self.BOX_W + self.LANE * (len(lanes) + 2) + 90
        parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="tjit-graph" '
                  f'width="{width}" height="{y}" viewBox="0 0 {width} {y}">'),
                 (f'<defs><marker id="{self.prefix}-arrow" viewBox="0 0 10 10" refX="9" '
                  'refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
                  '<path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>')]
        arrow = f'fill="none" stroke="#555" marker-end="url(#{self.prefix}-arrow)"'
        for (a, lab), targets in nets:
            ya, ha = pos[a]
            lane = lane_of.get((a, lab))
            if lane is None:
                xa, yb = x0 + self.BOX_W // 2, pos[targets[0]][0]
                paths = [f"M{xa},{ya + ha} L{xa},{yb}"]
                tx, ty = xa + 6, (ya + ha + yb) // 2 + 4
            else:
                xr, xl = x0 + self.BOX_W, x0 + self.BOX_W + self.LANE * (lane + 1)
                yl = max(pos[b][0] + 10 for b in targets)
                parts.append(f'<path class="tjit-edge" d="M{xr},{ya + ha // 2} '
                             f'L{xl},{ya + ha // 2} L{xl},{yl}" fill="none" stroke="#555"/>')
                paths = [f"M{xl},{pos[b][0] + 10} L{xr},{pos[b][0] + 10}" for b in targets]
                tx, ty = xl + 3, ya + ha // 2 - 3
            parts += [f'<path class="tjit-edge" d="{d}" {arrow}/>' for d in paths]
            parts.append(f'<text class="tjit-edge-label" x="{tx}" y="{ty}">'
                         f'{html.escape(lab)}</text>')
        for key, kind, title, lines, anchor in self.nodes:
            ny, h = pos[key]
            box = (f'<rect x="{x0}" y="{ny}" width="{self.BOX_W}" height="{h}" rx="6" '
                   f'fill="{COLORS[kind]}" stroke="#333"/>'
                   f'<text x="{x0 + 8}" y="{ny + 17}" class="tjit-title">'
                   f'{html.escape(title)}</text>')
            box += "".join(f'<text x="{x0 + 8}" y="{ny + 33 + 14 * i}">{html.escape(t)}</text>'
                           for i, t in enumerate(lines))
            cls = f'tjit-node tjit-{kind}'
            if anchor:
                parts.append(f'<g class="{cls}" data-target="{anchor}">'
                             f'<a href="#{anchor}">{box}</a></g>')
            else:
                parts.append(f'<g class="{cls}">{box}</g>')
        parts.append("</svg>")
        return "".join(parts)


class ProgramView:
    """An HTML picture of one compiled program (see the module docstring).

    Args:
      executable: a backend's executable (``Compiled.executable``).
      name: the function's name.
      jaxpr_text: the traced program, printed.
      donated: flat argument positions the caller donates.
      eqn_texts: each top-level jaxpr equation printed (``tracing.jaxpr.eqn_texts``):
        a step lists the equations it computes (``step.origin``).
    """

    def __init__(self, executable, name, jaxpr_text="", donated=(), eqn_texts=()):
        self.executable = executable
        self.name = name
        self.jaxpr_text = jaxpr_text
        self.donated = tuple(donated)
        self.eqn_texts = list(eqn_texts)
        self.program = getattr(executable, "program", None)
        self.backend = getattr(executable, "backend", "?")
        self.prefix = f"tjit{next(_ids)}"

    # -- the public forms ----------------------------------------------------------------
    def _repr_html_(self):
        return self.fragment()

    def page(self):
        """A standalone HTML page (inline CSS, SVG and JS; no network)."""
        title = html.escape(f"tjit: {self.name}")
        return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                f"<title>{title}</title><script>window.tjitErrors=0;"
                "window.addEventListener('error',function(){window.tjitErrors++;});</script>"
                f"</head><body>{self.fragment()}<script>"
                "document.body.setAttribute('data-tjit-errors',String(window.tjitErrors));"
                "document.body.setAttribute('data-tjit-ready','1');</script></body></html>\n")

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.page())
        return path

    def __repr__(self):
        return f"<ProgramView of {self.name} ({self.backend}): {self.summary()}>"

    def summary(self):
        if self.program is None:
            return "not a planned program (no fused kernels to show)"
        kinds = [step_kind(s) for s in self.program.steps]
        label = {"dot": "gemm", "control": "control-flow step", "library": "library step",
                 "collective": "collective"}
        return ", ".join(f"{kinds.count(k)} {label.get(k, k)}"
                         + ("s" if kinds.count(k) != 1 else "")
                         for k in ("kernel", "dot", "library", "control", "collective")
                         if k in kinds)

    # -- rendering -----------------------------------------------------------------------
    def fragment(self):
        """The view as an HTML fragment (what Jupyter shows)."""
        p = self.prefix
        parts = [f'<div class="tjit-view" id="{p}"><style>{_CSS}</style>',
                 (f'<h3>{html.escape(self.name)} — compiled for '
                  f'{html.escape(str(self.backend))}</h3>')]
        if self.program is None:
            parts.append('<p>This backend runs the traced program directly; there is no '
                         'fused plan to draw.</p>')
        else:
            parts.append(f'<p class="tjit-summary">{html.escape(self.summary())}</p>')
            parts.append(self._memory())
            parts.append(self._program(self.program, p, depth=0))
            whole = design_source(self.executable)
            if whole:
                parts.append(_details(f"{whole[0]} of the whole design", whole[1]))
        if self.jaxpr_text:
            parts.append(_details("jaxpr (the traced program)", self.jaxpr_text))
        parts.append(f"<script>{_JS % p}</script></div>")
        return "\n".join(parts)

    def _memory(self):
        try:
            m = self.executable.memory_analysis()
        except (TypeError, KeyError, ValueError):   # a polymorphic program: sizes unbound
            names = ", ".join(f"{s}=..." for s in getattr(self.executable, "symbols", ()))
            return ('<p class="tjit-memory">memory: depends on the sizes; '
                    f'<code>memory_analysis({html.escape(names)})</code> gives it</p>')
        if m is None:
            return ""
        return ('<p class="tjit-memory">memory: arguments '
                f'{fmt_bytes(m.argument_size_in_bytes)}, outputs '
                f'{fmt_bytes(m.output_size_in_bytes)}, temporaries '
                f'{fmt_bytes(m.temp_size_in_bytes)} in {m.temp_buffers} buffers, '
                f'aliased into donated arguments {fmt_bytes(m.alias_size_in_bytes)}'
                + (f'; peak {fmt_bytes(m.peak_memory_in_bytes)}'
                   if hasattr(m, "peak_memory_in_bytes") else "") + '</p>')

    def _program(self, prog, prefix, depth):
        graph = _Graph(prefix)
        producer = {}
        donated = set(self.donated) if depth == 0 else set(prog.donated)
        for pos, v in enumerate(prog.params):
            val = prog.values[v]
            mark = " (donated)" if pos in donated else ""
            graph.node(("v", v), "param", f"arg{pos} %{v}: {_aval(val)}{mark}")
            producer.setdefault(v, ("v", v))
        for n, s in enumerate(prog.steps):
            for v in s.ins:
                val = prog.values.get(v)
                if v not in producer and val is not None and val.kind == "const":
                    graph.node(("v", v), "const", f"constant %{v}: {_aval(val)}")
                    producer[v] = ("v", v)
        details = []
        for n, s in enumerate(prog.steps):
            kind = step_kind(s)
            anchor = f"{prefix}-s{n}"
            title, lines = self._step_text(prog, n, s, kind)
            if depth == 0 and getattr(s, "origin", ()):
                lines = lines + [f"computes jaxpr equations {_ranges(s.origin)}"]
            graph.node(("s", n), kind, title, lines, anchor)
            for v in s.ins:
                if v in producer:
                    graph.edges.append((producer[v], ("s", n), f"%{v}"))
            for v in s.outs:
                if v is not None:
                    producer[v] = ("s", n)
            details.append(self._step_details(prog, n, s, kind, anchor, depth))
        arg_of = {o: pos for pos, o in prog.aliases.items()}
        for j, v in enumerate(prog.outputs):
            where = f" (in arg{arg_of[v]}'s buffer)" if v in arg_of else ""
            graph.node(("o", j), "output", f"result {j} %{v}: {_aval(prog.values[v])}{where}")
            if v in producer:
                graph.edges.append((producer[v], ("o", j), f"%{v}"))
        return (f'<div class="tjit-program"><div class="tjit-graph-box">{graph.svg()}</div>'
                f'{self._buffers(prog, donated)}'
                f'<div class="tjit-steps">{"".join(details)}</div>'
                f'{self._unplaced(prog) if depth == 0 else ""}</div>')

    def _eqns(self, origin):
        return "\n".join(f"{n:4d}: {self.eqn_texts[n]}" for n in origin
                         if n < len(self.eqn_texts))

    def _unplaced(self, prog):
        """The equations no step computes: the compiler's simplifications removed them
        (a multiply by one, a broadcast read in place, an exp folded into a log1p)."""
        placed = {n for s in prog.steps for n in getattr(s, "origin", ())}
        if not self.eqn_texts or not placed:
            return ""
        rest = [n for n in range(len(self.eqn_texts)) if n not in placed]
        if not rest:
            return ""
        return _details(f"{len(rest)} jaxpr equations simplified away or inlined into "
                        "the steps' reads", self._eqns(rest))

    def _step_text(self, prog, n, s, kind):
        moved = _moved(prog, s)
        io = (", ".join(f"%{v}" for v in s.ins) + " → "
              + ", ".join("_" if v is None else f"%{v}" for v in s.outs))
        if kind == "kernel":
            return (f"{n}: kernel {s.kernel.name}",
                    [f"{loop_style(s.kernel, self.backend)}",
                     f"{io}   moves {moved}"])
        if kind == "dot":
            b, m, k_, nn = s.gemm_spec(prog.values[s.ins[0]].shape,
                                       prog.values[s.ins[1]].shape).bmkn
            return (f"{n}: gemm {s.name}",
                    [f"batch {b}, M {m}, K {k_}, N {nn}; alpha {s.alpha:g}"
                     + (f", + beta {s.beta:g}·%{s.x}" if s.x is not None else ""),
                     f"{io}   moves {moved}"])
        if kind == "control":
            return (f"{n}: {s.name} [" + ", ".join(b.name for b in s.bodies) + "]",
                    [f"{len(s.bodies)} body program" + ("s" if len(s.bodies) != 1 else "")
                     + " (drawn in its details)", f"{io}   moves {moved}"])
        return (f"{n}: {kind} {s.name}", ["runs on the host array namespace"
                                          if kind == "library" else
                                          "a collective over the members of its named axes",
                                          f"{io}   moves {moved}"])

    def _step_details(self, prog, n, s, kind, anchor, depth):
        title, lines = self._step_text(prog, n, s, kind)
        inner = [f"<p>{html.escape(' · '.join(lines))}</p>"]
        vals = [v for v in s.ins + s.outs if v is not None]
        inner.append("<p>" + html.escape("; ".join(
            f"%{v}: {_aval(prog.values[v])} ({fmt_bytes(_nbytes(prog.values[v]))})"
            for v in dict.fromkeys(vals))) + "</p>")
        if depth == 0 and getattr(s, "origin", ()) and self.eqn_texts:
            inner.append(_details(f"jaxpr equations it computes ({len(s.origin)})",
                                  self._eqns(s.origin), opened=True))
        if kind == "kernel":
            inner.append(f"<p>fuses: {html.escape(fused_ops(s.kernel))}</p>")
            inner.append(_details("kernel IR", K.kernel_text(s.kernel)))
            source = getattr(self.executable, "kernel_source", None)
            src = source(s.kernel) if source else None
            if src:
                inner.append(_details(f"{src[0]} (backend source)", src[1]))
        if kind == "control" and depth < 4:
            for b in s.bodies:
                inner.append(f"<div class='tjit-body'><h4>body {html.escape(b.name)}</h4>"
                             f"{self._program(b, f'{anchor}-{b.name}', depth + 1)}"
                             "</div>")
        opened = " open" if kind == "control" else ""   # its bodies are its picture
        return (f'<details class="tjit-step tjit-step-{kind}" id="{anchor}"{opened}>'
                f"<summary>{html.escape(title)}</summary>{''.join(inner)}</details>")

    def _buffers(self, prog, donated):
        """The table of buffers: size, slot, lifetime in steps, donation."""
        n_steps = len(prog.steps)
        first, last = {}, {}
        for n, s in enumerate(prog.steps):
            for v in s.outs:
                if v is not None:
                    first.setdefault(v, n)
            for v in s.ins:
                last[v] = n
        for v in prog.outputs:
            last[v] = n_steps
        arg_of = {o: pos for pos, o in prog.aliases.items()}
        rows = []
        for v, val in prog.values.items():
            if v not in last and v not in first and v not in prog.params:
                continue     # computed inside a kernel: never a buffer
            start = -1 if val.kind in ("param", "const") else first.get(v, -1)
            end = last.get(v, start)
            pos = prog.params.index(v) if v in prog.params else None
            notes = []
            if pos is not None:
                notes.append(f"arg{pos}" + (" donated" if pos in donated else ""))
            if v in arg_of:
                notes.append(f"written into arg{arg_of[v]}'s buffer")
            if v in prog.slot_of:
                notes.append(f"slot {prog.slot_of[v]}")
            bar = _lifetime_bar(start, end, n_steps)
            rows.append(f"<tr class='tjit-buf tjit-buf-{val.kind}'><td>%{v}</td>"
                        f"<td>{val.kind}</td><td>{html.escape(_aval(val))}</td>"
                        f"<td>{html.escape(fmt_bytes(_nbytes(val)))}</td><td>{bar}</td>"
                        f"<td>{html.escape(', '.join(notes))}</td></tr>")
        return ("<details class='tjit-buffers'><summary>buffers: "
                f"{len(rows)} values, {len(prog.slot_sizes)} temporary slots</summary>"
                "<table><tr><th>value</th><th>kind</th><th>type</th><th>bytes</th>"
                "<th>lifetime (in · steps · out)</th><th>notes</th></tr>"
                + "".join(rows) + "</table></details>")


def _moved(prog, s):
    """Bytes of the distinct buffers a step reads and writes."""
    total = 0
    for v in dict.fromkeys(x for x in s.ins + s.outs if x is not None):
        total = total + _nbytes(prog.values[v])
    return fmt_bytes(total)


def _lifetime_bar(start, end, n_steps):
    """An inline SVG bar over columns in, 0..n_steps-1, out."""
    cols, w = n_steps + 2, 8
    x = (start + 1) * w
    width = max(w, (end - start + 1) * w)
    return (f'<svg class="tjit-life" width="{cols * w}" height="10">'
            f'<rect x="0" y="0" width="{cols * w}" height="10" fill="#f3f4f6"/>'
            f'<rect x="{x}" y="1" width="{min(width, cols * w - x)}" height="8" '
            f'fill="#60a5fa"/></svg>')


def _details(summary, text, opened=False):
    return (f"<details class='tjit-source'{' open' if opened else ''}><summary>"
            f"{html.escape(summary)}</summary><pre>{html.escape(text)}</pre></details>")


def _ranges(ns):
    """``0, 2-4, 9`` for (0, 2, 3, 4, 9)."""
    out, start = [], None
    for a, b in zip(ns, list(ns[1:]) + [None]):
        start = a if start is None else start
        if b != a + 1:
            out.append(str(a) if start == a else f"{start}-{a}")
            start = None
    return ", ".join(out)


_CSS = """
.tjit-view{font-family:system-ui,sans-serif;font-size:13px;color:#111}
.tjit-view h3{margin:4px 0}
.tjit-view svg text{font-family:ui-monospace,monospace;font-size:11px;fill:#111}
.tjit-view svg .tjit-title{font-weight:bold;font-size:12px}
.tjit-view .tjit-edge-label{fill:#555;font-size:10px}
.tjit-view .tjit-node a{cursor:pointer}
.tjit-view pre{background:#f8fafc;border:1px solid #ddd;padding:6px;max-height:420px;
overflow:auto;font-size:11px}
.tjit-view table{border-collapse:collapse;font-family:ui-monospace,monospace;font-size:11px}
.tjit-view td,.tjit-view th{border:1px solid #ddd;padding:1px 6px;text-align:left}
.tjit-view .tjit-body{margin-left:24px;border-left:3px solid #e9d5ff;padding-left:8px}
.tjit-view details>summary{cursor:pointer}
"""

# Clicking a step's box opens its details (the page works without this script).
_JS = """(function(){var root=document.getElementById('%s');if(!root)return;
root.querySelectorAll('g.tjit-node[data-target]').forEach(function(g){
g.addEventListener('click',function(ev){var d=document.getElementById(
g.getAttribute('data-target'));if(d){d.open=true;d.scrollIntoView();ev.preventDefault();}});
});})();"""
