"""Why a request got no HTTP answer, from the words requests/urllib3/keystoneauth print.

Each library version words it differently (``NewConnectionError``,
``ConnectTimeoutError``, ``NameResolutionError``, ``[Errno -2]``, ``SSLError``
with ``wrong version number``, ``ProxyError``...); the kinds here are what an
operator acts on: nothing listening, a firewall dropping packets, a name that
does not resolve, a certificate not trusted, https spoken to a plain-HTTP
port, a proxy in the way.
"""

from __future__ import annotations

import re

from osdoctor.facts.model import Transport, TransportClass

# Most specific first: a ProxyError wraps the tunnel's own failure, a
# DiscoveryFailure wraps the SSL or connection error that caused it.
_KINDS: list[tuple[TransportClass, re.Pattern[str]]] = [
    ("proxy", re.compile(r"ProxyError|Tunnel connection failed|Cannot connect to proxy", re.I)),
    (
        "tls-version",
        re.compile(
            r"wrong version number|WRONG_VERSION_NUMBER|"
            r"unknown protocol|record layer failure",
            re.I,
        ),
    ),
    (
        "tls-verify",
        re.compile(
            r"CERTIFICATE_VERIFY_FAILED|certificate verify failed|"
            r"self[- ]signed certificate|unable to get local issuer|"
            r"hostname .* doesn't match|certificate is not valid for",
            re.I,
        ),
    ),
    (
        "dns",
        re.compile(
            r"NameResolutionError|Failed to resolve|Name or service not known|"
            r"nodename nor servname|Temporary failure in name resolution|"
            r"getaddrinfo failed|No address associated|\[Errno -[235]\]",
            re.I,
        ),
    ),
    (
        "refused",
        re.compile(
            r"Connection refused|\[Errno 111\]|ECONNREFUSED|"
            r"actively refused",
            re.I,
        ),
    ),
    ("timeout", re.compile(r"timed out|Timeout|\[Errno 110\]|ETIMEDOUT", re.I)),
    (
        "reset",
        re.compile(
            r"Connection reset|\[Errno 104\]|Connection aborted|"
            r"Remote end closed connection|RemoteDisconnected|"
            r"BadStatusLine|connection was closed",
            re.I,
        ),
    ),
    (
        "unreachable",
        re.compile(
            r"No route to host|Network is unreachable|\[Errno 11[03]\]|"
            r"\[Errno 101\]",
            re.I,
        ),
    ),
    ("tls", re.compile(r"SSL|TLS|handshake", re.I)),
]
_HOST = re.compile(r"host='(?P<host>[^']+)',\s*port=(?P<port>[^)\s,]+)")
_URL = re.compile(
    r"(?P<url>https?://(?P<host>\[[^\]]+\]|[^/:\s'\"]+)(?::(?P<port>[^/\s'\"]+))?"
    r"[^\s'\"]*)"
)
_DETAIL = re.compile(
    r"(\[Errno -?\d+\][^'\")]*|wrong version number|"
    r"CERTIFICATE_VERIFY_FAILED[^'\")]*|certificate verify failed[^'\")]*|"
    r"Tunnel connection failed: \d{3}[^'\",()]*(?:\('?\w+'?\))?|"
    r"Failed to resolve '[^']+'|"
    r"Remote end closed connection without response|Connection reset by peer|"
    r"timed out|Connection refused)",
    re.I,
)


def kind_of(message: str) -> TransportClass:
    for kind, rx in _KINDS:
        if rx.search(message):
            return kind
    return "connection"


def classify(message: str, url: str = "") -> Transport:
    """The kind of a transport failure and the host it was for."""
    kind = kind_of(message)
    host = port = ""
    m = _HOST.search(message)
    if m:
        host, port = m.group("host"), m.group("port")
    target = url
    if not target:
        u = _URL.search(message)
        target = u.group("url").rstrip(":.,") if u else ""
    if target and not host:
        u = _URL.match(target)
        if u:
            host, port = u.group("host"), u.group("port") or ""
    if target and not port:
        port = "443" if target.startswith("https:") else "80"
    d = _DETAIL.search(message)
    detail = d.group(1).strip() if d else ""
    if kind == "tls-verify":
        detail = "CERTIFICATE_VERIFY_FAILED"
    return Transport(kind, host, port, target, detail)


# The lines a client prints when a request got no answer (shell errors and
# keystoneauth's wording). Discovery warnings are not failures: the client
# falls back and the real outcome comes later.
SIGNS = re.compile(
    r"Unable to establish connection to|SSL exception connecting to|"
    r"Max retries exceeded with url|Failed to establish a new connection|"
    r"Connection refused|Connection timed out|Read timed out|ConnectFailure|ConnectTimeout|"
    r"NameResolutionError|ProxyError|CERTIFICATE_VERIFY_FAILED"
)
