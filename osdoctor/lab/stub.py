"""A scripted OpenStack cloud on 127.0.0.1, for running the real clients against.

One ``ThreadingHTTPServer`` plays Keystone and every service of the catalog.
Each request is answered by the first scripted route that matches it (its
queue of answers advancing by one per request), else by the built-in Keystone
and version documents (``cloud.py``), else by the owning service's 404. Every
request is recorded, with which of the three answered it.

    with Stub(config) as stub:          # or stub.start() ... stub.stop()
        run_client(env={"OS_AUTH_URL": stub.values["auth_url"], ...})
        assert stub.requests[-1].path == ...
"""

from __future__ import annotations

import json
import socket
import ssl
import struct
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from osdoctor.lab import fakes
from osdoctor.lab.case_placeholders import expand, expand_text
from osdoctor.lab.cloud import Cloud, Reply
from osdoctor.lab.config import Answer, Route, StubConfig, parse_stub_config
from osdoctor.lab.fault_bodies import JSON, fault_reply
from osdoctor.lab.logspec import LogSpec
from osdoctor.lab.proxy import RefusingProxy
from osdoctor.lab.servicelogs import ServiceLogs
from osdoctor.lab.serving import serve_in_thread, stop_serving

BIND_ADDRESS = "127.0.0.1"

#: How a request was answered, as recorded.
SCRIPTED, BUILTIN, UNMATCHED = "scripted", "builtin", "unmatched"


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the stub received, and how it answered."""

    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: bytes
    status: int | None
    """None when the connection was dropped, reset or held on purpose."""
    answered_by: str
    """``scripted``, ``builtin`` or ``unmatched`` (the default 404)."""
    route: int | None = None
    """Index of the scripted route that answered, if one did."""
    request_id: str | None = None
    """The ``x-openstack-request-id`` of the answer (None when it had none)."""
    interrupt: bool = False
    """The answer asked for the client to be interrupted once it has it."""

    def header(self, name: str) -> str | None:
        lname = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == lname), None)

    def json(self) -> Any:
        """The body parsed as JSON (None when empty or not JSON)."""
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None


class _Queue:
    """The answers of one route, consumed one per request."""

    def __init__(self, route: Route) -> None:
        self.route = route
        self.index = 0
        self.used = 0

    def exhausted(self) -> bool:
        return self.index >= len(self.route.answers)

    def take(self) -> Answer:
        answers = self.route.answers
        if self.exhausted():
            return answers[-1]
        answer = answers[self.index]
        self.used += 1
        if self.used >= answer.times:
            self.index += 1
            self.used = 0
        return answer


class Stub:
    """The stub cloud: ``start()`` returns the base URL, ``stop()`` frees the port."""

    def __init__(
        self,
        config: StubConfig | Mapping[str, Any] | None = None,
        port: int = 0,
        on_request: Callable[[RecordedRequest], object] | None = None,
    ) -> None:
        if config is None:
            config = StubConfig()
        elif not isinstance(config, StubConfig):
            config = parse_stub_config(config.get("stub"), config.get("routes"))
        self.config = config
        self._port = port
        self._lock = threading.Lock()
        self._queues = [_Queue(route) for route in config.routes]
        self._requests: list[RecordedRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._cloud: Cloud | None = None
        self._values: dict[str, str] = {}
        self._stopping = threading.Event()
        self._proxy: RefusingProxy | None = None
        self._on_request = on_request
        """Told of each request as it is recorded (before it is answered), on
        the handler's thread: how a capture learns that a request has come."""
        self._logs: ServiceLogs | None = None

    # -- lifecycle ------------------------------------------------------------
    def start(self) -> str:
        """Listen on 127.0.0.1 and serve in a background thread; returns the base URL."""
        if self._server is not None:
            raise RuntimeError("the stub is already started")
        server = _Server((BIND_ADDRESS, self._port), _Handler)
        server.stub = self
        if self.config.tls:
            from osdoctor.lab.tls import server_context

            # The handshake happens in the handler's thread, on first read: a
            # client refusing the certificate must not stall the accepting loop.
            server.socket = server_context().wrap_socket(
                server.socket, server_side=True, do_handshake_on_connect=False
            )
        self._server = server
        self._stopping.clear()
        port = server.server_address[1]
        scheme = "https" if self.config.tls else "http"
        self._cloud = Cloud(self.config, f"{scheme}://{self.config.host}:{port}")
        values = self._cloud.values()
        if self.config.proxy == "refuse":
            self._proxy = RefusingProxy()
            values["proxy_url"] = self._proxy.start()
        values.update({key: expand_text(value, values) for key, value in self.config.vars.items()})
        self._values = values
        self._logs = ServiceLogs(values)
        for spec in self.config.log:
            self._logs.write(spec, None, None)
        self._thread = serve_in_thread(server, "osdoctor-lab-stub")
        return self.base_url

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()  # frees the handlers that hang or wait
        if self._thread is not None:
            stop_serving(self._server, self._thread)
        self._server = None
        self._thread = None
        if self._proxy is not None:
            self._proxy.stop()

    def __enter__(self) -> Stub:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what callers read -------------------------------------------------------
    @property
    def cloud(self) -> Cloud:
        if self._cloud is None:
            raise RuntimeError("the stub is not started")
        return self._cloud

    @property
    def base_url(self) -> str:
        return self.cloud.base_url

    @property
    def port(self) -> int:
        return int(self.base_url.rsplit(":", 1)[1])

    @property
    def values(self) -> Mapping[str, str]:
        """Placeholder values: built-ins (``auth_url``, ``url.<service>``...) and case vars."""
        return dict(self._values)

    def url(self, service: str) -> str:
        """The catalog endpoint of ``service`` (a service type)."""
        return self.cloud.endpoint(service)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def proxy_requests(self) -> list[tuple[str, str]]:
        """(method, target) of each request the refusing proxy turned away."""
        return self._proxy.requests if self._proxy is not None else []

    def wait(self, seconds: float | None) -> bool:
        """Wait up to ``seconds`` (forever when None); True when the stub is stopping."""
        return self._stopping.wait(seconds)

    def service_logs(self) -> dict[str, str]:
        """The services' own logs of this run: file (``nova/nova-api.log``) -> text."""
        return self._logs.files() if self._logs is not None else {}

    def log_answer(self, request: RecordedRequest, reply: Reply, length: int, number: int) -> None:
        """Write what the service (or the load balancer) logs for one answer."""
        logs = self._logs
        if logs is None:
            return
        service = self.cloud.service_of(request.path)
        uri = request.path + (f"?{request.query}" if request.query else "")
        if reply.balancer:
            if service is not None and request.status is not None:
                style = "nginx" if reply.server == "nginx" else "haproxy"
                logs.balancer(service, request.method, uri, request.status, length, style)
            return
        global_id = request.header("X-OpenStack-Request-ID")
        words = {"method": request.method, "uri": uri}
        for spec in reply.log:
            logs.write(spec, service, request.request_id, global_id, number, words)
        if service is not None and request.status is not None and request.request_id:
            logs.access(
                service,
                request.method,
                uri,
                request.status,
                length,
                request.request_id,
                request.headers,
                number,
            )

    def unmatched(self) -> list[RecordedRequest]:
        """Requests nothing knew: worth a look when writing a case."""
        return [r for r in self.requests if r.answered_by == UNMATCHED]

    # -- answering -------------------------------------------------------------------
    def _pattern(self, route: Route) -> str:
        prefix = ""
        if route.service is not None:
            if route.service not in self.cloud.prefixes:
                return ""
            prefix = self.cloud.prefixes[route.service].rstrip("/")
        return expand_text(prefix + route.path, self._values).rstrip("/") or "/"

    def _matches(self, route: Route, method: str, path: str, query: Mapping[str, str]) -> bool:
        if route.method != method:
            return False
        pattern = self._pattern(route)
        if not pattern:
            return False
        wanted = path.rstrip("/") or "/"
        if "*" in pattern or "?" in pattern or "[" in pattern:
            if not fnmatchcase(wanted, pattern):
                return False
        elif wanted != pattern:
            return False
        for key, value in (route.query or {}).items():
            if query.get(key) != expand_text(value, self._values):
                return False
        return True

    def dispatch(
        self, method: str, target: str, headers: Mapping[str, str], body: bytes
    ) -> tuple[Reply, str, int | None]:
        """The reply to one request, who gave it, and the scripted route's index."""
        parts = urlsplit(target)
        path = parts.path
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        cloud = self.cloud
        guard = cloud.ironic_guard(path, headers)
        if guard is not None:
            return self._finish(guard, path), BUILTIN, None
        scripted = self._take(method, path, query)
        if scripted is not None:
            index, answer = scripted
            request_values = {
                "request.path": path,
                "request.query": f"?{parts.query}" if parts.query else "",
            }
            reply = self._render(answer, {**self._values, **request_values}, headers)
            return self._finish(reply, path), SCRIPTED, index
        builtin = cloud.answer(method, path, headers, body)
        if builtin is not None:
            return self._finish(builtin, path), BUILTIN, None
        return self._finish(cloud.not_found(path), path), UNMATCHED, None

    def _take(self, method: str, path: str, query: Mapping[str, str]) -> tuple[int, Answer] | None:
        """The next answer of the first live route matching the request, consumed."""
        with self._lock:
            for index, queue in enumerate(self._queues):
                if queue.exhausted() and not queue.route.repeat_last:
                    continue
                if self._matches(queue.route, method, path, query):
                    return index, queue.take()
        return None

    def _render(
        self, answer: Answer, values: Mapping[str, str], request_headers: Mapping[str, str]
    ) -> Reply:
        headers = {k: expand_text(v, values) for k, v in answer.headers.items()}
        body: Any = expand(answer.body, values)
        reply = Reply(
            answer.status,
            headers,
            body,
            drop=answer.drop,
            reset=answer.reset,
            hang=answer.hang,
            delay=answer.delay,
            interrupt=answer.interrupt,
            log=answer.log,
        )
        words = body if isinstance(body, str) else ""
        if answer.fault is not None:
            fault = replace(answer.fault, message=expand_text(answer.fault.message, values))
            made = fault_reply(fault, answer.status, self._request_id(), request_headers)
            reply.body = made.body
            headers.setdefault("Content-Type", made.content_type)
            reply.reason, reply.server, reply.balancer = made.reason, made.server, made.balancer
            words = fault.message
        if answer.status >= 500 and not answer.log and not reply.balancer:
            # A service's error handler logs what it answers a 5xx with; a case that
            # knows more (the traceback, the cause) says so in the answer's log. An
            # HTML page is a proxy's, which the service never wrote.
            if not words.lstrip().startswith("<"):
                reply.log = (LogSpec(message=words or f"HTTP {answer.status}"),)
        return reply

    def _request_id(self) -> str:
        """The id the answer being made will carry (requests are numbered from 1)."""
        with self._lock:
            number = len(self._requests) + 1
        return f"req-{uuid.UUID(int=number, version=4)}"

    def _finish(self, reply: Reply, path: str) -> Reply:
        """Add the headers every service sends (request id; Ironic's version range)."""
        if reply.balancer:
            return reply
        with self._lock:
            number = len(self._requests) + 1
        names = {name.lower() for name in reply.headers}
        if "x-openstack-request-id" not in names:
            reply.headers["x-openstack-request-id"] = self._request_id()
        kind = self.cloud.service_of(path)
        if kind == "baremetal":
            for name, value in self.cloud.ironic_headers().items():
                if name.lower() not in names:
                    reply.headers[name] = value
        if kind == "object-store" and "x-trans-id" not in names:
            reply.headers["X-Trans-Id"] = f"tx{number:021x}-006a1b2c3d"
        return reply

    def _record(self, request: RecordedRequest) -> int:
        """Keep the request; returns its number (from 1)."""
        with self._lock:
            self._requests.append(request)
            number = len(self._requests)
        if self._on_request is not None:
            self._on_request(request)
        return number


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    stub: Stub

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Silent: a client that gives up (time-out, refused certificate) is expected."""


def encode_body(reply: Reply) -> tuple[bytes, str | None]:
    """The bytes of a reply's body and the Content-Type they imply."""
    if reply.body is None:
        return b"", None
    if isinstance(reply.body, bytes):
        return reply.body, "application/octet-stream"
    if isinstance(reply.body, str):
        return reply.body.encode(), "text/plain; charset=UTF-8"
    return json.dumps(reply.body).encode(), JSON


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def version_string(self) -> str:
        return fakes.SERVER_NAME

    def date_time_string(self, timestamp: float | None = None) -> str:
        return fakes.FIXED_DATE

    def handle(self) -> None:
        try:
            super().handle()
        except (ssl.SSLError, ConnectionError, TimeoutError):
            # A client refusing the certificate, or gone while the stub waited.
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base signature
        """Silent: the stub records requests instead of logging them."""

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        stub = self.server.stub
        body = self._read_body()
        headers = dict(self.headers.items())
        reply, answered_by, route = stub.dispatch(self.command, self.path, headers, body)
        parts = urlsplit(self.path)
        recorded = RecordedRequest(
            method=self.command,
            path=parts.path,
            query=parts.query,
            headers=headers,
            body=body,
            status=None if reply.drop or reply.reset or reply.hang else reply.status,
            answered_by=answered_by,
            route=route,
            request_id=next(
                (v for k, v in reply.headers.items() if k.lower() == "x-openstack-request-id"),
                None,
            ),
            interrupt=reply.interrupt,
        )
        number = stub._record(recorded)
        payload, implied_type = encode_body(reply)
        stub.log_answer(recorded, reply, len(payload), number)
        if reply.delay and stub.wait(reply.delay):
            return
        if reply.hang:
            stub.wait(None)
            return
        if reply.reset:
            # SO_LINGER with a zero time-out: close() sends RST, not FIN.
            self.close_connection = True
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            return
        if reply.drop:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self._start_response(reply)
        names = {name.lower() for name in reply.headers}
        if implied_type is not None and "content-type" not in names:
            self.send_header("Content-Type", implied_type)
        for name, value in reply.headers.items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        no_body = reply.status in (204, 304) or reply.status < 200
        if not no_body:
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD" and not no_body:
            self.wfile.write(payload)

    def _start_response(self, reply: Reply) -> None:
        """The status line, Server and Date: the stub's, or the load balancer's."""
        self.send_response_only(reply.status, reply.reason)
        server = fakes.SERVER_NAME if reply.server is None else reply.server
        if server:
            self.send_header("Server", server)
            self.send_header("Date", self.date_time_string())

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _serve
