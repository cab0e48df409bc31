"""An HTTP proxy on 127.0.0.1 that refuses every request, as a corporate proxy does.

A client with ``https_proxy`` set sends ``CONNECT host:port`` first; this proxy
answers ``403 Forbidden`` (Squid's page), so urllib3 raises ``ProxyError`` with
``Tunnel connection failed: 403 Forbidden`` and no request reaches the cloud.
Plain-HTTP requests sent through it (``http_proxy``) get the same 403.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from osdoctor.lab import fakes
from osdoctor.lab.serving import serve_in_thread, stop_serving

BIND_ADDRESS = "127.0.0.1"
PROXY_SERVER = "squid"
_PAGE = (
    "<html><head><title>ERROR: The requested URL could not be retrieved</title></head>\n"
    "<body><h1>ERROR</h1><h2>The requested URL could not be retrieved</h2>\n"
    "<p>Access control configuration prevents your request from being allowed at this "
    "time.</p>\n</body></html>\n"
)


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    requests_seen: list[tuple[str, str]]
    lock: threading.Lock

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Silent: a client giving up mid-request is not the proxy's business."""


class _Refuse(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _ProxyServer

    def version_string(self) -> str:
        return PROXY_SERVER

    def date_time_string(self, timestamp: float | None = None) -> str:
        return fakes.FIXED_DATE

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base signature
        """Silent: requests are recorded instead."""

    def _refuse(self) -> None:
        with self.server.lock:
            self.server.requests_seen.append((self.command, self.path))
        payload = _PAGE.encode()
        self.send_response(403, "Forbidden")
        self.send_header("Content-Type", "text/html;charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("X-Squid-Error", "ERR_ACCESS_DENIED 0")
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
        self.close_connection = True

    do_CONNECT = do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = _refuse


class RefusingProxy:
    """The proxy's lifecycle: ``start()`` returns its URL (``http://127.0.0.1:port``)."""

    def __init__(self) -> None:
        self._server: _ProxyServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        server = _ProxyServer((BIND_ADDRESS, 0), _Refuse)
        server.requests_seen = []
        server.lock = threading.Lock()
        self._server = server
        self._thread = serve_in_thread(server, "osdoctor-lab-proxy")
        return self.url

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the proxy is not started")
        return f"http://{BIND_ADDRESS}:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[tuple[str, str]]:
        """(method, target) of each request refused, in order."""
        if self._server is None:
            return []
        with self._server.lock:
            return list(self._server.requests_seen)

    def stop(self) -> None:
        if self._server is None or self._thread is None:
            return
        stop_serving(self._server, self._thread)
        self._thread = None
