"""The streaming log parser: lines in, a :class:`~osdoctor.model.Trace` out.

It is a small state machine fed one line at a time, so that a live run, a
followed file and a 200 MB saved log go through the same code. Most lines are
classified by their first characters; only the few that can start an HTTP
record pay for a regular expression.

Its lines come from the line source (``line_source``) through the normaliser
(``normaliser``), which undoes paste damage, tool prefixes and wraps and
redacts, and hands the logical lines back to the sink methods here (``line``,
``server_line``, ``meta``, ``elision``). This module keeps the dispatch of a
line to its reader and the pairing of records into exchanges.
The readers of each kind of record are apart, over one shared state
(``parse.records``): request lines (``request_lines``), answers and their
bodies (``responses``, ``bodies``), connection lines (``connections``),
tracebacks (``tracebacks``), printed messages (``messages``), who ran what
(``clients``), older shapes (``legacy_records``). What is kept of a log that
grows without bound is ``retention``'s; the fast path over the rounds of a long
wait is ``rounds``' template, engaged from the line source (``line_source``).
"""

from __future__ import annotations

from collections import deque

from osdoctor import regex
from osdoctor.model import (
    Exchange,
    Message,
    MessageKind,
    Request,
    Response,
    Trace,
    TransportError,
    line_quote,
)
from osdoctor.parse import commands, escaped, legacy, sentences, wrappers, wraps
from osdoctor.parse.answer_lines import AnswerReader
from osdoctor.parse.bodies import BodyCollector, HeatResponseCollector
from osdoctor.parse.clients import (
    BAREMETAL_SHELL,
    client_from_agents,
    note_command,
    session_meta,
    start_command,
)
from osdoctor.parse.connections import URLLIB3_CUT, ConnectionReader
from osdoctor.parse.http_text import Curl, split_url
from osdoctor.parse.httplib_lines import HttplibReader
from osdoctor.parse.legacy_records import LegacyReader
from osdoctor.parse.normaliser import FLAT, Normaliser, Shape
from osdoctor.parse.paste import is_elision
from osdoctor.parse.printed_messages import classify, join_wrapped_messages
from osdoctor.parse.printed_resources import is_openstack, read_resources
from osdoctor.parse.record_starts import URLLIB3, is_record_start
from osdoctor.parse.request_lines import RequestReader
from osdoctor.parse.responses import ResponseReader, header_location
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
    Retention,
)
from osdoctor.parse.round_path import RoundPath
from osdoctor.parse.rounds import RoundTemplate
from osdoctor.parse.services import ServiceMap
from osdoctor.parse.tracebacks import FRAME_ANY, TracebackCollector, from_service
from osdoctor.parse.unanswered import UnansweredReader
from osdoctor.secrets.redact import SecretMemory, redact_line
from osdoctor.secrets.scrub import scrub_trace

_HTTP_STATUS = regex.compile(r"HTTP/\d(?:\.\d)? (\d{3}) ?(.*)")
_REQUEST_ID = regex.compile(r"([A-Z]+) call to (?:(\S+) for )?(\S+) used request id (\S+)")
_NEGOTIATED = regex.compile(r"Negotiated API version is (\S+)")

#: Debug messages kept at most (the first ones).
_MAX_DEBUG_MESSAGES = 20000
__all__ = ["FOLD_KEEP", "KEEP_FIRST", "KEEP_LAST", "Parser"]
#: The retention limits a parser is made with (see ``parse.retention``); a test may
#: lower them here for the parsers it makes.
_DROP_AT_ONCE = DROP_AT_ONCE

_SKIP_PREFIXES = ("Starting new HTTP", "Resetting dropped connection", "Incremented Retry")


class Parser(RequestReader, ResponseReader, ConnectionReader, LegacyReader, RoundPath):
    """Feed it lines with :meth:`feed`, end with :meth:`finish`; read :attr:`trace`
    at any time. Its lines come from the line source (``parse.line_source``),
    which also drives the fast path over rounds (``RoundPath``)."""

    def __init__(
        self, source: str = "-", widths: wraps.Widths | None = None, after: int = 0
    ) -> None:
        """A parser of the log ``source`` names; ``widths``, what the input's head
        says of its line lengths; ``after``, the line the lines fed follow (a run
        that begins in the middle of a log keeps the log's own line numbers).
        Made by ``osdoctor.intake`` only."""
        self.trace = Trace(source=source, line_count=after)
        # Stage 2: paste damage, prefixes, wraps and redaction off the lines fed.
        self._normal = Normaliser(self, widths)
        self._unanswered = UnansweredReader()
        self._httplib = HttplibReader()
        self._answers = AnswerReader()
        self._services = ServiceMap()
        self._pending: deque[Exchange] = deque(maxlen=32)
        self._last: Exchange | None = None
        self._collector: BodyCollector | TracebackCollector | HeatResponseCollector | None = None
        self._big: deque[Exchange] = deque()
        self._debug_messages = 0
        self._dropped_messages = 0
        self._curls: dict[str, Curl | None] = {}
        self._exchange_count = 0
        self._wrapped: tuple[int, str, float | None, int] | None = None
        # The normaliser's census of line widths, which the round path adds to.
        self._widths = self._normal.widths
        self._keep = Retention(
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
        # The fast path over a folded run (see ``parse.line_source`` and ``parse.rounds``).
        self._recent = self._normal.recent
        self._template: RoundTemplate | None = None
        self._skipped: deque[tuple[bytes, int, int, int]] = deque()
        self._kept_rounds = 0
        self._skipped_rounds = 0
        self._engaged = False
        self._replaying = False
        self._model: list[Exchange] = []
        self._repeat: Message | None = None
        #: Rounds matched whole by the fast path rather than read line by line.
        self.matched_rounds = 0
        #: The width its lines were cut at: a line that long lost its end.
        self.cut_width = self._normal.cut_width
        # The shape of the line being read (see ``parse.normaliser.Shape``), and
        # what the readers read of it.
        self._shape = FLAT
        self._span_end = 0  # last physical line of the logical line being read
        self._line_cut = False  # whether that line was cut at the paste's width
        self._indent = 0  # indentation a paste gave the line being read
        self._connecting: tuple[int, str] | None = None  # urllib3's last connection line
        self._server_tb: TracebackCollector | None = None
        self._gopher: Exchange | None = None
        self._depth = 0  # escaped reports inside escaped reports are read once
        self._continued = False  # the last command line ended in a backslash

    @property
    def secrets(self) -> SecretMemory:
        """What redaction learnt from the log so far (values masked, hidden Heat
        parameters): other views of the same log mask with it too."""
        return self._normal.secrets

    @property
    def wrap_width(self) -> int | None:
        """The width the input was folded at, when known before it is fed (see
        ``parse.wraps``): lines of that width are joined with the next one."""
        return self._normal.wrap_width

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

    # -- what the normaliser hands on (``parse.normaliser.LogicalSink``) ----
    def line(self, number: int, text: str, time: float | None, shape: Shape) -> None:
        """A logical line of the client's, redacted."""
        if shape is not self._shape:
            self._take(shape)
        self._read_line(number, text, time)

    def _take(self, shape: Shape) -> None:
        """The shape of the line the normaliser hands on, as the readers read it."""
        self._shape = shape
        self._indent = shape.indent
        self._span_end = shape.span_end
        self._line_cut = shape.cut

    def meta(self, number: int, key: str, value: str) -> None:
        """A session file's metadata record."""
        session_meta(self.trace, number, key, value)

    def unkept(self, number: int, text: str) -> bool:
        """A client's line before redaction: True when its words are never kept."""
        if self._server_tb is not None and not is_elision(text):
            self._end_server_traceback()
        if self._collector is None:
            # Lines whose text is never kept need no redaction.
            if text.startswith(_SKIP_PREFIXES):
                self.trace.openstack_lines += 1
                if text[0] != "I":
                    # The host urllib3 (re)connects to: what a hung client waits for.
                    self._connecting = (number, text.rpartition(": ")[2].strip())
                return True
            if " used request id " in text:
                m = _REQUEST_ID.match(text)
                if m:
                    self._request_id(m.group(3), m.group(4))
                    return True
        return False

    def gathering(self) -> bool:
        """Whether a body, a traceback or a wrapped request line is being gathered."""
        return self._collector is not None or self._wrapped is not None

    def problem(self, text: str) -> None:
        """What the input's shape cost."""
        self.trace.problems.append(text)

    def _read(self, number: int, text: str, time: float | None) -> None:
        """A redacted line read as any other: through the normaliser's sentences."""
        self._normal.read(number, text, time)

    def _read_line(self, number: int, text: str, time: float | None) -> None:
        """One logical line of the client's, whole."""
        if self._wrapped is not None and self._join_wrapped(text):
            return
        collector = self._collector
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
        ex = self._last
        if ex is not None:
            # The request or answer this line gave keeps the line's words to quote.
            if ex.request.line == number and not ex.request.quote:
                ex.request.quote = line_quote(text)
            if ex.response is not None and ex.response.line == number and not ex.response.quote:
                ex.response.quote = line_quote(text)

    def elision(self, number: int, text: str, shape: Shape) -> None:
        """A gap the poster left: whatever record was open is cut there."""
        self._take(shape)
        if self._wrapped is not None:
            number_w, held, time_w, _parts = self._wrapped
            self._wrapped = None
            self._request(number_w, redact_line(held), time_w)
        if self._collector is not None:
            self._end_collector()
        named = commands.named_in(text)
        if named is not None:
            note_command(self.trace, number, named[0], named[1], text)
        self._message(number, "elision", text)

    def server_line(self, number: int, text: str, message: str, shape: Shape) -> None:
        """A service's own log line: kept as such, its traceback gathered apart."""
        self._take(shape)
        if self._collector is not None:
            self._end_collector()
        tb = self._server_tb
        if tb is not None:
            if tb.feed(number, message) and not tb.done:
                self._message(number, "server", text)
                return
            self._end_server_traceback()
        if message.startswith("Traceback (most recent call last)"):
            self._server_tb = TracebackCollector(number, origin="server")
        self._message(number, "server", text)

    def _end_server_traceback(self) -> None:
        tb, self._server_tb = self._server_tb, None
        if tb is not None and (tb.tb.exc_type or tb.tb.frames):
            self.trace.tracebacks.append(tb.tb)

    def _join_wrapped(self, text: str) -> bool:
        """Join a request line that a paste wrapped mid-word; True when ``text`` was
        its continuation."""
        assert self._wrapped is not None
        number, held, time, parts = self._wrapped
        if text and not is_record_start(text) and not text.startswith(("  ", "\t")) and parts < 8:
            joined = held + text
            if not _looks_wrapped(joined):
                self._wrapped = None
                self._request(number, redact_line(joined), time)
            else:
                self._wrapped = (number, joined, time, parts + 1)
            return True
        self._wrapped = None
        self._request(number, held, time)
        return False

    def finish(self) -> Trace:
        self._normal.finish()
        # What follows is read after the last line, in the shape between lines.
        self._take(self._normal.shape)
        if self._server_tb is not None:
            self._end_server_traceback()
        if self.trace.client == "unknown":
            self.trace.client = client_from_agents(self.trace.exchanges[:20])
        if self._wrapped is not None:
            number, held, time, _parts = self._wrapped
            self._wrapped = None
            self._request(number, redact_line(held), time)
        if self._collector is not None:
            if isinstance(self._collector, TracebackCollector) or self._collector.open:
                self.trace.problems.append(
                    f"the log ends inside a record that began on line {self._collector_start()}"
                )
            self._end_collector()
        self._no_answer()
        formats = self._normal.formats
        if "session" in formats:
            self.trace.format = "session"
        elif "log-file" in formats:
            self.trace.format = "log-file"
        elif self.trace.openstack_lines:
            self.trace.format = "debug"
        if self.wrap_width is None:
            join_wrapped_messages(self.trace, self._widths)
        self.trace.problems.extend(self._normal.problems())
        self.trace.problems.extend(self._keep.problems())
        if self._dropped_messages:
            self.trace.problems.append(
                f"{self._dropped_messages} debug lines past the first {_MAX_DEBUG_MESSAGES} "
                "were not kept"
            )
        self.trace.resources = read_resources(self.trace)
        # A resource's state is a client's words even in a paste of output alone.
        self.trace.openstack_lines += sum(map(is_openstack, self.trace.resources))
        scrub_trace(self.trace, self.secrets.literals)
        return self.trace

    # -- helpers -----------------------------------------------------------
    def _collector_start(self) -> int:
        c = self._collector
        if isinstance(c, TracebackCollector):
            return c.tb.first_line
        if isinstance(c, BodyCollector):
            return c.body.first_line
        if isinstance(c, HeatResponseCollector):
            return c.response.line
        return 0

    def _end_collector(self) -> None:
        c = self._collector
        self._collector = None
        if isinstance(c, TracebackCollector):
            if c.tb.exc_type or c.tb.frames:
                if from_service(c.tb):
                    c.tb.origin = "server"  # a service's traceback pasted beside the client's
                self.trace.tracebacks.append(c.tb)
                if c.tb.origin == "client" and c.tb.message:
                    # An exception naming a transport failure that no line reported.
                    self._transport_text(
                        c.tb.last_line,
                        c.tb.message,
                        f"{c.tb.exc_type}: {c.tb.message}",
                        message=False,
                    )
                self._keep.trim_tracebacks()
        elif c is not None:
            c.close()

    def _no_answer(self) -> None:
        """A log that ends inside a request: the client was still waiting (it hung,
        or was killed) for the host it last connected to."""
        t = self.trace
        if not t.exchanges or t.exit_code is not None:
            return
        ex = t.exchanges[-1]
        if ex.response is not None or ex.error is not None or ex.request.line == 0:
            return
        after = ex.request.line
        if any(tb.last_line > after for tb in t.tracebacks[-4:]) or any(
            m.line > after and m.kind not in ("debug", "elision") for m in t.messages[-16:]
        ):
            return
        host = split_url(ex.request.url)[0].partition("://")[2] or ex.request.url
        line = after
        connecting = self._connecting
        if connecting is not None and connecting[0] >= after:
            line, host = connecting
        ex.error = TransportError(
            "no-answer",
            f"the log ends while {ex.request.method} {ex.request.url} waits for "
            f"an answer from {host}",
            line,
            detail=host,
        )
        self._drop_pending(ex)

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

    def _message(self, number: int, kind: MessageKind, text: str) -> None:
        messages = self.trace.messages
        if messages:
            last = messages[-1]
            if last.kind == kind and last.text == text:
                last.repeats += 1
                last.last_line = max(number, self._span_end)
                return
        if kind == "debug":
            self._debug_messages += 1
            if self._debug_messages > _MAX_DEBUG_MESSAGES:
                self._dropped_messages += 1
                return
        messages.append(Message(number, kind, text, last_line=max(number, self._span_end)))
        self._keep.trim_messages()

    # -- dispatch ----------------------------------------------------------
    def _dispatch(self, number: int, text: str, time: float | None) -> None:
        if not text:
            return
        if len(text) >= 400 and self._depth == 0 and self._collapsed(number, text, time):
            return
        c = text[0]
        if self._gopher is not None and (self._depth or not escaped.looks_escaped(text)):
            self._gopher_body(number, text)
        if c == "R":
            if text.startswith("RESP"):
                answer = self._answers.feed(number, text)
                if answer is not None:
                    self._place_answer(answer)
                    return
            if text.startswith("REQ: "):
                if _looks_wrapped(text):
                    # A paste wrapped the line: the rest follows on the next lines.
                    self._wrapped = (number, text[5:], time, 1)
                    return
                self._request(number, text[5:], time)
                return
            if text.startswith("Request to "):
                unanswered = self._unanswered.feed(number, text)
                if unanswered is not None:
                    self._place_unanswered(unanswered)
                    return
            if text.startswith("Request returned failure status"):
                self.trace.openstack_lines += 1
        elif c == "h":
            if text.startswith(("http://", "https://")):
                m = URLLIB3.match(text)
                if m:
                    self._urllib3(number, m, time)
                    return
                if self._line_cut:
                    m = URLLIB3_CUT.match(text)
                    if m and m.group(4):
                        self._urllib3(number, m, time)
                        return
                    if m:
                        # A pool line cut by the paste: the request, its answer to come.
                        self._urllib3_cut(number, m, time)
                        return
            if text.startswith("header: "):
                header = self._httplib.feed(number, text)
                if header is not None:
                    self._place_httplib(header, time)
                return
        elif c == '"':
            m = legacy.BARE_URLLIB3.match(text)
            if m:
                self._urllib3(number, m, time, bare=True)
                return
        elif c == "s":
            if text.startswith("send: "):
                sent = self._httplib.feed(number, text)
                if sent is not None:
                    self._place_httplib(sent, time)
                return
        elif c == "r":
            if text.startswith("reply: "):
                reply = self._httplib.feed(number, text)
                if reply is not None:
                    self._place_httplib(reply, time)
                    return
        elif c == "c":
            if text.startswith("curl -"):
                self._request(number, text, time)
                return
            if text.startswith("clean_up "):
                self.trace.openstack_lines += 1
                self._message(number, "clean_up", text)
                return
            if text.startswith("command: ") and " -> " in text:
                self.trace.openstack_lines += 1
                if self.trace.command is None:
                    self.trace.command = "openstack " + text[9:].partition(" -> ")[0]
                    self.trace.command_line = number
                self._message(number, "debug", text)
                return
        elif c == "M":
            if text.startswith("Making authentication request to "):
                self._auth_request(number, text[33:].strip(), time)
                return
        elif c == "{":
            if text.startswith('{"token": ') and self._last is not None:
                self._token_body(number, text)
                return
        elif c == "T":
            if text.startswith("Traceback (most recent call last)"):
                self._collector = TracebackCollector(number, self._indent)
                return
        elif c == "C":
            if text.startswith("Could not find versioned identity endpoints"):
                self._refine_discovery(text)
        elif c == "U":
            if text.startswith("Unable to establish connection to "):
                unanswered = self._unanswered.feed(number, text)
                if unanswered is not None:
                    self._place_unanswered(unanswered)
                return
        elif c == "S":
            if text.startswith("SSL exception connecting to "):
                unanswered = self._unanswered.feed(number, text)
                if unanswered is not None:
                    self._place_unanswered(unanswered)
                return
            if text.startswith("START with options:"):
                self._message(number, "debug", start_command(self.trace, number, text[19:].strip()))
                return
            if text.startswith(_SKIP_PREFIXES):
                return
        elif c == "E":
            if text.startswith("ERROR (") and "): " in text[:60]:
                # novaclient's and the legacy shells' "ERROR (ConnectFailure): <message>".
                rest = text.partition("): ")[2]
                if self._transport_text(number, rest, text):
                    return
            if text.startswith("END return value: "):
                try:
                    self.trace.exit_code = int(text[18:].strip())
                    self.trace.exit_line = number
                except ValueError:
                    pass
                self.trace.openstack_lines += 1
                self._message(number, "end", text)
                return
        elif c == "F":
            if text.startswith("Failed to discover available identity versions when contacting "):
                url = text[63:].partition(". ")[0].rstrip(".")
                ex = self._find_pending(url)
                if ex is not None and ex.response is None and ex.error is None:
                    ex.error = TransportError("discovery", text, number)
                    self._drop_pending(ex)
                self.trace.openstack_lines += 1
        elif c == "H":
            m = _HTTP_STATUS.match(text)
            if m and self._last is not None and self._last.response is None:
                ex = self._last
                ex.response = Response(
                    int(m.group(1)), number, reason=m.group(2) or None, last_line=number
                )
                self._drop_pending(ex)
                self._collector = HeatResponseCollector(ex.response)
                self.trace.openstack_lines += 1
                return
        elif c == "G" or c == "P" or c == "D":
            if " used request id " in text:
                m = _REQUEST_ID.match(text)
                if m:
                    self._request_id(m.group(3), m.group(4))
                    return
        if c in " \tF" and 'File "' in text[:12]:
            m = FRAME_ANY.match(text)
            if m:
                # A traceback whose header the paste lost: its frames still say it.
                collector = TracebackCollector(number, self._indent)
                collector.feed(number, text)
                self._collector = collector
                return
        if c == '"' and text.startswith('"heat ') and '" is deprecated, please use ' in text:
            # The heat shell logs no command line: its deprecation warning names the subcommand.
            self.trace.openstack_lines += 1
            if self.trace.command is None:
                self.trace.command = text[1 : text.index('"', 1)]
                self.trace.command_line = number
                self.trace.client = "heatclient"
        if c in "Uu" and text.startswith(BAREMETAL_SHELL):
            # The standalone baremetal shell logs no command line: these are its own words.
            self.trace.openstack_lines += 1
            if self.trace.client == "unknown":
                self.trace.client = "ironicclient"
        if c == "/" and "temp_url_sig=" in text and text.startswith("/v1/"):
            # What `swift tempurl` prints: a path it signed itself, with no request.
            self.trace.openstack_lines += 1
            if self.trace.client == "unknown":
                self.trace.client = "swiftclient"
        if c == "N" and text.startswith("Negotiated API version is "):
            m = _NEGOTIATED.match(text)
            if m:
                self.trace.api_versions["baremetal"] = m.group(1)
        if self._depth == 0 and escaped.looks_escaped(text):
            self._escaped(number, text, time)
            return
        if self._depth == 0 and self._unwrapped(number, text, time):
            return
        if "Expected HTTP response code" in text or "], error message: " in text:
            self._gophercloud(number, text, time)
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
            self._message(number, "command", text)
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
            self._message(number, "command", text)
            if rest:
                self._dispatch(number, rest, time)
            return
        self._message(number, classify(text), text)

    def _unwrapped(self, number: int, text: str, time: float | None) -> bool:
        """A line another program printed the client's words in (see
        ``parse.wrappers``): a bytes repr, its lines read as lines, each at the
        line's own number."""
        found = wrappers.bytes_repr(text) if "b" in text[:48] else None
        if found is None:
            return False
        head, lines = found
        if head:
            self._message(number, classify(head), head)
        self._read_inner(number, lines, time)
        return True

    def _collapsed(self, number: int, text: str, time: float | None) -> bool:
        """A ``-vvv`` run whose line breaks a paste collapsed: its records are read
        as lines, each at the line's number."""
        pieces = wrappers.collapsed(text)
        if pieces is None:
            return False
        self._read_inner(number, pieces, time)
        return True

    # -- records -----------------------------------------------------------
    def _new_exchange(self, request: Request, time: float | None) -> Exchange:
        if self.trace.exchanges:
            self._fold_repeats()
            if self._keep.run > FOLD_KEEP and self._template is None and not self._replaying:
                self._learn_round(request)
        ex = Exchange(index=self._exchange_count, request=request, time=time)
        self._exchange_count += 1
        ex.service, ex.path = self._services.locate(request.url)
        ex.query = request.url.partition("?")[2]
        prev = self._last
        if prev is not None and prev.status is not None and 300 <= prev.status < 400:
            location = header_location(prev.response.raw_headers) if prev.response else None
            if location and (location == request.url or request.url.startswith(location)):
                ex.redirected_from = prev.index
        self._keep.append(ex)
        self.trace.openstack_lines += 1
        self._last = ex
        return ex

    def _fold_repeats(self) -> None:
        if not self._keep.fold_repeats():
            self._template = None  # the run broke: its round no longer leads

    # -- legacy shapes -----------------------------------------------------


def _looks_wrapped(text: str) -> bool:
    """keystoneauth's and swiftclient's request lines end with a quoted header or
    body; one that stops elsewhere, or with an open quote, was cut by a wrap."""
    if " -d '" in text:
        return False
    return text.count('"') % 2 == 1 or not text.endswith('"')
