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
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from osdoctor.lab import fakes
from osdoctor.lab.cloud import Cloud, Reply
from osdoctor.lab.config import Answer, Route, StubConfig, parse_stub_config
from osdoctor.lab.faults import JSON, fault_body
from osdoctor.lab.placeholders import expand, expand_text

BIND_ADDRESS = "127.0.0.1"
#: Seconds between the serving thread's checks for stop(): bounds stop()'s latency.
SHUTDOWN_POLL = 0.05

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
    """None when the connection was dropped on purpose."""
    answered_by: str
    """``scripted``, ``builtin`` or ``unmatched`` (the default 404)."""
    route: int | None = None
    """Index of the scripted route that answered, if one did."""

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

    def __init__(self, config: StubConfig | Mapping[str, Any] | None = None, port: int = 0) -> None:
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

    # -- lifecycle ------------------------------------------------------------
    def start(self) -> str:
        """Listen on 127.0.0.1 and serve in a background thread; returns the base URL."""
        if self._server is not None:
            raise RuntimeError("the stub is already started")
        server = _Server((BIND_ADDRESS, self._port), _Handler)
        server.stub = self
        self._server = server
        port = server.server_address[1]
        self._cloud = Cloud(self.config, f"http://{self.config.host}:{port}")
        values = self._cloud.values()
        values.update({key: expand_text(value, values) for key, value in self.config.vars.items()})
        self._values = values
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": SHUTDOWN_POLL},
            name="osdoctor-lab-stub",
            daemon=True,
        )
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = None
        self._thread = None

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
            reply = self._render(answer, {**self._values, **request_values})
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

    def _render(self, answer: Answer, values: Mapping[str, str]) -> Reply:
        headers = {k: expand_text(v, values) for k, v in answer.headers.items()}
        body: Any = expand(answer.body, values)
        if answer.fault is not None:
            fault = replace(answer.fault, message=expand_text(answer.fault.message, values))
            body, content_type = fault_body(fault, answer.status)
            headers.setdefault("Content-Type", content_type)
        return Reply(answer.status, headers, body, drop=answer.drop)

    def _finish(self, reply: Reply, path: str) -> Reply:
        """Add the headers every service sends (request id; Ironic's version range)."""
        with self._lock:
            number = len(self._requests) + 1
        names = {name.lower() for name in reply.headers}
        if "x-openstack-request-id" not in names:
            reply.headers["x-openstack-request-id"] = f"req-{uuid.UUID(int=number, version=4)}"
        kind = self.cloud.service_of(path)
        if kind == "baremetal":
            for name, value in self.cloud.ironic_headers().items():
                if name.lower() not in names:
                    reply.headers[name] = value
        if kind == "object-store" and "x-trans-id" not in names:
            reply.headers["X-Trans-Id"] = f"tx{number:021x}-006a1b2c3d"
        return reply

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    stub: Stub


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
        stub._record(
            RecordedRequest(
                method=self.command,
                path=parts.path,
                query=parts.query,
                headers=headers,
                body=body,
                status=None if reply.drop else reply.status,
                answered_by=answered_by,
                route=route,
            )
        )
        if reply.drop:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        payload, implied_type = encode_body(reply)
        self.send_response(reply.status)
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

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _serve
