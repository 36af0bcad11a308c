"""A small Wadler-style pretty printer: documents of text, breaks, groups and nesting,
laid out to a width. The jaxpr printer builds its text from these, so a jaxpr breaks
across lines exactly where JAX's printer breaks it.

    group(concat([text("f("), nest(2, concat([brk(""), text("x")])), brk(""), text(")")]))

prints ``f(x)`` when it fits in the remaining width and

    f(
      x
    )

when it does not. The layout is strict (Lindig, "Strictly Pretty", 2000), with the
choice JAX makes: a group prints flat when the group itself fits in what is left of
the line, whatever follows it.
"""

import enum


class Doc:
    __slots__ = ()

    def __add__(self, other):
        return concat([self, other])

    def format(self, width=80):
        return _format(self, width)

    def __str__(self):
        return self.format()


class _Text(Doc):
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class _Concat(Doc):
    __slots__ = ("children",)

    def __init__(self, children):
        self.children = children


class _Break(Doc):
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class _Group(Doc):
    __slots__ = ("child",)

    def __init__(self, child):
        self.child = child


class _Nest(Doc):
    __slots__ = ("n", "child")

    def __init__(self, n, child):
        self.n = n
        self.child = child


class _Lazy(Doc):
    __slots__ = ("text", "build")

    def __init__(self, text, build):
        self.text = text
        self.build = build


def lazy(flat, build):
    """``flat`` where it fits in the rest of the line, else the document ``build()``
    returns, which must lay out flat as ``flat``: documents are built only for the
    lines that break."""
    return _Lazy(flat, build)


def text(s):
    """Literal text (no newlines)."""
    return _Text(s)


def nil():
    return _Concat([])


def concat(docs):
    if type(docs) is not list:
        docs = list(docs)
    return docs[0] if len(docs) == 1 else _Concat(docs)


def brk(s=" "):
    """A break: ``s`` where its group is laid out flat, a newline (then the current
    indentation) where the group is broken."""
    return _Break(s)


def group(doc):
    """Flat if all of ``doc`` fits in the rest of the line, else its breaks are newlines
    (inner groups decide again for themselves)."""
    return _Group(doc)


def nest(n, doc):
    """Lines that ``doc``'s breaks start are indented ``n`` more."""
    return _Nest(n, doc)


def join(sep, docs):
    out = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return concat(out)


class _Mode(enum.Enum):
    FLAT = 0
    BREAK = 1


def _fits(doc, width):
    """Whether ``doc`` laid out flat takes at most ``width`` columns."""
    agenda = [doc]
    while width >= 0 and agenda:
        d = agenda.pop()
        t = type(d)
        if t is _Text or t is _Break or t is _Lazy:
            width -= len(d.text)
        elif t is _Concat:
            agenda.extend(reversed(d.children))
        else:   # group, nest
            agenda.append(d.child)
    return width >= 0


def _format(doc, width):
    lines, line, column = [], [], 0
    agenda = [(0, _Mode.BREAK, doc)]   # (indentation, mode, doc), last one next
    while agenda:
        indent, mode, d = agenda.pop()
        t = type(d)
        if t is _Text:
            line.append(d.text)
            column += len(d.text)
        elif t is _Concat:
            agenda.extend([(indent, mode, c) for c in reversed(d.children)])
        elif t is _Break:
            if mode is _Mode.BREAK:
                lines.append("".join(line))
                line, column = [" " * indent], indent
            else:
                line.append(d.text)
                column += len(d.text)
        elif t is _Nest:
            agenda.append((indent + d.n, mode, d.child))
        elif t is _Lazy:
            if mode is _Mode.FLAT or len(d.text) <= width - column:
                line.append(d.text)
                column += len(d.text)
            else:
                agenda.append((indent, mode, d.build()))
        else:   # group
            fits = _fits(d.child, width - column)
            agenda.append((indent, _Mode.FLAT if fits else _Mode.BREAK, d.child))
    lines.append("".join(line))
    return "\n".join(lines)
