"""The services' own logs, as the stub's services would write them.

Each service the stub plays writes its log through oslo.log's real
``ContextFormatter``, with the logger names the services use and the request
context of each request (the request id the stub returns in
``x-openstack-request-id``, the user and project of the token): an access line
per request where the service writes one (nova-api's request log,
neutron-server's and glance-api's WSGI lines, cinder-api's), and the records a
case declares for an answer (``log:``), an ERROR with its traceback for a
500, keystonemiddleware's CRITICAL for a 503. A load balancer's answer is in
HAProxy's log instead (or nginx's), in its own format.

Times are fixed (the stub's ``Date``, plus a millisecond per record), pids
too, and tracebacks go through files named after the service's code, never
the lab's: a fixture's service log is the same from one capture to the next,
and holds no path of the machine that captured it.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
import types
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any

from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_log import formatters
from oslo_log import log as oslo_log

from osdoctor.lab import fakes
from osdoctor.lab.case_placeholders import expand_text
from osdoctor.lab.logspec import LogSpec, Raised

#: Where installed service code lives on the hosts the logs pretend to come from.
SITE = "/usr/lib/python3/dist-packages"
#: The wall clock of the logs: the stub's fixed ``Date``.
BASE = parsedate_to_datetime(fakes.FIXED_DATE).timestamp()


@dataclass(frozen=True, slots=True)
class Daemon:
    name: str
    file: str
    pid: int
    logger: str
    """The logger of its records when a case names none."""


#: What answers each catalog type, and the daemons a case may name.
DAEMONS: Mapping[str, Daemon] = {
    "identity": Daemon(
        "keystone", "keystone/keystone.log", 1101, "keystone.server.flask.application"
    ),
    "compute": Daemon("nova-api", "nova/nova-api.log", 2101, "nova.api.openstack.wsgi"),
    "nova-scheduler": Daemon(
        "nova-scheduler", "nova/nova-scheduler.log", 2201, "nova.scheduler.manager"
    ),
    "nova-conductor": Daemon(
        "nova-conductor", "nova/nova-conductor.log", 2301, "nova.conductor.manager"
    ),
    "nova-compute": Daemon("nova-compute", "nova/nova-compute.log", 2401, "nova.compute.manager"),
    "placement": Daemon("placement-api", "placement/placement-api.log", 2501, "placement.handler"),
    "image": Daemon("glance-api", "glance/glance-api.log", 3101, "glance.api.v2.images"),
    "network": Daemon("neutron-server", "neutron/server.log", 4101, "neutron.api.v2.resource"),
    "neutron-openvswitch-agent": Daemon(
        "neutron-openvswitch-agent",
        "neutron/openvswitch-agent.log",
        4201,
        "neutron.plugins.ml2.drivers.openvswitch.agent.ovs_neutron_agent",
    ),
    "block-storage": Daemon(
        "cinder-api", "cinder/cinder-api.log", 5101, "cinder.api.openstack.wsgi"
    ),
    "cinder-scheduler": Daemon(
        "cinder-scheduler", "cinder/cinder-scheduler.log", 5201, "cinder.scheduler.manager"
    ),
    "cinder-volume": Daemon(
        "cinder-volume", "cinder/cinder-volume.log", 5301, "cinder.volume.manager"
    ),
    "orchestration": Daemon("heat-api", "heat/heat-api.log", 6101, "heat.common.wsgi"),
    "baremetal": Daemon("ironic-api", "ironic/ironic-api.log", 7101, "ironic.api.method"),
    "object-store": Daemon("swift-proxy-server", "swift/proxy-server.log", 8101, "proxy-server"),
}
_ALIASES = {"volume": "block-storage", "volumev2": "block-storage", "volumev3": "block-storage"}
#: HAProxy's name for each API's frontend and backend (kolla-ansible's).
_BACKENDS = {
    "identity": "keystone_internal",
    "compute": "nova_api",
    "image": "glance_api",
    "network": "neutron_server",
    "block-storage": "cinder_api",
    "orchestration": "heat_api",
    "baremetal": "ironic_api",
    "object-store": "swift_proxy_server",
    "placement": "placement_api",
}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def daemon_of(service: str) -> Daemon:
    """The daemon a catalog type or daemon name stands for."""
    key = _ALIASES.get(service, service)
    found = DAEMONS.get(key)
    if found is None:
        for daemon in DAEMONS.values():
            if daemon.name == key:
                return daemon
        raise KeyError(service)
    return found


def _config() -> cfg.ConfigOpts:
    """oslo.log's options at their defaults: the formats every service ships with."""
    conf = cfg.ConfigOpts()
    oslo_log.register_options(conf)
    conf([], project="osdoctor-lab", default_config_files=[], default_config_dirs=[])
    return conf


def _exception_class(dotted: str) -> type[Exception]:
    module, _, name = dotted.rpartition(".")
    made = type(name, (Exception,), {"__module__": module or "builtins"})
    return made


def raised(spec: Raised) -> tuple[type[BaseException], BaseException, TracebackType | None]:
    """``sys.exc_info()`` of the spec's exception, raised through code compiled
    under the service's own file names (``SITE/keystone/...``), at the lines the
    spec gives: a traceback then names those frames, and nothing of the lab."""
    error = _exception_class(spec.type)(spec.message)
    frames = spec.frames or ("service.py:handle",)
    after: Any = None  # what the frame being made calls: the one after it
    for index in range(len(frames) - 1, -1, -1):
        parts = frames[index].split(":")
        path, name = parts[0], parts[-1]
        line = int(parts[1]) if len(parts) == 3 else 10 * (index + 1)
        step = "raise _exc" if after is None else "_next()"
        if index == 0:
            # The frame that catches, as the service's error handler does.
            body = (
                f"try:\n    {step}\nexcept BaseException:\n"
                "    import sys\n    _info.append(sys.exc_info())\n"
            )
        else:
            body = step + "\n"
        namespace: dict[str, Any] = {"_next": after, "_exc": error, "_info": []}
        if name == "<module>":
            source = "\n" * max(line - (2 if index == 0 else 1), 0) + body
            code = compile(source, f"{SITE}/{path}", "exec")
            made: Any = types.FunctionType(code, namespace)
        else:
            indented = "".join(f"    {x}\n" for x in body.splitlines())
            source = "\n" * max(line - (3 if index == 0 else 2), 0) + f"def {name}():\n{indented}"
            exec(compile(source, f"{SITE}/{path}", "exec"), namespace)  # noqa: S102 - our own code
            made = namespace[name]
        if index == 0:
            made()
            info: tuple[type[BaseException], BaseException, TracebackType | None]
            (info,) = namespace["_info"]
            return info
        after = made
    raise AssertionError("unreachable")


class ServiceLogs:
    """The logs of one stub run: text per file, written as requests come."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = values
        self.conf = _config()
        self.formatter = formatters.ContextFormatter(
            config=self.conf, datefmt=self.conf.log_date_format
        )
        self.formatter.converter = time.gmtime  # the logs' hosts run in UTC
        self._files: dict[str, list[str]] = {}
        self._lock = threading.Lock()
        self._count = 0
        self._down: set[str] = set()

    def files(self) -> dict[str, str]:
        """File path (relative, ``nova/nova-api.log``) -> its text."""
        with self._lock:
            return {path: "".join(lines) for path, lines in sorted(self._files.items())}

    # -- writing -------------------------------------------------------------
    def _write(self, path: str, text: str) -> None:
        self._files.setdefault(path, []).append(text if text.endswith("\n") else text + "\n")

    def _record(
        self,
        daemon: Daemon,
        logger: str,
        level: str,
        message: str,
        when: float,
        context: oslo_context.RequestContext | None,
        exc_info: Any = None,
        instance: str | None = None,
        host: str | None = None,
        file: str | None = None,
    ) -> None:
        record = logging.LogRecord(
            logger,
            logging.getLevelName(level),
            f"{SITE}/{logger.replace('.', '/')}.py",
            1,
            message,
            None,
            exc_info,
        )
        record.created = when
        record.msecs = (when - int(when)) * 1000
        record.relativeCreated = 0.0
        record.process = daemon.pid
        record.thread = 140000000000000 + daemon.pid
        # Always set: without it the formatter takes the thread's current context,
        # which oslo.context stores as any context is made.
        record.context = context
        if instance is not None:
            record.instance_uuid = instance
        text = self.formatter.format(record)
        self._write(self._path(daemon, host, file), text)

    @staticmethod
    def _path(daemon: Daemon, host: str | None, file: str | None) -> str:
        path = file or daemon.file
        return f"{host}/{path}" if host else path

    def _context(
        self, request_id: str | None, global_id: str | None
    ) -> oslo_context.RequestContext:
        return oslo_context.RequestContext(
            user_id=fakes.USER_ID,
            project_id=fakes.PROJECT_ID,
            request_id=request_id,
            global_request_id=global_id,
            overwrite=False,
        )

    def _tick(self) -> float:
        self._count += 1
        return self._count / 1000.0

    def write(
        self,
        spec: LogSpec,
        answering: str | None,
        request_id: str | None,
        global_id: str | None = None,
        number: int = 0,
        request: Mapping[str, str] | None = None,
    ) -> None:
        """One declared record, for the request ``request_id`` answered by the
        catalog type ``answering`` (None: before any request); ``request`` gives
        the message's ``{method}`` and ``{uri}``."""
        service = spec.service or answering
        if service is None:
            raise KeyError("a stub's log record names no service")
        daemon = daemon_of(service)
        values = {**self.values, **(request or {}), "request_id": request_id or ""}
        message = expand_text(spec.message, values)
        with self._lock:
            when = BASE + number / 100.0 + spec.at + self._tick()
            context = None
            if spec.context == "request" and request_id:
                context = self._context(request_id, global_id)
            elif spec.context == "global" and request_id:
                # The call this service answered for the request: its own id, the
                # request's as the global one (oslo.context's X-OpenStack-Request-ID).
                own = f"req-{uuid.uuid5(uuid.NAMESPACE_URL, f'{request_id}/{daemon.name}')}"
                context = self._context(own, request_id)
            exc_info = None
            if spec.exception is not None:
                exc = spec.exception
                text = expand_text(exc.message, values)
                exc_info = raised(Raised(exc.type, text, exc.frames))
            if spec.format == "plain":
                # What the application printed, as its WSGI server keeps it.
                path = self._path(daemon, spec.host, spec.file)
                if exc_info is not None:
                    self._write(path, "".join(traceback.format_exception(*exc_info)))
                self._write(path, message)
                return
            self._record(
                daemon,
                spec.logger or daemon.logger,
                spec.level,
                message,
                when,
                context,
                exc_info,
                None if spec.instance is None else expand_text(spec.instance, values),
                spec.host,
                spec.file,
            )

    def access(
        self,
        service: str,
        method: str,
        uri: str,
        status: int,
        length: int,
        request_id: str,
        headers: Mapping[str, str],
        number: int,
    ) -> None:
        """The line the service's WSGI layer writes for each request, where it writes one."""
        key = _ALIASES.get(service, service)
        line = _ACCESS.get(key)
        if line is None:
            return
        logger, fmt = line
        daemon = daemon_of(key)
        version = _header(headers, "OpenStack-API-Version").rpartition(" ")[2] or "2.1"
        with self._lock:
            when = BASE + number / 100.0 + self._tick()
            stamp = time.gmtime(when)
            words = {
                "client": "127.0.0.1",
                "method": method,
                "uri": uri,
                "url": f"{self.values.get('base_url', '')}{uri}",
                "status": status,
                "length": length,
                "microversion": version,
                "seconds": 0.0123,
                "date": f"{stamp.tm_mday:02d}/{_MONTHS[stamp.tm_mon - 1]}/{stamp.tm_year:04d} "
                f"{stamp.tm_hour:02d}:{stamp.tm_min:02d}:{stamp.tm_sec:02d}",
            }
            context = self._context(request_id, _header(headers, "X-OpenStack-Request-ID") or None)
            for text in fmt:
                self._record(daemon, logger, "INFO", text % words, when, context)

    def balancer(
        self, service: str, method: str, uri: str, status: int, length: int, style: str
    ) -> None:
        """What the load balancer in front of the API writes for an answer of its own:
        HAProxy's HTTP log line (and its health check's verdict, once), or
        nginx's error log line."""
        key = _ALIASES.get(service, service)
        backend = _BACKENDS.get(key, key.replace("-", "_"))
        with self._lock:
            when = BASE + self._tick()
            stamp = time.gmtime(when)
            clock = f"{stamp.tm_hour:02d}:{stamp.tm_min:02d}:{stamp.tm_sec:02d}"
            month = _MONTHS[stamp.tm_mon - 1]
            if style == "nginx":
                day = f"{stamp.tm_year:04d}/{stamp.tm_mon:02d}/{stamp.tm_mday:02d}"
                self._write(
                    "nginx/error.log",
                    f"{day} {clock} [error] 3101#3101: *1 connect() failed (111: Connection "
                    f"refused) while connecting to upstream, client: 127.0.0.1, server: _, "
                    f'request: "{method} {uri} HTTP/1.1", upstream: "http://10.0.0.11:9696{uri}"',
                )
                return
            syslog = f"{month} {stamp.tm_mday:>2} {clock} controller haproxy[3011]: "
            if status == 503 and backend not in self._down:
                self._down.add(backend)
                self._write(
                    "haproxy/haproxy.log",
                    f"{syslog}Server {backend}/controller is DOWN, reason: Layer4 connection "
                    'problem, info: "Connection refused", check duration: 0ms. 0 active and 0 '
                    "backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.",
                )
                self._write(
                    "haproxy/haproxy.log", f"{syslog}backend {backend} has no server available!"
                )
            server, timers, flags = {
                429: ("<NOSRV>", "0/-1/-1/-1/0", "PR--"),
                502: ("controller", "0/0/0/-1/3", "SH--"),
                503: ("<NOSRV>", "0/-1/-1/-1/0", "SC--"),
                504: ("controller", "0/0/0/-1/60001", "sH--"),
            }.get(status, ("controller", "0/0/0/1/1", "----"))
            accept = (
                f"{stamp.tm_mday:02d}/{month}/{stamp.tm_year:04d}:{clock}."
                f"{int((when % 1) * 1000):03d}"
            )
            self._write(
                "haproxy/haproxy.log",
                f"{syslog}127.0.0.1:40000 [{accept}] {backend} {backend}/{server} {timers} "
                f'{status} {length} - - {flags} 1/1/0/0/0 0/0 "{method} {uri} HTTP/1.1"',
            )


def _header(headers: Mapping[str, str], name: str) -> str:
    lname = name.lower()
    return next((v for k, v in headers.items() if k.lower() == lname), "")


#: The access lines: logger, and the lines written (``%`` formats over the request).
_ACCESS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    # nova/api/openstack/requestlog.py
    "compute": (
        "nova.api.openstack.requestlog",
        (
            '%(client)s "%(method)s %(uri)s" status: %(status)s len: %(length)s '
            "microversion: %(microversion)s time: %(seconds).6f",
        ),
    ),
    # neutron/wsgi.py (eventlet's log_format as neutron sets it)
    "network": (
        "neutron.wsgi",
        (
            '%(client)s "%(method)s %(uri)s HTTP/1.1" status: %(status)s  len: %(length)s '
            "time: %(seconds).7f",
        ),
    ),
    # eventlet.wsgi's default format, which glance-api keeps
    "image": (
        "eventlet.wsgi.server",
        (
            '%(client)s - - [%(date)s] "%(method)s %(uri)s HTTP/1.1" %(status)s %(length)s '
            "%(seconds).6f",
        ),
    ),
    # cinder/api/openstack/wsgi.py
    "block-storage": (
        "cinder.api.openstack.wsgi",
        ("%(method)s %(url)s", "%(url)s returned with HTTP %(status)s"),
    ),
}
