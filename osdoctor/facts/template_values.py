"""The facts as template values: every rule may quote the decisive failure.

Names are documented in knowledge/README.md; each value is plain text, empty
when the log does not show it, so a title reads well either way (``{quote}``
carries its own leading colon).
"""

from __future__ import annotations

from osdoctor import regex
from osdoctor.facts import server
from osdoctor.facts.facts_model import Facts, Failure, TransportClass
from osdoctor.facts.known_names import SERVICE_PROJECTS

_SHORT = 140

#: Values that are a whole clause with its own punctuation, or nothing: ``{quote}``
#: is ``: <the words>`` when the log has them, and reads as well left out.
CLAUSES = frozenset(
    {
        "quote",
        "fault_note",
        "request_id_note",
        "attempts_note",
        "installs_note",
        "auth_hint",
        "server_frame_note",
        "server_match_note",
    }
)

_REASONS: dict[TransportClass, str] = {
    "refused": "connection refused: nothing listens on {where}",
    "timeout": "the connection to {where} timed out",
    "dns": "the host name {host} does not resolve",
    "tls-verify": "its TLS certificate is not trusted",
    "tls-version": "https:// against a plain-HTTP port",
    "tls": "the TLS handshake failed",
    "proxy": "the HTTP proxy refused the tunnel: {detail}",
    "reset": "the connection was closed without an answer",
    "unreachable": "no route to {where}",
    "hung": "no answer before the log ends",
    "connection": "the connection failed",
}
_TRANSPORT: dict[TransportClass, str] = {
    "refused": "nothing accepted the connection to {where} (connection refused)",
    "timeout": "the connection to {where} timed out: no answer, not even a refusal",
    "dns": "the host name {host} does not resolve",
    "tls-verify": "the TLS certificate of {where} is not trusted (CERTIFICATE_VERIFY_FAILED)",
    "tls-version": "{where} does not speak TLS: https:// was used against a plain-HTTP port",
    "tls": "the TLS handshake with {where} failed",
    "proxy": "the HTTP proxy refused the tunnel to {where} ({detail})",
    "reset": "{where} closed the connection without an answer",
    "unreachable": "there is no route to {where}",
    "hung": "the client was still waiting for {where} when the log ends",
    "connection": "the connection to {where} failed",
}


def short(text: str, width: int = _SHORT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


_PROBE = 32


def unnested(text: str) -> str:
    """A reason without the copy of itself a wrapping error quotes again (a
    Kubernetes ``ApiError`` around the webhook's own message, a relayed fault
    around the one it relays): the words up to where they start over, without
    the bracket left open there."""
    text = " ".join(text.replace('\\"', '"').split())
    head, sep, _rest = text.partition(": ")
    start = len(head) + len(sep) if sep and " " not in head else 0
    probe = text[start : start + _PROBE]
    again = text.find(probe, start + _PROBE) if len(probe) == _PROBE else -1
    if again < 0:
        return text
    kept = text[:again]
    depth: list[int] = []
    for i, c in enumerate(kept):
        if c in "({[":
            depth.append(i)
        elif c in ")}]" and depth:
            depth.pop()
    if depth:
        kept = kept[: depth[0]]
    return kept.rstrip(" ,:;(\"'")


# What a client wraps around the service's words: an SDK exception's prefix, the
# status and request id it appends.
_WRAPPING = [
    regex.compile(r"^\w+: [45]\d\d: (?:Client|Server) Error for url: \S+?, "),
    regex.compile(r"^(?:ERROR(?: \(\w+\))?: |Error contacting \w+ server: )"),
    regex.compile(
        r"(?:\.|\s)*\(HTTP \d{3}\)(?: \(Request-ID: [\w-]+\))?(?:\.? Attempt \d+ of \d+)?$"
    ),
]


def clean_words(text: str) -> str:
    """The service's words inside a client's error line."""
    for rx in _WRAPPING:
        text = rx.sub("", text).strip()
    return text


def _words(facts: Facts, failure: Failure | None) -> str:
    if (
        failure is not None
        and failure.fault is not None
        and failure.fault.message
        and failure.fault.shape != "omitted"
    ):
        return failure.fault.message
    if facts.client_error is not None:
        return clean_words(facts.client_error.text) or facts.client_error.text
    if facts.exception is not None:
        exc = facts.exception
        return f"{exc.type}: {exc.message}" if exc.message else exc.type
    return ""


def summary(facts: Facts) -> str:
    """One sentence on the decisive failure, with the service's or client's words."""
    f = facts.failure
    if f is None:
        return ""
    words = short(_words(facts, f))
    quote = f": {words}" if words else ""
    if f.kind == "transport" and f.transport is not None:
        t = f.transport
        where = f"{t.host}:{t.port}" if t.host else (f.endpoint or "the endpoint")
        if f.service_name and f.service_name != "the service":
            where = f"{f.service_name} at {where}"
        text = _TRANSPORT.get(t.kind, _TRANSPORT["connection"]).format(
            where=where, host=t.host or where, detail=t.detail or "refused"
        )
        return text[0].upper() + text[1:]
    if f.kind == "http":
        who = (
            f.service_name if f.service_name and f.service_name != "the service" else "The service"
        )
        status = f" ({f.status})" if f.status is not None else ""
        what = f" the {f.resource}" if f.resource and f.resource != "version document" else ""
        if f.status is not None and f.status >= 500:
            return f"{who} failed{status}{' on' + what if what else ''}{quote}"
        if f.status is not None and 200 <= f.status < 300:
            # gophercloud's and fog's "expected [200 201] ... but got 202": a success the
            # client did not expect (another API version than the client was written for)
            return f"{who} accepted{what}{status}, but the client expected another status{quote}"
        return f"{who} refused{what}{status}{quote}"
    if f.kind == "async":
        af = facts.async_failure
        name = af.resource if af else "the resource"
        status = (af.status if af else "") or "an error state"
        return f"{name} went to {status} after the command returned{quote}"
    return f"The client stopped{quote}" if quote else "The client failed"


def _call(method: str, target: str) -> str:
    """A call as the log shows it: ``GET /v3``; ``the request to /v3`` when the log
    names no method (a transport error quotes only the URL); empty without a URL."""
    if not target:
        return ""
    return f"{method} {target}" if method else f"the request to {target}"


def values(facts: Facts) -> dict[str, str]:
    """Template values for every rule; conditions may add more precise ones."""
    f = facts.failure
    out = {
        "failure": summary(facts),
        "failure_kind": f.kind if f else "",
        "quote": "",
        "words": "",
        "fault": "",
        "fault_short": "",
        "fault_type": "",
        "fault_shape": "",
        "failure_status": "",
        "failure_method": "",
        "failure_call": "",
        "failure_call_path": "",
        "failure_url": "",
        "failure_path": "",
        "endpoint": "",
        "host": "",
        "port": "",
        "service_type": "",
        "service_name": "",
        "service_project": "",
        "resource": "",
        "request_id": "",
        "request_id_note": "",
        "transport": "",
        "transport_detail": "",
        "inner": "",
        "client_error": "",
        "client_error_class": "",
        "exception_type": "",
        "exception_text": "",
        "exception_frame": "",
        "exception_package": "",
        "installs_note": "",
        "async_resource": "",
        "async_status": "",
        "async_fault": "",
        "async_type": "",
        "async_what": "",
        "async_fault_short": "",
        "fault_note": "",
        "transport_reason": "no answer",
        "where": "the endpoint",
        "auth_sent": "",
        "auth_hint": "",
    }
    words = _words(facts, f)
    out["words"] = words
    every = [words]
    if f is not None and f.fault is not None:
        every.append(f.fault.message)
    if facts.client_error is not None:
        every.append(facts.client_error.text)
    if facts.exception is not None:
        every.append(f"{facts.exception.type}: {facts.exception.message}")
    if facts.async_failure is not None:
        every.append(facts.async_failure.fault)
    out["all_words"] = "\n".join(dict.fromkeys(w for w in every if w))
    out["quote"] = f": {short(words)}" if words else ""
    if f is not None:
        out.update(
            {
                "failure_status": str(f.status) if f.status is not None else "no answer",
                "failure_method": f.method,
                # a failure known from printed text alone may have no URL: name
                # what is known rather than leave a hole in the sentence
                "failure_url": f.url.partition("?")[0] or f.endpoint or "the request",
                "failure_path": f.path or "the URL the client asked for",
                "failure_call": _call(f.method, f.url.partition("?")[0]),
                "failure_call_path": _call(f.method, f.path),
                "endpoint": f.endpoint,
                "service_type": f.service or "unknown",
                "service_name": f.service_name or "the service",
                "service_project": SERVICE_PROJECTS.get(f.service, ""),
                "resource": f.resource,
                "request_id": f.request_id,
                "inner": f.inner,
                "request_id_note": f" (request id {f.request_id})" if f.request_id else "",
            }
        )
        if f.fault is not None:
            out.update(
                {
                    "fault": f.fault.message,
                    "fault_short": short(f.fault.message),
                    "fault_type": f.fault.type,
                    "fault_shape": f.fault.shape,
                }
            )
            if f.kind == "http" and f.fault.message and f.fault.shape != "omitted":
                kind = f"{f.fault.type}: " if f.fault.type and f.fault.shape == "neutron" else ""
                out["fault_note"] = f" ({out['service_name']} said {kind}{short(f.fault.message)})"
        if f.transport is not None:
            t = f.transport
            out.update(
                {"transport": t.kind, "transport_detail": t.detail, "host": t.host, "port": t.port}
            )
            if t.host:
                out["where"] = f"{t.host}:{t.port}" if t.port else t.host
            out["transport_reason"] = _REASONS.get(t.kind, _REASONS["connection"]).format(
                where=f"{t.host}:{t.port}" if t.host else "the endpoint",
                host=t.host or "?",
                detail=t.detail or "refused",
            )
        elif f.endpoint:
            hostport = f.endpoint.partition("://")[2]
            out["host"], _, out["port"] = hostport.partition(":")
    if facts.auth_sent:
        out["auth_sent"] = facts.auth_sent
        if facts.auth_sent.startswith("basic"):
            out["auth_hint"] = (
                ": the client used its own basic auth instead of a Keystone "
                "token (set OS_AUTH_TYPE=password)"
            )
    if facts.client_error is not None:
        out["client_error"] = facts.client_error.text
        out["client_error_class"] = facts.client_error.error_class
    if facts.exception is not None:
        exc = facts.exception
        out.update(
            {
                "exception_type": exc.type,
                "exception_text": exc.message,
                "exception_frame": exc.frame,
                "exception_package": exc.package,
            }
        )
        if exc.installs:
            where = "; ".join(f"{', '.join(pkgs)} from {root}" for root, pkgs in exc.installs)
            out["installs_note"] = (
                f" The traceback runs through {len(exc.installs)} installations: {where}."
            )
    who = []
    if facts.auth.get("user"):
        who.append(f"user {facts.auth['user']}")
    if facts.auth.get("project"):
        who.append(f"on project {facts.auth['project']}")
    out["attempts"] = facts.attempts
    out["attempts_note"] = f", after {facts.attempts} attempts" if facts.attempts else ""
    out["auth_who"] = " ".join(who) if who else "the credentials"
    for key in ("user", "project", "user_domain", "project_domain", "auth_type"):
        out[key if key.startswith("auth") else f"auth_{key}"] = facts.auth.get(key, "")
    if facts.async_failure is not None:
        af = facts.async_failure
        out.update(
            {"async_resource": af.resource, "async_status": af.status, "async_fault": af.fault}
        )
        out["async_type"] = af.type
        out["async_what"] = _what(af.type, af.resource)
        out["async_fault_short"] = short(unnested(af.fault), 2 * _SHORT)
    out.update(server.leading(facts.server))
    return out


def _what(kind: str, name: str) -> str:
    """``Server web``, ``The node``, ``Stack resource data``: how a title names a
    resource shown in an error state."""
    if not name.startswith("the "):
        return f"{kind[:1].upper()}{kind[1:]} {name}" if kind else name
    return f"The {kind}" if kind else "The resource"
