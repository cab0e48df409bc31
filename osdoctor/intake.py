"""The one way a log comes in: a file, standard input, a growing file or a session,
read into the parser, with one wording for what cannot be read.

``osdoctor explain`` and ``osdoctor probe`` read a whole log at once
(``read_log``, ``parse_path``, ``parse_stream``); the TUI reads one in steps
that it can show as they come and can follow as it grows (``LogReader``).
Both give the log's bytes to the one line source (``parse.line_source``), which
cuts over-long lines, decodes and cleans them alike and takes the parser's fast
path; both recognise a session by ``osdoctor.run.sessionfile``, and say the same
words for a missing, private or unreadable file (``LogInputError``).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterable, Iterator, MutableSequence
from contextlib import contextmanager
from itertools import accumulate, repeat
from operator import add
from pathlib import Path
from typing import BinaryIO, Protocol, cast

from osdoctor.model import Trace
from osdoctor.parse.line_source import LineSource, next_line, whole_lines
from osdoctor.parse.lines import Line
from osdoctor.parse.parser import Parser
from osdoctor.parse.wraps import SNIFF_BYTES, Widths, detect_widths, sniff, widths_of_file
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


def new_parser(
    source: str = "-", widths: Widths | None = None, after: int = 0, before: Parser | None = None
) -> Parser:
    """The one place a parser is made. ``widths``: what the input's head says of
    its line lengths; ``after``: the line the lines fed follow (a run in the
    middle of a log); ``before``: the parser of the run before, whose redaction
    this one carries on."""
    parser = Parser(source, widths, after)
    if before is not None:
        parser.follow(before)
    return parser


def parsed_stream(
    stream: BinaryIO, source: str = "-", widths: Widths | None = None, block: int = BLOCK
) -> Parser:
    """The finished parser of a whole stream, read in blocks of ``block`` bytes;
    ``widths``, unless given, are what the stream's head says."""
    if widths is None:
        stream, widths = sniff(stream)
    parser = new_parser(source, widths)
    LineSource(parser, widths.fold).read(stream, block=block)
    parser.finish()
    return parser


def parsed_lines(lines: Iterable[Line], source: str = "-", widths: Widths | None = None) -> Parser:
    """The finished parser of lines already decoded (a test's, a live run's),
    fed one by one; ``widths``, unless given, are what their head says."""
    it = iter(lines)
    head: list[Line] = []
    if widths is None:
        size = 0
        for line in it:
            head.append(line)
            size += len(line.text) + 1
            if size >= SNIFF_BYTES:
                break
        widths = detect_widths(line.text for line in head)
    parser = new_parser(source, widths)
    feed = parser.feed
    for line in itertools.chain(head, it):
        feed(line.number, line.text, line.cut, line.time)
    parser.finish()
    return parser


def parse_lines(lines: Iterable[Line], source: str = "-") -> Trace:
    """The trace of decoded lines, their head looked at first for a fold width."""
    return parsed_lines(lines, source).trace


def parse_stream(
    stream: BinaryIO, source: str, progress: Callable[[int], None] | None = None
) -> Trace:
    """The trace of a log; ``progress`` is told how many bytes were read so far."""
    if progress is not None:
        stream = cast(BinaryIO, CountingReader(stream, progress))
    return parsed_stream(stream, source).trace


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


@contextmanager
def opened(source: str) -> Iterator[BinaryIO]:
    """The bytes of the log named on the command line (``-`` is standard input);
    ``LogInputError``, in the one wording of ``read_error``, when it cannot be
    opened. What fails while it is read is the caller's to word alike."""
    if source == "-":
        if sys.stdin.isatty():
            raise LogInputError(NO_LOG_GIVEN)
        yield sys.stdin.buffer
        return
    try:
        if Path(source).is_dir():
            raise IsADirectoryError(source)
        stream = Path(source).open("rb")
    except OSError as exc:
        raise LogInputError(read_error(source, exc)) from None
    with stream:
        yield stream


def read_log(source: str) -> Trace:
    """Parse the log named on the command line (``-`` for standard input), with a
    progress line on the terminal while a big one is read; LogInputError when it
    cannot be read."""
    progress: Progress | None = None
    try:
        with opened(source) as stream:
            if source == "-":
                name = "-"
                if sys.stderr.isatty():
                    progress = Progress(sys.stderr, "osdoctor: reading standard input", None)
            else:
                path = Path(source)
                name = str(path)
                if sys.stderr.isatty():
                    size = path.stat().st_size
                    progress = Progress(sys.stderr, f"osdoctor: reading {path.name}", size)
            return parse_stream(stream, name, progress)
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
        widths = widths_of_file(path)
        return LogReader(path, index, new_parser(str(path), widths), widths.fold)
    except OSError as error:
        raise LogInputError(read_error(path, error)) from None


class LogReader:
    """Reads a log's lines in steps, with their offsets; at the end of a followed
    file, keeps a partial last line back until its newline arrives.

    ``OSError`` while reading is the caller's to word with ``read_error``."""

    def __init__(
        self, path: Path, index: LineIndex, parser: Parser, wrap_width: int | None = None
    ) -> None:
        self.path = path
        self.handle = path.open("rb")
        self.index = index
        self.parser = parser
        self.lines = LineSource(parser, wrap_width)
        self.window: tuple[int, int] | None = None
        """The first and last lines of one run of a multi-run log (``osdoctor.runs.log_runs``):
        only they reach the parser; every line is still indexed."""
        self.number = 0
        self.stdout: list[int] = []
        """The numbers of a session's standard output lines."""

    def read_blocks(self, budget: int) -> int:
        """Feed whole blocks of lines through the parser's fast path (as explain
        does); returns how many lines, 0 at the end of what is there, at a line
        longer than a block, or for a session (whose lines are read one by one,
        to know each one's stream)."""
        if self.index.session or self.window is not None:
            return 0
        fed = 0
        while fed < budget:
            start, chunk = whole_lines(self.handle, BLOCK)
            if not chunk:
                break
            lines = chunk.split(b"\n")
            lines.pop()
            # Each line's offset, for the log pane: all at C speed.
            self.index.offsets.extend(
                accumulate(map(add, map(len, lines[:-1]), repeat(1)), initial=start)
            )
            self.index.set_end(start + len(chunk))
            self.number += len(lines)
            fed += len(lines)
            self.lines.block(chunk, more=True)
        return fed

    def settle(self) -> None:
        """Decide the lines held back: what follows is read line by line."""
        self.lines.settle()

    def read_available(self, final: bool, budget: int = 1 << 62) -> int:
        """Feed the lines available now, one by one; returns how many."""
        fed = 0
        while fed < budget:
            got = next_line(self.handle, final)
            if got is None:
                break
            start, text, cut = got
            self.number += 1
            self.index.add_offset(start)
            if self.number == 1 and is_session(text):
                self.index.session = True
            if self.index.session and data_fd(text) == 1:
                self.stdout.append(self.number)
            window = self.window
            if window is None or window[0] <= self.number <= window[1]:
                self.lines.line(self.number, text, cut)
            fed += 1
        self.index.set_end(self.handle.tell())
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

    def close(self) -> None:
        self.handle.close()
