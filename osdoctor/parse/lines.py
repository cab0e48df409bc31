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
    for number, text, cut in read_numbered(stream, max_line):
        yield Line(number, text, cut)


def read_numbered(stream: BinaryIO, max_line: int = MAX_LINE,
                  block: int = 1 << 20) -> Iterator[tuple[int, str, int]]:
    """(number, text, bytes cut) for each line, reading in blocks.

    Decoding and cleaning are done a block at a time (a UTF-8 character never
    holds a newline byte, so splitting before or after decoding is the same),
    which keeps the per-line cost near a plain ``for line in file`` loop.
    """
    number = 0
    pending = b""
    skipping = -1  # bytes skipped so far of an overlong line's tail, or -1
    read = stream.read
    while True:
        chunk = read(block)
        if not chunk:
            break
        if skipping >= 0:
            nl = chunk.find(b"\n")
            if nl < 0:
                skipping += len(chunk)
                continue
            # The overlong line ends here: report it with what was skipped.
            number += 1
            yield number, _decode(pending), skipping + nl
            pending, skipping = b"", -1
            chunk = chunk[nl + 1 :]
        data = pending + chunk if pending else chunk
        last = data.rfind(b"\n")
        if last < 0:
            pending = data
        else:
            pending = data[last + 1 :]
            text = _decode(data[:last])
            for line in text.split("\n"):
                number += 1
                if len(line) > max_line:
                    yield number, line[:max_line], len(line.encode("utf-8", "replace")) - max_line
                else:
                    yield number, line, 0
        if len(pending) >= max_line:
            pending = pending[:max_line]
            skipping = 0
    if skipping >= 0:
        number += 1
        yield number, _decode(pending), skipping
    elif pending:
        number += 1
        yield number, _decode(pending), 0


def _decode(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    if "\x1b" in text or "\r" in text or "\x00" in text:
        return "\n".join(clean(line) for line in text.split("\n"))
    return text


def text_lines(lines: Iterable[str]) -> Iterator[Line]:
    """Number lines that are already text (a live process, a test)."""
    for number, text in enumerate(lines, 1):
        if text.endswith("\n"):
            text = text[:-1]
        yield Line(number, clean(text))
