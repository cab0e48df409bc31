"""Turning bytes into numbered, clean text lines, without ever holding a whole line
that is too long to be a log line.

A pasted or saved log arrives damaged: CRLF endings, ANSI colours, NUL bytes,
invalid UTF-8, a 100 MB body with no newline. Each line is cut at ``MAX_LINE``
bytes (the rest is skipped, not read into memory) and decoded with replacement,
so that whatever comes in, what comes out is text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

#: Longest line kept, in bytes. Longer lines keep their head; the rest is skipped.
MAX_LINE = 1024 * 1024
_CHUNK = 64 * 1024

_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


@dataclass(slots=True)
class Line:
    number: int
    """1-based line number in the input as given."""
    text: str
    cut: int = 0
    """Bytes skipped at the end of an overlong line (0 when whole)."""
    time: float | None = None
    """Seconds since the start of the run, when the source knows it (a live run)."""


def clean(text: str) -> str:
    """Remove what a terminal or Windows added: colours, carriage returns, NULs."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\r" in text:
        text = text.replace("\r", "")
    if "\x00" in text:
        text = text.replace("\x00", "")
    return text


def read_lines(stream: BinaryIO, max_line: int = MAX_LINE) -> Iterator[Line]:
    """Number and decode the lines of a binary stream, one at a time."""
    number = 0
    readline = stream.readline
    while True:
        raw = readline(max_line)
        if not raw:
            return
        number += 1
        cut = 0
        if len(raw) >= max_line and not raw.endswith(b"\n"):
            # Skip the rest of this overlong line in bounded chunks.
            while True:
                more = readline(_CHUNK)
                if not more:
                    break
                cut += len(more)
                if more.endswith(b"\n"):
                    cut -= 1
                    break
        text = raw.decode("utf-8", "replace")
        if text.endswith("\n"):
            text = text[:-1]
        yield Line(number, clean(text), cut)


def text_lines(lines: Iterable[str]) -> Iterator[Line]:
    """Number lines that are already text (a live process, a test)."""
    for number, text in enumerate(lines, 1):
        if text.endswith("\n"):
            text = text[:-1]
        yield Line(number, clean(text))
