"""Which command a log shows, and which client ran it.

People paste a client's output under the line they typed: behind a shell
prompt (``$ ``, ``[root@host ~]# ``, ``user@host:~/dir$ ``), as a bash xtrace
line (``+ openstack ...``), bare, quoted in typographic quotes, or named inside
the poster's own elision marker. Legacy clients (nova, cinder, neutron...) log
no ``START with options`` line: the command line is the only place that names
them, beside the User-Agent of their requests.
"""

from __future__ import annotations

from osdoctor import regex
from osdoctor.parse.wrappers import LAUNCHERS, launched, xtrace_command
from osdoctor.run.programs import PROGRAMS

#: Every client name a trace can carry (``Trace.client``), "unknown" last.
CLIENTS: tuple[str, ...] = tuple(dict.fromkeys([*PROGRAMS.values(), "unknown"]))

#: User-Agent words of each client's requests, most specific first: a log with
#: no command line (swift --debug, a cut log) still says which client sent it.
AGENTS: tuple[tuple[str, str], ...] = (
    ("python-swiftclient", "swiftclient"),
    ("python-heatclient", "heatclient"),
    ("python-ironicclient", "ironicclient"),
    ("python-openstackclient", "openstackclient"),
    ("openstacksdk", "openstackclient"),
    ("osc-lib", "openstackclient"),
    ("python-novaclient", "novaclient"),
    ("python-cinderclient", "cinderclient"),
    ("python-neutronclient", "neutronclient"),
    ("python-glanceclient", "glanceclient"),
    ("python-keystoneclient", "keystoneclient"),
    ("cgtsclient", "cgtsclient"),
    ("gnocchi ", "gnocchiclient"),
    ("cinder ", "cinderclient"),
    ("nova ", "novaclient"),
    ("neutron ", "neutronclient"),
    ("glance ", "glanceclient"),
)

# "[root@host ~]# ", "(venv) [u@h dir]$ ", "u@h:~/dir$ ", "(ansible)u@h:~$ ", "$ ", "# ".
_PROMPT = regex.compile(
    r"(?:\([\w.\-]+\) ?)?"
    r"(?P<who>\[[\w.\-]+@[^\]\s]+(?: [^\]]*)?\]|[\w.\-]+@[\w.\-]+(?::[^\s$#]*)?"
    r"|[\w.\-]+:[~/][^\s$#]*|[\w.\-]+(?=[$#] ))?"
    r"\s?[$#%\u276f] +(?=\S)"
)
_XTRACE = regex.compile(r"\++ (?=\S)")
#: The prompt of ``openstack`` run without a command: its interactive shell.
_INTERACTIVE = "(openstack) "
#: Second words that make a bare line a command rather than prose ("heat the oven").
_NOUNS = frozenset(
    {
        "server",
        "stack",
        "network",
        "subnet",
        "port",
        "router",
        "volume",
        "image",
        "flavor",
        "user",
        "project",
        "role",
        "token",
        "catalog",
        "endpoint",
        "service",
        "domain",
        "baremetal",
        "node",
        "secret",
        "resource",
        "metric",
        "list",
        "show",
        "create",
        "delete",
        "update",
        "set",
        "floating",
        "security",
        "keypair",
        "quota",
        "hypervisor",
        "host",
        "aggregate",
        "container",
        "object",
        "account",
        "zone",
        "recordset",
        "loadbalancer",
        "coe",
        "share",
        "alarm",
        "orchestration",
        "compute",
        "limits",
        "usage",
        "stat",
        "upload",
        "download",
        "post",
        "capabilities",
        "availability",
    }
)


def client_of(program: str) -> str:
    """The client of a program name or path (``/usr/bin/nova`` -> novaclient)."""
    return PROGRAMS.get(program.rsplit("/", 1)[-1], "unknown")


def without_debug(words: list[str]) -> list[str]:
    return [w for w in words if w not in ("--debug", "-d", "--verbose", "-v")]


_FIRST_WORD = regex.compile(r"\s*(\S+)")


def _client_words(text: str) -> list[str] | None:
    first_word = _FIRST_WORD.match(text)
    if first_word is None:
        return None
    if (
        first_word[1] not in ("sudo", "time", "env")
        and first_word[1] not in LAUNCHERS
        and client_of(first_word[1]) == "unknown"
    ):
        return None  # nearly every line: it is not split
    words = text.split()
    if not words:
        return None
    if words[0] in LAUNCHERS:
        inner = launched(words)
        if inner is None:
            return None
        words = inner
    first = words[0]
    if first in ("sudo", "time", "env") and len(words) > 1:
        words = words[1:]
        while words and "=" in words[0]:
            words = words[1:]
        if not words:
            return None
    return words if client_of(words[0]) != "unknown" else None


#: Words that end a shell command: what follows them is another program's.
_SHELL_OPERATORS = frozenset(("|", "||", "&&", ";", "|&", ">", ">>", "2>&1", "2>", "&>"))


def _command_words(text: str) -> list[str] | None:
    """The client's words of a command line: ``glance image-show | grep status`` ran
    ``glance image-show``; the rest belongs to the programs after the operator."""
    words = _client_words(text)
    if words is None:
        return None
    for i, word in enumerate(words):
        if word in _SHELL_OPERATORS:
            return words[:i]
    return words


def recognise(text: str) -> tuple[str, str, bool] | None:
    """(command typed, its client, whether it came behind a prompt or xtrace mark)
    when ``text`` is a command line; None for any other line. Lines behind a
    prompt are commands whatever they run (``grep``, ``cat``); bare ones only when
    they run a known client with what looks like its arguments."""
    if len(text) > 2000:
        return None
    body = text.strip()
    if len(body) > 2 and body[0] in _OPENERS and body[-1] == _OPENERS[body[0]]:
        body = body[1:-1].strip()  # “nova --debug volume-list”, `openstack ...`
    if not body:
        return None
    c = body[0]
    if body.startswith(_INTERACTIVE):
        # osc's interactive shell: "(openstack) server list" is "openstack server list"
        rest = body[len(_INTERACTIVE) :].strip()
        if rest and rest[0].isalpha():
            return " ".join(without_debug(["openstack", *rest.split()])), "openstackclient", True
    if c in "+:":
        traced = xtrace_command(body)  # bash's "+ cmd", devstack's "+lib/x:fn:12  cmd"
        if traced is not None:
            words = _command_words(traced.strip().strip("`"))
            if words is not None:
                return " ".join(without_debug(words)), client_of(words[0]), True
    if c in "[($#+\u276f" or "$ " in body[:160] or "# " in body[:160]:
        m = (_XTRACE.match(body) if c == "+" else None) or _PROMPT.match(body)
        if m is not None:
            rest = body[m.end() :].strip().strip("`")
            words = _command_words(rest)
            if words is not None:
                return " ".join(without_debug(words)), client_of(words[0]), True
            who = m.groupdict().get("who")
            if who and rest:
                # A shell prompt with a user and host: a command, if not a client's.
                return rest, "unknown", True
            return None
    words = _command_words(body)
    if words is None or len(words) < 2 or body.endswith((".", ":", "?", "!")):
        return None
    if any(w.endswith(":") for w in words[:5]):
        return None  # a program's own words about itself: "openstack server list: error: ..."
    second = words[1]
    if not (
        second.startswith("-")
        or "-" in second
        or second in _NOUNS
        or any(w.startswith("--") for w in words[2:])
    ):
        return None
    if any(not w.isascii() for w in words[:2]):
        return None
    return " ".join(without_debug(words)), client_of(words[0]), False


_OPENERS = {"\u201c": "\u201d", '"': '"', "`": "`", "'": "'"}

_BACKTICKED = regex.compile(r"`([^`]+)`")


def named_in(text: str) -> tuple[str, str] | None:
    """The client command a poster's note names in backticks (``--- `openstack
    server create --debug ...` (only this line was quoted) ---``)."""
    for m in _BACKTICKED.finditer(text):
        words = _command_words(m.group(1))
        if words is not None and len(words) >= 2:
            return " ".join(without_debug(words)), client_of(words[0])
    return None
