"""The service records of the input itself: a service's log lines pasted under the
client's output, a traceback a service printed, a 500 whose body is the
service's own traceback.

The parser has already read and redacted every line (a pasted service line is
a printed message to it, a pasted traceback a ``server`` traceback); this
reads those again as records, in order, with their own line numbers.
"""

from __future__ import annotations

from osdoctor.model import Body, Trace, Traceback
from osdoctor.servicelog import shapes
from osdoctor.servicelog.names import service_of_frames
from osdoctor.servicelog.reader import read_lines
from osdoctor.servicelog.record import MAX_FRAMES, ServiceRecord

#: Message kinds a pasted service line can have been read as.
_KINDS = frozenset({"server", "text", "error", "warning", "elision"})


def pasted_records(trace: Trace) -> list[ServiceRecord]:
    """Every service record the trace's own lines hold, in line order."""
    lines = [(m.line, m.text) for m in trace.messages if m.kind in _KINDS and _may_be(m.text)]
    records = read_lines(lines)
    covered = [(r.line, r.last_line) for r in records]
    for tb in trace.tracebacks:
        if tb.origin != "server" or not tb.exc_type:
            continue
        if any(first <= tb.first_line <= last for first, last in covered):
            continue  # a service's prefixed traceback, already in its record
        records.append(_from_traceback(tb))
    records.sort(key=lambda r: r.line)
    return records


def _may_be(text: str) -> bool:
    """A cheap look before a line is read for a record: most printed lines are the
    client's; a service's start with a time, a level, a bracket, a brace, or go
    on a record (indented, a traceback's)."""
    first = text[:1]
    return first.isdigit() or first in 'DIWECTAF[{ \tJMSONmu*-!"' or text.startswith("File ")


def _traceback_record(
    first: int, last: int, frames: list[str], exc_type: str, exc_message: str, service: str = ""
) -> ServiceRecord:
    """A traceback as a record of its own, of no known logger: its writer is the
    service its frames run through, when its reader does not know better."""
    line = f"{exc_type}: {exc_message}" if exc_message else exc_type
    frames = frames[-MAX_FRAMES:]
    return ServiceRecord(
        line=first,
        last_line=last,
        source="",
        format="python",
        level="ERROR",
        logger="",
        service=service or service_of_frames(frames),
        message=line,
        text=line,
        exception=exc_type,
        exception_message=exc_message,
        frames=frames,
    )


def _from_traceback(tb: Traceback) -> ServiceRecord:
    """A bare traceback a service printed (uWSGI's or mod_wsgi's stderr, a
    ``journalctl -o cat``)."""
    frames = [f"{f.file}:{f.lineno} in {f.function}" for f in tb.frames]
    return _traceback_record(tb.first_line, tb.last_line, frames, tb.exc_type, tb.message)


def answer_record(body: Body, service: str) -> ServiceRecord | None:
    """A service's traceback sent as its answer's body (a 500 in ``text/plain``:
    keystone's debug middleware, an eventlet server's last resort)."""
    text = body.text or ""
    if "Traceback (most recent call last)" not in text:
        return None
    lines = text.split("\n")
    frames, exc_type, exc_message = shapes.traceback_of(lines)
    if not exc_type:
        return None
    return _traceback_record(
        body.first_line, body.last_line, list(frames), exc_type, exc_message, service
    )
