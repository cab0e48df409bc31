"""Undoing the hard wraps of a terminal or a ticket: one logical line from its pieces.

A log copied from a terminal of W columns, or through a tool that folds at W,
has each long line cut into pieces of exactly W characters and a shorter last
piece. Such a log has many lines of exactly W characters and (nearly) none
longer: that is how the width is found, from the head of the input, before
parsing. A line of exactly W characters then continues on the next line,
unless that line plainly starts a record of its own (a log whose lines were
*cut* at W rather than folded has lines of W characters too, and nothing of
them continues).

Escaped JSON (Ansible's ``"stderr": "...\\n..."``) holds its own newlines as
``\\n``: a physical line break inside it is always a wrap, whatever the width.

Everything here is linear: a logical line is a list of pieces joined once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO, cast

from osdoctor.parse.paste import DEBUG_PREFIXES, RECORD_STARTS

#: Lines at least this long count for finding the width.
WRAP_MIN = 60
#: Bytes of the input's head looked at to find the width.
SNIFF_BYTES = 4 * 1024 * 1024
#: Pieces joined into one logical line at most: a log of lines that all happen
#: to be W long must not become one line.
MAX_PIECES = 64
_QUOTE = re.compile(r"(?:> ?)+")
# What starts a line of its own: a client record, a tool prefix, a frame, a table.
_LINE_START = re.compile(
    f"(?:{RECORD_STARTS}|"
    r"Using auth plugin|Using parameters|Get auth_ref|run\(Namespace|take_action\(|"
    r"Failed to discover|Unable to establish|SSL exception|\d+\.\d{3} [12] |#\w|\[\d{4}-|"
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:|"
    r"\s+File \"|\+-|\| |failed: |changed: |ok: |TASK \[|\.\.\.$|\[\.\.\.|--- )"
)


def unquoted(text: str) -> str:
    """``text`` without the ``> `` marks a ticket adds to every physical line."""
    if text[:1] == ">":
        m = _QUOTE.match(text)
        if m:
            return text[m.end() :]
    return text


def starts_line(text: str) -> bool:
    """Whether ``text`` (unquoted) begins a line of its own rather than continuing one."""
    return not text or _LINE_START.match(text) is not None or text.startswith(DEBUG_PREFIXES)


def _counts(lines: Iterable[str]) -> Counter[int]:
    counts: Counter[int] = Counter()
    for line in lines:
        text = unquoted(line.rstrip("\r"))
        if len(text) >= WRAP_MIN and text[:1] not in "+|":
            # Table rows share one width by design; they say nothing of a wrap.
            counts[len(text)] += 1
    return counts


def detect_width(lines: Iterable[str]) -> int | None:
    """The width a paste was folded at, or None: the most common long length,
    when enough lines have it and (nearly) none is longer."""
    counts = _counts(lines)
    if not counts:
        return None
    width, count = max(counts.items(), key=lambda item: (item[1], item[0]))
    longer = sum(n for length, n in counts.items() if length > width)
    if count < 3 or count * 3 < sum(counts.values()) or longer * 8 > count:
        return None
    return width


def detect_width_bytes(head: bytes) -> int | None:
    """:func:`detect_width` of the whole lines of a head of undecoded input."""
    last = head.rfind(b"\n")
    if last < 0:
        return None
    text = head[:last].decode("utf-8", "replace")
    return detect_width(text.split("\n"))


def escaped_open(text: str) -> bool:
    """Whether a line holds JSON-escaped text (``\\n`` for newlines) and stops
    inside it: the next physical line is its continuation."""
    if "\\n" not in text and '\\"' not in text:
        return False
    tail = text.rstrip()
    return not tail.endswith(("}", "]", '"', "',", '",', "'"))


def continues(held: str, held_len: int, width: int | None, following: str) -> bool:
    """Whether ``following`` (unquoted) continues the logical line ``held``,
    whose last piece was ``held_len`` characters long."""
    if starts_line(following):
        return False
    if width is not None and held_len == width:
        return True
    return escaped_open(held) and ("\\n" in following or '\\"' in following)


class _Replay:
    """A stream that gives back its sniffed head before the rest."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def read(self, size: int = -1) -> bytes:
        head = self._head
        if head:
            if size < 0 or size >= len(head):
                self._head = b""
                more = self._rest.read(size - len(head)) if size > len(head) else b""
                if size < 0:
                    more = self._rest.read()
                return head + more
            self._head = head[size:]
            return head[:size]
        return self._rest.read(size)


def sniff(stream: BinaryIO) -> tuple[BinaryIO, int | None]:
    """(a stream that reads as ``stream`` would, the width its head was folded at)."""
    head = stream.read(SNIFF_BYTES)
    return cast(BinaryIO, _Replay(head, stream)), detect_width_bytes(head)


def width_of_file(path: Path) -> int | None:
    """The width a saved paste was folded at, from its head."""
    try:
        with path.open("rb") as stream:
            return detect_width_bytes(stream.read(SNIFF_BYTES))
    except OSError:
        return None
