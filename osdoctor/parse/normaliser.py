"""The parser's second stage: numbered lines as a log holds them in, the
client's logical lines, redacted, out.

Between the line source (``parse.line_source``) and the record readers, a line
loses what was done to it after the client printed it, so that the readers see
the client's words only:

- paste damage: a box drawn around it, ``<code>`` tags, backticks, a code
  block's indentation, a ticket's ``> `` marks (``parse.paste``, ``parse.wraps``);
- a tool's prefix: timestamps, levels, syslog and journald heads, a session
  file's records (``parse.prefixes``); a session's metadata and a service's own
  log lines are handed over apart;
- wraps: a paste folded at a fixed width, escaped text whose line breaks are
  wraps (``parse.wraps``), and the client's long sentences an editor
  word-wrapped (``parse.sentences``), each joined into one line;
- secrets: every line is redacted by the stream's redactor, which remembers what
  the lines before taught it (``secrets.redact.PemMasker``); a sentence joined
  from pieces is redacted again whole, since a wrap may have split a secret.

It also notes what it saw of the input's shape: lines cut at 1 MiB, a fold
width, and the census of line widths that ``printed_messages.join_wrapped_messages``
reads. It knows nothing of records: it asks its sink, through ``LogicalSink``,
the two things it needs of them (whether one is being gathered, and whether a
line's words are kept at all).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Protocol

from osdoctor.counts import counted
from osdoctor.parse import sentences, wraps
from osdoctor.parse.paste import BOX_FIRST, is_elision, unbox, unlink, unpaste
from osdoctor.parse.prefixes import PrefixStripper
from osdoctor.parse.record_starts import is_record_start
from osdoctor.secrets.redact import PemMasker, SecretMemory, redact_line

#: Lines remembered as pasted and as stripped: a round's template learns the
#: tool prefixes of its lines from them (``parse.round_path``); longer rounds
#: are read line by line.
RECENT_LINES = 64
#: Lines at least this long count towards detecting a paste's fixed wrap width.
_WRAP_MIN = 60
#: First characters with which no tool prefix (timestamp, level, syslog month,
#: quote, session record) can begin: such lines skip the prefix stripper.
_PLAIN_FIRST = frozenset("RhGPUKBHLQVXYZabcdefgijklmnopqrstuvwxyz{}]()<\"' \t|+-_\\.,;:!?@$%&^`")
#: First characters of lines that a web page or ticket may have decorated.
_PASTE_FIRST = frozenset(" \t`<")
#: First characters of a poster's elision marks.
_ELISION_FIRST = frozenset(".[-(<\u2026")
#: Lines cut at 1 MiB named one by one in the trace's problems; past them, a count.
_CUT_NAMED = 5


@dataclass(frozen=True, slots=True)
class Shape:
    """What the paste did to a logical line that its readers must know."""

    indent: int = 0
    """The indentation a paste gave the line (a traceback is read under it)."""
    span_end: int = 0
    """The last physical line of a line joined from wrapped pieces; 0 otherwise."""
    cut: bool = False
    """The line was cut at the paste's width: its end is lost."""


#: The shape of almost every line: as the client printed it.
FLAT = Shape()


class LogicalSink(Protocol):
    """What the logical lines go to: the record readers (``parse.parser``)."""

    def line(self, number: int, text: str, time: float | None, shape: Shape) -> None:
        """A client's logical line, redacted, numbered by its first physical line."""
        ...

    def server_line(self, number: int, text: str, message: str, shape: Shape) -> None:
        """A service's own log line, whole, and its message, both redacted."""
        ...

    def meta(self, number: int, key: str, value: str) -> None:
        """A session file's metadata record."""
        ...

    def elision(self, number: int, text: str, shape: Shape) -> None:
        """A gap the poster left (``...``, ``[snip]``), redacted."""
        ...

    def unkept(self, number: int, text: str) -> bool:
        """A client's line, stripped but not yet redacted: True when the sink took
        it as it stands, its words never kept (a connection pool's chatter, a
        request id's note), so that it needs no redaction. A service's traceback
        being gathered ends at a client's line."""
        ...

    def gathering(self) -> bool:
        """Whether a record (a body, a traceback, a wrapped request line) is being
        gathered: no sentence of the client's starts inside one."""
        ...

    def problem(self, text: str) -> None:
        """Something the input's shape cost, for the trace's problems."""
        ...


class Normaliser:
    """Feed it physical lines with :meth:`feed`, end with :meth:`finish`; it hands
    logical lines to ``sink``. ``widths``: what the input's head says of its line
    lengths (``parse.wraps``)."""

    def __init__(self, sink: LogicalSink, widths: wraps.Widths | None = None) -> None:
        self._sink = sink
        self._strip = PrefixStripper()
        self._pem = PemMasker()
        #: The width the input was folded at, when known before it is fed: lines
        #: of that width are joined with the next one.
        self.wrap_width: int | None = widths.fold if widths is not None else None
        #: The width its lines were cut at: a line that long lost its end.
        self.cut_width: int | None = widths.cut if widths is not None else None
        #: How many lines (not table rows) had each width of at least ``_WRAP_MIN``.
        self.widths: dict[int, int] = {}
        #: The last lines read: (number, text unpasted, text stripped).
        self.recent: deque[tuple[int, str, str]] = deque(maxlen=RECENT_LINES)
        self._cut_lines = 0
        # A logical line being gathered from its wrapped pieces.
        self._held: list[str] | None = None
        self._held_at = (0, 0)  # (first line, last line)
        self._held_len = 0
        self._held_time: float | None = None
        self._held_escaped = False
        # The shape of the line being read; indented shapes are made once each.
        self._shape = FLAT
        self._indented: dict[int, Shape] = {}
        # A client's sentence a paste word-wrapped: its first line, text so far,
        # time, pieces (see ``parse.sentences``).
        self._sentence: tuple[int, str, float | None, int] | None = None

    @property
    def secrets(self) -> SecretMemory:
        """What redaction learnt from the log so far."""
        return self._pem.memory

    @property
    def formats(self) -> set[str]:
        """The tool prefixes met (``parse.prefixes``), which say what the log is."""
        return self._strip.formats

    @property
    def holding(self) -> bool:
        """Whether the pieces of a wrapped line are being gathered."""
        return self._held is not None

    @property
    def shape(self) -> Shape:
        """The shape of the line being read (between lines, the last one's
        indentation, neither joined nor cut)."""
        return self._shape

    def follow(self, previous: Normaliser) -> None:
        """Redact on where ``previous`` stopped (the next run of the same log)."""
        self._pem.memory.update(previous.secrets)
        self._pem.carry_on(previous._pem)

    # -- physical lines ----------------------------------------------------
    def feed(self, number: int, raw: str, cut: int = 0, time: float | None = None) -> None:
        """One line: its number in the log, its text, the bytes cut off its end
        (see ``parse.line_source``), its time in a live run."""
        if raw[:1] in BOX_FIRST:
            raw = unbox(raw)
        if cut:
            self._cut_lines += 1
            if self._cut_lines <= _CUT_NAMED:
                self._sink.problem(
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
        if (
            not cut
            and (self.wrap_width is not None or "\\" in raw)
            and self._holds(number, raw, time)
        ):
            return
        if self.cut_width is not None and len(wraps.unquoted(raw)) == self.cut_width:
            # Cut at the width, and not folded on.
            try:
                self._line(number, raw, time, 0, True)
            finally:
                self._unshape()
            return
        self._line(number, raw, time)

    def finish(self) -> None:
        """The input ended: read what is held (a wrapped line, a sentence)."""
        self._release()
        self._release_sentence()

    def problems(self) -> list[str]:
        """What the input's shape cost, at its end: a fold undone, lines cut."""
        found: list[str] = []
        if self.wrap_width is not None:
            found.append(
                f"the log looks wrapped at {self.wrap_width} characters: wrapped lines were joined"
            )
        if self._cut_lines > _CUT_NAMED:
            found.append(f"{counted(self._cut_lines, 'line')} were longer than 1 MiB and cut")
        return found

    def _holds(self, number: int, raw: str, time: float | None) -> bool:
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
        self._held_at = (number, number)
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
        # A last piece as wide as the paste was not continued: the line was cut there.
        cut = self._held_len in (self.wrap_width, self.cut_width)
        try:
            self._line(first, "".join(held), self._held_time, last, cut)
        finally:
            self._unshape()

    def _unshape(self) -> None:
        """After a joined or cut line: the shape keeps only its indentation."""
        shape = self._shape
        if shape.span_end or shape.cut:
            self._shape = self._indented_by(shape.indent)

    def _indented_by(self, indent: int) -> Shape:
        if not indent:
            return FLAT
        shape = self._indented.get(indent)
        if shape is None:
            shape = self._indented[indent] = Shape(indent)
        return shape

    # -- logical lines -----------------------------------------------------
    def _line(
        self, number: int, raw: str, time: float | None, span_end: int = 0, cut: bool = False
    ) -> None:
        """One logical line: paste damage and tool prefixes off, redacted, then read."""
        indent = 0
        if raw[:1] in _PASTE_FIRST or raw[-1:] == ">":
            raw, indent = unpaste(raw)
        if "](" in raw:
            raw = unlink(raw)
        if span_end or cut:
            self._shape = Shape(indent, span_end, cut)
        else:
            self._shape = self._indented_by(indent) if indent else FLAT
        sink = self._sink
        if raw[:1] in _PLAIN_FIRST:
            # No tool prefix can start with this character: skip the stripper.
            stripped_text = raw
        else:
            stripped = self._strip.strip(raw)
            if stripped.meta is not None:
                sink.meta(number, *stripped.meta)
                return
            if stripped.server is not None:
                self._release_sentence()
                pem = self._pem
                text = pem.feed(stripped.text)
                sink.server_line(number, text, pem.feed(stripped.server), self._shape)
                return
            stripped_text = stripped.text
            if stripped.time is not None:
                time = stripped.time
        self.recent.append((number, raw, stripped_text))
        if sink.unkept(number, stripped_text):
            return
        size = len(stripped_text)
        if size >= _WRAP_MIN and stripped_text[0] not in "+|":
            # Table rows share one width by design; they say nothing of a wrap.
            widths = self.widths
            widths[size] = widths.get(size, 0) + 1
        text = self._pem.feed(stripped_text)
        if text[:1] in _ELISION_FIRST and is_elision(text):
            self._release_sentence()
            sink.elision(number, text, self._shape)
            return
        self.read(number, text, time)

    def read(self, number: int, text: str, time: float | None) -> None:
        """A line's text, redacted: joined to a sentence a paste word-wrapped, or
        handed on. The sink gives back the lines another program's line held
        (an escaped report, a bytes repr) this way too."""
        if self._sentence is not None and self._join_sentence(text):
            return
        if not self._sink.gathering() and sentences.opens(text):
            self._sentence = (number, text, time, 1)
            return
        self._sink.line(number, text, time, self._shape)

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
                self._sink.line(number, text, time, self._shape)
            else:
                self._read_sentence(number, text, time)

    def _read_sentence(self, number: int, text: str, time: float | None) -> None:
        """A sentence joined from pieces, redacted again whole (a secret the wrap
        split), then read as the lines it holds."""
        for line in sentences.lines_of(redact_line(text)):
            self._sink.line(number, line, time, self._shape)
