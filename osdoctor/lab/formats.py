"""The service log fixtures of every shape osdoctor reads, written by the real
oslo.log formatter: ``python -m osdoctor.lab service-logs`` regenerates
``tests/fixtures/servicelogs/``.

Each file holds the same few records (a request's INFO, a record without
context, a message of two lines, an ERROR with its traceback) as one
deployment writes them: oslo.log's default formats, the older ``TRACE``
prefix and five-field identity, devstack's format in journald, syslog's
header, oslo.log's JSONFormatter and the fields kolla's fluentd makes of a
record, keystone's stderr in Apache's error log behind mod_wsgi's prefix,
uWSGI's own words, HAProxy's log. What oslo.log does not write (a journald
or Apache prefix, uWSGI's and HAProxy's lines) follows those programs' own
formats. Times, pids and ids are fixed, so the files come out the same every
time; the secrets are the lab's fake ones.
"""

from __future__ import annotations

import json
import logging
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_log import formatters
from oslo_log import log as oslo_log

from osdoctor.lab import fakes
from osdoctor.lab.logspec import Raised
from osdoctor.lab.servicelogs import BASE, SITE, raised

OUT_DIR = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "servicelogs"
#: The request the records are about, and the call it made to another service.
REQUEST_ID = "req-3a1b2c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d"
GLOBAL_ID = "req-7f8e9d0c-1b2a-4c3d-8e4f-5a6b7c8d9e0f"
INSTANCE = "9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
PID = 2101
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
#: devstack's lib/stack settings for every service's logging.
DEVSTACK = {
    "logging_context_format_string": "%(color)s%(levelname)s %(name)s [%(global_request_id)s "
    "%(request_id)s %(project_name)s %(user_name)s%(color)s] %(instance)s%(color)s%(message)s",
    "logging_default_format_string": "%(color)s%(levelname)s %(name)s [-%(color)s] "
    "%(instance)s%(color)s%(message)s",
    "logging_exception_prefix": "ERROR %(name)s %(instance)s",
    "logging_debug_format_suffix": "",
}
#: oslo.log's defaults before the global request id (Newton and older).
LEGACY = {
    "logging_context_format_string": "%(asctime)s.%(msecs)03d %(process)d %(levelname)s "
    "%(name)s [%(request_id)s %(user_identity)s] %(instance)s%(message)s",
    "logging_exception_prefix": "%(asctime)s.%(msecs)03d %(process)d TRACE %(name)s %(instance)s",
    "logging_user_identity_format": "%(user)s %(project)s %(domain)s %(user_domain)s "
    "%(project_domain)s",
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One record, before a format writes it."""

    logger: str
    level: str
    message: str
    at: float
    context: str = "request"
    """``request``, ``global`` (a call made for the request), ``none``."""
    exception: Raised | None = None
    instance: str | None = None


#: The records every format writes: nova-api failing a request on its database.
ENTRIES = (
    Entry(
        "nova.api.openstack.requestlog",
        "INFO",
        '10.0.0.9 "GET /compute/v2.1/servers/detail" status: 200 len: 15 microversion: 2.1 '
        "time: 0.031234",
        0.010,
    ),
    Entry(
        "oslo_db.sqlalchemy.engines",
        "WARNING",
        "SQL connection failed. 10 attempts left.",
        0.4,
        "none",
    ),
    Entry(
        "nova.compute.api",
        "WARNING",
        "Instance is in an unexpected state\nvm_state: error, task_state: deleting",
        0.45,
        instance=INSTANCE,
    ),
    Entry(
        "nova.api.openstack.wsgi",
        "ERROR",
        "Unexpected exception in API method",
        0.5,
        exception=Raised(
            "oslo_db.exception.DBConnectionError",
            "(pymysql.err.OperationalError) (2003, \"Can't connect to MySQL server on '10.0.0.5' "
            '([Errno 111] Connection refused)")',
            (
                "nova/api/openstack/wsgi.py:658:wrapped",
                "nova/api/openstack/compute/servers.py:143:detail",
                "nova/compute/api.py:2957:get_all",
                "oslo_db/sqlalchemy/engines.py:186:_connect",
            ),
        ),
    ),
    Entry(
        "nova.api.openstack.requestlog",
        "INFO",
        '10.0.0.9 "GET /compute/v2.1/servers/detail" status: 500 len: 210 microversion: 2.1 '
        "time: 0.523456",
        0.52,
    ),
    Entry(
        "glance.api.v2.images",
        "ERROR",
        "Failed to show image: backend storage unavailable",
        0.3,
        "global",
    ),
)
#: Records holding secrets a service may log: a database URL in an error, a
#: transport URL, a token in Keystone's answer, a header, a configuration dump.
SECRET_ENTRIES = (
    Entry(
        "nova.api.openstack.wsgi",
        "ERROR",
        "Unexpected exception in API method",
        0.5,
        exception=Raised(
            "sqlalchemy.exc.ArgumentError",
            f"Could not parse SQLAlchemy URL from string "
            f"'mysql+pymysql://nova:{fakes.EXTRA_SECRET}@10.0.0.5/nova?charset=utf8 '",
            ("nova/api/openstack/wsgi.py:658:wrapped", "sqlalchemy/engine/url.py:902:make_url"),
        ),
    ),
    Entry(
        "oslo.messaging.transport",
        "ERROR",
        f"Invalid transport URL: rabbit://openstack:{fakes.SECOND_SECRET}@10.0.0.5:5672//",
        0.45,
    ),
    Entry(
        "keystonemiddleware.auth_token",
        "WARNING",
        'Identity response: {"error":{"code":404,"message":"Could not find token: '
        f'{fakes.TOKEN}.","title":"Not Found"}}',
        0.41,
    ),
    Entry(
        "keystoneauth.session",
        "DEBUG",
        'REQ: curl -g -i -X GET http://10.0.0.5:9696/v2.0/ports -H "Accept: application/json" '
        f'-H "X-Auth-Token: {fakes.TOKEN}"',
        0.42,
    ),
    Entry(
        "oslo_service.service",
        "DEBUG",
        f"keystone_authtoken.password      = {fakes.PASSPHRASE}",
        0.001,
        "none",
    ),
    Entry(
        "oslo_service.service",
        "DEBUG",
        f"database.connection             = mysql+pymysql://nova:{fakes.EXTRA_SECRET}@10.0.0.5/nova",
        0.002,
        "none",
    ),
)


def _config(overrides: dict[str, str] | None = None) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    oslo_log.register_options(conf)
    conf([], project="osdoctor-lab", default_config_files=[], default_config_dirs=[])
    for name, value in (overrides or {}).items():
        conf.set_override(name, value)
    return conf


def _context(entry: Entry) -> oslo_context.RequestContext | None:
    if entry.context == "none":
        return None
    request_id, global_id = (
        (GLOBAL_ID, REQUEST_ID) if entry.context == "global" else (REQUEST_ID, None)
    )
    return oslo_context.RequestContext(
        user_id=fakes.USER_ID,
        project_id=fakes.PROJECT_ID,
        user_name=fakes.USER_NAME,
        project_name=fakes.PROJECT_NAME,
        request_id=request_id,
        global_request_id=global_id,
        overwrite=False,
    )


def _record(entry: Entry) -> logging.LogRecord:
    exc_info = raised(entry.exception) if entry.exception is not None else None
    when = BASE + entry.at
    record = logging.LogRecord(
        entry.logger,
        logging.getLevelName(entry.level),
        f"{SITE}/{entry.logger.replace('.', '/')}.py",
        1,
        entry.message,
        None,
        exc_info,
    )
    record.created, record.msecs, record.relativeCreated = when, (when % 1) * 1000, 0.0
    record.process, record.thread = PID, 140000000002101
    record.context = _context(entry)
    if entry.instance is not None:
        record.instance_uuid = entry.instance
    return record


def _oslo(overrides: dict[str, str] | None = None) -> Callable[[logging.LogRecord], str]:
    conf = _config(overrides)
    formatter = formatters.ContextFormatter(config=conf, datefmt=conf.log_date_format)
    formatter.converter = time.gmtime
    return formatter.format


def _records(entries: tuple[Entry, ...]) -> Iterator[logging.LogRecord]:
    for entry in sorted(entries, key=lambda e: e.at):
        yield _record(entry)


def _lines(text: str) -> list[str]:
    return text.split("\n")


def oslo_text(entries: tuple[Entry, ...], overrides: dict[str, str] | None = None) -> str:
    fmt = _oslo(overrides)
    return "".join(fmt(record) + "\n" for record in _records(entries))


def _syslog_stamp(when: float, padded: bool) -> str:
    t = time.gmtime(when)
    day = f"{t.tm_mday:02d}" if padded else f"{t.tm_mday:>2}"
    return f"{_MONTHS[t.tm_mon - 1]} {day} {t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"


def _prefixed(
    entries: tuple[Entry, ...],
    overrides: dict[str, str] | None,
    prefix: Callable[[logging.LogRecord], str],
) -> str:
    """Each line of each record behind the prefix a collector puts before it."""
    fmt = _oslo(overrides)
    out = []
    for record in _records(entries):
        out += [prefix(record) + line for line in _lines(fmt(record))]
    return "\n".join(out) + "\n"


def journal(entries: tuple[Entry, ...]) -> str:
    """``journalctl -u devstack@n-api`` (short format) of devstack's nova-api."""
    return _prefixed(
        entries,
        DEVSTACK,
        lambda r: f"{_syslog_stamp(r.created, True)} devstack devstack@n-api.service[{PID}]: ",
    )


def syslog(entries: tuple[Entry, ...]) -> str:
    """rsyslog's traditional format of nova-api's records (use_syslog)."""
    return _prefixed(
        entries, None, lambda r: f"{_syslog_stamp(r.created, False)} controller nova-api[{PID}]: "
    )


def oslo_json(entries: tuple[Entry, ...]) -> str:
    formatter = formatters.JSONFormatter()
    return "".join(formatter.format(record) + "\n" for record in _records(entries))


def kolla(entries: tuple[Entry, ...]) -> str:
    """The documents kolla-ansible's fluentd makes of nova-api's records (its
    ``openstack_python`` parser), as an OpenSearch export gives them."""
    out = []
    for entry, record in zip(sorted(entries, key=lambda e: e.at), _records(entries), strict=True):
        context = _context(entry)
        payload = record.getMessage()
        if record.exc_info:
            payload += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        document: dict[str, Any] = {
            "Timestamp": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}",
            "Pid": PID,
            "log_level": entry.level,
            "python_module": record.name,
            "programname": "nova-api",
            "Hostname": "controller",
            "Payload": payload,
        }
        if context is not None:
            document["request_id"] = str(context.request_id).removeprefix("req-")
            if context.global_request_id:
                document["global_id"] = str(context.global_request_id).removeprefix("req-")
        out.append(json.dumps(document))
    return "\n".join(out) + "\n"


def apache(entries: tuple[Entry, ...]) -> str:
    """keystone under mod_wsgi with use_stderr: its records in Apache's error log,
    each line behind the prefix, and mod_wsgi's own report of an exception."""
    fmt = _oslo()
    out = []
    for record in _records(entries):
        t = time.gmtime(record.created)
        prefix = (
            f"[{_DAYS[t.tm_wday]} {_MONTHS[t.tm_mon - 1]} {t.tm_mday:02d} "
            f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}.{int(record.msecs) * 1000:06d} "
            f"{t.tm_year}] [wsgi:error] [pid {PID}:tid 140000000002101] [remote 10.0.0.9:51234] "
        )
        out += [prefix + line for line in _lines(fmt(record))]
    info = raised(
        Raised(
            "TypeError",
            "'LimitedLengthFile' object is not iterable",
            ("keystone/common/wsgi.py:318:__call__",),
        )
    )
    prefix = "[Sun Nov 01 12:00:01.000000 2026] [wsgi:error] [pid 2101:tid 140000000002101] "
    out.append(
        prefix + "mod_wsgi (pid=2101): Exception occurred processing WSGI script "
        "'/usr/bin/keystone-wsgi-public'."
    )
    out += [prefix + line for line in "".join(traceback.format_exception(*info)).splitlines()]
    return "\n".join(out) + "\n"


def uwsgi() -> str:
    """keystone under uWSGI whose application failed to import, then one request."""
    info = raised(
        Raised(
            "ModuleNotFoundError",
            "No module named 'cgi'",
            ("keystone/server/wsgi.py:30:<module>", "webob/compat.py:5:<module>"),
        )
    )
    lines = [
        "*** Starting uWSGI 2.0.24 (64bit) on [Sun Nov  1 11:59:30 2026] ***",
        *"".join(traceback.format_exception(*info)).splitlines(),
        "unable to load app 0 (mountpoint='') (callable not found or import error)",
        "*** no app loaded. going in full dynamic mode ***",
        "--- no python application found, check your startup logs for errors ---",
        "[pid: 2101|app: -1|req: -1/1] 10.0.0.9 () {40 vars in 712 bytes} "
        "[Sun Nov  1 12:00:00 2026] POST /identity/v3/auth/tokens => generated 21 bytes in "
        "0 msecs (HTTP/1.1 500) 2 headers in 83 bytes (0 switches on core 0)",
    ]
    return "\n".join(lines) + "\n"


def haproxy() -> str:
    """HAProxy's log (syslog) of an API whose servers went down, as kolla names them."""
    stamp = _syslog_stamp(BASE, False)
    prefix = f"{stamp} controller haproxy[3011]: "
    return (
        "\n".join(
            prefix + line
            for line in (
                "10.0.0.9:40000 [01/Nov/2026:11:59:59.100] nova_api nova_api/controller "
                '0/0/0/31/31 200 1893 - - ---- 1/1/0/0/0 0/0 "GET /compute/v2.1/servers HTTP/1.1"',
                "Server nova_api/controller is DOWN, reason: Layer4 connection problem, info: "
                '"Connection refused", check duration: 0ms. 0 active and 0 backup servers left. '
                "0 sessions active, 0 requeued, 0 remaining in queue.",
                "backend nova_api has no server available!",
                "10.0.0.9:40002 [01/Nov/2026:12:00:00.003] nova_api nova_api/<NOSRV> 0/-1/-1/-1/0 "
                '503 217 - - SC-- 1/1/0/0/0 0/0 "GET /compute/v2.1/servers/detail HTTP/1.1"',
            )
        )
        + "\n"
    )


def files() -> dict[str, str]:
    """File name -> text of every fixture."""
    return {
        "oslo-default.log": oslo_text(ENTRIES),
        "oslo-legacy-trace.log": oslo_text(ENTRIES, LEGACY),
        "devstack-journal.log": journal(ENTRIES),
        "nova-api-syslog.log": syslog(ENTRIES),
        "nova-api.json.log": oslo_json(ENTRIES),
        "kolla-fluentd.json": kolla(ENTRIES),
        "keystone-apache-error.log": apache(ENTRIES),
        "keystone-uwsgi.log": uwsgi(),
        "haproxy.log": haproxy(),
        "secrets.log": oslo_text(SECRET_ENTRIES),
        "secrets.json.log": oslo_json(SECRET_ENTRIES),
    }


def write(out_dir: Path = OUT_DIR) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files().items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
