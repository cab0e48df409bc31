"""Which hosts a probe may contact: those the log names, as the user mapped them.

A debug log lists the URLs the client used and the token's catalog. Probes
only ever talk to those hosts (compared as ``host:port``), so that nothing is
sent to a host the user did not see in the consent prompt. ``--map`` lets the
user point a host of the log at another (a log captured elsewhere, a test
stub); the mapping is explicit and shown before anything is sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from osdoctor.model import Trace

_DEFAULT_PORTS = {"http": 80, "https": 443}


class MapError(ValueError):
    """A ``--map`` item that is not ``HOST:PORT=HOST:PORT``."""


def host_key(url: str) -> str | None:
    """``host:port`` of a URL (default port filled in), lower case; None without a host."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.scheme not in _DEFAULT_PORTS:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{port or _DEFAULT_PORTS[parts.scheme]}"


def _netloc_key(text: str) -> str:
    """One side of a ``--map`` item as a host key; the port is required (no guessing)."""
    key = host_key(f"http://{text.strip()}")
    if key is None or "/" in text or "@" in text or not text.strip().rsplit(":", 1)[-1].isdigit():
        raise MapError(f"'{text}' is not HOST:PORT")
    return key


def parse_maps(items: list[str]) -> dict[str, str]:
    """``--map LOGHOST:PORT=HOST:PORT`` items as host key -> host key."""
    out: dict[str, str] = {}
    for item in items:
        left, sep, right = item.partition("=")
        if not sep:
            raise MapError(f"--map {item}: expected LOGHOST:PORT=HOST:PORT")
        out[_netloc_key(left)] = _netloc_key(right)
    return out


@dataclass(slots=True)
class Scope:
    """The hosts of the log (after mapping): the only ones a probe may contact."""

    allowed: set[str] = field(default_factory=set)
    maps: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_trace(cls, trace: Trace, maps: dict[str, str] | None = None) -> Scope:
        maps = dict(maps or {})
        named: set[str] = set()
        urls = [ex.request.url for ex in trace.exchanges]
        urls += [u for endpoints in trace.catalog.values() for u in endpoints]
        for url in urls:
            key = host_key(url)
            if key is not None:
                named.add(maps.get(key, key))
        return cls(named, maps)

    def map_url(self, url: str) -> str:
        """The URL with its host replaced as the user mapped it (unchanged otherwise)."""
        key = host_key(url)
        target = self.maps.get(key or "")
        if target is None:
            return url
        parts = urlsplit(url)
        return urlunsplit((parts.scheme, target, parts.path, parts.query, parts.fragment))

    def allows(self, url: str) -> bool:
        key = host_key(url)
        return key is not None and key in self.allowed
