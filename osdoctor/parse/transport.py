"""What kind of transport failure a client's message describes.

keystoneauth, requests and urllib3 nest their causes (``ConnectFailure:
Unable to establish connection to URL: HTTPSConnectionPool(...): Max retries
exceeded ... (Caused by NewConnectionError(...: [Errno 110] Connection timed
out))``); the innermost cause decides, and a proxy's refusal outranks what it
was refusing.
"""

from __future__ import annotations

import re

from osdoctor.model import TransportKind

_PROXY_ANSWER = re.compile(r"Tunnel connection failed: (\d{3}[^'\")]*)")


def transport_failure(message: str) -> tuple[TransportKind, str | None]:
    """(kind, detail) of a failure message; see ``model.TransportError``."""
    low = message.lower()
    if "proxyerror" in low or "tunnel connection failed" in low or "cannot connect to proxy" in low:
        m = _PROXY_ANSWER.search(message)
        return "proxy", m.group(1).strip() if m else None
    if "connection refused" in low or "errno 111]" in low or "errno 61]" in low:
        return "connection-refused", None
    if tls_detail(message) is not None:
        return "tls", tls_detail(message)
    if "timed out" in low or "timeout" in low or "errno 110]" in low:
        return "timeout", None
    if "ssl" in low or "certificate" in low or "tls" in low:
        return "tls", tls_detail(message)
    if (
        "name or service not known" in low
        or "nodename nor servname" in low
        or "temporary failure in name resolution" in low
        or "getaddrinfo" in low
        or "nameresolutionerror" in low
        or "failed to resolve" in low
        or "no address associated with hostname" in low
    ):
        return "dns", None
    if "connection reset" in low or "errno 104]" in low or "connectionreseterror" in low:
        return "connection-reset", None
    if "remotedisconnected" in low or "remote end closed" in low:
        return "connection", "closed"
    return "connection", None


def tls_detail(message: str) -> str | None:
    low = message.lower()
    if "certificate_verify_failed" in low or "certificate verify failed" in low:
        return "certificate"
    if "wrong version number" in low or "wrong_version_number" in low:
        return "wrong-version"
    return None
