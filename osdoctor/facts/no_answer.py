"""Why a request got no HTTP answer: the host, the port and the library's words.

The kind comes from the parser (``osdoctor.parse.transport_kind``, the one
classifier): an exchange carries it; a text-only paste is classified here
from its words with the same table.
"""

from __future__ import annotations

import re

from osdoctor import regex
from osdoctor.facts.facts_model import Transport, TransportClass
from osdoctor.model import TransportKind
from osdoctor.parse import transport_kind as parsed

_NO_HOST = regex.compile(r"https?://:(\d+)")
_HOST = regex.compile(r"host='(?P<host>[^']+)',\s*port=(?P<port>[^)\s,]+)")
_URL = regex.compile(
    # A host the poster replaced with "<API host>" is still one host.
    r"(?P<url>https?://(?P<host>\[[^\]]+\]|<[^<>]{1,40}>|[^/:\s'\"]+)(?::(?P<port>[^/\s'\"]+))?"
    r"[^\s'\"]*)"
)
_DETAIL = regex.compile(
    r"(\[Errno -?\d+\][^'\")]*|wrong version number|"
    r"CERTIFICATE_VERIFY_FAILED[^'\")]*|certificate verify failed[^'\")]*|"
    r"Tunnel connection failed: \d{3}[^'\",()]*(?:\('?\w+'?\))?|"
    r"Failed to resolve '[^']+'|"
    r"Remote end closed connection without response|Connection reset by peer|"
    r"timed out|Connection refused)",
    re.I,
)


# Why a certificate was refused, in OpenSSL's words.
_VERIFY_WHY = regex.compile(
    r"(?:Hostname|IP address) mismatch, certificate is not valid for '?(?P<named>[^'\s\")]+)'?|"
    r"unable to get local issuer certificate|self[- ]signed certificate(?: in certificate chain)?|"
    r"certificate has expired"
)


def of_exchange(kind: TransportKind, detail: str | None, message: str, url: str) -> Transport:
    """The transport failure an exchange recorded, in the kind the parser gave it;
    only a discovery failure the parser could not refine is read again."""
    if kind == "discovery":
        return classify(message, url)
    return _transport(parsed.finer_kind(kind, detail), message, url)


def classify(message: str, url: str = "") -> Transport:
    """The kind of a transport failure named only in text (a paste of the
    client's output, its final error line), and the host it was for."""
    return _transport(parsed.kind_of(message), message, url)


#: The class a rule names for each cause the words give: for the operator, a
#: connection closed without an answer is a reset.
_CLASS: dict[parsed.Cause, TransportClass] = {
    "proxy": "proxy",
    "tls-version": "tls-version",
    "tls-verify": "tls-verify",
    "dns": "dns",
    "refused": "refused",
    "timeout": "timeout",
    "reset": "reset",
    "closed": "reset",
    "unreachable": "unreachable",
    "tls": "tls",
    "connection": "connection",
}


def _transport(cause: parsed.Cause, message: str, url: str) -> Transport:
    kind = _CLASS[cause]
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
        else:
            bare = _NO_HOST.match(target)  # "http://:9292/...": a port and no host
            port = bare.group(1) if bare else port
    if target and not port:
        port = "443" if target.startswith("https:") else "80"
    d = _DETAIL.search(message)
    detail = d.group(1).strip() if d else ""
    if kind == "tls-verify":
        why = _VERIFY_WHY.search(message)
        detail = (
            f"CERTIFICATE_VERIFY_FAILED ({why.group(0)})" if why else "CERTIFICATE_VERIFY_FAILED"
        )
        if not host and why and why.group("named"):
            host = why.group("named")  # the certificate does not name the host connected to
    return Transport(kind, host, port, target, detail)


# The lines a client prints when a request got no answer (shell errors and
# keystoneauth's wording). Discovery warnings are not failures: the client
# falls back and the real outcome comes later.
SIGNS = regex.compile(
    r"Unable to establish connection to|SSL exception connecting to|"
    r"Max retries exceeded with url|Failed to establish a new connection|"
    r"Connection refused|Connection timed out|Read timed out|ConnectFailure|ConnectTimeout|"
    r"NameResolutionError|ProxyError|CERTIFICATE_VERIFY_FAILED"
)
