"""The one way a log comes in: a file, standard input, a growing file or a session,
read into the parser, with one wording for what cannot be read.

``osdoctor explain`` and ``osdoctor probe`` read a whole log at once
(``read_log``, ``parse_path``, ``parse_stream``); the TUI reads one in steps
that it can show as they come and can follow as it grows (``LogReader``).
Both read blocks of whole lines through the parser's fast path, cut over-long
lines at ``parse.lines.MAX_LINE``, decode and clean alike, recognise a session
by ``osdoctor.run.sessionfile``, and say the same words for a missing, private or
unreadable file (``LogInputError``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, MutableSequence
from itertools import accumulate, repeat
from operator import add
from pathlib import Path
from typing import BinaryIO, Protocol, cast

from osdoctor.model import Trace
from osdoctor.parse.lines import MAX_LINE, decode_line, read_blocks
from osdoctor.parse.parser import Parser
from osdoctor.parse.wraps import sniff, widths_of_file
from osdoctor.progress import CountingReader, Progress
from osdoctor.run.sessionfile import data_fd, is_session
from osdoctor.servicelog.attach import ServiceLogs
from osdoctor.servicelog.sources import beside

#: Bytes read at once from a saved log (see ``LogReader.read_blocks``).
BLOCK = 1 << 20


class LogInputError(Exception):
    """A log that cannot be read; the message is one line for the user."""


#: What to say when standard input is a terminal: there is nothing to read.
NO_LOG_GIVEN = (
    "no log given: name a file, or pipe one in (openstack --debug ... 2>&1 | osdoctor explain)"
)


def read_error(source: str | Path, error: OSError) -> str:
    """The one wording of a log that cannot be read, for every front end."""
    if isinstance(error, FileNotFoundError):
        return f"{source}: no such file"
    if isinstance(error, PermissionError):
        return f"{source}: permission denied"
    if isinstance(error, IsADirectoryError):
        return f"{source} is a folder, not a log file"
    return f"{source}: cannot read ({error.strerror or error})"


def parse_stream(
    stream: BinaryIO, source: str, progress: Callable[[int], None] | None = None
) -> Trace:
    """The trace of a log; ``progress`` is told how many bytes were read so far."""
    if progress is not None:
        stream = cast(BinaryIO, CountingReader(stream, progress))
    stream, widths = sniff(stream)
    parser = Parser(source)
    parser.set_widths(widths)
    return parser.feed_blocks(read_blocks(stream))


def parse_path(path: Path, progress: Callable[[int], None] | None = None) -> Trace:
    with path.open("rb") as stream:
        return parse_stream(stream, str(path), progress)


def parse_fixture(log: Path) -> Trace:
    """A fixture log's trace, joined to the services' logs captured with it
    (``NAME.service/`` beside ``NAME.log``, see ``osdoctor.lab``): the run as the
    lab played it, both sides, as ``--service-log`` gives them."""
    trace = parse_path(log)
    folder = beside(log)
    if folder is not None:
        ServiceLogs.of([str(folder)]).attach(trace)
    return trace


def read_log(source: str) -> Trace:
    """Parse the log named on the command line (``-`` for standard input), with a
    progress line on the terminal while a big one is read; LogInputError when it
    cannot be read."""
    progress: Progress | None = None
    try:
        if source == "-":
            if sys.stdin.isatty():
                raise LogInputError(NO_LOG_GIVEN)
            if sys.stderr.isatty():
                progress = Progress(sys.stderr, "osdoctor: reading standard input", None)
            return parse_stream(sys.stdin.buffer, "-", progress)
        path = Path(source)
        if path.is_dir():
            raise IsADirectoryError(source)
        if sys.stderr.isatty():
            progress = Progress(sys.stderr, f"osdoctor: reading {path.name}", path.stat().st_size)
        return parse_path(path, progress)
    except OSError as exc:
        raise LogInputError(read_error(source, exc)) from None
    finally:
        if progress is not None:
            progress.close()


class LineIndex(Protocol):
    """Where each line of the file starts, for a pane that reads lines back when it
    draws them (the TUI's ``FileLines``)."""

    session: bool

    @property
    def offsets(self) -> MutableSequence[int]: ...

    def add_offset(self, offset: int) -> None: ...

    def set_end(self, offset: int) -> None:
        """The offset just past the last complete line read so far."""
        ...


def open_log(path: Path, index: LineIndex) -> LogReader:
    """A reader at the start of ``path``; LogInputError when it cannot be read."""
    try:
        if path.is_dir():
            raise IsADirectoryError(str(path))
        parser = Parser(str(path))
        parser.set_widths(widths_of_file(path))
        return LogReader(path, index, parser)
    except OSError as error:
        raise LogInputError(read_error(path, error)) from None


class LogReader:
    """Reads a log's lines in steps, with their offsets; at the end of a followed
    file, keeps a partial last line back until its newline arrives.

    ``OSError`` while reading is the caller's to word with ``read_error``."""

    def __init__(self, path: Path, index: LineIndex, parser: Parser) -> None:
        self.path = path
        self.handle = path.open("rb")
        self.index = index
        self.parser = parser
        self.window: tuple[int, int] | None = None
        """The first and last lines of one run of a multi-run log (``osdoctor.runs.log_runs``):
        only they reach the parser; every line is still indexed."""
        self.number = 0
        self.stdout: list[int] = []
        """The numbers of a session's standard output lines."""
        self._held = b""  # whole lines the parser gave back (a round a block cut)

    def read_blocks(self, budget: int) -> int:
        """Feed whole blocks of lines through the parser's fast path (as explain
        does); returns how many lines, 0 at the end of what is there, at a line
        longer than a block, or for a session (whose lines are read one by one,
        to know each one's stream)."""
        if self.index.session or self.window is not None:
            return 0
        handle, fed = self.handle, 0
        while fed < budget:
            start = handle.tell()
            chunk = handle.read(BLOCK)
            last = chunk.rfind(b"\n")
            if last < 0:
                handle.seek(start)
                break
            if last + 1 < len(chunk):
                handle.seek(start + last + 1)
                chunk = chunk[: last + 1]
            lines = chunk.split(b"\n")
            lines.pop()
            # Each line's offset, for the log pane: all at C speed.
            self.index.offsets.extend(
                accumulate(map(add, map(len, lines[:-1]), repeat(1)), initial=start)
            )
            self.index.set_end(start + last + 1)
            self.number += len(lines)
            fed += len(lines)
            data = self._held + chunk if self._held else chunk
            self._held = self.parser.feed_block(data, more=True)
        return fed

    def settle(self) -> None:
        """Decide the lines held back: what follows is read line by line."""
        if self._held:
            self.parser.feed_block(self._held)
            self._held = b""

    def read_available(self, final: bool, budget: int = 1 << 62) -> int:
        """Feed the lines available now, one by one; returns how many."""
        handle, fed = self.handle, 0
        while fed < budget:
            start = handle.tell()
            raw = handle.readline(MAX_LINE)
            if not raw:
                break
            cut = 0
            if not raw.endswith(b"\n"):
                if len(raw) >= MAX_LINE:
                    cut = self._skip_rest()
                elif not final:
                    handle.seek(start)  # partial line: wait for the rest
                    break
            self.number += 1
            self.index.add_offset(start)
            text = decode_line(raw.rstrip(b"\n"))
            if self.number == 1 and is_session(text):
                self.index.session = True
            if self.index.session and data_fd(text) == 1:
                self.stdout.append(self.number)
            window = self.window
            if window is None or window[0] <= self.number <= window[1]:
                self.parser.feed_text(self.number, text, cut)
            fed += 1
        self.index.set_end(handle.tell())
        return fed

    def more_after(self) -> bool:
        """Whether the log holds lines past those read (past the window's run:
        another run follows it)."""
        window = self.window
        if window is not None and self.number > window[1]:
            return True
        at = self.handle.tell()
        more = bool(self.handle.read(1))
        self.handle.seek(at)
        return more

    def _skip_rest(self) -> int:
        skipped = 0
        while True:
            more = self.handle.readline(1 << 16)
            if not more:
                return skipped
            skipped += len(more)
            if more.endswith(b"\n"):
                return skipped - 1

    def close(self) -> None:
        self.handle.close()
