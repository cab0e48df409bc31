"""Stripping what other tools put before a client's own log text.

The same debug line reaches us bare (``openstack --debug 2>&1``), behind a
``--log-file`` timestamp, a pid and a logger name, behind a journald or syslog
header, behind ``> `` quote marks of a ticket, behind Python's default
``DEBUG:keystoneauth.session:`` or older clients' ``DEBUG (session:375)``, or
inside an osdoctor session file, behind devstack's or Zuul's console timestamp
(``2015-05-21 04:29:24.147 | ``). The parser only wants the text, plus the time
and stream when a prefix carries them.
"""

from __future__ import annotations

from dataclasses import dataclass

from osdoctor import regex
from osdoctor.run.sessionfile import DATA_LINE, is_session, meta_record

_LEVELS = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|TRACE)"

# osc-lib --log-file: "2026-11-30 02:00:58.123 12345 DEBUG keystoneauth.session [c u p] msg";
# the standalone baremetal shell on stderr: "2026-11-30 02:00:58,123 DEBUG: ironicclient.shell msg"
_LOGFILE = regex.compile(
    r"(\d{4}-\d\d-\d\d)[ T](\d\d):(\d\d):(\d\d(?:[.,]\d+)?)(?:[+-]\d\d:?\d\d|Z)? "
    r"(?:(\d+) )?" + _LEVELS + r":? +([\w.\-]+)(?: \[[^\]]*\])? ?(.*)"
)
# cliff --log-file: "[2026-11-30 02:00:58,123] DEBUG    name msg"
_CLIFF = regex.compile(
    r"\[(\d{4}-\d\d-\d\d) (\d\d):(\d\d):(\d\d(?:[.,]\d+)?)\] " + _LEVELS + r" +([\w.\-]+) (.*)"
)
# Older console format: "DEBUG (session:375) msg", the heat shell's "DEBUG (session) msg";
# logging default: "DEBUG:name:msg"; neutronclient's documented "DEBUG: name msg".
_LEVEL_PAREN = regex.compile(_LEVELS + r" \([a-z_][\w.\-]*(?::\d+)?\) ?(.*)")
_LEVEL_COLON = regex.compile(_LEVELS + r":[\w.\-]+:(.*)")
# The same behind a timestamp (a CI harness such as teuthology):
# "2020-06-29T17:26:23.402 INFO:teuthology.orchestra.run.smithi039.stderr:msg".
_STAMPED_LEVEL_COLON = regex.compile(
    r"(\d{4}-\d\d-\d\d)[ T](\d\d):(\d\d):(\d\d(?:[.,]\d+)?) " + _LEVELS + r":[\w.\-]+:(.*)"
)
_LEVEL_COLON_SPACE = regex.compile(_LEVELS + r": ([a-z_][\w]*(?:\.[\w]+)+) (.*)")
# grep over service logs: "/var/log/nova/nova-api.log:2022-03-22 19:19:10.936 533 ERROR ..."
_GREP_FILE = regex.compile(r"/[\w./\-]+?\.log(?:\.\d+)?:(?=\d{4}-)")
#: First words of the loggers of OpenStack services (oslo.log), which write the
#: lines a user pastes beside the client's output; the clients' own loggers are
#: keystoneauth, osc_lib, openstackclient, cliff, urllib3, ``*client``...
SERVER_LOGGERS = frozenset(
    {
        "nova",
        "neutron",
        "cinder",
        "keystone",
        "glance",
        "heat",
        "ironic",
        "placement",
        "barbican",
        "octavia",
        "designate",
        "manila",
        "swift",
        "aodh",
        "gnocchi",
        "magnum",
        "trove",
        "sahara",
        "senlin",
        "zaqar",
        "watcher",
        "mistral",
        "masakari",
        "cyborg",
        "zun",
        "tacker",
        "vitrage",
        "cloudkitty",
        "blazar",
        "freezer",
        "murano",
        "panko",
        "ceilometer",
        "sysinv",
        "oslo",
        "oslo_service",
        "oslo_messaging",
        "oslo_db",
        "oslo_policy",
        "oslo_concurrency",
        "keystonemiddleware",
        "neutron_lib",
        "os_brick",
        "os_vif",
        "ovsdbapp",
        "sqlalchemy",
        "eventlet",
        "amqp",
        "kombu",
        "routes",
        "wsgi",
        "ironic_inspector",
        "ironic_python_agent",
        "nova_compute",
    }
)
# syslog: "Nov 30 02:00:58 host openstack[123]: msg"
_SYSLOG = regex.compile(
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d (\d\d):(\d\d):(\d\d) "
    r"\S+ [\w./\-]+(?:\[\d+\])?: ?(.*)"
)
# journald short-iso: "2026-11-30T02:00:58+0000 host openstack[123]: msg"
_JOURNAL_ISO = regex.compile(
    r"(\d{4}-\d\d-\d\d)T(\d\d):(\d\d):(\d\d(?:[.,]\d+)?)\S* \S+ [\w./\-]+(?:\[\d+\])?: ?(.*)"
)
_QUOTE = regex.compile(r"(?:> ?)+")
# A script's own logging format around the client's records, decorated on both
# sides: "===========My:DEBUG:REQ: curl ...=========".
_DECORATED = regex.compile(
    r"(?P<deco>[=*#~]{3,})[\w.\-]*:?(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL):(?P<text>.*?)"
    r"(?:[=*#~]{3,})?\s*$"
)
# devstack's console log and Zuul's job-output.txt: "2015-05-21 04:29:24.147 | text",
# "2024-01-30 12:00:00.123456 | controller | text" (the host of a multi-node job).
_CONSOLE = regex.compile(
    r"(\d{4}-\d\d-\d\d) (\d\d):(\d\d):(\d\d(?:\.\d+)?) \| (?:[\w.\-]+ \| )?(.*)"
)


@dataclass(slots=True)
class Stripped:
    text: str
    time: float | None = None
    stream: int | None = None
    meta: tuple[str, str] | None = None
    """A session metadata record (key, value), e.g. ("exit", "1 12.345")."""
    server: str | None = None
    """The message of a service's own log record (oslo.log: nova.api...,
    keystone...) pasted next to the client's output, whose whole line is then
    ``text``: not the client's words."""


class PrefixStripper:
    """Remembers the first timestamp so that times become offsets from the start."""

    def __init__(self) -> None:
        self.origin: float | None = None
        self.formats: set[str] = set()
        self._days: dict[str, int] = {}

    def _offset(self, date: str | None, h: str, m: str, s: str) -> float:
        day = 0
        if date is not None:
            ordinal = self._days.get(date)
            if ordinal is None:
                import datetime as _dt  # only logs with dates need it

                try:
                    ordinal = _dt.date.fromisoformat(date).toordinal()
                except ValueError:
                    ordinal = 0
                self._days[date] = ordinal
            day = ordinal
        seconds = day * 86400 + int(h) * 3600 + int(m) * 60 + float(s.replace(",", "."))
        if self.origin is None:
            self.origin = seconds
        return round(seconds - self.origin, 3)

    def strip(self, text: str) -> Stripped:
        if not text:
            return Stripped(text)
        first = text[0]
        if first == ">":
            quoted = _QUOTE.match(text)
            if quoted:
                self.formats.add("quoted")
                text = text[quoted.end() :]
                if not text:
                    return Stripped(text)
                first = text[0]
        if first == "/":
            grep = _GREP_FILE.match(text)
            if grep:
                text = text[grep.end() :]
                first = text[0]
        if first.isdigit():
            m = DATA_LINE.match(text)
            if m:
                self.formats.add("session")
                return Stripped(m.group(3) or "", float(m.group(1)), int(m.group(2)))
            m = _LOGFILE.match(text)
            if m:
                if _is_server_logger(m.group(6)):
                    self.formats.add("server-log")
                    return Stripped(text, server=m.group(7))
                self.formats.add("log-file")
                return Stripped(m.group(7), self._offset(m.group(1), *m.group(2, 3, 4)))
            m = _JOURNAL_ISO.match(text)
            if m:
                self.formats.add("journal")
                return Stripped(m.group(5), self._offset(m.group(1), *m.group(2, 3, 4)))
            m = _CONSOLE.match(text) or _STAMPED_LEVEL_COLON.match(text)
            if m:
                self.formats.add("console")
                return Stripped(m.group(5), self._offset(m.group(1), *m.group(2, 3, 4)))
        elif first == "#":
            if is_session(text) or self.formats & {"session"}:
                meta = meta_record(text)
                if meta is not None:
                    self.formats.add("session")
                    return Stripped("", meta=meta)
        elif first in "=*~" and len(text) > 4 and text[1] == first:
            m = _DECORATED.match(text)
            if m:
                self.formats.add("level-prefix")
                return Stripped(m.group("text"))
        elif first == "[":
            m = _CLIFF.match(text)
            if m:
                self.formats.add("log-file")
                return Stripped(m.group(6), self._offset(m.group(1), *m.group(2, 3, 4)))
        else:
            if first in "DIWECT":
                m = _LEVEL_PAREN.match(text) or _LEVEL_COLON.match(text)
                if m:
                    self.formats.add("level-prefix")
                    return Stripped(m.group(1))
                m = _LEVEL_COLON_SPACE.match(text)
                if m:
                    self.formats.add("level-prefix")
                    return Stripped(m.group(2))
            # Not elif: "Dec" starts like "DEBUG".
            if first in "JFMASOND":
                m = _SYSLOG.match(text)
                if m:
                    self.formats.add("syslog")
                    return Stripped(m.group(4), self._offset(None, *m.group(1, 2, 3)))
        return Stripped(text)


def _is_server_logger(name: str) -> bool:
    head = name.partition(".")[0].lower()
    return head in SERVER_LOGGERS or head.startswith("oslo")
