"""Regular expressions of the knowledge read as text: what a line looks like,
not the pattern that checks it (``^Stack not found: (?P<stack>\\S+)`` reads
"Stack not found: …")."""

from __future__ import annotations

import functools

from osdoctor.kb.regex_tree import Node, parse

_GAP = "…"


@functools.lru_cache(maxsize=1024)
def regex_words(pattern: str) -> str:
    """The literal text of a regex, with "…" where it allows any text; the
    pattern itself when it cannot be read."""
    tree = parse(pattern)
    if tree is None:
        return pattern
    out: list[str] = []

    def gap() -> None:
        if not out or out[-1] != _GAP:
            out.append(_GAP)

    def walk(nodes: list[Node]) -> None:
        for kind, value in nodes:
            if kind == "literal":
                out.append(chr(value))
            elif kind == "group":
                walk(value[-1])
            elif kind == "repeat":
                low, high, sub = value
                if low == 0 and high == 1:
                    continue  # optional: the line reads as well without it
                if len(sub) == 1 and sub[0][0] == "literal" and low == high:
                    out.append(chr(sub[0][1]) * low)
                elif len(sub) == 1 and sub[0][0] == "literal" and low >= 1:
                    out.append(chr(sub[0][1]))
                else:
                    gap()
            elif kind == "branch":
                walk(value[0])
            elif kind == "atomic":
                walk(value)
            elif kind in ("at", "assert", "assert_not"):
                continue
            else:
                gap()

    walk(tree.nodes)
    text = "".join(out).strip()
    return text or _GAP
