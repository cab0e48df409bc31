"""The probes: each finds its target in the log, then asks the cloud one question.

A probe is planned before anything is sent (:func:`plan_probe`: the URL it
will contact and whether it needs the credentials), so that the user sees
every host first; then run (:func:`run_probe`) with a :class:`ProbeContext`
that holds the guarded clients. Each answers ``confirmed`` (the fault is still
there), ``not-reproduced`` or ``could-not-check``, with the reason in words.
"""

from __future__ import annotations

import re
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from osdoctor.model import Exchange, Trace
from osdoctor.probe.cloudconfig import CloudAuth
from osdoctor.probe.guard import Blocked, Guard, Sent, http_client
from osdoctor.probe.keystone import KeystoneResult, authenticate
from osdoctor.probe.scope import Scope, host_key

CONFIRMED, NOT_REPRODUCED, COULD_NOT_CHECK = "confirmed", "not-reproduced", "could-not-check"
IRONIC_MIN = "X-OpenStack-Ironic-API-Minimum-Version"
IRONIC_MAX = "X-OpenStack-Ironic-API-Maximum-Version"
_STACK_LOOKUP = re.compile(r"^/stacks/([^/]+)/?$")


@dataclass(frozen=True, slots=True)
class Outcome:
    status: str
    detail: str


@dataclass(frozen=True, slots=True)
class Target:
    """What a planned probe will contact."""

    url: str
    """Already mapped (``--map``): the URL that will really be contacted."""
    method: str = "GET"
    """``GET``, ``TLS`` (a handshake, nothing sent) or ``TOKEN`` (the Keystone token request)."""
    credentials: bool = False
    """True when it needs a token from Keystone first (so the credentials are sent there)."""


class ProbeContext:
    """The guarded clients and the Keystone answer, shared by the probes of one run."""

    def __init__(
        self,
        trace: Trace,
        scope: Scope,
        cloud: CloudAuth | None,
        cloud_error: str | None,
        timeout: float,
    ) -> None:
        self.trace = trace
        self.scope = scope
        self.cloud = cloud
        self.cloud_error = cloud_error
        self.timeout = timeout
        self.guard = Guard(scope)
        self._keystone: KeystoneResult | None = None
        self._http: httpx.Client | None = None

    @property
    def verify(self) -> Any:
        """TLS verification as the user's config has it: off only when it says so."""
        if self.cloud is None:
            return True
        if not self.cloud.verify:
            return False
        return self.cloud.cacert or True

    def ssl_context(self) -> ssl.SSLContext:
        cafile = self.cloud.cacert if self.cloud else None
        return ssl.create_default_context(cafile=cafile)

    def keystone(self) -> KeystoneResult:
        if self._keystone is None:
            if self.cloud is None:
                self._keystone = KeystoneResult(
                    "unconfigured", self.cloud_error or "no cloud is configured"
                )
            else:
                self._keystone = authenticate(self.cloud, self.guard, self.verify, self.timeout)
        return self._keystone

    def http(self) -> httpx.Client:
        if self._http is None:
            verify = self.verify
            if isinstance(verify, str):
                verify = self.ssl_context()
            self._http = http_client(self.guard, verify, self.timeout)
        return self._http

    def close(self) -> None:
        if self._http is not None:
            self._http.close()

    @property
    def sent(self) -> list[Sent]:
        return list(self.guard.sent)


# -- finding the target in the log ------------------------------------------------------
def _strip_query(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def _auth_target(cloud: CloudAuth | None, method: str) -> Target | str:
    if cloud is None or not cloud.auth_url:
        return "no cloud is configured (OS_CLOUD, --os-cloud or the OS_* variables)"
    return Target(cloud.auth_url, method, credentials=method == "TOKEN")


def _heat_lookup(trace: Trace, params: Mapping[str, str]) -> str | None:
    wanted = params.get("stack")
    for ex in reversed(trace.exchanges):
        m = _STACK_LOOKUP.match(ex.path) if ex.service == "orchestration" else None
        if m and (not wanted or m.group(1) == wanted):
            return _strip_query(ex.request.url)
    endpoints = trace.catalog.get("orchestration") or []
    if wanted and endpoints:
        return endpoints[0].rstrip("/") + f"/stacks/{wanted}"
    return None


def _ironic_v1(trace: Trace) -> str | None:
    urls = [ex.request.url for ex in trace.exchanges if ex.service == "baremetal"]
    urls += trace.catalog.get("baremetal") or []
    for url in urls:
        parts = urlsplit(url)
        segments = parts.path.split("/")
        root = "/".join(segments[: segments.index("v1")]) if "v1" in segments else parts.path
        return urlunsplit((parts.scheme, parts.netloc, root.rstrip("/") + "/v1", "", ""))
    return None


def _failed_503(trace: Trace) -> Exchange | None:
    candidates = [ex for ex in trace.exchanges if ex.status == 503]
    with_header = [
        ex for ex in candidates if ex.response is not None and ex.response.header("Retry-After")
    ]
    chosen = with_header or candidates
    return chosen[-1] if chosen else None


def _tls_url(trace: Trace) -> str | None:
    for ex in trace.exchanges:
        if ex.error is not None and ex.error.kind == "tls":
            return ex.request.url
    return next(
        (ex.request.url for ex in trace.exchanges if ex.request.url.startswith("https://")), None
    )


def plan_probe(
    name: str, params: Mapping[str, str], trace: Trace, scope: Scope, cloud: CloudAuth | None
) -> Target | str:
    """What probe ``name`` will contact, or why it cannot run (nothing is sent here)."""
    if name == "keystone-reachable":
        return _auth_target(cloud, "GET")
    if name in ("keystone-credentials", "catalog-endpoint"):
        return _auth_target(cloud, "TOKEN")
    url: str | None
    if name == "heat-redirect":
        url = _heat_lookup(trace, params)
        if url is None:
            return "the log shows no Heat name lookup (GET /stacks/<name>)"
        return Target(scope.map_url(url), credentials=True)
    if name == "ironic-version-headers":
        url = _ironic_v1(trace)
        return Target(scope.map_url(url)) if url else "the log names no Bare Metal endpoint"
    if name == "retry-after":
        ex = _failed_503(trace)
        url = params.get("url") or (ex.request.url if ex else None)
        if url is None:
            return "the log shows no request answered 503"
        return Target(scope.map_url(url), credentials=cloud is not None)
    if name == "tls-certificate":
        url = params.get("url") or _tls_url(trace)
        if url is None:
            return "the log names no HTTPS endpoint"
        return Target(scope.map_url(url), "TLS")
    return f"unknown probe '{name}'"


# -- asking the cloud --------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Failure:
    """A GET that got no answer: refused by the guard (``blocked``) or by the network."""

    text: str
    blocked: bool = False


def _get(ctx: ProbeContext, url: str, token: str | None) -> httpx.Response | Failure:
    headers = {"Accept": "application/json", "User-Agent": "osdoctor-probe"}
    if token:
        headers["X-Auth-Token"] = token
    try:
        return ctx.http().get(url, headers=headers)
    except Blocked as exc:
        return Failure(str(exc), blocked=True)
    except httpx.HTTPError as exc:
        return Failure(f"GET {url} failed: {type(exc).__name__}: {exc}")


def _token_for(ctx: ProbeContext, url: str) -> str | None:
    """A token for a request to ``url``, or None (then explained by :func:`_no_token`)."""
    ks = ctx.keystone()
    if ks.state != "ok" or host_key(url) not in ctx.guard.token_hosts:
        return None
    return ks.token


def _no_token(ctx: ProbeContext, url: str) -> Outcome:
    ks = ctx.keystone()
    if ks.state != "ok":
        return Outcome(COULD_NOT_CHECK, f"no token: {ks.detail}")
    return Outcome(
        COULD_NOT_CHECK,
        f"{host_key(url)} is not in the cloud's catalog, so the token is not sent there",
    )


def probe_keystone_reachable(
    ctx: ProbeContext, target: Target, params: Mapping[str, str]
) -> Outcome:
    answer = _get(ctx, target.url, None)
    if isinstance(answer, Failure):
        if answer.blocked:
            return Outcome(COULD_NOT_CHECK, answer.text)
        return Outcome(CONFIRMED, f"Keystone still cannot be reached: {answer.text}")
    return Outcome(NOT_REPRODUCED, f"Keystone answers at {target.url} (GET: {answer.status_code})")


def probe_keystone_credentials(
    ctx: ProbeContext, target: Target, params: Mapping[str, str]
) -> Outcome:
    ks = ctx.keystone()
    if ks.state == "refused":
        return Outcome(CONFIRMED, f"{ks.detail} (credentials from {_source(ctx)})")
    if ks.state == "ok":
        return Outcome(NOT_REPRODUCED, f"Keystone accepts the credentials from {_source(ctx)}")
    return Outcome(COULD_NOT_CHECK, ks.detail)


def _source(ctx: ProbeContext) -> str:
    return ctx.cloud.source if ctx.cloud else "nowhere"


def probe_catalog_endpoint(ctx: ProbeContext, target: Target, params: Mapping[str, str]) -> Outcome:
    service = params.get("service")
    if not service:
        return Outcome(COULD_NOT_CHECK, "the rule does not say which service to look for")
    interface = params.get("interface") or (ctx.cloud.interface if ctx.cloud else "public")
    region = params.get("region") or (ctx.cloud.region if ctx.cloud else None)
    ks = ctx.keystone()
    if ks.state != "ok":
        return Outcome(COULD_NOT_CHECK, f"no catalog: {ks.detail}")
    of_type = [e for e in ks.catalog if e.service_type == service]
    found = [
        e
        for e in of_type
        if e.interface.removesuffix("URL") == interface and (region is None or e.region == region)
    ]
    where = f" in region {region}" if region else ""
    if found:
        return Outcome(
            NOT_REPRODUCED,
            f"the catalog now lists a {interface} {service} endpoint{where}: {found[0].url}",
        )
    others = ", ".join(sorted({f"{e.interface} ({e.region})" for e in of_type})) or "none"
    return Outcome(
        CONFIRMED,
        f"the catalog still has no {interface} {service} endpoint{where} "
        f"(its {service} endpoints: {others})",
    )


def probe_heat_redirect(ctx: ProbeContext, target: Target, params: Mapping[str, str]) -> Outcome:
    token = _token_for(ctx, target.url)
    if token is None:
        return _no_token(ctx, target.url)
    answer = _get(ctx, target.url, token)
    if isinstance(answer, Failure):
        return Outcome(COULD_NOT_CHECK, answer.text)
    status, location = answer.status_code, answer.headers.get("Location")
    if answer.is_redirect and location:
        outside = (
            ""
            if ctx.scope.allows(urljoin(target.url, location))
            else ("; it points to a host the log does not name (not followed)")
        )
        return Outcome(
            NOT_REPRODUCED, f"GET {target.url} answers {status} with Location {location}{outside}"
        )
    if 300 <= status < 400:
        return Outcome(
            CONFIRMED,
            f"GET {target.url} still answers {status} without a Location "
            "header: a proxy or a service that is not Heat answers it",
        )
    if status == 200:
        return Outcome(
            CONFIRMED,
            f"GET {target.url} answers 200 instead of Heat's 302 to the "
            "stack: a proxy or a service that is not Heat answers it",
        )
    if status == 404:
        return Outcome(
            COULD_NOT_CHECK,
            f"GET {target.url} answers 404: the stack is not there "
            "now, so the lookup cannot be checked",
        )
    return Outcome(COULD_NOT_CHECK, f"GET {target.url} answers {status}")


def probe_ironic_version_headers(
    ctx: ProbeContext, target: Target, params: Mapping[str, str]
) -> Outcome:
    answer = _get(ctx, target.url, None)
    if isinstance(answer, Failure):
        return Outcome(COULD_NOT_CHECK, answer.text)
    low, high = answer.headers.get(IRONIC_MIN), answer.headers.get(IRONIC_MAX)
    if answer.status_code >= 400:
        return Outcome(COULD_NOT_CHECK, f"GET {target.url} answers {answer.status_code}")
    if low and high:
        return Outcome(
            NOT_REPRODUCED, f"GET {target.url} carries the version range {low} to {high}"
        )
    missing = " and ".join(h for h, v in ((IRONIC_MIN, low), (IRONIC_MAX, high)) if not v)
    return Outcome(CONFIRMED, f"GET {target.url} ({answer.status_code}) still lacks {missing}")


def probe_retry_after(ctx: ProbeContext, target: Target, params: Mapping[str, str]) -> Outcome:
    token = _token_for(ctx, target.url) if target.credentials else None
    answer = _get(ctx, target.url, token)
    if isinstance(answer, Failure):
        return Outcome(COULD_NOT_CHECK, answer.text)
    retry = answer.headers.get("Retry-After")
    if answer.status_code == 503 and retry is not None:
        return Outcome(CONFIRMED, f"GET {target.url} still answers 503 with Retry-After: {retry}")
    if answer.status_code == 503:
        return Outcome(NOT_REPRODUCED, f"GET {target.url} answers 503 but without Retry-After")
    if answer.status_code in (401, 403) and token is None:
        return Outcome(
            COULD_NOT_CHECK,
            f"GET {target.url} needs a token "
            f"({answer.status_code}); configure the cloud's "
            "credentials to check it",
        )
    return Outcome(NOT_REPRODUCED, f"GET {target.url} answers {answer.status_code} now")


def probe_tls_certificate(ctx: ProbeContext, target: Target, params: Mapping[str, str]) -> Outcome:
    parts = urlsplit(target.url)
    if parts.scheme != "https" or not parts.hostname:
        return Outcome(COULD_NOT_CHECK, f"{target.url} is not an HTTPS URL")
    if not ctx.scope.allows(target.url):
        ctx.guard.sent.append(Sent("TLS", target.url, error="not a host of the log", blocked=True))
        return Outcome(COULD_NOT_CHECK, f"{host_key(target.url)} is not a host the log names")
    host, port = parts.hostname, parts.port or 443
    context = ctx.ssl_context()
    try:
        with (
            socket.create_connection((host, port), timeout=ctx.timeout) as raw,
            context.wrap_socket(raw, server_hostname=host) as tls,
        ):
            cert = tls.getpeercert() or {}
    except ssl.SSLCertVerificationError as exc:
        ctx.guard.record("TLS", target.url, None, exc.verify_message)
        return Outcome(
            CONFIRMED, f"the certificate of {host}:{port} does not verify: {exc.verify_message}"
        )
    except (OSError, ssl.SSLError) as exc:
        ctx.guard.record("TLS", target.url, None, str(exc))
        return Outcome(COULD_NOT_CHECK, f"no TLS handshake with {host}:{port}: {exc}")
    ctx.guard.record("TLS", target.url, None, None)
    expires = str(cert.get("notAfter", "unknown"))
    note = "" if ctx.verify is not False else " (your configuration turns verification off)"
    try:
        days = int((ssl.cert_time_to_seconds(expires) - time.time()) // 86400)
    except ValueError:
        days = -1
    soon = f", only {days} days left" if 0 <= days < 14 else ""
    return Outcome(
        NOT_REPRODUCED,
        f"the certificate of {host}:{port} verifies (valid until {expires}{soon}){note}",
    )


PROBE_FUNCTIONS: Mapping[str, Callable[[ProbeContext, Target, Mapping[str, str]], Outcome]] = {
    "keystone-reachable": probe_keystone_reachable,
    "keystone-credentials": probe_keystone_credentials,
    "catalog-endpoint": probe_catalog_endpoint,
    "heat-redirect": probe_heat_redirect,
    "ironic-version-headers": probe_ironic_version_headers,
    "retry-after": probe_retry_after,
    "tls-certificate": probe_tls_certificate,
}


def run_probe(name: str, ctx: ProbeContext, target: Target, params: Mapping[str, str]) -> Outcome:
    """Run one planned probe; any unexpected failure is 'could not check', never a crash."""
    try:
        return PROBE_FUNCTIONS[name](ctx, target, params)
    except Blocked as exc:
        return Outcome(COULD_NOT_CHECK, str(exc))
    except (OSError, ValueError, httpx.HTTPError) as exc:
        return Outcome(COULD_NOT_CHECK, f"{type(exc).__name__}: {exc}")
