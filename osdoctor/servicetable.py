"""The OpenStack services osdoctor knows, read from ``knowledge/services.yaml``,
and the words a service refuses a request in, which the facts and the rules share.

Which project runs a service type, which types are aliases of one another
(volumev3 of block-storage), which ports and path prefixes say a service: the
parser, the facts, the service-log reader and the lab all need it, and once
kept their own copies, which disagreed. They now all read this one table, and
``tests/test_one_service_table.py`` fails on a copy kept in Python.

It stands on the lowest floor because the parser needs it. ``osdoctor explain``
must not start slower for it: importing PyYAML costs more than the rest of the
table, so the parsed file is kept as JSON in the cache folder under the hash of
its content and read from there, PyYAML imported only when the file changed.
The table is checked on every load (the check is cheap); ``osdoctor kb lint``
runs the same check on the file with its lines. The records are named tuples and
the annotations plain (no ``from __future__ import annotations``, whose strings a
named tuple compiles one by one): importing and loading cost about a millisecond
(``benchmarks/bench_service_table.py``).
"""

import functools
import json
import os
import re
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

#: The fields a service may have, and whether each is a list (else text).
FIELDS: Mapping[str, bool] = {
    "aliases": True,
    "usual_type": False,
    "project": False,
    "code": False,
    "ports": True,
    "path_roots": True,
    "api_daemon": False,
    "catalog_name": False,
    "stub_path": False,
    "policy_prefixes": True,
    "quota_errors": True,
}
REQUIRED = ("project", "code")
#: The file's sections; ``status_words`` and ``faults`` are checked and read by
#: ``osdoctor.faultwords``, the others here (``clients``: which words of a User-Agent
#: or a command line say a service).
SECTIONS = ("kind", "services", "peers", "clients", "refusals", "status_words", "faults")
_CACHE_VERSION = "services-1"


class ServiceTableError(ValueError):
    """The services file is missing or does not hold a valid table."""


class Service(NamedTuple):
    """One service: its official type and what else names it.

    The table's records are named tuples, not dataclasses: a dataclass compiles its
    methods when its module is imported, which ``osdoctor explain`` would pay at
    every start for a table it only reads."""

    type: str
    project: str
    """The project's name, as an operator says it: ``Cinder``."""
    code: str
    """The project's own name: its ``/etc`` folder, policy namespace, logger prefix."""
    aliases: tuple[str, ...] = ()
    usual: str = ""
    """The alias most catalogs list it under, when not its type (``volume``)."""
    ports: tuple[int, ...] = ()
    path_roots: tuple[str, ...] = ()
    api_daemon: str = ""
    catalog_name: str = ""
    """The name devstack registers it under in the catalog (its code when not given)."""
    stub_path: str = ""
    """Where the lab's stub cloud mounts it by default ("" when it does not)."""
    policy_prefixes: tuple[str, ...] = ()
    """The first words of its policy rules when not one of its names (``os_compute_api``)."""
    quota_errors: tuple[str, ...] = ()
    """Its quota exceptions' class names, as regular expressions of whole words."""

    @property
    def usual_type(self) -> str:
        """The type the facts name it by when no catalog says: its usual alias, else
        its type. A next step's ``openstack endpoint list --service`` must name what
        the user's catalog has, and most still have ``volume`` or ``sharev2``."""
        return self.usual or self.type

    @property
    def names(self) -> tuple[str, ...]:
        """Its type, then its aliases: every type a catalog may list it under."""
        return (self.type, *self.aliases)


class Refusal(NamedTuple):
    """A service's refusal in words no successful run prints."""

    words: str
    """A regular expression."""
    status: int | None = None
    """The status the words stand for when a paste lost its ``(HTTP nnn)``."""
    rules: tuple[str, ...] = ()
    """The rules that read the same words (``kb lint`` checks a symptom of each matches)."""


class ServiceTable:
    """The services, indexed by every name, port and path root that says one."""

    __slots__ = (
        "services",
        "peers",
        "refusals",
        "clients_first",
        "clients_last",
        "_by_name",
        "_by_port",
        "_by_code",
        "_by_root",
        "_by_policy",
    )

    def __init__(
        self,
        services: tuple[Service, ...],
        peers: Mapping[str, tuple[int, ...]] | None = None,
        refusals: tuple[Refusal, ...] = (),
        clients: Mapping[str, tuple[tuple[str, str], ...]] | None = None,
    ) -> None:
        self.services = services
        self.peers: Mapping[str, tuple[int, ...]] = peers or {}
        """Other programs a service's log may point at by port (RabbitMQ, MySQL...)."""
        self.refusals = refusals
        self.clients_first = (clients or {}).get("first", ())
        """(words, service) that say a client before the URL and the parser do."""
        self.clients_last = (clients or {}).get("last", ())
        """(words, service) that say a client when nothing else did."""
        self._by_name: dict[str, Service] = {}
        self._by_port: dict[str, Service] = {}
        self._by_code: dict[str, Service] = {}
        self._by_root: dict[str, Service] = {}
        self._by_policy: dict[str, Service] = {}
        for service in self.services:
            for prefix in service.policy_prefixes:
                self._by_policy.setdefault(prefix, service)
            for name in service.names:
                self._by_name.setdefault(name, service)
            for port in service.ports:
                self._by_port.setdefault(str(port), service)
            self._by_code.setdefault(service.code, service)
            for root in service.path_roots:
                self._by_root.setdefault(root, service)

    def get(self, name: str) -> Service | None:
        """The service of a type or an alias of it."""
        return self._by_name.get(name)

    def official(self, name: str) -> str:
        """The official type of a type or alias (``block-storage`` of ``volumev3``); the
        name itself when the table does not know it."""
        service = self._by_name.get(name)
        return service.type if service is not None else name

    def at_port(self, port: str) -> Service | None:
        """The service whose default API port this is (``"8774"``)."""
        return self._by_port.get(port)

    def type_at_port(self, port: str) -> str:
        """The official type of the service at this port, or ""."""
        service = self._by_port.get(port)
        return service.type if service is not None else ""

    def of_code(self, code: str) -> Service | None:
        """The (first) service a project runs, by the project's own name (``cinder``)."""
        return self._by_code.get(code)

    def at_path_root(self, root: str) -> Service | None:
        """The service mounted under this first path word (``/volume/v3``)."""
        return self._by_root.get(root)

    def of_policy_prefix(self, prefix: str) -> Service | None:
        """The service whose policy rules start with this word, when it is not one of the
        service's names (``os_compute_api``)."""
        return self._by_policy.get(prefix)

    def families(self) -> dict[str, tuple[str, ...]]:
        """The projects whose own logs osdoctor reads (those with an ``api_daemon``),
        by their own name, and every type their services answer for."""
        read = {s.code for s in self.services if s.api_daemon}
        out: dict[str, tuple[str, ...]] = {}
        for service in self.services:
            if service.code in read:
                out[service.code] = out.get(service.code, ()) + service.names
        return out

    def project_at_port(self, port: str) -> str:
        """The project, or other program (RabbitMQ), at this well-known port, or ""."""
        service = self._by_port.get(port)
        return service.project if service is not None else self.peer_at_port(port)

    def peer_at_port(self, port: str) -> str:
        """The name of the non-OpenStack program at this port, or ""."""
        return next((name for name, ports in self.peers.items() if port in map(str, ports)), "")


def check(doc: Any, patterns: bool = True) -> list[tuple[int, str]]:
    """What is wrong with a parsed services file, as (line, message); empty when valid.
    Lines come from mappings that carry them (``kb lint`` parses with lines), else 0.
    ``patterns=False`` leaves the refusals' expressions uncompiled: loading at start-up
    does not pay for them (their first use compiles them, and ``kb lint`` checks them)."""
    problems: list[tuple[int, str]] = []

    def line(node: Any) -> int:
        return int(getattr(node, "line", 0))

    if not isinstance(doc, Mapping):
        return [(1, "the services file holds a mapping with 'services:'")]
    unknown = set(doc) - set(SECTIONS)
    if unknown:
        problems.append((line(doc), f"unknown keys {sorted(unknown)}: {', '.join(SECTIONS)}"))
    services = doc.get("services")
    if not isinstance(services, Mapping) or not services:
        return [*problems, (line(doc), "'services' maps each official type to its fields")]
    seen: dict[str, str] = {}
    ports: dict[int, str] = {}
    for stype, body in services.items():
        where = f"service '{stype}'"
        if not isinstance(body, Mapping):
            problems.append((line(services), f"{where}: a mapping of {', '.join(FIELDS)}"))
            continue
        for key in body:
            if key not in FIELDS:
                problems.append((line(body), f"{where}: unknown field '{key}'"))
        for key in REQUIRED:
            if not isinstance(body.get(key), str) or not body.get(key):
                problems.append((line(body), f"{where}: field '{key}' is required (text)"))
        for key, is_list in FIELDS.items():
            value = body.get(key)
            if value is None:
                continue
            kind = int if key == "ports" else str
            if is_list and not (
                isinstance(value, list) and all(isinstance(v, kind) for v in value)
            ):
                problems.append(
                    (line(body), f"{where}: field '{key}' is a list of {kind.__name__}")
                )
            elif not is_list and not isinstance(value, str):
                problems.append((line(body), f"{where}: field '{key}' is text"))
        quota_errors = body.get("quota_errors")
        for words in quota_errors if patterns and isinstance(quota_errors, list) else []:
            try:
                re.compile(str(words))
            except re.error as exc:
                problems.append((line(body), f"{where}: quota error '{words}': {exc}"))
        usual = body.get("usual_type")
        if usual is not None and usual not in (body.get("aliases") or []):
            problems.append((line(body), f"{where}: usual_type '{usual}' is not an alias"))
        for name in (stype, *(body.get("aliases") or [])):
            if name in seen:
                problems.append(
                    (line(body), f"{where}: '{name}' already names service '{seen[name]}'")
                )
            seen[str(name)] = str(stype)
        for port in body.get("ports") or []:
            if isinstance(port, int) and not 0 < port < 65536:
                problems.append((line(body), f"{where}: port {port} is not a TCP port"))
            elif port in ports:
                problems.append(
                    (line(body), f"{where}: port {port} is already service '{ports[port]}'s")
                )
            ports[port] = str(stype)
    peers = doc.get("peers") or {}
    if not isinstance(peers, Mapping) or not all(
        isinstance(v, list) and all(isinstance(p, int) for p in v) for v in peers.values()
    ):
        problems.append((line(doc), "'peers' maps a program's name to its list of ports"))
    problems += _check_clients(doc.get("clients") or {}, line(doc), set(seen), patterns)
    problems += _check_refusals(doc.get("refusals") or [], line(doc), patterns)
    return problems


def _check_clients(
    clients: Any, doc_line: int, names: set[str], patterns: bool
) -> list[tuple[int, str]]:
    if not isinstance(clients, Mapping) or set(clients) - {"first", "last"}:
        return [(doc_line, "'clients' maps 'first' and 'last' to lists of {service, words}")]
    problems: list[tuple[int, str]] = []
    for tier, items in clients.items():
        if not isinstance(items, list):
            problems.append((doc_line, f"clients: '{tier}' is a list of {{service, words}}"))
            continue
        for number, item in enumerate(items, 1):
            where = f"clients {tier} {number}"
            at = int(getattr(item, "line", 0)) or doc_line
            if not (
                isinstance(item, Mapping)
                and set(item) == {"service", "words"}
                and all(isinstance(v, str) and v for v in item.values())
            ):
                problems.append((at, f"{where}: a mapping of 'service' and 'words'"))
                continue
            if item["service"] not in names:
                problems.append((at, f"{where}: service '{item['service']}' is not in the table"))
            try:
                if patterns:
                    re.compile(item["words"])
            except re.error as exc:
                problems.append((at, f"{where}: 'words' is not a regular expression: {exc}"))
    return problems


def _check_refusals(refusals: Any, doc_line: int, patterns: bool) -> list[tuple[int, str]]:
    return check_worded(refusals, doc_line, patterns, "refusals", "refusal", status_needed=False)


def check_worded(
    items: Any, doc_line: int, patterns: bool, section: str, entry: str, status_needed: bool
) -> list[tuple[int, str]]:
    """What is wrong with a section of words that name rules (``refusals``,
    ``status_words``): each entry a regular expression, an error status (which
    ``status_needed`` says is not optional) and the rule ids that say the same."""
    if not isinstance(items, list):
        return [(doc_line, f"'{section}' is a list of {{words, status, rule}}")]
    problems: list[tuple[int, str]] = []
    for number, item in enumerate(items, 1):
        where = f"{entry} {number}"
        at = int(getattr(item, "line", 0)) or doc_line
        if not isinstance(item, Mapping) or not isinstance(item.get("words"), str):
            problems.append((at, f"{where}: a mapping with 'words' (a regular expression)"))
            continue
        extra = set(item) - {"words", "status", "rule"}
        if extra:
            problems.append((at, f"{where}: unknown field '{sorted(extra)[0]}'"))
        try:
            if patterns:
                re.compile(item["words"])
        except re.error as exc:
            problems.append((at, f"{where}: 'words' is not a regular expression: {exc}"))
        status = item.get("status")
        if (status_needed or status is not None) and not is_error_status(status):
            problems.append((at, f"{where}: 'status' is an error status (4xx or 5xx)"))
        if not rule_ids_valid(item.get("rule", "")):
            problems.append((at, f"{where}: 'rule' is a rule id or a list of them"))
    return problems


def is_error_status(value: Any) -> bool:
    """Whether an entry's ``status`` is an HTTP error status (4xx or 5xx)."""
    return isinstance(value, int) and not isinstance(value, bool) and 400 <= value < 600


def rule_ids_valid(value: Any) -> bool:
    """Whether an entry's ``rule`` is a rule id or a list of them."""
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    )


def rule_ids(value: Any) -> tuple[str, ...]:
    """The rule ids an entry's valid ``rule`` names (none when it names none)."""
    if isinstance(value, str):
        return (value,) if value else ()
    return tuple(value or ())


def build(doc: Any) -> ServiceTable:
    """The table of a valid parsed file (see ``check``)."""
    problems = check(doc, patterns=False)
    if problems:
        raise ServiceTableError("; ".join(message for _line, message in problems))
    services = tuple(
        Service(
            type=str(stype),
            project=body["project"],
            code=body["code"],
            aliases=tuple(body.get("aliases") or ()),
            usual=body.get("usual_type", ""),
            ports=tuple(body.get("ports") or ()),
            path_roots=tuple(body.get("path_roots") or ()),
            api_daemon=body.get("api_daemon", ""),
            catalog_name=body.get("catalog_name") or body["code"],
            stub_path=body.get("stub_path", ""),
            policy_prefixes=tuple(body.get("policy_prefixes") or ()),
            quota_errors=tuple(body.get("quota_errors") or ()),
        )
        for stype, body in doc["services"].items()
    )
    peers = {str(k): tuple(v) for k, v in (doc.get("peers") or {}).items()}
    refusals = tuple(
        Refusal(item["words"], item.get("status"), rule_ids(item.get("rule")))
        for item in doc.get("refusals") or []
    )
    clients = {
        str(tier): tuple((item["words"], item["service"]) for item in items)
        for tier, items in (doc.get("clients") or {}).items()
    }
    return ServiceTable(services, peers, refusals, clients)


def source() -> Path:
    """``services.yaml`` of the built-in knowledge: inside the installed package, or
    at the top of a source checkout (where ``kb.loader.builtin_dir`` finds it too)."""
    package = Path(__file__).resolve().parent
    inside = package / "knowledge" / "services.yaml"
    return inside if inside.is_file() else package.parent / "knowledge" / "services.yaml"


@functools.cache
def document() -> Any:
    """The built-in file as parsed, read once per process: the table here and the fault
    words (``osdoctor.faultwords``) are built from it."""
    return read(source())


@functools.cache
def table() -> ServiceTable:
    """The built-in table, read once per process."""
    return build(document())


def read(path: Path) -> Any:
    """The parsed file: from the JSON cache when its content was seen, else parsed
    with PyYAML and cached."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ServiceTableError(f"cannot read the services table {path.name}: {exc}") from None
    key = f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"
    cached = _cached(key)
    if cached is not None:
        return cached
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        doc = yaml.load(data.decode("utf-8"), Loader=loader)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ServiceTableError(f"{path.name} is not valid YAML: {exc}") from None
    _save(key, doc)
    return doc


def _cache_file(key: str) -> Path:
    from osdoctor.paths import cache_dir

    return cache_dir() / f"{_CACHE_VERSION}-{key}.json"


def _cached(key: str) -> Any:
    """The cached parse, or None: missing, not the user's own, writable by others, or
    not JSON."""
    try:
        with _cache_file(key).open("rb") as handle:
            info = os.fstat(handle.fileno())
            if info.st_uid != os.getuid() or info.st_mode & 0o022:
                return None
            return json.loads(handle.read())
    except (OSError, ValueError):
        return None


def _save(key: str, doc: Any) -> None:
    try:
        from osdoctor.paths import write_private

        target = _cache_file(key)
        for old in target.parent.glob(f"{_CACHE_VERSION}-*.json"):
            old.unlink(missing_ok=True)
        write_private(target, json.dumps(doc))
    except Exception:  # noqa: BLE001 - a cache that cannot be written is only slower
        pass
