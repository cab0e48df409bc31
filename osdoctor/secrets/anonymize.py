"""Consistent anonymisation of a debug log, for sharing it outside the company.

Host names, IP addresses, ids and the names of projects, users, domains,
stacks, nodes, servers and the other resources a command names are replaced by
stand-ins, the same value by the same stand-in everywhere: a host is learnt
from a URL, a connection line, a host name in running text (Ironic's "locked
by host ...") or an option; a user or project from the token request, the
options or an openrc's variables; a resource from the options that name one
(``--network private``) and from the command's last argument. So the log stays
diagnosable: ``/stacks/stack-1/<id>`` still lines up with the ``stack_name`` of
the request that created it. The
stand-ins come from reserved ranges (``host-1.example``, ``192.0.2.1``,
``2001:db8::1``) or are visibly fake (``00000000-0000-4000-8000-000000000001``).

Kept as they are, because they identify nobody and help the reader: loopback
addresses and ``localhost``, the unspecified address, the well-known names
``default``/``Default``, ``admin`` and ``service``, HTTP methods, statuses,
header names, JSON keys and API paths (only values are ever replaced).

Anonymisation is separate from redaction: secrets are masked first, on every
line; anonymisation is asked for (``--anonymize``) and keeps a mapping, which
the user may save (0600) to read answers about the shared log.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

__all__ = ["KINDS", "Anonymizer", "anonymize_text"]

#: Kinds of values and how their stand-ins look.
KINDS = (
    "host",
    "ip",
    "uuid",
    "id",
    "request",
    "project",
    "user",
    "domain",
    "stack",
    "node",
    "server",
    "name",
)

#: Values that identify nobody and that the reader needs as they are.
_KEEP = frozenset(
    {
        "localhost",
        "localhost.localdomain",
        "default",
        "admin",
        "service",
        "none",
        "null",
        "true",
        "false",
        "***",
        "get",
        "put",
        "post",
        "patch",
        "delete",
        "head",
        "options",
        "v1",
        "v2",
        "v2.0",
        "v2.1",
        "v3",
        "auth",
        "tokens",
        "stacks",
        "nodes",
        "servers",
        "detail",
        "resources",
        "events",
        "public",
        "internal",
    }
)

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_UUID_RE = re.compile(r"(?<![0-9A-Za-z-])" + _UUID + r"(?![0-9A-Za-z-])")
_REQUEST_ID_RE = re.compile(r"(?<![0-9A-Za-z-])req-" + _UUID + r"(?![0-9A-Za-z-])")
#: An id glued to a name by a dash (a container ``dep1-<uuid>``) is still an id.
_GLUED_UUID_RE = re.compile(r"(?<=[0-9A-Za-z]-)(?<!req-)" + _UUID + r"(?![0-9A-Za-z-])")
#: Kinds whose values are ids: replaced even where a dash glues them to a name.
_ID_KINDS = frozenset({"uuid", "id", "request"})
_HEX_ID_RE = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z])")
_IPV4_RE = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\w|\.\d)")
_URL_HOST_RE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://(?:[^\s/@'\"]*@)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)"
)
_CONNECTION_HOST_RE = re.compile(
    r"(?:HTTPS?ConnectionPool\(host='|HTTPS? connection \(\d+\): )(?P<host>[A-Za-z0-9.-]+)"
)

#: Keys whose (quoted) value is a name of the given kind.
_NAMED_KEYS = {
    "project_name": "project",
    "tenant_name": "project",
    "project": "project",
    "remote_project_name": "project",
    "username": "user",
    "user_name": "user",
    "user": "user",
    "domain_name": "domain",
    "user_domain_name": "domain",
    "project_domain_name": "domain",
    "domain": "domain",
    "stack_name": "stack",
    "server_name": "server",
    "node_name": "node",
    "host": "host",
    "hostname": "host",
    "hypervisor_hostname": "host",
    "OS-EXT-SRV-ATTR:host": "host",
    "OS-EXT-SRV-ATTR:hypervisor_hostname": "host",
}
_NAMED_VALUE_RE = re.compile(
    r"(?<![\w-])['\"]?(?P<key>" + "|".join(map(re.escape, _NAMED_KEYS)) + r")['\"]?"
    r"[ \t]*[:=][ \t]*(?P<q>['\"])(?P<value>[^'\"\\\s]{1,255})(?P=q)"
)
#: Keystone's token body: ``"user": {"id": "...", "name": "alice", "domain": ...}``.
_OBJECT_NAME_RE = re.compile(
    r"['\"](?P<kind>user|project|domain|stack|server|node)['\"]:\s*\{[^{}]*?"
    r"['\"]name['\"]:\s*(?P<q>['\"])(?P<value>[^'\"\\]{1,255})(?P=q)"
)
_OPTION_RE = re.compile(
    r"--os-(?P<opt>username|user-name|project-name|tenant-name|user-domain-name"
    r"|project-domain-name|domain-name)[ =](?P<value>[^\s'\"]+)"
)
_OPTION_KINDS = {
    "username": "user",
    "user-name": "user",
    "project-name": "project",
    "tenant-name": "project",
    "user-domain-name": "domain",
    "project-domain-name": "domain",
    "domain-name": "domain",
}
_STACK_PATH_RE = re.compile(r"/stacks/(?P<value>[^/?\s'\"]+)/" + _UUID)
#: A host name in running text (Ironic's "locked by host gold-4s-a.tpb.lab..."): labels
#: and a top-level domain a host has, not a Python dotted name or a file.
_FQDN_RE = re.compile(
    r"(?<![\w.@/-])(?P<host>(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
    r"(?P<tld>[A-Za-z]{2,12}))(?![\w-]|\.[A-Za-z0-9])"
)
_TLDS = frozenset(
    "com net org edu gov mil int io info biz cloud dev app tech online site local lan "
    "internal intranet corp home priv private localnet "
    "de uk fr cz cn jp ru br nl eu ch se fi dk es pt kr tw hk sg au nz ca us mx ar cl za "
    "il ie gr hu ro bg ua tr vn th ph pl sk si hr lt lv ee".split()
)
#: The host a service's words name: Ironic's lock ("is locked by host controller-0").
_BY_HOST_RE = re.compile(r"\bby host (?P<host>[A-Za-z0-9][\w.-]*[A-Za-z0-9])")
#: An openrc's variables: ``OS_USERNAME=alice``, ``export OS_PROJECT_NAME=demo``.
_ENV_RE = re.compile(
    r"\bOS_(?P<var>USERNAME|USER_NAME|PROJECT_NAME|TENANT_NAME|USER_DOMAIN_NAME"
    r"|PROJECT_DOMAIN_NAME)=['\"]?(?P<value>[^\s'\"]+)"
)
_ENV_KINDS = {
    "USERNAME": "user",
    "USER_NAME": "user",
    "PROJECT_NAME": "project",
    "TENANT_NAME": "project",
    "USER_DOMAIN_NAME": "domain",
    "PROJECT_DOMAIN_NAME": "domain",
}
#: Options of the clients whose value names a resource (``--network private``).
_RESOURCE_OPTION_RE = re.compile(
    r"(?<!\S)--(?P<opt>network|image|flavor|key-name|security-group|volume|snapshot|port"
    r"|subnet|router|server|availability-zone|host|stack|container|zone|node|"
    r"project|user|domain)[ =](?P<value>[^\s'\"=-][^\s'\"=]*)(?=\s|$)"
)
_RESOURCE_OPTION_KINDS = {
    "host": "host",
    "stack": "stack",
    "server": "server",
    "node": "node",
    "project": "project",
    "user": "user",
    "domain": "domain",
}
#: The words of a command that end its verb: what follows are its arguments.
_ACTIONS = frozenset(
    "create delete set unset show list add remove update rebuild resize start stop "
    "reboot poll clear purge boot abandon adopt manage provide inspect deploy".split()
)
_NAME_ARG_RE = re.compile(r"^[A-Za-z][\w.-]{1,62}$")
_FILE_RE = re.compile(r"\.(?:ya?ml|json|txt|sh|py|conf|ini|cfg|qcow2|img|iso|raw|pem|crt|key)$")

#: Stand-in address pools: the three documentation ranges, then the benchmarking range.
_IPV4_POOLS = (
    (ipaddress.IPv4Address("192.0.2.0"), 254),
    (ipaddress.IPv4Address("198.51.100.0"), 254),
    (ipaddress.IPv4Address("203.0.113.0"), 254),
    (ipaddress.IPv4Address("198.18.0.0"), 131070),
)


def _ip_kept(value: str) -> bool:
    """Loopback, unspecified and documentation addresses identify nobody."""
    try:
        address = ipaddress.ip_address(value.strip("[]"))
    except ValueError:
        return True  # not an address after all (a version string): leave it
    if address.is_loopback or address.is_unspecified:
        return True
    if isinstance(address, ipaddress.IPv4Address):
        return any(
            address in ipaddress.IPv4Network(net)
            for net in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
        )
    return address in ipaddress.IPv6Network("2001:db8::/32")


if TYPE_CHECKING:
    from osdoctor.model import Exchange, Trace


def _replacing(values: dict[str, str], kinds: dict[str, str]) -> re.Pattern[str]:
    """One pattern for every value: a name only as a whole word (``web`` is not
    replaced in ``web-1``), an id also where a dash glues it to a name."""

    def alternation(items: Iterable[str]) -> str:
        return "|".join(map(re.escape, sorted(items, key=len, reverse=True)))

    ids = [v for v in values if kinds.get(v) in _ID_KINDS]
    names = [v for v in values if kinds.get(v) not in _ID_KINDS]
    parts = []
    if names:
        parts.append(
            r"(?<![A-Za-z0-9.\-])(?:" + alternation(names) + r")(?![A-Za-z0-9\-]|\.[A-Za-z0-9])"
        )
    if ids:
        parts.append(r"(?<![A-Za-z0-9])(?:" + alternation(ids) + r")(?![A-Za-z0-9])")
    return re.compile("|".join(parts))


def _exchange_texts(ex: Exchange) -> list[str]:
    """What an exchange holds besides its URL: headers and bodies as logged."""
    out = [ex.request.raw_headers]
    if ex.request.body is not None and ex.request.body.text:
        out.append(ex.request.body.text)
    if ex.response is not None:
        out.append(ex.response.raw_headers)
        if ex.response.body is not None and ex.response.body.text:
            out.append(ex.response.body.text)
    if ex.error is not None:
        out.append(ex.error.message)
    return out


class Anonymizer:
    """Learns identifying values, then replaces them in text by stable stand-ins."""

    def __init__(self) -> None:
        self._stand_in: dict[str, str] = {}
        self._kind: dict[str, str] = {}
        self._counters: dict[str, int] = {}
        self._stand_ins: set[str] = set()
        self._pattern: re.Pattern[str] | None = None

    @property
    def mapping(self) -> dict[str, str]:
        """Original value -> stand-in, in the order learnt."""
        return dict(self._stand_in)

    @property
    def kinds(self) -> dict[str, str]:
        """Original value -> its kind."""
        return dict(self._kind)

    def _next(self, kind: str) -> int:
        number = self._counters.get(kind, 0) + 1
        self._counters[kind] = number
        return number

    def _make_stand_in(self, kind: str, value: str) -> str:
        number = self._next(kind)
        if kind == "host":
            return f"host-{number}.example"
        if kind == "ip":
            if ":" in value:
                stand_in = f"2001:db8::{number:x}"
                return f"[{stand_in}]" if value.startswith("[") else stand_in
            for base, size in _IPV4_POOLS:
                if number <= size:
                    return str(base + number)
                number -= size
            raise ValueError("too many IPv4 addresses to anonymise")
        if kind == "uuid":
            stand_in = f"00000000-0000-4000-8000-{number:012x}"
            return stand_in.upper() if value.isupper() else stand_in
        if kind == "id":
            return f"{number:032x}"
        if kind == "request":
            return f"req-00000000-0000-4000-8000-{number:012x}"
        return f"{kind}-{number}"

    def learn(self, kind: str, value: str, min_length: int = 2) -> str | None:
        """Record ``value`` as identifying; returns its stand-in, or None when the
        value is kept as it is (loopback, well-known names, shorter than
        ``min_length``, a stand-in)."""
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
        value = value.strip()
        known = self._stand_in.get(value)
        if known is not None:
            return known
        if (
            len(value) < min_length
            or value.lower() in _KEEP
            or value in self._stand_ins
            or (kind == "ip" and _ip_kept(value))
            or (kind == "host" and (value.endswith(".example") or _IPV4_RE.fullmatch(value)))
        ):
            return None
        stand_in = self._make_stand_in(kind, value)
        self._stand_in[value] = stand_in
        self._stand_ins.add(stand_in)
        self._kind[value] = kind
        self._pattern = None
        return stand_in

    def _learn_host(self, host: str) -> None:
        if host.startswith("[") or _IPV4_RE.fullmatch(host):
            self.learn("ip", host.strip("[]"))
        else:
            self.learn("host", host.rstrip("."))

    def learn_from_line(self, line: str) -> None:
        """Pick up hosts, addresses, ids and names a client printed on ``line``."""
        if "://" in line:
            for match in _URL_HOST_RE.finditer(line):
                self._learn_host(match["host"])
        if "onnection" in line:
            for match in _CONNECTION_HOST_RE.finditer(line):
                self._learn_host(match["host"])
        for match in _IPV4_RE.finditer(line):
            if all(int(part) <= 255 for part in match.group().split(".")):
                self.learn("ip", match.group())
        if "-" in line:
            for match in _UUID_RE.finditer(line):
                self.learn("uuid", match.group())
            for match in _GLUED_UUID_RE.finditer(line):
                self.learn("uuid", match.group())
        if "req-" in line:
            for match in _REQUEST_ID_RE.finditer(line):
                self.learn("request", match.group())
        for match in _HEX_ID_RE.finditer(line):
            self.learn("id", match.group())
        for match in _NAMED_VALUE_RE.finditer(line):
            self.learn(_NAMED_KEYS[match["key"]], match["value"], min_length=3)
        if "name" in line:
            for match in _OBJECT_NAME_RE.finditer(line):
                self.learn(match["kind"], match["value"], min_length=3)
        if "--os-" in line:
            for match in _OPTION_RE.finditer(line):
                self.learn(_OPTION_KINDS[match["opt"]], match["value"], min_length=3)
        if "/stacks/" in line:
            for match in _STACK_PATH_RE.finditer(line):
                self.learn("stack", match["value"], min_length=3)
        if "." in line:
            for match in _FQDN_RE.finditer(line):
                if match["tld"].lower() in _TLDS:
                    self.learn("host", match["host"])
        if "by host " in line:
            for match in _BY_HOST_RE.finditer(line):
                self._learn_host(match["host"])
        if "OS_" in line:
            for match in _ENV_RE.finditer(line):
                self.learn(_ENV_KINDS[match["var"]], match["value"], min_length=3)
        if " --" in line:
            for match in _RESOURCE_OPTION_RE.finditer(line):
                self._learn_resource(match["opt"], match["value"])

    def _learn_resource(self, option: str, value: str) -> None:
        if _UUID_RE.fullmatch(value) or _FILE_RE.search(value):
            return
        kind = _RESOURCE_OPTION_KINDS.get(option, "name")
        if kind == "host":
            self._learn_host(value)
        else:
            self.learn(kind, value, min_length=3)

    def learn_from_command(self, command: str, vocabulary: set[str]) -> None:
        """The name a command's last argument gives (``openstack server create ...
        web``, ``openstack user create ... glance``): a word after the command's
        verb, not an option's value, not a file, not one of ``vocabulary`` (the
        service types and endpoint words, which are the command's own words)."""
        words = command.split()
        verb = next(
            (
                i
                for i, w in enumerate(words)
                if w in _ACTIONS or (i == 1 and "-" in w and not w.startswith("-"))
            ),
            None,
        )
        if verb is None or len(words) <= verb + 1:
            return
        last, before = words[-1], words[-2]
        if (
            _NAME_ARG_RE.match(last)
            and len(words) - 1 > verb
            and not (before.startswith("-") and len(words) - 2 > verb)
            and not _FILE_RE.search(last)
            and last not in vocabulary
            and last.lower() not in _ACTIONS
        ):
            self.learn("name", last, min_length=3)

    def learn_from_lines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.learn_from_line(line)

    def learn_from_trace(self, trace: Trace) -> None:
        """Everything a parsed log names: URLs, printed lines, and the command's
        own arguments when a request path uses them (a stack or node name)."""
        segments: set[str] = set()
        for ex in trace.exchanges:
            self.learn_from_line(ex.request.url)
            # The path after the service's endpoint prefix: a command word such as
            # "baremetal" is also the prefix of its endpoint, and is no name.
            path = ex.path or "/".join(ex.request.url.partition("?")[0].split("/")[3:])
            segments.update(path.split("/"))
        for ex in trace.exchanges:
            for text in _exchange_texts(ex):
                for line in text.splitlines():
                    self.learn_from_line(line)
        for message in trace.messages:
            self.learn_from_line(message.text)
        for tb in trace.tracebacks:
            self.learn_from_line(tb.message)
        for record in trace.service_records:
            for line in (record.text, record.message, record.exception_message, *record.more):
                self.learn_from_line(line)
        # Words of an endpoint's own path (/volume/v3/...) and service types are the
        # command's vocabulary ("openstack volume delete"), not names.
        endpoint_words = set(trace.catalog)
        for urls in trace.catalog.values():
            for url in urls:
                endpoint_words.update(url.partition("://")[2].partition("/")[2].split("/"))
        if trace.command:
            self.learn_from_line(trace.command)
            for word in trace.command.split()[1:]:
                if not word.startswith("-") and word in segments - endpoint_words:
                    self.learn("name", word)
        for command in {trace.command, *(c.text for c in trace.commands)}:
            if command:
                self.learn_from_line(command)
                self.learn_from_command(command, endpoint_words)

    def anonymize_trace(self, trace: Trace) -> Trace:
        """A copy of ``trace`` with every learnt value replaced, in every field.

        Diagnosis and reports shorten what they show (a fault message in a title,
        a URL to its column, an evidence line to 110 characters): a trace
        anonymised before it is diagnosed gives whole stand-ins to cut, so no cut
        id escapes and the columns are laid out for the stand-ins."""
        return cast("Trace", self._walk(trace))

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.apply(value)
        if isinstance(value, list):
            return [self._walk(item) for item in value]
        if isinstance(value, dict):
            return {self._walk(k): self._walk(v) for k, v in value.items()}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return dataclasses.replace(
                value,
                **{
                    f.name: self._walk(getattr(value, f.name))
                    for f in dataclasses.fields(value)
                    if f.init
                },
            )
        return value

    def _compiled(self) -> re.Pattern[str] | None:
        if self._pattern is None and self._stand_in:
            self._pattern = _replacing(self._stand_in, self._kind)
        return self._pattern

    def apply(self, text: str) -> str:
        """``text`` with every learnt value replaced by its stand-in."""
        pattern = self._compiled()
        if pattern is None:
            return text
        return pattern.sub(lambda match: self._stand_in[match.group()], text)

    def reverse(self, text: str) -> str:
        """Undo ``apply`` with the mapping (to read an answer about a shared log)."""
        inverse = {stand_in: value for value, stand_in in self._stand_in.items()}
        if not inverse:
            return text
        kinds = {
            stand_in: self._kind.get(value, "name") for value, stand_in in self._stand_in.items()
        }
        pattern = _replacing(inverse, kinds)
        return pattern.sub(lambda match: inverse[match.group()], text)

    def save_mapping(self, path: str | os.PathLike[str]) -> Path:
        """Write the mapping as JSON, readable by the owner only (0600; every folder
        it has to create, parents included, is 0700): the mapping undoes the
        anonymisation."""
        from osdoctor.paths import write_private

        document = {
            "format": "osdoctor-anonymize-mapping/1",
            "mapping": self._stand_in,
            "kinds": self._kind,
        }
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        return write_private(Path(path), text)

    @classmethod
    def load_mapping(cls, path: str | os.PathLike[str]) -> Anonymizer:
        """An anonymizer holding a mapping saved by ``save_mapping``."""
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
            mapping = document["mapping"]
            kinds = document["kinds"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}: not an osdoctor anonymisation mapping ({error})") from None
        anonymizer = cls()
        for value, stand_in in mapping.items():
            kind = kinds.get(value, "name")
            anonymizer._stand_in[str(value)] = str(stand_in)
            anonymizer._stand_ins.add(str(stand_in))
            anonymizer._kind[str(value)] = kind
            anonymizer._counters[kind] = anonymizer._counters.get(kind, 0) + 1
        return anonymizer


def anonymize_text(text: str, anonymizer: Anonymizer | None = None) -> str:
    """Learn from every line of ``text``, then replace: the whole log, consistently."""
    anonymizer = anonymizer if anonymizer is not None else Anonymizer()
    lines = text.splitlines(keepends=True)
    anonymizer.learn_from_lines(lines)
    return anonymizer.apply(text)
