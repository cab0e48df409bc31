"""What the stub cloud plays: its catalog layout and its scripted routes, as data.

A case file's ``stub:`` and ``routes:`` sections are read into a
:class:`StubConfig`; the stub itself never reads YAML. Parsing checks every key
so that a typo in a case is an error naming the key, not a silent default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from osdoctor.lab import fakes
from osdoctor.lab.case_placeholders import expand_text
from osdoctor.lab.logspec import LogSpec, LogSpecError, parse_log

#: The fake secrets a case may name as the password the stub accepts.
_FAKE_VALUES = {
    "password": fakes.PASSWORD,
    "extra_secret": fakes.EXTRA_SECRET,
    "second_secret": fakes.SECOND_SECRET,
    "passphrase": fakes.PASSPHRASE,
    "random_password": fakes.RANDOM_PASSWORD,
    "random_key": fakes.RANDOM_KEY,
}

#: Service type -> path prefix under the stub's base URL, as put in the catalog.
#: ``{project_id}`` is replaced by the fake project's id.
DEFAULT_SERVICES: Mapping[str, str] = {
    "identity": "/identity",
    "orchestration": "/heat-api/v1/{project_id}",
    "compute": "/compute/v2.1",
    "image": "/image",
    "network": "/networking",
    "object-store": "/swift/v1/AUTH_{project_id}",
    "baremetal": "/baremetal",
}

FAULT_STYLES = (
    "heat",
    "ironic",
    "nova",
    "cinder",
    "keystone",
    "neutron",
    "placement",
    "webob",
    "designate",
    "barbican",
    "octavia",
    "haproxy",
    "nginx",
    "plain",
)
#: Styles whose answer comes from a load balancer, not from the service behind it.
BALANCER_STYLES = ("haproxy", "nginx")
INTERFACES = ("public", "internal", "admin")
PROXY_MODES = ("refuse",)


class ConfigError(ValueError):
    """A case or stub configuration that cannot be played; the message names the key."""


@dataclass(frozen=True, slots=True)
class Fault:
    """An error body shaped like the named service's (see ``faults.py``)."""

    style: str
    message: str
    type: str | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """One scripted answer; ``times`` consecutive requests get it."""

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    """A str is sent as is; anything else is sent as JSON."""
    fault: Fault | None = None
    times: int = 1
    drop: bool = False
    """Close the connection without answering (the client sees a dropped connection)."""
    reset: bool = False
    """Reset the connection (TCP RST) without answering: ``Connection reset by peer``."""
    delay: float = 0.0
    """Seconds to wait before answering (the client's own time-out may fire first)."""
    hang: bool = False
    """Never answer: hold the connection open until the stub stops."""
    interrupt: bool = False
    """Interrupt the client once it has this answer, as a user's Ctrl-C would: a
    capture signals it when its log shows the end of this exchange, or at once
    for an answer that never comes (``hang``). What the client does next is
    then never a matter of how fast the machine is."""
    log: tuple[LogSpec, ...] = ()
    """What the service writes in its own log while it gives this answer."""


@dataclass(frozen=True, slots=True)
class Route:
    """A request pattern and the queue of answers it plays in order."""

    method: str
    path: str
    answers: tuple[Answer, ...]
    service: str | None = None
    """When set, ``path`` is relative to this service's prefix."""
    query: Mapping[str, str] | None = None
    """Query parameters that must be present with these values (others are ignored)."""
    repeat_last: bool = True
    """When False, an exhausted route stops matching and the request falls through."""


@dataclass(frozen=True, slots=True)
class IronicVersions:
    """The Bare Metal API version range the stub announces and enforces."""

    min_version: str = "1.1"
    max_version: str = "1.115"
    headers: bool = True
    """When False, no X-OpenStack-Ironic-API-*-Version header is sent anywhere."""


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """How one service is listed in the catalog, when not as the stub serves it."""

    url: str | None = None
    """The endpoint URL written instead of the stub's (placeholders allowed)."""
    interfaces: tuple[str, ...] = INTERFACES
    region: str | None = None
    """The region of its endpoints (default: the fake region)."""


@dataclass(frozen=True, slots=True)
class StubConfig:
    host: str = "127.0.0.1"
    """The host name written in the catalog and version documents."""
    services: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SERVICES))
    auth: str = "accept"
    """``accept`` (checks the fake credentials) or ``refuse`` (every token request is 401)."""
    username: str = fakes.USER_NAME
    password: str = fakes.PASSWORD
    ironic: IronicVersions = field(default_factory=IronicVersions)
    vars: Mapping[str, str] = field(default_factory=dict)
    routes: tuple[Route, ...] = ()
    tls: bool = False
    """Serve HTTPS with a freshly made self-signed certificate (no client trusts it)."""
    catalog: Mapping[str, CatalogEntry] = field(default_factory=dict)
    """Per service type: how its catalog entry differs from the stub's own endpoint."""
    proxy: str | None = None
    """``refuse``: also run an HTTP proxy on 127.0.0.1 that answers every request 403."""
    log: tuple[LogSpec, ...] = ()
    """Records the services wrote before any request (a service that did not start)."""


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def check_keys(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    """Refuse keys outside ``allowed``: a typo must not become a silent default."""
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}")


def _str(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ConfigError(f"{where}: expected a string, got {type(value).__name__}")
    return str(value)


def _int(value: Any, where: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{where}: expected an integer >= {minimum}, got {value!r}")
    return value


def _seconds(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"{where}: expected a number of seconds >= 0, got {value!r}")
    return float(value)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    return value


def _str_map(value: Any, where: str) -> dict[str, str]:
    return {
        _str(key, where): _str(item, f"{where}.{key}")
        for key, item in _mapping(value, where).items()
    }


def parse_fault(data: Any, where: str) -> Fault:
    raw = _mapping(data, where)
    check_keys(raw, {"style", "message", "type"}, where)
    style = _str(raw.get("style", "plain"), f"{where}.style")
    if style not in FAULT_STYLES:
        raise ConfigError(f"{where}.style: expected one of {', '.join(FAULT_STYLES)}")
    if "message" not in raw:
        raise ConfigError(f"{where}.message: required")
    kind = raw.get("type")
    return Fault(
        style=style,
        message=_str(raw["message"], f"{where}.message"),
        type=None if kind is None else _str(kind, f"{where}.type"),
    )


def parse_answer(data: Any, where: str) -> Answer:
    raw = _mapping(data, where)
    check_keys(
        raw,
        {
            "status",
            "headers",
            "body",
            "fault",
            "times",
            "drop",
            "reset",
            "delay",
            "hang",
            "interrupt",
            "log",
        },
        where,
    )
    if "body" in raw and "fault" in raw:
        raise ConfigError(f"{where}: give body or fault, not both")
    if sum(bool(raw.get(key)) for key in ("drop", "reset", "hang")) > 1:
        raise ConfigError(f"{where}: give at most one of drop, reset, hang")
    return Answer(
        status=_int(raw.get("status", 200), f"{where}.status", 100),
        headers=_str_map(raw.get("headers"), f"{where}.headers"),
        body=raw.get("body"),
        fault=None if raw.get("fault") is None else parse_fault(raw["fault"], f"{where}.fault"),
        times=_int(raw.get("times", 1), f"{where}.times", 1),
        drop=_bool(raw.get("drop", False), f"{where}.drop"),
        reset=_bool(raw.get("reset", False), f"{where}.reset"),
        delay=_seconds(raw.get("delay", 0), f"{where}.delay"),
        hang=_bool(raw.get("hang", False), f"{where}.hang"),
        interrupt=_bool(raw.get("interrupt", False), f"{where}.interrupt"),
        log=_log(raw.get("log"), f"{where}.log"),
    )


def _log(data: Any, where: str) -> tuple[LogSpec, ...]:
    try:
        return parse_log(data, where)
    except LogSpecError as error:
        raise ConfigError(str(error)) from None


def parse_route(data: Any, where: str) -> Route:
    raw = _mapping(data, where)
    check_keys(raw, {"method", "path", "service", "query", "answers", "repeat_last"}, where)
    for key in ("method", "path", "answers"):
        if key not in raw:
            raise ConfigError(f"{where}.{key}: required")
    answers = raw["answers"]
    if not isinstance(answers, list) or not answers:
        raise ConfigError(f"{where}.answers: expected a non-empty list")
    path = _str(raw["path"], f"{where}.path")
    if not path.startswith("/"):
        raise ConfigError(f"{where}.path: must start with /")
    return Route(
        method=_str(raw["method"], f"{where}.method").upper(),
        path=path,
        answers=tuple(
            parse_answer(item, f"{where}.answers[{index}]") for index, item in enumerate(answers)
        ),
        service=None if raw.get("service") is None else _str(raw["service"], f"{where}.service"),
        query=None if raw.get("query") is None else _str_map(raw["query"], f"{where}.query"),
        repeat_last=_bool(raw.get("repeat_last", True), f"{where}.repeat_last"),
    )


def parse_catalog_entry(data: Any, where: str) -> CatalogEntry:
    raw = _mapping(data, where)
    check_keys(raw, {"url", "interfaces", "region"}, where)
    interfaces = raw.get("interfaces", list(INTERFACES))
    if not isinstance(interfaces, list) or not all(i in INTERFACES for i in interfaces):
        raise ConfigError(f"{where}.interfaces: expected a list of {', '.join(INTERFACES)}")
    return CatalogEntry(
        url=None if raw.get("url") is None else _str(raw["url"], f"{where}.url"),
        interfaces=tuple(interfaces),
        region=None if raw.get("region") is None else _str(raw["region"], f"{where}.region"),
    )


def parse_stub_config(stub: Any, routes: Any = None, where: str = "stub") -> StubConfig:
    """A :class:`StubConfig` from a case's ``stub:`` mapping and ``routes:`` list."""
    raw = _mapping(stub, where)
    check_keys(
        raw,
        {"host", "services", "auth", "username", "password", "ironic", "vars"}
        | {"tls", "catalog", "proxy", "log"},
        where,
    )
    services: dict[str, str] = dict(DEFAULT_SERVICES)
    for kind, prefix in _mapping(raw.get("services"), f"{where}.services").items():
        if prefix is None:
            services.pop(kind, None)
            continue
        text = _str(prefix, f"{where}.services.{kind}")
        if not text.startswith("/"):
            raise ConfigError(f"{where}.services.{kind}: must start with /")
        services[kind] = text.rstrip("/") or "/"
    if "identity" not in services:
        raise ConfigError(f"{where}.services.identity: the stub always plays Keystone")
    auth = _str(raw.get("auth", "accept"), f"{where}.auth")
    if auth not in ("accept", "refuse"):
        raise ConfigError(f"{where}.auth: expected accept or refuse")
    ironic_raw = _mapping(raw.get("ironic"), f"{where}.ironic")
    check_keys(ironic_raw, {"min_version", "max_version", "headers"}, f"{where}.ironic")
    defaults = IronicVersions()
    ironic = IronicVersions(
        min_version=_str(ironic_raw.get("min_version", defaults.min_version), f"{where}.ironic"),
        max_version=_str(ironic_raw.get("max_version", defaults.max_version), f"{where}.ironic"),
        headers=_bool(ironic_raw.get("headers", True), f"{where}.ironic.headers"),
    )
    if routes is not None and not isinstance(routes, list):
        raise ConfigError("routes: expected a list")
    proxy = None if raw.get("proxy") is None else _str(raw["proxy"], f"{where}.proxy")
    if proxy is not None and proxy not in PROXY_MODES:
        raise ConfigError(f"{where}.proxy: expected one of {', '.join(PROXY_MODES)}")
    catalog = {
        _str(kind, f"{where}.catalog"): parse_catalog_entry(entry, f"{where}.catalog.{kind}")
        for kind, entry in _mapping(raw.get("catalog"), f"{where}.catalog").items()
    }
    return StubConfig(
        host=_str(raw.get("host", "127.0.0.1"), f"{where}.host"),
        services=services,
        auth=auth,
        username=_str(raw.get("username", fakes.USER_NAME), f"{where}.username"),
        password=expand_text(
            _str(raw.get("password", fakes.PASSWORD), f"{where}.password"), _FAKE_VALUES
        ),
        ironic=ironic,
        vars=_str_map(raw.get("vars"), f"{where}.vars"),
        tls=_bool(raw.get("tls", False), f"{where}.tls"),
        catalog=catalog,
        proxy=proxy,
        log=_log(raw.get("log"), f"{where}.log"),
        routes=tuple(
            parse_route(item, f"routes[{index}]") for index, item in enumerate(routes or [])
        ),
    )
