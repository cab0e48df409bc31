"""Every byte a probe sends goes through :class:`Guard`, whatever library sends it.

keystoneauth1 sends through requests, the service probes through httpx; both
transports call the same guard before opening a connection, and record what
was sent. The guard enforces the promises of ``osdoctor probe``: read-only
methods, hosts of the log only, credentials only to Keystone's token URL, the
token only to hosts of the live catalog. A refused request raises
:class:`Blocked` and never reaches the network.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import requests
import requests.adapters

from osdoctor.probe.scope import Scope, host_key

READ_ONLY = ("GET", "HEAD")


class Blocked(Exception):
    """A request the guard refused to send; the message says why."""


@dataclass(slots=True)
class Sent:
    """One request a probe sent (or was refused), for the report and the tests."""

    method: str
    url: str
    status: int | None = None
    error: str | None = None
    blocked: bool = False


@dataclass(slots=True)
class Guard:
    scope: Scope
    token_url_host: str | None = None
    """``host:port`` of the configured auth URL: the only home of the credentials."""
    secrets: list[str] = field(default_factory=list)
    token: str | None = None
    token_hosts: set[str] = field(default_factory=set)
    """Hosts of the live catalog (within the scope) that may receive the token."""
    sent: list[Sent] = field(default_factory=list)

    def is_token_url(self, url: str) -> bool:
        path = urlsplit(url).path.rstrip("/")
        return (
            self.token_url_host is not None
            and host_key(url) == self.token_url_host
            and path.endswith("/auth/tokens")
        )

    def check(self, method: str, url: str, headers: dict[str, str], body: bytes) -> None:
        """Raise Blocked (and record it) unless the request keeps every promise."""
        reason = self._reason(method.upper(), url, headers, body)
        if reason is not None:
            self.sent.append(Sent(method.upper(), url, error=reason, blocked=True))
            raise Blocked(f"{method.upper()} {url} not sent: {reason}")

    def _reason(self, method: str, url: str, headers: dict[str, str], body: bytes) -> str | None:
        if not self.scope.allows(url):
            return f"{host_key(url) or url} is not a host the log names"
        carried = (
            body.decode("utf-8", "replace")
            + " "
            + url
            + " "
            + " ".join(f"{k}: {v}" for k, v in headers.items())
        )
        has_secret = any(s and s in carried for s in self.secrets)
        if method == "POST":
            if not self.is_token_url(url):
                return "the only request with a body is the token request to the auth URL"
        elif method not in READ_ONLY:
            return f"{method} is not a read-only method"
        if has_secret and not (method == "POST" and self.is_token_url(url)):
            return "credentials go to Keystone's token URL only"
        if self.token and self.token in carried and host_key(url) not in self.token_hosts:
            return "the token goes to hosts of the cloud's catalog only"
        return None

    def record(self, method: str, url: str, status: int | None, error: str | None) -> None:
        self.sent.append(Sent(method.upper(), url, status, error))


class GuardedAdapter(requests.adapters.HTTPAdapter):
    """The requests adapter under keystoneauth1's Session."""

    def __init__(self, guard: Guard) -> None:
        super().__init__(max_retries=0)
        self.guard = guard

    def send(
        self, request: requests.PreparedRequest, *args: Any, **kwargs: Any
    ) -> requests.Response:
        body = request.body or b""
        raw = body.encode() if isinstance(body, str) else body if isinstance(body, bytes) else b""
        url = request.url or ""
        method = request.method or "GET"
        headers = {
            str(k): v if isinstance(v, str) else v.decode("latin-1")
            for k, v in request.headers.items()
        }
        self.guard.check(method, url, headers, raw)
        try:
            response = super().send(request, *args, **kwargs)
        except requests.RequestException as exc:
            self.guard.record(method, url, None, type(exc).__name__)
            raise
        self.guard.record(method, url, response.status_code, None)
        return response


def requests_session(guard: Guard) -> requests.Session:
    """A requests Session whose every request passes the guard; no proxy, no redirects."""
    session = requests.Session()
    session.trust_env = False
    session.max_redirects = 0
    adapter = GuardedAdapter(guard)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class GuardedTransport(httpx.BaseTransport):
    """The httpx transport of the service probes."""

    def __init__(self, guard: Guard, inner: httpx.BaseTransport) -> None:
        self.guard = guard
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        try:
            body = request.content
        except httpx.RequestNotRead:
            self.guard.sent.append(Sent(request.method, url, error="streamed body", blocked=True))
            raise Blocked(
                f"{request.method} {url} not sent: a streamed body cannot be checked"
            ) from None
        self.guard.check(request.method, url, dict(request.headers), body)
        try:
            response = self.inner.handle_request(request)
        except httpx.TransportError as exc:
            self.guard.record(request.method, url, None, type(exc).__name__)
            raise
        self.guard.record(request.method, url, response.status_code, None)
        return response

    def close(self) -> None:
        self.inner.close()


def http_client(guard: Guard, verify: Any, timeout: float) -> httpx.Client:
    """An httpx client: guarded, redirects off, a timeout, no proxy from the environment."""
    inner = httpx.HTTPTransport(verify=verify, trust_env=False)
    return httpx.Client(
        transport=GuardedTransport(guard, inner),
        follow_redirects=False,
        timeout=timeout,
        trust_env=False,
    )
