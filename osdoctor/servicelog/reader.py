"""Lines of a service log in, records out: each record's lines gathered, its
traceback read, its text redacted before anything keeps it.

A record is its head line (``shapes.head``) and the lines that continue it:
oslo.log writes an exception's traceback with its ``logging_exception_prefix``
(the same time, pid and logger, no request context), older releases with
``TRACE``; a message of several lines goes on without any prefix; mod_wsgi
writes each line of a traceback behind its own ``[wsgi:error]`` prefix. A gap
in the line numbers (a reader that skipped lines, an elision in a paste) ends
the record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from osdoctor.secrets.redact import StreamRedactor
from osdoctor.secrets.secretstream import SecretMemory
from osdoctor.servicelog import shapes
from osdoctor.servicelog.record import MAX_FRAMES, MAX_MESSAGE, ServiceRecord
from osdoctor.servicelog.service_names import (
    service_of_frames,
    service_of_logger,
    service_of_path,
    service_of_program,
)
from osdoctor.servicelog.shapes import Head, Line, Stamp

#: Lines of a multi-line message kept beside its first (not its traceback's).
MAX_MORE = 5
#: Lines one record may span at most; a longer one is cut into two.
MAX_RECORD_LINES = 2000
_CHAINED = ("During handling of the above exception", "The above exception was the direct cause")


@dataclass(slots=True)
class _Open:
    """A record being gathered."""

    head: Head
    first: int
    last: int
    text: str
    line: Line
    frames: list[str] = field(default_factory=list)
    exception: str = ""
    exception_message: str = ""
    more: list[str] = field(default_factory=list)
    in_traceback: bool = False
    lines: int = 1


class RecordReader:
    """Feed it a log's lines in order (``feed``), then ``finish``; each record goes
    to ``emit`` as soon as it is complete."""

    def __init__(
        self,
        emit: Callable[[ServiceRecord], object],
        source: str = "",
        redact: bool = True,
        memory: SecretMemory | None = None,
    ) -> None:
        self.emit = emit
        self.source = source
        self.file_service = service_of_path(source) if source else ""
        self._redactor = StreamRedactor(memory) if redact else None
        self._open: _Open | None = None

    def feed(self, number: int, raw: str) -> None:
        raw = raw.rstrip("\r\n")
        line = self._read(raw)
        text = line.text if self._redactor is None else self._redactor.feed(raw)
        opened = self._open
        if opened is not None and (number != opened.last + 1 or opened.lines >= MAX_RECORD_LINES):
            self._close()
            opened = None
        found = line.head
        if found is not None:
            if opened is not None and _continues(opened, found, line):
                self._add(opened, found.message, number)
                return
            self._close()
            self._start(number, text, line, found)
            return
        if opened is not None:
            if opened.line.apache and not line.apache and opened.head.format != "python":
                self._close()  # an Apache record goes on only behind Apache's prefix
                return
            self._add(opened, line.text, number)

    def _read(self, raw: str) -> Line:
        """The line read, redacted. A JSON record is read first and its values
        redacted one by one: masking the whole line may break its quoting (and
        would mask kolla's ``Payload``, a field named like a secret)."""
        redactor = self._redactor
        if redactor is None:
            return shapes.read(raw)
        if "{" in raw[:400] and ('"levelname"' in raw or '"log_level"' in raw):
            line = shapes.read(raw)
            found = line.head
            if found is not None and found.format == "json":
                found.message = redactor.feed(found.message)
                found.exception_message = redactor.feed(found.exception_message)
                found.more = tuple(redactor.feed(x) for x in found.more)
                return line
        return shapes.read(redactor.feed(raw))

    def finish(self) -> None:
        self._close()

    def goes_on(self, raw: str) -> bool:
        """Whether ``raw``, the next line, would go on the record being gathered
        (a traceback's line, a message's next line) rather than start another."""
        opened = self._open
        if opened is None:
            return False
        line = shapes.read(raw.rstrip("\r\n"))
        found = line.head
        if found is None:
            return not (opened.line.apache and not line.apache)
        return _continues(opened, found, line)

    @property
    def open_until(self) -> int:
        """The last line of the record being gathered, 0 when none is."""
        return self._open.last if self._open is not None else 0

    def _start(self, number: int, text: str, line: Line, found: Head) -> None:
        opened = _Open(found, number, number, text, line)
        self._open = opened
        if found.trace or found.format == "python":
            # A TRACE line, or a bare traceback: the line is the traceback's own.
            self._traceback_line(opened, found.message)

    def _add(self, opened: _Open, text: str, number: int) -> None:
        opened.last = number
        opened.lines += 1
        self._traceback_line(opened, text)

    def _traceback_line(self, opened: _Open, text: str) -> None:
        stripped = text.strip()
        if not stripped:
            return
        if stripped.startswith("Traceback (most recent call last)"):
            opened.in_traceback = True
            return
        frame = shapes.frame_of(text)
        if frame is not None:
            opened.in_traceback = True
            opened.frames.append(frame)
            if len(opened.frames) > MAX_FRAMES:
                del opened.frames[0]
            return
        if stripped.startswith(_CHAINED):
            return
        if opened.in_traceback and text[:1] in " \t":
            return  # the code of the frame above
        exc_type, exc_message = shapes.exception_of(stripped)
        if exc_type and (opened.in_traceback or not opened.exception):
            opened.exception, opened.exception_message = exc_type, exc_message
            return
        if opened.in_traceback:
            if opened.exception:
                # The exception's message goes on over several lines.
                if len(opened.exception_message) < MAX_MESSAGE:
                    opened.exception_message += "\n" + stripped
            return
        if len(opened.more) < MAX_MORE:
            opened.more.append(stripped[:MAX_MESSAGE])

    def _close(self) -> None:
        opened, self._open = self._open, None
        if opened is None:
            return
        self.emit(self._record(opened))

    def _record(self, opened: _Open) -> ServiceRecord:
        found, line = opened.head, opened.line
        exception, exception_message = opened.exception, opened.exception_message
        frames = opened.frames or list(found.frames)
        if not exception:
            exception, exception_message = found.exception, found.exception_message
        if not exception and found.format in ("oslo", "json"):
            exception, exception_message = shapes.summary_exception(found.message)
        message = found.message
        if found.format == "python" and exception:
            message = f"{exception}: {exception_message}" if exception_message else exception
        stamp: Stamp | None = found.stamp or line.stamp
        service = found.service or service_of_program(line.program) or self.file_service
        if found.format in ("oslo", "json"):
            service = service_of_logger(found.logger) or service
        if not service and frames:
            service = service_of_frames(frames)
        return ServiceRecord(
            line=opened.first,
            last_line=opened.last,
            source=self.source,
            format=found.format,
            level=found.level,
            logger=found.logger or line.program.rpartition("/")[2],
            service=service,
            message=message[:MAX_MESSAGE],
            text=opened.text[:MAX_MESSAGE],
            time=stamp.time if stamp is not None else None,
            utc=stamp.utc if stamp is not None else False,
            yearless=stamp.yearless if stamp is not None else False,
            pid=found.pid if found.pid is not None else line.pid,
            host=line.host,
            request_id=found.request_id,
            global_request_id=found.global_request_id,
            user=found.user,
            project=found.project,
            exception=exception,
            exception_message=exception_message[:MAX_MESSAGE],
            frames=frames[-MAX_FRAMES:],
            method=found.method,
            path=found.path,
            status=found.status,
            more=[*found.more, *opened.more][:MAX_MORE],
        )


def _continues(opened: _Open, found: Head, line: Line) -> bool:
    """Whether a head line is the next line of the open record rather than a
    record of its own: a ``TRACE`` line or an exception-prefix line (no context)
    of the same logger and process, a traceback behind the same Apache prefix."""
    last = opened.head
    if found.trace:
        return last.logger == found.logger
    if found.format == "oslo" and last.format == "oslo":
        return (
            found.context is None
            and found.logger == last.logger
            and (found.pid == last.pid or found.pid is None or last.pid is None)
        )
    if found.format == "python":
        # A bare traceback under an ERROR, or behind the same mod_wsgi prefix.
        if line.apache:
            return opened.line.apache and line.pid == opened.line.pid
        return last.level in ("ERROR", "CRITICAL") and last.format != "uwsgi"
    return False


def read_lines(lines: list[tuple[int, str]], source: str = "") -> list[ServiceRecord]:
    """The records of numbered lines already redacted (a paste's)."""
    out: list[ServiceRecord] = []
    reader = RecordReader(out.append, source, redact=False)
    for number, text in lines:
        reader.feed(number, text)
    reader.finish()
    return out
