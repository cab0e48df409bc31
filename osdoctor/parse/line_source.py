"""The line source: bytes in, numbered lines out, into one parser at a time.

It is the only loop that turns a log's bytes into the parser's lines, for every
way a log is read: a whole file (``intake.parse_stream``), a log of many runs
cut where each run begins (``runs.log_runs.read_runs``), one run read again
alone (``runs.log_runs.parse_run``), the TUI's stepwise reader
(``intake.LogReader``). It owns what lines are: cut at ``lines.MAX_LINE`` (the
rest skipped, never held), decoded and cleaned of CRLF, colours and NULs
(``lines.decode_line``), numbered from 1 or from where a run begins.

It also owns the fast path's side of a block: in the middle of a folded polling
run, whole rounds are matched in the undecoded bytes by the parser's round path
(``RoundSkipper``) rather than decoded line by line, and a round that a block may
have cut is held back, undecided, until the next block comes. A folded paste
(a wrap width is known) is always read line by line: its pieces are joined first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import BinaryIO, Protocol

from osdoctor.parse.lines import MAX_LINE, decode_line, is_clean, read_blocks, with_more


class RoundSkipper(Protocol):
    """The parser's fast path over the rounds of a folded run (``parse.round_path``)."""

    def lead(self, data: bytes, pos: int) -> bool:
        """Whether whole rounds are to be matched from ``pos``."""
        ...

    def skip(self, data: bytes, pos: int, number: int, more: bool) -> tuple[int, int, bool]:
        """Match rounds from ``pos``: (where matching stopped, the line number there,
        whether to wait for the next block before deciding)."""
        ...

    def leave(self, number: int) -> None:
        """A block that must be read line by line comes: leave the fast path."""
        ...


class Parsed(Protocol):
    """What the lines go to: the parser, and its fast path over rounds."""

    @property
    def rounds(self) -> RoundSkipper:
        """The fast path, asked at each line of a clean block."""
        ...

    def feed(self, number: int, raw: str, cut: int = 0, time: float | None = None) -> None:
        """One line: its number, its text, the bytes cut off its end."""
        ...


class LineSource:
    """Feeds ``parser`` the lines of the bytes it is given; ``number`` is the last
    line given to it. ``wrap_width``: the width the input was folded at, if any."""

    def __init__(self, parser: Parsed, wrap_width: int | None = None, number: int = 0) -> None:
        self.parser = parser
        """Swapped by a reader of many runs where one ends and the next begins."""
        self.wrap_width = wrap_width
        self.number = number
        self._carry = b""  # whole lines held back: a round the last block may have cut

    def block(self, data: bytes, more: bool = False) -> None:
        """Feed whole lines, each ending in ``\\n`` (the last one may lack it),
        after the lines held back. With ``more``, another block follows: a round
        that this one may have cut is held back until then."""
        if self._carry:
            data = self._carry + data
            self._carry = b""
        parser = self.parser
        feed = parser.feed
        rounds = parser.rounds
        number = self.number
        pos, end = 0, len(data)
        clean = is_clean(data) and self.wrap_width is None
        if not clean:
            rounds.leave(number)
        lead = rounds.lead
        while pos < end:
            if clean and lead(data, pos):
                pos, number, wait = rounds.skip(data, pos, number, more)
                if wait:
                    self._carry = data[pos:]
                    break
                if pos >= end:
                    break
            nl = data.find(b"\n", pos)
            if nl < 0:
                nl = end  # a last line without its newline
            number += 1
            # A clean block's lines need no cleaning once decoded (see ``decode_line``).
            line = data[pos:nl]
            feed(number, line.decode("utf-8", "replace") if clean else decode_line(line))
            pos = nl + 1
        self.number = number

    def settle(self) -> None:
        """Decide the lines held back: nothing more comes in blocks."""
        if self._carry:
            self.block(b"")

    def cut_line(self, head: str, cut: int) -> None:
        """A line longer than ``MAX_LINE``: its head, and the bytes cut off it."""
        self.settle()
        self.number += 1
        self.parser.feed(self.number, head, cut)

    def line(self, number: int, text: str, cut: int = 0) -> None:
        """One decoded line, numbered ``number`` (the lines before it were read
        elsewhere: a reader that reads one line at a time, or skips some)."""
        self.number = number
        self.parser.feed(number, text, cut)

    def read(
        self,
        stream: BinaryIO,
        cuts: Callable[[bytes], Iterable[int]] | None = None,
        at_cut: Callable[[int, int], None] | None = None,
        block: int = 1 << 20,
    ) -> int:
        """Feed a whole stream; returns how many lines it held. ``cuts`` gives the
        offsets in a block where a new run begins; there, the lines before are fed
        and ``at_cut`` is told the number of the run's first line and how many
        bytes were read (it may swap ``parser`` and renumber from there). ``block``:
        the bytes read at once."""
        read = 0
        seen = 0  # complete lines in the blocks before the current one
        for (data, cut, head), more in with_more(read_blocks(stream, block=block)):
            if cut:
                self.cut_line(head, cut)
                seen += 1
                continue
            read += len(data)
            pos = 0
            if cuts is not None and at_cut is not None:
                line = seen + 1  # the line that begins at ``pos``
                for at in cuts(data):
                    self.block(data[pos:at])
                    line += data.count(b"\n", pos, at)
                    at_cut(line, read)
                    pos = at
            self.block(data[pos:] if pos else data, more)
            seen += data.count(b"\n")
        return seen

    def read_window(self, stream: BinaryIO, first: int, last: int) -> bool:
        """Feed lines ``first`` to ``last`` of a whole stream, numbered as there;
        whether the stream holds lines after them."""
        seen = 0
        blocks = read_blocks(stream)
        for data, cut, head in blocks:
            if cut:
                seen += 1
                if first <= seen <= last:
                    self.line(seen, head, cut)
                continue
            count = data.count(b"\n")
            if seen + count >= first and seen < last:
                start = _offset_of_line(data, first - seen - 1) if seen < first - 1 else 0
                end = _offset_of_line(data, last - seen) if seen + count > last else len(data)
                self.block(data[start:end])
            seen += count
            if seen >= last:
                break
        return seen > last or next(blocks, None) is not None


def whole_lines(handle: BinaryIO, size: int) -> tuple[int, bytes]:
    """(where it starts, up to ``size`` bytes of whole lines) read from a seekable
    ``handle``, left just after them; ``b""`` at the end, or when the next line
    is longer than ``size`` (read it with ``next_line``)."""
    start = handle.tell()
    chunk = handle.read(size)
    last = chunk.rfind(b"\n")
    if last < 0:
        handle.seek(start)
        return start, b""
    if last + 1 < len(chunk):
        handle.seek(start + last + 1)
        chunk = chunk[: last + 1]
    return start, chunk


def next_line(handle: BinaryIO, final: bool) -> tuple[int, str, int] | None:
    """(where it starts, its text, bytes cut off it) of the next line of a seekable
    ``handle``; None at the end, or, unless ``final``, at a partial last line (the
    file grows: the rest is to come, and the line is read again then)."""
    start = handle.tell()
    raw = handle.readline(MAX_LINE)
    if not raw:
        return None
    cut = 0
    if not raw.endswith(b"\n"):
        if len(raw) >= MAX_LINE:
            cut = _skip_rest(handle)
        elif not final:
            handle.seek(start)
            return None
    return start, decode_line(raw.rstrip(b"\n")), cut


def _skip_rest(handle: BinaryIO) -> int:
    skipped = 0
    while True:
        more = handle.readline(1 << 16)
        if not more:
            return skipped
        skipped += len(more)
        if more.endswith(b"\n"):
            return skipped - 1


def _offset_of_line(data: bytes, lines: int) -> int:
    """Where the line after the first ``lines`` lines of ``data`` begins."""
    pos = 0
    for _ in range(lines):
        pos = data.index(b"\n", pos) + 1
    return pos
