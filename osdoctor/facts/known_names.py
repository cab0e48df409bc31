"""Names an operator recognises: which project runs a service, what a path is about,
which client versions wrote the log.

Services, their projects, ports and path roots come from ``knowledge/services.yaml``;
what is here reads a client's words (its User-Agent, its command line)."""

from __future__ import annotations

import re

from osdoctor import regex
from osdoctor.parse.http_text import split_url
from osdoctor.servicetable import table

# A User-Agent's product (``python-barbicanclient/5.0``, ``cgtsclient``) or the
# command's own words (``openstack secret list``) that say which CLI this is, and so
# which service: ``clients`` of knowledge/services.yaml, ``first`` read before the URL
# and the parser's reading, ``last`` when neither said.
_AGENTS = [(regex.compile(words), stype) for words, stype in table().clients_first]
_COMMANDS = [(regex.compile(words), stype) for words, stype in table().clients_last]
# openstack's options before the command words (``--os-auth-url URL``, ``--insecure``).
_GLOBAL_OPTIONS = regex.compile(
    r"\s+(?:--os-[\w-]+(?:=\S+|\s+(?!-)\S+)?|--(?:insecure|debug|verbose)|-v+)"
)
_IRREGULAR = {
    "policies": "policy",
    "addresses": "address",
    "statuses": "status",
    "ihosts": "host",
    "aliases": "alias",
    "indices": "index",
}
_ID = regex.compile(
    r"^(?:[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}|"
    r"[0-9a-f]{32}|\d+|v\d[\w.]*|AUTH_\w+)$",
    re.I,
)
_VERSION_PATH = regex.compile(r"^v\d+(\.\d+)?$")


def service_for(service: str | None, url: str, agent: str = "", command: str = "") -> str:
    """The catalog type of a request, from the parser's reading, the agent, the port or
    the command line."""
    if agent.startswith("openstack -"):
        agent = " ".join(_GLOBAL_OPTIONS.sub(" ", agent).split())
    for rx, stype in _AGENTS:
        if (agent and rx.search(agent)) or (command and rx.search(command)):
            return stype
    if service:
        return service
    if url:
        base, path, _query = split_url(url)
        named = table().at_port(base.rpartition(":")[2]) or table().at_path_root(
            path.lstrip("/").partition("/")[0]
        )
        if named is not None:
            return named.usual_type
    if command.startswith("openstack -"):
        command = " ".join(_GLOBAL_OPTIONS.sub(" ", command).split())
    for rx, stype in _COMMANDS:
        if (agent and rx.search(agent)) or (command and rx.search(command)):
            return stype
    return ""


#: The last word of an openstack command before its arguments.
_ACTION_WORDS = frozenset(
    {
        "create",
        "delete",
        "set",
        "unset",
        "show",
        "list",
        "add",
        "remove",
        "update",
        "rebuild",
        "resize",
        "start",
        "stop",
        "reboot",
        "poll",
        "clear",
        "issue",
        "purge",
        "validate",
        "abandon",
        "adopt",
        "manage",
        "provide",
        "inspect",
        "deploy",
        "undeploy",
        "clean",
        "save",
        "import",
        "export",
    }
)
_COMMAND_WORD = regex.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


def command_words(command: str) -> str:
    """The command without its arguments, as ``--help`` takes it: ``openstack server
    create`` of ``openstack --os-cloud x server create --image y web``, ``nova boot``
    of ``nova boot --flavor 1 vm``; empty when it is not a client's command."""
    if command.startswith("openstack -"):
        command = " ".join(_GLOBAL_OPTIONS.sub(" ", command).split())
    words = command.split()
    if not words or not _COMMAND_WORD.match(words[0]):
        return ""
    if words[0] != "openstack":
        # The older clients take one word: ``nova boot``, ``heat stack-create``.
        second = words[1] if len(words) > 1 else ""
        return f"{words[0]} {second}" if _COMMAND_WORD.match(second) else ""
    out = [words[0]]
    for word in words[1:5]:
        if not _COMMAND_WORD.match(word):
            break
        out.append(word)
        if word in _ACTION_WORDS:
            return " ".join(out)
    return ""


def service_name(stype: str) -> str:
    """``Neutron`` for network; the type itself when no project is known for it."""
    if not stype:
        return "the service"
    service = table().get(stype)
    return service.project if service is not None else stype


def service_project(stype: str) -> str:
    """The project's own name, as its configuration folder (``/etc/nova``) and policy
    namespace use it; "" when no project is known for the type."""
    service = table().get(stype)
    return service.code if service is not None else ""


def type_of_project(name: str) -> str:
    """The usual type of the service a project runs, by a name a client's words give
    (``Cinder``, ``cinder``); "" when it names no project."""
    service = table().of_code(name.lower())
    return service.usual_type if service is not None else ""


def usual_type(name: str) -> str:
    """The usual type of a type, an alias of one or a project's name (``volume`` of
    ``block-storage``, ``volumev3`` or ``cinder``); "" when it is none of them."""
    service = table().get(name) or table().of_code(name)
    return service.usual_type if service is not None else ""


def singular(word: str) -> str:
    word = word.replace("os-", "").replace("_", " ").replace("-", " ")
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


# Octavia's (and neutron-lbaas') paths have "lbaas/" below the version.
_PREFIX = regex.compile(r"^(?:v\d[\w.]*|AUTH_\w+|[0-9a-f]{32}|lbaas)$", re.I)
_ACTIONS = frozenset({"action", "detail", "states", "provision", "power", "actions"})


def resource_of(path: str) -> str:
    """What a request path is about: ``/v2.0/ports/x`` -> ``port``; ``/servers/x/action``
    -> ``server``; ``/v2.0/networks/net9`` -> ``network`` (a name where an ID goes).
    Below the version and project prefix, REST paths alternate collection and item."""
    parts = [p for p in path.partition("?")[0].split("/") if p]
    while parts and _PREFIX.match(parts[0]):
        parts.pop(0)
    while parts and parts[-1] in _ACTIONS:
        parts.pop()
    if not parts:
        return "version document" if path.strip("/") else ""
    collection = parts[-1] if len(parts) % 2 else parts[-2]
    if _ID.match(collection):
        return ""
    return singular(collection)


def is_version_root(path: str) -> bool:
    """``/``, ``/v3``, ``/v2.1/``: a version document, not a resource."""
    parts = [p for p in path.partition("?")[0].split("/") if p]
    return not parts or (len(parts) == 1 and _VERSION_PATH.match(parts[0]) is not None)


_UA = regex.compile(r"(?P<name>[A-Za-z][\w.-]*)/(?P<version>\d+(?:\.\d+)+)")
_PKG = regex.compile(
    r"(?:site|dist)-packages/(?P<name>[A-Za-z][\w]*?)[-_](?P<version>\d+(?:\.\d+)+)"
    r"(?:[-.]py[\d.]+)?\.(?:egg|dist)-info|"
    r"/nix/store/\w+-(?:python[\d.]+-)?(?P<nname>[A-Za-z][\w-]*?)-"
    r"(?P<nversion>\d+(?:\.\d+)+)/"
)


def versions_in(text: str) -> dict[str, str]:
    """Package versions a line shows: ``keystoneauth1/3.1.0`` in a User-Agent,
    ``webob-1.8.8`` in a store path, ``foo-1.2.dist-info`` in a traceback."""
    found: dict[str, str] = {}
    for m in _UA.finditer(text):
        found[m.group("name").lower()] = m.group("version")
    for m in _PKG.finditer(text):
        name = m.group("name") or m.group("nname")
        version = m.group("version") or m.group("nversion")
        if name and version:
            found[name.lower().replace("_", "-")] = version
    return found


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:4])
