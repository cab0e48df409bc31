"""Regular expressions of the knowledge read as text: what a line looks like,
not the pattern that checks it (``^Stack not found: (?P<stack>\\S+)`` reads
"Stack not found: …")."""

from __future__ import annotations

import importlib
import re
from typing import Any

try:  # The parser of the re module: private, but stable since Python 3.11.
    parser: Any = importlib.import_module("re._parser")
    constants: Any = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - another Python
    parser = constants = None

_GAP = "…"


def regex_words(pattern: str) -> str:
    """The literal text of a regex, with "…" where it allows any text; the
    pattern itself when it cannot be read."""
    if parser is None:
        return pattern
    try:
        parsed = parser.parse(pattern)
    except (re.error, RecursionError, ValueError):
        return pattern
    c = constants
    out: list[str] = []

    def gap() -> None:
        if not out or out[-1] != _GAP:
            out.append(_GAP)

    def walk(items: Any) -> None:
        for op, av in items:
            if op is c.LITERAL:
                out.append(chr(av))
            elif op is c.SUBPATTERN:
                walk(av[-1])
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                low, high, sub = av
                if low == 0 and high == 1:
                    continue  # optional: the line reads as well without it
                if len(sub) == 1 and sub[0][0] is c.LITERAL and low == high:
                    out.append(chr(sub[0][1]) * low)
                elif len(sub) == 1 and sub[0][0] is c.LITERAL and low >= 1:
                    out.append(chr(sub[0][1]))
                else:
                    gap()
            elif op is c.BRANCH:
                walk(av[1][0])
            elif op is getattr(c, "ATOMIC_GROUP", None):
                walk(av)
            elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
                continue
            else:
                gap()

    walk(parsed)
    text = "".join(out).strip()
    return text or _GAP
