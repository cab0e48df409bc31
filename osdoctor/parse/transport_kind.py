"""What kind of transport failure a client's message describes: the one
classifier, for the parser's exchanges and for the facts of a text-only paste.

keystoneauth, requests and urllib3 nest their causes (``ConnectFailure:
Unable to establish connection to URL: HTTPSConnectionPool(...): Max retries
exceeded ... (Caused by NewConnectionError(...: [Errno 110] Connection timed
out))``), and each library version words them differently
(``NewConnectionError``, ``ConnectTimeoutError``, ``NameResolutionError``,
``[Errno -2]``, ``SSLError`` with ``wrong version number``, ``ProxyError``);
Go's net/http words them its own way (``no such host``, ``x509: certificate
signed by unknown authority``, ``server gave HTTP response to HTTPS client``).
The kinds are what an operator acts on: nothing listening, a firewall
dropping packets, a name that does not resolve, a certificate not trusted,
https spoken to a plain-HTTP port, a proxy in the way. The most specific
cause decides: a proxy's refusal outranks what it was refusing, a
DiscoveryFailure's SSL or connection error outranks the discovery.
"""

from __future__ import annotations

import re
from typing import Literal

from osdoctor import regex
from osdoctor.model import TransportKind

Cause = Literal[
    "proxy",
    "tls-version",
    "tls-verify",
    "dns",
    "refused",
    "timeout",
    "reset",
    "closed",
    "unreachable",
    "tls",
    "connection",
]
"""The finer kind of a transport failure, as its words say it; an exchange keeps
it as its ``TransportKind`` and detail (see ``transport_failure``)."""

# Most specific first.
_KINDS: list[tuple[Cause, regex.Pattern[str]]] = [
    ("proxy", regex.compile(r"ProxyError|Tunnel connection failed|Cannot connect to proxy", re.I)),
    (
        "tls-version",
        regex.compile(
            r"wrong version number|WRONG_VERSION_NUMBER|"
            r"unknown protocol|record layer failure|"
            r"first record does not look like a TLS handshake|"
            r"server gave HTTP response to HTTPS client",
            re.I,
        ),
    ),
    (
        "tls-verify",
        regex.compile(
            r"CERTIFICATE_VERIFY_FAILED|certificate verify failed|"
            r"self[- ]signed certificate|unable to get local issuer|"
            r"hostname .* doesn't match|certificate is not valid for|"
            r"x509: certificate (?:signed by unknown authority|is valid for|has expired)",
            re.I,
        ),
    ),
    (
        "dns",
        regex.compile(
            r"NameResolutionError|Failed to resolve|Name or service not known|"
            r"nodename nor servname|Temporary failure in name resolution|"
            r"getaddrinfo failed|No address associated|\[Errno -[235]\]|"
            r"\blookup \S+ on \S+: no such host|: no such host\b|server misbehaving",
            re.I,
        ),
    ),
    (
        "refused",
        regex.compile(
            r"Connection refused|\[Errno (?:111|61)\]|ECONNREFUSED|"
            r"actively refused",
            re.I,
        ),
    ),
    ("timeout", regex.compile(r"timed out|Timeout|\[Errno 110\]|ETIMEDOUT", re.I)),
    ("reset", regex.compile(r"Connection reset|\[Errno 104\]|ConnectionResetError", re.I)),
    (
        "closed",
        regex.compile(
            r"Connection aborted|Remote end closed connection|RemoteDisconnected|"
            r"BadStatusLine|connection was closed",
            re.I,
        ),
    ),
    (
        "unreachable",
        regex.compile(
            r"No route to host|Network is unreachable|\[Errno 11[13]\]|\[Errno 101\]", re.I
        ),
    ),
    ("tls", regex.compile(r"SSL|TLS|handshake|certificate", re.I)),
]

#: The exchange's kind (``model.TransportError.kind``, what request conditions
#: name) and detail for each finer kind.
_EXCHANGE_KIND: dict[Cause, tuple[TransportKind, str | None]] = {
    "tls-version": ("tls", "wrong-version"),
    "tls-verify": ("tls", "certificate"),
    "tls": ("tls", None),
    "dns": ("dns", None),
    "refused": ("connection-refused", None),
    "timeout": ("timeout", None),
    "reset": ("connection-reset", None),
    "closed": ("connection", "closed"),
    "unreachable": ("connection", "unreachable"),
    "connection": ("connection", None),
}
#: The finer kind an exchange's (kind, detail) stands for: the facts read it back
#: instead of classifying the message again.
_FINER: dict[tuple[TransportKind, str | None], Cause] = {v: k for k, v in _EXCHANGE_KIND.items()}
_PROXY_ANSWER = regex.compile(r"Tunnel connection failed: (\d{3}[^'\")]*)")


def kind_of(message: str) -> Cause:
    """The finer kind of a failure message: "proxy", "tls-version", "tls-verify",
    "dns", "refused", "timeout", "reset", "closed", "unreachable", "tls" or
    "connection"."""
    for kind, rx in _KINDS:
        if rx.search(message):
            return kind
    return "connection"


def transport_failure(message: str) -> tuple[TransportKind, str | None]:
    """(kind, detail) of a failure message, as an exchange records it; see
    ``model.TransportError``."""
    kind = kind_of(message)
    if kind == "proxy":
        m = _PROXY_ANSWER.search(message)
        return "proxy", m.group(1).strip() if m else None
    return _EXCHANGE_KIND[kind]


def tls_detail(message: str) -> str | None:
    """ "wrong-version" or "certificate" when a TLS message names which."""
    for kind, rx in _KINDS[1:3]:
        if rx.search(message):
            return _EXCHANGE_KIND[kind][1]
    return None


_SSL_MARKER = "SSL exception connecting to "
_MARKERS = ("Unable to establish connection to ", _SSL_MARKER)


def named_in(text: str) -> tuple[str, TransportKind, str | None] | None:
    """(url, kind, detail) of the failure keystoneauth names in ``text``: its
    "Unable to establish connection to URL: cause" or "SSL exception connecting
    to URL: cause", at the start of a line or inside a longer message (a
    DiscoveryFailure's summary, ``ERROR (ConnectFailure): ...``)."""
    for marker in _MARKERS:
        at = text.find(marker)
        if at < 0:
            continue
        url, _, cause = text[at + len(marker) :].partition(": ")
        if marker is _SSL_MARKER:
            return url, "tls", tls_detail(cause)
        return url, *transport_failure(cause)
    return None


def finer_kind(kind: TransportKind, detail: str | None) -> Cause:
    """The finer kind of an exchange's recorded (kind, detail)."""
    if kind == "proxy":
        return "proxy"
    return _FINER.get((kind, detail), _FINER.get((kind, None), "connection"))
