"""One record of a service's own log: what nova-api, keystone or neutron-server wrote
while it answered (or failed to answer) a request.

This sits beside ``osdoctor.model`` (a trace holds the records found for it) and
imports nothing else: a record is plain data, the same whether it was pasted
under the client's output or read from ``/var/log/nova/nova-api.log.2.gz``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

Level = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
"""A record's level, as oslo.log names them (``TRACE`` lines are an ERROR's
traceback, ``AUDIT`` was INFO, ``WARN`` is WARNING)."""
LEVELS: tuple[Level, ...] = get_args(Level)
_RANK: dict[str, int] = {level: rank for rank, level in enumerate(LEVELS)}

RecordFormat = Literal["oslo", "json", "apache", "uwsgi", "haproxy", "nginx", "python", "bare"]
"""How the record was written: oslo.log's text formats (behind any journald,
syslog, container or grep prefix), JSON (oslo.log's JSONFormatter, kolla's
fluentd records), an Apache/httpd ``[wsgi:error]`` line, uWSGI's own lines,
HAProxy's log, nginx's error log, a bare Python traceback, or a message
quoted without its prefix under the name of the log it came from."""
RECORD_FORMATS: tuple[RecordFormat, ...] = get_args(RecordFormat)

#: Frames kept per record at most (the innermost ones: where it failed).
MAX_FRAMES = 40
#: Characters of a message kept at most.
MAX_MESSAGE = 2000


def at_least(level: str, floor: str) -> bool:
    """Whether ``level`` is ``floor`` or more severe (unknown levels are neither)."""
    rank, wanted = _RANK.get(level), _RANK.get(floor)
    return rank is not None and wanted is not None and rank >= wanted


@dataclass(slots=True)
class ServiceRecord:
    """A service's log record, redacted, with its place in its file."""

    line: int
    """First line of the record in its source (1-based)."""
    last_line: int
    source: str
    """The file the record was read from, or "" for the input itself (a service's
    lines pasted under the client's output)."""
    format: RecordFormat
    level: Level
    logger: str
    """The Python logger (``nova.api.openstack.wsgi``), or the program for a
    record that is not oslo.log's (``uwsgi``, ``haproxy``, ``httpd``)."""
    service: str
    """The service that wrote it (``nova-api``, ``keystone``, ``neutron-server``),
    from its logger, program or file name; "" when none says."""
    message: str
    """The first line of the message, without its prefix."""
    text: str
    """The record's first line as it was written (prefix included)."""
    time: float | None = None
    """Seconds since the epoch of the time written in the record, read as if it
    were UTC (see ``utc``)."""
    utc: bool = False
    """Whether the record's time is known to be UTC (it carried its offset);
    otherwise it is the host's local time, whatever zone that is."""
    yearless: bool = False
    """The time came from a syslog header, which has no year: it is read in the
    year 2000, and the join compares it within the year of the client's."""
    pid: int | None = None
    host: str = ""
    request_id: str = ""
    global_request_id: str = ""
    user: str = ""
    project: str = ""
    exception: str = ""
    """The exception's class as logged (``oslo_db.exception.DBConnectionError``)."""
    exception_message: str = ""
    frames: list[str] = field(default_factory=list)
    """``path:line in function`` of each traceback frame, outermost first."""
    method: str = ""
    """For an access line (uWSGI, HAProxy, a WSGI server's): the request's method..."""
    path: str = ""
    """...its path..."""
    status: int | None = None
    """...and the status it was answered."""
    more: list[str] = field(default_factory=list)
    """Further lines of a multi-line message (not the traceback), a few."""

    @property
    def exception_short(self) -> str:
        """The exception's class without its module (``DBConnectionError``)."""
        return self.exception.rpartition(".")[2]

    @property
    def exception_line(self) -> str:
        """``Type: message`` as the traceback's last line says it, or ""."""
        if not self.exception:
            return ""
        if not self.exception_message:
            return self.exception
        return f"{self.exception}: {self.exception_message}"

    @property
    def innermost_frame(self) -> str:
        return self.frames[-1] if self.frames else ""

    @property
    def where(self) -> str:
        """``nova-api.log:123``, or ``line 123`` for a record of the input itself."""
        if not self.source:
            return f"line {self.line}"
        return f"{self.source.rpartition('/')[2]}:{self.line}"
