"""Which service a URL belongs to, and its path without the endpoint prefix.

The token's catalog says it exactly when the log has it. When it does not (a
log cut before authentication, a ``--os-endpoint`` run), well-known path
prefixes and the default ports (``knowledge/services.yaml``) decide.
"""

from __future__ import annotations

from typing import Any

from osdoctor import regex
from osdoctor.parse.http_text import split_url
from osdoctor.servicetable import table

# (pattern on the URL path, service type). The first group is the prefix to strip.
_KNOWN: list[tuple[regex.Pattern[str], str]] = [
    (
        regex.compile(r"^((?:/[\w.\-]+)*?/(?:heat-api|orchestration)/v1/[^/]+)(?=/|$)"),
        "orchestration",
    ),
    (
        regex.compile(
            r"^(/v1/[^/]+)(?=/stacks|/software_|/resource_types|/build_info|/template_versions|/validate)"
        ),
        "orchestration",
    ),
    (regex.compile(r"^((?:/[\w.\-]+)*?/(?:identity|keystone))(?=/v[23]|/|$)"), "identity"),
    (regex.compile(r"^()(?=/v3/auth|/v3/?$|/v2\.0/tokens|/v3/users|/v3/projects)"), "identity"),
    (regex.compile(r"^((?:/[\w.\-]+)*?/compute)(?=/|$)"), "compute"),
    (
        regex.compile(r"^(/v2\.1(?:/[0-9a-f]{32})?)(?=/servers|/flavors|/os-|/limits|/images|$|/)"),
        "compute",
    ),
    (regex.compile(r"^((?:/[\w.\-]+)*?/image)(?=/|$)"), "image"),
    (regex.compile(r"^()(?=/v2/images|/v2/schemas)"), "image"),
    (regex.compile(r"^((?:/[\w.\-]+)*?/(?:network|networking))(?=/|$)"), "network"),
    (
        regex.compile(r"^()(?=/v2\.0/(?:networks|subnets|ports|routers|floatingips|security))"),
        "network",
    ),
    (
        regex.compile(r"^((?:/[\w.\-]+)*?/(?:swift|object-store))?(/v1/AUTH_[^/]+)(?=/|$)"),
        "object-store",
    ),
    (
        regex.compile(r"^()(?=/v1/i(?:hosts|system|partitions|profiles|storconfig|interfaces)\b)"),
        "platform",
    ),  # StarlingX sysinv, which shares ironic's port
    (regex.compile(r"^((?:/[\w.\-]+)*?/(?:baremetal|ironic))(?=/|$)"), "baremetal"),
    (
        regex.compile(r"^()(?=/v1/(?:nodes|ports|portgroups|chassis|drivers|allocations)|/v1/?$)"),
        "baremetal",
    ),
]


class ServiceMap:
    """Maps request URLs to (service, path) using the catalog once it is known."""

    def __init__(self) -> None:
        self.endpoints: list[tuple[str, str]] = []
        """(endpoint URL without trailing slash, service type), longest first."""
        self._cache: dict[str, tuple[str | None, str]] = {}

    def learn_catalog(self, token: Any) -> dict[str, list[str]]:
        """Read a token body's catalog (Keystone v3, or v2's ``access``); returns
        service type -> URLs."""
        found: dict[str, list[str]] = {}
        for stype, url in _catalog_urls(token):
            urls = found.setdefault(stype, [])
            if url not in urls:
                urls.append(url)
            self.endpoints.append((url, stype))
        if found:
            self.endpoints.sort(key=lambda item: len(item[0]), reverse=True)
            self._cache.clear()
        return found

    def locate(self, url: str) -> tuple[str | None, str]:
        """The service and the path below its endpoint (query excluded)."""
        key = url.partition("?")[0]
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) > 4096:
                self._cache.clear()
            found = self._cache[key] = self._locate(key)
        return found

    def _locate(self, url: str) -> tuple[str | None, str]:
        for endpoint, stype in self.endpoints:
            after = url[len(endpoint) : len(endpoint) + 1]
            if url.startswith(endpoint) and after in ("", "/", "?"):
                rest = url[len(endpoint) :].partition("?")[0]
                return stype, rest or "/"
        base, path, _ = split_url(url)
        for pattern, stype in _KNOWN:
            m = pattern.match(path)
            if m:
                prefix = "".join(g for g in m.groups() if g)
                if stype == "object-store":
                    prefix = m.group(1) or ""
                return stype, path[len(prefix) :] or "/"
        port = base.rpartition(":")[2]
        return table().type_at_port(port) or None, path


def _catalog_urls(token: Any) -> list[tuple[str, str]]:
    """(service type, endpoint URL) of a v3 token (``{"token": {"catalog": [{"type",
    "endpoints": [{"url"}]}]}}``) or a v2 one (``{"access": {"serviceCatalog":
    [{"type", "endpoints": [{"publicURL", "internalURL", "adminURL"}]}]}}``)."""
    if not isinstance(token, dict):
        return []
    inner = token.get("token")
    keys: tuple[str, ...]
    if isinstance(inner, dict):
        catalog, keys = inner.get("catalog"), ("url",)
    else:
        access = token.get("access")
        if not isinstance(access, dict):
            return []
        catalog, keys = access.get("serviceCatalog"), ("publicURL", "internalURL", "adminURL")
    out: list[tuple[str, str]] = []
    if not isinstance(catalog, list):
        return out
    for service in catalog:
        if not isinstance(service, dict):
            continue
        stype = str(service.get("type") or "")
        for endpoint in service.get("endpoints") or []:
            if isinstance(endpoint, dict):
                out.extend(
                    (stype, str(endpoint[key]).rstrip("/")) for key in keys if endpoint.get(key)
                )
    return out
