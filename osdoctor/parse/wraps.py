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

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

from osdoctor import regex
from osdoctor.parse.paste import DEBUG_PREFIXES, RECORD_STARTS

#: Lines at least this long count for finding the width.
WRAP_MIN = 60
#: Bytes of the input's head looked at to find the width.
SNIFF_BYTES = 4 * 1024 * 1024
#: Pieces joined into one logical line at most: a log of lines that all happen
#: to be W long must not become one line.
MAX_PIECES = 64
_QUOTE = regex.compile(r"(?:> ?)+")
# What starts a line of its own: a client record, a tool prefix, a frame, a table.
_LINE_START = regex.compile(
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


@dataclass(frozen=True, slots=True)
class Widths:
    """What the head of an input says of its line lengths."""

    fold: int | None = None
    """The width the paste was folded at: lines that long go on on the next line."""
    cut: int | None = None
    """The width its lines were cut at (or folded at): a line that long lost its end,
    unless the next line goes on with it."""


def detect_widths(lines: Iterable[str]) -> Widths:
    """A fold or a cut shows as a spike of lines of exactly one length W, with
    none longer; it is a fold when most of those lines go on on the next line."""
    counts: Counter[int] = Counter()
    going_on: Counter[int] = Counter()
    # Lines of each length that follow a line of a given length: the last pieces
    # of a folded table's rows are all one length too, but each follows a fold.
    after: Counter[tuple[int, int]] = Counter()
    longest = 0
    previous = -1
    last_size = -1
    row = -1  # a table row's length, when the row may go on on the next line
    for line in lines:
        text = unquoted(line.rstrip("\r"))
        if previous >= 0 and not starts_line(text):
            going_on[previous] += 1
        if row >= 0 and text and not starts_line(text) and text[:1] not in "+|":
            # A table row that goes on, on a line that is no row: a folded table.
            counts[row] += 1
            going_on[row] += 1
        previous = row = -1
        size = len(text)
        longest = max(longest, size)
        if size >= WRAP_MIN and text[:1] not in "+|":
            # Table rows share one width by design; they say nothing of a wrap...
            counts[size] += 1
            after[(size, last_size)] += 1
            previous = size
        elif size >= WRAP_MIN:
            row = size  # ...unless they go on on the next line
        last_size = size
    if not counts:
        return Widths()
    width = max(counts)
    count = counts[width]
    near = max(
        (counts.get(width - k, 0) - after[(width - k, width)] for k in range(1, 13)), default=0
    )
    if count < 3 or longest > width or count < 2 * near + 1:
        return Widths()
    if going_on[width] * 2 >= count:
        return Widths(width, width)
    return Widths(None, width)


def detect_width(lines: Iterable[str]) -> int | None:
    """The width a paste was folded at, or None (see :func:`detect_widths`)."""
    return detect_widths(lines).fold


def detect_widths_bytes(head: bytes) -> Widths:
    """:func:`detect_widths` of the whole lines of a head of undecoded input."""
    last = head.rfind(b"\n")
    if last < 0:
        return Widths()
    return detect_widths(head[:last].decode("utf-8", "replace").split("\n"))


#: Lines at least this long that run on at one length are the pieces of one line.
FOLD_MIN = 60


def unfold(items: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Numbered lines with the pieces of a line a terminal folded joined again:
    consecutive lines of one length (at least ``FOLD_MIN``, two of them at least),
    then a shorter one.
    A paste folded throughout is joined by the parser once its width is known;
    this is for the one long line of a short paste (an error, a resource's words),
    whose width nothing else shows.

    Several long lines each folded once (Heat's event lines, pasted from a
    terminal) show the width another way: two lines or more of one length, the
    longest of the paste, each followed by a shorter piece that starts no line
    of its own."""
    out: list[tuple[int, str]] = []
    folded = _terminal_width(items)
    i = 0
    while i < len(items):
        line, text = items[i]
        width = len(text)
        j = i + 1
        while (
            width >= FOLD_MIN
            and j < len(items)
            and items[j][0] == items[j - 1][0] + 1
            and len(items[j - 1][1]) == width
            and items[j][1][:1] not in ("|", "+", "$", "#")
        ):
            j += 1
        # Two pieces of that one length at least: one alone says nothing of a width.
        if (
            j - i >= 3
            or (j - i == 2 and len(items[i + 1][1]) == width)
            or (j - i == 2 and width == folded and not _own_line(items[i + 1][1]))
        ):
            out.append((line, "".join(piece for _l, piece in items[i:j])))
            i = j
            continue
        out.append((line, text))
        i += 1
    return out


_DATED = regex.compile(r"\d{4}-\d\d-\d\d[ T]")


def _own_line(text: str) -> bool:
    """Whether a line plainly starts a record of its own: a client's, a dated one."""
    return starts_line(text) or _DATED.match(text) is not None


def _terminal_width(items: list[tuple[int, str]]) -> int:
    """The width of a terminal that folded several long lines once each: the
    length of the longest lines, when two of them at least have it (0 otherwise)."""
    longest = max((len(text) for _line, text in items), default=0)
    if longest < FOLD_MIN:
        return 0
    return longest if sum(1 for _l, text in items if len(text) == longest) >= 2 else 0


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


def sniff(stream: BinaryIO) -> tuple[BinaryIO, Widths]:
    """(a stream that reads as ``stream`` would, what its head says of its widths)."""
    head = stream.read(SNIFF_BYTES)
    return cast(BinaryIO, _Replay(head, stream)), detect_widths_bytes(head)


def widths_of_file(path: Path) -> Widths:
    """What the head of a saved paste says of its widths."""
    try:
        with path.open("rb") as stream:
            return detect_widths_bytes(stream.read(SNIFF_BYTES))
    except OSError:
        return Widths()
