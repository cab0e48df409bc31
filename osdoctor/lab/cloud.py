"""The stub cloud's built-in behaviour: Keystone, and each service's version documents.

These answers make every case work without scripting anything but the requests
that matter to it. Scripted routes are tried first, so a case can still
replace any of them (a 404 on discovery, a Keystone that answers 500...).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from osdoctor.lab import fakes
from osdoctor.lab.case_placeholders import expand_text
from osdoctor.lab.config import CatalogEntry, Fault, StubConfig
from osdoctor.lab.fault_bodies import JSON, fault_body
from osdoctor.lab.logspec import LogSpec

#: The fault style of each service type's error bodies.
FAULT_STYLE: Mapping[str, str] = {
    "identity": "keystone",
    "orchestration": "heat",
    "compute": "nova",
    "network": "neutron",
    "baremetal": "ironic",
    "volumev3": "cinder",
    "block-storage": "cinder",
    "placement": "placement",
    "dns": "designate",
    "key-manager": "barbican",
    "load-balancer": "octavia",
}

SERVICE_NAMES: Mapping[str, str] = {
    "identity": "keystone",
    "orchestration": "heat",
    "compute": "nova",
    "image": "glance",
    "network": "neutron",
    "object-store": "swift",
    "baremetal": "ironic",
    "volumev3": "cinderv3",
    "block-storage": "cinderv3",
    "placement": "placement",
    "dns": "designate",
    "key-manager": "barbican",
    "load-balancer": "octavia",
}

IRONIC_VERSION_HEADER = "X-OpenStack-Ironic-API-Version"
IRONIC_MIN_HEADER = "X-OpenStack-Ironic-API-Minimum-Version"
IRONIC_MAX_HEADER = "X-OpenStack-Ironic-API-Maximum-Version"

_VERSION_SEGMENT = re.compile(r"/v\d[^/]*")


@dataclass(slots=True)
class Reply:
    """A complete answer, ready to send (``body`` is text, JSON-able data or None)."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    drop: bool = False
    reset: bool = False
    hang: bool = False
    delay: float = 0.0
    interrupt: bool = False
    """The client is to be interrupted once it has this reply (a case's Ctrl-C)."""
    reason: str | None = None
    """The reason phrase, when not the standard one."""
    server: str | None = None
    """The Server header, when not the stub's; "" sends none (and no Date either)."""
    balancer: bool = False
    """Answered by a load balancer: none of the OpenStack headers are added."""
    log: tuple[LogSpec, ...] = ()
    """What the service writes in its own log for this answer (see ``servicelogs``)."""


def _stable_id(*parts: str) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:32]


def service_root(prefix: str) -> str:
    """The unversioned root of a service prefix (``/heat-api/v1/p`` -> ``/heat-api``)."""
    match = _VERSION_SEGMENT.search(prefix)
    root = prefix[: match.start()] if match else prefix
    return root or "/"


def _version_tuple(text: str) -> tuple[int, int] | None:
    major, _, minor = text.partition(".")
    if major.isdigit() and minor.isdigit():
        return int(major), int(minor)
    return None


class Cloud:
    """Keystone and the version documents of the configured services."""

    def __init__(self, config: StubConfig, base_url: str) -> None:
        self.config = config
        self.base_url = base_url
        self.prefixes = {
            kind: expand_text(prefix, {"project_id": fakes.PROJECT_ID})
            for kind, prefix in config.services.items()
        }

    # -- layout ------------------------------------------------------------
    def endpoint(self, kind: str) -> str:
        """Where the stub serves ``kind``."""
        return self.base_url + self.prefixes[kind].rstrip("/")

    def catalog_url(self, kind: str) -> str:
        """The URL the catalog gives for ``kind`` (a case may list it elsewhere)."""
        entry = self.config.catalog.get(kind)
        if entry is None or entry.url is None:
            return self.endpoint(kind)
        return expand_text(entry.url, self._layout_values())

    def _layout_values(self) -> dict[str, str]:
        return {
            "base_url": self.base_url,
            "host": self.config.host,
            "port": self.base_url.rsplit(":", 1)[1],
            "project_id": fakes.PROJECT_ID,
        }

    def service_of(self, path: str) -> str | None:
        """The service type whose root holds ``path`` (longest match wins)."""
        best: tuple[int, str] | None = None
        for kind, prefix in self.prefixes.items():
            root = service_root(prefix).rstrip("/")
            if path == root or path.startswith(root + "/") or root == "":
                if best is None or len(root) > best[0]:
                    best = (len(root), kind)
        return best[1] if best else None

    def values(self) -> dict[str, str]:
        """The built-in placeholders (see the lab README)."""
        values = {
            **self._layout_values(),
            "project_name": fakes.PROJECT_NAME,
            "user_id": fakes.USER_ID,
            "user_name": fakes.USER_NAME,
            "password": fakes.PASSWORD,
            "token": fakes.TOKEN,
            "extra_secret": fakes.EXTRA_SECRET,
            "second_secret": fakes.SECOND_SECRET,
            "passphrase": fakes.PASSPHRASE,
            "random_password": fakes.RANDOM_PASSWORD,
            "random_key": fakes.RANDOM_KEY,
            "region": fakes.REGION,
            "auth_url": self.endpoint("identity") + "/v3",
        }
        for kind in self.prefixes:
            values[f"url.{kind}"] = self.catalog_url(kind)
            values[f"prefix.{kind}"] = self.prefixes[kind]
        return values

    def not_found(self, path: str) -> Reply:
        """The 404 the service owning ``path`` would give for an unknown resource."""
        kind = self.service_of(path)
        style = FAULT_STYLE.get(kind or "", "plain")
        body, content_type = fault_body(
            Fault(style=style, message="The resource could not be found."), 404
        )
        return Reply(404, {"Content-Type": content_type}, body)

    # -- built-in answers ----------------------------------------------------
    def answer(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes
    ) -> Reply | None:
        """The built-in answer for a request, or None when the cloud knows no such path."""
        identity = self.prefixes["identity"].rstrip("/")
        if path.rstrip("/") == identity + "/v3/auth/tokens":
            return self._token(body) if method == "POST" else None
        if method not in ("GET", "HEAD"):
            return None
        if path in (identity, identity + "/"):
            return Reply(300, {"Content-Type": JSON}, {"versions": {"values": [self._v3()]}})
        if path in (identity + "/v3", identity + "/v3/"):
            return Reply(200, {"Content-Type": JSON}, {"version": self._v3()})
        kind = self.service_of(path)
        if kind is None:
            return None
        root = service_root(self.prefixes[kind]).rstrip("/")
        rest = path[len(root) :].strip("/")
        documents = {
            "compute": self._compute,
            "image": self._image,
            "network": self._network,
            "block-storage": self._volume,
            "volumev3": self._volume,
            "orchestration": self._orchestration,
            "baremetal": self._baremetal,
        }
        make = documents.get(kind)
        return make(root, rest) if make else None

    def ironic_guard(self, path: str, headers: Mapping[str, str]) -> Reply | None:
        """Ironic's 406 for a requested version outside the announced range."""
        if self.service_of(path) != "baremetal":
            return None
        requested = next(
            (v for k, v in headers.items() if k.lower() == IRONIC_VERSION_HEADER.lower()), None
        )
        if requested is None or requested == "latest":
            return None
        wanted = _version_tuple(requested)
        low = _version_tuple(self.config.ironic.min_version)
        high = _version_tuple(self.config.ironic.max_version)
        if wanted is None or low is None or high is None or low <= wanted <= high:
            return None
        message = (
            f"Version {requested} was requested but the minor version is not supported by "
            f"this service. The supported version range is: "
            f"[{self.config.ironic.min_version}, {self.config.ironic.max_version}]."
        )
        body, content_type = fault_body(Fault(style="ironic", message=message), 406)
        return Reply(406, {"Content-Type": content_type}, body)

    def ironic_headers(self) -> dict[str, str]:
        if not self.config.ironic.headers:
            return {}
        return {
            IRONIC_MIN_HEADER: self.config.ironic.min_version,
            IRONIC_MAX_HEADER: self.config.ironic.max_version,
        }

    # -- Keystone --------------------------------------------------------------
    def _v3(self) -> dict[str, Any]:
        return {
            "id": "v3.14",
            "status": "stable",
            "updated": "2020-04-07T00:00:00Z",
            "links": [{"rel": "self", "href": self.endpoint("identity") + "/v3/"}],
            "media-types": [
                {"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}
            ],
        }

    def _token(self, raw: bytes) -> Reply:
        if self.config.auth == "refuse" or not self._credentials_ok(raw):
            body, content_type = fault_body(
                Fault(
                    style="keystone",
                    message="The request you have made requires authentication.",
                ),
                401,
            )
            return Reply(
                401,
                {
                    "Content-Type": content_type,
                    "WWW-Authenticate": f'Keystone uri="{self.endpoint("identity")}"',
                },
                body,
            )
        return Reply(
            201,
            {"Content-Type": JSON, "X-Subject-Token": fakes.TOKEN},
            {"token": self._token_body(raw)},
        )

    def _credentials_ok(self, raw: bytes) -> bool:
        try:
            identity = json.loads(raw or b"{}")["auth"]["identity"]
        except (ValueError, KeyError, TypeError):
            return False
        if "password" not in identity.get("methods", []):
            return True
        user = identity.get("password", {}).get("user", {})
        name_ok = user.get("name", self.config.username) == self.config.username
        id_ok = user.get("id", fakes.USER_ID) == fakes.USER_ID
        return bool(name_ok and id_ok and user.get("password") == self.config.password)

    def _token_body(self, raw: bytes) -> dict[str, Any]:
        try:
            methods = json.loads(raw)["auth"]["identity"]["methods"]
        except (ValueError, KeyError, TypeError):
            methods = ["password"]
        domain = {"id": fakes.DOMAIN_ID, "name": fakes.DOMAIN_NAME}
        return {
            "methods": methods,
            "user": {
                "domain": domain,
                "id": fakes.USER_ID,
                "name": self.config.username,
                "password_expires_at": None,
            },
            "audit_ids": ["bGFiLWF1ZGl0LWlkLTAx"],
            "expires_at": fakes.TOKEN_EXPIRES_AT,
            "issued_at": fakes.TOKEN_ISSUED_AT,
            "project": {"domain": domain, "id": fakes.PROJECT_ID, "name": fakes.PROJECT_NAME},
            "is_domain": False,
            "roles": [
                {"id": _stable_id("role", name), "name": name}
                for name in ("admin", "member", "reader")
            ],
            "catalog": self._catalog(),
        }

    def _catalog(self) -> list[dict[str, Any]]:
        entries = []
        for kind in self.prefixes:
            entry = self.config.catalog.get(kind) or CatalogEntry()
            region = entry.region or fakes.REGION
            entries.append(
                {
                    "endpoints": [
                        {
                            "id": _stable_id("endpoint", kind, interface),
                            "interface": interface,
                            "region_id": region,
                            "url": self.catalog_url(kind),
                            "region": region,
                        }
                        for interface in entry.interfaces
                    ],
                    "id": _stable_id("service", kind),
                    "type": kind,
                    "name": SERVICE_NAMES.get(kind, kind),
                }
            )
        return entries

    # -- version documents -------------------------------------------------------
    def _link(self, root: str, version: str) -> list[dict[str, str]]:
        return [{"rel": "self", "href": f"{self.base_url}{root}/{version}/"}]

    def _compute(self, root: str, rest: str) -> Reply | None:
        v21 = {
            "id": "v2.1",
            "status": "CURRENT",
            "version": "2.100",
            "min_version": "2.1",
            "updated": "2013-07-23T11:33:21Z",
            "links": self._link(root, "v2.1"),
            "media-types": [
                {
                    "base": "application/json",
                    "type": "application/vnd.openstack.compute+json;version=2.1",
                }
            ],
        }
        if rest == "":
            v20 = dict(
                v21,
                id="v2.0",
                status="SUPPORTED",
                version="",
                min_version="",
                updated="2011-01-21T11:33:21Z",
                links=self._link(root, "v2"),
            )
            return Reply(200, {"Content-Type": JSON}, {"versions": [v20, v21]})
        if rest == "v2.1":
            return Reply(200, {"Content-Type": JSON}, {"version": v21})
        return None

    def _image(self, root: str, rest: str) -> Reply | None:
        if rest not in ("", "v2"):
            return None
        versions = [
            {
                "id": f"v2.{minor}",
                "status": "CURRENT" if minor == 17 else "SUPPORTED",
                "links": self._link(root, "v2"),
            }
            for minor in (17, 16, 15, 9, 7, 6, 5, 4, 3, 2, 1, 0)
        ]
        return Reply(300, {"Content-Type": JSON}, {"versions": versions})

    def _volume(self, root: str, rest: str) -> Reply | None:
        """Cinder's version list, at its root (300) and under /v3 (200)."""
        if rest not in ("", "v3", f"v3/{fakes.PROJECT_ID}"):
            return None
        v3 = {
            "id": "v3.0",
            "status": "CURRENT",
            "version": "3.71",
            "min_version": "3.0",
            "updated": "2023-08-31T00:00:00Z",
            "links": self._link(root, "v3"),
            "media-types": [
                {
                    "base": "application/json",
                    "type": "application/vnd.openstack.volume+json;version=3",
                }
            ],
        }
        return Reply(300 if rest == "" else 200, {"Content-Type": JSON}, {"versions": [v3]})

    def _network(self, root: str, rest: str) -> Reply | None:
        if rest == "":
            versions = [{"id": "v2.0", "status": "CURRENT", "links": self._link(root, "v2.0")}]
            return Reply(200, {"Content-Type": JSON}, {"versions": versions})
        if rest == "v2.0":
            return Reply(200, {"Content-Type": JSON}, {"resources": []})
        return None

    def _orchestration(self, root: str, rest: str) -> Reply | None:
        if rest != "":
            return None
        versions = [{"id": "v1.0", "status": "CURRENT", "links": self._link(root, "v1")}]
        return Reply(300, {"Content-Type": JSON}, {"versions": versions})

    def _baremetal(self, root: str, rest: str) -> Reply | None:
        ironic = self.config.ironic
        version = {
            "id": "v1",
            "links": self._link(root, "v1"),
            "status": "CURRENT",
            "min_version": ironic.min_version,
            "version": ironic.max_version,
        }
        headers = {"Content-Type": JSON}
        if rest == "":
            body = {
                "name": "OpenStack Ironic API",
                "description": "Ironic is an OpenStack project which enables the provision "
                "and management of baremetal machines.",
                "default_version": version,
                "versions": [version],
            }
            return Reply(200, headers, body)
        if rest == "v1":
            body = {
                "id": "v1",
                "links": self._link(root, "v1"),
                "media_types": [
                    {"base": "application/json", "type": "application/vnd.openstack.ironic.v1+json"}
                ],
                "version": version,
            }
            return Reply(200, headers, body)
        return None
