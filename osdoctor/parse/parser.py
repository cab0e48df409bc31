"""The streaming log parser: lines in, a :class:`~osdoctor.model.Trace` out.

It is a small state machine fed one line at a time, so that a live run, a
followed file and a 200 MB saved log go through the same code. Its stages:

1. the line source (``line_source``) cuts bytes into numbered lines and calls
   :meth:`Parser.feed`; in the middle of a long wait it asks the fast path
   (:attr:`Parser.rounds`, ``round_path``) to match whole rounds instead;
2. the normaliser (``normaliser``) undoes paste damage, tool prefixes and
   wrapped lines, redacts, and hands the client's logical lines back;
3. each logical line goes to the reader its opening words name: request lines
   (``request_lines``), answers (``responses``), connection lines
   (``connections``), older shapes (``legacy_records``); most lines are
   classified by their first characters, and only the few that can start an
   HTTP record pay for a regular expression;
4. the readers place what they read on exchanges through one assembler
   (``assembler``), which pairs requests with answers and keeps what a log
   that grows without bound may keep (``retention``).

What no reader takes is a printed message, a command line or a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from osdoctor import regex
from osdoctor.model import Trace, line_quote
from osdoctor.parse import commands, escaped, openings, sentences, wrappers, wraps
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.bodies import BodyCollector, HeatResponseCollector
from osdoctor.parse.clients import client_from_agents, note_command, session_meta
from osdoctor.parse.connections import ConnectionReader
from osdoctor.parse.legacy_records import LegacyReader
from osdoctor.parse.normaliser import FLAT, Normaliser, Shape
from osdoctor.parse.paste import is_elision
from osdoctor.parse.printed_messages import classify, join_wrapped_messages
from osdoctor.parse.printed_resources import is_openstack, read_resources
from osdoctor.parse.request_lines import RequestReader
from osdoctor.parse.responses import ResponseReader
from osdoctor.parse.retention import (
    DROP_AT_ONCE,
    FOLD_KEEP,
    KEEP_FIRST,
    KEEP_FIRST_MESSAGES,
    KEEP_FIRST_TRACEBACKS,
    KEEP_LAST,
    KEEP_LAST_MESSAGES,
    KEEP_LAST_TRACEBACKS,
    Limits,
)
from osdoctor.parse.round_path import RoundPath
from osdoctor.parse.run_lines import RunLines
from osdoctor.parse.tracebacks import FRAME_ANY, TracebackCollector, from_service
from osdoctor.secrets.redact import SecretMemory, redact_line
from osdoctor.secrets.scrub import scrub_trace

_REQUEST_ID = regex.compile(r"([A-Z]+) call to (?:(\S+) for )?(\S+) used request id (\S+)")

__all__ = ["FOLD_KEEP", "KEEP_FIRST", "KEEP_LAST", "Parser"]
#: The retention limits a parser is made with (see ``parse.retention``); a test may
#: lower them here for the parsers it makes.
_DROP_AT_ONCE = DROP_AT_ONCE

_SKIP_PREFIXES = ("Starting new HTTP", "Resetting dropped connection", "Incremented Retry")


@dataclass(frozen=True, slots=True)
class _Sink:
    """Where the normaliser hands its lines (``parse.normaliser.LogicalSink``): the
    parser's own private methods, bound, so that they stay out of its surface."""

    line: Callable[[int, str, float | None, Shape], None]
    server_line: Callable[[int, str, str, Shape], None]
    meta: Callable[[int, str, str], None]
    elision: Callable[[int, str, Shape], None]
    unkept: Callable[[int, str], bool]
    gathering: Callable[[], bool]
    problem: Callable[[str], None]


class Parser:
    """Feed it lines with :meth:`feed`, end with :meth:`finish`; read :attr:`trace`
    at any time, and :attr:`secrets`, what redaction learnt; :meth:`follow` a
    parser of the run before. Its lines come from the line source
    (``parse.line_source``), which also drives the fast path over rounds
    (:attr:`rounds`). Nothing else of it is for other modules."""

    def __init__(
        self, source: str = "-", widths: wraps.Widths | None = None, after: int = 0
    ) -> None:
        """A parser of the log ``source`` names; ``widths``, what the input's head
        says of its line lengths; ``after``, the line the lines fed follow (a run
        that begins in the middle of a log keeps the log's own line numbers).
        Made by ``osdoctor.intake`` only."""
        self.trace = Trace(source=source, line_count=after)
        # Stage 2: paste damage, prefixes, wraps and redaction off the lines fed.
        self._normal = Normaliser(
            _Sink(
                self._line,
                self._server_line,
                self._meta,
                self._elision,
                self._unkept,
                self._gathering,
                self._problem,
            ),
            widths,
        )
        self._asm = Assembler(
            self.trace,
            Limits(
                KEEP_FIRST,
                KEEP_LAST,
                KEEP_FIRST_MESSAGES,
                KEEP_LAST_MESSAGES,
                KEEP_FIRST_TRACEBACKS,
                KEEP_LAST_TRACEBACKS,
                _DROP_AT_ONCE,
            ),
        )
        # The shape of the line being read (see ``parse.normaliser.Shape``); the
        # assembler keeps what the readers read of it.
        self._shape = FLAT
        self._indent = 0  # indentation a paste gave the line being read
        self._server_tb: TracebackCollector | None = None
        self._depth = 0  # escaped reports inside escaped reports are read once
        self._continued = False  # the last command line ended in a backslash
        # The readers of records, each with its own state, over one assembler.
        self._requests = RequestReader(self._asm)
        self._responses = ResponseReader(self._asm)
        self._connections = ConnectionReader(self._asm, self._normal.cut_width)
        self._legacy = LegacyReader(self._asm, self._read_inner)
        #: The fast path over the rounds of a long wait, which the line source drives.
        self.rounds = RoundPath(
            self._asm, self._normal.widths, self._normal.recent, self.feed, self._idle
        )
        self._asm.watcher = self.rounds
        self._openings = openings.bind(
            {
                "requests": self._requests,
                "responses": self._responses,
                "connections": self._connections,
                "legacy": self._legacy,
                "run": RunLines(self._asm),
                "traceback": self._traceback,
            }
        )

    @property
    def secrets(self) -> SecretMemory:
        """What redaction learnt from the log so far (values masked, hidden Heat
        parameters): other views of the same log mask with it too."""
        return self._normal.secrets

    def follow(self, previous: Parser) -> None:
        """Read on where ``previous`` stopped (the next run of the same log): mask
        what it learnt, and reuse what its redaction remembered."""
        self._normal.follow(previous._normal)

    # -- input -------------------------------------------------------------
    def feed(self, number: int, raw: str, cut: int = 0, time: float | None = None) -> None:
        """One line: its number in the log, its text, the bytes cut off its end
        (see ``parse.line_source``), its time in a live run."""
        self.trace.line_count = number
        self._normal.feed(number, raw, cut, time)

    # -- what the normaliser hands on (see ``_Sink``) -----------------------
    def _line(self, number: int, text: str, time: float | None, shape: Shape) -> None:
        """A logical line of the client's, redacted."""
        if shape is not self._shape:
            self._take(shape)
        self._read_line(number, text, time)

    def _take(self, shape: Shape) -> None:
        """The shape of the line the normaliser hands on, as the readers read it."""
        self._shape = shape
        self._indent = shape.indent
        self._asm.span_end = shape.span_end
        self._asm.line_cut = shape.cut

    def _meta(self, number: int, key: str, value: str) -> None:
        """A session file's metadata record."""
        session_meta(self.trace, number, key, value)

    def _unkept(self, number: int, text: str) -> bool:
        """A client's line before redaction: True when its words are never kept."""
        if self._server_tb is not None and not is_elision(text):
            self._end_server_traceback()
        if self._asm.collector is None:
            # Lines whose text is never kept need no redaction.
            if text.startswith(_SKIP_PREFIXES):
                self.trace.openstack_lines += 1
                if text[0] != "I":
                    # The host urllib3 (re)connects to: what a hung client waits for.
                    self._asm.connecting = (number, text.rpartition(": ")[2].strip())
                return True
            if " used request id " in text:
                m = _REQUEST_ID.match(text)
                if m:
                    self._asm.request_id(m.group(3), m.group(4))
                    return True
        return False

    def _gathering(self) -> bool:
        """Whether a body, a traceback or a wrapped request line is being gathered."""
        return self._asm.collector is not None or self._requests.wrapped is not None

    def _problem(self, text: str) -> None:
        """What the input's shape cost."""
        self.trace.problems.append(text)

    def _read(self, number: int, text: str, time: float | None) -> None:
        """A redacted line read as any other: through the normaliser's sentences."""
        self._normal.read(number, text, time)

    def _read_line(self, number: int, text: str, time: float | None) -> None:
        """One logical line of the client's, whole."""
        if self._requests.wrapped is not None and self._requests.join_wrapped(text):
            return
        collector = self._asm.collector
        if collector is not None:
            if collector.feed(number, text):
                if isinstance(collector, TracebackCollector):
                    if collector.done:
                        self._end_collector()
                elif not collector.open:
                    self._end_collector()
                return
            self._end_collector()
        self._dispatch(number, text, time)
        ex = self._asm.last
        if ex is not None:
            # The request or answer this line gave keeps the line's words to quote.
            if ex.request.line == number and not ex.request.quote:
                ex.request.quote = line_quote(text)
            if ex.response is not None and ex.response.line == number and not ex.response.quote:
                ex.response.quote = line_quote(text)

    def _elision(self, number: int, text: str, shape: Shape) -> None:
        """A gap the poster left: whatever record was open is cut there."""
        self._take(shape)
        self._requests.release_wrapped()
        if self._asm.collector is not None:
            self._end_collector()
        named = commands.named_in(text)
        if named is not None:
            note_command(self.trace, number, named[0], named[1], text)
        self._asm.message(number, "elision", text)

    def _server_line(self, number: int, text: str, message: str, shape: Shape) -> None:
        """A service's own log line: kept as such, its traceback gathered apart."""
        self._take(shape)
        if self._asm.collector is not None:
            self._end_collector()
        tb = self._server_tb
        if tb is not None:
            if tb.feed(number, message) and not tb.done:
                self._asm.message(number, "server", text)
                return
            self._end_server_traceback()
        if message.startswith("Traceback (most recent call last)"):
            self._server_tb = TracebackCollector(number, origin="server")
        self._asm.message(number, "server", text)

    def _end_server_traceback(self) -> None:
        tb, self._server_tb = self._server_tb, None
        if tb is not None and (tb.tb.exc_type or tb.tb.frames):
            self.trace.tracebacks.append(tb.tb)

    def finish(self) -> Trace:
        self._normal.finish()
        # What follows is read after the last line, in the shape between lines.
        self._take(self._normal.shape)
        if self._server_tb is not None:
            self._end_server_traceback()
        if self.trace.client == "unknown":
            self.trace.client = client_from_agents(self.trace.exchanges[:20])
        self._requests.release_wrapped()
        if self._asm.collector is not None:
            if isinstance(self._asm.collector, TracebackCollector) or self._asm.collector.open:
                self.trace.problems.append(
                    f"the log ends inside a record that began on line {self._collector_start()}"
                )
            self._end_collector()
        self._asm.no_answer()
        formats = self._normal.formats
        if "session" in formats:
            self.trace.format = "session"
        elif "log-file" in formats:
            self.trace.format = "log-file"
        elif self.trace.openstack_lines:
            self.trace.format = "debug"
        if self._normal.wrap_width is None:
            join_wrapped_messages(self.trace, self._normal.widths)
        self.trace.problems.extend(self._normal.problems())
        self.trace.problems.extend(self._asm.problems())
        self.trace.resources = read_resources(self.trace)
        # A resource's state is a client's words even in a paste of output alone.
        self.trace.openstack_lines += sum(map(is_openstack, self.trace.resources))
        scrub_trace(self.trace, self.secrets.literals)
        return self.trace

    # -- helpers -----------------------------------------------------------
    def _collector_start(self) -> int:
        c = self._asm.collector
        if isinstance(c, TracebackCollector):
            return c.tb.first_line
        if isinstance(c, BodyCollector):
            return c.body.first_line
        if isinstance(c, HeatResponseCollector):
            return c.response.line
        return 0

    def _end_collector(self) -> None:
        c = self._asm.collector
        self._asm.collector = None
        if isinstance(c, TracebackCollector):
            if c.tb.exc_type or c.tb.frames:
                if from_service(c.tb):
                    c.tb.origin = "server"  # a service's traceback pasted beside the client's
                self.trace.tracebacks.append(c.tb)
                if c.tb.origin == "client" and c.tb.message:
                    # An exception naming a transport failure that no line reported.
                    self._connections.transport_text(
                        c.tb.last_line,
                        c.tb.message,
                        f"{c.tb.exc_type}: {c.tb.message}",
                        message=False,
                    )
                self._asm.keep.trim_tracebacks()
        elif c is not None:
            c.close()

    def _continue_command(self, text: str) -> None:
        """The next line of a command typed over several lines (``\\`` at the end):
        its options and its verb belong to the command."""
        t = self.trace
        self._continued = text.endswith("\\")
        if not t.commands:
            return
        last = t.commands[-1]
        head = last.text.removesuffix("\\").rstrip()
        joined = f"{head} {text.strip()}"
        if t.command == last.text:
            t.command = joined
        last.text = joined

    # -- dispatch ----------------------------------------------------------
    def _dispatch(self, number: int, text: str, time: float | None) -> None:
        if not text:
            return
        if len(text) >= 400 and self._depth == 0 and self._collapsed(number, text, time):
            return
        c = text[0]
        if self._legacy.gopher is not None and (self._depth or not escaped.looks_escaped(text)):
            self._legacy.gopher_body(number, text)
        entries = self._openings.get(c)
        if entries is not None:
            for opening, read in entries:
                if text.startswith(opening) and read(number, text, time):
                    return
        # What no opening says: a request id, frames, escaped, wrapped and command lines.
        if c in "GPD" and " used request id " in text:
            m = _REQUEST_ID.match(text)
            if m:
                self._asm.request_id(m.group(3), m.group(4))
                return
        if c in " \tF" and 'File "' in text[:12]:
            m = FRAME_ANY.match(text)
            if m:
                # A traceback whose header the paste lost: its frames still say it.
                collector = TracebackCollector(number, self._indent)
                collector.feed(number, text)
                self._asm.collector = collector
                return
        if self._depth == 0 and escaped.looks_escaped(text):
            self._legacy.escaped(number, text, time)
            return
        if self._depth == 0 and self._unwrapped(number, text, time):
            return
        if "Expected HTTP response code" in text or "], error message: " in text:
            self._legacy.gophercloud(number, text, time)
        if self._continued or (
            # a command line a terminal folded before an option: "-c fault" goes on
            text[:1] == "-"
            and (text[1:2].isalnum() or text[1:2] == "-")
            and self.trace.commands
            and self.trace.commands[-1].line == number - 1
            and self.trace.messages
            and self.trace.messages[-1].line == number - 1
            and self.trace.messages[-1].kind == "command"
        ):
            self._continue_command(text)
            self._asm.message(number, "command", text)
            return
        recognised = commands.recognise(text)
        if recognised is not None:
            rest = ""
            cut = sentences.after_command(text)
            if cut is not None:
                # The client's first words, pasted on the command's own line.
                alone = commands.recognise(text[:cut].rstrip())
                if alone is not None:
                    recognised, text, rest = alone, text[:cut].rstrip(), text[cut:]
            command, client, _prompted = recognised
            note_command(self.trace, number, command, client, text)
            self._continued = command.endswith("\\")
            self._asm.message(number, "command", text)
            if rest:
                self._dispatch(number, rest, time)
            return
        self._asm.message(number, classify(text), text)

    def _traceback(self, number: int, text: str, time: float | None) -> bool:
        """A traceback's header: its frames and exception follow."""
        self._asm.collector = TracebackCollector(number, self._indent)
        return True

    def _unwrapped(self, number: int, text: str, time: float | None) -> bool:
        """A line another program printed the client's words in (see
        ``parse.wrappers``): a bytes repr, its lines read as lines, each at the
        line's own number."""
        found = wrappers.bytes_repr(text) if "b" in text[:48] else None
        if found is None:
            return False
        head, lines = found
        if head:
            self._asm.message(number, classify(head), head)
        self._read_inner(number, lines, time)
        return True

    def _read_inner(self, number: int, lines: list[str], time: float | None) -> None:
        """Lines another program's line held (an escaped report, a bytes repr, a
        collapsed run), read as lines, each at that line's number; what they hold
        is not unwrapped again."""
        self._depth += 1
        try:
            for line in lines:
                if line.strip():
                    self._read(number, redact_line(line), time)
        finally:
            self._depth -= 1

    def _idle(self) -> bool:
        """No line is being gathered from its pieces: the fast path may skip."""
        return not self._normal.holding and self._requests.wrapped is None

    def _collapsed(self, number: int, text: str, time: float | None) -> bool:
        """A ``-vvv`` run whose line breaks a paste collapsed: its records are read
        as lines, each at the line's number."""
        pieces = wrappers.collapsed(text)
        if pieces is None:
            return False
        self._read_inner(number, pieces, time)
        return True
