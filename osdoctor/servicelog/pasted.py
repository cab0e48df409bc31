"""The service records of the input itself: a service's log lines pasted under the
client's output, a traceback a service printed, a 500 whose body is the
service's own traceback.

The parser has already read and redacted every line (a pasted service line is
a printed message to it, a pasted traceback a ``server`` traceback); this
reads those again as records, in order, with their own line numbers.
"""

from __future__ import annotations

from osdoctor import regex
from osdoctor.model import Body, Message, Trace, Traceback
from osdoctor.servicelog import shapes
from osdoctor.servicelog.reader import read_lines
from osdoctor.servicelog.record import MAX_FRAMES, ServiceRecord
from osdoctor.servicelog.service_names import service_of_frames, service_of_path

#: Message kinds a pasted service line can have been read as.
_KINDS = frozenset({"server", "text", "error", "warning", "elision"})
#: A service's log file named in the paste's own words ("Looking in
#: ``/var/log/neutron/server.log``, we find:").
_NAMED_LOG = regex.compile(r"(/var/log/[\w.@/\-]+?\.log)(?![A-Za-z0-9_.\-])")
#: Lines of one quoted message kept at most (a hard-wrapped sentence).
_QUOTED_LINES = 6
#: A typed command that prints a log file's lines: each line it printed is a
#: record of that file (``$ sudo egrep -i error /var/log/nova/nova-conductor.log``).
_READS_LOG = regex.compile(
    r"\s*(?:\[[^\]]*\]\s*)?[#$]\s*(?:sudo\s+)?(?:e?grep|zgrep|tail|cat|head|less|zcat)\b"
)


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
    covered += [(tb.first_line, tb.last_line) for tb in trace.tracebacks]
    records += _quoted(trace.messages, covered)
    records.sort(key=lambda r: r.line)
    _name_by_file(records, trace.messages, covered)
    return records


def _name_by_file(
    records: list[ServiceRecord], messages: list[Message], covered: list[tuple[int, int]]
) -> None:
    """A record whose logger names no service (keystonemiddleware's, oslo.db's)
    is the service's whose log file the poster named above it ("nova-api.log
    shows:")."""
    if all(r.service for r in records):
        return
    named: list[tuple[int, str]] = []
    for m in messages:
        if "/var/log/" not in m.text or any(a <= m.line <= b for a, b in covered):
            continue
        found = _NAMED_LOG.search(m.text)
        if found is not None and service_of_path(found.group(1)):
            named.append((m.line, service_of_path(found.group(1))))
    for record in records:
        if record.service or not named:
            continue
        before = [service for line, service in named if line < record.line]
        if before:
            record.service = before[-1]


def _quoted(messages: list[Message], covered: list[tuple[int, int]]) -> list[ServiceRecord]:
    """The messages a poster quoted from a log file they named, without the lines'
    prefixes: the first indented block under the words naming the file, one
    record per run of lines (a hard-wrapped message joined again). Their level
    is not written; a line quoted as what went wrong is taken as an ERROR."""
    out: list[ServiceRecord] = []
    service = ""
    block: list[Message] = []
    output_start = 0

    def flush() -> None:
        nonlocal service
        if block and service:
            text = " ".join(m.text.strip() for m in block)
            out.append(
                ServiceRecord(
                    line=block[0].line,
                    last_line=block[-1].line,
                    source="",
                    format="bare",
                    level="ERROR",
                    logger="",
                    service=service,
                    message=text,
                    text=block[0].text.strip(),
                )
            )
            service = ""
        block.clear()

    output = ""  # the service of the log a typed grep, tail or cat reads
    printed_at = 0
    for m in sorted(messages, key=lambda m: m.line):
        if any(first <= m.line <= last for first, last in covered):
            flush()
            service = output = ""
            continue
        if output:
            # What the command printed: its lines follow it (a blank line after
            # the command at most); "..." is the poster's cut between two.
            step = 2 if printed_at == output_start else 1
            if m.line <= printed_at + step and m.kind != "command":
                printed_at = m.line
                # A line the parser read as a client's own log line lost its
                # level with its prefix: not a record of unknown level.
                if m.kind not in ("elision", "debug") and m.text.strip():
                    service = output
                    block.append(m)
                    flush()
                continue
            output = ""
        command = _READS_LOG.match(m.text)
        named = _NAMED_LOG.search(m.text)
        if command is not None and named is not None:
            flush()
            output = service_of_path(named.group(1))
            output_start = printed_at = m.line
            service = ""
            continue
        quoted = m.text[:1] in " \t" and m.text.strip()
        if quoted and service:
            if block and (m.line != block[-1].line + 1 or len(block) >= _QUOTED_LINES):
                flush()
                continue
            block.append(m)
            continue
        flush()
        named = _NAMED_LOG.search(m.text)
        if named is not None and not quoted:
            service = service_of_path(named.group(1))
    flush()
    return out


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
