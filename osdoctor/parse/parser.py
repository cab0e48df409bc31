"""The streaming log parser: lines in, a :class:`~osdoctor.model.Trace` out.

It is a small state machine fed one line at a time, so that a live run, a
followed file and a 200 MB saved log go through the same code. Its stages:

1. the line source (``line_source``) cuts bytes into numbered lines and calls
   :meth:`Parser.feed`; in the middle of a long wait it asks the fast path
   (:attr:`Parser.rounds`, ``round_path``) to match whole rounds instead;
2. the parser's way in undoes paste damage, tool prefixes and wrapped lines,
   and redacts (``paste``, ``prefixes``, ``wraps``, ``sentences``);
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

from osdoctor import regex
from osdoctor.counts import counted
from osdoctor.model import (
    Trace,
    line_quote,
)
from osdoctor.parse import commands, escaped, openings, sentences, wrappers, wraps
from osdoctor.parse.assembler import Assembler, Collector
from osdoctor.parse.bodies import BodyCollector, HeatResponseCollector
from osdoctor.parse.clients import (
    client_from_agents,
    note_command,
    session_meta,
)
from osdoctor.parse.connections import ConnectionReader
from osdoctor.parse.legacy_records import LegacyReader
from osdoctor.parse.paste import BOX_FIRST, is_elision, unbox, unpaste
from osdoctor.parse.prefixes import PrefixStripper
from osdoctor.parse.printed_messages import classify, join_wrapped_messages
from osdoctor.parse.printed_resources import is_openstack, read_resources
from osdoctor.parse.record_starts import is_record_start
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
from osdoctor.secrets.redact import PemMasker, SecretMemory, redact_line
from osdoctor.secrets.scrub import scrub_trace

_REQUEST_ID = regex.compile(r"([A-Z]+) call to (?:(\S+) for )?(\S+) used request id (\S+)")

__all__ = ["FOLD_KEEP", "KEEP_FIRST", "KEEP_LAST", "Parser"]
#: The retention limits a parser is made with (see ``parse.retention``); a test may
#: lower them here for the parsers it makes.
_DROP_AT_ONCE = DROP_AT_ONCE

#: Lines at least this long count towards detecting a paste's fixed wrap width.
_WRAP_MIN = 60
_SKIP_PREFIXES = ("Starting new HTTP", "Resetting dropped connection", "Incremented Retry")
#: First characters with which no tool prefix (timestamp, level, syslog month,
#: quote, session record) can begin: such lines skip the prefix stripper.
_PLAIN_FIRST = frozenset("RhGPUKBHLQVXYZabcdefgijklmnopqrstuvwxyz{}]()<\"' \t|+-_\\.,;:!?@$%&^`")
#: First characters of lines that a web page or ticket may have decorated.
_PASTE_FIRST = frozenset(" \t`<")
#: First characters of a poster's elision marks.
_ELISION_FIRST = frozenset(".[-(<\u2026")


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
        self._strip = PrefixStripper()
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
        self._request_id = self._asm.request_id
        self._cut_lines = 0
        self._pem = PemMasker()
        # A client's sentence a paste word-wrapped: its first line, text so far,
        # time, pieces (see ``parse.sentences``).
        self._sentence: tuple[int, str, float | None, int] | None = None
        self._widths: dict[int, int] = {}
        self._number = after
        #: The width the input was folded at, when known before it is fed (see
        #: ``parse.wraps``): lines of that width are joined with the next one.
        self.wrap_width: int | None = widths.fold if widths is not None else None
        #: The width its lines were cut at: a line that long lost its end.
        self.cut_width: int | None = widths.cut if widths is not None else None
        # A logical line being gathered from its wrapped pieces.
        self._held: list[str] | None = None
        self._held_at = (0, 0)  # (first line, last line)
        self._held_len = 0
        self._held_time: float | None = None
        self._held_escaped = False
        self._indent = 0  # indentation a paste gave the line being read
        self._server_tb: TracebackCollector | None = None
        self._depth = 0  # escaped reports inside escaped reports are read once
        self._continued = False  # the last command line ended in a backslash
        # The readers of records, each with its own state, over one assembler.
        self._requests = RequestReader(self._asm)
        self._responses = ResponseReader(self._asm)
        self._connections = ConnectionReader(self._asm, self.cut_width)
        self._legacy = LegacyReader(self._asm, self._read_inner)
        #: The fast path over the rounds of a long wait, which the line source drives.
        self.rounds = RoundPath(self._asm, self._widths, self.feed, self._idle)
        self._asm.watcher = self.rounds
        self._recent = self.rounds.recent
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
        return self._pem.memory

    def follow(self, previous: Parser) -> None:
        """Read on where ``previous`` stopped (the next run of the same log): mask
        what it learnt, and reuse what its redaction remembered."""
        self.secrets.update(previous.secrets)
        self._pem.carry_on(previous._pem)

    # The way in reads and sets, by these names, the state of the line being read
    # that the assembler and the request reader keep.
    @property
    def _collector(self) -> Collector | None:
        return self._asm.collector

    @property
    def _connecting(self) -> tuple[int, str] | None:
        return self._asm.connecting

    @_connecting.setter
    def _connecting(self, value: tuple[int, str] | None) -> None:
        self._asm.connecting = value

    @property
    def _span_end(self) -> int:
        return self._asm.span_end

    @_span_end.setter
    def _span_end(self, value: int) -> None:
        self._asm.span_end = value

    @property
    def _wrapped(self) -> tuple[int, str, float | None, int] | None:
        return self._requests.wrapped

    @property
    def _line_cut(self) -> bool:
        return self._asm.line_cut

    @_line_cut.setter
    def _line_cut(self, value: bool) -> None:
        self._asm.line_cut = value

    # -- input -------------------------------------------------------------
    def feed(self, number: int, raw: str, cut: int = 0, time: float | None = None) -> None:
        """One line: its number in the log, its text, the bytes cut off its end
        (see ``parse.line_source``), its time in a live run."""
        self.trace.line_count = self._number = number
        if raw[:1] in BOX_FIRST:
            raw = unbox(raw)
        if cut:
            self._cut_lines += 1
            if self._cut_lines <= 5:
                self.trace.problems.append(
                    f"line {number} is longer than 1 MiB: its last {cut} bytes were skipped"
                )
        held = self._held
        if held is not None:
            piece = wraps.unquoted(raw)
            if (
                not cut
                and len(held) < wraps.MAX_PIECES
                and wraps.continues(
                    held[-1] if self._held_escaped else "", self._held_len, self.wrap_width, piece
                )
            ):
                held.append(piece)
                self._held_at = (self._held_at[0], number)
                self._held_len = len(piece)
                self._held_escaped = self._held_escaped or "\\" in piece
                return
            self._release()
        if not cut and (self.wrap_width is not None or "\\" in raw) and self._holds(raw, time):
            return
        if self.cut_width is not None and len(wraps.unquoted(raw)) == self.cut_width:
            self._line_cut = True  # cut at the width, and not folded on
            try:
                self._line(number, raw, time)
            finally:
                self._line_cut = False
            return
        self._line(number, raw, time)

    def _holds(self, raw: str, time: float | None) -> bool:
        """Start gathering a logical line when ``raw`` may be the first of its
        wrapped pieces (see ``parse.wraps``)."""
        piece = wraps.unquoted(raw)
        size = len(piece)
        if size < 2:
            return False
        escaped = piece[:1] not in "+|" and wraps.escaped_open(piece) and not is_record_start(piece)
        if size != self.wrap_width and not escaped:
            return False
        self._held = [raw]
        self._held_at = (self._number, self._number)
        self._held_len = size
        self._held_time = time
        self._held_escaped = escaped
        return True

    def _release(self) -> None:
        held = self._held
        if held is None:
            return
        self._held = None
        first, last = self._held_at
        self._span_end = last
        # A last piece as wide as the paste was not continued: the line was cut there.
        self._line_cut = self._held_len in (self.wrap_width, self.cut_width)
        try:
            self._line(first, "".join(held), self._held_time)
        finally:
            self._span_end = 0
            self._line_cut = False

    def _line(self, number: int, raw: str, time: float | None) -> None:
        """One logical line: paste damage and tool prefixes off, then read."""
        self._indent = 0
        if raw[:1] in _PASTE_FIRST or raw[-1:] == ">":
            raw, self._indent = unpaste(raw)
        if raw[:1] in _PLAIN_FIRST:
            # No tool prefix can start with this character: skip the stripper.
            stripped_text = raw
        else:
            stripped = self._strip.strip(raw)
            if stripped.meta is not None:
                session_meta(self.trace, number, *stripped.meta)
                return
            if stripped.server is not None:
                self._server_line(number, stripped.text, stripped.server)
                return
            stripped_text = stripped.text
            if stripped.time is not None:
                time = stripped.time
        self._recent.append((number, raw, stripped_text))
        if self._server_tb is not None and not is_elision(stripped_text):
            self._end_server_traceback()
        if self._collector is None:
            # Lines whose text is never kept need no redaction.
            if stripped_text.startswith(_SKIP_PREFIXES):
                self.trace.openstack_lines += 1
                if stripped_text[0] != "I":
                    # The host urllib3 (re)connects to: what a hung client waits for.
                    self._connecting = (number, stripped_text.rpartition(": ")[2].strip())
                return
            if " used request id " in stripped_text:
                m = _REQUEST_ID.match(stripped_text)
                if m:
                    self._request_id(m.group(3), m.group(4))
                    return
        size = len(stripped_text)
        if size >= _WRAP_MIN and stripped_text[0] not in "+|":
            # Table rows share one width by design; they say nothing of a wrap.
            self._widths[size] = self._widths.get(size, 0) + 1
        text = self._redacted(stripped_text)
        if text[:1] in _ELISION_FIRST and is_elision(text):
            self._elision(number, text)
            return
        self._read(number, text, time)

    def _read(self, number: int, text: str, time: float | None) -> None:
        """A line's text, redacted: part of the record being gathered, or a new one."""
        if self._sentence is not None and self._join_sentence(text):
            return
        if self._collector is None and self._wrapped is None and sentences.opens(text):
            self._sentence = (number, text, time, 1)
            return
        self._read_line(number, text, time)

    def _join_sentence(self, text: str) -> bool:
        """Join a client's sentence that a paste word-wrapped (see
        ``parse.sentences``); True when ``text`` was its continuation."""
        assert self._sentence is not None
        number, held, time, parts = self._sentence
        if (
            parts < sentences.MAX_PIECES
            and sentences.goes_on(text)
            and not is_record_start(text)
            and not is_elision(text)
        ):
            joined = sentences.join(held, text)
            if sentences.still_open(joined):
                self._sentence = (number, joined, time, parts + 1)
            else:
                self._sentence = None
                self._read_sentence(number, joined, time)
            return True
        self._release_sentence()
        return False

    def _release_sentence(self) -> None:
        """The sentence gathered so far, read as it stands (the paste cut it there)."""
        held = self._sentence
        if held is not None:
            self._sentence = None
            number, text, time, parts = held
            if parts == 1:
                self._read_line(number, text, time)
            else:
                self._read_sentence(number, text, time)

    def _read_sentence(self, number: int, text: str, time: float | None) -> None:
        """A sentence joined from pieces, redacted again whole (a secret the wrap
        split), then read as the lines it holds."""
        for line in sentences.lines_of(redact_line(text)):
            self._read_line(number, line, time)

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

    def _elision(self, number: int, text: str) -> None:
        """A gap the poster left: whatever record was open is cut there."""
        self._release_sentence()
        self._requests.release_wrapped()
        if self._asm.collector is not None:
            self._end_collector()
        named = commands.named_in(text)
        if named is not None:
            note_command(self.trace, number, named[0], named[1], text)
        self._asm.message(number, "elision", text)

    def _server_line(self, number: int, text: str, message: str) -> None:
        """A service's own log line: kept as such, its traceback gathered apart."""
        self._release_sentence()
        if self._asm.collector is not None:
            self._end_collector()
        text = self._redacted(text)
        message = self._redacted(message)
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

    def _redacted(self, text: str) -> str:
        """``text`` redacted by the stream's redactor, which remembers recent results
        (a polling log repeats its lines thousands of times) and what only the lines
        before say (a table's secret columns, values masked earlier)."""
        return self._pem.feed(text)

    def finish(self) -> Trace:
        self._release()
        self._release_sentence()
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
        formats = self._strip.formats
        if "session" in formats:
            self.trace.format = "session"
        elif "log-file" in formats:
            self.trace.format = "log-file"
        elif self.trace.openstack_lines:
            self.trace.format = "debug"
        if self.wrap_width is None:
            join_wrapped_messages(self.trace, self._widths)
        else:
            self.trace.problems.append(
                f"the log looks wrapped at {self.wrap_width} characters: wrapped lines were joined"
            )
        if self._cut_lines > 5:
            self.trace.problems.append(
                f"{counted(self._cut_lines, 'line')} were longer than 1 MiB and cut"
            )
        self.trace.problems.extend(self._asm.problems())
        self.trace.resources = read_resources(self.trace)
        # A resource's state is a client's words even in a paste of output alone.
        self.trace.openstack_lines += sum(map(is_openstack, self.trace.resources))
        scrub_trace(self.trace, self._pem.memory.literals)
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
        return self._held is None and self._requests.wrapped is None

    def _collapsed(self, number: int, text: str, time: float | None) -> bool:
        """A ``-vvv`` run whose line breaks a paste collapsed: its records are read
        as lines, each at the line's number."""
        pieces = wrappers.collapsed(text)
        if pieces is None:
            return False
        self._read_inner(number, pieces, time)
        return True
