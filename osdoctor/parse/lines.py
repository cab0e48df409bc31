"""Turning bytes into numbered, clean text lines, without ever holding a whole line
that is too long to be a log line.

A pasted or saved log arrives damaged: CRLF endings, ANSI colours, NUL bytes,
invalid UTF-8, a 100 MB body with no newline. Each line is cut at ``MAX_LINE``
bytes (the rest is skipped, not read into memory) and decoded with replacement,
so that whatever comes in, what comes out is text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO, TypeVar, cast

from osdoctor import regex

#: Longest line kept, in bytes. Longer lines keep their head; the rest is skipped.
MAX_LINE = 1024 * 1024
_CHUNK = 64 * 1024

_ANSI = regex.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


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


def read_numbered(
    stream: BinaryIO, max_line: int = MAX_LINE, block: int = 1 << 20
) -> Iterator[tuple[int, str, int]]:
    """(number, text, bytes cut) for each line, reading in blocks.

    Decoding and cleaning are done a block at a time (a UTF-8 character never
    holds a newline byte, so splitting before or after decoding is the same),
    which keeps the per-line cost near a plain ``for line in file`` loop.
    """
    number = 0
    for data, cut, head in read_blocks(stream, max_line, block):
        if cut:
            number += 1
            yield number, head, cut
            continue
        for line in _decode(data[:-1]).split("\n"):
            number += 1
            yield number, line, 0


def read_blocks(
    stream: BinaryIO, max_line: int = MAX_LINE, block: int = 1 << 20
) -> Iterator[tuple[bytes, int, str]]:
    """Blocks of whole lines as bytes, each line ending in ``\\n``: ``(data, 0, "")``;
    a line longer than ``max_line`` comes alone and decoded: ``(b"", bytes cut, head)``.

    The parser's fast path works on undecoded blocks: the middle of a long
    polling run is recognised a round at a time by a bytes regular expression,
    without decoding it or making a string of each line. Lines are the same as
    :func:`read_numbered`'s once decoded and cleaned (see :func:`decode_line`).
    """
    # Only a line that began in an earlier read can then be overlong.
    block = min(block, max_line)
    pending = b""
    skipping = -1
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
            yield b"", skipping + nl, _decode(pending)
            pending, skipping = b"", -1
            chunk = chunk[nl + 1 :]
        data = pending + chunk if pending else chunk
        last = data.rfind(b"\n")
        if last < 0:
            pending = data
        else:
            pending = data[last + 1 :]
            first = data.find(b"\n")
            start = 0
            if first > max_line:
                # Only the first line can be overlong: it began in the previous chunk.
                head = _decode(data[:first])
                if len(head) > max_line:
                    yield b"", len(head.encode("utf-8", "replace")) - max_line, head[:max_line]
                    start = first + 1
            if start <= last:
                yield (data[start : last + 1] if start or last + 1 < len(data) else data), 0, ""
        if len(pending) >= max_line:
            skipping = len(pending) - max_line
            pending = pending[:max_line]
    if skipping >= 0:
        yield b"", skipping, _decode(pending)
    elif pending:
        yield pending + b"\n", 0, ""


T = TypeVar("T")


def with_more(items: Iterable[T]) -> Iterator[tuple[T, bool]]:
    """Each item, and whether another follows: a block is fed knowing whether it
    is the last (``LineSource.block``'s ``more``), before the next is handled."""
    it = iter(items)
    current = next(it, _END)
    while current is not _END:
        following = next(it, _END)
        yield cast(T, current), following is not _END
        current = following


_END = object()


def is_clean(data: bytes) -> bool:
    """True when a block has nothing :func:`clean` would remove."""
    return b"\x1b" not in data and b"\r" not in data and b"\x00" not in data


def decode_line(data: bytes) -> str:
    """One line of a block, decoded and cleaned as :func:`read_numbered` does."""
    text = data.decode("utf-8", "replace")
    if "\x1b" in text or "\r" in text or "\x00" in text:
        return clean(text)
    return text


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
