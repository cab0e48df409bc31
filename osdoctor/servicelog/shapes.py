"""The shapes of a service log's lines, one line at a time.

A line is read in two steps: what a collector put before it (a journald or
syslog header, rsyslog's ISO time, a container runtime's ``stderr F``, an
Apache ``[wsgi:error]`` prefix, a grep's ``file.log:``), then what the service
wrote: oslo.log's text format (time, pid, level, logger, the ``[...]`` request
context; or level first, as devstack and many pastes have it), a JSON record,
uWSGI's and HAProxy's own lines, nginx's error log. ``split`` gives the
inner text and what the prefixes said; ``head`` whether that text starts a
record (None for a traceback's or a message's next line).

The formats come from the programs themselves: oslo.log's
``logging_context_format_string`` (``[%(global_request_id)s %(request_id)s
%(user_identity)s]``), its ``logging_exception_prefix`` (no context: the
traceback's lines), the older ``TRACE`` prefix and five-field identity; the
fixtures under ``tests/fixtures/servicelogs`` are written by the real
formatter (``osdoctor.lab.servicelogs``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from osdoctor import regex
from osdoctor.parse.prefixes import SERVER_LOGGERS
from osdoctor.servicelog.record import Level, RecordFormat
from osdoctor.servicelog.service_names import FAMILIES

_LEVEL_WORDS = r"DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|TRACE|AUDIT|FATAL"
_LEVELS: dict[str, Level] = {
    "DEBUG": "DEBUG",
    "INFO": "INFO",
    "AUDIT": "INFO",
    "NOTICE": "INFO",
    "WARNING": "WARNING",
    "WARN": "WARNING",
    "ERROR": "ERROR",
    "ERR": "ERROR",
    "TRACE": "ERROR",
    "CRITICAL": "CRITICAL",
    "CRIT": "CRITICAL",
    "FATAL": "CRITICAL",
    "ALERT": "CRITICAL",
    "EMERG": "CRITICAL",
}
_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}
_MONTH = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_ISO = r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)?"

# -- what a collector puts before the service's text ---------------------------
_SYSLOG = regex.compile(
    _MONTH + r" +(\d{1,2}) (\d\d):(\d\d):(\d\d)(?:\.\d+)? (\S+) ([^\s\[:]+)(?:\[(\d+)\])?: ?(.*)"
)
_ISO_WRAP = regex.compile(_ISO + r" (\S+) ([^\s\[:]+)(?:\[(\d+)\])?: ?(.*)")
_CRI = regex.compile(_ISO + r" (?:stdout|stderr) [FP] (.*)")
_APACHE = regex.compile(
    r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) "
    + _MONTH
    + r" +(\d{1,2}) (\d\d):(\d\d):(\d\d)(?:\.\d+)? (\d{4})\] \[([\w:]*)\]"
    r"(?: \[pid (\d+)(?::tid \d+)?\])?(?: \[(?:remote|client) [^\]]*\])? ?(.*)"
)
_GREP = regex.compile(r"(?:[\w./\-]*/)?([\w.\-]+\.log(?:\.\d+)?):(?:\d+:)?(?=\S)")
#: ``grep -n`` over one file: the line number (``-`` on a context line) before an
#: ISO time.
_GREP_LINE = regex.compile(r"\d+[:-](?=\d{4}-\d\d-\d\d[ T]\d\d:)")
_ANSI = regex.compile(r"\x1b\[[0-9;]*m")

# -- what the service wrote ------------------------------------------------------
_OSLO = regex.compile(_ISO + r" (\d+) (" + _LEVEL_WORDS + r") ([\w.\-]+)(?: (.*))?")
_LEVEL_FIRST = regex.compile(r"(" + _LEVEL_WORDS + r") ([a-z_][\w.\-]*)(?: (.*))?")
#: The services' format before oslo.log (Essex to Grizzly, 2012-2013):
#: ``%(asctime)s %(levelname)8s [%(name)s] %(message)s``, no pid, the level padded.
_LEGACY = regex.compile(
    r"(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) +("
    + _LEVEL_WORDS
    + r") \[([a-z_][\w.\-]*)\] ?(.*)"
)
_NGINX = regex.compile(
    r"(\d{4})/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d) \[(\w+)\] (\d+)#\d+: (?:\*\d+ )?(.*)"
)
_UWSGI_REQUEST = regex.compile(
    r"\[pid: (\d+)\|app: -?\d+\|req: -?\d+/\d+\] \S+ \([^)]*\) \{[^}]*\} "
    r"\[\w{3} " + _MONTH + r" +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})\] "
    r"([A-Z]+) (\S+) => generated \d+ bytes in \d+ msecs \(HTTP/[\d.]+ (\d{3})\)"
)
#: uWSGI's own words for a worker that cannot serve: errors whatever their context.
_UWSGI_ERRORS = (
    "unable to load app ",
    "*** no app loaded",
    "--- no python application found",
    "!!! uWSGI process ",
    "DAMN ! worker ",
    "*** uWSGI listen queue of socket ",
    "invalid request block size",
    "uwsgi_response_",
)
_UWSGI_INFO = ("*** Starting uWSGI", "spawned uWSGI ", "*** Operational MODE", "WSGI app 0 ")
_HAPROXY_HTTP = regex.compile(
    r"\S+:\d+ \[(\d\d)/" + _MONTH + r"/(\d{4}):(\d\d):(\d\d):(\d\d)(?:\.\d+)?\] "
    r"(\S+) ([^/\s]+)/(\S+) -?\d+/-?\d+/-?\d+/-?\d+/\+?-?\d+ (-?\d{3}) \+?\d+ \S+ \S+ "
    r"([\w-]{4})\S* \S+ \S+(?: \{([^}]*)\})?(?: \{[^}]*\})? \"([A-Z]+) (\S+)"
)
_HAPROXY_EVENT = regex.compile(
    r"(?:\[\w+\] \(\d+\) : )?(?:Server (?P<down>\S+?/\S+) is DOWN|"
    r"(?:backend|proxy) (?P<none>\S+) has no server available!|Server (?P<up>\S+?/\S+) is UP)"
)
_REQUEST_ID = regex.compile(r"\breq-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_BARE_UUID = regex.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_INSTANCE = regex.compile(r"\[instance: [0-9a-f-]{36}\] ")
#: What oslo.log writes after a DEBUG record's message: its
#: ``logging_debug_format_suffix``, ``%(funcName)s %(pathname)s:%(lineno)d`` by
#: default, devstack's ``{{(pid=%(process)d) ...}}`` (``from (pid=...) ...``
#: before 2017).
_DEBUG_SUFFIX = regex.compile(
    r" (?:\{\{\(pid=\d+\) [\w<>]+ \S+\.py:\d+\}\}|(?:from \(pid=\d+\) )?[\w<>]+ /\S+\.py:\d+)$"
)

#: First words of the loggers whose level-first lines (``ERROR nova.api.openstack
#: [...] ...``) are a service's: the services, and the libraries they log through.
SERVICE_LOGGERS = frozenset({*FAMILIES, *SERVER_LOGGERS, "stevedore", "libvirt", "taskflow"})


def _days(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a date (the civil-calendar formula, no datetime)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def epoch(
    year: int, month: int, day: int, hour: int, minute: int, second: int, frac: str = ""
) -> float:
    """Seconds since the epoch of a wall-clock time read as UTC."""
    seconds = _days(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return seconds + (float("0." + frac) if frac else 0.0)


def _offset(tz: str | None) -> int | None:
    """Seconds east of UTC of ``Z``, ``+0200`` or ``-05:00``; None when absent."""
    if not tz:
        return None
    if tz == "Z":
        return 0
    sign = -1 if tz[0] == "-" else 1
    digits = tz[1:].replace(":", "")
    return sign * (int(digits[:2]) * 3600 + int(digits[2:4] or 0) * 60)


@dataclass(slots=True)
class Stamp:
    """A time a line carries: seconds read as UTC, whether it was UTC indeed, and
    whether it had a year (syslog's has none: the join supplies one)."""

    time: float
    utc: bool = False
    yearless: bool = False


def _iso_stamp(g: tuple[str | Any, ...]) -> Stamp:
    y, mo, d, h, mi, s, frac, tz = g
    t = epoch(int(y), int(mo), int(d), int(h), int(mi), int(s), frac or "")
    off = _offset(tz)
    return Stamp(t - off, True) if off is not None else Stamp(t)


@dataclass(slots=True)
class Head:
    """The start of a record: what its first line says."""

    format: RecordFormat
    level: Level
    logger: str
    message: str
    stamp: Stamp | None = None
    pid: int | None = None
    context: str | None = None
    """The ``[...]`` of oslo.log's context format, None when the line has none
    (an exception's traceback lines, the default format's records have ``[-]``)."""
    trace: bool = False
    """A ``TRACE`` line: part of the traceback of the ERROR before it."""
    method: str = ""
    path: str = ""
    status: int | None = None
    request_id: str = ""
    global_request_id: str = ""
    user: str = ""
    project: str = ""
    exception: str = ""
    exception_message: str = ""
    frames: tuple[str, ...] = ()
    more: tuple[str, ...] = ()
    service: str = ""
    """The service the line names itself (HAProxy's backend), when it does."""


@dataclass(slots=True)
class Line:
    """One line: its inner text, what its prefixes said, and its head if it starts
    a record."""

    text: str
    head: Head | None
    stamp: Stamp | None = None
    host: str = ""
    program: str = ""
    pid: int | None = None
    apache: bool = False


def unwrap(text: str) -> Line:
    """Take a collector's prefixes off ``text`` (several may stack: a grep over
    syslog files), keeping what they said."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    line = Line(text, None)
    for _round in range(3):
        first = text[:1]
        if first == "[":
            m = _APACHE.match(text)
            if m is None:
                break
            mon, d, h, mi, s, y, _module, pid, rest = m.groups()
            line.stamp = line.stamp or Stamp(
                epoch(int(y), _MONTHS[mon], int(d), int(h), int(mi), int(s))
            )
            line.pid = int(pid) if pid else line.pid
            line.program = line.program or "httpd"
            line.apache = True
            text = rest
            continue
        if first in "JFMASOND":
            m = _SYSLOG.match(text)
            if m is None:
                break
            mon, d, h, mi, s, host, program, pid, rest = m.groups()
            line.stamp = line.stamp or Stamp(
                epoch(2000, _MONTHS[mon], int(d), int(h), int(mi), int(s)), yearless=True
            )
            line.host, line.program = host, program
            line.pid = int(pid) if pid else line.pid
            text = rest
            continue
        if first.isdigit():
            if _OSLO.match(text) or _NGINX.match(text) or _LEGACY.match(text):
                break
            m = _GREP_LINE.match(text)
            if m is not None:
                text = text[m.end() :]
                continue
            m = _CRI.match(text)
            if m is not None:
                line.stamp = line.stamp or _iso_stamp(m.groups()[:8])
                text = m.group(9)
                continue
            m = _ISO_WRAP.match(text)
            if m is None:
                break
            g = m.groups()
            line.stamp = line.stamp or _iso_stamp(g[:8])
            line.host, line.program = g[8], g[9]
            line.pid = int(g[10]) if g[10] else line.pid
            text = g[11]
            continue
        m = _GREP.match(text)
        if m is None:
            break
        line.program = line.program or m.group(1)
        text = text[m.end() :]
    line.text = text
    return line


def read(text: str) -> Line:
    """``text`` unwrapped, with the head of the record it starts, if any."""
    line = unwrap(text)
    line.head = head(line.text, line)
    return line


def head(text: str, line: Line | None = None) -> Head | None:
    """The head of the record ``text`` starts, or None (a next line, or not a
    service's line at all)."""
    if not text:
        return None
    first = text[0]
    if first.isdigit():
        m = _OSLO.match(text)
        if m is not None:
            g = m.groups()
            return _oslo_head(_iso_stamp(g[:8]), int(g[8]), g[9], g[10], g[11] or "")
        m = _LEGACY.match(text)
        if m is not None:
            y, mo, d, h, mi, s, level_word, logger, rest = m.groups()
            stamp = Stamp(epoch(int(y), int(mo), int(d), int(h), int(mi), int(s)))
            return _oslo_head(stamp, None, level_word, logger, rest)
        m = _NGINX.match(text)
        if m is not None:
            y, mo, d, h, mi, s, level, pid, message = m.groups()
            stamp = Stamp(epoch(int(y), int(mo), int(d), int(h), int(mi), int(s)))
            return Head(
                "nginx",
                _LEVELS.get(level.upper(), "ERROR"),
                "nginx",
                message,
                stamp,
                int(pid),
                method=_quoted_request(message)[0],
                path=_quoted_request(message)[1],
            )
        m = _HAPROXY_HTTP.match(text)
        if m is not None:
            return _haproxy_head(m)
    if first == "{":
        return _json_head(text)
    if first in "DIWECTAF":
        m = _LEVEL_FIRST.match(text)
        if m is not None and m.group(2).partition(".")[0] in SERVICE_LOGGERS:
            return _oslo_head(None, None, m.group(1), m.group(2), m.group(3) or "")
    if first == "[" and text.startswith("[pid: "):
        m = _UWSGI_REQUEST.match(text)
        if m is not None:
            pid, mon, d, h, mi, s, y, method, path, status = m.groups()
            code = int(status)
            return Head(
                "uwsgi",
                "ERROR" if code >= 500 else "WARNING" if code >= 400 else "INFO",
                "uwsgi",
                text,
                Stamp(epoch(int(y), _MONTHS[mon], int(d), int(h), int(mi), int(s))),
                int(pid),
                method=method,
                path=path,
                status=code,
            )
    if text.startswith(_UWSGI_ERRORS):
        return Head("uwsgi", "ERROR", "uwsgi", text)
    if text.startswith(_UWSGI_INFO):
        return Head("uwsgi", "INFO", "uwsgi", text)
    if line is not None and line.program.startswith("haproxy") or "server available" in text:
        m = _HAPROXY_EVENT.match(text)
        if m is not None:
            named = (m.group("down") or m.group("up") or "").partition("/")[0] or m.group("none")
            return Head(
                "haproxy",
                "INFO" if m.group("up") else "ERROR",
                "haproxy",
                text,
                service=_backend_service(named or ""),
            )
    if first == "m" and text.startswith("mod_wsgi (pid="):
        return Head("apache", "ERROR", "mod_wsgi", text)
    if first == "T" and text.startswith("Traceback (most recent call last)"):
        return Head("python", "ERROR", "", text)
    if first == "T" and text.startswith("Target WSGI script "):
        return Head("apache", "ERROR", "mod_wsgi", text)
    return None


def _oslo_head(
    stamp: Stamp | None, pid: int | None, level_word: str, logger: str, rest: str
) -> Head:
    trace = level_word == "TRACE"
    found = Head("oslo", _LEVELS[level_word], logger, rest, stamp, pid, trace=trace)
    if rest.startswith("["):
        close = rest.find("]")
        if close > 0:
            inside = rest[1:close]
            if inside == "-" or "req-" in inside or inside.startswith("None"):
                found.context = inside
                found.message = rest[close + 1 :].lstrip(" ")
                _read_context(found, inside)
    if found.message.startswith("[instance: "):
        found.message = _INSTANCE.sub("", found.message, count=1)
    if found.level == "DEBUG":
        found.message = _DEBUG_SUFFIX.sub("", found.message, count=1)
    return found


def _read_context(found: Head, inside: str) -> None:
    """``[global local user project ...]``, ``[None local ...]`` or the older
    ``[local user project - - -]``: which request, whose."""
    words = inside.split()
    ids = [i for i, w in enumerate(words) if _REQUEST_ID.fullmatch(w)]
    if not ids:
        return
    local = ids[1] if len(ids) > 1 and ids[1] == ids[0] + 1 else ids[0]
    found.request_id = words[local]
    if local > 0 and _REQUEST_ID.fullmatch(words[local - 1]):
        found.global_request_id = words[local - 1]
    who = [w for w in words[local + 1 :] if w not in ("-", "None")]
    if who:
        found.user = who[0]
    if len(who) > 1:
        found.project = who[1]


def _quoted_request(message: str) -> tuple[str, str]:
    at = message.find('request: "')
    if at < 0:
        return "", ""
    method, _, rest = message[at + 10 :].partition(" ")
    return method, rest.partition(" ")[0]


def _haproxy_head(m: Any) -> Head:
    d, mon, y, h, mi, s, frontend, backend, server, status, state, captured = m.groups()[:12]
    method, path = m.group(13), m.group(14)
    code = int(status)
    failed = code >= 500 or code < 0 or state[:1] in "sS" or server == "<NOSRV>"
    found = Head(
        "haproxy",
        "ERROR" if failed else "WARNING" if code >= 400 else "INFO",
        "haproxy",
        f"{frontend} {backend}/{server} {status} {state} {method} {path}",
        Stamp(epoch(int(y), _MONTHS[mon], int(d), int(h), int(mi), int(s))),
        method=method,
        path=path,
        status=code,
        service=_backend_service(backend),
    )
    if captured:
        rid = _REQUEST_ID.search(captured)
        if rid:
            found.request_id = rid.group(0)
    return found


def _backend_service(backend: str) -> str:
    """The service an HAProxy backend is named after (kolla's ``nova_api``,
    ``keystone_internal``, ``neutron_server``): its family at least."""
    head = backend.replace("-", "_").partition("_")[0]
    return head if head in FAMILIES else ""


def _json_head(text: str) -> Head | None:
    """oslo.log's JSONFormatter record, or kolla's fluentd one (``Payload``,
    ``log_level``, ``python_module``, ``programname``)."""
    if '"levelname"' not in text and '"log_level"' not in text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if "levelname" in data:
        return _oslo_json(data)
    return _kolla_json(data)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _oslo_json(data: dict[str, Any]) -> Head:
    context = data.get("context") if isinstance(data.get("context"), dict) else {}
    assert isinstance(context, dict)
    message = _text(data.get("message"))
    found = Head(
        "json",
        _LEVELS.get(_text(data.get("levelname")).upper(), "INFO"),
        _text(data.get("name")),
        message.partition("\n")[0],
        _json_stamp(data),
        data.get("process") if isinstance(data.get("process"), int) else None,
        request_id=_text(context.get("request_id")),
        global_request_id=_text(context.get("global_request_id")),
        user=_text(context.get("user") or context.get("user_id")),
        project=_text(context.get("project") or context.get("project_id")),
        more=tuple(message.split("\n")[1:6]),
    )
    traceback = data.get("traceback")
    lines = traceback.split("\n") if isinstance(traceback, str) else traceback
    if isinstance(lines, list):
        found.frames, found.exception, found.exception_message = traceback_of(
            [_text(x) for x in lines]
        )
    if not found.exception:
        found.exception, found.exception_message = exception_of(_text(data.get("error_summary")))
    return found


def _json_stamp(data: dict[str, Any]) -> Stamp | None:
    created = data.get("created")
    if isinstance(created, int | float):
        return Stamp(float(created), True)
    return None


def _kolla_json(data: dict[str, Any]) -> Head:
    payload = _text(data.get("Payload"))
    request_id = _text(data.get("request_id"))
    if _BARE_UUID.match(request_id):
        request_id = "req-" + request_id
    global_id = _text(data.get("global_id") or data.get("global_request_id"))
    if _BARE_UUID.match(global_id):
        global_id = "req-" + global_id
    stamp = None
    when = _text(data.get("Timestamp"))
    if when:
        m = regex.compile(_ISO).match(when)
        if m is not None:
            stamp = _iso_stamp(m.groups())
    pid = data.get("Pid")
    found = Head(
        "json",
        _LEVELS.get(_text(data.get("log_level")).upper(), "INFO"),
        _text(data.get("python_module")) or _text(data.get("programname")),
        payload.partition("\n")[0],
        stamp,
        int(pid) if isinstance(pid, int | str) and str(pid).isdigit() else None,
        request_id=request_id,
        global_request_id=global_id,
        user=_text(data.get("user_id")),
        project=_text(data.get("tenant_id") or data.get("project_id")),
    )
    if "\n" in payload:
        found.frames, found.exception, found.exception_message = traceback_of(payload.split("\n"))
    return found


# -- tracebacks and exception lines ---------------------------------------------
_FRAME = regex.compile(r'\s*File "([^"]+)", line (\d+), in (\S+)')
_EXCEPTION_LINE = regex.compile(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Failure|Fault|Timeout|Refused|"
    r"NotFound|Invalid\w*|Unauthorized|Forbidden|Unavailable|Exit|Interrupt|Warning|NotReady|"
    r"Found|Conflict|Exists|Denied|Full|Failed|Lost|Broken))(?::\s?(?P<message>.*))?$"
)
_DOTTED_EXCEPTION = regex.compile(
    r"^(?P<type>(?:[a-z_]\w*\.)+[A-Z]\w*(?:_Remote)?)(?::\s?(?P<message>.*))?$"
)
_SUMMARY = regex.compile(
    r"(?:^|: )(?P<type>(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Failure|Timeout|Refused|"
    r"NotFound|Unauthorized|Unavailable|NotRegistered|_Remote)): (?P<message>.*)$"
)


def exception_of(text: str) -> tuple[str, str]:
    """``(type, message)`` of a traceback's last line (``KeyError: 'x'``,
    ``oslo_db.exception.DBConnectionError: (...)``), or two empty strings."""
    text = text.strip()
    m = _EXCEPTION_LINE.match(text) or _DOTTED_EXCEPTION.match(text)
    if m is None:
        return "", ""
    return m.group("type"), (m.group("message") or "").strip()


def summary_exception(message: str) -> tuple[str, str]:
    """The ``: Type: message`` oslo.log appends to an ERROR's message (its
    ``error_summary``), or two empty strings."""
    m = _SUMMARY.search(message)
    if m is None:
        return "", ""
    return m.group("type"), m.group("message").strip()


def frame_of(text: str) -> str | None:
    """``path:line in function`` of a traceback's ``File "..."`` line."""
    m = _FRAME.match(text)
    if m is None:
        return None
    return f"{m.group(1)}:{m.group(2)} in {m.group(3)}"


def traceback_of(lines: list[str]) -> tuple[tuple[str, ...], str, str]:
    """Frames, exception type and message of a traceback's lines (the last
    exception of a chain)."""
    frames: list[str] = []
    exc_type = exc_message = ""
    for text in lines:
        frame = frame_of(text)
        if frame is not None:
            frames.append(frame)
            continue
        if text[:1] in " \t" or not text:
            continue
        found, words = exception_of(text)
        if found:
            exc_type, exc_message = found, words
    return tuple(frames), exc_type, exc_message
